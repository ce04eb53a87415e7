"""First In, First Out (FIFO): evicts pages in the order they came in; hits change nothing.

Source      Belady, "A study of replacement algorithms for a virtual-storage computer",
            IBM Systems Journal 5(2), 1966 (FIFO and its anomaly); cache_ext's
            ``cache_ext_fifo`` (Zussman et al., SOSP 2025, §5) is the same rule.
Structures  One eviction list, newest at the head.
Rules       added: insert at the head. accessed: nothing. evict: propose the tail.
Parameters  none.
Complexity  O(1) per access and per eviction.
Deviations  none.
Peers       libCacheSim 0.3.5 ``FIFO``: identical miss counts (tests/crosscheck).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_tail
from pagesim.core.state import A_CGROUP, A_PAGE
from pagesim.policies.base import Policy

STATE = Layout(
    "fifo",
    gi=(field("list", "list id", "the FIFO queue, newest at the head"),),
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
def _evict(s, a):  # type: ignore[no-untyped-def]
    victim = list_tail(s, s.gi[GI.list])
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


class FIFO(Policy):
    """First In, First Out; see the module docstring."""

    name = "fifo"
    description = "First In, First Out: evict the page that came in first"
    int_globals = STATE.int_globals
    init = staticmethod(_init)
    added = staticmethod(_added)
    evict = staticmethod(_evict)
