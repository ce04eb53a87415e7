"""One run of a cache_ext experiment: its node, the policy set up for the workload, and what is
measured (throughput, P99 latency of whole operations, disk I/O after the warm-up; the rules are
in the package docstring).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pagesim.analysis.experiments.records import Measured
from pagesim.engine.kernel import KernelRun
from pagesim.engine.memory import DEVICES, KernelConfig
from pagesim.policies.base import Policy
from pagesim.policies.registry import make_policy
from pagesim.trace import OP_FREE, FileAdvice, Trace
from pagesim.workloads.cache_ext import (
    OpTrace,
)


def node_for(trace: Trace, **overrides: Any) -> KernelConfig:
    """The node a cache_ext workload was sized for: its ``memory_pages``, an SSD, no swap, and
    ``vm.dirty_background_ratio = 1`` as in the paper's runs (cache_ext_spec.md §5.1)."""
    params: dict[str, Any] = {"memory_pages": int(trace.source["memory_pages"]), "swap": "none",
                              "file_device": "ssd", "dirty_background_ratio": 1.0}  # fmt: skip
    params.update(overrides)
    return KernelConfig(**params)


def measure(
    ops: OpTrace,
    policy: Policy | Sequence[Policy],
    *,
    label: str,
    workload: str,
    config: KernelConfig | None = None,
    cgroup_limits: Sequence[int] | None = None,
    warmup_share: float = 0.2,
    latency_window: int = 20_000,
    advice: FileAdvice | None = None,
) -> Measured:
    """Run ``policy`` over ``ops`` in kernel mode and measure throughput, P99 and disk I/O.

    Parameters
    ----------
    ops : OpTrace
        The workload with its operations.
    policy : Policy or sequence of Policy
        One for every cgroup, or one per cgroup.
    label, workload : str
        Names for the result.
    config : KernelConfig, optional
        Default: :func:`node_for`.
    cgroup_limits : sequence of int, optional
        Default: ``trace.source["cgroup_pages"]``.
    warmup_share : float
        Share of each task's accesses run before it is measured (the paper's warm-up), in
        [0, 1). Counters and the latency window start once every task is past its warm-up or
        one task has finished.
    latency_window : int
        Accesses after the warm-up stepped one by one to time whole operations (about 25 us of
        wall time each).
    advice : FileAdvice, optional
        ``posix_fadvise`` calls the tasks make (:class:`~pagesim.engine.kernel.KernelRun`); the
        run's counters then carry ``fadvise_calls``, ``fadvise_dropped``, ``fadvise_written``
        (whole run).

    Returns
    -------
    Measured

    Raises
    ------
    ValueError
        For a warm-up share outside [0, 1) or wrong limits.
    PolicyError
        If a policy fails.
    """
    if not 0 <= warmup_share < 1:
        raise ValueError(f"warmup_share must be within [0, 1), got {warmup_share}")
    trace = ops.trace
    limits = list(cgroup_limits if cgroup_limits is not None else trace.source["cgroup_pages"])
    run = KernelRun(trace, policy, config or node_for(trace), cgroup_limits=limits, advice=advice)
    fw = run.framework
    # warm-up: each task's first ``warmup_share`` of its accesses; measuring starts when every
    # task is past its own, or one has finished (tasks run at different speeds)
    # accesses that run (frees take no time and count no operation), task by task in trace order
    counted = trace.op[fw.order] != OP_FREE
    nf_order = fw.order[counted]
    n_task = np.bincount(trace.tag[nf_order], minlength=fw.tag_ops.shape[0])
    nf_first = np.concatenate([[0], np.cumsum(n_task)])
    mark = (n_task * warmup_share).astype(np.int64)
    snap_ops = np.full(n_task.shape[0], -1, dtype=np.int64)
    snap_ns = np.zeros(n_task.shape[0])
    step = max(trace.n_requests // 400, 500)
    while True:
        crossed = fw.tag_ops >= mark
        fresh = crossed & (snap_ops < 0)
        snap_ops[fresh] = fw.tag_ops[fresh]
        snap_ns[fresh] = fw.tag_ns[fresh]
        finished = ((fw.tag_ops >= n_task) & (n_task > 0)).any()
        if crossed.all() or finished or run.done >= run.n:
            break
        run.advance(step)
    late = snap_ops < 0
    snap_ops[late] = fw.tag_ops[late]
    snap_ns[late] = fw.tag_ns[late]
    ops0, ns0 = fw.tag_ops.copy(), fw.tag_ns.copy()
    c0 = run.counters
    window = max(min(int(latency_window), run.n - run.done), 0)
    lat = np.zeros(window)
    idx = np.full(window, -1, dtype=np.int64)
    prev_ops, prev_ns = ops0.copy(), ns0.copy()
    for i in range(window):
        run.advance(1)
        moved = np.flatnonzero(fw.tag_ops != prev_ops)
        if moved.size == 1:
            tg = int(moved[0])
            lat[i] = fw.tag_ns[tg] - prev_ns[tg]
            idx[i] = nf_order[nf_first[tg] + fw.tag_ops[tg] - 1]
        prev_ops[:] = fw.tag_ops
        prev_ns[:] = fw.tag_ns
    run.advance()
    c1 = run.counters
    node = run.result().node
    c1.update(device_queue_ns=node["device_queue_ns"], device_queued=node["device_queued"])
    if advice is not None:
        c1.update({f"fadvise_{k}": v for k, v in run.fadvise.items()})
    op_len = np.bincount(ops.op_of[trace.op != OP_FREE], minlength=ops.n_ops)
    op_tag = np.zeros(ops.n_ops, dtype=np.int64)
    op_tag[ops.op_of] = trace.tag
    # operations completed after the warm-up, per task (an access counts 1/len of its operation)
    weight = 1.0 / np.maximum(op_len[ops.op_of], 1)
    n_tags = fw.tag_ops.shape[0]
    rate = np.zeros(n_tags)
    for tg in range(n_tags):
        lo, hi = int(nf_first[tg] + snap_ops[tg]), int(nf_first[tg] + fw.tag_ops[tg])
        done = float(weight[nf_order[lo:hi]].sum()) if hi > lo else 0.0
        dt = (fw.tag_ns[tg] - snap_ns[tg]) * 1e-9
        rate[tg] = done / dt if dt > 0 else 0.0
    # operations whose every access fell in the window
    seen = idx[idx >= 0]
    op_lat = np.bincount(ops.op_of[seen], weights=lat[idx >= 0], minlength=ops.n_ops)
    op_seen = np.bincount(ops.op_of[seen], minlength=ops.n_ops)
    complete = (op_seen == op_len) & (op_len > 0)
    groups = {"all": list(range(n_tags)), **ops.groups}
    throughput, p99, mean, runtime = {}, {}, {}, {}
    for g, tags in groups.items():
        tags = [t for t in tags if t < n_tags]
        throughput[g] = float(rate[tags].sum())
        mine = complete & np.isin(op_tag, tags)
        sample = op_lat[mine]
        p99[g] = float(np.percentile(sample, 99) / 1e6) if sample.size else float("nan")
        mean[g] = float(sample.mean() / 1e6) if sample.size else float("nan")
        runtime[g] = float(fw.tag_ns[tags].max() / 1e9) if tags else 0.0
    return Measured(
        workload=workload,
        policy=label,
        throughput=throughput,
        p99_ms=p99,
        mean_ms=mean,
        runtime_s=runtime,
        disk_read_pages=c1["pgpgin"] - c0["pgpgin"],
        disk_write_pages=c1["pgpgout"] - c0["pgpgout"],
        hits=c1["hits"] - c0["hits"],
        misses=c1["misses"] - c0["misses"],
        counters=c1,
    )


#: Folios a CPU holds off the LRU at most: Linux 6.6 adds a new folio to a per-CPU batch of 15
#: (``folio_batch``) and moves the batch onto the LRU when it is full.
LRU_ADD_BATCH = 14


def _policy(name: str, ops: OpTrace, threads: int | None = None) -> Policy:
    """A policy of the suite set up for the workload: GET-SCAN's scan threads and quota,
    the admission filter's compaction threads (the tags the workload gives those roles), and
    ce-mru's and ce-mglru's model of the pages their walks find under I/O or off the LRU:
    those of the last 14 insertions per thread of the cgroup (``threads``, default every task
    of the trace) and those inserted less than one read of the largest readahead window
    ago."""
    if name in ("ce-mru", "ce-mglru"):
        tasks = threads if threads is not None else int(np.unique(ops.trace.tag).shape[0])
        ssd = DEVICES["ssd"]
        return make_policy(
            name,
            inflight=LRU_ADD_BATCH * tasks,
            inflight_ns=int(ssd.read_ns + ssd.read_page_ns * (KernelConfig.readahead_pages - 1)),
        )
    if name == "get-scan":
        return make_policy(
            name,
            scan_tags=",".join(map(str, ops.groups["scan"])),
            scan_quota=int(ops.trace.source.get("scan_quota_pages", 5000)),
        )
    if name == "admit-compaction":
        return make_policy(name, compaction_tags=",".join(map(str, ops.groups["compaction"])))
    return make_policy(name)


Progress = Callable[[str], None]


def _each(
    ops: OpTrace, workload: str, policies: Sequence[str], progress: Progress | None, **kw: Any
) -> list[Measured]:
    out = []
    for name in policies:
        if progress:
            progress(f"{workload}: {name}")
        out.append(measure(ops, _policy(name, ops), label=name, workload=workload, **kw))
    return out


_KV_METRICS = (("ops/s", "throughput", "all"), ("P99 ms", "p99_ms", "all"),
               ("disk reads", "disk_read_pages", "all"))  # fmt: skip
