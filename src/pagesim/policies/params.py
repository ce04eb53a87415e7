"""The built-in policies' parameters, from ``params.toml`` beside this file: defaults and their docs.

``params.toml`` holds one table per parameter, ``[POLICY.PARAM]``, with ``default`` (absent: None),
``unit``, ``meaning`` and ``source``. It is the one source of the defaults: a built-in policy
class sets ``params = defaults("NAME")``; ``--set NAME.PARAM=VALUE`` (:mod:`pagesim.cli._params`)
parses a value as its default's type; ``pagesim policies --params`` prints every row.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

#: The file of every built-in policy's parameters.
PARAMS_TOML = Path(__file__).with_name("params.toml")

_FIELDS = {"default", "unit", "meaning", "source"}


@dataclass(frozen=True)
class Param:
    """One policy parameter as ``params.toml`` describes it."""

    policy: str
    name: str
    default: Any
    unit: str
    meaning: str
    source: str


@cache
def _table() -> dict[str, dict[str, Param]]:
    """``params.toml`` read once: policy name -> parameter name -> :class:`Param`, in file order.

    Raises
    ------
    ValueError
        If a parameter lacks ``unit``, ``meaning`` or ``source``, or has a field not listed.
    """
    raw = tomllib.loads(PARAMS_TOML.read_text(encoding="utf-8"))
    out: dict[str, dict[str, Param]] = {}
    for policy, params in raw.items():
        rows = out.setdefault(policy, {})
        for name, row in params.items():
            if not isinstance(row, dict):
                raise ValueError(f"{PARAMS_TOML.name}: [{policy}.{name}] must be a table")
            missing = {"unit", "meaning", "source"} - set(row)
            extra = set(row) - _FIELDS
            if missing or extra:
                where = f"{PARAMS_TOML.name}: [{policy}.{name}]"
                raise ValueError(f"{where} lacks {sorted(missing)} or has unknown {sorted(extra)}")
            rows[name] = Param(policy, name, row.get("default"), row["unit"], row["meaning"], row["source"])
    return out


def described(policy: str) -> dict[str, Param]:
    """Every parameter of built-in ``policy`` (registry name), in file order; {} if it has none."""
    return dict(_table().get(policy, {}))


def defaults(policy: str) -> dict[str, Any]:
    """``{parameter: default}`` of built-in ``policy`` (registry name), for its class's ``params``.

    Raises
    ------
    KeyError
        If ``params.toml`` has no parameter of ``policy``.
    """
    rows = _table().get(policy)
    if not rows:
        raise KeyError(f"{PARAMS_TOML.name} has no parameters of policy {policy!r}")
    return {name: p.default for name, p in rows.items()}


def every_param() -> list[Param]:
    """Every row of ``params.toml``, policies in file order."""
    return [p for rows in _table().values() for p in rows.values()]
