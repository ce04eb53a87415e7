"""Render policy comparisons: one rich table per cache size, or JSON records.

Input is the list of :class:`~pagesim.engine.Result` from :func:`pagesim.analysis.compare.compare`
(size-major). Tables show policy, misses, miss ratio, misses above the offline optimum of the
policy's kind (absolute and as a percentage of the optimum's misses: Belady's OPT, or MIN with
bypass for a policy that may bypass, marked †; the title names each) and simulated accesses per
second; with object sizes (bytes) the Belady column is labelled as a comparison, not a bound;
policies whose proposals were rejected or that needed fallback evictions are marked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import groupby
from typing import Any

import numpy as np
from rich.table import Table

from pagesim.analysis.compare import OPT, OPT_BYPASS, misses_above_opt, opt_is_bound
from pagesim.engine import Result

__all__ = [
    "comparison_record",
    "comparison_tables",
    "fallback_notes",
    "format_count",
    "format_percent",
    "format_rate",
]


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


def format_percent(value: float) -> str:
    """A percentage with up to three significant digits and never an exponent.

    ``0.5`` -> ``0.5%``, ``10.0`` -> ``10%``, ``2500.0`` -> ``2,500%``, tiny values ``<0.01%``.
    """
    if not math.isfinite(value):
        return "inf%" if value > 0 else "-"
    if value == 0:
        return "0%"
    if abs(value) < 0.01:
        return "<0.01%"
    if abs(value) >= 100:
        return f"{value:,.0f}%"
    text = np.format_float_positional(float(f"{value:.3g}"), trim="-")
    return f"{text}%"


def _size_caption(result: Result, whole: int | None) -> str:
    unit = result.capacity_unit
    text = f"cache of {format_count(result.capacity)} {unit}"
    if whole:
        pct = 100.0 * result.capacity / whole
        of = "of the unique pages" if unit == "pages" else "of the footprint"
        text += f" ({format_percent(pct)} {of}"
        text += ": everything fits)" if pct >= 100 else ")"
    return text


def _baseline_words(unit: str) -> tuple[str, str]:
    """(column name, title line) of the comparison with Belady for a capacity unit."""
    if unit == "bytes":
        return (
            "over Belady",
            "over Belady: misses above Belady's furthest-next-use rule ({opt}), in %;\n"
            "not a bound with object sizes (size-aware offline policies miss less)",
        )
    return "over OPT", "over OPT: misses above Belady's OPT ({opt}, a lower bound), in % of OPT's"


#: Marks, in a table, the policies compared with MIN with bypass instead of Belady's OPT.
BYPASS_MARK = "†"


def opt_misses_of(rows: Sequence[Result], bound: str) -> int | None:
    """Misses of the bound named `bound` among the baselines of `rows` (None if none uses it)."""
    return next(
        (
            r.params["opt_misses"]
            for r in rows
            if r.params.get("opt_policy", OPT) == bound and "opt_misses" in r.params
        ),
        None,
    )


def _two_bounds_line(unit: str, opt: int | None, bypass: int) -> str:
    """Title line when some policies of a table may bypass and are compared with MIN with bypass."""
    demand = (
        f"Belady's OPT ({format_count(opt)}) for the policies that insert every miss; "
        if opt is not None
        else ""
    )
    kind = "each a lower bound for its kind" if unit != "bytes" else "not bounds with object sizes"
    return (
        f"over OPT: misses above {demand}MIN with bypass ({format_count(bypass)}, opt-bypass) for those "
        f"marked {BYPASS_MARK}, which may bypass ({kind}), in % of it"
    )


def _needs_note(result: Result) -> bool:
    c = result.counters
    return bool(c.get("rejected", 0) or c.get("fallback_evictions", 0))


def fallback_notes(results: Sequence[Result]) -> list[str]:
    """One line per result whose proposals were rejected or that needed fallback evictions.

    Parameters
    ----------
    results : sequence of Result

    Returns
    -------
    list of str
        ``"* slru at 100 pages: 340 of 1,000 evictions (34%) made by the fallback (default
        policy), 12 proposals rejected"``; empty when every policy proposed valid victims only.
    """
    notes = []
    for r in results:
        if not _needs_note(r):
            continue
        c = r.counters
        fallback, evictions = c.get("fallback_evictions", 0), c.get("evictions", 0)
        share = f" ({format_percent(100.0 * fallback / evictions)})" if evictions else ""
        notes.append(
            f"* {r.policy} at {format_count(r.capacity)} {r.capacity_unit}: "
            f"{format_count(fallback)} of {format_count(evictions)} evictions{share} made by "
            f"the fallback (default policy), {format_count(c.get('rejected', 0))} proposals rejected"
        )
    return notes


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
        When a policy of a table had proposals rejected or fallback evictions, its name is
        marked ``*`` and the table gains a caption naming it with the counts (fallback
        evictions, also in % of evictions, and rejected proposals).
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
        column, line = _baseline_words(first.capacity_unit)
        bypass_misses = next(
            (r.params["opt_misses"] for r in rows if r.params.get("opt_policy") == OPT_BYPASS), None
        )
        if bypass_misses is not None:
            title += "\n" + _two_bounds_line(first.capacity_unit, opt_misses_of(rows, OPT), bypass_misses)
        elif opt_misses is not None:
            title += "\n" + line.format(opt=format_count(opt_misses))
        else:
            title += f"\n{column}: not computed (no 'opt' policy registered, or --no-opt)"
        notes = fallback_notes(rows)
        table = Table(
            title=title,
            title_justify="left",
            min_width=78,
            caption="\n".join(notes) or None,
            caption_justify="left",
        )
        table.add_column("policy", style="bold", no_wrap=True)
        table.add_column("misses", justify="right")
        table.add_column("miss ratio", justify="right")
        table.add_column(column, justify="right")
        table.add_column(f"{column} %", justify="right")
        table.add_column("accesses/s", justify="right")
        for r in rows:
            above = misses_above_opt(r)
            if above is None:
                abs_text, pct_text = "-", "-"
            else:
                abs_text = f"{above[0]:+,}"
                pct_text = "inf" if math.isinf(above[1]) else f"{above[1]:+.1f}%"
            name = r.policy if r.mode == "compiled" else f"{r.policy} ({r.mode})"
            if r.params.get("opt_policy") == OPT_BYPASS:
                name += f" {BYPASS_MARK}"
            if _needs_note(r):
                name += " *"
            cells = [
                name,
                format_count(r.misses),
                f"{r.miss_ratio:.4f}",
                abs_text,
                pct_text,
                format_rate(r.accesses_per_second),
            ]
            table.add_row(*cells)
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
        infinite), ``opt_policy`` (the optimum compared with: ``opt``, or ``opt-bypass`` for a
        policy that may bypass; None without a baseline), ``opt_is_bound``
        (:func:`pagesim.analysis.compare.opt_is_bound`: False with object sizes, where
        Belady is not optimal, and for a bypassing policy compared with demand-fetch OPT) and
        ``fallback_share`` (fallback evictions / evictions, None without evictions), with no
        NaN or infinity anywhere.
    """
    record = result.to_dict()
    record["trace"] = trace_label
    record["size"] = size_text if size_text is not None else result.capacity
    above = misses_above_opt(result)
    record["opt_misses"] = result.params.get("opt_misses")
    record["misses_above_opt"] = None if above is None else above[0]
    record["misses_above_opt_pct"] = None if above is None or math.isinf(above[1]) else above[1]
    record["opt_policy"] = result.params.get("opt_policy", OPT) if record["opt_misses"] is not None else None
    record["opt_is_bound"] = (
        opt_is_bound(result) if record["opt_misses"] is not None else result.capacity_unit != "bytes"
    )
    evictions = result.counters.get("evictions", 0)
    record["fallback_share"] = result.counters.get("fallback_evictions", 0) / evictions if evictions else None
    return record
