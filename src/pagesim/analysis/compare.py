"""Compare policies on one trace at several cache sizes, against Belady's OPT.

This is the library behind ``pagesim compare`` and ``pagesim run``: it resolves sizes given as
page counts or percentages, warm-up given as a count or a fraction, runs every (size, policy)
pair through :func:`pagesim.engine.simulate`, and annotates each :class:`~pagesim.engine.Result`
with the misses Belady's OPT makes at the same size.

Terms
-----
*Misses above OPT* of a run: its misses minus OPT's misses on the same trace, size and warm-up,
absolute and as a percentage of OPT's misses. OPT (demand fetch, never bypasses) is a lower bound
for every demand-paging policy, so the value is >= 0 for them; a policy that bypasses the cache
is not bounded by it. Stored in ``result.params["opt_misses"]`` and read by
:func:`misses_above_opt`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pagesim.engine import Result, simulate
from pagesim.policies.base import Policy
from pagesim.policies.registry import UnknownPolicyError, policy_class, policy_names
from pagesim.trace import Trace

__all__ = [
    "DEFAULT_POLICIES",
    "OPT",
    "compare",
    "misses_above_opt",
    "parse_size",
    "resolve_policies",
    "resolve_size",
    "resolve_warmup",
]

#: Policies compared when none are named; those not registered (yet) are skipped silently.
DEFAULT_POLICIES = ("lru", "fifo", "clock", "mru", "lfu", "opt")

#: Registry name of Belady's OPT, the baseline of the "misses above OPT" column.
OPT = "opt"

_SIZE = re.compile(r"^\s*(?P<num>[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(?P<pct>%?)\s*$")


def parse_size(text: str | int) -> tuple[float, bool]:
    """Check the syntax of a size: ``(value, is_percentage)``.

    Parameters
    ----------
    text : str or int
        ``5000``, ``1e4`` or ``10%``.

    Returns
    -------
    tuple of (float, bool)
        The number (> 0) and whether it is a percentage.

    Raises
    ------
    ValueError
        If it is not a number or percentage, is <= 0, or is a fractional count.
    """
    raw = str(text)
    m = _SIZE.match(raw)
    if m is None:
        raise ValueError(f"size must be a positive count or a percentage like 10%, got {raw!r}")
    value = float(m.group("num"))
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"size must be > 0, got {raw!r}")
    percent = bool(m.group("pct"))
    if not percent and value != int(value):
        raise ValueError(f"size must be a whole count or a percentage, got {raw!r}")
    return value, percent


def resolve_size(text: str | int, trace: Trace, capacity_unit: str = "pages") -> int:
    """A cache size from ``5000`` or ``10%``.

    Parameters
    ----------
    text : str or int
        A positive count (pages, or bytes with ``capacity_unit="bytes"``; ``1e4`` is accepted if
        integral) or a positive percentage: of the trace's unique pages, or of its footprint
        in bytes (sum of the largest size seen per object) with the bytes unit.
    trace : Trace
        The trace the size refers to.
    capacity_unit : {"pages", "bytes"}

    Returns
    -------
    int
        The capacity, >= 1. A percentage is rounded to the nearest unit and raised to 1 if it
        rounds to 0 (an empty trace, or a tiny percentage).

    Raises
    ------
    ValueError
        As :func:`parse_size`; or if the bytes unit is asked for a trace without sizes.
    """
    value, percent = parse_size(text)
    if capacity_unit == "bytes" and trace.size is None:
        raise ValueError("--capacity-unit bytes needs a trace with object sizes")
    if not percent:
        return int(value)
    if capacity_unit == "bytes":
        biggest = np.zeros(trace.n_pages, dtype=np.int64)
        np.maximum.at(biggest, trace.page, trace.size)
        whole = int(biggest.sum())
    else:
        whole = trace.n_pages
    return max(1, int(round(whole * value / 100.0)))


def resolve_warmup(text: str | int | float | None, n_requests: int) -> int:
    """Warm-up accesses from a count (``100000``) or a fraction of the trace (``0.1``).

    Parameters
    ----------
    text : str, int, float or None
        None or ``0``: no warm-up. An integer >= 1: that many accesses. A number in (0, 1):
        that fraction of ``n_requests``, rounded down.
    n_requests : int
        Length of the trace.

    Returns
    -------
    int
        Warm-up accesses, ``0 <= warmup``; may exceed ``n_requests`` (nothing is counted then).

    Raises
    ------
    ValueError
        If the value is negative, not a number, or a non-integral number >= 1.
    """
    if text is None:
        return 0
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"warm-up must be a count or a fraction in [0, 1), got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"warm-up must be >= 0, got {text!r}")
    if value < 1:
        return int(value * n_requests)
    if value != int(value):
        raise ValueError(f"warm-up must be a whole count or a fraction in [0, 1), got {text!r}")
    return int(value)


def resolve_policies(names: Sequence[str] | None) -> list[type[Policy]]:
    """Policy classes for the given names, or for the registered defaults.

    Parameters
    ----------
    names : sequence of str or None
        Registry names or ``path/to/file.py:ClassName`` specs; each item may itself be a
        comma-separated list. None or empty: :data:`DEFAULT_POLICIES` that are registered.

    Returns
    -------
    list of type of Policy
        In the order given, duplicates removed.

    Raises
    ------
    UnknownPolicyError
        If an explicitly named policy is not registered (the message lists the known ones).
    FileNotFoundError, ValueError
        If a user policy file is missing or has no such Policy class.
    """
    wanted: list[str] = []
    for item in names or ():
        wanted.extend(p.strip() for p in str(item).split(",") if p.strip())
    if not wanted:
        known = set(policy_names())
        wanted = [p for p in DEFAULT_POLICIES if p in known]
    seen: set[str] = set()
    out: list[type[Policy]] = []
    for name in wanted:
        key = name.lower() if ".py:" not in name else name
        if key in seen:
            continue
        seen.add(key)
        out.append(policy_class(name))
    return out


def _opt_class() -> type[Policy] | None:
    try:
        return policy_class(OPT)
    except UnknownPolicyError:
        return None


def compare(
    trace: Trace,
    policies: Sequence[str | type[Policy]],
    sizes: Sequence[int],
    *,
    warmup: int = 0,
    capacity_unit: str = "pages",
    baseline: bool = True,
    progress: Callable[[int, int], None] | None = None,
    interpreted: bool = False,
) -> list[Result]:
    """Simulate every policy at every size on one trace.

    Parameters
    ----------
    trace : Trace
        The trace (possibly empty).
    policies : sequence of str or Policy subclasses
        Names (see :func:`resolve_policies`) or classes; each run gets a fresh instance with
        default parameters.
    sizes : sequence of int
        Capacities, in ``capacity_unit``, each > 0 (see :func:`resolve_size`).
    warmup : int
        Accesses that fill the cache without being counted (see :func:`resolve_warmup`).
    capacity_unit : {"pages", "bytes"}
    baseline : bool
        Also run Belady's OPT at each size (unless it is among ``policies``) and store its
        misses in every result's ``params["opt_misses"]``. Skipped if no ``opt`` policy is
        registered.
    progress : callable ``(done, total)``, optional
        Called as runs advance; ``done`` and ``total`` count accesses over all runs
        (baseline runs included).
    interpreted : bool
        Run every policy as plain Python (slow; for debugging).

    Returns
    -------
    list of Result
        Size-major: for each size in order, one result per policy in order. Each result's
        ``params`` gains ``size`` (the capacity) and, with a baseline, ``opt_misses``.

    Raises
    ------
    ValueError
        If a size is <= 0 or a warm-up is negative.
    UnknownPolicyError
        For an unknown policy name.
    pagesim.engine.PolicyError
        If a policy's hook raises.
    """
    classes = [p if isinstance(p, type) else policy_class(p) for p in policies]
    for size in sizes:
        if int(size) <= 0:
            raise ValueError(f"size must be > 0, got {size}")
    opt_cls = _opt_class() if baseline else None
    opt_in_list = opt_cls is not None and any(c is opt_cls for c in classes)
    extra = 1 if (opt_cls is not None and not opt_in_list) else 0
    n = trace.n_requests
    total = n * len(sizes) * (len(classes) + extra)
    done = 0

    def run(cls: type[Policy], size: int) -> Result:
        nonlocal done
        base = done

        def step(d: int, _t: int) -> None:
            if progress is not None:
                progress(base + d, total)

        result = simulate(
            trace,
            cls(),
            int(size),
            warmup=warmup,
            capacity_unit=capacity_unit,
            interpreted=interpreted,
            progress=step if progress is not None else None,
        )
        done = base + n
        result.params["size"] = int(size)
        return result

    results: list[Result] = []
    for size in sizes:
        row = [run(cls, size) for cls in classes]
        if opt_cls is not None:
            opt_result = next((r for c, r in zip(classes, row) if c is opt_cls), None)
            if opt_result is None:
                opt_result = run(opt_cls, size)
            for r in row:
                r.params["opt_misses"] = opt_result.misses
        results.extend(row)
    if progress is not None:
        progress(total, total)
    return results


def misses_above_opt(result: Result) -> tuple[int, float] | None:
    """Misses above Belady's OPT: ``(misses - opt, 100 * (misses - opt) / opt)``.

    Parameters
    ----------
    result : Result
        A result from :func:`compare` with a baseline.

    Returns
    -------
    tuple of (int, float) or None
        None if no OPT baseline was computed. The percentage is 0.0 when both counts are 0 and
        ``inf`` when OPT missed nothing but the policy did.
    """
    opt: Any = result.params.get("opt_misses")
    if opt is None:
        return None
    above = result.misses - int(opt)
    if opt == 0:
        return above, (0.0 if above == 0 else math.inf)
    return above, 100.0 * above / int(opt)
