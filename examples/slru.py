"""Segmented LRU (SLRU), the worked example of docs/policies.md: two lists and a parameter.

Source      Karedla, Love, Wherry, "Caching strategies to improve disk system performance",
            IEEE Computer 27(3), 1994.
Structures  Two eviction lists: probation (pages seen once since they came in) and protected
            (pages hit at least once); most recent at each list's head.
Rules       added: head of probation. accessed: move to the head of protected; if protected
            then holds more than its share, its tail goes back to the head of probation.
            evict: the tail of probation, or of protected if probation is empty.
Parameters  protected = 0.8: fraction of the capacity the protected list may hold.

Run it::

    pagesim compare workload:zipf --size 5% --policy lru,examples/slru.py:SLRU
"""

from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_len, list_move, list_of, list_tail
from pagesim.core.state import A_CGROUP, A_PAGE
from pagesim.policies import Policy

STATE = Layout(
    "slru",
    gi=(
        field("probation", "list id", "pages seen once since they came in"),
        field("protected", "list id", "pages hit at least once"),
        field("max_protected", "pages", "the protected list's limit"),
    ),
)
GI = STATE.gi


def init(s, a):
    s.gi[GI.probation] = list_create(s, a[A_CGROUP])
    s.gi[GI.protected] = list_create(s, a[A_CGROUP])
    return 0 if s.gi[GI.probation] >= 0 and s.gi[GI.protected] >= 0 else -1


def added(s, a):
    list_add(s, s.gi[GI.probation], a[A_PAGE])
    return 0


def accessed(s, a):
    page = a[A_PAGE]
    list_move(s, s.gi[GI.protected], page, False)  # from either list to protected's head
    if list_of(s, page) == s.gi[GI.protected] and list_len(s, s.gi[GI.protected]) > s.gi[GI.max_protected]:
        demoted = list_tail(s, s.gi[GI.protected])
        list_move(s, s.gi[GI.probation], demoted, False)
    return 0


def evict(s, a):
    victim = list_tail(s, s.gi[GI.probation])
    if victim < 0:
        victim = list_tail(s, s.gi[GI.protected])
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


class SLRU(Policy):
    """Segmented LRU; see the module docstring."""

    name = "slru"
    description = "Segmented LRU: probation and protected lists (examples/slru.py)"
    params = {"protected": 0.8}
    int_globals = STATE.int_globals
    init = staticmethod(init)
    added = staticmethod(added)
    accessed = staticmethod(accessed)
    evict = staticmethod(evict)

    def configure(self, s, capacity):
        """Write the protected list's limit (pages) into the globals before ``init``."""
        fraction = float(self.values["protected"])
        if not 0.0 <= fraction < 1.0:
            raise ValueError(f"slru: protected must be in [0, 1), got {fraction}")
        s.gi[GI.max_protected] = max(1, int(fraction * capacity))
