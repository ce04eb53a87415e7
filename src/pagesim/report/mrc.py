"""Render miss-ratio curves: a rich table per policy, a JSON document, a figure (matplotlib).

Input is the table of :func:`pagesim.analysis.mrc.mrc` (and the errors of
:func:`pagesim.analysis.mrc.check_mrc`). The figure draws miss ratio against cache size, one line
per policy, Belady's OPT dashed in black as the lower bound; sizes simulated in full by a
miniature-simulation curve are ringed, sizes it sampled at a higher rate than the curve's
(small sizes, whose miniature would otherwise be under the minimum) are drawn as triangles,
and ``log=True`` puts the size axis on a log scale.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from rich.table import Table

__all__ = ["mrc_document", "mrc_tables", "plot_mrc"]

#: Registry name drawn as the lower bound.
OPT_NAME = "opt"


def _source_line(run: dict[str, Any]) -> str:
    how = run["method"]
    if how == "exact":
        return "exact (one pass)"
    size = f"{run['samples']:,} pages" if run.get("samples") else f"rate {run['rate']:.4g}"
    return f"{how}, {size}, {run['sampled_requests']:,} sampled requests"


def mrc_tables(
    curve: pd.DataFrame, title: str, checks: dict[str, dict[str, Any]] | None = None
) -> list[Table]:
    """One table per policy: size, misses, miss ratio (and, under a check, the reference).

    Parameters
    ----------
    curve : pandas.DataFrame
        From ``mrc``.
    title : str
        The trace as shown in titles.
    checks : dict, optional
        From ``check_mrc``: adds a reference column and MAE / max abs error in the caption.
    """
    tables = []
    runs = curve.attrs.get("runs", {})
    for label, rows in curve.groupby("policy", sort=False):
        run = runs.get(label, {"method": str(rows["method"].iloc[0])})
        check = (checks or {}).get(str(label))
        table = Table(title=f"{title}: {label} ({_source_line(run) if 'rate' in run else run['method']})")
        table.add_column("size (pages)", justify="right")
        table.add_column("misses", justify="right")
        table.add_column("miss ratio", justify="right")
        per_size_rate = rows["rate"].nunique() > 1
        if per_size_rate:
            table.add_column("rate", justify="right")
        if check:
            table.add_column(f"{check['against']}", justify="right")
        reference = dict(zip(check["sizes"], check["reference"])) if check else {}
        columns = ["size_pages", "misses", "miss_ratio", "method", "rate"]
        for size, misses, ratio, how, rate in rows[columns].itertuples(index=False):
            mark = " (full)" if how == "full" else ""
            cells = [f"{int(size):,}{mark}", f"{int(misses):,}", f"{ratio:.4f}"]
            if per_size_rate:
                cells.append(f"{rate:.4g}")
            if check:
                ref = reference.get(int(size))
                cells.append("" if ref is None else f"{ref:.4f}")
            table.add_row(*cells)
        if check:
            table.caption = (
                f"against {check['against']} at {len(check['sizes'])} sizes: MAE {check['mae']:.4f}, "
                f"max abs error {check['max_abs_error']:.4f}"
            )
        tables.append(table)
    return tables


def mrc_document(
    curve: pd.DataFrame, trace: str, checks: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The curves as one JSON-serialisable document.

    Returns
    -------
    dict
        ``trace``, ``seed``, ``warmup`` and ``policies``: per policy ``policy``, ``method``,
        ``rate``, ``samples``, ``sampled_requests``, ``seconds``, ``points`` (``size_pages``,
        ``misses``, ``requests``, ``miss_ratio``, ``method``, ``rate``: the sampling rate of
        that size, 1.0 when not sampled) and, under a check, ``check``
        (``against``, ``sizes``, ``reference``, ``mae``, ``max_abs_error``).
    """
    runs = curve.attrs.get("runs", {})
    policies = []
    for label, rows in curve.groupby("policy", sort=False):
        entry: dict[str, Any] = {"policy": str(label), **runs.get(label, {})}
        entry["points"] = [
            {
                "size_pages": int(r.size_pages),
                "misses": int(r.misses),
                "requests": int(r.requests),
                "miss_ratio": float(r.miss_ratio),
                "method": str(r.method),
                "rate": float(r.rate),
            }
            for r in rows.itertuples(index=False)
        ]
        if checks and str(label) in checks:
            entry["check"] = checks[str(label)]
        policies.append(entry)
    return {
        "trace": trace,
        "seed": curve.attrs.get("seed", 0),
        "warmup": curve.attrs.get("warmup", 0),
        "policies": policies,
    }


def plot_mrc(curve: pd.DataFrame, path: str | Path, title: str, *, log: bool = False) -> Path:
    """Draw the curves and save them.

    Parameters
    ----------
    curve : pandas.DataFrame
        From ``mrc``.
    path : str or Path
        Where to write; the suffix chooses the format (.png, .svg, .pdf).
    title : str
        The figure's title.
    log : bool
        Size axis on a log scale.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    OSError
        If the file cannot be written.
    ValueError
        If matplotlib does not know the suffix.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 4.4))
    for label, rows in curve.groupby("policy", sort=False):
        rows = rows.sort_values("size_pages")
        sampled = rows[rows["method"] != "full"]
        how = str(sampled["method"].iloc[0]) if not sampled.empty else "full"
        base_rate = float(sampled["rate"].min()) if not sampled.empty else 1.0
        denser = sampled[sampled["rate"] > base_rate]
        if how in ("shards", "minisim"):
            how += f", R {base_rate:.3g}"
        if not denser.empty:
            how += f"; higher R up to {int(denser['size_pages'].max()):,} pages"
        if str(label) == OPT_NAME:
            ax.plot(
                rows["size_pages"],
                rows["miss_ratio"],
                "k--",
                linewidth=1.6,
                label=f"OPT (lower bound, {how})",
            )
            continue
        (line,) = ax.plot(
            rows["size_pages"], rows["miss_ratio"], marker=".", linewidth=1.3, label=f"{label} ({how})"
        )
        if not denser.empty:
            ax.plot(
                denser["size_pages"],
                denser["miss_ratio"],
                "^",
                mfc="none",
                color=line.get_color(),
                markersize=7,
            )
        full = rows[rows["method"] == "full"]
        if not full.empty:
            ax.plot(
                full["size_pages"], full["miss_ratio"], "o", mfc="none", color=line.get_color(), markersize=7
            )
    if log:
        ax.set_xscale("log")
    ax.set_xlabel("cache size (pages)" + (", log scale" if log else ""))
    ax.set_ylabel("miss ratio")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
