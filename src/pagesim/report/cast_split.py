"""Table and figure of CAST's split study (:mod:`pagesim.analysis.experiments.cast_split`).

The table has one row per method (the nine fixed splits, then CAST's three split modes) with its
mean, worst and best cost relative to the best fixed split in hindsight, beside the seed's
figures; then one row per condition with each method's relative cost. The figure draws the
split modes' relative cost per condition (symlog scale) and each method's mean and worst.
"""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from pagesim.analysis.experiments.cast_split import (
    ADAPTIVE,
    METHODS,
    SEED_MEAN,
    SEED_OTHERS_WORST,
    SEED_WORST,
    SplitStudy,
    condition_label,
)

#: what the seed says of each split mode: (mean, worst) as text
SEED_TEXT = {
    "curves": (f"{SEED_MEAN:+.1f}%", f"{SEED_WORST:+.1f}%"),
    "gradient": ("-", f"+{SEED_OTHERS_WORST[0]:.0f}% .. +{SEED_OTHERS_WORST[1]:,.0f}% (one of the two)"),
    "scores": ("-", f"+{SEED_OTHERS_WORST[0]:.0f}% .. +{SEED_OTHERS_WORST[1]:,.0f}% (one of the two)"),
}


def _pct(value: float) -> str:
    return f"{value:+,.1f}%"


def split_summary_table(study: SplitStudy) -> Table:
    """One row per method: mean, worst (and where), best (and where), the seed's figures.

    Returns
    -------
    rich.table.Table
    """
    p = study.params
    table = Table(
        title=f"cast-split: cost against the best fixed split in hindsight, {len(study.conditions)} "
        f"conditions, {p.get('accesses', 0):,} accesses each (swap {p.get('swap', '?')})",
        title_justify="left",
    )
    for name in ("method", "mean", "worst", "at", "best", "at", "seed mean", "seed worst"):
        table.add_column(name, justify="left" if name == "method" else "right", no_wrap=True)
    for m, s in study.summary().items():
        seed = SEED_TEXT.get(m, ("", ""))
        worst, best = (_pct(s["worst"]), str(s["worst_at"])), (_pct(s["best"]), str(s["best_at"]))
        table.add_row(m, _pct(s["mean"]), *worst, *best, *seed)
    return table


def split_condition_table(study: SplitStudy) -> Table:
    """One row per condition: the best fixed split, then each method's relative cost.

    Returns
    -------
    rich.table.Table
    """
    table = Table(
        title="cast-split: per condition, % over the best fixed split (columns 100..900: fixed splits, "
        "anon permille)",
        title_justify="left",
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("condition (file/anon/share)", no_wrap=True)
    table.add_column("best", justify="right", no_wrap=True)
    for m in METHODS:
        name = m.removeprefix("fixed-")
        table.add_column(name, justify="right", no_wrap=True, min_width=max(len(name), 6))
    rel = {m: study.relative(m) for m in METHODS}
    for i, cond in enumerate(study.conditions):
        best = study.best_fixed(i).removeprefix("fixed-")
        table.add_row(
            str(study.index[i]),
            condition_label(cond),
            f"{int(best) // 10}%",
            *(f"{rel[m][i]:+.1f}" for m in METHODS),
        )
    return table


def split_figure(study: SplitStudy, path: str | Path) -> Path:
    """Save the split modes' relative cost per condition and every method's mean and worst.

    Parameters
    ----------
    study : SplitStudy
    path : str or Path
        Where to write (the suffix chooses the format: .png, .pdf, .svg).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    OSError
        If the file cannot be written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.2), gridspec_kw={"width_ratios": [2.2, 1]})
    xs = list(study.index)
    for m, marker in zip(ADAPTIVE, ("o", "s", "^")):
        left.plot(xs, study.relative(m), marker, markersize=3.5, label=m, linestyle="none")
    left.axhline(0.0, color="black", linewidth=0.8)
    left.set_yscale("symlog", linthresh=10.0)
    left.set_xlabel("condition (of the 90; --json gives each one's workload)")
    left.set_ylabel("% over the best fixed split")
    left.legend(fontsize=8)
    summary = study.summary()
    labels = [m.removeprefix("fixed-") for m in METHODS]
    pos = list(range(len(METHODS)))
    right.bar([x - 0.2 for x in pos], [summary[m]["mean"] for m in METHODS], 0.4, label="mean")
    right.bar([x + 0.2 for x in pos], [summary[m]["worst"] for m in METHODS], 0.4, label="worst")
    right.set_yscale("symlog", linthresh=10.0)
    right.set_xticks(pos, labels, rotation=60, fontsize=7)
    right.axhline(0.0, color="black", linewidth=0.8)
    right.legend(fontsize=8)
    right.set_title("per method (fixed splits by anon permille)", fontsize=9)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
