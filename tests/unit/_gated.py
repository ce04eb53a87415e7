"""A test policy whose large runs wait at a gate: LRU in a Python dict (interpreted, as
examples/python_only.py), whose ``configure`` waits, for a cache of more than ``GATE_ABOVE``
pages, while the file named by ``PAGESIM_TEST_GATE`` is absent. An interrupted sweep's test holds
one run there while the others finish, so the interrupt lands mid-way by construction, whatever
the machine's load. Smaller runs (the sweep's compile check has 4 pages) and any process without
the variable pass straight through.
"""

from __future__ import annotations

import os
import time
from typing import Any

from pagesim.core.state import A_PAGE
from pagesim.policies import Policy

GATE = "PAGESIM_TEST_GATE"  #: environment variable naming the gate file
GATE_ABOVE = 1000  #: pages: larger caches wait at the gate

_order: dict[int, None] = {}  # resident pages, least recently used first


def init(s, a):  # type: ignore[no-untyped-def]  # noqa: ARG001
    _order.clear()
    return 0


def added(s, a):  # type: ignore[no-untyped-def]  # noqa: ARG001
    _order[int(a[A_PAGE])] = None
    return 0


def accessed(s, a):  # type: ignore[no-untyped-def]  # noqa: ARG001
    page = int(a[A_PAGE])
    del _order[page]
    _order[page] = None
    return 0


def evict(s, a):  # type: ignore[no-untyped-def]  # noqa: ARG001
    s.cand[0] = next(iter(_order))
    return 1


def removed(s, a):  # type: ignore[no-untyped-def]  # noqa: ARG001
    _order.pop(int(a[A_PAGE]), None)
    return 0


class GatedLRU(Policy):
    """LRU (same misses as ``lru``) whose runs above ``GATE_ABOVE`` pages wait for the gate file."""

    name = "gated-lru"
    description = "LRU in a Python dict that waits for $PAGESIM_TEST_GATE (tests only)"
    init = staticmethod(init)
    added = staticmethod(added)
    accessed = staticmethod(accessed)
    evict = staticmethod(evict)
    removed = staticmethod(removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Wait while the gate file is absent (runs of more than ``GATE_ABOVE`` pages only)."""
        gate = os.environ.get(GATE)
        while gate and capacity > GATE_ABOVE and not os.path.exists(gate):
            time.sleep(0.02)
