"""cache_ext MRU (ce-mru): evicts the page used last, skipping pages still being read in.

Source      cache_ext spec §4.2 (cache_ext repo ``policies/``, ``cache_ext_mru``
            and its loader), §2.6a (``list_iterate``, simple mode), §6 item 15; Zussman et al.,
            "cache_ext: Customizing the Page Cache with eBPF", SOSP 2025, §5 and Fig. 9 (file
            search, where MRU keeps a fixed part of a scan larger than memory).
Structures  One eviction list, most recently used page at the head. ``pm[page, PM.seq]``: the
            number of the insertion that brought the page in, ``pm[page, PM.added_ns]`` its model
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
from pagesim.core.layout import Layout, field
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
from pagesim.core.state import A_CGROUP, A_NOW_NS, A_PAGE, A_REQUEST, MAX_CANDIDATES
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

STATE = Layout(
    "ce-mru",
    pm=(
        field("seq", "insertions", "insertion number of the page"),
        field("added_ns", "ns", "model time of its insertion"),
    ),
    gi=(
        field("list", "list id", "the list id"),
        field("wanted", "pages", "candidates still wanted in the current walk"),
        field("inserts", "insertions", "insertions so far"),
        field("inflight", "pages", "parameter inflight"),
        field("window", "pages", "parameter skip_window"),
        field("inflight_ns", "ns", "parameter inflight_ns"),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.list] = list_create(s, a[A_CGROUP])
    s.gi[GI.inserts] = 0
    return 0 if s.gi[GI.list] >= 0 else -1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    s.gi[GI.inserts] += 1
    s.pm[p, PM.seq] = s.gi[GI.inserts]
    s.pm[p, PM.added_ns] = a[A_NOW_NS]
    list_add(s, s.gi[GI.list], p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    list_move(s, s.gi[GI.list], a[A_PAGE], False)
    return 0


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    list_del(s, r[A_PAGE])
    return 0


@kernel
def _verdict(s, a, index, page):  # type: ignore[no-untyped-def]
    if s.gi[GI.wanted] <= 0:
        return STOP
    if index < s.gi[GI.window] and (
        s.gi[GI.inserts] - s.pm[page, PM.seq] < s.gi[GI.inflight]
        or a[A_NOW_NS] - s.pm[page, PM.added_ns] < s.gi[GI.inflight_ns]
    ):
        return CONTINUE  # still under I/O: skipped, left in place
    s.gi[GI.wanted] -= 1
    return EVICT


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.wanted] = min(a[A_REQUEST], MAX_CANDIDATES)
    n = list_iterate(s, a, s.gi[GI.list], _verdict, 0, SKIP, -1, SKIP, -1)
    return max(n, 0)


class CeMRU(Policy):
    """cache_ext's MRU policy; see the module docstring."""

    name = "ce-mru"
    description = "cache_ext MRU: evict the page used last, skipping pages under I/O near the head"
    params = defaults("ce-mru")  # policies/params.toml
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
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
        s.gi[GI.inflight] = inflight
        s.gi[GI.window] = window
        s.gi[GI.inflight_ns] = inflight_ns

    def check_invariants(self, s: Any) -> None:
        """The list holds exactly the resident pages."""
        pages = list_pages(s, int(s.gi[GI.list])).tolist()
        assert sorted(pages) == np.flatnonzero(s.resident).tolist(), "list != resident set"
