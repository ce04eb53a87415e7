"""Least Recently Used (LRU): keeps the pages used most recently, evicts the one unused longest.

Source      Mattson, Gecsei, Slutz, Traiger, "Evaluation techniques for storage hierarchies",
            IBM Systems Journal 9(2), 1970 (LRU as a stack algorithm).
Structures  One eviction list, most recent at the head.
Rules       added: insert at the head. accessed: move to the head. evict: propose the tail.
Parameters  none.
Complexity  O(1) per access and per eviction; one list node per resident page.
Deviations  none.
Peers       libCacheSim 0.3.5 ``LRU``: identical miss counts (tests/crosscheck).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_move, list_tail
from pagesim.core.state import A_CGROUP, A_PAGE
from pagesim.policies.base import Policy

STATE = Layout(
    "lru",
    gi=(field("list", "list id", "the LRU list, most recent at the head"),),
)
GI = STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.list] = list_create(s, a[A_CGROUP])
    return 0 if s.gi[GI.list] >= 0 else -1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    list_add(s, s.gi[GI.list], a[A_PAGE])
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    list_move(s, s.gi[GI.list], a[A_PAGE], False)
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    victim = list_tail(s, s.gi[GI.list])
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


class LRU(Policy):
    """Least Recently Used; see the module docstring."""

    name = "lru"
    description = "Least Recently Used: evict the page unused longest"
    int_globals = STATE.int_globals
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
