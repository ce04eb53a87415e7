"""GET-SCAN by hand: scan pages (tag 1) get a quota, beyond it they go first.

Lists head (sampled first) -> tail, ``p:n`` = page and access count (a read miss counts 2).
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies.ce_lfu import CeLFU
from pagesim.policies.get_scan import MAX_SCAN_TAGS, GetScan, parse_tags
from pagesim.trace import Trace
from pagesim.workloads.cache_ext import CACHE_EXT_WORKLOADS, build_get_scan


def run_tagged(policy, ids, tags, capacity):  # type: ignore[no-untyped-def]
    trace = Trace.from_ids(np.asarray(ids), tag=np.asarray(tags))
    run = Run(trace, policy, capacity)
    resident = []
    while run.done < run.n:
        run.advance(1)
        resident.append({int(x) for x in trace.original_id[np.flatnonzero(run.state.resident)]})
        policy.check_invariants(run.state)
    return run.result().counters, resident


def test_get_scan_by_hand():
    # capacity 4, scan_quota 2, sample_size 2.
    # #  page tag  hit  GENERAL      SCAN        sampled -> evicted
    # 1   1    0   m   1:2
    # 2   2    0   m   1 2:2
    # 3   1    0   h   1:3 2
    # 4   10   1   m   1 2          10:2         (scan pages 1)
    # 5   11   1   m   1 2          10 11:2      (scan pages 2, cache full)
    # 6   3    0   m   1 2 3        11           2 >= quota: SCAN 10:2 11:2 -> 10 (tie)
    # 7   12   1   m   3 1          11 12        1 < quota: GENERAL 1:3 2:2 -> 2; 1 2 rotate
    # 8   2    0   m   3 1 2        12           2 >= quota: SCAN 11:2 12:2 -> 11
    # 9   12   0   h                12:3         a GET hit leaves 12 in SCAN
    # 10  13   1   m   2 1          12 13        GENERAL 3:2 1:3 -> 3; 3 1 rotate
    # 11  3    0   m   2 1 3        12           SCAN 12:3 13:2 -> 13
    # 9 misses
    ids = [1, 2, 1, 10, 11, 3, 12, 2, 12, 13, 3]
    tags = [0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0]
    c, resident = run_tagged(GetScan(scan_tags="1", scan_quota=2, sample_size=2), ids, tags, 4)
    assert c["misses"] == 9 and c["rejected"] == 0 and c["fallback_evictions"] == 0
    assert resident[5:] == [
        {1, 2, 3, 11},
        {1, 3, 11, 12},
        {1, 2, 3, 12},
        {1, 2, 3, 12},
        {1, 2, 12, 13},
        {1, 2, 3, 12},
    ]


def test_get_scan_without_scan_pages_cache_ext_rule_leaves_it_to_the_fallback():
    # no page carries tag 1: cache_ext proposes nothing; 1 2 3 with capacity 2: one eviction,
    # by the fallback. With own_fallback (default) GENERAL is sampled instead.
    c, _ = run_tagged(GetScan(scan_tags="1", own_fallback=False), [1, 2, 3], [0, 0, 0], 2)
    assert (c["evictions"], c["fallback_evictions"], c["proposed"]) == (1, 1, 0)
    c, _ = run_tagged(GetScan(scan_tags="1"), [1, 2, 3], [0, 0, 0], 2)
    assert (c["evictions"], c["fallback_evictions"], c["policy_evictions"]) == (1, 0, 1)


def test_get_scan_without_scan_tags_is_ce_lfu_with_sample_5():
    ids = np.random.default_rng(4).zipf(1.2, 3000) % 80
    trace = Trace.from_ids(ids)
    for cap in (1, 7, 30):
        ours = simulate(trace, GetScan(scan_tags=""), cap)
        assert ours.misses == simulate(trace, CeLFU(sample_size=5), cap).misses


def test_get_scan_scans_do_not_flush_gets():
    # a hot set of 20 pages read by GET threads (tag 0) and a long scan (tag 1) over 500 pages,
    # interleaved; cache of 40, quota 10: the scan never takes more than its quota, so after
    # warm-up every GET hits (ce-lfu, blind to tags, lets the scan push hot pages out).
    rng = np.random.default_rng(0)
    hot = rng.integers(0, 20, 2000)
    scan = 1000 + np.arange(2000) % 500
    ids = np.empty(4000, dtype=np.int64)
    ids[0::2], ids[1::2] = hot, scan
    tags = np.tile([0, 1], 2000)
    trace = Trace.from_ids(ids, tag=tags)
    gs = simulate(trace, GetScan(scan_tags="1", scan_quota=10), 40)
    lfu = simulate(trace, CeLFU(), 40)
    assert gs.misses < lfu.misses
    assert gs.misses == 20 + 2000  # compulsory hot misses and every scan access


def test_scan_tags_parsing():
    assert parse_tags("3, 1,3", 100, "x") == [1, 3]
    assert parse_tags(5, 100, "x") == [5]
    assert parse_tags((2, 9), 100, "x") == [2, 9]
    assert parse_tags("", 100, "x") == []
    with pytest.raises(ValueError, match="integers"):
        parse_tags("a,b", 100, "x")
    with pytest.raises(ValueError, match="at most"):
        parse_tags(list(range(101)), 100, "x")


def test_the_default_scan_tags_are_the_get_scan_workloads_scan_thread():
    """``pagesim run get-scan --policy get-scan`` protects the GETs without ``--set``."""
    defaults = {**CACHE_EXT_WORKLOADS["get-scan"].defaults, "scale": 1 / 8192, "gets": 200}
    workload = build_get_scan(**defaults)
    default_tags = parse_tags(GetScan.params["scan_tags"], MAX_SCAN_TAGS, "get-scan")
    assert default_tags == workload.groups["scan"]
    assert not set(default_tags) & set(workload.groups["get"])
