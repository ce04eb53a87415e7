"""cache_ext FIFO by hand: insertion order, hits change nothing, dirty pages skipped."""

from __future__ import annotations

import numpy as np
from test_policies_sieve import steps

from pagesim.core.lists import list_pages
from pagesim.core.state import A_REQUEST, ACC_LEN, DIRTY, RESIDENT, make_state
from pagesim.engine import simulate
from pagesim.policies.ce_fifo import GI, CeFIFO, _added, _evict, _init
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace

BELADY = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]


def test_ce_fifo_belady_sequence_3_frames():
    # list oldest first (head) -> newest (tail); the head is proposed
    # acc  hit  list       evicted
    #  1-3  m   1 2 3
    #  4    m   2 3 4      1
    #  1    m   3 4 1      2
    #  2    m   4 1 2      3
    #  5    m   1 2 5      4
    #  1    h   1 2 5
    #  2    h   1 2 5
    #  3    m   2 5 3      1
    #  4    m   5 3 4      2
    #  5    h
    # 9 misses (Belady's anomaly: 10 with 4 frames, below)
    misses, resident, _ = steps(CeFIFO(), BELADY, 3)
    assert misses == 9
    assert resident[3:7] == [{2, 3, 4}, {1, 3, 4}, {1, 2, 4}, {1, 2, 5}]
    assert resident[-1] == {3, 4, 5}


def test_ce_fifo_belady_sequence_4_frames():
    # 1-4 m; 1, 2 h; 5 m evicts 1; 1 m evicts 2; 2 m evicts 3; 3 m evicts 4; 4 m evicts 5;
    # 5 m evicts 1: 10 misses
    misses, resident, _ = steps(CeFIFO(), BELADY, 4)
    assert misses == 10
    assert resident[-1] == {2, 3, 4, 5}


def test_ce_fifo_evicts_as_the_classic_fifo():
    ids = np.random.default_rng(3).zipf(1.2, 3000) % 70
    trace = Trace.from_ids(ids)
    for cap in (1, 9, 40):
        ours = simulate(trace, CeFIFO(), cap).counters
        classic = simulate(trace, make_policy("fifo"), cap).counters
        assert ours["misses"] == classic["misses"]
        assert ours["proposed"] == ours["policy_evictions"] == ours["evictions"]


def _state_with(pages: int, dirty: set[int]):  # type: ignore[no-untyped-def]
    """A ce-fifo state holding pages 0..pages-1 (inserted in order), some of them dirty."""
    s = make_state(pages, **CeFIFO().state_shape())
    a = np.zeros(ACC_LEN, dtype=np.int64)
    _init.py_func(s, a)
    for p in range(pages):
        s.resident[p] = RESIDENT | (DIRTY if p in dirty else 0)
        a[1] = p
        _added.py_func(s, a)
    return s, a


def test_ce_fifo_skips_dirty_pages_and_leaves_them_in_place():
    # list 0 1 2 3 4, pages 0 and 2 dirty.
    # request 1: 0 skipped, 1 proposed.  request 3: 1, 3, 4 proposed (0, 2 skipped).
    # request 5: only 3 clean pages: 1, 3, 4. Nodes never move (simple mode).
    s, a = _state_with(5, {0, 2})
    for request, want in ((1, [1]), (3, [1, 3, 4]), (5, [1, 3, 4])):
        a[A_REQUEST] = request
        n = _evict.py_func(s, a)
        assert s.cand[:n].tolist() == want
        assert list_pages(s, int(s.gi[GI.list])).tolist() == [0, 1, 2, 3, 4]


def test_ce_fifo_compiled_evict_equals_python():
    s, a = _state_with(6, {1})
    a[A_REQUEST] = 2
    n = _evict(s, a)
    assert s.cand[:n].tolist() == [0, 2]
