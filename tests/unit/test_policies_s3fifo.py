"""S3-FIFO by hand (libCacheSim's rules).

Rows show S and M oldest first, ``p:f`` = page and freq, G the shadow entries oldest first.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_policies_sieve import naive, random_ids, steps

from pagesim.core.shadow import SH_HEAD, SH_LEN, SH_TAIL
from pagesim.engine import simulate
from pagesim.policies.s3fifo import GI, S3FIFO
from pagesim.trace import Trace


def test_s3fifo_by_hand():
    # capacity 5, small_ratio 0.4: S holds 2, M 3, G int(0.9 * 5) = 4 shadow entries.
    # acc  hit  S         M                 G     what happened
    #  1    m   1:0
    #  2    m   1:0 2:0
    #  3    m   1 2       3                       S full, nothing evicted yet: into M
    #  4    m   1 2       3 4
    #  5    m   1 2       3 4 5
    #  1    h   1:1 2
    #  1    h   1:2 2
    #  6    m   6         3 4 5 1:0         2     M at its share: evict from S; 1 (freq 2 >=
    #                                             threshold 2) moves to M, 2 (freq 0) leaves
    #  2    m   6         4 5 1 2           -     shadow hit; M over its share (4 > 3): 3 goes
    #  7    m   6 7       5 1 2                   M still over: 4 goes; 7 into S
    #  5    h   6 7       5:1 1 2
    #  8    m   7 8       5:1 1 2           6     M at its share: S's 6 (freq 0) leaves
    #  9    m   8 9       5:1 1 2           6 7
    # 10 misses.
    ids = [1, 2, 3, 4, 5, 1, 1, 6, 2, 7, 5, 8, 9]
    misses, resident, run = steps(S3FIFO(small_ratio=0.4), ids, 5)
    assert misses == 10
    assert resident[7:] == [
        {1, 3, 4, 5, 6},
        {1, 2, 4, 5, 6},
        {1, 2, 5, 6, 7},
        {1, 2, 5, 6, 7},
        {1, 2, 5, 7, 8},
        {1, 2, 5, 8, 9},
    ]
    # the shadow FIFO holds 6 then 7 (dense ids 5 and 6 in first-occurrence order)
    s = run.state
    assert int(s.gi[GI.ghost + SH_LEN]) == 2
    assert (int(s.gi[GI.ghost + SH_TAIL]), int(s.gi[GI.ghost + SH_HEAD])) == (5, 6)


def test_s3fifo_main_clock_reinserts_with_freq_minus_one():
    # capacity 3, small_ratio 0.34: S holds 1, M 2. 1 -> S, 2 and 3 -> M (S full before any
    # eviction). Hits: 2 twice (freq 2), 3 once (freq 1).
    # 4 m: M at its share (2), S non-empty: 1 (freq 0) leaves S, G = [1]; 4 -> S.
    # 1 m: shadow hit, M at its share and S has 4 (freq 0): 4 leaves, G = [4]; 1 -> M (3 > 2).
    # 5 m: M (oldest first) = 2:2 3:1 1:0 is over its share, so M's CLOCK runs: 2 goes back
    #      with freq 1 (M = 3 1 2), 3 goes back with 0 (M = 1 2 3), 1 (freq 0) is evicted.
    #      5 -> S. 6 misses.
    ids = [1, 2, 3, 2, 2, 3, 4, 1, 5]
    misses, resident, _ = steps(S3FIFO(small_ratio=0.34), ids, 3)
    assert resident[-3:] == [{2, 3, 4}, {1, 2, 3}, {2, 3, 5}]
    assert misses == 6


@pytest.mark.parametrize("cap", [1, 5, 23])
def test_s3fifo_compiled_equals_interpreted(cap):
    trace = Trace.from_ids(random_ids(7))
    compiled = simulate(trace, S3FIFO(), cap)
    interp = simulate(trace, S3FIFO(), cap, interpreted=True)
    assert compiled.mode == "compiled" and interp.mode == "interpreted"
    assert compiled.counters == interp.counters


def test_s3fifo_invariants_each_step_and_naive_hits():
    ids = random_ids(11, n=400, pages=30)
    for cap in (1, 4, 17):
        _, resident, _ = steps(S3FIFO(), ids, cap)
        hits = [t > 0 and p in resident[t - 1] for t, p in enumerate(ids)]
        assert hits == naive.s3fifo(ids, cap)


@settings(max_examples=60)
@given(
    ids=st.lists(st.integers(0, 15), max_size=150),
    capacity=st.integers(1, 12),
    ratio=st.sampled_from([0.1, 0.25, 0.5]),
)
def test_s3fifo_misses_equal_naive(ids, capacity, ratio):
    res = simulate(Trace.from_ids(np.array(ids, dtype=np.int64)), S3FIFO(small_ratio=ratio), capacity)
    assert res.misses == naive.misses(naive.s3fifo(ids, capacity, small_ratio=ratio))


def test_s3fifo_parameters_are_checked():
    with pytest.raises(ValueError, match="small_ratio"):
        simulate(Trace.from_ids([1, 2]), S3FIFO(small_ratio=1.5), 2)
    with pytest.raises(ValueError, match="unknown|no parameter"):
        S3FIFO(bogus=1)
