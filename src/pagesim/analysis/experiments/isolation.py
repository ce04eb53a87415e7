"""Two tenants at once (paper Fig. 11): YCSB-C in a 10 GiB cgroup, file search in 1 GiB, each
cgroup with its own policy (``A/B``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pagesim.analysis.experiments.records import EXPERIMENT_POLICIES, SMALL_SCALE, Experiment, Measured
from pagesim.analysis.experiments.runs import Progress, _policy, measure
from pagesim.trace import Trace
from pagesim.workloads.cache_ext import (
    OpTrace,
    build_file_search,
    build_ycsb,
)


def isolation_ops(scale: float, seed: int = 0, ops: int | None = None) -> OpTrace:
    """YCSB-C (8 threads, cgroup 0) and file search (1 thread, tag 8, cgroup 1) at once (Fig. 11).

    Both are sized from the same ``scale``: a 10 GiB and a 1 GiB cgroup. The search runs
    enough passes to last about as long as YCSB.
    """
    y = build_ycsb(workload="C", scale=scale, ops=ops, seed=seed)
    f1 = build_file_search(scale=scale, passes=1, seed=seed + 1)
    passes = max(int(y.trace.n_requests / max(f1.trace.n_requests, 1) / 4), 2)
    f = build_file_search(scale=scale, passes=passes, cgroup=1, tag_base=8, seed=seed + 1)
    yid = y.trace.original_id[y.trace.page]
    fid = f.trace.original_id[f.trace.page]
    ids = np.concatenate([yid, fid])
    n_y = y.trace.n_requests
    trace = Trace.from_ids(
        ids,
        kind=np.concatenate([y.trace.kind, f.trace.kind]),
        op=np.concatenate([y.trace.op, f.trace.op]),
        tag=np.concatenate([y.trace.tag, f.trace.tag]),
        cgroup=np.concatenate([np.zeros(n_y, np.int64), np.ones(f.trace.n_requests, np.int64)]),
        source={
            "format": "workload", "workload": "isolation",
            "params": {"scale": scale, "seed": seed, "ops": ops, "search_passes": passes},
            "cgroup_pages": [y.trace.source["cgroup_pages"][0], f.trace.source["cgroup_pages"][-1]],
            "memory_pages": int(y.trace.source["memory_pages"] + f.trace.source["memory_pages"]),
            "files": f.trace.source["files"],
        },
    )  # fmt: skip
    return OpTrace(
        trace,
        np.concatenate([y.op_of, f.op_of + y.n_ops]),
        np.concatenate([y.op_kind, f.op_kind]),
        {"ycsb": y.groups["client"], "search": f.groups["search"]},
    )


def isolation_experiment(
    policies: Sequence[str] = EXPERIMENT_POLICIES["isolation"],
    scale: float = SMALL_SCALE,
    ops: int | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    latency_window: int = 20_000,
) -> Experiment:
    """Two tenants at once (paper Fig. 11): YCSB-C in a 10 GiB cgroup, file search in 1 GiB.

    ``policies`` are global (the same in both cgroups) or ``A/B`` (A for YCSB, B for the
    search; the paper's tailored ``ce-lfu/ce-mru``). Metrics: YCSB ops/s and P99 of a YCSB
    operation, search files/s and P99 of a file read (each cgroup's operations completed in
    the ``latency_window`` accesses after the warm-up), and disk reads. The paper reports no
    P99 for this experiment.
    """
    o = isolation_ops(scale, seed, ops)
    runs: list[Measured] = []
    for spec in policies:
        names = spec.split("/") if "/" in spec else [spec, spec]
        label = f"{names[0]}/{names[1]}"
        if progress:
            progress(f"isolation: {label}")
        pols = [_policy(n, o, threads=len(o.groups[g])) for n, g in zip(names, ("ycsb", "search"))]
        runs.append(measure(o, pols, label=label, workload="isolation", latency_window=latency_window))
    paper = {"isolation": {"ce-lfu/ce-lfu": {"YCSB ops/s": 1.41, "search files/s": 1.24},
                           "ce-mru/ce-mru": {"YCSB ops/s": 0.40, "search files/s": 1.71},
                           "ce-lfu/ce-mru": {"YCSB ops/s": 1.498, "search files/s": 1.794}}}  # fmt: skip
    return Experiment(
        "isolation", runs,
        [("YCSB ops/s", "throughput", "ycsb"), ("YCSB P99 ms", "p99_ms", "ycsb"),
         ("search files/s", "throughput", "search"), ("search P99 ms", "p99_ms", "search"),
         ("disk reads", "disk_read_pages", "all")],
        paper, {"scale": scale, "ops": ops, "seed": seed, "policies": list(policies)},
    )  # fmt: skip
