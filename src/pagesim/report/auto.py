"""Table and figure of ``pagesim experiment auto`` (:mod:`pagesim.analysis.experiments.auto`):
each policy's misses relative to the best fixed policy in hindsight, per workload, and the mean."""

from __future__ import annotations

import math
from pathlib import Path

from rich.table import Table

from pagesim.analysis.experiments.auto import AUTO, AutoExperiment
from pagesim.report.experiments import scale_text


def _rel(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else "-"


def auto_table(exp: AutoExperiment) -> Table:
    """One row per workload: its group, best fixed policy, each policy's relative misses and
    auto's switches; a last row of means.

    Returns
    -------
    rich.table.Table
    """
    rel = exp.relative()
    policies = list(dict.fromkeys(r.policy for r in exp.rows))
    table = Table(title="auto: misses / misses of the best fixed policy in hindsight", title_justify="left")
    for col in ("workload", "group", "best fixed", *policies, "switches"):
        table.add_column(
            col, no_wrap=True, justify="left" if col in ("workload", "group", "best fixed") else "right"
        )
    for w in exp.workloads():
        row = next(r for r in exp.rows if r.workload == w)
        auto = [r for r in exp.rows if r.workload == w and r.policy == AUTO]
        switches = str(len(auto[0].switches)) if auto else "-"
        cells = [_rel(rel[w].get(p, float("nan"))) for p in policies]
        table.add_row(w, row.group, exp.best_fixed(w), *cells, switches)
    means = exp.means()
    table.add_row("mean", "", "", *[_rel(means[p]) for p in policies], "")
    return table


def auto_figure(exp: AutoExperiment, path: str | Path) -> Path:
    """Save bars of each policy's relative misses per workload (auto drawn black), capped at 2.

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

    rel = exp.relative()
    workloads = exp.workloads()
    policies = list(dict.fromkeys(r.policy for r in exp.rows))
    fig, ax = plt.subplots(figsize=(max(0.55 * len(workloads) * len(policies) / 4, 8), 4))
    width = 0.8 / max(len(policies), 1)
    for k, pol in enumerate(policies):
        xs = [i + (k - (len(policies) - 1) / 2) * width for i in range(len(workloads))]
        ys = [min(rel[w].get(pol, 0.0), 2.0) for w in workloads]
        ax.bar(xs, ys, width, label=pol, color="black" if pol == AUTO else None)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels(workloads, rotation=35, ha="right", fontsize=7)
    ax.set_ylabel("misses / best fixed (capped at 2)")
    ax.legend(fontsize=7, ncol=4)
    fig.suptitle(f"pagesim experiment auto (scale {scale_text(exp.params.get('scale'))})", fontsize=10)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
