"""SIEVE by hand, plus the step driver shared by the SIEVE / S3-FIFO / W-TinyLFU / LRFU tests.

Rows show the queue oldest first (the hand sweeps from old to new), ``3*`` = visited bit set,
``^`` marks the page under the hand after the access.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies.base import Policy
from pagesim.policies.registry import make_policy
from pagesim.policies.sieve import Sieve
from pagesim.trace import Trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "crosscheck"))
import naive  # noqa: E402


def steps(
    policy: Policy, ids: list[int], capacity: int, *, interpreted: bool = False
) -> tuple[int, list[set[int]], Any]:
    """Run ``policy`` access by access (``Run.advance(1)``), checking invariants after each.

    Returns the misses, the resident ids after each access, and the finished Run.
    """
    trace = Trace.from_ids(np.asarray(ids, dtype=np.int64))
    run = Run(trace, policy, capacity, interpreted=interpreted)
    resident: list[set[int]] = []
    while run.done < run.n:
        run.advance(1)
        resident.append({int(x) for x in trace.original_id[np.flatnonzero(run.state.resident)]})
        policy.check_invariants(run.state)
    res = run.result()
    assert res.counters["fallback_evictions"] == 0, "the policy left evictions to the fallback"
    assert res.counters["rejected"] == 0, "the framework refused a candidate"
    return res.misses, resident, run


def random_ids(seed: int, n: int = 3000, pages: int = 80) -> list[int]:
    """Zipf-like ids with a scan mixed in, seeded."""
    rng = np.random.default_rng(seed)
    ids = rng.zipf(1.3, size=n) % pages
    ids[n // 3 : n // 3 + pages] = np.arange(pages)
    return ids.astype(np.int64).tolist()


def test_sieve_by_hand():
    # capacity 3
    # acc  hit  queue (old -> new)   what the hand did
    #  1    m   1
    #  2    m   1 2
    #  3    m   1 2 3
    #  1    h   1* 2 3
    #  4    m   1 3^ 4              from the oldest: 1* cleared, 2 evicted, hand on 3
    #  2    m   1 4^ 2              3 evicted, hand on 4
    #  5    m   1 2^ 5              4 evicted (1 survives: its bit was cleared but it stays put)
    #  1    h   1* 2^ 5
    #  3    m   1* 5^ 3             2 evicted; 1 is behind the hand and keeps its bit
    # 7 misses; LRU misses 8 (it evicts 1 at access 7, which is used again).
    ids = [1, 2, 3, 1, 4, 2, 5, 1, 3]
    misses, resident, _ = steps(Sieve(), ids, 3)
    assert misses == 7
    assert resident[4:] == [{1, 3, 4}, {1, 2, 4}, {1, 2, 5}, {1, 2, 5}, {1, 3, 5}]
    assert simulate(Trace.from_ids(ids), make_policy("lru"), 3).misses == 8


def test_sieve_hand_wraps_to_the_oldest():
    # capacity 2: 1 2 1 2 -> 1* 2*. The miss on 3 clears 1 and 2, runs past the newest, wraps
    # to the oldest (1, now clear) and evicts it; the hand rests on 2: queue 2^ 3.
    # 4 then evicts 2 (cleared on the way): 3^ 4.
    ids = [1, 2, 1, 2, 3, 4]
    misses, resident, run = steps(Sieve(), ids, 2)
    assert resident[4:] == [{2, 3}, {3, 4}]
    assert misses == 4


def test_sieve_compiled_equals_interpreted():
    trace = Trace.from_ids(random_ids(7))
    for cap in (1, 5, 23):
        compiled = simulate(trace, Sieve(), cap)
        interp = simulate(trace, Sieve(), cap, interpreted=True)
        assert compiled.mode == "compiled" and interp.mode == "interpreted"
        assert compiled.counters == interp.counters


def test_sieve_invariants_each_step_and_naive_hits():
    ids = random_ids(11, n=400, pages=30)
    for cap in (1, 4, 17):
        misses, resident, _ = steps(Sieve(), ids, cap)
        hits = [t > 0 and p in resident[t - 1] for t, p in enumerate(ids)]
        assert hits == naive.sieve(ids, cap)


@settings(max_examples=60)
@given(ids=st.lists(st.integers(0, 12), max_size=120), capacity=st.integers(1, 10))
def test_sieve_misses_equal_naive(ids, capacity):
    res = simulate(Trace.from_ids(np.array(ids, dtype=np.int64)), Sieve(), capacity)
    assert res.misses == naive.misses(naive.sieve(ids, capacity))
