"""MGLRU's hooks (init, added, accessed, evict, removed) as :class:`~.policy.MGLRU` registers them,
with the refault path (``lru_gen_refault``) and kswapd's starting priority
(``set_initial_priority``, ``lruvec_is_reclaimable``).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.state import (
    A_CGROUP,
    A_NOW_NS,
    A_PAGE,
    A_PRIORITY,
    A_REASON,
    A_RECLAIMER,
    A_REFAULT,
    A_REQUEST,
    A_SCANNED,
    A_TAG,
    A_WANT_OOM,
    A_WMARK_HIGH,
    ANON,
    MAX_CANDIDATES,
    REASON_FREED,
    RECLAIM_KSWAPD,
    STAT_WS_ACTIVATE_ANON,
    STAT_WS_RESTORE_ANON,
    SWAPCACHE,
)
from pagesim.policies.mglru.evict import _effective_swappiness, _isolate, _putback
from pagesim.policies.mglru.gens import _inc_max_seq, _should_age, _try_inc_min_seq
from pagesim.policies.mglru.layout import (
    ANON_T,
    DEF_PRIORITY,
    FILE_T,
    GI,
    GI_END,
    MAX_NR_GENS,
    MAX_NR_TIERS,
    MIN_LRU_BATCH,
    MIN_NR_GENS,
    NS_PER_MS,
    PM,
)
from pagesim.policies.mglru.lists import _link, _size, _unlink
from pagesim.policies.mglru.tiers import _clear_refs, _ob2, _refs, _tier
from pagesim.policies.mglru.walk import _map_anon, _walk


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.max_seq] = MIN_NR_GENS + 1  # lru_gen_init_lruvec: four gens, seq 0..3
    s.gi[GI.min_seq + ANON_T] = 0
    s.gi[GI.min_seq + FILE_T] = 0
    s.gi[GI.cgroup] = a[A_CGROUP]
    for i in range(8):
        s.gi[GI.head + i] = -1
        s.gi[GI.tail + i] = -1
        s.gi[GI.size + i] = 0
    for i in range(GI.refaulted, GI_END):
        s.gi[i] = 0
    for i in range(MAX_NR_GENS):  # lru_gen_init_lruvec: every birth time is now
        s.gi[GI.ts + i] = a[A_NOW_NS]
    s.gi[GI.mm_head] = -1
    s.gi[GI.mm_tail] = -1
    return 0


@kernel
def _refault(s, p, typ, in_fault):  # type: ignore[no-untyped-def]
    """lru_gen_refault: feed the controller; re-promote recent workingset pages."""
    token = s.shadow[p]
    seq = token >> 3
    low = (token >> 1) & 3
    wsbit = token & 1
    if s.gi[GI.ver] == 0:
        if seq != s.gi[GI.min_seq + typ]:
            return
        refs = low + wsbit
        tier = _ob2(refs + 1)
        s.gi[GI.refaulted + typ * MAX_NR_TIERS + tier] += 1
        s.stat[STAT_WS_ACTIVATE_ANON + typ] += 1
        if in_fault or refs >= 3:
            s.pm[p, PM.lrefs] = 3
            s.pm[p, PM.ws] = 1
            s.stat[STAT_WS_RESTORE_ANON + typ] += 1
        return
    if abs(s.gi[GI.max_seq] - seq) >= MAX_NR_GENS:
        return
    refs = low + 1
    tier = MAX_NR_TIERS - 1 if wsbit else _ob2(refs)
    s.gi[GI.refaulted + typ * MAX_NR_TIERS + tier] += 1
    if in_fault:
        s.stat[STAT_WS_ACTIVATE_ANON + typ] += 1
    if wsbit:
        s.pm[p, PM.ws] = 1
        s.stat[STAT_WS_RESTORE_ANON + typ] += 1
    else:
        s.pm[p, PM.lrefs] = refs - 1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    v = s.resident[p]
    typ = ANON_T if v & ANON else FILE_T
    in_fault = typ == ANON_T  # anon pages come in by faults; file pages by read()
    s.pm[p, PM.refd] = 0
    s.pm[p, PM.ws] = 0
    s.pm[p, PM.lrefs] = 0
    if a[A_REFAULT] != 0:
        _refault(s, p, typ, in_fault)
    if typ == ANON_T and s.pm[p, PM.reg] == 0:
        _map_anon(s, p, a[A_TAG])
    max_seq = s.gi[GI.max_seq]
    min_seq = s.gi[GI.min_seq + typ]
    if s.gi[GI.ver] == 0:
        if in_fault:  # folio_add_lru: PG_active in a fault
            seq = max_seq
        elif typ == ANON_T and (v & SWAPCACHE) == 0:
            seq = max_seq - 1
        elif min_seq + MIN_NR_GENS >= max_seq:
            seq = min_seq
        else:
            seq = min_seq + 1
    else:
        active = False
        if in_fault:
            if s.pm[p, PM.ws]:
                active = True
            elif s.pm[p, PM.refd] == 0:
                s.pm[p, PM.refd] = 1
                s.pm[p, PM.lrefs] = 0
        if active:
            gen = MIN_NR_GENS - s.pm[p, PM.ws]
        elif typ == ANON_T and (v & SWAPCACHE) == 0:
            gen = MIN_NR_GENS
        else:
            gen = MAX_NR_GENS - s.pm[p, PM.ws]
        seq = max(max_seq - gen + 1, min_seq)
    _link(s, p, seq, typ, False)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    """folio_mark_accessed under MGLRU: one more reference, no list move."""
    p = a[A_PAGE]
    if s.gi[GI.ver] == 0:
        if s.pm[p, PM.refd] == 0:
            s.pm[p, PM.refd] = 1
        elif s.pm[p, PM.ws] == 0:
            s.pm[p, PM.ws] = 1
        elif s.pm[p, PM.lrefs] < 3:
            s.pm[p, PM.lrefs] += 1
    elif s.pm[p, PM.refd] == 0:
        s.pm[p, PM.refd] = 1
        s.pm[p, PM.lrefs] = 0
    elif s.pm[p, PM.lrefs] == 3:
        s.pm[p, PM.ws] = 1
    else:
        s.pm[p, PM.lrefs] += 1
    return 0


@kernel
def _fls(x):  # type: ignore[no-untyped-def]
    """fls_long: the position of the highest set bit, 1-based; 0 for 0."""
    n = 0
    while x > 0:
        x >>= 1
        n += 1
    return n


@kernel
def _initial_priority(s, a, swp):  # type: ignore[no-untyped-def]
    """set_initial_priority for kswapd (lru_gen_age_node / lru_gen_shrink_node).

    At DEF_PRIORITY with nr_to_reclaim (kswapd: the high watermark, at least SWAP_CLUSTER_MAX)
    of at least MIN_LRU_BATCH: priority = fls(reclaimable) - 1 - fls(nr_to_reclaim - 1), clamped
    to [6, 12], with reclaimable the inactive pages (gens older than max_seq - 1) of the
    evictable types. Lower engine priorities (failed batches) count down from there.
    """
    prio = a[A_PRIORITY]
    if a[A_RECLAIMER] != RECLAIM_KSWAPD:
        return prio
    nr = max(a[A_WMARK_HIGH], 32)
    if nr < MIN_LRU_BATCH:
        return prio
    max_seq = s.gi[GI.max_seq]
    reclaimable = 0
    first = FILE_T if swp == 0 else ANON_T
    for typ in range(first, 2):
        for seq in range(s.gi[GI.min_seq + typ], max_seq - 1):
            reclaimable += _size(s, seq, typ)
    init = _fls(reclaimable) - 1 - _fls(nr - 1)
    init = min(max(init, DEF_PRIORITY // 2), DEF_PRIORITY)
    return max(prio - (DEF_PRIORITY - init), 0)


@kernel
def _reclaimable(s, a, swp, prio):  # type: ignore[no-untyped-def]
    """lruvec_is_reclaimable (min_ttl_ms set): sizable, and its oldest gen born over min_ttl ago.

    Sizable: the evictable types' pages >> priority is not 0. The birth time is that of
    min_seq[file] (6.12's reading of the comment on lru_gen_folio; kept for 6.14).
    """
    total = 0
    first = FILE_T if swp == 0 else ANON_T
    for typ in range(first, 2):
        for seq in range(s.gi[GI.min_seq + typ], s.gi[GI.max_seq] + 1):
            total += _size(s, seq, typ)
    if (total >> prio) == 0:
        return False
    birth = s.gi[GI.ts + s.gi[GI.min_seq + FILE_T] % MAX_NR_GENS]
    return birth + s.gi[GI.min_ttl] * NS_PER_MS < a[A_NOW_NS]


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    n = min(a[A_REQUEST], MAX_CANDIDATES)
    swp = _effective_swappiness(s, a)
    _putback(s)
    _try_inc_min_seq(s, swp)
    prio = _initial_priority(s, a, swp)
    if s.gi[GI.min_ttl] > 0 and a[A_RECLAIMER] == RECLAIM_KSWAPD and not _reclaimable(s, a, swp, prio):
        a[A_WANT_OOM] = 1  # lru_gen_age_node: no lruvec is reclaimable -> out_of_memory
        return 0
    got = 0
    s.gi[GI.looked] = 0
    for _ in range(MAX_NR_GENS * 2):
        if got >= n:
            break
        age, empty = _should_age(s, swp, prio)
        if age and (empty or prio < DEF_PRIORITY):
            _walk(s, swp)
            _inc_max_seq(s, swp, a[A_NOW_NS])
        scanned, got = _isolate(s, swp, prio, n, got)
        if not _try_inc_min_seq(s, swp) and scanned == 0 and not age:
            break
    a[A_SCANNED] = s.gi[GI.looked]
    return got


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    if s.pm[p, PM.iso] != 0:
        s.pm[p, PM.iso] = 0
    elif s.pm[p, PM.gen] != 0:
        _unlink(s, p)
    else:
        return 0
    typ = s.pm[p, PM.typ]
    if r[A_REASON] != REASON_FREED:
        if s.gi[GI.ver] == 0:
            # isolate_folio clears the refs flags of a page without PG_referenced
            refs = _refs(s, p) if s.pm[p, PM.refd] else 0
            wsbit = 1 if refs != 0 else 0
        else:
            refs = _refs(s, p)
            wsbit = s.pm[p, PM.ws]
        tier = _tier(s, refs, s.pm[p, PM.ws] if s.gi[GI.ver] == 1 else 0)
        low = refs - 1 if refs > 0 else 0
        if low > 3:
            low = 3
        s.shadow[p] = (s.gi[GI.min_seq + typ] << 3) | (low << 1) | wsbit
        s.gi[GI.evicted + typ * MAX_NR_TIERS + tier] += 1
    _clear_refs(s, p, False)
    return 0
