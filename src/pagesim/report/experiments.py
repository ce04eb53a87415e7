"""Tables and figures of the cache_ext experiments (:mod:`pagesim.analysis.experiments`).

The table is the paper's view (cache_ext Figs. 6, 8-11): per workload, one row per policy with
each metric and its ratio to the default (``linux-lru``), and the paper's ratio where
cache_ext_results gives one. The figure draws the ratios as grouped bars (matplotlib, Agg
backend: no display needed).
"""

from __future__ import annotations

import math
from pathlib import Path

from rich.table import Table

from pagesim.analysis.experiments import Experiment


def _fmt(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    return f"{value:.4f}"


def _ratio(value: float) -> str:
    return f"{value:.2f}x" if math.isfinite(value) else "-"


def _paper_ratio(value: float | str) -> str:
    """A paper's ratio, or its word for a run that failed (``OOM``)."""
    return value if isinstance(value, str) else _ratio(value)


def experiment_table(exp: Experiment) -> Table:
    """One row per (workload, policy): each metric, its ratio to the default, the paper's ratio.

    Returns
    -------
    rich.table.Table
    """
    table = Table(title=f"{exp.name}: relative to the default ({'linux-lru'})", title_justify="left")
    # the names are never cut short: on a narrow terminal the metrics' headers wrap instead
    table.add_column("workload", no_wrap=True, min_width=max((len(r.workload) for r in exp.runs), default=8))
    table.add_column("policy", no_wrap=True, min_width=max((len(r.policy) for r in exp.runs), default=6))
    for label, _, _ in exp.metrics:
        table.add_column(label, justify="right")
        table.add_column("x default", justify="right")
        if any(label in pol for w in exp.paper.values() for pol in w.values()):
            table.add_column("paper", justify="right")
    for r in exp.runs:
        cells = [r.workload, r.policy]
        paper = exp.paper.get(r.workload, {}).get(r.policy, {})
        for label, attr, group in exp.metrics:
            cells.append(_fmt(r.metric(attr, group)))
            cells.append(_ratio(exp.ratio(r, attr, group)))
            if any(label in pol for w in exp.paper.values() for pol in w.values()):
                cells.append(_paper_ratio(paper[label]) if label in paper else "")
        table.add_row(*cells)
    return table


def scale_text(scale: object) -> str:
    """A scale as people write it: ``1/4096`` for 0.000244140625, else the value as given."""
    if isinstance(scale, (int, float)) and 0 < scale < 1 and abs(1 / scale - round(1 / scale)) < 1e-9:
        return f"1/{round(1 / scale)}"
    return str(scale)


def experiment_figure(exp: Experiment, path: str | Path) -> Path:
    """Save grouped bars of each metric's ratio to the default, one panel per metric.

    Parameters
    ----------
    exp : Experiment
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

    workloads = exp.workloads()
    policies = list(dict.fromkeys(r.policy for r in exp.runs))
    fig, axes = plt.subplots(1, len(exp.metrics), figsize=(4.2 * len(exp.metrics) + 1, 3.6), squeeze=False)
    width = 0.8 / max(len(policies), 1)
    for ax, (label, attr, group) in zip(axes[0], exp.metrics):
        for k, pol in enumerate(policies):
            xs, ys = [], []
            for i, w in enumerate(workloads):
                try:
                    run = exp.find(w, pol)
                except KeyError:
                    continue
                xs.append(i + (k - (len(policies) - 1) / 2) * width)
                value = exp.ratio(run, attr, group)
                ys.append(value if math.isfinite(value) else 0.0)
            ax.bar(xs, ys, width, label=pol)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(workloads)))
        ax.set_xticklabels(workloads, rotation=30, ha="right", fontsize=8)
        ax.set_title(f"{label} / default", fontsize=10)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"pagesim experiment {exp.name} (scale {scale_text(exp.params.get('scale'))})", fontsize=11)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
