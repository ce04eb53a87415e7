"""Belady's OPT (MIN): with knowledge of the future, evicts the page whose next use is furthest.

Source      Belady, "A study of replacement algorithms for a virtual-storage computer", IBM
            Systems Journal 5(2), 1966 (MIN); Mattson, Gecsei, Slutz, Traiger, IBM Systems
            Journal 9(2), 1970 (OPT as a stack algorithm: optimal for demand paging).
Structures  An indexed binary max-heap of the resident pages keyed by next use, in ``s.pm``:
            ``pm[page, NEXT_USE]`` (index of the page's next access, ``NEVER`` if none),
            ``pm[page, HEAP_POS]`` (its slot in the heap, -1 if not in it) and
            ``pm[slot, HEAP]`` (the page in heap slot ``slot``; the root is slot 0) and
            ``pm[slot, HEAP_KEY]`` (that page's next use, beside it so a comparison reads one
            row instead of chasing the page's own row).
            ``gi[G_SIZE]`` is the heap's size. No framework list is used.
Rules       needs the next access of every access (``a[A_NEXT]``).
            added: push the page with its next use. accessed: its next use moves later, so it
            sifts towards the root. evict: propose the root (largest next use; pages never used
            again come first). removed: take the page out of the heap.
            Demand fetch: the missed page is always inserted, even if its own next use is later
            than every resident page's (no bypass).
Parameters  none.
Complexity  O(log n) per access and per eviction; 4 int64 columns per page.
Deviations  Ties (only between pages never used again) go to whichever the heap holds at the
            root; every choice among them gives the same miss count. With several cgroups each
            runs its own instance and heap: OPT within each cgroup's own capacity.
Peers       libCacheSim 0.3.5 ``Belady`` on oracleGeneral traces (its only source of next-access
            times): identical miss counts on cloudPhysicsIO and LIRS traces converted with
            ``write_trace(..., format="oracle")`` (tests/crosscheck).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.state import A_NEXT, A_PAGE, GI_USER
from pagesim.policies.base import Policy

NEXT_USE = 0  #: page row: index of the next access, NEVER if none
HEAP_POS = 1  #: page row: heap slot holding the page, -1 if none
HEAP = 2  #: slot row: page stored in heap slot ``row``
HEAP_KEY = 3  #: slot row: that page's next use, kept beside it so comparisons read one row

G_SIZE = GI_USER  #: number of pages in the heap


@kernel
def _put(s, slot, page, key):  # type: ignore[no-untyped-def]
    s.pm[slot, HEAP] = page
    s.pm[slot, HEAP_KEY] = key
    s.pm[page, HEAP_POS] = slot


@kernel
def _sift_up(s, slot):  # type: ignore[no-untyped-def]
    """Move the page in ``slot`` towards the root while its next use is later than its parent's."""
    page = s.pm[slot, HEAP]
    key = s.pm[page, NEXT_USE]
    while slot > 0:
        parent = (slot - 1) >> 1
        pk = s.pm[parent, HEAP_KEY]
        if pk >= key:
            break
        _put(s, slot, s.pm[parent, HEAP], pk)
        slot = parent
    _put(s, slot, page, key)


@kernel
def _sift_down(s, slot):  # type: ignore[no-untyped-def]
    """Move the page in ``slot`` away from the root while a child's next use is later."""
    n = s.gi[G_SIZE]
    page = s.pm[slot, HEAP]
    key = s.pm[page, NEXT_USE]
    while True:
        child = 2 * slot + 1
        if child >= n:
            break
        ck = s.pm[child, HEAP_KEY]
        right = child + 1
        if right < n:
            rk = s.pm[right, HEAP_KEY]
            if rk > ck:
                child = right
                ck = rk
        if ck <= key:
            break
        _put(s, slot, s.pm[child, HEAP], ck)
        slot = child
    _put(s, slot, page, key)


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    for i in range(s.pm.shape[0]):
        s.pm[i, HEAP_POS] = -1
        s.pm[i, HEAP] = -1
    s.gi[G_SIZE] = 0
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    s.pm[p, NEXT_USE] = a[A_NEXT]
    n = s.gi[G_SIZE]
    s.gi[G_SIZE] = n + 1
    _put(s, n, p, a[A_NEXT])
    _sift_up(s, n)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    slot = s.pm[p, HEAP_POS]
    if slot < 0:
        return 0
    old = s.pm[p, NEXT_USE]
    s.pm[p, NEXT_USE] = a[A_NEXT]
    if a[A_NEXT] >= old:
        _sift_up(s, slot)
    else:  # only with next-use data that is not a trace's (kept correct all the same)
        _sift_down(s, slot)
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    if s.gi[G_SIZE] == 0:
        return 0
    s.cand[0] = s.pm[0, HEAP]
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    slot = s.pm[p, HEAP_POS]
    if slot < 0:
        return 0
    n = s.gi[G_SIZE] - 1
    s.gi[G_SIZE] = n
    s.pm[p, HEAP_POS] = -1
    if slot != n:
        last = s.pm[n, HEAP]
        _put(s, slot, last, s.pm[n, HEAP_KEY])
        s.pm[n, HEAP] = -1
        _sift_up(s, slot)
        _sift_down(s, s.pm[last, HEAP_POS])
    else:
        s.pm[n, HEAP] = -1
    return 0


class Belady(Policy):
    """Belady's OPT (MIN), demand fetch; see the module docstring."""

    name = "opt"
    description = "Belady's OPT: evict the page whose next use is furthest (clairvoyant bound)"
    int_fields = ("next_use", "heap_pos", "heap", "heap_key")
    int_globals = 1
    needs_next_access = True
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def check_invariants(self, s: Any) -> None:
        """Heap holds exactly the resident pages, positions agree, parent key >= child key."""
        n = int(s.gi[G_SIZE])
        pm = s.pm
        heap = pm[:n, HEAP]
        assert sorted(heap.tolist()) == np.flatnonzero(s.resident).tolist(), "heap != resident set"
        assert (pm[n:, HEAP] == -1).all(), "stale heap slots beyond the size"
        for slot in range(n):
            page = int(heap[slot])
            assert int(pm[page, HEAP_POS]) == slot, f"page {page}: position != slot {slot}"
            assert int(pm[slot, HEAP_KEY]) == int(pm[page, NEXT_USE]), f"slot {slot}: stale key"
            if slot:
                parent = int(heap[(slot - 1) // 2])
                assert pm[parent, NEXT_USE] >= pm[page, NEXT_USE], f"heap order broken at {slot}"
        off = s.resident == 0
        assert (pm[off, HEAP_POS] == -1).all(), "a non-resident page has a heap position"
