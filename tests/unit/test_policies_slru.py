"""SLRU by hand: segments after each access, and its limits (protected = 0 is LRU)."""

from __future__ import annotations

import pytest
from test_policies_common import random_trace, run_steps

from pagesim.engine import simulate
from pagesim.policies import make_policy
from pagesim.policies.slru import SLRU, segment_sizes
from pagesim.trace import Trace


def test_slru_capacity_5_by_hand():
    # capacity 5, protected = 0.4: protected holds int(5 * 0.4) = 2, probation 3; heads first
    # access  hit?  probation    protected   evicted
    #   1      m    1
    #   2      m    2 1
    #   3      m    3 2 1
    #   4      m    3 2 1        4            (probation holds its 3: into protected)
    #   1      h    3 2          1 4
    #   5      m    5 3 2        1 4
    #   2      h    4 5 3        2 1          (protected over 2: its tail 4 back to probation)
    #   6      m    6 4 5        2 1          3
    #   1      h    6 4 5        1 2
    #   7      m    7 6 4        1 2          5   (LRU would evict 4 here: 5 is newer)
    ids = [1, 2, 3, 4, 1, 5, 2, 6, 1, 7]
    misses, resident = run_steps("slru", ids, 5, protected=0.4)
    assert misses == 7
    assert resident == [
        {1},
        {1, 2},
        {1, 2, 3},
        {1, 2, 3, 4},
        {1, 2, 3, 4},
        {1, 2, 3, 4, 5},
        {1, 2, 3, 4, 5},
        {1, 2, 4, 5, 6},
        {1, 2, 4, 5, 6},
        {1, 2, 4, 6, 7},
    ]


def test_slru_without_protected_segment_is_lru():
    """protected = 0: every hit lands in protected and goes straight back to probation's head."""
    trace = Trace.from_ids(random_trace(7))
    for capacity in (5, 20, 50):
        slru = simulate(trace, SLRU(protected=0.0), capacity).misses
        assert slru == simulate(trace, make_policy("lru"), capacity).misses


def test_segment_sizes_truncate_the_protected_share():
    assert segment_sizes(10, 0.8) == (2, 8)
    assert segment_sizes(7, 0.5) == (4, 3)  # int(3.5) = 3 protected, the rest probation
    with pytest.raises(ValueError, match="protected must be in"):
        segment_sizes(10, 1.0)
