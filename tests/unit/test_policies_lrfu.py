"""LRFU by hand and at its two limits (λ = 1 is LRU, λ -> 0 is LFU)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_policies_sieve import naive, random_ids, steps

from pagesim.engine import simulate
from pagesim.policies.lrfu import LRFU
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace


def test_lrfu_by_hand_frequency_beats_recency():
    # capacity 2, accesses 1 1 2 3 (times 0 1 2 3). At the miss on 3 (t = 3):
    #   λ = 0.5: CRF(1) = 2^-1.5 + 2^-1 = 0.854, CRF(2) = 2^-0.5 = 0.707 -> 2 is evicted
    #   λ = 1:   CRF(1) = 2^-3 + 2^-2 = 0.375,  CRF(2) = 2^-1 = 0.5      -> 1 is evicted (LRU)
    ids = [1, 1, 2, 3]
    _, resident, run = steps(LRFU(lam=0.5), ids, 2)
    assert resident[-1] == {1, 3}
    # the stored CRF of 1 is its value at its last reference (t = 1): 1 + 2^-0.5
    assert run.state.pf[0, 0] == pytest.approx(1 + 2**-0.5)
    _, resident, _ = steps(LRFU(lam=1.0), ids, 2)
    assert resident[-1] == {2, 3}
    assert naive.lrfu(ids, 2, 0.5) == [False, True, False, False]


def test_lrfu_half_life_is_one_over_lambda():
    assert LRFU(half_life=2).lam() == 0.5
    trace = Trace.from_ids(random_ids(3))
    assert simulate(trace, LRFU(half_life=8), 20).counters == simulate(trace, LRFU(lam=0.125), 20).counters
    with pytest.raises(ValueError, match="half_life"):
        simulate(trace, LRFU(half_life=0), 5)
    with pytest.raises(ValueError, match="lam"):
        simulate(trace, LRFU(lam=2.0), 5)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lrfu_limits_are_lru_and_lfu(seed):
    """λ = 1 gives LRU's misses; λ = 1e-12 gives LFU's (counts, ties to the older reference)."""
    trace = Trace.from_ids(random_ids(seed, n=4000, pages=120))
    for cap in (3, 20, 60):
        assert simulate(trace, LRFU(lam=1.0), cap).misses == simulate(trace, make_policy("lru"), cap).misses
        assert simulate(trace, LRFU(lam=1e-12), cap).misses == simulate(trace, make_policy("lfu"), cap).misses


def test_lrfu_lambda_zero_breaks_ties_by_heap_order_not_lfu():
    """λ = 0 exactly: every key is log2(count), ties stay where the heap has them.

    Capacity 2, accesses 1 1 4 4 3 4: at the miss on 3 both residents have count 2. LFU (and
    λ = 1e-12, whose λ·t_last favours the older reference) evicts 1 and the last 4 hits:
    3 misses. With λ = 0, 4 sits at the heap's root (it entered there with key 0 and its hit
    raised its key only to its child's, 1, which does not move it): 4 is evicted and misses again.
    """
    ids = [1, 1, 4, 4, 3, 4]
    trace = Trace.from_ids(ids)
    assert simulate(trace, make_policy("lfu"), 2).misses == 3
    assert simulate(trace, LRFU(lam=1e-12), 2).misses == 3
    assert simulate(trace, LRFU(lam=0.0), 2).misses == 4


@pytest.mark.parametrize("lam", [0.001, 0.3, 1.0])
def test_lrfu_compiled_equals_interpreted(lam):
    trace = Trace.from_ids(random_ids(7))
    for cap in (1, 23):
        compiled = simulate(trace, LRFU(lam=lam), cap)
        interp = simulate(trace, LRFU(lam=lam), cap, interpreted=True)
        assert compiled.mode == "compiled" and interp.mode == "interpreted"
        assert compiled.counters == interp.counters


def test_lrfu_invariants_each_step_and_naive_hits():
    ids = random_ids(11, n=300, pages=30)
    for cap in (1, 4, 17):
        _, resident, _ = steps(LRFU(lam=0.05), ids, cap)
        hits = [t > 0 and p in resident[t - 1] for t, p in enumerate(ids)]
        assert hits == naive.lrfu(ids, cap, 0.05)


@settings(max_examples=50)
@given(
    ids=st.lists(st.integers(0, 12), max_size=100),
    capacity=st.integers(1, 8),
    lam=st.sampled_from([0.001, 0.1, 0.37, 1.0]),
)
def test_lrfu_misses_equal_naive(ids, capacity, lam):
    res = simulate(Trace.from_ids(np.array(ids, dtype=np.int64)), LRFU(lam=lam), capacity)
    assert res.misses == naive.misses(naive.lrfu(ids, capacity, lam))
