"""A user's LRU, written outside pagesim, in numba's subset: runs compiled.

Run it::

    pagesim compare workload:zipf --size 5% --policy lru,examples/my_lru.py:MyLRU

It gives exactly the misses of the built-in ``lru``. The hooks are plain functions (no
decorator): pagesim compiles them with its own options. They may only use what numba compiles:
numpy arrays and scalars in ``s``, the list functions of :mod:`pagesim.core.lists`, and
module-level constants.
"""

from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_move, list_tail
from pagesim.core.state import A_CGROUP, A_PAGE
from pagesim.policies import Policy

#: what the policy keeps: one global, the id of its one eviction list (``s.gi[GI.list]``)
STATE = Layout("mylru", gi=(field("list", "list id", "our one eviction list, most recent at the head"),))
GI = STATE.gi


def init(s, a):
    """Create the list (owned by cgroup 0); 0 means success."""
    s.gi[GI.list] = list_create(s, a[A_CGROUP])
    return 0 if s.gi[GI.list] >= 0 else -1


def added(s, a):
    """A page was inserted: most recently used, so at the head."""
    list_add(s, s.gi[GI.list], a[A_PAGE])
    return 0


def accessed(s, a):
    """A hit: move the page back to the head."""
    list_move(s, s.gi[GI.list], a[A_PAGE], False)
    return 0


def evict(s, a):
    """Propose the tail, the page unused longest; return how many candidates."""
    victim = list_tail(s, s.gi[GI.list])
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


class MyLRU(Policy):
    """Least Recently Used, as a user would write it."""

    name = "my-lru"
    description = "a user's LRU (examples/my_lru.py)"
    int_globals = STATE.int_globals
    init = staticmethod(init)
    added = staticmethod(added)
    accessed = staticmethod(accessed)
    evict = staticmethod(evict)
