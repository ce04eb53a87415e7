"""The cache_ext paper's experiments in kernel mode: each policy of the suite beside the kernel's.

Source: cache_ext spec §5 and cache_ext_results (Zussman et al., SOSP 2025, §6: Figs. 6 and 8-11,
§6.1.5). Each experiment generates its workload (:mod:`pagesim.workloads.cache_ext`), runs it
on a simulated node with ``linux-lru`` (the paper's default), ``mglru`` and the cache_ext
policies, and measures what the paper measured, relative to the default:

* throughput: application operations per second (a GET, a scan, a file read), summed over a
  group's threads, each thread on its own CPU, over the accesses after the warm-up;
* P99 latency: of whole operations (the sum of their accesses' times, waits included), over a
  window of ``latency_window`` accesses after the warm-up, stepped one access at a time because
  kernel mode keeps only a histogram of single accesses;
* disk I/O: pages read from the file device (``pgpgin``, demand and readahead) and written
  back (``pgpgout``) after the warm-up.

Scales are of the paper's setup (``scale=1``: a 100 GiB database in a 10 GiB cgroup); the
defaults run in seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pagesim.engine.kernel import KernelRun
from pagesim.engine.memory import DEVICES, KernelConfig
from pagesim.policies.base import Policy
from pagesim.policies.registry import make_policy
from pagesim.trace import OP_FREE, Trace
from pagesim.workloads.cache_ext import (
    TWITTER_CLUSTERS,
    OpTrace,
    build_compaction,
    build_file_search,
    build_get_scan,
    build_twitter,
    build_ycsb,
    pace_compactions,
)

BASELINE = "linux-lru"  #: the paper's default (Linux 6.6.8's active/inactive LRU)
#: The file device of the experiments whose result is a tail latency (GET-SCAN, admission): the
#: paper's SATA SSD with its queue (8 channels, a 550 MB/s link; :mod:`pagesim.engine.memory`),
#: so that a scan's or a compaction's I/O delays the foreground's reads.
QUEUED_DEVICE = "sata-ssd"
SMALL_SCALE = 1 / 4096  #: experiments' default: seconds per run

#: The policies each experiment compares (cache_ext spec §5.2-5.7), the default first.
EXPERIMENT_POLICIES: dict[str, tuple[str, ...]] = {
    "ycsb": ("linux-lru", "mglru", "ce-mru", "ce-fifo", "ce-s3fifo", "ce-lhd", "ce-lfu"),
    "twitter": ("linux-lru", "mglru", "ce-s3fifo", "ce-lhd", "ce-lfu"),
    "file-search": ("linux-lru", "mglru", "ce-mru"),
    "get-scan": ("linux-lru", "mglru", "get-scan"),
    "isolation": ("linux-lru", "mglru", "ce-lfu", "ce-mru", "ce-lfu/ce-mru"),
    "admission": ("linux-lru", "mglru", "admit-compaction"),
}
YCSB_WORKLOADS = ("A", "B", "C", "D", "E", "F", "uniform", "uniform-rw")
#: The paper's entry where a policy's run failed for lack of memory (mglru on twitter cluster 24).
OOM = "OOM"


@dataclass
class Measured:
    """One run: a policy (or one per cgroup) over one workload.

    Attributes
    ----------
    workload : str
        Row label (``ycsb-C``, ``file-search``...).
    policy : str
        The policy's name, or ``name/name`` with one per cgroup.
    throughput : dict of str to float
        Operations per second by thread group (and ``all``): each thread's operations after its
        own warm-up over its time since, summed.
    p99_ms, mean_ms : dict of str to float
        99th percentile and mean latency of the group's operations completed in the latency
        window, ms (NaN when none completed).
    runtime_s : dict of str to float
        The longest thread's model time for the whole run, by group, s.
    disk_read_pages, disk_write_pages : int
        ``pgpgin`` and ``pgpgout`` after the warm-up.
    hits, misses : int
        Page-cache hits and misses after the warm-up.
    counters : dict of str to int
        Every kernel counter of the whole run, and the device's queueing (``device_queue_ns``:
        the tasks' waits behind other requests, ``device_queued``: requests that waited).
    """

    workload: str
    policy: str
    throughput: dict[str, float]
    p99_ms: dict[str, float]
    mean_ms: dict[str, float]
    runtime_s: dict[str, float]
    disk_read_pages: int
    disk_write_pages: int
    hits: int
    misses: int
    counters: dict[str, int] = field(default_factory=dict, repr=False)

    def metric(self, name: str, group: str = "all") -> float:
        """``throughput``, ``p99_ms``, ``mean_ms``, ``runtime_s`` of a group, or ``disk_read_pages``."""
        value = getattr(self, name)
        return float(value[group]) if isinstance(value, dict) else float(value)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable record (without the full counters)."""
        return {
            "workload": self.workload,
            "policy": self.policy,
            "throughput": self.throughput,
            "p99_ms": self.p99_ms,
            "mean_ms": self.mean_ms,
            "runtime_s": self.runtime_s,
            "disk_read_pages": self.disk_read_pages,
            "disk_write_pages": self.disk_write_pages,
            "hits": self.hits,
            "misses": self.misses,
        }


@dataclass
class Experiment:
    """An experiment's runs and how to present them.

    Attributes
    ----------
    name : str
    runs : list of Measured
    metrics : list of (label, attribute, group)
        The columns of its table, each also shown relative to the default's row of the same
        workload.
    paper : dict
        The paper's ratios to the default, ``{workload: {policy: {label: ratio}}}`` (where
        cache_ext_results gives them); :data:`OOM` where the paper's run ran out of memory.
    params : dict
        Scale and other parameters, to repeat the run.
    """

    name: str
    runs: list[Measured]
    metrics: list[tuple[str, str, str]]
    paper: dict[str, dict[str, dict[str, float | str]]] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)

    def workloads(self) -> list[str]:
        """Row groups in run order."""
        return list(dict.fromkeys(r.workload for r in self.runs))

    def baseline(self, workload: str) -> Measured | None:
        """The default's run on ``workload`` (None if it was not run)."""
        for r in self.runs:
            if r.workload == workload and r.policy.split("/")[0] == BASELINE and "/" not in r.policy:
                return r
        for r in self.runs:
            if r.workload == workload and r.policy == f"{BASELINE}/{BASELINE}":
                return r
        return None

    def ratio(self, run: Measured, attribute: str, group: str) -> float:
        """``run``'s metric over the default's on the same workload (NaN without a default)."""
        base = self.baseline(run.workload)
        if base is None:
            return float("nan")
        b = base.metric(attribute, group)
        v = run.metric(attribute, group)
        return v / b if b and np.isfinite(b) and np.isfinite(v) else float("nan")

    def find(self, workload: str, policy: str) -> Measured:
        """The run of ``policy`` on ``workload``.

        Raises
        ------
        KeyError
            If there is none.
        """
        for r in self.runs:
            if r.workload == workload and r.policy == policy:
                return r
        raise KeyError(f"no run of {policy} on {workload}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable: runs with ratios to the default, metrics and the paper's ratios."""
        rows = []
        for r in self.runs:
            d = r.to_dict()
            d["relative"] = {label: self.ratio(r, attr, grp) for label, attr, grp in self.metrics}
            rows.append(d)
        return {"experiment": self.name, "params": self.params, "metrics": [m[0] for m in self.metrics],
                "runs": rows, "paper": self.paper}  # fmt: skip


# ----------------------------------------------------------------------------- measuring


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
    run = KernelRun(trace, policy, config or node_for(trace), cgroup_limits=limits)
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
    ce-mru's model of the pages its skip rule finds under I/O or off the LRU: those of the last
    14 insertions per thread of the cgroup (``threads``, default every task of the trace) and
    those inserted less than one read of the largest readahead window ago."""
    if name == "ce-mru":
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


# ----------------------------------------------------------------------------- experiments

_KV_METRICS = (("ops/s", "throughput", "all"), ("P99 ms", "p99_ms", "all"),
               ("disk reads", "disk_read_pages", "all"))  # fmt: skip

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


_PAPER_TWITTER_OPS = {  # cache_ext_results: throughput relative to the default, by cluster
    17: (1.28, 0.96, 0.93, 0.97), 18: (1.33, 0.86, 0.91, 1.03), 24: (OOM, 0.90, 0.94, 0.97),
    34: (0.88, 1.00, 1.10, 1.06), 52: (0.84, 0.99, 1.07, 1.12),
}  # fmt: skip
#: The paper's twitter ratios, ``{"twitter-<cluster>": {policy: {"ops/s": ratio or OOM}}}``.
PAPER_TWITTER: dict[str, dict[str, dict[str, float | str]]] = {
    f"twitter-{c}": {p: {"ops/s": v} for p, v in zip(("mglru", "ce-s3fifo", "ce-lhd", "ce-lfu"), r)}
    for c, r in _PAPER_TWITTER_OPS.items()
}


def _twitter_sources(path: str | None, clusters: Sequence[int] | None) -> list[tuple[str, dict[str, Any]]]:
    """(row name, build_twitter keywords) per replay: the named clusters' stand-ins, or the CSV.

    A CSV named as one cluster is the row ``twitter-<cluster>``, beside the paper's column.
    """
    if path is None:
        unknown = [c for c in clusters or () if c not in TWITTER_CLUSTERS]
        if unknown:
            known = ", ".join(map(str, TWITTER_CLUSTERS))
            raise ValueError(f"no stand-in for Twitter cluster {unknown[0]}; known: {known} (or a --trace)")
        return [(f"twitter-{c}", {"cluster": c}) for c in (clusters or tuple(TWITTER_CLUSTERS))]
    if not clusters:
        return [("twitter", {"path": path})]
    if len(clusters) != 1:
        raise ValueError(f"a trace is one cluster; got {len(clusters)} clusters for {path}")
    return [(f"twitter-{clusters[0]}", {"path": path})]


def twitter_experiment(
    path: str | None = None,
    clusters: Sequence[int] | None = None,
    policies: Sequence[str] = EXPERIMENT_POLICIES["twitter"],
    scale: float = SMALL_SCALE * 16,
    ops: int | None = None,
    seed: int = 0,
    latency_window: int = 20_000,
    progress: Progress | None = None,
) -> Experiment:
    """Twitter cache traces replayed on LevelDB (paper Fig. 8).

    With ``path``, that CSV, its row named ``twitter-<c>`` when ``clusters`` is ``[c]`` (the
    paper's ratios for cluster ``c`` beside it) and ``twitter`` otherwise; without ``path``, the
    synthetic stand-in of each of ``clusters`` (default 17, 18, 24, 34, 52: its key and value
    sizes and its unique keys times ``scale``), which is not the real trace.

    Raises ValueError for an unknown stand-in cluster, or more than one cluster with ``path``.
    """
    runs: list[Measured] = []
    for row, kw in _twitter_sources(path, clusters):
        o = build_twitter(scale=scale, ops=ops, seed=seed, **kw)
        runs += _each(o, row, policies, progress, latency_window=latency_window)
    return Experiment(
        "twitter", runs,
        list(_KV_METRICS), dict(PAPER_TWITTER),
        {"scale": scale, "ops": ops, "seed": seed, "path": path,
         "clusters": list(clusters or ()), "policies": list(policies)},
    )  # fmt: skip


def file_search_experiment(
    policies: Sequence[str] = EXPERIMENT_POLICIES["file-search"],
    scale: float = SMALL_SCALE * 16,
    passes: int = 10,
    seed: int = 0,
    progress: Progress | None = None,
    latency_window: int | None = None,
) -> Experiment:
    """ripgrep x 10 in a 1 GiB cgroup (paper Fig. 9): the whole run is measured (no warm-up).

    Metrics: files per second (its ratio is the speed-up), runtime of the passes (s), P99 of
    a file read (the time to read one whole file, over the first ``latency_window`` accesses;
    default the whole run) and disk reads. The paper reports no P99 for this experiment.
    """
    o = build_file_search(scale=scale, passes=passes, seed=seed)
    window = o.trace.n_requests if latency_window is None else latency_window
    runs = _each(o, "file-search", policies, progress, warmup_share=0.0, latency_window=window)
    paper = {"file-search": {"mglru": {"files/s": 44.42 / 44.23}, "ce-mru": {"files/s": 44.42 / 24.68}}}
    return Experiment(
        "file-search", runs,
        [("files/s", "throughput", "search"), ("runtime s", "runtime_s", "search"),
         ("file P99 ms", "p99_ms", "search"), ("disk reads", "disk_read_pages", "all")],
        paper, {"scale": scale, "passes": passes, "seed": seed, "policies": list(policies)},
    )  # fmt: skip


def get_scan_experiment(
    policies: Sequence[str] = EXPERIMENT_POLICIES["get-scan"],
    scale: float = SMALL_SCALE * 4,
    gets: int | None = None,
    seed: int = 0,
    latency_window: int = 30_000,
    progress: Progress | None = None,
    device: str = QUEUED_DEVICE,
) -> Experiment:
    """GET-SCAN (paper Fig. 10): 3 GET threads beside a thread of long scans.

    ``device`` is the file device (default the paper's SATA SSD with its queue; ``ssd``: each
    request timed alone). The run stops when the first thread is done (``stop = first``): the
    paper's runs last a fixed time with every thread running, while with ``all`` the threads
    left alone at the end (the GET threads, under linux-lru) run without the scan's I/O.
    Metrics: GET ops/s, GET P99, SCAN ops/s, disk reads.
    """
    o = build_get_scan(scale=scale, gets=gets, seed=seed)
    node = node_for(o.trace, file_device=device, stop="first")
    runs = _each(o, "get-scan", policies, progress, latency_window=latency_window, config=node)
    paper = {"get-scan": {"mglru": {"GET ops/s": 0.86, "GET P99 ms": 46.29 / 34.65,
                                    "SCAN ops/s": 43.4 / 47.1},
                          "get-scan": {"GET ops/s": 1.70, "GET P99 ms": 14.74 / 34.65,
                                       "SCAN ops/s": 38.7 / 47.1}}}  # fmt: skip
    return Experiment(
        "get-scan", runs,
        [("GET ops/s", "throughput", "get"), ("GET P99 ms", "p99_ms", "get"),
         ("SCAN ops/s", "throughput", "scan"), ("disk reads", "disk_read_pages", "all")],
        paper, {"scale": scale, "gets": gets, "seed": seed, "policies": list(policies), "device": device},
    )  # fmt: skip


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


#: name -> experiment function (``pagesim experiment NAME``).
EXPERIMENTS: dict[str, Callable[..., Experiment]] = {
    "ycsb": ycsb_experiment,
    "twitter": twitter_experiment,
    "file-search": file_search_experiment,
    "get-scan": get_scan_experiment,
    "isolation": isolation_experiment,
    "admission": admission_experiment,
}
