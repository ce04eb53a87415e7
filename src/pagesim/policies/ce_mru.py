"""cache_ext MRU (ce-mru): evicts the page used last, skipping pages still being read in.

Source      cache_ext spec §4.2 (cache_ext repo ``policies/``, ``cache_ext_mru``
            and its loader), §2.6a (``list_iterate``, simple mode), §6 item 15; Zussman et al.,
            "cache_ext: Customizing the Page Cache with eBPF", SOSP 2025, §5 and Fig. 9 (file
            search, where MRU keeps a fixed part of a scan larger than memory).
Structures  One eviction list, most recently used page at the head. ``pm[page, SEQ]``: the
            number of the insertion that brought the page in, ``pm[page, ADDED_NS]`` its model
            time (for the in-flight rule).
Rules       added: insert at the head. accessed: move to the head. removed: ``list_del``
            (cache_ext does it explicitly; the framework would anyway).
            evict: ``list_iterate`` (simple mode) from the head. At positions 0..199 a page that
            is not up to date or not yet on the kernel's LRU (still under I/O for the request
            that brought it in) is skipped; any other page, and every page from position 200
            on, is proposed. Stops when the request is filled, at the end of the list or after
            4097 nodes.
            Not up to date or not on the LRU, modelled (pagesim has neither flag): a page
            brought in by one of the last ``inflight`` insertions of this cgroup (the kernel
            adds a new folio to a per-CPU batch of 15 and moves it onto the LRU when the batch
            is full: about the last 14 insertions of each CPU are off the LRU), or less than
            ``inflight_ns`` ago in model time (its read has not completed: kernel mode inserts
            a page when its access starts, and an asynchronous readahead window at once).
Parameters  inflight = 0 (insertions): how many of the most recent insertions count as off the
            LRU. Cache mode serves each access before the next, so no page is under I/O
            and the default 0 makes the rule inert (plain MRU); 1 or more exercises cache_ext's
            skip rule (tests/unit/test_policies_ce_mru.py). The experiments set 14 per thread.
            inflight_ns = 0 (ns): how long after its insertion a page counts as under I/O
            (``a[A_NOW_NS]``, kernel mode only; the experiments set the SSD's 80 us read).
            skip_window = 200 (list positions): where the skip rule applies (cache_ext's
            constant).
Complexity  O(1) per access; per eviction O(1 + skipped pages), at most 200 skipped.
            Per page: one list node and two int64.
Deviations  1. The paper says MRU "skips a small fixed number of folios"; the code skips
               conditionally (only pages under I/O) within the first 200 positions. This module
               follows the code.
            2. cache_ext's walk fills up to 32 candidates whatever the request; pagesim stops at
               the request (1 in cache mode, the batch in kernel mode). The extra candidates
               would be left in place and unused, so the same pages are evicted.
            3. When every page within the first 200 positions is under I/O and the list ends
               there (a cache of at most ``inflight`` pages), nothing is proposed and the
               framework's fallback evicts, as the kernel's LRU would in cache_ext.
Peers       ``mru`` (pagesim's classic MRU): the same evictions while ``inflight = 0``.
            libCacheSim 0.3.5 has no MRU in its Python API.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.lists import (
    CONTINUE,
    EVICT,
    SKIP,
    STOP,
    list_add,
    list_create,
    list_del,
    list_iterate,
    list_move,
    list_pages,
)
from pagesim.core.state import A_CGROUP, A_NOW_NS, A_PAGE, A_REQUEST, GI_USER, MAX_CANDIDATES
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

SEQ = 0  #: pm column: insertion number of the page
ADDED_NS = 1  #: pm column: model time of its insertion, ns

G_LIST = GI_USER  #: the list id
G_WANTED = GI_USER + 1  #: candidates still wanted in the current walk
G_INSERTS = GI_USER + 2  #: insertions so far
G_INFLIGHT = GI_USER + 3  #: parameter inflight
G_WINDOW = GI_USER + 4  #: parameter skip_window
G_INFLIGHT_NS = GI_USER + 5  #: parameter inflight_ns


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[G_LIST] = list_create(s, a[A_CGROUP])
    s.gi[G_INSERTS] = 0
    return 0 if s.gi[G_LIST] >= 0 else -1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    s.gi[G_INSERTS] += 1
    s.pm[p, SEQ] = s.gi[G_INSERTS]
    s.pm[p, ADDED_NS] = a[A_NOW_NS]
    list_add(s, s.gi[G_LIST], p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    list_move(s, s.gi[G_LIST], a[A_PAGE], False)
    return 0


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    list_del(s, r[A_PAGE])
    return 0


@kernel
def _verdict(s, a, index, page):  # type: ignore[no-untyped-def]
    if s.gi[G_WANTED] <= 0:
        return STOP
    if index < s.gi[G_WINDOW] and (
        s.gi[G_INSERTS] - s.pm[page, SEQ] < s.gi[G_INFLIGHT]
        or a[A_NOW_NS] - s.pm[page, ADDED_NS] < s.gi[G_INFLIGHT_NS]
    ):
        return CONTINUE  # still under I/O: skipped, left in place
    s.gi[G_WANTED] -= 1
    return EVICT


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    s.gi[G_WANTED] = min(a[A_REQUEST], MAX_CANDIDATES)
    n = list_iterate(s, a, s.gi[G_LIST], _verdict, 0, SKIP, -1, SKIP, -1)
    return max(n, 0)


class CeMRU(Policy):
    """cache_ext's MRU policy; see the module docstring."""

    name = "ce-mru"
    description = "cache_ext MRU: evict the page used last, skipping pages under I/O near the head"
    params = defaults("ce-mru")  # policies/params.toml
    int_fields = ("seq", "added_ns")
    int_globals = 6
    proposes_batches = True
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Write ``inflight``, ``skip_window`` and ``inflight_ns`` into the globals."""
        inflight = int(self.values["inflight"])
        window = int(self.values["skip_window"])
        inflight_ns = int(self.values["inflight_ns"])
        if inflight < 0 or window < 0 or inflight_ns < 0:
            raise ValueError(
                "ce-mru: inflight, skip_window and inflight_ns must be >= 0, got "
                f"{inflight}, {window}, {inflight_ns}"
            )
        s.gi[G_INFLIGHT] = inflight
        s.gi[G_WINDOW] = window
        s.gi[G_INFLIGHT_NS] = inflight_ns

    def check_invariants(self, s: Any) -> None:
        """The list holds exactly the resident pages."""
        pages = list_pages(s, int(s.gi[G_LIST])).tolist()
        assert sorted(pages) == np.flatnonzero(s.resident).tolist(), "list != resident set"
