"""The grid of a sweep: traces × policy variants × sizes × modes × warm-ups × seeds.

A grid comes from the command line or from a TOML file (read with the standard ``tomllib``)::

    traces   = ["traces/*.trace.gz", "workload:zipf?n_requests=1e5"]
    policies = ["lru", "arc", "s3fifo?small_ratio=0.05,0.1,0.2"]
    sizes    = ["1%:50%:12"]          # or [100, "10%", "64MiB"]
    log      = true                    # range sizes log-spaced
    mode     = "cache"                 # or ["cache", "kernel"]
    warmup   = "10%"                   # or a list
    seeds    = [0, 1, 2]
    timeout  = 60                      # seconds per run
    [set]
    "s3fifo.ghost_ratio" = "0.5"

Relative paths and globs in a TOML file are relative to the file's folder.

Policy variants
    ``NAME?param=v1,v2&other=w1,w2`` expands to the product of the listed values, in order. On
    the command line policies are comma-separated too: an item after ``param=`` that starts with
    a digit, a sign or a point, or is ``true``/``false``, is one more value of that parameter;
    any other item names the next policy (``--policy lru,s3fifo?small_ratio=0.05,0.1,arc``).
Sizes
    A page count (``5000``), a percentage of each trace's unique pages (``10%``), bytes with a
    unit (``64MiB``, ``1g``; pages of 4 KiB), or a range ``FIRST:LAST:COUNT`` of either kind
    (``1%:50%:12``): ``COUNT`` sizes evenly spaced from first to last, or geometrically spaced
    with ``log``.
Seeds
    A seed is handed to a ``workload:`` generator (as its ``seed`` parameter, unless the spec
    sets one) and to every policy with a ``seed`` parameter; a run that takes no seed anywhere
    is run once, with seed None.
"""

from __future__ import annotations

import glob
import itertools
import math
import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pagesim.analysis.compare import parse_size
from pagesim.policies.base import Policy
from pagesim.policies.registry import policy_class

__all__ = [
    "MODES",
    "PAGE_BYTES",
    "WORKLOAD_PREFIX",
    "Grid",
    "PolicyVariant",
    "expand_sizes",
    "expand_traces",
    "grid_from_options",
    "grid_from_toml",
    "parse_policies",
]

WORKLOAD_PREFIX = "workload:"
MODES = ("cache", "kernel")
#: Bytes of one page, for sizes given in bytes.
PAGE_BYTES = 4096

_UNITS = {"b": 1, "k": 1024, "kib": 1024, "kb": 1000, "m": 1 << 20, "mib": 1 << 20, "mb": 10**6,
          "g": 1 << 30, "gib": 1 << 30, "gb": 10**9, "t": 1 << 40, "tib": 1 << 40}  # fmt: skip
_BYTES = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]+)\s*$")
_VALUE_START = re.compile(r"^\s*([-+.0-9]|true\b|false\b)", re.IGNORECASE)


@dataclass(frozen=True)
class PolicyVariant:
    """One policy with one set of parameter values.

    Attributes
    ----------
    name : str
        Registry name or ``path/to/file.py:Class``.
    params : tuple of (str, value)
        The parameters set explicitly, sorted by name (values typed as the defaults).
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def policy(self) -> Policy:
        """A configured instance (raises UnknownPolicyError, ValueError)."""
        return policy_class(self.name)(**dict(self.params))

    def label(self) -> str:
        """``name`` or ``name?p=v&q=w``."""
        if not self.params:
            return self.name
        return self.name + "?" + "&".join(f"{k}={v}" for k, v in self.params)


@dataclass
class Grid:
    """A sweep's grid before any trace is read.

    Attributes
    ----------
    traces : list of str
        Trace files (globs expanded) and ``workload:`` specs, in order, duplicates removed.
    policies : list of PolicyVariant
    sizes : list of str
        Expanded size texts: ``"5000"``, ``"12.5%"`` (ranges expanded; bytes converted to pages).
    modes : list of str
        ``cache`` and/or ``kernel``.
    warmups : list of str or None
        As :func:`pagesim.analysis.compare.resolve_warmup` reads them; None for none.
    seeds : list of int or None
    timeout : float or None
        Seconds a run may last before it is recorded as failed.
    """

    traces: list[str]
    policies: list[PolicyVariant]
    sizes: list[str]
    modes: list[str] = field(default_factory=lambda: ["cache"])
    warmups: list[str | None] = field(default_factory=lambda: [None])
    seeds: list[int | None] = field(default_factory=lambda: [None])
    timeout: float | None = None

    def validate(self) -> Grid:
        """Check every part; return self.

        Raises
        ------
        ValueError
            For an empty part or an unknown mode.
        """
        for name, part in (("trace", self.traces), ("policy", self.policies), ("size", self.sizes)):
            if not part:
                raise ValueError(f"the sweep has no {name}: give at least one")
        for mode in self.modes:
            if mode not in MODES:
                raise ValueError(f"unknown mode {mode!r}; known modes: {', '.join(MODES)}")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"--timeout must be > 0 seconds, got {self.timeout}")
        return self


def _typed(text: str, default: Any, where: str) -> Any:
    """``text`` as the type of ``default`` (bool, int, float or str)."""
    raw = str(text).strip()
    try:
        if isinstance(default, bool):
            if raw.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return raw.lower() in ("true", "1")
        if isinstance(default, int):
            value = float(raw)
            if value != int(value):
                raise ValueError
            return int(value)
        if isinstance(default, float):
            return float(raw)
    except ValueError:
        raise ValueError(f"{where}: expected a {type(default).__name__}, got {text!r}") from None
    return text


def _split_items(text: str) -> list[list[str]]:
    """``"lru,s3fifo?a=1,2&b=3,arc"`` -> ``[["lru"], ["s3fifo?a=1", "2&b=3"], ["arc"]]``."""
    groups: list[list[str]] = []
    for item in (p.strip() for p in text.split(",")):
        if not item:
            continue
        if groups and "?" in groups[-1][0] and _VALUE_START.match(item):
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def _variants(spec: str, sets: dict[str, dict[str, list[str]]]) -> list[PolicyVariant]:
    """The variants of one ``NAME?param=v1,v2&...`` spec (commas already re-joined)."""
    name, _, query = spec.partition("?")
    name = name.strip()
    cls = policy_class(name)  # UnknownPolicyError lists the known names
    lists: dict[str, list[str]] = {k: list(v) for k, v in sets.get(cls.policy_name().lower(), {}).items()}
    for item in filter(None, query.split("&")):
        key, eq, values = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"policy {spec!r}: cannot read {item!r}; use NAME?param=v1,v2")
        lists[key.strip()] = [v for v in values.split(",") if v.strip()]
    for key, values in lists.items():
        if key not in cls.params:
            known = ", ".join(f"{k} (default {v!r})" for k, v in cls.params.items()) or "none"
            raise ValueError(f"policy {name!r} has no parameter {key!r}; its parameters: {known}")
        if not values:
            raise ValueError(f"policy {spec!r}: parameter {key} has no value")
    keys = sorted(lists)
    typed = [[_typed(v, cls.params[k], f"policy {name}, parameter {k}") for v in lists[k]] for k in keys]
    return [PolicyVariant(name, tuple(zip(keys, combo))) for combo in itertools.product(*typed)]


def _parse_sets(items: Sequence[str] | dict[str, Any] | None) -> dict[str, dict[str, list[str]]]:
    """``--set NAME.PARAM=V1,V2`` items (or a TOML ``[set]`` table) by policy name."""
    pairs: list[tuple[str, str]] = []
    if isinstance(items, dict):
        pairs = [(str(k), ",".join(map(str, v)) if isinstance(v, list) else str(v)) for k, v in items.items()]
    else:
        for item in items or ():
            key, eq, value = str(item).partition("=")
            if not eq:
                raise ValueError(f"cannot read --set {item!r}: use NAME.PARAM=VALUE[,VALUE...]")
            pairs.append((key, value))
    out: dict[str, dict[str, list[str]]] = {}
    for key, value in pairs:
        name, dot, param = key.strip().rpartition(".")
        if not dot or not name or not param:
            raise ValueError(f"cannot read --set {key}={value}: use NAME.PARAM=VALUE[,VALUE...]")
        out.setdefault(name.lower(), {})[param] = [v.strip() for v in value.split(",") if v.strip()]
    return out


def parse_policies(
    items: Sequence[str], sets: Sequence[str] | dict[str, Any] | None = None
) -> list[PolicyVariant]:
    """Policy variants of ``--policy`` values (each may be a comma-separated list).

    Parameters
    ----------
    items : sequence of str
        E.g. ``["lru,arc", "s3fifo?small_ratio=0.05,0.1,0.2"]``.
    sets : sequence of str or dict, optional
        ``--set NAME.PARAM=V1,V2`` values applied to every variant of ``NAME`` (a spec's own
        ``?param=`` wins).

    Returns
    -------
    list of PolicyVariant
        In order, duplicates removed.

    Raises
    ------
    UnknownPolicyError
        For an unknown name (listing the known ones).
    ValueError
        For an unknown parameter or a value of the wrong type.
    """
    parsed_sets = _parse_sets(sets)
    out: list[PolicyVariant] = []
    for item in items:
        for group in _split_items(str(item)):
            for variant in _variants(",".join(group), parsed_sets):
                if variant not in out:
                    out.append(variant)
    named = {v.name.lower() for v in out} | {policy_class(v.name).policy_name().lower() for v in out}
    for name in parsed_sets:
        if name not in named:
            raise ValueError(f"--set {name}.…: {name!r} is not among the policies of the sweep")
    return out


def _one_size(text: str) -> tuple[float, str]:
    """``(value, kind)`` with kind ``pages``, ``percent`` or ``bytes`` (value then in pages)."""
    m = _BYTES.match(text)
    if m and m.group(2).lower() in _UNITS:
        pages = float(m.group(1)) * _UNITS[m.group(2).lower()] / PAGE_BYTES
        if pages < 1:
            raise ValueError(f"size {text!r} is less than one page of {PAGE_BYTES} bytes")
        return pages, "bytes"
    if m:
        raise ValueError(f"size {text!r}: unknown unit; use B, KiB, MiB, GiB, TiB (or k, m, g, t)")
    value, percent = parse_size(text)
    return value, "percent" if percent else "pages"


def _size_text(value: float, kind: str) -> str:
    if kind == "percent":
        return f"{value:.4g}%"
    return str(max(1, int(round(value))))


def expand_sizes(items: Sequence[str | int], log: bool = False) -> list[str]:
    """Size texts with ranges expanded and bytes converted to 4 KiB pages.

    Parameters
    ----------
    items : sequence of str or int
        ``5000``, ``"10%"``, ``"64MiB"``, ``"1%:50%:12"``; each may be a comma-separated list.
    log : bool
        Space range sizes geometrically instead of evenly.

    Returns
    -------
    list of str
        ``"5000"``, ``"10%"``, ``"16384"``; duplicates removed, order kept.

    Raises
    ------
    ValueError
        For a malformed size or range (ends of different kinds, count < 1, last < first).
    """
    out: list[str] = []
    for item in items:
        for text in (t.strip() for t in str(item).split(",") if t.strip()):
            if ":" not in text:
                value, kind = _one_size(text)
                texts = [text if kind == "percent" else _size_text(value, kind)]
            else:
                texts = _range(text, log)
            out.extend(t for t in texts if t not in out)
    return out


def _range(text: str, log: bool) -> list[str]:
    parts = text.split(":")
    if len(parts) != 3:
        raise ValueError(f"size range {text!r}: use FIRST:LAST:COUNT (1%:50%:12)")
    (first, kind1), (last, kind2) = _one_size(parts[0]), _one_size(parts[1])
    if (kind1 == "percent") != (kind2 == "percent"):
        raise ValueError(f"size range {text!r}: both ends must be percentages, or neither")
    try:
        count = int(parts[2])
    except ValueError:
        raise ValueError(f"size range {text!r}: COUNT must be a whole number") from None
    if count < 1 or last < first:
        raise ValueError(f"size range {text!r}: needs COUNT >= 1 and LAST >= FIRST")
    if count == 1:
        values = [first]
    elif log:
        ratio = math.log(last / first) / (count - 1)
        values = [first * math.exp(ratio * i) for i in range(count)]
    else:
        values = [first + (last - first) * i / (count - 1) for i in range(count)]
    return [_size_text(v, kind1) for v in values]


def expand_traces(items: Sequence[str], base: str | None = None) -> list[str]:
    """Trace specs with globs expanded (sorted), relative to ``base`` when given.

    ``workload:`` specs are kept as they are; a pattern that matches nothing is kept as a path
    (its run fails as an unreadable trace, with the reason).
    """
    out: list[str] = []
    for item in items:
        spec = str(item).strip()
        if not spec:
            continue
        if spec.startswith(WORKLOAD_PREFIX):
            found = [spec]
        else:
            path = os.path.join(base, os.path.expanduser(spec)) if base else os.path.expanduser(spec)
            found = sorted(glob.glob(path)) if glob.has_magic(path) else [path]
            found = found or [path]
        out.extend(f for f in found if f not in out)
    return out


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def grid_from_options(
    traces: Sequence[str],
    policies: Sequence[str],
    sizes: Sequence[str],
    *,
    modes: Sequence[str] = ("cache",),
    warmups: Sequence[str | None] = (None,),
    seeds: Sequence[int | None] = (None,),
    sets: Sequence[str] | None = None,
    log: bool = False,
    timeout: float | None = None,
) -> Grid:
    """A :class:`Grid` from command-line values.

    Raises
    ------
    ValueError, UnknownPolicyError
        As :func:`parse_policies`, :func:`expand_sizes` and :meth:`Grid.validate`.
    """
    return Grid(
        traces=expand_traces(traces),
        policies=parse_policies(policies, sets),
        sizes=expand_sizes(sizes, log),
        modes=list(modes) or ["cache"],
        warmups=list(warmups) or [None],
        seeds=list(seeds) or [None],
        timeout=timeout,
    ).validate()


_TOML_KEYS = {"traces", "policies", "sizes", "log", "mode", "modes", "warmup", "warmups", "seeds", "seed",
              "set", "timeout"}  # fmt: skip


def grid_from_toml(path: str) -> Grid:
    """A :class:`Grid` from a TOML file (see the module docstring).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        For invalid TOML (with its line), an unknown key, or a bad value.
    """
    with open(path, "rb") as fh:
        try:
            data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path}: {exc}") from None
    unknown = sorted(set(data) - _TOML_KEYS)
    if unknown:
        raise ValueError(
            f"{path}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_TOML_KEYS))}"
        )
    base = os.path.dirname(os.path.abspath(path))
    warmups = _as_list(data.get("warmups", data.get("warmup"))) or [None]
    timeout = data.get("timeout")
    return Grid(
        traces=expand_traces([str(t) for t in _as_list(data.get("traces"))], base),
        policies=parse_policies([str(p) for p in _as_list(data.get("policies"))], data.get("set")),
        sizes=expand_sizes(_as_list(data.get("sizes")), bool(data.get("log", False))),
        modes=[str(m) for m in _as_list(data.get("modes", data.get("mode")))] or ["cache"],
        warmups=[None if w in (None, 0, "0") else str(w) for w in warmups],
        seeds=[int(s) for s in _as_list(data.get("seeds", data.get("seed")))] or [None],
        timeout=float(timeout) if timeout is not None else None,
    ).validate()
