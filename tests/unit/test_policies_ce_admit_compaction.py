"""The compaction admission filter by hand: a compaction thread's read misses bypass the cache."""

from __future__ import annotations

import numpy as np

from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies.admit_compaction import MAX_BYPASS_TAGS, AdmitCompaction
from pagesim.policies.get_scan import parse_tags
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace
from pagesim.workloads.cache_ext import CACHE_EXT_WORKLOADS, build_compaction


def test_admit_compaction_by_hand():
    # capacity 2, compaction tag 7; LRU order below (most recent first).
    # #  page tag  hit  LRU list   what happened
    # 1   1    0   m    1
    # 2   2    7   m    1          compaction miss: bypassed, not inserted
    # 3   2    0   m    2 1
    # 4   3    7   m    2 1        bypassed
    # 5   1    0   h    1 2
    # 6   3    0   m    3 1        2 (least recent) evicted
    # 7   1    7   h    1 3        a compaction hit is an ordinary hit
    # 5 misses, 2 bypassed, 1 eviction
    ids = [1, 2, 2, 3, 1, 3, 1]
    tags = [0, 7, 0, 7, 0, 0, 7]
    trace = Trace.from_ids(np.asarray(ids), tag=np.asarray(tags))
    policy = AdmitCompaction(compaction_tags="7")
    run = Run(trace, policy, 2)
    resident = []
    while run.done < run.n:
        run.advance(1)
        resident.append({int(x) for x in trace.original_id[np.flatnonzero(run.state.resident)]})
        policy.check_invariants(run.state)
    c = run.result().counters
    assert (c["misses"], c["hits"], c["bypassed"], c["evictions"]) == (5, 2, 2, 1)
    assert c["fallback_evictions"] == 0 and c["rejected"] == 0
    assert resident == [{1}, {1}, {1, 2}, {1, 2}, {1, 2}, {1, 3}, {1, 3}]


def test_admit_compaction_without_compaction_tags_is_lru():
    rng = np.random.default_rng(8)
    ids = rng.zipf(1.2, 3000) % 70
    trace = Trace.from_ids(ids, tag=rng.integers(0, 3, 3000))
    for cap in (1, 9, 40):
        ours = simulate(trace, AdmitCompaction(compaction_tags="5"), cap)
        assert ours.misses == simulate(trace, make_policy("lru"), cap).misses
        assert ours.counters["bypassed"] == 0


def test_admit_compaction_keeps_compaction_reads_out():
    # GETs (tag 0) over 30 hot pages, compaction (tag 1) streaming 3000 cold pages; capacity
    # 30: filtered, the hot set stays and only its 30 compulsory misses happen among GETs.
    rng = np.random.default_rng(1)
    ids = np.empty(6000, dtype=np.int64)
    ids[0::2] = rng.integers(0, 30, 3000)
    ids[1::2] = 10_000 + np.arange(3000)
    tags = np.tile([0, 1], 3000)
    trace = Trace.from_ids(ids, tag=tags)
    c = simulate(trace, AdmitCompaction(compaction_tags="1"), 30).counters
    assert c["bypassed"] == 3000
    assert c["misses"] == 3000 + 30


def test_the_default_compaction_tags_are_the_compaction_workloads_compaction_thread():
    """``pagesim run compaction --policy admit-compaction`` filters the compaction thread."""
    defaults = {**CACHE_EXT_WORKLOADS["compaction"].defaults, "scale": 1 / 8192, "ops": 200}
    workload = build_compaction(**defaults)
    default_tags = parse_tags(AdmitCompaction.params["compaction_tags"], MAX_BYPASS_TAGS, "admit-compaction")
    assert default_tags == workload.groups["compaction"]
    assert not set(default_tags) & set(workload.groups["foreground"])
