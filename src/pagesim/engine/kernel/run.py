"""Kernel mode's run: :class:`KernelRun` steps the compiled loop chunk by chunk, switches policies
where they ask (:meth:`Policy.switches`, :mod:`pagesim.engine.switch`) and reads its counters
and result; :func:`simulate_kernel` drives one to the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
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
    LIST,
    MODE_KERNEL,
    N_STAT,
    PROT_NONE,
    REASON_FREED,
    STAT_NAMES,
    WORK_PTES,
    WORK_RMAP,
    State,
    make_state,
    state_sharing_lists,
)
from pagesim.engine import auto as _auto
from pagesim.engine import counters as C
from pagesim.engine.build import interpreted, interpreted_runner, runner_for
from pagesim.engine.kernel.node import _node_slots, make_kframework
from pagesim.engine.kernel.result import KernelResult, _latency_summary
from pagesim.engine.kmode.framework import (
    F,
    N,
    _free_pages,
    _zram_pages,
    _zram_pages_of,
)
from pagesim.engine.loop import CFG_HAS_ADMIT, new_cfg
from pagesim.engine.memory import KernelConfig
from pagesim.engine.simulate import PolicyError, Stepper, _policies_per_cgroup
from pagesim.engine.switch import handover_uses, release_lists, switch_order
from pagesim.policies.base import Policy, kcompressd_depth, kcompressd_while_off
from pagesim.trace import FileAdvice, Trace


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
    advice : FileAdvice, optional
        ``posix_fadvise`` calls the tasks make, each before one of their accesses
        (:mod:`pagesim.engine.kmode.fadvise`); their counts in :attr:`fadvise`.

    Raises
    ------
    TypeError, ValueError
        For a wrong trace, configuration, limits or advice.
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
        advice: FileAdvice | None = None,
    ) -> None:
        if not isinstance(trace, Trace):
            raise TypeError("kernel mode needs a pagesim.trace.Trace")
        t0 = time.perf_counter()
        self.trace = trace
        self.config = (config or KernelConfig()).validated()
        cfgk = self.config
        n_cgroups = int(trace.cgroup.max()) + 1 if trace.n_requests else 1
        self.policies = _policies_per_cgroup(policy, n_cgroups)
        autos = _auto.resolve_autos(self.policies, "kernel")
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
        first = make_state(n_pages, n_cgroups, n_tags=n_tags, **self.policies[0].state_shape())
        others = tuple(state_sharing_lists(first, **p.state_shape()) for p in self.policies[1:])
        self.states = (first, *others)
        self.state = first
        self.framework = make_kframework(
            cfgk,
            trace,
            (self.page, self.kind, self.tag),
            self.classes,
            self.policies[0],
            n_pages,
            n_tags,
            limits,
            advice,
        )
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
        self.auto = _auto.attach(self, autos, "kernel")
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
                kcompressd_depth(own) if new is own else max(kcompressd_depth(new), kcompressd_while_off(own))
            )
            fw.node[N.kc_depth] = max(int(depth), 0)
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
        a[A_MEMORY] = fw.node[N.total]
        a[A_CAPACITY] = fw.cap[cg]
        a[A_USED] = fw.used[cg]
        a[A_FREE] = _free_pages(fw)
        a[A_ZRAM_PAGES] = _zram_pages_of(fw, cg)
        a[A_SWAP_FREE] = fw.node[N.swap_total] - fw.node[N.swap_used] if fw.node[N.has_swap] else 0
        a[A_OP] = 0
        a[A_HIT] = 1
        a[A_READAHEAD] = 0
        a[A_REFAULT] = 0
        a[A_WAIT_NS] = 0

    def _arrays(self) -> tuple[Any, ...]:
        return (
            self.page, self.kind, self.op, self.tag, self.cgroup, self.cfg,
            self.states, self.framework, self.a, self.r, self.out,
        )  # fmt: skip

    @property
    def fadvise(self) -> dict[str, int]:
        """fadvise so far: ``calls`` made, pages DONTNEED ``dropped`` and ``written`` back."""
        fw = self.framework
        return {"calls": int(fw.node[N.adv_calls]), "dropped": int(fw.node[N.adv_dropped]),
                "written": int(fw.node[N.adv_written])}  # fmt: skip

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
            "time_ns": float(fw.f[F.now]),
            "resident_anon": float(fw.node[N.res_anon]),
            "resident_file": float(fw.node[N.res_file]),
            "free": float(_free_pages(fw)),
            "swap_used": float(fw.node[N.swap_used]),
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
            latency_ns=_latency_summary(fw.lat, float(fw.f[F.max_lat])),
            longest_fault_ns=float(fw.f[F.max_fault]),
            kswapd_ns=float(fw.f[F.kswapd_ns]),
            direct_reclaim_ns=float(fw.f[F.direct_ns]),
            node={
                "resident_anon": int(fw.node[N.res_anon]),
                "resident_file": int(fw.node[N.res_file]),
                "swap_used": int(fw.node[N.swap_used]),
                # zram's figures only where swap is zram: another device has no such store
                **(
                    {"zram_stored": int(fw.node[N.zram_stored]), "zram_pages": int(_zram_pages(fw))}
                    if self.config.swap == "zram"
                    else {}
                ),
                "oom_victim_tag": int(fw.node[N.last_oom_tag]),
                "total_ns": int(fw.f[F.total_ns]),
                "kcompressd_ns": int(fw.f[F.kc_ns]),
                "device_queue_ns": int(fw.f[F.queue_ns]),
                "device_queued": int(fw.f[F.queued]),
                **(
                    {"cpu_wait_ns": int(fw.f[F.runq_ns]), "kswapd_cpu_wait_ns": int(fw.f[F.kswapd_runq_ns])}
                    if self.config.cpus
                    else {}
                ),
            },
            tasks={
                "ops": fw.tag_ops.tolist(),
                "time_ns": fw.tag_ns.tolist(),
                "waits": fw.tag_majflt.tolist(),
                "longest_wait_ns": fw.tag_maxwait.tolist(),
                "longest_fault_ns": fw.tag_maxfault.tolist(),
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
    advice: FileAdvice | None = None,
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
    advice : FileAdvice, optional
        The tasks' ``posix_fadvise`` calls (:class:`KernelRun`).

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
        trace, policy, config, cgroup_limits=cgroup_limits, warmup=warmup, interpreted=interpreted,
        advice=advice,
    )  # fmt: skip
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
