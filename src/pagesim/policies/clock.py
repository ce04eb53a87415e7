"""CLOCK (second chance): a FIFO that gives a page used since it came in one more round.

Source      Corbató, "A paging experiment with the Multics system", MIT Project MAC MAC-M-384,
            1968 (one use bit per frame, a hand sweeping the frames); the FIFO-with-reinsertion
            form followed here is libCacheSim's ``Clock`` (cache/eviction/Clock.c, 1-bit counter).
Structures  One eviction list, the clock face unrolled: newest page at the head, the hand at the
            tail. ``pm[page, PM.ref]`` is the reference bit (libCacheSim's ``clock.freq`` with
            ``n-bit-counter=1``).
Rules       added: insert at the head with the bit clear (libCacheSim ``init-freq=0``).
            accessed: set the bit (no move).
            evict: look at the tail; while its bit is set, clear it and move the page to the head
            (the hand passes it); propose the first tail page whose bit is clear.
Parameters  none.
Complexity  O(1) per hit; O(1) amortised per eviction (each skipped page had its bit set by a hit
            since the hand last passed it); worst case one full turn. One list node and one int64
            per page.
Deviations  The engine's own reference bit (``fw.ref``, used only by the fallback policy) is not
            read; the policy keeps its bit in ``pm`` so that it obeys the cache_ext interface.
            The list belongs to cgroup 0, as in LRU and FIFO.
Peers       libCacheSim 0.3.5 ``Clock`` (default ``n_bit_counter=1, init_freq=0``): identical
            miss counts on cloudPhysicsIO and LIRS traces (tests/crosscheck).
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_move, list_pages, list_tail
from pagesim.core.state import A_CGROUP, A_PAGE
from pagesim.policies.base import Policy

STATE = Layout(
    "clock",
    pm=(field("ref", "flag", "the reference bit"),),
    gi=(field("list", "list id", "the clock's queue"),),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.list] = list_create(s, a[A_CGROUP])
    return 0 if s.gi[GI.list] >= 0 else -1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    s.pm[p, PM.ref] = 0
    list_add(s, s.gi[GI.list], p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    s.pm[a[A_PAGE], PM.ref] = 1
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    lid = s.gi[GI.list]
    victim = list_tail(s, lid)
    # Every pass over a page clears its bit, so after at most one turn a clear bit is found.
    while victim >= 0 and s.pm[victim, PM.ref] != 0:
        s.pm[victim, PM.ref] = 0
        list_move(s, lid, victim, False)
        victim = list_tail(s, lid)
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    s.pm[r[A_PAGE], PM.ref] = 0
    return 0


class Clock(Policy):
    """CLOCK, second chance with one reference bit; see the module docstring."""

    name = "clock"
    description = "CLOCK (second chance): FIFO that re-queues pages referenced since insertion"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def check_invariants(self, s: Any) -> None:
        """Every resident page is on the clock list once; bits are 0 or 1, 0 off the list."""
        lid = int(s.gi[GI.list])
        pages = list_pages(s, lid)
        resident = s.resident.nonzero()[0]
        assert len(pages) == len(set(pages.tolist())), "a page is on the clock twice"
        assert sorted(pages.tolist()) == resident.tolist(), "clock list != resident set"
        assert set(s.pm[:, PM.ref].tolist()) <= {0, 1}, "reference bit outside {0, 1}"
        off = s.resident == 0
        assert not s.pm[off, PM.ref].any(), "a non-resident page keeps its reference bit"
