"""The legacy LRU's list shrinking (``mm/vmscan.c``): ``shrink_active_list``, ``shrink_inactive_list``
and ``shrink_lruvec``, and a page's activation.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.lists import list_move
from pagesim.core.pageflags import in_swapcache, is_anon, is_dirty, test_and_clear_young
from pagesim.core.state import (
    LEN,
    PREV,
    STAT_PGACTIVATE,
    STAT_PGDEACTIVATE,
    STAT_PGREFILL,
    STAT_PGSCAN_ANON,
    STAT_PGSCAN_FILE,
    TAIL,
)
from pagesim.policies.linux_lru.balance import _can_age_anon, _get_scan_count, _inactive_is_low, _note_cost
from pagesim.policies.linux_lru.layout import (
    DEACTIVATE_ANON,
    DEACTIVATE_FILE,
    GI,
    LRU_ACTIVE_ANON,
    LRU_ACTIVE_FILE,
    LRU_INACTIVE_ANON,
    LRU_INACTIVE_FILE,
    PM,
    SWAP_CLUSTER_MAX,
    _lid,
)


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
        s.pm[page, PM.active] = 0
        s.pm[page, PM.workingset] = 1
        list_move(s, inactive, page, False)
        s.stat[STAT_PGDEACTIVATE] += 1
        page = prev
    s.gi[GI.work] += n
    return n


@kernel
def _activate(s, page, active_lru):  # type: ignore[no-untyped-def]
    s.pm[page, PM.active] = 1
    list_move(s, _lid(s, active_lru), page, False)
    s.stat[STAT_PGACTIVATE] += 1
    s.gi[GI.age] += 1  # put back on an active list by reclaim (§1.8 (iv))


@kernel
def _shrink_inactive_list(s, lru, nr_to_scan, count, request):  # type: ignore[no-untyped-def]
    """Scan up to ``nr_to_scan`` pages from the tail of inactive list ``lru`` (§1.4).

    Candidates stay where they are, at the tail (they leave on eviction); the pages already
    proposed in this batch (``gi[GI.skip + lru]``) are stepped over. Returns the new count.
    """
    lid = _lid(s, lru)
    file = lru >= LRU_INACTIVE_FILE
    page = s.lhd[lid, TAIL]
    for _ in range(s.gi[GI.skip + lru]):
        page = s.lst[page, PREV]
    limit = min(nr_to_scan, s.lhd[lid, LEN] - s.gi[GI.skip + lru])
    scanned = 0
    reclaimed = 0
    nr_io = 0
    while page >= 0 and scanned < limit and count < request:
        prev = s.lst[page, PREV]
        scanned += 1
        young = test_and_clear_young(s, page)
        referenced = s.pm[page, PM.ref] != 0
        s.pm[page, PM.ref] = 0
        if young:
            s.pm[page, PM.ref] = 1
            if referenced:
                _activate(s, page, lru + 1)
            else:
                list_move(s, lid, page, False)  # KEEP: rotate to the inactive head
        else:
            io = 0
            if is_anon(s, page):
                if not in_swapcache(s, page) or is_dirty(s, page):
                    if s.gi[GI.slots] <= 0:  # add_to_swap fails: activate
                        _activate(s, page, lru + 1)
                        page = prev
                        continue
                    s.gi[GI.slots] -= 1
                    io = 1
            elif is_dirty(s, page):
                io = 1
            nr_io += io
            s.cand[count] = page
            count += 1
            reclaimed += 1
            s.gi[GI.skip + lru] += 1
        page = prev
    if file:
        s.stat[STAT_PGSCAN_FILE] += scanned
    else:
        s.stat[STAT_PGSCAN_ANON] += scanned
    if scanned > 0:
        _note_cost(s, file, nr_io, scanned - reclaimed)
    s.gi[GI.work] += scanned
    return count


@kernel
def _shrink_lruvec(s, a, prio, force, count, request):  # type: ignore[no-untyped-def]
    """One ``shrink_lruvec`` pass at ``prio``; returns (count, skipped_deactivate).

    Lists are taken in the kernel's order, a chunk at a time; the list with the largest target
    gets chunks of 32 and the others chunks in proportion to their targets (Deviation 4).
    """
    _get_scan_count(s, a, prio, force)
    may = s.gi[GI.may_deact]
    nmax = 0
    for lru in range(4):
        nmax = max(nmax, s.gi[GI.nr + lru])
    for lru in range(4):
        nr = s.gi[GI.nr + lru]
        s.gi[GI.chunk + lru] = max(1, (nr * SWAP_CLUSTER_MAX + nmax - 1) // nmax) if nr > 0 else 0
    skipped = False
    while count < request and (
        s.gi[GI.nr + LRU_INACTIVE_ANON] > 0
        or s.gi[GI.nr + LRU_ACTIVE_FILE] > 0
        or s.gi[GI.nr + LRU_INACTIVE_FILE] > 0
    ):
        for lru in range(4):
            nr = s.gi[GI.nr + lru]
            if nr <= 0 or count >= request:
                continue
            n = min(nr, s.gi[GI.chunk + lru])
            s.gi[GI.nr + lru] = nr - n
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
