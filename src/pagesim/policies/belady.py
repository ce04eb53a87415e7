"""Belady's OPT (MIN): with knowledge of the future, evicts the page whose next use is furthest.

Source      Belady, "A study of replacement algorithms for a virtual-storage computer", IBM
            Systems Journal 5(2), 1966 (MIN); Mattson, Gecsei, Slutz, Traiger, IBM Systems
            Journal 9(2), 1970 (OPT as a stack algorithm: optimal for demand paging).
Structures  The shared indexed heap (:mod:`pagesim.core.heap`, a min-heap) of the resident pages
            keyed by minus their next use, so the root is the furthest next use, in ``s.pm``:
            ``pm[page, PM.next_use]`` (index of the page's next access, ``NEVER`` if none),
            ``pm[page, PM.heap_pos]`` (its slot in the heap, -1 if not in it) and
            ``pm[slot, PM.heap]`` (the page in heap slot ``slot``; the root is slot 0) and
            ``pm[slot, PM.heap_key]`` (minus that page's next use, beside it so a comparison reads
            one row instead of chasing the page's own row).
            ``gi[GI.size]`` is the heap's size. No framework list is used.
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
            Kernel mode: next use is the page's next access in trace order, and the engine tells
            the policy of every access (a mapped anon hit too); it is exact OPT only where the
            accesses run in trace order and reclaim evicts one page at a time. With model-time
            scheduling (tasks interleave by their clocks), batches of 32, readahead and
            ``stop = first`` it is a clairvoyant reference, close to the bound, not the bound.
Peers       libCacheSim 0.3.5 ``Belady`` on oracleGeneral traces (its only source of next-access
            times): identical miss counts on cloudPhysicsIO and LIRS traces converted with
            ``write_trace(..., format="oracle")`` (tests/crosscheck).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.heap import heap_clear, heap_push, heap_remove, heap_update
from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.state import A_NEXT, A_PAGE
from pagesim.policies.base import Policy

STATE = Layout(
    "opt",
    pm=(
        field("next_use", "access index", "page row: index of the next access, NEVER if none"),
        field("heap_pos", "slot", "page row: heap slot holding the page, -1 if none"),
        field("heap", "page id", "slot row: page stored in heap slot ``row``"),
        field(
            "heap_key", "access index", "slot row: minus that page's next use (the shared heap is a min-heap)"
        ),
    ),
    gi=(field("size", "pages", "number of pages in the heap"),),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    heap_clear(s.pm[:, PM.heap], s.pm[:, PM.heap_pos])
    s.gi[GI.size] = 0
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    s.pm[p, PM.next_use] = a[A_NEXT]
    s.gi[GI.size] = heap_push(
        s.pm[:, PM.heap], s.pm[:, PM.heap_key], s.pm[:, PM.heap_pos], s.gi[GI.size], p, -a[A_NEXT]
    )
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    s.pm[p, PM.next_use] = a[A_NEXT]
    heap_update(s.pm[:, PM.heap], s.pm[:, PM.heap_key], s.pm[:, PM.heap_pos], s.gi[GI.size], p, -a[A_NEXT])
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    if s.gi[GI.size] == 0:
        return 0
    s.cand[0] = s.pm[0, PM.heap]
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    s.gi[GI.size] = heap_remove(
        s.pm[:, PM.heap], s.pm[:, PM.heap_key], s.pm[:, PM.heap_pos], s.gi[GI.size], r[A_PAGE]
    )
    return 0


class Belady(Policy):
    """Belady's OPT (MIN), demand fetch; see the module docstring."""

    name = "opt"
    description = "Belady's OPT: evict the page whose next use is furthest (clairvoyant bound)"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    needs_next_access = True
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def check_invariants(self, s: Any) -> None:
        """Heap holds exactly the resident pages, positions agree, parent key >= child key."""
        n = int(s.gi[GI.size])
        pm = s.pm
        heap = pm[:n, PM.heap]
        assert sorted(heap.tolist()) == np.flatnonzero(s.resident).tolist(), "heap != resident set"
        assert (pm[n:, PM.heap] == -1).all(), "stale heap slots beyond the size"
        for slot in range(n):
            page = int(heap[slot])
            assert int(pm[page, PM.heap_pos]) == slot, f"page {page}: position != slot {slot}"
            assert int(pm[slot, PM.heap_key]) == -int(pm[page, PM.next_use]), f"slot {slot}: stale key"
            if slot:
                parent = int(heap[(slot - 1) // 2])
                assert pm[parent, PM.next_use] >= pm[page, PM.next_use], f"heap order broken at {slot}"
        off = s.resident == 0
        assert (pm[off, PM.heap_pos] == -1).all(), "a non-resident page has a heap position"
