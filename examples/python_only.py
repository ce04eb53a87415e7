"""A policy in plain Python that numba cannot compile: pagesim runs it interpreted.

Run it::

    pagesim compare workload:zipf?n_requests=20000 --size 5% --policy lru,examples/python_only.py:DictLRU

pagesim first tries to compile the hooks; numba rejects the module-level ``dict``, so pagesim
prints a notice and runs the same hooks as plain Python (hundreds of times slower, same
results: this is LRU, using a dict's insertion order as the recency order).

Interpreted hooks are handy for prototyping with any Python you like. Two rules still hold:
keep per-run state in ``s`` or reset it in ``init`` (one process may run the policy many
times), and mutate module-level objects rather than rebinding globals.
"""

from pagesim.core.state import A_PAGE
from pagesim.policies import Policy

_order: dict[int, None] = {}  # resident pages, least recently used first


def init(s, a):
    _order.clear()
    return 0


def added(s, a):
    _order[int(a[A_PAGE])] = None
    return 0


def accessed(s, a):
    page = int(a[A_PAGE])
    del _order[page]
    _order[page] = None  # re-inserted: now the most recent
    return 0


def evict(s, a):
    s.cand[0] = next(iter(_order))
    return 1


def removed(s, a):
    # ``a`` is the removal event; the framework calls this for every page leaving memory.
    _order.pop(int(a[A_PAGE]), None)
    return 0


class DictLRU(Policy):
    """LRU kept in a Python dict: interpreted, slow, same misses as ``lru``."""

    name = "dict-lru"
    description = "LRU in a Python dict (examples/python_only.py; runs interpreted)"
    init = staticmethod(init)
    added = staticmethod(added)
    accessed = staticmethod(accessed)
    evict = staticmethod(evict)
    removed = staticmethod(removed)
