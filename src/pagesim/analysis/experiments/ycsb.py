"""YCSB on LevelDB (paper Fig. 6): every workload with every policy, relative to the default."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pagesim.analysis.experiments.records import (
    EXPERIMENT_POLICIES,
    SMALL_SCALE,
    YCSB_WORKLOADS,
    Experiment,
    Measured,
)
from pagesim.analysis.experiments.runs import _KV_METRICS, Progress, _each, _policy, measure
from pagesim.workloads.cache_ext import (
    OpTrace,
    build_ycsb,
    pace_compactions,
)

_PAPER_YCSB = {  # cache_ext_results §2b: throughput relative to the default
    "A": {"mglru": 0.85, "ce-mru": 0.61, "ce-fifo": 0.93, "ce-s3fifo": 1.09, "ce-lhd": 1.12, "ce-lfu": 1.18},
    "B": {"mglru": 0.76, "ce-mru": 0.60, "ce-fifo": 0.84, "ce-s3fifo": 1.15, "ce-lhd": 1.33, "ce-lfu": 1.40},
    "C": {"mglru": 0.75, "ce-mru": 0.48, "ce-fifo": 0.84, "ce-s3fifo": 1.14, "ce-lhd": 1.29, "ce-lfu": 1.36},
    "D": {"mglru": 1.11, "ce-mru": 0.63, "ce-fifo": 1.00, "ce-s3fifo": 0.99, "ce-lhd": 0.97, "ce-lfu": 0.99},
    "E": {"mglru": 0.85, "ce-mru": 0.78, "ce-fifo": 0.89, "ce-s3fifo": 1.12, "ce-lhd": 1.29, "ce-lfu": 1.39},
    "F": {"mglru": 0.87, "ce-mru": 0.61, "ce-fifo": 0.92, "ce-s3fifo": 1.10, "ce-lhd": 1.12, "ce-lfu": 1.18},
    "uniform": {"mglru": 0.80, "ce-mru": 0.61, "ce-fifo": 0.88, "ce-s3fifo": 1.18, "ce-lhd": 1.32,
                "ce-lfu": 1.35},
    "uniform-rw": {"mglru": 0.71, "ce-mru": 0.62, "ce-fifo": 0.79, "ce-s3fifo": 1.08, "ce-lhd": 1.08,
                   "ce-lfu": 1.14},
}  # fmt: skip


def ycsb_experiment(
    workloads: Sequence[str] = YCSB_WORKLOADS,
    policies: Sequence[str] = EXPERIMENT_POLICIES["ycsb"],
    scale: float = SMALL_SCALE,
    ops: int | None = None,
    seed: int = 0,
    latency_window: int = 20_000,
    progress: Progress | None = None,
    levels: int = 5,
    table_cache: int | None = 990,
    filters: bool = False,
    compactions: str = "none",
) -> Experiment:
    """YCSB on LevelDB (paper Fig. 6): every workload with every policy.

    ``levels``, ``table_cache`` and ``filters`` choose the database's layout, as in
    :func:`pagesim.workloads.cache_ext.build_ycsb` (defaults: LevelDB's leveled layout of the
    paper's 100 GiB, 5 levels, a 990-table cache, no Bloom filters; ``levels=0`` the two-level
    layout). ``compactions="seek"`` adds LevelDB's seek compactions (docs/experiments.md "Seek
    compactions"): rows ``ycsb-<w>-seek``, each policy's compactions released at
    its own client rate without them (:func:`pagesim.workloads.cache_ext.pace_compactions`, so
    each policy first runs without compactions, a row of its own), and the metrics are the
    client threads' (the background thread's work is not counted).

    Returns
    -------
    Experiment
        Rows ``ycsb-<workload>`` (and ``ycsb-<workload>-seek``); metrics ops/s, P99 (ms) and
        disk reads (pages); ``params`` records the layout and ``compactions``.

    Raises
    ------
    ValueError
        For an unknown workload or policy, a layout ``build_ycsb`` refuses (``levels`` 1 or
        negative; compactions with workload E or Bloom filters), or ``compactions`` other than
        ``"none"`` and ``"seek"``.
    """
    if compactions not in ("none", "seek"):
        raise ValueError(f"compactions must be 'none' or 'seek', got {compactions!r}")
    runs: list[Measured] = []
    layout = {"levels": levels, "table_cache": table_cache, "filters": filters}
    for w in workloads:
        o = build_ycsb(workload=w, scale=scale, ops=ops, seed=seed, **layout)
        if compactions == "seek":
            runs += _ycsb_seek_rows(o, w, scale, ops, seed, layout, policies, progress, latency_window)
        else:
            runs += _each(o, f"ycsb-{w}", policies, progress, latency_window=latency_window)
    paper = {f"ycsb-{w}": {p: {"ops/s": v} for p, v in _PAPER_YCSB[w].items()} for w in workloads}
    metrics = list(_KV_METRICS)
    if compactions == "seek":
        paper.update({f"{row}-seek": ratios for row, ratios in paper.items()})
        metrics = [("ops/s", "throughput", "client"), ("P99 ms", "p99_ms", "client"),
                   ("disk reads", "disk_read_pages", "all")]  # fmt: skip
    return Experiment(
        "ycsb", runs, metrics, paper,
        {"scale": scale, "ops": ops, "seed": seed, "policies": list(policies), **layout,
         "compactions": compactions},
    )  # fmt: skip


def _ycsb_seek_rows(
    plain: OpTrace,
    w: str,
    scale: float,
    ops: int | None,
    seed: int,
    layout: dict[str, Any],
    policies: Sequence[str],
    progress: Progress | None,
    latency_window: int,
) -> list[Measured]:
    """Each policy without compactions (row ``ycsb-<w>``), then with them paced at its own rate."""
    seek = build_ycsb(
        workload=w, scale=scale, ops=ops, seed=seed, compactions="seek", compaction_ops_s=1.0, **layout
    )
    out = []
    for name in policies:
        if progress:
            progress(f"ycsb-{w}: {name}")
        r0 = measure(
            plain, _policy(name, plain), label=name, workload=f"ycsb-{w}", latency_window=latency_window
        )
        paced = pace_compactions(seek, r0.throughput["client"])
        if progress:
            progress(f"ycsb-{w}-seek: {name}")
        pol = _policy(name, paced, threads=len(paced.groups["client"]))
        out += [r0, measure(paced, pol, label=name, workload=f"ycsb-{w}-seek", latency_window=latency_window)]
    return out
