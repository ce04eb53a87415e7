"""The legacy LRU's hooks (init, added, accessed, evict, removed) as :class:`~.policy.LinuxLRU`
registers them; a refault (``workingset_refault``) is handled in ``added``.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.lists import list_add, list_create, list_move
from pagesim.core.pageflags import is_anon
from pagesim.core.state import (
    A_CGROUP,
    A_MODE,
    A_PAGE,
    A_PRIORITY,
    A_REASON,
    A_RECLAIMER,
    A_REFAULT,
    A_REQUEST,
    A_SCANNED,
    A_SWAP_FREE,
    LIST,
    MAX_CANDIDATES,
    MODE_CACHE,
    REASON_FREED,
    RECLAIM_KSWAPD,
    STAT_PGACTIVATE,
    STAT_WS_ACTIVATE_ANON,
    STAT_WS_ACTIVATE_FILE,
    STAT_WS_RESTORE_ANON,
    STAT_WS_RESTORE_FILE,
)
from pagesim.policies.linux_lru.balance import _can_age_anon, _inactive_is_low, _note_cost
from pagesim.policies.linux_lru.layout import (
    DEF_PRIORITY,
    GI,
    LRU_ACTIVE_ANON,
    LRU_ACTIVE_FILE,
    LRU_INACTIVE_ANON,
    LRU_INACTIVE_FILE,
    MAX_FLOOR_PASSES,
    PM,
    SHADOW_AGE_BITS,
    SHADOW_AGE_MASK,
    SHADOW_CG_MASK,
    SHADOW_WORKINGSET,
    SWAP_CLUSTER_MAX,
    _lid,
    _size,
)
from pagesim.policies.linux_lru.shrink import _shrink_active_list, _shrink_lruvec


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    cg = a[A_CGROUP]
    s.gi[GI.cg] = cg
    for lru in range(4):
        s.gi[GI.list + lru] = list_create(s, cg)
        if s.gi[GI.list + lru] < 0:
            return -1
    s.gi[GI.age] = 0
    s.gi[GI.anon_cost] = 0
    s.gi[GI.file_cost] = 0
    s.gi[GI.snap_anon] = 0
    s.gi[GI.snap_file] = 0
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    anon = is_anon(s, p)
    inactive = LRU_INACTIVE_ANON if anon else LRU_INACTIVE_FILE
    s.pm[p, PM.ref] = 0
    s.pm[p, PM.active] = 0
    s.pm[p, PM.workingset] = 0
    if a[A_REFAULT] != 0:  # workingset_refault (§1.8)
        shadow = s.shadow[p]
        if ((shadow >> SHADOW_AGE_BITS) & SHADOW_CG_MASK) == s.gi[GI.cg]:
            distance = s.gi[GI.age] - (shadow & SHADOW_AGE_MASK)
            workingset_size = _size(s, LRU_ACTIVE_FILE)
            if anon:
                workingset_size += _size(s, LRU_INACTIVE_FILE)
            if a[A_SWAP_FREE] > 0:
                workingset_size += _size(s, LRU_ACTIVE_ANON)
                if not anon:
                    workingset_size += _size(s, LRU_INACTIVE_ANON)
            if distance <= workingset_size:
                s.pm[p, PM.active] = 1
                s.gi[GI.age] += 1
                s.stat[STAT_WS_ACTIVATE_ANON if anon else STAT_WS_ACTIVATE_FILE] += 1
                if shadow & SHADOW_WORKINGSET:
                    s.pm[p, PM.workingset] = 1
                    _note_cost(s, not anon, 1, 0)  # lru_note_cost_refault
                    s.stat[STAT_WS_RESTORE_ANON if anon else STAT_WS_RESTORE_FILE] += 1
    list_add(s, _lid(s, inactive + s.pm[p, PM.active]), p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if s.lst[p, LIST] < 0:
        return 0
    if s.pm[p, PM.active] == 0 and s.pm[p, PM.ref] != 0:  # folio_activate + workingset_activation
        s.pm[p, PM.ref] = 0
        s.pm[p, PM.active] = 1
        list_move(s, _lid(s, (LRU_INACTIVE_ANON if is_anon(s, p) else LRU_INACTIVE_FILE) + 1), p, False)
        s.stat[STAT_PGACTIVATE] += 1
        s.gi[GI.age] += 1
    elif s.pm[p, PM.ref] == 0:
        s.pm[p, PM.ref] = 1
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    request = min(a[A_REQUEST], MAX_CANDIDATES)
    for lru in range(4):
        s.gi[GI.skip + lru] = 0
    s.gi[GI.slots] = a[A_SWAP_FREE]
    prio = DEF_PRIORITY if a[A_MODE] == MODE_CACHE else a[A_PRIORITY]
    kswapd = a[A_RECLAIMER] == RECLAIM_KSWAPD and a[A_MODE] != MODE_CACHE
    # cache mode has no engine priority: descend within the call, as priority_loop does
    loop = s.gi[GI.prio_loop] != 0 or a[A_MODE] == MODE_CACHE
    floor = 1 if kswapd and prio >= 1 else 0
    count = 0
    force = False
    extra = 0
    work = 0
    while True:
        s.gi[GI.work] = 0
        if kswapd and _can_age_anon(a) and _inactive_is_low(s, LRU_INACTIVE_ANON):
            _shrink_active_list(s, LRU_ACTIVE_ANON, SWAP_CLUSTER_MAX)  # kswapd_age_node
        work += s.gi[GI.work]
        s.gi[GI.work] = 0
        count, skipped = _shrink_lruvec(s, a, prio, force, count, request)
        work += s.gi[GI.work]
        if count >= request or not loop:
            break
        if prio > floor:
            prio -= 1
            continue
        # At the lowest priority the kernel's callers try again (the allocator's retries,
        # kswapd's next balance_pgdat run); a pass that rotated pages can reclaim on the next.
        extra += 1
        if extra > MAX_FLOOR_PASSES:
            break
        if skipped and not force:
            force = True  # do_try_to_free_pages: skipped_deactivate -> force_deactivate
        elif s.gi[GI.work] == 0:
            break
    a[A_SCANNED] = work  # the pages looked at, for the engine's time model
    s.gi[GI.snap_anon] = s.stat[STAT_WS_ACTIVATE_ANON]  # snapshot_refaults
    s.gi[GI.snap_file] = s.stat[STAT_WS_ACTIVATE_FILE]
    return count


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    if r[A_REASON] != REASON_FREED:  # workingset_eviction
        shadow = (s.gi[GI.age] & SHADOW_AGE_MASK) | ((s.gi[GI.cg] & SHADOW_CG_MASK) << SHADOW_AGE_BITS)
        if s.pm[p, PM.workingset] != 0:
            shadow |= SHADOW_WORKINGSET
        s.shadow[p] = shadow
        s.gi[GI.age] += 1
    s.pm[p, PM.ref] = 0
    s.pm[p, PM.active] = 0
    s.pm[p, PM.workingset] = 0
    return 0
