"""cache_ext LFU (ce-lfu): sampled, windowed LFU; of each group of 20 pages at the head the least used goes.

Source      cache_ext spec §4.3 (cache_ext repo ``policies/``, ``cache_ext_sampling``, the
            policy the paper calls LFU), §2.6c (``list_sample``, batch scoring), §1.2 (a read
            miss is ``folio_added`` then ``folio_accessed``); Zussman et al., "cache_ext:
            Customizing the Page Cache with eBPF", SOSP 2025, §4.2 (Fig. 4, batch scoring) and
            Fig. 6 (YCSB).
Structures  One eviction list; new pages enter at the tail, sampling takes the head.
            ``pm[page, PM.accesses]``: accesses since the page came in (cache_ext's hash map of
            counters).
Rules       added: append at the tail, accesses := 1; in cache mode the access that missed is
            also the page's first read (``fault_read``), so accesses := 2, as cache_ext sees a
            read miss (``added`` then ``accessed``).
            accessed: accesses += 1; no list change, no decay, no cap.
            removed: the counter is dropped (reset to 0).
            evict: ``list_sample`` with sample size S = 20: the ``request * 20`` pages nearest the
            head are scored (score = accesses; INT64_MAX for a page that may not be evicted:
            DIRTY in kernel mode), the lowest of each group of 20 consecutive pages is proposed
            (ties to the page nearer the head) and all sampled pages, winners included, rotate to
            the tail. So each page waits about one rotation before it is judged: a windowed LFU
            with a CLOCK-like sweep, not a global LFU.
Parameters  sample_size = 20 (pages per group): cache_ext's S (N = 32 x 20 = 640 pages per batch
            of 32; the paper's Fig. 4 says N = 512).
            partial = True: a list shorter than ``request * sample_size`` is sampled as it is (in
            groups of S and a shorter last one). False is cache_ext's rule: ``list_sample`` then
            fails and the framework's fallback evicts everything (see Deviations 1).
            fault_read = True: count the missed access as the first read (cache mode only).
Complexity  O(1) per hit; per eviction O(request x S) (20 pages scored, the window moved to the
            tail in O(1)). The list's order is also kept by position (``pm`` columns ring and
            slot, ``core.indexed.list_sample_indexed``) so that the sampled pages are read without
            walking the links one at a time; the list stays the truth (same candidates).
            Per page: one list node and three int64.
Deviations  1. A list shorter than the sample leaves every eviction to the fallback in cache_ext
               (the real runs had millions of pages, never fewer than 640); with small caches that
               would make the policy the default one, so ``partial=True`` samples what there is.
            2. The LevelDB mode (+100 000 for a file's last page) is compiled off in the policy
               that was run, and cache mode has no files: not modelled.
            3. Counters are int64 and never decay, as in cache_ext; the hash map's 4 M entry cap
               is not modelled (one counter per page).
Peers       libCacheSim 0.3.5 ``LFU`` is a global LFU (least count in the whole cache, ties to
            the oldest): a different rule; tests/crosscheck/test_ce_vs_libcachesim.py works one
            trace where the two differ and checks libCacheSim's count on it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.indexed import (
    INDEX_GLOBALS,
    index_add_tail,
    index_removed,
    index_reset,
    list_sample_indexed,
)
from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_create, list_pages
from pagesim.core.state import A_CGROUP, A_MODE, A_PAGE, A_REQUEST, DIRTY, MODE_CACHE, NEVER
from pagesim.policies.base import Policy, SpeedHints
from pagesim.policies.params import defaults

STATE = Layout(
    "ce-lfu",
    pm=(
        field("accesses", "accesses", "accesses since insertion"),
        field(
            "ring",
            "page id",
            "the list's order by position (the index of core.indexed.list_sample_indexed)",
        ),
        field("slot", "position", "the page's position in PM.ring"),
    ),
    gi=(
        field("list", "list id", "the list"),
        field("sample", "pages", "parameter sample_size"),
        field("partial", "flag", "parameter partial"),
        field("fault_read", "flag", "parameter fault_read"),
        field("order", "core.indexed", "the index's globals (core.indexed)", count=INDEX_GLOBALS),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.list] = list_create(s, a[A_CGROUP])
    index_reset(s, s.gi[GI.list], GI.order, PM.slot)
    return 0 if s.gi[GI.list] >= 0 else -1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    index_add_tail(s, s.gi[GI.list], p, GI.order, PM.ring, PM.slot)
    s.pm[p, PM.accesses] = 1
    if s.gi[GI.fault_read] != 0 and a[A_MODE] == MODE_CACHE:
        s.pm[p, PM.accesses] += 1
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    s.pm[a[A_PAGE], PM.accesses] += 1
    return 0


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    index_removed(s, s.gi[GI.list], r[A_PAGE], GI.order, PM.ring, PM.slot)
    s.pm[r[A_PAGE], PM.accesses] = 0
    return 0


@kernel_inline
def _score(s, a, page):  # type: ignore[no-untyped-def]
    if a[A_MODE] != MODE_CACHE and s.resident[page] & DIRTY:  # no dirty pages in cache mode
        return NEVER
    return s.pm[page, PM.accesses]


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    n = list_sample_indexed(
        s,
        a,
        s.gi[GI.list],
        _score,
        a[A_REQUEST],
        s.gi[GI.sample],
        s.gi[GI.partial] != 0,
        GI.order,
        PM.ring,
        PM.slot,
    )
    return max(n, 0)


class CeLFU(SpeedHints, Policy):
    """cache_ext's LFU (``cache_ext_sampling``); see the module docstring."""

    name = "ce-lfu"
    description = "cache_ext LFU: least accessed of each 20 pages sampled at the head (windowed)"
    params = defaults("ce-lfu")  # policies/params.toml
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    proposes_batches = True
    inline_hooks = ("added", "accessed", "evict", "removed")  # docs/performance.md
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Write the parameters into the globals."""
        size = int(self.values["sample_size"])
        if not 1 <= size <= 64:
            raise ValueError(f"ce-lfu: sample_size must be in 1..64 (32 x S <= 2048), got {size}")
        s.gi[GI.sample] = size
        s.gi[GI.partial] = int(bool(self.values["partial"]))
        s.gi[GI.fault_read] = int(bool(self.values["fault_read"]))

    def check_invariants(self, s: Any) -> None:
        """The list holds the resident pages; counters are positive exactly while resident."""
        pages = list_pages(s, int(s.gi[GI.list])).tolist()
        resident = np.flatnonzero(s.resident).tolist()
        assert sorted(pages) == resident, "list != resident set"
        acc = s.pm[:, PM.accesses]
        assert (acc[s.resident != 0] >= 1).all() and not acc[s.resident == 0].any(), "counters"
