"""cache_ext's MGLRU port by hand, quirks included.

Generations are written by sequence number, each list head (newest insertion) first; a read
miss gives refs 2, tier 1.
"""

from __future__ import annotations

import numpy as np
from test_policies_sieve import random_ids, steps

from pagesim.core.lists import list_pages
from pagesim.core.state import A_MODE, A_NOW_NS, A_PAGE, A_REQUEST, ACC_LEN, MODE_KERNEL, RESIDENT, make_state
from pagesim.engine import simulate
from pagesim.policies import ce_mglru as m
from pagesim.policies.ce_mglru import CeMGLRU, tier_of
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace


def test_tiers():
    assert [tier_of(r) for r in (0, 1, 2, 3, 4, 7, 8, 50)] == [0, 0, 1, 1, 2, 2, 3, 3]


def test_ce_mglru_scans_the_newest_insertion_first():
    # capacity 3. min_seq 0, max_seq 3: min + 2 < max, so new pages go to generation 1.
    # #  acc  hit  gen 1 (head first)  what happened
    # 1-3 1 2 3 m  3 2 1
    # 4   4    m   4 2 1    4 generations: no aging; max - min = 3 > 2 and generation 0 is
    #                       empty: retired, min_seq 1. PID: no refaults, threshold 3. The walk
    #                       starts at the head: 3 (tier 1 <= 3) proposed. Then min + 2 >= max:
    #                       4 goes to min_seq's generation, 1, at the head.
    # 5   5    m   5 2 1    3 generations, the oldest holds all 3 pages: no aging; 4 proposed
    # 6   3    m   3 2 1    5 proposed; 3 had a shadow entry (tier 1): refaulted[1] = 1
    # 7   1    h            refs 3
    # 8   6    m   6 2 1    3 proposed
    # 7 misses: the port evicts like MRU here (LRU would evict 1, 2, 3, 4, ... in turn)
    ids = [1, 2, 3, 4, 5, 3, 1, 6]
    misses, resident, run = steps(CeMGLRU(), ids, 3)
    assert misses == 7
    assert resident[3:] == [{1, 2, 4}, {1, 2, 5}, {1, 2, 3}, {1, 2, 3}, {1, 2, 6}]
    s = run.state
    assert (int(s.gi[m.GI.min_seq]), int(s.gi[m.GI.max_seq])) == (1, 3)
    orig = Trace.from_ids(ids).original_id
    assert orig[list_pages(s, int(s.gi[m.GI.lists + 1]))].tolist() == [6, 2, 1]
    assert int(s.gi[m.GI.refaulted + 1]) == 1 and int(s.gi[m.GI.evicted + 1]) == 4


def test_ce_mglru_pid_threshold_protects_a_tier():
    # Pages 0 1 2 inserted into generation 1 (list 2 1 0); page 1 has refs 1 (tier 0), the
    # others 2 (tier 1). Counters: evicted[0] = 100, refaulted[1] = 200, evicted[1] = 100.
    # evict: generation 0 is empty and retired (min_seq 1): the history folds, avg := current / 2:
    #   avg_total[0] = 50, avg_refaulted[1] = 100, avg_total[1] = 50; current := 0.
    # PID, tier 1: refaulted 100 >= 64 and 100 x (50 + 64) x 1 = 11400 > (0 + 1) x 50 x 2 = 100:
    #   not low enough, threshold 0.
    # Walk generation 1 from its head: 2 (tier 1 > 0) protected[1] = 1, promoted to
    #   generation 2's tail; 1 (tier 0) proposed, moved to generation 1's tail.
    pol = CeMGLRU()
    s = make_state(3, **pol.state_shape())
    pol.configure(s, 3)
    a = np.zeros(ACC_LEN, dtype=np.int64)
    m._init(s, a)
    for p in range(3):
        s.resident[p] = RESIDENT
        a[A_PAGE] = p
        m._added(s, a)
    s.pm[1, m.PM.refs] = 1
    s.gi[m.GI.evicted] = 100
    s.gi[m.GI.refaulted + 1] = 200
    s.gi[m.GI.evicted + 1] = 100
    a[A_REQUEST] = 1
    n = m._evict(s, a)
    assert s.cand[:n].tolist() == [1]
    assert int(s.gi[m.GI.threshold]) == 0 and int(s.gi[m.GI.protected + 1]) == 1
    assert list_pages(s, int(s.gi[m.GI.lists + 1])).tolist() == [0, 1]
    assert list_pages(s, int(s.gi[m.GI.lists + 2])).tolist() == [2]
    assert [int(s.gi[m.GI.pages + g]) for g in range(4)] == [0, 2, 1, 0]
    assert (int(s.gi[m.GI.avg_refaulted + 1]), int(s.gi[m.GI.avg_total + 1]), int(s.gi[m.GI.avg_total])) == (
        100,
        50,
        50,
    )


def test_ce_mglru_invariants_and_own_fallback():
    for cap in (1, 7, 40):
        ids = random_ids(cap, n=2000, pages=90)
        steps(CeMGLRU(own_fallback=True), ids, cap)  # invariants after each access, no fallback
        c = simulate(Trace.from_ids(ids), CeMGLRU(), cap).counters
        assert c["rejected"] == 0 and c["evictions"] == c["policy_evictions"] + c["fallback_evictions"]


def _sliding(n: int = 8000, window: int = 60, every: int = 40) -> list[int]:
    """Uniform over a window of ``window`` pages that moves one page every ``every`` accesses."""
    rng = np.random.default_rng(0)
    return [i // every + int(rng.integers(window)) for i in range(n)]


def test_ce_mglru_follows_recency_closer_to_lru_than_to_mru():
    # A window of 60 pages sliding through a cache of 50: LRU keeps the window, MRU keeps the
    # pages it met first. The port walks the newest insertions first, so between its PID
    # resets it evicts like LIFO; when every page is protected its walk comes back empty and
    # the kernel's LRU (the framework's fallback) evicts. With the port's own fallback, or
    # with the retirement tested on the min_seq and max_seq after aging, it did worse than MRU.
    trace = Trace.from_ids(_sliding())
    misses = {name: simulate(trace, make_policy(name), 50).misses for name in ("lru", "mru")}
    ours = simulate(trace, CeMGLRU(), 50)
    assert ours.counters["fallback_evictions"] > 0
    assert ours.misses - misses["lru"] < misses["mru"] - ours.misses
    own = simulate(trace, CeMGLRU(own_fallback=True), 50).misses
    assert own > ours.misses
    # the head insertion is what keeps it from LRU: walks meeting the oldest insertion first
    # come within a tenth of LRU's misses
    oldest_first = simulate(trace, CeMGLRU(insert_tail=True), 50).misses
    assert oldest_first < ours.misses and oldest_first < 1.1 * misses["lru"]


def _three_gens_oldest_empty() -> tuple[CeMGLRU, object, np.ndarray]:
    """min_seq 1, max_seq 3 (three generations), five pages in generation 2, none in 1."""
    pol = CeMGLRU()
    s = make_state(8, **pol.state_shape())
    pol.configure(s, 8)
    a = np.zeros(ACC_LEN, dtype=np.int64)
    m._init(s, a)
    s.gi[m.GI.min_seq] = 2  # min + 2 >= max: insertions go to min_seq's generation, 2
    for p in range(5):
        s.resident[p] = RESIDENT
        a[A_PAGE] = p
        m._added(s, a)
    s.gi[m.GI.min_seq] = 1
    return pol, s, a


def test_ce_mglru_retires_with_the_sequence_numbers_read_before_aging():
    # cache_ext's evict_folios reads min_seq and max_seq once: with 3 generations and the oldest
    # empty, aging opens generation 4 and the retirement test (max - min > 2) still sees 3 - 1.
    # The oldest (empty) generation stays until the next call.
    pol, s, a = _three_gens_oldest_empty()
    a[A_REQUEST] = 1
    assert m._evict(s, a) == 0  # the oldest generation is empty: nothing to propose
    assert (int(s.gi[m.GI.min_seq]), int(s.gi[m.GI.max_seq])) == (1, 4)
    n = m._evict(s, a)  # now 4 generations: the empty oldest retires, generation 2 is walked
    assert (int(s.gi[m.GI.min_seq]), int(s.gi[m.GI.max_seq])) == (2, 4)
    assert s.cand[:n].tolist() == [4]  # the newest insertion, at the head


def test_ce_mglru_off_lru_proposals_are_refused_and_locked_pages_promoted():
    # Five pages in generation 2 (list 4 3 2 1 0). inflight 2: pages 4 and 3 (the last two
    # insertions) are off the LRU; inflight_ns 100: page 2, added at t = 950, is still locked
    # at t = 1000. The walk (request 3): 4 and 3 proposed but refused (moved to the tail, not
    # candidates), 2 promoted to generation 3, 1 proposed: one candidate for a request of 3.
    pol, s, a = _three_gens_oldest_empty()
    s.gi[m.GI.min_seq] = 2
    s.gi[m.GI.inflight] = 2
    s.gi[m.GI.inflight_ns] = 100
    s.pm[:5, m.PM.added_ns] = [0, 0, 950, 0, 0]
    a[A_REQUEST] = 3
    a[A_MODE] = MODE_KERNEL
    a[A_NOW_NS] = 1000
    n = m._evict(s, a)
    assert s.cand[:n].tolist() == [1]
    assert int(s.gi[m.GI.n_refused]) == 2 and int(s.gi[m.GI.n_locked]) == 1
    assert list_pages(s, int(s.gi[m.GI.lists + 2])).tolist() == [0, 4, 3, 1]
    assert list_pages(s, int(s.gi[m.GI.lists + 3])).tolist() == [2]
