"""Render policy comparisons: one rich table per cache size, or JSON records.

Input is the list of :class:`~pagesim.engine.Result` from :func:`pagesim.analysis.compare.compare`
(size-major). Tables show policy, misses, miss ratio, misses above Belady's OPT (absolute and
as a percentage of OPT's misses) and simulated accesses per second.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import groupby
from typing import Any

from rich.table import Table

from pagesim.analysis.compare import misses_above_opt
from pagesim.engine import Result

__all__ = ["comparison_record", "comparison_tables", "format_count", "format_rate"]


def format_count(value: float) -> str:
    """An integer with thousands separators (``1,234,567``)."""
    return f"{int(value):,}"


def format_rate(per_second: float) -> str:
    """Accesses per second, compact (``31.2M``, ``845k``, ``-`` when unmeasured)."""
    if per_second <= 0 or not math.isfinite(per_second):
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if per_second >= scale:
            return f"{per_second / scale:.1f}{unit}"
    return f"{per_second:.0f}"


def _size_caption(result: Result, whole: int | None) -> str:
    unit = result.capacity_unit
    text = f"cache of {format_count(result.capacity)} {unit}"
    if whole:
        text += f" ({100.0 * result.capacity / whole:.3g}%)"
    return text


def comparison_tables(
    results: Sequence[Result], trace_label: str, *, whole: int | None = None
) -> list[Table]:
    """One table per cache size.

    Parameters
    ----------
    results : sequence of Result
        Size-major results of :func:`pagesim.analysis.compare.compare`.
    trace_label : str
        Shown in each title (a file name or ``workload:zipf``).
    whole : int or None
        Unique pages (or footprint bytes) of the trace, to show each size as a percentage.

    Returns
    -------
    list of rich.table.Table
    """
    tables = []
    for _, group in groupby(results, key=lambda r: (r.capacity, r.capacity_unit)):
        rows = list(group)
        first = rows[0]
        opt_misses = next((r.params["opt_misses"] for r in rows if "opt_misses" in r.params), None)
        unique = "unique pages" if first.capacity_unit == "pages" else "footprint bytes"
        head = f"{trace_label}: {format_count(first.requests)} requests"
        if whole:
            head += f", {format_count(whole)} {unique}"
        title = f"{head}\n{_size_caption(first, whole)}"
        if first.counters.get("warmup_accesses"):
            title += f", after {format_count(first.counters['warmup_accesses'])} warm-up accesses"
        if opt_misses is not None:
            title += f"\nover OPT: misses above Belady's OPT ({format_count(opt_misses)}), in % of OPT's"
        else:
            title += "\nover OPT: not computed (no 'opt' policy registered, or --no-opt)"
        table = Table(title=title, title_justify="left", min_width=78)
        table.add_column("policy", style="bold", no_wrap=True)
        table.add_column("misses", justify="right")
        table.add_column("miss ratio", justify="right")
        table.add_column("over OPT", justify="right")
        table.add_column("over OPT %", justify="right")
        table.add_column("accesses/s", justify="right")
        for r in rows:
            above = misses_above_opt(r)
            if above is None:
                abs_text, pct_text = "-", "-"
            else:
                abs_text = f"{above[0]:+,}"
                pct_text = "inf" if math.isinf(above[1]) else f"{above[1]:+.1f}%"
            name = r.policy if r.mode == "compiled" else f"{r.policy} ({r.mode})"
            table.add_row(
                name,
                format_count(r.misses),
                f"{r.miss_ratio:.4f}",
                abs_text,
                pct_text,
                format_rate(r.accesses_per_second),
            )
        tables.append(table)
    return tables


def comparison_record(result: Result, trace_label: str, size_text: str | None = None) -> dict[str, Any]:
    """One JSON-serialisable record of a (policy, size) run.

    Parameters
    ----------
    result : Result
        A result from :func:`pagesim.analysis.compare.compare`.
    trace_label : str
        The trace as the user named it.
    size_text : str or None
        The size as the user wrote it (``10%``); the resolved capacity is ``capacity``.

    Returns
    -------
    dict
        ``Result.to_dict()`` plus ``trace``, ``size`` (as written, else the capacity),
        ``opt_misses``, ``misses_above_opt`` and ``misses_above_opt_pct`` (None when unknown or
        infinite), with no NaN or infinity anywhere.
    """
    record = result.to_dict()
    record["trace"] = trace_label
    record["size"] = size_text if size_text is not None else result.capacity
    above = misses_above_opt(result)
    record["opt_misses"] = result.params.get("opt_misses")
    record["misses_above_opt"] = None if above is None else above[0]
    record["misses_above_opt_pct"] = None if above is None or math.isinf(above[1]) else above[1]
    return record
