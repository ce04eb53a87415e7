"""RocksDB-like uniform read/write with compaction, with and without the admission filter (paper
§6.1.5).
"""

from __future__ import annotations

from collections.abc import Sequence

from pagesim.analysis.experiments.records import EXPERIMENT_POLICIES, QUEUED_DEVICE, SMALL_SCALE, Experiment
from pagesim.analysis.experiments.runs import Progress, _each, node_for
from pagesim.workloads.cache_ext import (
    build_compaction,
)

#: The admission experiment's row label: its workload, reads and writes beside compaction threads.
ADMISSION_WORKLOAD = "rw+compaction"


def admission_experiment(
    policies: Sequence[str] = EXPERIMENT_POLICIES["admission"],
    scale: float = SMALL_SCALE,
    ops: int | None = None,
    seed: int = 0,
    latency_window: int = 20_000,
    progress: Progress | None = None,
    device: str = QUEUED_DEVICE,
) -> Experiment:
    """RocksDB-like uniform read/write with compaction, with and without the admission filter
    (paper §6.1.5: foreground P99 2.61 -> 2.16 ms, throughput unchanged). ``device`` as in
    :func:`get_scan_experiment`."""
    o = build_compaction(scale=scale, ops=ops, seed=seed)
    node = node_for(o.trace, file_device=device)
    runs = _each(o, ADMISSION_WORKLOAD, policies, progress, latency_window=latency_window, config=node)
    paper = {ADMISSION_WORKLOAD: {"admit-compaction": {"P99 ms": 2.16 / 2.61, "ops/s": 1.0}}}
    return Experiment(
        "admission", runs,
        [("ops/s", "throughput", "foreground"), ("P99 ms", "p99_ms", "foreground"),
         ("disk reads", "disk_read_pages", "all")],
        paper, {"scale": scale, "ops": ops, "seed": seed, "policies": list(policies), "device": device},
    )  # fmt: skip
