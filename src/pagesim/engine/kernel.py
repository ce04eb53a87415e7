"""Kernel mode's public entry point: run policies over a trace on a simulated Linux node.

See :mod:`pagesim.engine.kernel_loop` for what each access does and
:mod:`pagesim.engine.memory` for the node, its devices and their default figures.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pagesim.core.state import (
    A_CAPACITY,
    A_CGROUP,
    A_FREE,
    A_HIT,
    A_KIND,
    A_MEMORY,
    A_MODE,
    A_OP,
    A_PAGE,
    A_READAHEAD,
    A_REASON,
    A_REFAULT,
    A_SWAP_FREE,
    A_TAG,
    A_TIME,
    A_USED,
    A_WAIT_NS,
    A_ZRAM_PAGES,
    ACC_LEN,
    ANON,
    FLAG_MASK,
    GI_FILE_QUEUE,
    GI_SWAP_QUEUE,
    GI_SWAPPINESS,
    LIST,
    MAX_CANDIDATES,
    MODE_KERNEL,
    N_STAT,
    PROT_NONE,
    QUEUE_CPU,
    QUEUE_NONE,
    REASON_FREED,
    STAT_NAMES,
    WORK_PTES,
    WORK_RMAP,
    State,
    make_state,
    state_sharing_lists,
)
from pagesim.engine import counters as C
from pagesim.engine.build import interpreted, interpreted_runner, runner_for
from pagesim.engine.kernel_loop import (
    F_CPU_NS,
    F_DIRECT_NS,
    F_HINT_NS,
    F_KC_NS,
    F_KSWAPD_NS,
    F_LEN,
    F_MAX_FAULT,
    F_MAX_LAT,
    F_NOW,
    F_PTE_NS,
    F_QUEUE_NS,
    F_QUEUED,
    F_RMAP_NS,
    F_SCAN_NS,
    F_TOTAL_NS,
    F_ZERO_NS,
    FILE_DEV,
    N_DIRTY_BG,
    N_HAS_NEXT,
    N_HAS_SWAP,
    N_KC_DEPTH,
    N_LAST_OOM_TAG,
    N_LAT_BUCKETS,
    N_LEN,
    N_RA_MAX,
    N_RES_ANON,
    N_RES_FILE,
    N_STOP,
    N_SWAP_TOTAL,
    N_SWAP_USED,
    N_TIMED,
    N_TOTAL,
    N_WHIGH,
    N_WLOW,
    N_WMIN,
    N_ZRAM_SCALE,
    N_ZRAM_STORED,
    RA_BYP_LEFT,
    RA_LEN,
    RA_SIZE,
    SWAP_DEV,
    KFramework,
    _free_pages,
    _zram_pages,
    _zram_pages_of,
)
from pagesim.engine.loop import CFG_HAS_ADMIT, new_cfg
from pagesim.engine.memory import D_LEN, KernelConfig, watermarks
from pagesim.engine.simulate import PolicyError, Stepper, _policies_per_cgroup
from pagesim.engine.switch import handover_uses, release_lists, switch_order
from pagesim.engine.zram import compression_entries, zram_costs
from pagesim.policies.base import Policy
from pagesim.trace import Trace


@dataclass
class KernelResult:
    """Counters, times and the node's state at the end of a kernel-mode run.

    Attributes
    ----------
    policy : str
        The policy's label.
    counters : dict of str to int
        Cache-mode counters, /proc/vmstat-named kernel counters and the policy's own
        (``pgactivate``, ``workingset_activate_*``...), summed over cgroups.
    ops : int
        Accesses simulated (those of killed processes excluded).
    throughput_ops_per_s : float
        Modelled operations per second: each task runs on its own CPU, so the sum over tasks of
        (accesses / time), time being CPU per access plus every wait charged to the task.
    latency_ns : dict
        ``p50``, ``p99`` (upper edges of power-of-two buckets) and ``max`` of per-access time.
    longest_fault_ns : float
        The longest single wait of a fault or read miss.
    kswapd_ns, direct_reclaim_ns : float
        CPU time kswapd spent reclaiming, and time tasks spent in direct reclaim.
    node : dict
        Resident anon and file pages, swap used, zram's stored pages and the pages of memory
        it holds (``zram_pages``) at the end; OOM victim.
    series : dict of lists
        Sampled every ``sample_every`` accesses (empty if not asked for): ``access`` (index),
        ``time_ns`` (model time of the last access), ``resident_anon``, ``resident_file``,
        ``free``, ``swap_used``, ``pswpin``, ``pswpout``,
        and each policy readout (``Policy.readouts``) of cgroup 0's policy.
    readouts : dict of str to float
        Cgroup 0's policy's readouts at the end of the run (``Policy.readouts``; empty if it has
        none), whether or not a series was sampled.
    describe : str
        Cgroup 0's policy's text readout at the end (``Policy.describe``; CAST: the seed's
        ``estimate`` and ``tune``); "" if it has none.
    clairvoyant : bool
        True if cgroup 0's policy was told each page's next use in trace order (``opt``). In
        kernel mode such a policy is a reference, not a bound: reclaim takes batches of 32,
        readahead brings pages nobody asked for and tasks interleave by their clocks, so
        another policy may miss less (docs/kernel-mode.md). ``to_dict`` adds ``is_bound``,
        always False here, so that a JSON reader does not take its figures for the limit.
    tasks : dict of lists, one entry per task (tag)
        ``ops``, ``time_ns``, ``waits`` (swap-ins and file reads it waited for),
        ``longest_wait_ns``, ``killed`` (1 if the OOM killer took it).
    config : dict
        The node's parameters (:class:`KernelConfig`), so the run can be repeated.
    seconds : float
        Wall time of the simulation loop.
    """

    policy: str
    counters: dict[str, int]
    ops: int
    throughput_ops_per_s: float
    latency_ns: dict[str, float]
    longest_fault_ns: float
    kswapd_ns: float
    direct_reclaim_ns: float
    node: dict[str, int]
    tasks: dict[str, list[float]]
    config: dict[str, Any]
    seconds: float
    prepare_seconds: float
    mode: str
    params: dict[str, Any] = field(default_factory=dict)
    series: dict[str, list[float]] = field(default_factory=dict)
    readouts: dict[str, float] = field(default_factory=dict)
    describe: str = ""
    clairvoyant: bool = False

    def per_op(self, name: str) -> float:
        """``counters[name]`` per simulated access (0.0 if none)."""
        return self.counters[name] / self.ops if self.ops else 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of the whole result."""
        return {
            "policy": self.policy,
            **self.counters,
            "ops": self.ops,
            "throughput_ops_per_s": self.throughput_ops_per_s,
            "latency_ns": self.latency_ns,
            "longest_fault_ns": self.longest_fault_ns,
            "kswapd_ns": self.kswapd_ns,
            "direct_reclaim_ns": self.direct_reclaim_ns,
            "node": self.node,
            "tasks": self.tasks,
            "series": self.series,
            "readouts": self.readouts,
            "describe": self.describe,
            "clairvoyant": self.clairvoyant,
            "is_bound": False,
            "config": self.config,
            "seconds": self.seconds,
            "prepare_seconds": self.prepare_seconds,
            "mode": self.mode,
            "params": self.params,
        }


def release_times(trace: Trace) -> np.ndarray:
    """Each access's earliest start in model time (ns), or an empty array if it has none.

    A trace says its ``time`` column holds release times by ``source["time_is_release"]``
    (kernel workloads set it, in ns: a task that reads every 100 ms sleeps in between). Other
    timestamps (a recorded trace's wall clock, in its own unit) are not used.

    Returns
    -------
    numpy.ndarray of int64, shape (n_requests,) or (0,)

    Raises
    ------
    ValueError
        If the trace says its times are release times but not in ns.
    """
    if trace.time is None or not trace.source.get("time_is_release"):
        return np.zeros(0, dtype=np.int64)
    if trace.source.get("time_unit", "ns") != "ns":
        raise ValueError("release times must be in ns (source['time_unit'] == 'ns')")
    return np.ascontiguousarray(trace.time, dtype=np.int64)


def _first_access(page: np.ndarray, n_pages: int) -> np.ndarray:
    """Each page's first access (row), NEVER for a page the trace never reads."""
    first = np.full(n_pages, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, page, np.arange(page.shape[0], dtype=np.int64))
    return first


def device_addresses(trace: Trace, n_pages: int) -> np.ndarray:
    """Each page's address on its device, to tell sequential requests from seeks.

    A file page's address is its source id (workload generators and readers number a file's
    blocks consecutively); an anon page's is replaced by its swap slot when it is swapped out.

    Returns
    -------
    numpy.ndarray of int64, shape (n_pages,)
    """
    addr = np.zeros(n_pages, dtype=np.int64)
    ids = np.asarray(trace.original_id)
    if ids.size and np.issubdtype(ids.dtype, np.integer):
        addr[: ids.size] = ids.astype(np.int64, copy=False)
    else:
        addr[: ids.size] = np.arange(ids.size, dtype=np.int64) * 2  # unknown: every read seeks
    return addr


def file_successors(trace: Trace) -> np.ndarray:
    """For every page, the page holding the next block of the same file, or -1.

    A file page's successor is the file page whose source id is one higher (workload
    generators give each file a contiguous range of ids). Anon pages have none.

    Returns
    -------
    numpy.ndarray of int64, shape (n_pages,)
    """
    n = trace.n_pages
    nxt = np.full(max(n, 1), -1, dtype=np.int64)
    if n == 0:
        return nxt
    first = np.full(n, -1, dtype=np.int64)
    idx = np.arange(trace.n_requests - 1, -1, -1)
    first[trace.page[idx]] = idx  # the earliest access wins (written last)
    is_file = trace.kind[first] == 0
    pages = np.flatnonzero(is_file)
    if pages.size < 2:
        return nxt
    orig = trace.original_id[pages]
    order = np.argsort(orig, kind="stable")
    sp, so = pages[order], orig[order]
    follows = so[1:] == so[:-1] + 1
    nxt[sp[:-1][follows]] = sp[1:][follows]
    return nxt


class KernelRun(Stepper):
    """A kernel-mode run advanced chunk by chunk; :func:`simulate_kernel` drives it to the end.

    Parameters
    ----------
    trace : Trace
        Accesses with ``kind`` (file/anon), ``op`` (read/write/free), ``tag`` (task) and
        ``cgroup``.
    policy : Policy or sequence of Policy
        One for every cgroup, or one per cgroup.
    config : KernelConfig
        The node.
    cgroup_limits : sequence of int, optional
        ``memory.max`` of each cgroup in pages (default: the trace's ``source["cgroup_pages"]``
        when a workload sets it, as the cache_ext workloads do, else the node's memory).
    warmup : int
        Accesses not counted in hits and misses.
    interpreted : bool
        Plain-Python code path.

    Raises
    ------
    TypeError, ValueError
        For a wrong trace, configuration or limits.
    PolicyError
        If ``init`` fails or raises.
    """

    _mode_name = "kernel"

    def __init__(
        self,
        trace: Trace,
        policy: Policy | Sequence[Policy],
        config: KernelConfig | None = None,
        *,
        cgroup_limits: Sequence[int] | None = None,
        warmup: int = 0,
        interpreted: bool = False,
    ) -> None:
        if not isinstance(trace, Trace):
            raise TypeError("kernel mode needs a pagesim.trace.Trace")
        t0 = time.perf_counter()
        self.trace = trace
        self.config = (config or KernelConfig()).validated()
        cfgk = self.config
        n_cgroups = int(trace.cgroup.max()) + 1 if trace.n_requests else 1
        self.policies = _policies_per_cgroup(policy, n_cgroups)
        self.classes = tuple(type(p) for p in self.policies)
        if cgroup_limits is None and trace.source.get("cgroup_pages") is not None:
            cgroup_limits = trace.source["cgroup_pages"]
        limits = (
            np.full(n_cgroups, cfgk.memory_pages, dtype=np.int64)
            if cgroup_limits is None
            else np.asarray(cgroup_limits, dtype=np.int64)
        )
        if limits.shape != (n_cgroups,) or (limits <= 0).any():
            raise ValueError(f"give one positive memory.max per cgroup ({n_cgroups})")
        self.page = np.ascontiguousarray(trace.page, dtype=np.int64)
        self.kind = np.ascontiguousarray(trace.kind, dtype=np.uint8)
        self.op = np.ascontiguousarray(trace.op, dtype=np.uint8)
        self.tag = np.ascontiguousarray(trace.tag, dtype=np.int32)
        if self.tag.size and self.tag.min() < 0:
            raise ValueError("task tags must be >= 0")
        self.cgroup = np.ascontiguousarray(trace.cgroup, dtype=np.int64)
        self.n = int(self.page.shape[0])
        n_pages = max(int(trace.n_pages), 1)
        n_tags = int(self.tag.max()) + 1 if self.n else 1
        first = make_state(n_pages, n_cgroups, **self.policies[0].state_shape())
        others = tuple(state_sharing_lists(first, **p.state_shape()) for p in self.policies[1:])
        self.states = (first, *others)
        self.state = first
        self.framework = self._framework(n_pages, n_tags, limits)
        for pol, st, lim in zip(self.policies, self.states, limits):
            _node_slots(st, cfgk)
            pol.configure(st, int(lim))
        self.warmup = warmup
        self.series: dict[str, list[float]] = {}
        self.cfg = self._fresh_cfg()
        self.a = np.zeros(ACC_LEN, dtype=np.int64)
        self.r = np.zeros(ACC_LEN, dtype=np.int64)
        self.out = np.zeros(C.N_KERNEL_COUNTERS, dtype=np.int64)
        self._running = list(self.policies)  #: the policy each cgroup runs now
        self._own_states = list(self.states)  #: each cgroup's own policy's latest state
        self._retired: list[State] = []  #: states replaced by a switch (their counters stay)
        self._plan = self._plan_switches()
        self._cg0_switches = any(cg == 0 for _, cg, _ in self._plan)  #: series carry "enabled"
        self.switch_log: list[dict[str, Any]] = []
        self._start_up(interpreted)
        self._switch_due()  # a switch at access 0 is the state the run starts in (series, _running)
        self.prepare_seconds = time.perf_counter() - t0

    def _plan_switches(self) -> list[tuple[int, int, Policy | None]]:
        """Every cgroup's :meth:`Policy.switches`, in the order they happen; refuses what cannot be."""
        plan: list[tuple[int, int, Policy | None]] = []
        for cg, pol in enumerate(self.policies):
            last = -1
            for at, target in pol.switches():
                if int(at) < 0 or int(at) <= last:
                    raise ValueError(
                        f"{pol.policy_name()}: switches must come at increasing access counts >= 0, "
                        f"got {at} after {last}"
                    )
                if target is not None and not isinstance(target, Policy):
                    raise TypeError(f"{pol.policy_name()}: a switch's target must be a Policy or None")
                last = int(at)
                plan.append((last, cg, target))
        plan.sort(key=lambda e: (e[0], e[1]))
        names = {p.policy_name() for p in self.policies}
        names |= {t.policy_name() for _, _, t in plan if t is not None}
        for pol in [*self.policies, *(t for _, _, t in plan if t is not None)]:
            clash = sorted(set(pol.never_with) & names)
            if clash:
                raise ValueError(
                    f"{pol.policy_name()} and {clash[0]} are never on in one node at once (switching "
                    f"one on while the other is on is refused, EBUSY); run them in separate runs"
                )
        return plan

    def advance(self, n_accesses: int | None = None) -> int:
        """Process the next ``n_accesses`` accesses, switching policies where planned; return ``done``."""
        end = self.n if n_accesses is None else min(self.n, self.done + max(int(n_accesses), 0))
        self._switch_due()
        while self._plan and self._plan[0][0] < end and self.done < end:
            super().advance(self._plan[0][0] - self.done)
            self._switch_due()
        if end > self.done:
            super().advance(end - self.done)
        return self.done

    def _switch_due(self) -> None:
        while self._plan and self._plan[0][0] <= self.done:
            _, cg, target = self._plan.pop(0)
            self._switch(cg, target)

    def _hook(self, cls: type[Policy], name: str) -> Callable[..., Any]:
        hook = getattr(cls, name)
        return interpreted(hook) if self.mode == "interpreted" else hook

    def _switch(self, cg: int, target: Policy | None) -> None:
        """Hand cgroup ``cg``'s pages from the policy it runs to ``target`` (None: its own, anew).

        See :mod:`pagesim.engine.switch`. Raises PolicyError if the new policy's ``init`` fails.
        """
        new = self.policies[cg] if target is None else target
        old, old_state = self._running[cg], self.states[cg]
        fw, a, r = self.framework, self.a, self.r
        st = state_sharing_lists(self.states[0], **new.state_shape())
        _node_slots(st, self.config)
        new.configure(st, int(fw.cap[cg]))
        pages = switch_order(old_state, cg)
        off_list = old_state.lst[pages, LIST] < 0  # the old policy's active part (CAST's M)
        self._hook_fields(a, cg)
        r[:] = a
        r[A_REASON] = REASON_FREED
        r[A_WAIT_NS] = -1  # nothing is written out
        removed = self._hook(type(old), "removed")
        for p in pages:
            r[A_PAGE] = p
            r[A_KIND] = 1 if old_state.resident[p] & ANON else 0
            removed(old_state, r)
        release_lists(old_state, cg, pages)
        old_state.resident[pages] &= np.uint8(FLAG_MASK ^ PROT_NONE)  # the old policy's hinting ends
        code = int(self._hook(type(new), "init")(st, a))
        if code != 0:
            raise PolicyError(new.label(), self.done, RuntimeError(f"init returned {code} at a switch"), "")
        added, accessed = self._hook(type(new), "added"), self._hook(type(new), "accessed")
        stat = st.stat.copy()
        for p, active in zip(pages, off_list):
            anon = (st.resident[p] & ANON) != 0
            a[A_PAGE] = p
            a[A_KIND] = 1 if anon else 0
            a[A_TAG] = max(int(fw.owner_tag[p]), 0)
            added(st, a)
            for _ in range(handover_uses(bool(anon), bool(active))):
                accessed(st, a)
        st.stat[:] = stat  # a handover is no event: the uses above count no pgactivate
        self._retired.append(old_state)
        self.states = tuple(st if k == cg else s for k, s in enumerate(self.states))
        self.state = self.states[0]
        self._running[cg] = new
        if target is None:
            self._own_states[cg] = st
        self.classes = tuple(type(p) for p in self._running)
        fw.one_by_one[cg] = 0 if type(new).proposes_batches else 1
        fw.no_fallback[cg] = 0 if type(new).uses_fallback else 1
        self.cfg[CFG_HAS_ADMIT] = 1 if any(c.has_admit() for c in self.classes) else 0
        if cg == 0 and self.config.kcompressd is None:
            own = self.policies[0]
            depth = (
                own.kcompressd_depth()
                if new is own
                else max(new.kcompressd_depth(), own.kcompressd_while_off())
            )
            fw.node[N_KC_DEPTH] = max(int(depth), 0)
        self._run = (
            interpreted_runner(self.classes, "kernel")
            if self.mode == "interpreted"
            else runner_for(self.classes, "kernel")
        )
        self.switch_log.append(
            {"access": self.done, "cgroup": cg, "to": new.label(), "pages": int(pages.size)}
        )

    def _hook_fields(self, a: np.ndarray, cg: int) -> None:
        """The access fields a hook reads besides the page: mode, memory, the cgroup's charge."""
        fw = self.framework
        a[A_MODE] = MODE_KERNEL
        a[A_CGROUP] = cg
        a[A_TIME] = self.done
        a[A_MEMORY] = fw.node[N_TOTAL]
        a[A_CAPACITY] = fw.cap[cg]
        a[A_USED] = fw.used[cg]
        a[A_FREE] = _free_pages(fw)
        a[A_ZRAM_PAGES] = _zram_pages_of(fw, cg)
        a[A_SWAP_FREE] = fw.node[N_SWAP_TOTAL] - fw.node[N_SWAP_USED] if fw.node[N_HAS_SWAP] else 0
        a[A_OP] = 0
        a[A_HIT] = 1
        a[A_READAHEAD] = 0
        a[A_REFAULT] = 0
        a[A_WAIT_NS] = 0

    def _framework(self, n_pages: int, n_tags: int, limits: np.ndarray) -> KFramework:
        c = self.config
        wmin, wlow, whigh = watermarks(c.memory_pages)
        node = np.zeros(N_LEN, dtype=np.int64)
        node[N_TOTAL] = c.memory_pages
        node[N_WMIN], node[N_WLOW], node[N_WHIGH] = wmin, wlow, whigh
        node[N_RA_MAX] = max(c.readahead_pages, 1)
        swap = c.device(c.swap)
        node[N_HAS_SWAP] = 0 if swap is None else 1
        node[N_SWAP_TOTAL] = c.swap_pages or 0
        node[N_LAST_OOM_TAG] = -1
        dev = np.zeros((2, D_LEN))
        if swap is not None:
            dev[SWAP_DEV] = swap.row()
        file_dev = c.device(c.file_device)
        if file_dev is not None:
            dev[FILE_DEV] = file_dev.row()
        f = np.zeros(F_LEN)
        f[F_CPU_NS] = c.cpu_ns_per_access
        f[F_ZERO_NS] = c.zero_fill_ns
        f[F_SCAN_NS] = c.reclaim_ns_per_page
        f[F_RMAP_NS] = c.rmap_ns_per_page
        f[F_PTE_NS] = c.walk_ns_per_pte
        f[F_HINT_NS] = c.hint_fault_ns
        node[N_TIMED] = 1 if c.schedule == "time" else 0
        stop = self.trace.source.get("stop", "all") if c.stop == "auto" else c.stop
        if stop not in ("all", "first"):
            raise ValueError(f"the trace's source['stop'] must be 'all' or 'first', got {stop!r}")
        node[N_STOP] = 1 if stop == "first" else 0
        if any(cls.needs_next_access for cls in self.classes):
            node[N_HAS_NEXT] = 1
            next_use = np.ascontiguousarray(self.trace.next_access(), dtype=np.int64)
            upcoming = _first_access(self.page, n_pages)
        else:
            next_use = np.zeros(0, dtype=np.int64)
            upcoming = np.zeros(0, dtype=np.int64)
        depth = c.kcompressd if c.kcompressd is not None else self.policies[0].kcompressd_depth()
        node[N_KC_DEPTH] = max(int(depth), 0)
        if c.dirty_background_ratio > 0:
            node[N_DIRTY_BG] = max(int(c.memory_pages * c.dirty_background_ratio / 100), 1)
        tag_ra = np.full((n_tags, RA_LEN), -1, dtype=np.int64)
        tag_ra[:, RA_SIZE] = 0
        tag_ra[:, RA_BYP_LEFT] = 0
        channels = max([d.channels for d in (swap, file_dev) if d is not None] + [0])
        entries = compression_entries(self.trace.source)
        zram_cost, node[N_ZRAM_SCALE] = zram_costs(
            self.page, self.kind, self.tag, n_pages, c.zram_ratio_of(swap), entries
        )
        order = np.argsort(self.tag, kind="stable").astype(np.int64)
        counts = np.bincount(self.tag, minlength=n_tags) if self.n else np.zeros(n_tags, np.int64)
        task_first = np.zeros(n_tags + 1, dtype=np.int64)
        np.cumsum(counts, out=task_first[1:])
        return KFramework(
            used=np.zeros(limits.shape[0], dtype=np.int64),
            cap=limits.copy(),
            hand=np.zeros(limits.shape[0], dtype=np.int64),
            swapped=np.zeros(n_pages, dtype=np.uint8),
            shadowed=np.zeros(n_pages, dtype=np.uint8),
            owner_tag=np.full(n_pages, -1, dtype=np.int32),
            ra_next=file_successors(self.trace) if c.readahead_pages > 1 else np.full(n_pages, -1, np.int64),
            tag_ns=np.zeros(n_tags),
            tag_ops=np.zeros(n_tags, dtype=np.int64),
            tag_majflt=np.zeros(n_tags, dtype=np.int64),
            tag_maxwait=np.zeros(n_tags),
            tag_dead=np.zeros(n_tags, dtype=np.uint8),
            tag_anon=np.zeros(n_tags, dtype=np.int64),
            tag_ra=tag_ra,
            node=node,
            f=f,
            dev=dev,
            dev_last=np.full(2, -1, dtype=np.int64),
            dev_busy=np.zeros((2, 1 + channels)),
            addr=device_addresses(self.trace, n_pages),
            lat=np.zeros(N_LAT_BUCKETS, dtype=np.int64),
            victims=np.zeros(MAX_CANDIDATES, dtype=np.int64),
            one_by_one=np.array([0 if c.proposes_batches else 1 for c in self.classes], dtype=np.uint8),
            no_fallback=np.array([0 if c.uses_fallback else 1 for c in self.classes], dtype=np.uint8),
            fill=np.zeros(c.readahead_pages + 1, dtype=np.int64),
            fill_flags=np.zeros(c.readahead_pages + 1, dtype=np.uint8),
            fill_ra=np.zeros(c.readahead_pages + 1, dtype=np.uint8),
            release=release_times(self.trace),
            order=order,
            task_first=task_first,
            task_pos=task_first[:-1].copy(),
            clock=np.zeros(n_tags + 1),
            tag_stall=np.zeros(n_tags),
            tag_prio=np.full(n_tags, 12, dtype=np.int64),
            tag_idle=np.zeros(n_tags, dtype=np.int64),
            tag_idle_scanned=np.zeros(n_tags, dtype=np.int64),
            tag_admit=np.full(n_tags, -1, dtype=np.int64),
            tag_stalled=np.zeros(n_tags, dtype=np.uint8),
            tag_reclaimer=np.full(n_tags, -1, dtype=np.int64),
            tag_reclaimed=np.zeros(n_tags, dtype=np.int64),
            heap=np.zeros(n_tags + 1, dtype=np.int64),
            heap_pos=np.full(n_tags + 1, -1, dtype=np.int64),
            dirty_ring=np.zeros(n_pages, dtype=np.int64),
            in_ring=np.zeros(n_pages, dtype=np.uint8),
            next_use=next_use,
            upcoming=upcoming,
            dirty_cg=np.zeros(limits.shape[0], dtype=np.int64),
            dirty_bg_cg=np.maximum(
                (np.minimum(limits, c.memory_pages) * c.dirty_background_ratio / 100).astype(np.int64), 1
            ),
            zram_cost=zram_cost,
            zram_cg=np.zeros(limits.shape[0], dtype=np.int64),
            swap_cg=np.full(n_pages, -1, dtype=np.int64),
        )

    def _arrays(self) -> tuple[Any, ...]:
        return (
            self.page, self.kind, self.op, self.tag, self.cgroup, self.cfg,
            self.states, self.framework, self.a, self.r, self.out,
        )  # fmt: skip

    def _fresh_cfg(self) -> np.ndarray:
        return new_cfg(self.warmup, any(c.has_admit() for c in self.classes), False, False, True)

    @property
    def counters(self) -> dict[str, int]:
        """Every counter so far, by name."""
        counts = {name: int(self.out[slot]) for name, (slot, _) in C.COUNTERS.items()}
        counts.update({name: int(self.out[slot]) for name, (slot, _) in C.KERNEL_COUNTERS.items()})
        stat = np.zeros(N_STAT, dtype=np.int64)
        for st in (*self.states, *self._retired):
            stat += st.stat
        counts.update({name: int(stat[i]) for i, name in enumerate(STAT_NAMES)})
        counts["rmap_walks"] = int(self.states[0].work[WORK_RMAP])
        counts["ptes_walked"] = int(self.states[0].work[WORK_PTES])
        return counts

    def sample(self) -> None:
        """Append the node's state now (and cgroup 0's policy readouts) to :attr:`series`.

        ``access`` is the accesses run so far (those ``stop = first`` skipped are not counted).
        """
        fw = self.framework
        row = {
            "access": float(self.done - self.out[C.STOPPED]),  # run, not skipped by stop=first
            "time_ns": float(fw.f[F_NOW]),
            "resident_anon": float(fw.node[N_RES_ANON]),
            "resident_file": float(fw.node[N_RES_FILE]),
            "free": float(_free_pages(fw)),
            "swap_used": float(fw.node[N_SWAP_USED]),
            "pswpin": float(self.out[C.PSWPIN]),
            "pswpout": float(self.out[C.PSWPOUT]),
        }
        row.update({k: float(v) for k, v in self.policies[0].readouts(self._own_states[0]).items()})
        if self._cg0_switches:
            row["enabled"] = 1.0 if self._running[0] is self.policies[0] else 0.0
        for key, value in row.items():
            self.series.setdefault(key, []).append(value)

    def result(self) -> KernelResult:
        """The :class:`KernelResult` so far."""
        fw = self.framework
        ops = int(fw.tag_ops.sum())
        busy = fw.tag_ns > 0
        throughput = float((fw.tag_ops[busy] / (fw.tag_ns[busy] * 1e-9)).sum()) if busy.any() else 0.0
        return KernelResult(
            policy=self.label(),
            counters=self.counters,
            ops=ops,
            throughput_ops_per_s=throughput,
            latency_ns=_latency_summary(fw.lat, float(fw.f[F_MAX_LAT])),
            longest_fault_ns=float(fw.f[F_MAX_FAULT]),
            kswapd_ns=float(fw.f[F_KSWAPD_NS]),
            direct_reclaim_ns=float(fw.f[F_DIRECT_NS]),
            node={
                "resident_anon": int(fw.node[N_RES_ANON]),
                "resident_file": int(fw.node[N_RES_FILE]),
                "swap_used": int(fw.node[N_SWAP_USED]),
                # zram's figures only where swap is zram: another device has no such store
                **(
                    {"zram_stored": int(fw.node[N_ZRAM_STORED]), "zram_pages": int(_zram_pages(fw))}
                    if self.config.swap == "zram"
                    else {}
                ),
                "oom_victim_tag": int(fw.node[N_LAST_OOM_TAG]),
                "total_ns": int(fw.f[F_TOTAL_NS]),
                "kcompressd_ns": int(fw.f[F_KC_NS]),
                "device_queue_ns": int(fw.f[F_QUEUE_NS]),
                "device_queued": int(fw.f[F_QUEUED]),
            },
            tasks={
                "ops": fw.tag_ops.tolist(),
                "time_ns": fw.tag_ns.tolist(),
                "waits": fw.tag_majflt.tolist(),
                "longest_wait_ns": fw.tag_maxwait.tolist(),
                "killed": fw.tag_dead.astype(int).tolist(),
            },
            config=self.config.to_dict(),
            seconds=self.loop_seconds,
            prepare_seconds=self.prepare_seconds,
            mode=self.mode,
            params={"policy": [repr(p) for p in self.policies], "source": self.trace.source},
            series={k: list(v) for k, v in self.series.items()},
            readouts={k: float(v) for k, v in self.policies[0].readouts(self._own_states[0]).items()},
            describe=self.policies[0].describe(self._own_states[0]),
            clairvoyant=bool(type(self.policies[0]).needs_next_access),
        )


#: The block device number (bdi) of each device a node has, as the policies' queue slots name it.
SWAP_BDI = 1
FILE_BDI = 2


def _node_slots(st: State, config: KernelConfig) -> None:
    """The framework's slots a policy reads in kernel mode: vm.swappiness and where each device's
    waits queue (:data:`~pagesim.core.state.GI_SWAP_QUEUE`, ``GI_FILE_QUEUE``: the CPU for a
    synchronous device such as zram, else its bdi number, ``QUEUE_NONE`` without swap)."""
    st.gi[GI_SWAPPINESS] = config.swappiness
    devices = ((GI_SWAP_QUEUE, config.swap, SWAP_BDI), (GI_FILE_QUEUE, config.file_device, FILE_BDI))
    for slot, name, bdi in devices:
        dev = config.device(name)
        st.gi[slot] = QUEUE_NONE if dev is None else (QUEUE_CPU if dev.synchronous else bdi)


def _latency_summary(hist: np.ndarray, max_ns: float) -> dict[str, float]:
    """p50, p99 and max of the accesses' latencies (ns: CPU plus waits) from the loop's log2
    histogram: bucket ``b`` > 0 counts latencies in [2**(b-1), 2**b), bucket 0 those under 1 ns.

    A quantile is interpolated linearly within its bucket (the bucket's upper bound, which this
    once gave, overstated it by up to 2x) and never exceeds the largest latency seen.
    """
    total = int(hist.sum())
    if total == 0:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    cum = np.cumsum(hist)

    def quantile(q: float) -> float:
        rank = q * total
        b = int(np.searchsorted(cum, rank, side="left"))
        if b == 0:
            return 0.0
        below = float(cum[b - 1])
        low, high = float(2 ** (b - 1)), float(2**b)
        share = (rank - below) / float(hist[b])
        return float(min(low + share * (high - low), max_ns))

    return {"p50": quantile(0.5), "p99": quantile(0.99), "max": max_ns}


def simulate_kernel(
    trace: Trace,
    policy: Policy | Sequence[Policy],
    config: KernelConfig | None = None,
    *,
    cgroup_limits: Sequence[int] | None = None,
    warmup: int = 0,
    interpreted: bool = False,
    progress: Callable[[int, int], None] | None = None,
    chunk: int = 2_000_000,
    sample_every: int | None = None,
) -> KernelResult:
    """Run ``policy`` over ``trace`` on a simulated node (kernel mode).

    Parameters
    ----------
    trace : Trace
        With ``kind``, ``op``, ``tag`` and ``cgroup`` columns (workload generators fill them).
    policy : Policy or sequence of Policy
        One for every cgroup, or one per cgroup.
    config : KernelConfig, optional
        The node (memory, swap device, file device, costs); defaults to :class:`KernelConfig`.
    cgroup_limits : sequence of int, optional
        ``memory.max`` per cgroup, pages.
    warmup : int
        Accesses not counted in hits and misses.
    interpreted : bool
        Plain-Python code path.
    progress : callable ``(done, total)``, optional
        Called after each chunk.
    sample_every : int, optional
        Record a time series point every this many accesses (``KernelResult.series``).

    Returns
    -------
    KernelResult

    Raises
    ------
    TypeError, ValueError
        For a wrong trace, configuration or limits.
    PolicyError
        If a hook raises or ``init`` fails.
    """
    run = KernelRun(
        trace, policy, config, cgroup_limits=cgroup_limits, warmup=warmup, interpreted=interpreted
    )
    step = max(int(chunk), 1)
    if sample_every:
        step = min(step, max(int(sample_every), 1))
        run.sample()
    while run.done < run.n:
        run.advance(step)
        if sample_every:
            run.sample()
        if progress is not None:
            progress(run.done, run.n)
    return run.result()
