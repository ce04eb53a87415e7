"""cache_ext FIFO (ce-fifo): evicts pages in the order they came in, skipping pages it may not evict.

Source      cache_ext spec §4.1 (cache_ext repo ``policies/``, ``cache_ext_fifo``
            and its loader), §2.6a (``list_iterate``, simple mode); Zussman et al., "cache_ext:
            Customizing the Page Cache with eBPF", SOSP 2025, §5 (the policy suite, Table 3).
Structures  One eviction list, oldest page at the head (insertion at the tail).
Rules       added: append at the tail. accessed: nothing (the policy sets no hook).
            evict: ``list_iterate`` (simple mode, nodes left in place) from the head; a page
            that may be evicted is proposed, any other is skipped and stays where it is; the
            walk stops when the request is filled (see Deviations 1), at the end of the list or
            after 4097 nodes. "May be evicted" in cache_ext: up to date, on the kernel's LRU,
            clean, not under writeback; here: not DIRTY (kernel mode's bit; in cache mode every
            resident page may be evicted).
Parameters  none.
Complexity  O(1) per access; O(1) per eviction in cache mode (the head is proposed), up to 4097
            node visits when dirty pages stand at the head. One list node per page.
Deviations  1. cache_ext's walk fills up to 32 candidates whatever the request (the kernel asks
               for min(32, N) and then reclaims every candidate). pagesim stops at the request:
               in cache mode it is 1, and the candidates past it would be left in place and
               unused, so the pages evicted are the same and only ``unused_candidates`` would
               differ; in kernel mode the request is the batch of 32, as in cache_ext.
            2. Readahead pages: cache_ext's FIFO also queues pages brought in by readahead that
               are never read; cache mode has no readahead, so each access's page only.
Peers       ``fifo`` (pagesim's classic FIFO, evicts the list tail): the same evictions in cache
            mode. libCacheSim 0.3.5 ``FIFO``: identical miss counts (tests/crosscheck/
            test_ce_vs_libcachesim.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import (
    CONTINUE,
    EVICT,
    SKIP,
    STOP,
    list_add_tail,
    list_create,
    list_iterate,
    list_pages,
)
from pagesim.core.state import A_CGROUP, A_PAGE, A_REQUEST, DIRTY, MAX_CANDIDATES
from pagesim.policies.base import Policy

STATE = Layout(
    "ce-fifo",
    gi=(
        field("list", "list id", "the list id"),
        field("wanted", "pages", "candidates still wanted in the current walk"),
    ),
)
GI = STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.list] = list_create(s, a[A_CGROUP])
    return 0 if s.gi[GI.list] >= 0 else -1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    list_add_tail(s, s.gi[GI.list], a[A_PAGE])
    return 0


@kernel
def _verdict(s, a, index, page):  # type: ignore[no-untyped-def]
    if s.gi[GI.wanted] <= 0:
        return STOP
    if s.resident[page] & DIRTY:
        return CONTINUE
    s.gi[GI.wanted] -= 1
    return EVICT


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.wanted] = min(a[A_REQUEST], MAX_CANDIDATES)
    n = list_iterate(s, a, s.gi[GI.list], _verdict, 0, SKIP, -1, SKIP, -1)
    return max(n, 0)


class CeFIFO(Policy):
    """cache_ext's FIFO policy; see the module docstring."""

    name = "ce-fifo"
    description = "cache_ext FIFO: list_iterate from the oldest page, skipping dirty pages"
    int_globals = STATE.int_globals
    proposes_batches = True
    init = staticmethod(_init)
    added = staticmethod(_added)
    evict = staticmethod(_evict)

    def check_invariants(self, s: Any) -> None:
        """The list holds exactly the resident pages."""
        pages = list_pages(s, int(s.gi[GI.list])).tolist()
        assert sorted(pages) == np.flatnonzero(s.resident).tolist(), "list != resident set"
