"""Linux's legacy two-list LRU (active/inactive, per lruvec): protects pages seen used twice and the
working set that refaults within its own size; evicts from the inactive tails.

Source      Linux 6.x mm/vmscan.c (``get_scan_count``, ``shrink_lruvec``, ``shrink_active_list``,
            ``shrink_inactive_list``, ``folio_check_references``, ``inactive_is_low``,
            ``lru_note_cost``), mm/swap.c (``folio_mark_accessed``), mm/workingset.c
            (``workingset_eviction``, ``workingset_refault``, ``workingset_test_recent``), as
            paraphrased in shared/reference/kernel_policies_spec.md §1 (rules) and §4 (events).
Structures  One lruvec per cgroup (one instance of the class per cgroup): four framework lists
            ``inactive_anon``, ``active_anon``, ``inactive_file``, ``active_file`` (kernel
            ``enum lru_list`` order, :data:`LRU_INACTIVE_ANON` ...), newest at the head, reclaim
            from the tail. Per page in ``s.pm``: PG_referenced (:data:`REF`), PG_active
            (:data:`ACTIVE`), PG_workingset (:data:`WORKINGSET`). The PTE young bit is the
            framework's (``s.resident & YOUNG``, :func:`~pagesim.core.pageflags.test_and_clear_young`).
            Globals: ``lruvec->nonresident_age`` (:data:`G_AGE`), ``anon_cost``/``file_cost``,
            the ``refaults[]`` snapshot of WORKINGSET_ACTIVATE. A shadow entry (``s.shadow``) packs
            the age at eviction (bits 0-47), the evicting cgroup (48-61) and PG_workingset (62).
Rules       added (§1.2, §1.8): a page goes to the head of its type's inactive list, except a
            refault whose distance ``age_now - age_at_eviction`` is at most the workingset size
            (active_file, + inactive_file for anon, + active_anon (+ inactive_anon for file) if
            swap has free slots): it is added active (``workingset_activate_*``, age += 1), and
            if its shadow carried PG_workingset it gets PG_workingset, ``workingset_restore_*``
            and a refault cost of 32 on its type.
            accessed (§1.3, ``folio_mark_accessed``, file read()/write() hits): inactive
            unreferenced -> referenced; inactive referenced -> active head, unreferenced
            (``pgactivate``, age += 1); active unreferenced -> referenced.
            evict = one reclaim batch (§1.7): ``get_scan_count`` at priority p gives each list
            ``size >> p`` scaled by the decision tree (no free swap or limit reclaim with
            swappiness 0 -> file only; p = 0 and swappiness > 0 -> both by size; file tiny ->
            anon; cache-trim mode -> file; else fractions ap = sw*(T+1)/(a+1),
            fp = (200-sw)*(T+1)/(f+1) from the decayed costs). ``shrink_lruvec`` takes up to 32
            at a time from inactive anon, active anon, inactive file, active file in turn.
            Active lists (§1.5) are scanned only if ``may_deactivate`` has the type (refault
            activations since the last reclaim, or ``inactive_is_low``): every page has its young
            bit cleared, loses PG_active, gains PG_workingset and goes to the inactive head
            (``pgrefill``, ``pgdeactivate``). Inactive tails (§1.4): young (mapped) -> set
            PG_referenced, ACTIVATE if PG_referenced was already set else KEEP (rotate to the
            head); not young -> RECLAIM (a candidate in ``s.cand``); an anon page that would need
            a swap slot when none is left -> ACTIVATE. ACTIVATE: active head, ``pgactivate``,
            age += 1. ``lru_note_cost(io * 32 + rotated)`` after each inactive chunk, both costs
            halved when their sum exceeds a quarter of the lruvec. At the end of each pass (and,
            for kswapd, before it: background aging) 32 active anon are deactivated if swap
            exists and ``inactive_is_low(anon)`` (``isqrt(10 * GB)``, 1 below 1 GB).
            removed: an eviction stores the shadow entry and advances the age; a free does not.
Parameters  swappiness_override = -1: ``vm.swappiness`` (0-200) for this lruvec; -1 reads the
            node's (``KernelConfig.swappiness``, ``s.gi[GI_SWAPPINESS]``, default 60).
            priority_loop = False: one pass at ``a[A_PRIORITY]`` per call; the engine lowers the
            priority for the next batch when a pass yields fewer than 32 pages
            (``do_try_to_free_pages``' loop from 12 to 0, kswapd's down to 1), and the other
            tasks run between two batches. True: the pass goes on at the next priorities within
            the same call (the model before the engine scheduled reclaim in time; kept to
            compare).
Complexity  O(1) per access, add and removal; a batch visits at most the pages the priority
            allows (``size >> p`` per list, scaled to the batch), O(n) only at priority 0.
            Three int64 per page, one int64 shadow entry per evicted page.
Deviations  1. Per-CPU LRU batches (``lru_add``, ``lru_activate``...) are applied at once.
            2. One node and one zone; no unevictable list (no mlock); no exec file pages, so no
            active page is ever kept by ``shrink_active_list`` (``nr_rotated`` there is 0).
            3. File pages are never mapped in kernel mode yet, so their young bit is never set
            and ``referenced_ptes > 1`` never happens; anon pages have one mapping.
            4. A batch ends at ``a[A_REQUEST]`` candidates (32, the framework evicts them):
            the kernel keeps scanning to the end of its targets (direct reclaim at
            DEF_PRIORITY) or scales the other type's remainder and reclaims more. So that a
            32-page batch still takes both types in proportion to their targets (the kernel
            takes 32 from each list in turn, which only evens out over a whole pass), the list
            with the largest target is taken 32 at a time and the others in chunks scaled to
            their targets. When a pass ends short, the engine's next batch runs at the next
            priority (Parameters: priority_loop). Each call reports the pages it looked at in
            ``a[A_SCANNED]`` (inactive pages scanned plus active pages deactivated).
            5. Dirty file pages are proposed and written back by the framework (no flusher
            yet) instead of being parked active with PG_reclaim; their write counts as I/O in
            ``lru_note_cost``. Lazyfree anon, writeback states and "activate frees the swap
            slot when swap is > 50 % full" are not modelled.
            6. Per-cgroup lruvecs only: global reclaim reads this cgroup's lists where the
            kernel reads the root (node) lruvec for ``may_deactivate``, ``file_is_tiny`` and the
            costs; a refault into another cgroup than the one that evicted the page is not
            tested against the evicting lruvec (it is added inactive). memcg protection
            (memory.min/low) and the ancestors' cost propagation are not modelled.
            7. ``refaults[]`` is snapshot at the end of every batch (the kernel: at the end of a
            reclaim run; no access happens in between, so the same value). The swap-free test of
            the workingset size reads ``a[A_SWAP_FREE]``, which the engine refreshes only when
            it calls ``evict`` (value of the last reclaim batch).
            8. In cache mode (no priority, no swap) it runs as a file-only two-list LRU with
            priority starting at 12 and descending within the call (as ``priority_loop``).
Peers       none yet (a trace-driven comparison with a real kernel's /proc/vmstat is future work).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.lists import list_add, list_create, list_move, list_pages
from pagesim.core.pageflags import in_swapcache, is_anon, is_dirty, test_and_clear_young
from pagesim.core.state import (
    A_CGROUP,
    A_FREE,
    A_MODE,
    A_PAGE,
    A_PRIORITY,
    A_REASON,
    A_RECLAIMER,
    A_REFAULT,
    A_REQUEST,
    A_SCANNED,
    A_SWAP_FREE,
    A_WMARK_HIGH,
    GI_SWAPPINESS,
    GI_USER,
    HEAD,
    LEN,
    LIST,
    MAX_CANDIDATES,
    MODE_CACHE,
    PREV,
    REASON_FREED,
    RECLAIM_KSWAPD,
    RECLAIM_LIMIT,
    STAT_PGACTIVATE,
    STAT_PGDEACTIVATE,
    STAT_PGREFILL,
    STAT_PGSCAN_ANON,
    STAT_PGSCAN_FILE,
    STAT_WS_ACTIVATE_ANON,
    STAT_WS_ACTIVATE_FILE,
    STAT_WS_RESTORE_ANON,
    STAT_WS_RESTORE_FILE,
    TAIL,
)
from pagesim.policies.base import Policy

# ---- lists (kernel enum lru_list order) -------------------------------------------------------
LRU_INACTIVE_ANON = 0
LRU_ACTIVE_ANON = 1
LRU_INACTIVE_FILE = 2
LRU_ACTIVE_FILE = 3
LRU_NAMES = ("inactive_anon", "active_anon", "inactive_file", "active_file")

# ---- pm columns ---------------------------------------------------------------------------------
REF = 0  #: PG_referenced
ACTIVE = 1  #: PG_active
WORKINGSET = 2  #: PG_workingset

# ---- gi slots -----------------------------------------------------------------------------------
G_LIST = GI_USER  #: 4 slots: list id of each LRU_* list
G_CG = GI_USER + 4  #: the cgroup owning this lruvec
G_AGE = GI_USER + 5  #: lruvec->nonresident_age
G_ANON_COST = GI_USER + 6
G_FILE_COST = GI_USER + 7
G_SNAP_ANON = GI_USER + 8  #: refaults[WORKINGSET_ANON]: WORKINGSET_ACTIVATE_ANON at the last reclaim
G_SNAP_FILE = GI_USER + 9
G_SWAPPINESS = GI_USER + 10  #: parameter swappiness_override (-1: node's vm.swappiness)
G_PRIO_LOOP = GI_USER + 11  #: parameter priority_loop
G_NR = GI_USER + 12  #: 4 slots: scan targets of the current pass
G_SKIP = GI_USER + 16  #: 4 slots: candidates of this batch left at the tail of each list
G_CHUNK = GI_USER + 20  #: 4 slots: chunk size of each list in the current pass
G_SLOTS = GI_USER + 24  #: swap slots still free for this batch's anon candidates
G_MAY_DEACT = GI_USER + 25  #: may_deactivate bits of the current pass (1 anon, 2 file)
G_WORK = GI_USER + 26  #: pages the current pass scanned or deactivated
N_GLOBALS = 27

# ---- constants ----------------------------------------------------------------------------------
SWAP_CLUSTER_MAX = 32
DEF_PRIORITY = 12
MAX_SWAPPINESS = 200
PAGES_PER_GB_SHIFT = 18  #: 30 - PAGE_SHIFT (4 KiB pages)
DEACTIVATE_ANON = 1
DEACTIVATE_FILE = 2
SCAN_EQUAL = 0
SCAN_FRACT = 1
SCAN_ANON = 2
SCAN_FILE = 3
MAX_FLOOR_PASSES = 64  #: passes at the lowest priority within one batch before giving up

# ---- shadow entries -----------------------------------------------------------------------------
SHADOW_AGE_BITS = 48
SHADOW_AGE_MASK = (1 << SHADOW_AGE_BITS) - 1
SHADOW_CG_MASK = (1 << 14) - 1
SHADOW_WORKINGSET = 1 << 62


# ------------------------------------------------------------------------------------ helpers


@kernel
def _lid(s, lru):  # type: ignore[no-untyped-def]
    return s.gi[G_LIST + lru]


@kernel
def _size(s, lru):  # type: ignore[no-untyped-def]
    return s.lhd[s.gi[G_LIST + lru], LEN]


@kernel
def _isqrt(n):  # type: ignore[no-untyped-def]
    """Integer square root of ``n >= 0`` (the kernel's ``int_sqrt``)."""
    if n <= 0:
        return 0
    r = int(np.sqrt(float(n)))
    while r * r > n:
        r -= 1
    while (r + 1) * (r + 1) <= n:
        r += 1
    return r


@kernel
def inactive_is_low_counts(inactive, active):  # type: ignore[no-untyped-def]
    """``inactive_is_low`` (§1.6) for list sizes in 4 KiB pages: ``inactive * ratio < active``.

    ``ratio = isqrt(10 * GB)`` with GB the integer gigabytes of both lists, 1 below 1 GB.
    """
    gb = (inactive + active) >> PAGES_PER_GB_SHIFT
    ratio = _isqrt(10 * gb) if gb > 0 else 1
    return inactive * ratio < active


@kernel
def _inactive_is_low(s, inactive_lru):  # type: ignore[no-untyped-def]
    return inactive_is_low_counts(_size(s, inactive_lru), _size(s, inactive_lru + 1))


@kernel
def scan_fractions(swappiness, anon_cost, file_cost):  # type: ignore[no-untyped-def]
    """``(ap, fp)``: SCAN_FRACT's anon and file weights (§1.7, integer arithmetic as the kernel)."""
    total = anon_cost + file_cost
    a = total + anon_cost
    f = total + file_cost
    t = a + f
    ap = swappiness * (t + 1) // (a + 1)
    fp = (MAX_SWAPPINESS - swappiness) * (t + 1) // (f + 1)
    return ap, fp


@kernel
def _note_cost(s, file, nr_io, nr_rotated):  # type: ignore[no-untyped-def]
    """``lru_note_cost``: charge ``nr_io * 32 + nr_rotated``; halve both when above lru/4."""
    cost = nr_io * SWAP_CLUSTER_MAX + nr_rotated
    if file:
        s.gi[G_FILE_COST] += cost
    else:
        s.gi[G_ANON_COST] += cost
    lru_pages = 0
    for lru in range(4):
        lru_pages += _size(s, lru)
    if s.gi[G_FILE_COST] + s.gi[G_ANON_COST] > lru_pages // 4:
        s.gi[G_FILE_COST] //= 2
        s.gi[G_ANON_COST] //= 2


@kernel
def _swappiness(s):  # type: ignore[no-untyped-def]
    if s.gi[G_SWAPPINESS] >= 0:
        return s.gi[G_SWAPPINESS]
    return s.gi[GI_SWAPPINESS]


@kernel
def _can_age_anon(a):  # type: ignore[no-untyped-def]
    return a[A_SWAP_FREE] > 0


# ------------------------------------------------------------------------------------ scan balance


@kernel
def _get_scan_count(s, a, prio, force):  # type: ignore[no-untyped-def]
    """``prepare_scan_control`` + ``get_scan_count``: targets into ``gi[G_NR:]``; the balance."""
    ia = _size(s, LRU_INACTIVE_ANON)
    inf = _size(s, LRU_INACTIVE_FILE)
    af = _size(s, LRU_ACTIVE_FILE)
    swp = _swappiness(s)
    may = 0
    if force or s.stat[STAT_WS_ACTIVATE_ANON] != s.gi[G_SNAP_ANON] or _inactive_is_low(s, LRU_INACTIVE_ANON):
        may |= DEACTIVATE_ANON
    if force or s.stat[STAT_WS_ACTIVATE_FILE] != s.gi[G_SNAP_FILE] or _inactive_is_low(s, LRU_INACTIVE_FILE):
        may |= DEACTIVATE_FILE
    s.gi[G_MAY_DEACT] = may
    cache_trim = (inf >> prio) > 0 and (may & DEACTIVATE_FILE) == 0
    file_is_tiny = False
    if a[A_RECLAIMER] != RECLAIM_LIMIT:
        file_is_tiny = (
            inf + af + a[A_FREE] <= a[A_WMARK_HIGH] and (may & DEACTIVATE_ANON) == 0 and (ia >> prio) > 0
        )
    ap = 0
    fp = 0
    if a[A_SWAP_FREE] <= 0:
        balance = SCAN_FILE
    elif a[A_RECLAIMER] == RECLAIM_LIMIT and swp == 0:
        balance = SCAN_FILE
    elif prio == 0 and swp != 0:
        balance = SCAN_EQUAL
    elif file_is_tiny:
        balance = SCAN_ANON
    elif cache_trim:
        balance = SCAN_FILE
    else:
        balance = SCAN_FRACT
        ap, fp = scan_fractions(swp, s.gi[G_ANON_COST], s.gi[G_FILE_COST])
    denominator = ap + fp
    for lru in range(4):
        file = lru >= LRU_INACTIVE_FILE
        scan = _size(s, lru) >> prio
        if balance == SCAN_FRACT:
            scan = scan * (fp if file else ap) // denominator if denominator > 0 else 0
        elif balance == SCAN_FILE and not file:
            scan = 0
        elif balance == SCAN_ANON and file:
            scan = 0
        s.gi[G_NR + lru] = scan
    return balance


# ------------------------------------------------------------------------------------ list shrinking


@kernel
def _shrink_active_list(s, lru, nr_to_scan):  # type: ignore[no-untyped-def]
    """Deactivate up to ``nr_to_scan`` pages from the tail of active list ``lru`` (§1.5)."""
    lid = _lid(s, lru)
    inactive = _lid(s, lru - 1)
    n = min(nr_to_scan, s.lhd[lid, LEN])
    page = s.lhd[lid, TAIL]
    for _ in range(n):
        prev = s.lst[page, PREV]
        # folio_referenced: clears the young bits; only an exec file page would stay active.
        test_and_clear_young(s, page)
        s.stat[STAT_PGREFILL] += 1
        s.pm[page, ACTIVE] = 0
        s.pm[page, WORKINGSET] = 1
        list_move(s, inactive, page, False)
        s.stat[STAT_PGDEACTIVATE] += 1
        page = prev
    s.gi[G_WORK] += n
    return n


@kernel
def _activate(s, page, active_lru):  # type: ignore[no-untyped-def]
    s.pm[page, ACTIVE] = 1
    list_move(s, _lid(s, active_lru), page, False)
    s.stat[STAT_PGACTIVATE] += 1
    s.gi[G_AGE] += 1  # put back on an active list by reclaim (§1.8 (iv))


@kernel
def _shrink_inactive_list(s, lru, nr_to_scan, count, request):  # type: ignore[no-untyped-def]
    """Scan up to ``nr_to_scan`` pages from the tail of inactive list ``lru`` (§1.4).

    Candidates stay where they are, at the tail (they leave on eviction); the pages already
    proposed in this batch (``gi[G_SKIP + lru]``) are stepped over. Returns the new count.
    """
    lid = _lid(s, lru)
    file = lru >= LRU_INACTIVE_FILE
    page = s.lhd[lid, TAIL]
    for _ in range(s.gi[G_SKIP + lru]):
        page = s.lst[page, PREV]
    limit = min(nr_to_scan, s.lhd[lid, LEN] - s.gi[G_SKIP + lru])
    scanned = 0
    reclaimed = 0
    nr_io = 0
    while page >= 0 and scanned < limit and count < request:
        prev = s.lst[page, PREV]
        scanned += 1
        young = test_and_clear_young(s, page)
        referenced = s.pm[page, REF] != 0
        s.pm[page, REF] = 0
        if young:
            s.pm[page, REF] = 1
            if referenced:
                _activate(s, page, lru + 1)
            else:
                list_move(s, lid, page, False)  # KEEP: rotate to the inactive head
        else:
            io = 0
            if is_anon(s, page):
                if not in_swapcache(s, page) or is_dirty(s, page):
                    if s.gi[G_SLOTS] <= 0:  # add_to_swap fails: activate
                        _activate(s, page, lru + 1)
                        page = prev
                        continue
                    s.gi[G_SLOTS] -= 1
                    io = 1
            elif is_dirty(s, page):
                io = 1
            nr_io += io
            s.cand[count] = page
            count += 1
            reclaimed += 1
            s.gi[G_SKIP + lru] += 1
        page = prev
    if file:
        s.stat[STAT_PGSCAN_FILE] += scanned
    else:
        s.stat[STAT_PGSCAN_ANON] += scanned
    if scanned > 0:
        _note_cost(s, file, nr_io, scanned - reclaimed)
    s.gi[G_WORK] += scanned
    return count


@kernel
def _shrink_lruvec(s, a, prio, force, count, request):  # type: ignore[no-untyped-def]
    """One ``shrink_lruvec`` pass at ``prio``; returns (count, skipped_deactivate).

    Lists are taken in the kernel's order, a chunk at a time; the list with the largest target
    gets chunks of 32 and the others chunks in proportion to their targets (Deviation 4).
    """
    _get_scan_count(s, a, prio, force)
    may = s.gi[G_MAY_DEACT]
    nmax = 0
    for lru in range(4):
        nmax = max(nmax, s.gi[G_NR + lru])
    for lru in range(4):
        nr = s.gi[G_NR + lru]
        s.gi[G_CHUNK + lru] = max(1, (nr * SWAP_CLUSTER_MAX + nmax - 1) // nmax) if nr > 0 else 0
    skipped = False
    while count < request and (
        s.gi[G_NR + LRU_INACTIVE_ANON] > 0
        or s.gi[G_NR + LRU_ACTIVE_FILE] > 0
        or s.gi[G_NR + LRU_INACTIVE_FILE] > 0
    ):
        for lru in range(4):
            nr = s.gi[G_NR + lru]
            if nr <= 0 or count >= request:
                continue
            n = min(nr, s.gi[G_CHUNK + lru])
            s.gi[G_NR + lru] = nr - n
            if lru & 1:  # active list
                bit = DEACTIVATE_FILE if lru == LRU_ACTIVE_FILE else DEACTIVATE_ANON
                if may & bit:
                    _shrink_active_list(s, lru, n)
                else:
                    skipped = True
            else:
                count = _shrink_inactive_list(s, lru, n, count, request)
    if _can_age_anon(a) and _inactive_is_low(s, LRU_INACTIVE_ANON):
        _shrink_active_list(s, LRU_ACTIVE_ANON, SWAP_CLUSTER_MAX)
    return count, skipped


# ------------------------------------------------------------------------------------ hooks


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    cg = a[A_CGROUP]
    s.gi[G_CG] = cg
    for lru in range(4):
        s.gi[G_LIST + lru] = list_create(s, cg)
        if s.gi[G_LIST + lru] < 0:
            return -1
    s.gi[G_AGE] = 0
    s.gi[G_ANON_COST] = 0
    s.gi[G_FILE_COST] = 0
    s.gi[G_SNAP_ANON] = 0
    s.gi[G_SNAP_FILE] = 0
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    anon = is_anon(s, p)
    inactive = LRU_INACTIVE_ANON if anon else LRU_INACTIVE_FILE
    s.pm[p, REF] = 0
    s.pm[p, ACTIVE] = 0
    s.pm[p, WORKINGSET] = 0
    if a[A_REFAULT] != 0:  # workingset_refault (§1.8)
        shadow = s.shadow[p]
        if ((shadow >> SHADOW_AGE_BITS) & SHADOW_CG_MASK) == s.gi[G_CG]:
            distance = s.gi[G_AGE] - (shadow & SHADOW_AGE_MASK)
            workingset_size = _size(s, LRU_ACTIVE_FILE)
            if anon:
                workingset_size += _size(s, LRU_INACTIVE_FILE)
            if a[A_SWAP_FREE] > 0:
                workingset_size += _size(s, LRU_ACTIVE_ANON)
                if not anon:
                    workingset_size += _size(s, LRU_INACTIVE_ANON)
            if distance <= workingset_size:
                s.pm[p, ACTIVE] = 1
                s.gi[G_AGE] += 1
                s.stat[STAT_WS_ACTIVATE_ANON if anon else STAT_WS_ACTIVATE_FILE] += 1
                if shadow & SHADOW_WORKINGSET:
                    s.pm[p, WORKINGSET] = 1
                    _note_cost(s, not anon, 1, 0)  # lru_note_cost_refault
                    s.stat[STAT_WS_RESTORE_ANON if anon else STAT_WS_RESTORE_FILE] += 1
    list_add(s, _lid(s, inactive + s.pm[p, ACTIVE]), p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if s.lst[p, LIST] < 0:
        return 0
    if s.pm[p, ACTIVE] == 0 and s.pm[p, REF] != 0:  # folio_activate + workingset_activation
        s.pm[p, REF] = 0
        s.pm[p, ACTIVE] = 1
        list_move(s, _lid(s, (LRU_INACTIVE_ANON if is_anon(s, p) else LRU_INACTIVE_FILE) + 1), p, False)
        s.stat[STAT_PGACTIVATE] += 1
        s.gi[G_AGE] += 1
    elif s.pm[p, REF] == 0:
        s.pm[p, REF] = 1
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    request = min(a[A_REQUEST], MAX_CANDIDATES)
    for lru in range(4):
        s.gi[G_SKIP + lru] = 0
    s.gi[G_SLOTS] = a[A_SWAP_FREE]
    prio = DEF_PRIORITY if a[A_MODE] == MODE_CACHE else a[A_PRIORITY]
    kswapd = a[A_RECLAIMER] == RECLAIM_KSWAPD and a[A_MODE] != MODE_CACHE
    # cache mode has no engine priority: descend within the call, as priority_loop does
    loop = s.gi[G_PRIO_LOOP] != 0 or a[A_MODE] == MODE_CACHE
    floor = 1 if kswapd and prio >= 1 else 0
    count = 0
    force = False
    extra = 0
    work = 0
    while True:
        s.gi[G_WORK] = 0
        if kswapd and _can_age_anon(a) and _inactive_is_low(s, LRU_INACTIVE_ANON):
            _shrink_active_list(s, LRU_ACTIVE_ANON, SWAP_CLUSTER_MAX)  # kswapd_age_node
        work += s.gi[G_WORK]
        s.gi[G_WORK] = 0
        count, skipped = _shrink_lruvec(s, a, prio, force, count, request)
        work += s.gi[G_WORK]
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
        elif s.gi[G_WORK] == 0:
            break
    a[A_SCANNED] = work  # the pages looked at, for the engine's time model
    s.gi[G_SNAP_ANON] = s.stat[STAT_WS_ACTIVATE_ANON]  # snapshot_refaults
    s.gi[G_SNAP_FILE] = s.stat[STAT_WS_ACTIVATE_FILE]
    return count


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    if r[A_REASON] != REASON_FREED:  # workingset_eviction
        shadow = (s.gi[G_AGE] & SHADOW_AGE_MASK) | ((s.gi[G_CG] & SHADOW_CG_MASK) << SHADOW_AGE_BITS)
        if s.pm[p, WORKINGSET] != 0:
            shadow |= SHADOW_WORKINGSET
        s.shadow[p] = shadow
        s.gi[G_AGE] += 1
    s.pm[p, REF] = 0
    s.pm[p, ACTIVE] = 0
    s.pm[p, WORKINGSET] = 0
    return 0


# ------------------------------------------------------------------------------------ class


def lru_lists(s: Any) -> dict[str, list[int]]:
    """The four lists of the lruvec in ``s``, head (newest) first, by kernel name (tests, reports)."""
    return {name: list_pages(s, int(s.gi[G_LIST + lru])).tolist() for lru, name in enumerate(LRU_NAMES)}


class LinuxLRU(Policy):
    """Linux's legacy active/inactive LRU per lruvec; see the module docstring."""

    name = "linux-lru"
    description = "Linux two-list LRU (active/inactive anon and file, refault distance, get_scan_count)"
    int_fields = ("referenced", "active", "workingset")
    int_globals = N_GLOBALS
    proposes_batches = True
    uses_fallback = False
    params = {"swappiness_override": -1, "priority_loop": False}
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Write ``swappiness_override`` and ``priority_loop`` into the globals."""
        swp = int(self.values["swappiness_override"])
        if not (swp == -1 or 0 <= swp <= MAX_SWAPPINESS):
            raise ValueError(f"linux-lru: swappiness_override must be -1 or within 0..200, got {swp}")
        s.gi[G_SWAPPINESS] = swp
        s.gi[G_PRIO_LOOP] = 1 if self.values["priority_loop"] else 0

    def readouts(self, s: Any) -> dict[str, float]:
        """The four list sizes, nonresident_age and the cost counters (kernel-mode time series)."""
        names = ("inactive_anon", "active_anon", "inactive_file", "active_file")
        out = {name: float(s.lhd[int(s.gi[G_LIST + k]), 2]) for k, name in enumerate(names)}
        out.update(
            nonresident_age=float(s.gi[G_AGE]),
            anon_cost=float(s.gi[G_ANON_COST]),
            file_cost=float(s.gi[G_FILE_COST]),
        )
        return out

    def check_invariants(self, s: Any) -> None:
        """Each page of this cgroup on exactly one of the four lists, the one its flags name."""
        cg = int(s.gi[G_CG])
        lists = lru_lists(s)
        seen: dict[int, int] = {}
        for lru, name in enumerate(LRU_NAMES):
            pages = lists[name]
            lid = int(s.gi[G_LIST + lru])
            assert len(pages) == int(s.lhd[lid, LEN]), (
                f"{name}: length {int(s.lhd[lid, LEN])} != {len(pages)}"
            )
            assert int(s.lhd[lid, HEAD]) == (pages[0] if pages else -1), f"{name}: head"
            for q in pages:
                assert q not in seen, f"page {q} is on {name} and on {LRU_NAMES[seen[q]]}"
                seen[q] = lru
                assert s.resident[q] != 0, f"page {q} on {name} is not resident"
                assert int(s.cgroup_of[q]) == cg, (
                    f"page {q} on {name} belongs to cgroup {int(s.cgroup_of[q])}"
                )
                anon = bool(is_anon.py_func(s, q))
                assert anon == (lru < LRU_INACTIVE_FILE), f"page {q} (anon={anon}) on {name}"
                assert int(s.pm[q, ACTIVE]) == (lru & 1), (
                    f"page {q} on {name} has PG_active={int(s.pm[q, ACTIVE])}"
                )
        mine = np.flatnonzero((s.resident != 0) & (s.cgroup_of == cg)).tolist()
        assert sorted(seen) == mine, "the four lists != this cgroup's resident pages"
        flags = s.pm[:, : WORKINGSET + 1]
        assert set(np.unique(flags).tolist()) <= {0, 1}, "page flag outside {0, 1}"
        off = s.resident == 0
        assert not flags[off].any(), "a non-resident page keeps PG_referenced/active/workingset"
