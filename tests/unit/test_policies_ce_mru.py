"""cache_ext MRU by hand: evict the most recent page, skipping pages still under I/O."""

from __future__ import annotations

import numpy as np
import pytest
from test_policies_sieve import steps

from pagesim.engine import simulate
from pagesim.policies.ce_mru import CeMRU
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace


def test_ce_mru_plain_by_hand():
    # inflight 0 (cache mode's default): list most recent first; the head is evicted.
    # acc  hit  list      evicted
    #  1    m   1
    #  2    m   2 1
    #  3    m   3 2 1
    #  4    m   4 2 1     3
    #  3    m   3 2 1     4
    # 5 misses
    misses, resident, _ = steps(CeMRU(), [1, 2, 3, 4, 3], 3)
    assert misses == 5
    assert resident[-2:] == [{1, 2, 4}, {1, 2, 3}]


def test_ce_mru_skips_the_page_under_io():
    # inflight 1: the page of the last insertion is still under I/O and skipped.
    # acc  hit  list      evicted
    #  1-3  m   3 2 1                (insertions 1, 2, 3)
    #  4    m   4 3 1     2          head 3 came in by the last insertion: skipped; 2 proposed
    #  3    h   3 4 1
    # 4 misses (plain MRU: 5, above)
    misses, resident, _ = steps(CeMRU(inflight=1), [1, 2, 3, 4, 3], 3)
    assert misses == 4
    assert resident[-2:] == [{1, 3, 4}, {1, 3, 4}]


def test_ce_mru_skip_rule_only_within_the_window():
    # inflight 2, capacity 3: at 4's miss the list is 3 2 1; 3 and 2 came in by the last two
    # insertions. skip_window 200: both skipped, 1 evicted. skip_window 1: only position 0 is
    # checked, so 2 (position 1) is proposed although under I/O.
    _, resident, _ = steps(CeMRU(inflight=2), [1, 2, 3, 4], 3)
    assert resident[-1] == {2, 3, 4}
    _, resident, _ = steps(CeMRU(inflight=2, skip_window=1), [1, 2, 3, 4], 3)
    assert resident[-1] == {1, 3, 4}


def test_ce_mru_nothing_to_propose_falls_back():
    # capacity 1, inflight 1: at 2's miss the only page (1) came in by the last insertion and
    # the list ends inside the window: no candidate, the framework's fallback evicts 1.
    # At 3's miss the same happens to 2. 3 misses, 2 fallback evictions, 0 proposed.
    c = simulate(Trace.from_ids([1, 2, 3]), CeMRU(inflight=1), 1).counters
    assert (c["misses"], c["fallback_evictions"], c["proposed"]) == (3, 2, 0)


def test_ce_mru_inflight_ns_uses_the_model_clock():
    # Cache mode has no clock (a[A_NOW_NS] = 0): with inflight_ns > 0 every page counts as just
    # read in, so within the window nothing is proposed: [1, 2, 3] at capacity 2 misses 3
    # times, the fallback evicts once, 0 proposed. inflight_ns 0 is plain MRU (2 evicted).
    c = simulate(Trace.from_ids([1, 2, 3]), CeMRU(inflight_ns=1), 2).counters
    assert (c["misses"], c["fallback_evictions"], c["proposed"]) == (3, 1, 0)
    c = simulate(Trace.from_ids([1, 2, 3]), CeMRU(), 2).counters
    assert (c["fallback_evictions"], c["policy_evictions"]) == (0, 1)


def test_ce_mru_equals_classic_mru_in_cache_mode():
    ids = np.random.default_rng(5).zipf(1.2, 3000) % 70
    trace = Trace.from_ids(ids)
    for cap in (1, 9, 40):
        assert simulate(trace, CeMRU(), cap).misses == simulate(trace, make_policy("mru"), cap).misses


def test_ce_mru_parameters_are_checked():
    with pytest.raises(ValueError, match="inflight"):
        simulate(Trace.from_ids([1, 2]), CeMRU(inflight=-1), 1)
    with pytest.raises(ValueError, match="inflight_ns"):
        simulate(Trace.from_ids([1, 2]), CeMRU(inflight_ns=-1), 1)
