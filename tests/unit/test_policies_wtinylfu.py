"""W-TinyLFU by hand (libCacheSim's structure), both sketches.

Rows list the window W, probation and protected, oldest first; est(p) is the sketch's estimate.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_policies_sieve import naive, random_ids, steps

from pagesim.core.lists import list_pages
from pagesim.core.state import make_state
from pagesim.engine import simulate
from pagesim.policies.wtinylfu import GI, PM, WTinyLFU, _estimate, xxh64_u64
from pagesim.trace import Trace

IDS = [1, 2, 3, 4, 5, 6, 6, 6, 7, 8]


def test_wtinylfu_paper_sketch_by_hand():
    # capacity 5, window 0.2 (W's share 1), main 4: protected 0.5 -> 2, probation 2.
    # acc  hit  W          probation  protected   what happened
    # 1-5   m   1 2 3 4 5                          W takes everything until the cache is full
    #  6    m   6          1 2        3 4          W drains into main (probation, then
    #                                              protected) until main is full; then W's
    #                                              tail 5 (est 1) meets main's victim 1
    #                                              (est 1): not more frequent, 5 is evicted
    # 6 6   h   6                                  hits in W are recorded: est(6) = 3, then 4
    #  7    m   7          2 6        3 4          6 (est 4) beats 1 (est 1): 1 evicted
    #  8    m   8          2 6        3 4          7 (est 1) loses to 2 (est 1): 7 evicted
    misses, resident, run = steps(WTinyLFU(window=0.2, protected=0.5), IDS, 5)
    assert misses == 8
    assert resident[5:] == [{1, 2, 3, 4, 6}] * 3 + [{2, 3, 4, 6, 7}, {2, 3, 4, 6, 8}]
    estimate = getattr(_estimate, "py_func", _estimate)  # plain function under NUMBA_DISABLE_JIT=1
    est = [int(estimate(run.state, p)) for p in range(8)]
    assert est[5] == 4 and est[0] == 1  # page 6 (dense 5) and page 1 (dense 0)


def test_wtinylfu_libcachesim_sketch_ignores_window_hits():
    # Same trace with libCacheSim's counting Bloom filter: hits in W are not recorded, but a
    # page is recorded when inserted and again when it leaves W. At 6: 1..4 move into main
    # (est 2 each), 5 loses (est 1 + 1 on leaving = 2, not yet counted when compared: 1 < 2).
    # At 7: 6 has est 1 (its three window hits do not count) against 1's 2: 6 is evicted, and
    # at 8 the same happens to 7. Main never changes: {1, 2, 3, 4} + the newest page.
    misses, resident, _ = steps(WTinyLFU(window=0.2, protected=0.5, sketch="cbf"), IDS, 5)
    assert misses == 8
    assert resident[-2:] == [{1, 2, 3, 4, 7}, {1, 2, 3, 4, 8}]


def test_wtinylfu_probation_hit_promotes_and_demotes():
    # capacity 5, window 0.2, protected 0.5; 1..5 then 6 as above: probation 1 2, protected 3 4.
    # A hit on 1 moves it to protected (3 4 1), over its share: 3, protected's oldest, goes to
    # probation's newest end: probation 2 3, protected 4 1. A hit on 4 just refreshes it.
    ids = [1, 2, 3, 4, 5, 6, 1, 4]
    _, resident, run = steps(WTinyLFU(window=0.2, protected=0.5), ids, 5)
    s = run.state
    dense = {int(p): i + 1 for i, p in enumerate(Trace.from_ids(ids).page[:6])}

    def seg(g):
        return [dense[int(p)] for p in list_pages(s, int(s.gi[g]))][::-1]  # oldest first

    assert (seg(GI.win), seg(GI.prob), seg(GI.prot)) == ([6], [2, 3], [1, 4])


def test_xxh64_known_values():
    """XXH64 of the 8 little-endian bytes of 0 and 1 with seed 0 (values from xxHash)."""
    got = xxh64_u64(np.array([0, 1], dtype=np.uint64), 0)
    want = [naive.xxh64_u64(0, 0), naive.xxh64_u64(1, 0)]
    assert got.tolist() == want
    assert want[0] == 0x34C96ACDCADB1BBB  # xxhash.xxh64(bytes(8)).intdigest()


def test_wtinylfu_both_hashes_in_one_word():
    # pm[p, PM.hash] = ha + hb * 2**32, ha and hb the low 32 bits of XXH64 of the page's key (by
    # default its dense id) under libCacheSim's two seeds
    policy = WTinyLFU()
    s = make_state(4, 1, **policy.state_shape())
    policy.configure(s, 2)
    word = s.pm[:, PM.hash].view(np.uint64)
    keys = np.arange(4, dtype=np.uint64)
    low = np.uint64(0xFFFFFFFF)
    assert (word & low == xxh64_u64(keys, 0x12345678) & low).all()
    assert (word >> np.uint64(32) == xxh64_u64(keys, 0x12344321) & low).all()


@pytest.mark.parametrize("sketch", ["cms", "cbf"])
def test_wtinylfu_compiled_equals_interpreted(sketch):
    trace = Trace.from_ids(random_ids(7, n=1500))
    for cap in (2, 23):
        compiled = simulate(trace, WTinyLFU(sketch=sketch), cap)
        interp = simulate(trace, WTinyLFU(sketch=sketch), cap, interpreted=True)
        assert compiled.mode == "compiled" and interp.mode == "interpreted"
        assert compiled.counters == interp.counters


@pytest.mark.parametrize("sketch", ["cms", "cbf"])
def test_wtinylfu_invariants_each_step_and_naive_hits(sketch):
    ids = random_ids(11, n=300, pages=30)
    for cap in (1, 4, 17):
        _, resident, _ = steps(WTinyLFU(sketch=sketch, window=0.1), ids, cap)
        hits = [t > 0 and p in resident[t - 1] for t, p in enumerate(ids)]
        trace = Trace.from_ids(ids)
        ref = naive.wtinylfu(trace.page.tolist(), cap, sketch, window=0.1)
        assert hits == ref, cap


@settings(max_examples=40)
@given(
    ids=st.lists(st.integers(0, 40), max_size=150),
    capacity=st.integers(1, 12),
    sketch=st.sampled_from(["cms", "cbf"]),
)
def test_wtinylfu_misses_equal_naive(ids, capacity, sketch):
    trace = Trace.from_ids(np.array(ids, dtype=np.int64))
    res = simulate(trace, WTinyLFU(sketch=sketch, keys=trace.original_id), capacity)
    assert res.misses == naive.misses(naive.wtinylfu(ids, capacity, sketch))


def test_wtinylfu_parameters_are_checked():
    with pytest.raises(ValueError, match="sketch"):
        simulate(Trace.from_ids([1, 2]), WTinyLFU(sketch="bloom"), 2)
    with pytest.raises(ValueError, match="keys"):
        simulate(Trace.from_ids([1, 2, 3]), WTinyLFU(keys=[1]), 2)
    assert WTinyLFU(keys=np.arange(3), sketch="cbf").label() == "w-tinylfu-sketch=cbf"
