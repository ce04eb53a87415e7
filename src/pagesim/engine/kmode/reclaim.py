"""Reclaim: an episode's batches at falling priority (:func:`_reclaim_step`), one batch's
evictions (:func:`_reclaim`), which cgroup node reclaim visits (:func:`_pick_cgroup`), who must
reclaim before an allocation (:func:`_room_needed`) and kswapd's wake-up (:func:`_wake_kswapd`).
"""

from __future__ import annotations

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.state import (
    A_CAPACITY,
    A_FREE,
    A_NOW_NS,
    A_PRIORITY,
    A_RECLAIMER,
    A_REQUEST,
    A_SCAN_WORDS,
    A_SCANNED,
    A_SWAP_FREE,
    A_USED,
    A_WANT_OOM,
    A_ZRAM_PAGES,
    ANON,
    REASON_FALLBACK,
    REASON_FREED,
    REASON_POLICY,
    RECLAIM_DIRECT,
    RECLAIM_KSWAPD,
    RECLAIM_LIMIT,
    WORK_CPU_NS,
    WORK_PTES,
    WORK_RMAP,
)
from pagesim.engine import counters as C
from pagesim.engine.candidates import collect_candidates
from pagesim.engine.kmode.eviction import _evict_page, _kremove, _pick_fallback
from pagesim.engine.kmode.framework import (
    MAX_FRUITLESS_BATCHES,
    MAX_RECLAIM_RETRIES,
    RA,
    SWAP_CLUSTER_MAX,
    F,
    N,
    _free_pages,
    _zram_pages_of,
)
from pagesim.engine.kmode.oom import _kill_rest, _oom_victim
from pagesim.engine.kmode.scheduler import _cpu_done, _heap_fix, _heap_push, _heap_remove
from pagesim.engine.kmode.swapout import _release_swap


@kernel_inline
def _reclaim(ss, fw, a, r, out, evict, removed, cg, request, prio, reclaimer, t):  # type: ignore[no-untyped-def]
    """One reclaim batch from cgroup ``cg``: ask its policy, validate, evict, fall back."""
    s = ss[0]
    a[A_REQUEST] = request
    a[A_PRIORITY] = prio
    a[A_RECLAIMER] = reclaimer
    a[A_USED] = fw.used[cg]
    a[A_CAPACITY] = fw.cap[cg]
    a[A_FREE] = _free_pages(fw)
    a[A_ZRAM_PAGES] = _zram_pages_of(fw, cg)
    a[A_SWAP_FREE] = fw.node[N.swap_total] - fw.node[N.swap_used] if fw.node[N.has_swap] else 0
    # A policy written for cache mode proposes one page per call: ask it once per page.
    one_by_one = fw.one_by_one[cg] != 0
    rounds = request if one_by_one else 1
    freed = 0
    policy_done = False
    for rnd in range(rounds + 1):
        fallback = rnd == rounds or policy_done
        if fallback:
            if freed * 100 > 80 * request or fw.no_fallback[cg] != 0:
                break
            out[C.FALLBACK_CALLS] += 1
            nv = _pick_fallback(s, fw, cg, request - freed)
            fw.f[F.cost] += nv * fw.f[F.scan_ns]
        else:
            a[A_REQUEST] = 1 if one_by_one else request
            a[A_SCANNED] = -1
            a[A_SCAN_WORDS] = 0
            out[C.EVICT_CALLS] += 1
            rmap0 = s.work[WORK_RMAP]
            ptes0 = s.work[WORK_PTES]
            cpu0 = s.work[WORK_CPU_NS]
            nv = collect_candidates(s, out, cg, evict(ss, cg, a), True, fw.victims)
            if a[A_SCANNED] < 0:
                fw.node[N.last_scanned] = -1
            elif fw.node[N.last_scanned] >= 0:
                fw.node[N.last_scanned] += a[A_SCANNED]
            # pages looked at, less the words of a policy's own array it prices itself
            scanned = max(a[A_SCANNED] - a[A_SCAN_WORDS], 0) if a[A_SCANNED] >= 0 else nv
            fw.f[F.cost] += (
                scanned * fw.f[F.scan_ns]
                + (s.work[WORK_RMAP] - rmap0) * fw.f[F.rmap_ns]
                + (s.work[WORK_PTES] - ptes0) * fw.f[F.pte_ns]
                + float(s.work[WORK_CPU_NS] - cpu0)
            )
            if reclaimer == RECLAIM_KSWAPD:
                out[C.PGSCAN_KSWAPD] += nv
            else:
                out[C.PGSCAN_DIRECT] += nv
        for i in range(nv):
            if freed >= request:
                if not fallback:
                    out[C.UNUSED_CANDIDATES] += 1
                continue
            reason = REASON_FALLBACK if fallback else REASON_POLICY
            if _evict_page(ss, fw, r, out, removed, fw.victims[i], reason, t) == 1:
                freed += 1
                if fallback:
                    out[C.FALLBACK_EVICTIONS] += 1
                else:
                    out[C.POLICY_EVICTIONS] += 1
        if fallback:
            break
        if freed >= request or nv == 0:
            policy_done = True
    if reclaimer == RECLAIM_KSWAPD:
        out[C.PGSTEAL_KSWAPD] += freed
    else:
        out[C.PGSTEAL_DIRECT] += freed
    return freed


@kernel
def _pick_cgroup(fw):  # type: ignore[no-untyped-def]
    """Node reclaim visits the cgroups in turn, skipping empty ones."""
    k = fw.used.shape[0]
    for _ in range(k):
        cg = fw.node[N.rr] % k
        fw.node[N.rr] += 1
        if fw.used[cg] > 0:
            return cg
    return 0


@kernel
def _wake_kswapd(fw, out, now):  # type: ignore[no-untyped-def]
    """Free below low wakes kswapd (``wakeup_kswapd``); it starts at DEF_PRIORITY."""
    if fw.node[N.kswapd_awake] != 0 or _free_pages(fw) >= fw.node[N.wlow]:
        return
    if fw.node[N.kswapd_failures] >= MAX_RECLAIM_RETRIES:
        return  # a hopeless node: direct reclaim has to make progress first
    out[C.KSWAPD_WAKE] += 1
    fw.node[N.kswapd_awake] = 1
    fw.node[N.kswapd_prio] = 12
    fw.node[N.kswapd_idle] = 0
    k = fw.clock.shape[0] - 1
    fw.clock[k] = max(fw.clock[k], now)
    _heap_push(fw, k)


@kernel
def _room_needed(fw, cg, k):  # type: ignore[no-untyped-def]
    """Who must reclaim before ``k`` pages can be charged to ``cg``: limit, direct, or -1."""
    if k <= 0:
        return -1
    if fw.used[cg] + k > fw.cap[cg]:
        return RECLAIM_LIMIT
    if _free_pages(fw) - k < fw.node[N.wmin]:
        return RECLAIM_DIRECT
    return -1


@kernel_inline
def _reclaim_step(ss, fw, a, r, out, evict, removed, actor, cg, reclaimer, t):  # type: ignore[no-untyped-def]
    """One reclaim batch by ``actor`` (a task in direct or limit reclaim, or kswapd).

    Lowers the actor's priority when a batch frees nothing; at priority 0, three fruitless
    batches make kswapd give up and a task call the OOM killer. Advances the actor's clock by
    the batch's cost and returns the number of pages the OOM killer skipped (killed tasks'
    remaining accesses).
    """
    s = ss[0]
    kswapd = actor == fw.clock.shape[0] - 1
    if kswapd:
        if _free_pages(fw) >= fw.node[N.whigh]:
            fw.node[N.kswapd_awake] = 0
            _heap_remove(fw, actor)
            return 0
        target = _pick_cgroup(fw)
        prio = fw.node[N.kswapd_prio]
    else:
        target = cg if reclaimer == RECLAIM_LIMIT else _pick_cgroup(fw)
        prio = fw.tag_prio[actor]
        if reclaimer == RECLAIM_DIRECT and fw.tag_stalled[actor] == 0:
            out[C.ALLOCSTALL] += 1
            fw.tag_stalled[actor] = 1
    a[A_NOW_NS] = int(fw.clock[actor])
    a[A_WANT_OOM] = 0
    fw.f[F.cost] = 0.0
    rk = RECLAIM_KSWAPD if kswapd else reclaimer
    fw.node[N.reclaimer] = rk
    fw.f[F.batch_t0] = fw.clock[actor]
    fw.node[N.last_scanned] = 0
    request = SWAP_CLUSTER_MAX
    if not kswapd:
        if fw.tag_reclaimer[actor] != reclaimer:
            fw.tag_reclaimer[actor] = reclaimer
            fw.tag_reclaimed[actor] = 0
        request = SWAP_CLUSTER_MAX - fw.tag_reclaimed[actor]
    freed = _reclaim(ss, fw, a, r, out, evict, removed, target, request, prio, rk, t)
    cost = max(fw.f[F.cost], fw.f[F.scan_ns])
    fw.clock[actor] += cost
    _cpu_done(fw, fw.clock[actor])  # the batch held its CPU (cpus > 0) for its cost
    if freed > 0:
        fw.node[N.kswapd_failures] = 0  # any progress makes the node worth kswapd's time again
    want_oom = a[A_WANT_OOM] != 0
    a[A_WANT_OOM] = 0
    if kswapd:
        fw.f[F.kswapd_ns] += cost
    else:
        fw.f[F.direct_ns] += cost
        fw.tag_stall[actor] += cost
    # A pass at this priority that did not yield a whole batch goes on at the next one
    # (do_try_to_free_pages, balance_pgdat); kswapd never scans at 0.
    floor = 1 if kswapd else 0
    idle = 0
    if not kswapd:
        fw.tag_reclaimed[actor] += freed
        if fw.tag_reclaimed[actor] >= SWAP_CLUSTER_MAX:
            fw.tag_reclaimer[actor] = -1  # the episode is over: the allocation is retried
        elif prio == 0 and freed < request:
            fw.tag_reclaimer[actor] = -1
            fw.tag_ra[actor, RA.noretry] = 1  # its readahead allocations fail now
    if freed < request and not want_oom and prio > floor:
        prio -= 1
    elif freed == 0 and not want_oom:
        idle = (fw.node[N.kswapd_idle] if kswapd else fw.tag_idle[actor]) + 1
    # Out of memory: three fruitless batches at the lowest priority, and -- for a policy that
    # reports its scans and looks at a bounded number of pages per call (MGLRU: 4096) -- having
    # looked at as many pages as its cgroup holds since the first of them, or finding nothing it
    # may even look at (the kernel's priority 0 pass covers every page, and the allocator retries
    # before it calls the OOM killer).
    oom = False
    if not kswapd:
        if idle == 0:
            fw.tag_idle_scanned[actor] = 0
        elif fw.node[N.last_scanned] < 0 or fw.tag_idle_scanned[actor] < 0:
            fw.tag_idle_scanned[actor] = -1
        else:
            fw.tag_idle_scanned[actor] += fw.node[N.last_scanned]
        seen = fw.tag_idle_scanned[actor]
        nothing_to_scan = fw.node[N.last_scanned] == 0  # no page it may reclaim is left to look at
        oom = idle > 2 and (
            seen < 0 or nothing_to_scan or seen >= fw.used[target] or idle > MAX_FRUITLESS_BATCHES
        )
    skipped = 0
    if kswapd:
        fw.node[N.kswapd_prio] = prio
        fw.node[N.kswapd_idle] = idle if freed == 0 else 0
        if idle > 2:  # "hopeless": direct reclaim and the OOM killer take over
            fw.node[N.kswapd_awake] = 0
            fw.node[N.kswapd_failures] += 1
            _heap_remove(fw, actor)
        elif _free_pages(fw) >= fw.node[N.whigh]:
            fw.node[N.kswapd_awake] = 0
            _heap_remove(fw, actor)
        else:
            _heap_fix(fw, actor)
    else:
        fw.tag_prio[actor] = prio
        fw.tag_idle[actor] = idle if freed == 0 else 0
        _heap_fix(fw, actor)
    if want_oom or oom:
        victim = _oom_victim(fw)
        if victim >= 0:
            for page in range(s.lst.shape[0]):
                if fw.owner_tag[page] != victim:
                    continue
                if s.resident[page] & ANON:
                    _kremove(ss, fw, r, out, removed, page, REASON_FREED, t, -1)
                if s.resident[page] == 0 and fw.swapped[page] != 0:
                    _release_swap(fw, page)
                fw.shadowed[page] = 0
            fw.tag_dead[victim] = 1
            fw.tag_anon[victim] = 0
            fw.node[N.last_oom_tag] = victim
            out[C.OOM_KILL] += 1
            skipped = _kill_rest(fw, out, victim)
        if not kswapd:
            fw.tag_idle[actor] = 0
            fw.tag_idle_scanned[actor] = 0
            fw.tag_prio[actor] = 12
            fw.tag_reclaimer[actor] = -1
    return skipped
