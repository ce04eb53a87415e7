"""Exact miss counts against libCacheSim 0.3.5 (its Python package, C core), unit-size objects.

Traces (../shared/traces, see PROVENANCE.md): cloudPhysicsIO.oracleGeneral.bin as shipped, and
the LIRS traces loop, multi2, sprite and 2_pools converted to oracleGeneral with pagesim's own
writer (libCacheSim's Belady reads next-access times only from that format; its text reader is
fragile, see shared/reference/libcachesim_notes.md). libCacheSim reports only miss ratios:
misses = round(ratio * requests).

Every count below was produced by both simulators and is pinned, so a change in either shows up
as a named mismatch. Where the definitions could differ (LFU's tie rule), a small computed
example shows the alternative and checks that libCacheSim and pagesim use the same rule.
"""

from __future__ import annotations

from pathlib import Path

import lcs
import naive
import pytest

from pagesim.engine import simulate
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace

pytestmark = pytest.mark.realtrace

#: pagesim name -> libcachesim class name (defaults: Clock n_bit_counter=1, init_freq=0)
PEERS = {"lru": "LRU", "fifo": "FIFO", "clock": "Clock", "lfu": "LFU", "opt": "Belady"}

#: trace -> (path under TRACES, {capacity: {policy: misses}}); misses agreed by both simulators.
EXPECTED: dict[str, tuple[str, dict[int, dict[str, int]]]] = {
    "cloudPhysicsIO": (
        "libcachesim/cloudPhysicsIO.oracleGeneral.bin",
        {
            100: {"lru": 100215, "fifo": 101495, "clock": 100047, "lfu": 100973, "opt": 94010},
            1000: {"lru": 94823, "fifo": 95520, "clock": 94727, "lfu": 95562, "opt": 87025},
            10000: {"lru": 79438, "fifo": 79210, "clock": 84750, "lfu": 81059, "opt": 61843},
        },
    ),
    "loop": (  # 1,011 pages in a loop: every non-clairvoyant policy here misses every access
        "lirs/loop.trace.gz",
        {
            100: {"lru": 505500, "fifo": 505500, "clock": 505500, "lfu": 505500, "opt": 456000},
            500: {"lru": 505500, "fifo": 505500, "clock": 505500, "lfu": 505500, "opt": 256000},
            1000: {"lru": 505500, "fifo": 505500, "clock": 505500, "lfu": 505500, "opt": 6500},
        },
    ),
    "multi2": (
        "lirs/multi2.trace.gz",
        {
            500: {"lru": 16845, "fifo": 18719, "clock": 16642, "lfu": 16902, "opt": 12207},
            2000: {"lru": 13419, "fifo": 14664, "clock": 13055, "lfu": 12908, "opt": 6671},
            4000: {"lru": 6649, "fifo": 7716, "clock": 6925, "lfu": 7061, "opt": 5684},
        },
    ),
    "sprite": (
        "lirs/sprite.trace.gz",
        {
            100: {"lru": 105079, "fifo": 104111, "clock": 104662, "lfu": 125327, "opt": 65929},
            1000: {"lru": 12544, "fifo": 17093, "clock": 12992, "lfu": 51933, "opt": 9060},
            5000: {"lru": 7163, "fifo": 7463, "clock": 7161, "lfu": 8231, "opt": 7075},
        },
    ),
    "2_pools": (
        "lirs/2_pools.trace.gz",
        {
            100: {"lru": 78054, "fifo": 80621, "clock": 76134, "lfu": 53135, "opt": 49361},
            1000: {"lru": 45585, "fifo": 50043, "clock": 45547, "lfu": 45639, "opt": 31481},
            5000: {"lru": 27052, "fifo": 27519, "clock": 27125, "lfu": 26950, "opt": 14653},
        },
    ),
}

CASES = [
    (trace, cap, policy)
    for trace, (_, table) in EXPECTED.items()
    for cap, row in table.items()
    for policy in row
]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """trace name -> (pagesim Trace, path of an oracleGeneral file libCacheSim can read)."""
    return lcs.prepare_traces(tmp_path_factory, {name: rel for name, (rel, _) in EXPECTED.items()})


def lcs_misses(policy: str, oracle: Path, capacity: int, n_requests: int) -> int:
    """Miss count of libCacheSim's peer of ``policy`` on an oracleGeneral file, unit sizes."""
    return lcs.misses(PEERS[policy], oracle, capacity, n_requests)


@pytest.mark.parametrize(("trace_name", "capacity", "policy"), CASES)
def test_miss_counts_equal_libcachesim(prepared, trace_name, capacity, policy):
    trace, oracle = prepared[trace_name]
    expected = EXPECTED[trace_name][1][capacity][policy]
    ours = simulate(trace, make_policy(policy), capacity)
    assert ours.counters["fallback_evictions"] == 0
    theirs = lcs_misses(policy, oracle, capacity, trace.n_requests)
    assert (ours.misses, theirs) == (expected, expected)


def test_lfu_tie_rule_matches_libcachesim(tmp_path):
    """Ties among the least-used pages: libCacheSim and pagesim evict the least recently used.

    Capacity 2, accesses 1 2 2 1 3 2 4 2: at the miss on 3 pages 1 and 2 both have count 2; 2
    reached it first (its last access is older), so 2 goes and comes back twice: 6 misses.
    Breaking the tie by insertion order instead evicts 1 and leaves 4 misses.
    """
    ids = [1, 2, 2, 1, 3, 2, 4, 2]
    path = tmp_path / "tie.oracleGeneral.bin"
    lcs.write_oracle(ids, path)
    theirs = lcs_misses("lfu", path, 2, len(ids))
    ours = simulate(Trace.from_ids(ids), make_policy("lfu"), 2).misses
    assert naive.misses(naive.lfu(ids, 2, tie="lru")) == 6
    assert naive.misses(naive.lfu(ids, 2, tie="fifo")) == 4
    assert ours == theirs == 6


def test_clock_newcomer_bit_matches_libcachesim(tmp_path):
    """libCacheSim's Clock inserts with the bit clear (``init_freq=0``), and so does pagesim.

    Capacity 2, accesses 1 2 1 3 2: at the miss on 3 the hand passes 1 (bit set) and evicts 2;
    2 then misses again: 4 misses. Inserting with the bit set (libCacheSim ``init_freq=1``, the
    other textbook convention) clears both bits, evicts 1 and lets 2 hit: 3 misses.
    """
    ids = [1, 2, 1, 3, 2]
    path = tmp_path / "clock.oracleGeneral.bin"
    lcs.write_oracle(ids, path)
    theirs = lcs_misses("clock", path, 2, len(ids))
    ours = simulate(Trace.from_ids(ids), make_policy("clock"), 2).misses
    assert ours == theirs == naive.misses(naive.clock(ids, 2)) == 4
    assert lcs.misses("Clock", path, 2, len(ids), hashpower=8, init_freq=1) == 3
