"""Most Recently Used (MRU): evicts the page used last; keeps a fixed part of a loop larger than memory.

Source      Chou and DeWitt, "An evaluation of buffer management strategies for relational
            database systems", VLDB 1985 (MRU for looping access); cache_ext's MRU policy
            (Zussman et al., SOSP 2025, §5) for file search.
Structures  One eviction list, most recent at the head.
Rules       added: insert at the head. accessed: move to the head. evict: propose the head,
            i.e. the page accessed most recently before the miss being served.
Parameters  none.
Complexity  O(1) per access and per eviction.
Deviations  cache_ext's MRU skips, within the first 200 positions, pages still under I/O; in
            cache mode no page is under I/O, so the rule is plain MRU (the suite's ``ce-mru``
            carries the skip rule).
Peers       libCacheSim 0.3.5 has no MRU in its Python API; tests check hand-worked traces and a
            naive Python reference.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_head, list_move
from pagesim.core.state import A_CGROUP, A_PAGE
from pagesim.policies.base import Policy

STATE = Layout(
    "mru",
    gi=(field("list", "list id", "the list, most recent at the head"),),
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
    victim = list_head(s, s.gi[GI.list])
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


class MRU(Policy):
    """Most Recently Used; see the module docstring."""

    name = "mru"
    description = "Most Recently Used: evict the page used last (loops larger than memory)"
    int_globals = STATE.int_globals
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
