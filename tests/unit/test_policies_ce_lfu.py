"""cache_ext LFU (windowed sampled LFU) by hand.

Lists are written head (sampled first) -> tail, ``p:n`` = page and access count. A read miss
counts twice (``added`` then the read's ``accessed``), so a page that came in has count 2.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
from test_policies_sieve import steps

from pagesim.core.lists import list_pages
from pagesim.engine import simulate
from pagesim.engine.kernel import simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.ce_lfu import GI, PM, CeLFU
from pagesim.trace import KIND_FILE, Trace


def test_ce_lfu_windowed_sampling_by_hand():
    # capacity 4, sample_size 2: each eviction scores the 2 head pages, evicts the lower
    # (ties: the one nearer the head) and rotates both to the tail.
    # acc  hit  list after                     sampled -> evicted
    #  1-4  m   1:2 2:2 3:2 4:2
    #  1 1  h   1:4 ...
    #  2    h   1:4 2:3 3:2 4:2
    #  5    m   3 4 1 5                        1:4 2:3 -> 2 (a global LFU would evict 3)
    #  6    m   1 5 4 6                        3:2 4:2 -> 3 (tie, nearer the head)
    #  3    m   4 6 1 3                        1:4 5:2 -> 5
    #  5    m   1 3 6 5                        4:2 6:2 -> 4
    #  4    m   6 5 1 4                        1:4 3:2 -> 3
    #  1    h
    # 9 misses
    ids = [1, 2, 3, 4, 1, 1, 2, 5, 6, 3, 5, 4, 1]
    misses, resident, run = steps(CeLFU(sample_size=2), ids, 4)
    assert misses == 9
    assert resident[7:] == [
        {1, 3, 4, 5},
        {1, 4, 5, 6},
        {1, 3, 4, 6},
        {1, 3, 5, 6},
        {1, 4, 5, 6},
        {1, 4, 5, 6},
    ]
    s = run.state
    order = trace_ids(ids)[list_pages(s, int(s.gi[GI.list]))].tolist()
    assert order == [6, 5, 1, 4]
    assert s.pm[list_pages(s, int(s.gi[GI.list])), PM.accesses].tolist() == [2, 2, 5, 2]


def trace_ids(ids: list[int]) -> np.ndarray:
    return Trace.from_ids(ids).original_id


def test_ce_lfu_short_list_is_sampled_whole():
    # capacity 3 < S = 20: partial sampling scores the whole list as one group.
    #  1 2 3 m, 1 h: 1:3 2:2 3:2
    #  4 m: min of 1:3 2:2 3:2 -> 2 (tie with 3, nearer the head); list 1 3 4
    #  2 m: min of 1:3 3:2 4:2 -> 3; list 1 4 2
    #  5 m: min of 1:3 4:2 2:2 -> 4; list 1 2 5
    # 6 misses
    misses, resident, _ = steps(CeLFU(), [1, 2, 3, 1, 4, 2, 5], 3)
    assert misses == 6
    assert resident[4:] == [{1, 3, 4}, {1, 2, 4}, {1, 2, 5}]


def test_ce_lfu_cache_ext_rule_on_a_short_list_falls_back():
    # partial=False: a list of 3 pages cannot give 20 samples, list_sample yields nothing and
    # the fallback evicts all 3 pages that had to go (accesses 4, 2, 5 above).
    c = simulate(Trace.from_ids([1, 2, 3, 1, 4, 2, 5]), CeLFU(partial=False), 3).counters
    assert (c["evictions"], c["fallback_evictions"], c["proposed"]) == (3, 3, 0)


def test_ce_lfu_fault_read_is_a_uniform_offset():
    # Without the read counted on a miss every count is one lower; no comparison changes.
    ids = (np.random.default_rng(2).zipf(1.2, 2000) % 60).tolist()
    for cap in (3, 25):
        a = steps(CeLFU(), ids, cap)[0]
        b = steps(CeLFU(fault_read=False), ids, cap)[0]
        assert a == b


def test_ce_lfu_parameters_are_checked():
    with pytest.raises(ValueError, match="sample_size"):
        simulate(Trace.from_ids([1, 2]), CeLFU(sample_size=100), 1)


def _windowed_lfu_misses(pages: list[int], capacity: int, batch: int, sample: int = 20) -> int:
    """A plain Python windowed LFU (cache_ext ``list_sample``) that frees ``batch`` pages at a time.

    A miss when full samples the ``batch * sample`` head pages, takes the least count of each
    group of ``sample`` (first on ties), rotates the whole sample to the tail and evicts the
    winners; the new page enters at the tail with count 2 (``added`` + the read).
    """
    lst: OrderedDict[int, None] = OrderedDict()  # head first
    count: dict[int, int] = {}
    misses = 0
    for p in pages:
        if p in lst:
            count[p] += 1
            continue
        misses += 1
        if len(lst) >= capacity:
            k = min(batch * sample, len(lst))
            window = [lst.popitem(last=False)[0] for _ in range(k)]
            victims = [min(window[g : g + sample], key=count.__getitem__) for g in range(0, k, sample)]
            for q in window:
                lst[q] = None
            for q in victims:
                del lst[q], count[q]
        lst[p] = None
        count[p] = 2
    return misses


def test_ce_lfu_batches_of_32_cross_checked():
    # Cache mode evicts one page per miss; kernel mode's reclaim frees 32 at a time, so the 32
    # pages read in between lie together at the tail and share one or two groups of 20 when they
    # reach the head: most of a batch's victims come from pages that already survived a rotation.
    # Both runs agree exactly with the plain windowed LFU above, with batch 1 and batch 32.
    rng = np.random.default_rng(1)
    weights = np.arange(1, 3001) ** -0.9
    ids = rng.choice(3000, 20000, p=weights / weights.sum())
    cap = 700  # >= 32 x 20: every batch samples whole groups
    pages = Trace.from_ids(ids).page.tolist()
    one, batched = _windowed_lfu_misses(pages, cap, 1), _windowed_lfu_misses(pages, cap, 32)
    assert simulate(Trace.from_ids(ids), CeLFU(), cap).counters["misses"] == one
    trace = Trace.from_ids(ids, kind=np.full(ids.shape[0], KIND_FILE, np.uint8))
    config = KernelConfig(memory_pages=4 * cap + 1024, swap="none", file_device="ssd", readahead_pages=0)
    kernel = simulate_kernel(trace, CeLFU(), config, cgroup_limits=[cap]).counters
    assert kernel["misses"] == batched and kernel["fallback_evictions"] == 0
    assert batched > one  # the clumps cost hits
