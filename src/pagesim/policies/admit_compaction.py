"""Admission filter for compaction (admit-compaction): background compaction threads' reads bypass the cache.

Source      cache_ext spec §4.8 (``cache-ext/rocksdb``: ``cachestream/bpf/
            cachestream_admit_hook.bpf.c`` and ``cachestream/cachestream.cc``, which register
            RocksDB's compaction thread ids), §1.2 (``admit_folio``: called on a miss in the
            buffered-read path, true = bypass); Zussman et al., "cache_ext: Customizing the Page
            Cache with eBPF", SOSP 2025, §5 and §6.1.5 (RocksDB P99 2.61 -> 2.16 ms).
Structures  The compaction tags (cache_ext's "bypassed tids" map, at most 1000 thread ids);
            one eviction list in LRU order, most recent at the head (see Deviations 1).
Rules       admit: a miss by a compaction tag (``a[A_TAG]``) that is not a write is not inserted
            (cache_ext reads it into private pages and frees them: direct I/O in effect); any
            other miss is inserted. A compaction thread's hit on a resident page is an ordinary
            hit (``admit_folio`` is only asked on a miss).
            added: insert at the head. accessed: move to the head. evict: propose the tail.
Parameters  compaction_tags = "4" (comma-separated tags): the compaction threads (the
            ``compaction`` workload's compaction thread is tag 4, its foreground threads 0-3).
Complexity  O(number of compaction tags) per miss; O(1) per hit and eviction. Per page: one list
            node.
Deviations  1. cache_ext sets only ``admit_folio``: the kernel's default active/inactive LRU
               evicts. pagesim's default policy is CLOCK over page ids, a poor stand-in, so the
               module evicts in LRU order itself (pagesim's ``lru``); with no compaction tag in
               the trace it is exactly ``lru``.
            2. ``admit_folio`` sits in the buffered-read path; compaction's writes are inserted.
               Cache mode gives hooks no operation (``a[A_OP]`` stays 0, a read), so there every
               miss of a compaction tag bypasses; where ``a[A_OP]`` says write it is inserted.
Peers       pagesim's ``lru`` (identical without compaction tags); no simulator has the filter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_move, list_pages, list_tail
from pagesim.core.state import A_CGROUP, A_OP, A_PAGE, A_TAG
from pagesim.policies.base import Policy
from pagesim.policies.get_scan import parse_tags
from pagesim.policies.params import defaults
from pagesim.trace.trace import OP_WRITE

MAX_BYPASS_TAGS = 1000  #: cache_ext's map of bypassed tids holds at most 1000 entries
STATE = Layout(
    "admit-compaction",
    gi=(
        field("list", "list id", "the list"),
        field("n_tags", "tags", "compaction tags held"),
        field("tags", "tag", "the compaction tags, GI.n_tags of them", count=MAX_BYPASS_TAGS),
    ),
)
GI = STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.list] = list_create(s, a[A_CGROUP])
    return 0 if s.gi[GI.list] >= 0 else -1


@kernel
def _admit(s, a):  # type: ignore[no-untyped-def]
    if a[A_OP] == OP_WRITE:
        return 1
    tag = a[A_TAG]
    for i in range(s.gi[GI.n_tags]):
        if s.gi[GI.tags + i] == tag:
            return 0
    return 1


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
    victim = list_tail(s, s.gi[GI.list])
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


class AdmitCompaction(Policy):
    """cache_ext's admission filter for compaction threads; see the module docstring."""

    name = "admit-compaction"
    description = "cache_ext admission filter: compaction threads' read misses bypass the cache (LRU)"
    params = defaults("admit-compaction")  # policies/params.toml
    int_globals = STATE.int_globals
    init = staticmethod(_init)
    admit = staticmethod(_admit)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)

    def configure(self, s: Any, capacity: int) -> None:
        """Write the compaction tags into the globals."""
        tags = parse_tags(
            self.values["compaction_tags"], MAX_BYPASS_TAGS, "admit-compaction: compaction_tags"
        )
        s.gi[GI.n_tags] = len(tags)
        s.gi[GI.tags : GI.tags + len(tags)] = tags

    def check_invariants(self, s: Any) -> None:
        """The list holds exactly the resident pages."""
        pages = list_pages(s, int(s.gi[GI.list])).tolist()
        assert sorted(pages) == np.flatnonzero(s.resident).tolist(), "list != resident set"
