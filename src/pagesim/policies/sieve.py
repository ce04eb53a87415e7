"""SIEVE: a FIFO with one visited bit whose hand sifts out pages not used since it last passed.

Source      Zhang, Yang, Yue, Vigfusson, Rashmi, "SIEVE is Simpler than LRU: an Efficient
            Turn-Key Eviction Algorithm for Web Caches", NSDI 2024 (Algorithm 1); the exact rules
            below are libCacheSim's ``Sieve`` (cache/eviction/Sieve.c, read, not ported).
Structures  One eviction list, newest at the head, oldest at the tail (the paper's queue);
            ``pm[page, PM.visited]`` the visited bit; ``gi[GI.hand]`` the hand, a page id or -1
            ("start from the tail").
Rules       added: insert at the head, visited 0 (pages never move afterwards).
            accessed: visited := 1.
            evict: start at the hand (the tail if none); while the page under it is visited,
            clear its bit and step towards the head, wrapping to the tail past the head; propose
            that page and leave the hand on its neighbour towards the head (-1 if it was the
            head, so the next sweep starts at the tail).
            removed: a page under the hand that leaves (only a fallback eviction can do this)
            moves the hand one step towards the head, as libCacheSim's ``Sieve_remove_obj``.
Parameters  none.
Complexity  O(1) per hit; O(1) amortised per eviction (each step clears a bit set by a hit),
            one full turn in the worst case. One list node and one int64 per page.
Deviations  none in cache mode.
Peers       libCacheSim 0.3.5 ``Sieve``: identical miss counts on cloudPhysicsIO and the LIRS
            traces at three sizes each (tests/crosscheck/test_classics_b_vs_libcachesim.py).
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_pages, list_prev, list_tail
from pagesim.core.state import A_CGROUP, A_PAGE
from pagesim.policies.base import Policy

STATE = Layout(
    "sieve",
    pm=(field("visited", "flag", "the visited bit"),),
    gi=(
        field("list", "list id", "the queue"),
        field("hand", "page id", "page under the hand, -1: the tail"),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.list] = list_create(s, a[A_CGROUP])
    s.gi[GI.hand] = -1
    return 0 if s.gi[GI.list] >= 0 else -1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    s.pm[p, PM.visited] = 0
    list_add(s, s.gi[GI.list], p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    s.pm[a[A_PAGE], PM.visited] = 1
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    lid = s.gi[GI.list]
    tail = list_tail(s, lid)
    if tail < 0:
        return 0
    p = s.gi[GI.hand]
    if p < 0:
        p = tail
    # Each step clears a bit, so after at most one turn an unvisited page is under the hand.
    while s.pm[p, PM.visited] != 0:
        s.pm[p, PM.visited] = 0
        p = list_prev(s, p)
        if p < 0:
            p = tail
    s.gi[GI.hand] = list_prev(s, p)
    s.cand[0] = p
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    if p == s.gi[GI.hand]:
        s.gi[GI.hand] = list_prev(s, p)
    s.pm[p, PM.visited] = 0
    return 0


class Sieve(Policy):
    """SIEVE (NSDI 2024) as libCacheSim runs it; see the module docstring."""

    name = "sieve"
    description = "SIEVE: FIFO with a visited bit and a hand that sifts unvisited pages out"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def check_invariants(self, s: Any) -> None:
        """The queue holds every resident page once; bits in {0, 1}; the hand is on the queue."""
        pages = list_pages(s, int(s.gi[GI.list]))
        resident = s.resident.nonzero()[0]
        assert len(pages) == len(set(pages.tolist())), "a page is on the queue twice"
        assert sorted(pages.tolist()) == resident.tolist(), "queue != resident set"
        assert set(s.pm[:, PM.visited].tolist()) <= {0, 1}, "visited bit outside {0, 1}"
        assert not s.pm[s.resident == 0, PM.visited].any(), "a non-resident page keeps its bit"
        hand = int(s.gi[GI.hand])
        assert hand == -1 or hand in set(pages.tolist()), f"hand on page {hand}, not queued"
