"""Render trace statistics (:func:`pagesim.analysis.reuse.trace_stats`) as a rich table."""

from __future__ import annotations

from typing import Any

from rich.table import Table

__all__ = ["format_bytes", "stats_table"]


def format_bytes(n: int) -> str:
    """Bytes in binary units (``1.5 GiB``); exact below 1 KiB."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def stats_table(stats: dict[str, Any], label: str | None = None) -> Table:
    """A two-column table of ``trace_stats`` output.

    Parameters
    ----------
    stats : dict
        As returned by :func:`pagesim.analysis.reuse.trace_stats`.
    label : str, optional
        The trace as the user named it (title). A path has no spaces to wrap at and rich would
        cut it mid-name at the table's width: the command prints it on a line of its own.

    Returns
    -------
    rich.table.Table
    """
    table = Table(title=label, title_justify="left", show_header=False)
    table.add_column("statistic", style="bold")
    table.add_column("value", justify="right")
    src = stats.get("source", {})
    if src.get("format"):
        table.add_row("format", str(src["format"]))
    table.add_row("requests", f"{stats['requests']:,}")
    table.add_row("unique pages", f"{stats['unique_pages']:,}")
    table.add_row("footprint", f"{format_bytes(stats['footprint_bytes'])} ({stats['footprint_basis']})")
    table.add_row(
        "one-hit wonders",
        f"{stats['one_hit_wonders']:,} ({100.0 * stats['one_hit_wonder_fraction']:.1f}% of pages)",
    )
    table.add_row("re-accesses", f"{stats['reaccesses']:,}")
    rd = stats["reuse_distance"]
    for q in ("p50", "p90", "p99"):
        value = rd.get(q)
        table.add_row(f"reuse distance {q}", "-" if value is None else f"{value:,} pages")
    table.add_row("writes", f"{stats['writes']:,}")
    table.add_row("frees", f"{stats['frees']:,}")
    return table
