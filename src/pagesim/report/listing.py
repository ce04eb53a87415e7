"""Render the lists of policies and workloads as rich tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

__all__ = ["policies_table", "workloads_table"]


def policies_table(
    rows: Sequence[tuple[str, str, Mapping[str, Any]]], *, notes: Mapping[str, str] | None = None
) -> Table:
    """Policies with their one-line descriptions and parameters.

    Parameters
    ----------
    rows : sequence of (name, description, params)
        ``params`` maps each parameter to its default.
    notes : mapping of name to str, optional
        A remark shown under a policy's description (``opt``: not a bound with object sizes).

    Returns
    -------
    rich.table.Table
    """
    table = Table(
        title="policies (use a name with --policy, or path/to/file.py:ClassName; "
        "set a parameter with --set NAME.PARAM=VALUE)",
        title_justify="left",
    )
    table.add_column("name", style="bold")
    table.add_column("description")
    table.add_column("parameters")
    for name, description, params in rows:
        note = (notes or {}).get(name)
        text = Text(description)
        if note:
            text.append("\n" + note, style="italic")
        table.add_row(name, text, ", ".join(f"{k}={v!r}" for k, v in params.items()) or "-")
    return table


def workloads_table(rows: Sequence[tuple[str, str, Mapping[str, Any]]], title: str | None = None) -> Table:
    """Workloads with their parameters and defaults.

    Parameters
    ----------
    rows : sequence of (name, description, defaults)
    title : str, optional
        The table's title (default: how to name a cache-mode workload).

    Returns
    -------
    rich.table.Table
    """
    table = Table(
        title=title or "workloads (use as TRACE: workload:NAME or workload:NAME?key=value&key=value)",
        title_justify="left",
    )
    table.add_column("name", style="bold")
    table.add_column("parameters (defaults)")
    table.add_column("description")
    for name, description, defaults in rows:
        table.add_row(name, ", ".join(f"{k}={v}" for k, v in defaults.items()), description)
    return table


def params_table(rows: Sequence[tuple[str, str, Any, str, str, str]]) -> Table:
    """Every policy parameter with its default, unit, meaning and source (``pagesim policies --params``).

    Parameters
    ----------
    rows : sequence of (policy, parameter, default, unit, meaning, source)
        ``default`` None prints as ``unset``.

    Returns
    -------
    rich.table.Table
    """
    table = Table(
        title="policy parameters (set one with --set POLICY.PARAM=VALUE; defaults from policies/params.toml)",
        title_justify="left",
    )
    for col in ("policy", "parameter", "default", "unit", "meaning", "source"):
        table.add_column(col, style="bold" if col == "policy" else None)
    for policy, name, default, unit, meaning, source in rows:
        shown = "unset" if default is None else repr(default)
        table.add_row(policy, name, shown, unit, meaning, source)
    return table
