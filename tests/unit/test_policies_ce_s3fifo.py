"""cache_ext S3-FIFO by hand (the rules as coded; pagesim's ``s3fifo`` is the paper's).

Lists oldest (head) first, ``p:f`` = page and freq; a read miss gives freq 1.
"""

from __future__ import annotations

import numpy as np
from test_policies_sieve import steps

from pagesim.core.lists import list_add_tail, list_pages
from pagesim.core.shadow import SH_TAIL
from pagesim.core.state import A_REQUEST, ACC_LEN, DIRTY, RESIDENT, make_state
from pagesim.engine import simulate
from pagesim.policies import ce_s3fifo as m
from pagesim.policies.ce_s3fifo import CeS3FIFO
from pagesim.policies.s3fifo import S3FIFO
from pagesim.trace import Trace

IDS = [1, 2, 3, 1, 4, 2, 5, 1, 2, 6, 6, 7, 2]


def test_ce_s3fifo_by_hand_capacity_3():
    # capacity 3: capacity // 15 = 0, so |S| >= 0 always chooses S. Shadow table: 3 entries.
    # #   acc  hit  S        M              shadow    what happened
    # 1-3 1 2 3 m   1:1 2:1 3:1
    # 4   1    h    1:2
    # 5   4    m    3 4                     2         S walk: 1 (freq 2 > 1) promoted to M's
    #                                                 tail (freq kept); 2 (freq 1) evicted
    # 6   2    m    4        1:2 2:1        3         S walk: 3 evicted; then 2 has a shadow
    #                                                 entry: to M
    # 7   5    m    5        1 2            3 4       4 evicted
    # 8   1    h             1:3
    # 9   2    h             1:3 2:2
    # 10  6    m    6        1 2            3 4 5     5 evicted
    # 11  6    h    6:2
    # 12  7    m    7        6 1            4 5 2     S walk: 6 promoted, S empty: own
    #                                                 fallback to M's pass t = 0 over 1:3 2:2
    #                                                 6:2, each kept page to the tail, round
    #                                                 and round: 1:2 2:1 6:1 1:1 2:0 6:0 1:0
    #                                                 2:-1 < 0 -> 2 evicted (8 visits);
    #                                                 shadow full: 3 dropped
    # 13  2    m    -        6:0 1:0 2:1    5 7       S walk: 7 evicted (its entry drops 4);
    #                                                 2 has a shadow entry: to M
    # 9 misses
    misses, resident, run = steps(CeS3FIFO(), IDS, 3)
    assert misses == 9
    assert resident == [
        {1},
        {1, 2},
        {1, 2, 3},
        {1, 2, 3},
        {1, 3, 4},
        {1, 2, 4},
        {1, 2, 5},
        {1, 2, 5},
        {1, 2, 5},
        {1, 2, 6},
        {1, 2, 6},
        {1, 6, 7},
        {1, 2, 6},
    ]
    s = run.state
    orig = Trace.from_ids(IDS).original_id
    main = list_pages(s, int(s.gi[m.GI.main]))
    assert orig[main].tolist() == [6, 1, 2]
    assert s.pm[main, m.PM.freq].tolist() == [0, 0, 1]
    ghost = []
    p = int(s.gi[m.GI.ghost + SH_TAIL])
    while p >= 0:
        ghost.append(int(orig[p]))
        p = int(s.pm[p, m.PM.ghost_prev])
    assert ghost == [5, 7]  # oldest first


def test_ce_s3fifo_cache_ext_rule_leaves_short_small_walk_to_the_fallback():
    # own_fallback=False: at access 12 the S walk promotes 6 and proposes nothing; the
    # framework's fallback evicts one page. Accesses 1-11 as above.
    c = simulate(Trace.from_ids(IDS[:12]), CeS3FIFO(own_fallback=False), 3).counters
    assert (c["fallback_evictions"], c["policy_evictions"]) == (1, 4)


def _state(capacity: int, small: list[tuple[int, int]], main: list[tuple[int, int]], dirty=()):  # type: ignore[no-untyped-def]
    """A ce-s3fifo state with the given (page, freq) lists, oldest first, and counters."""
    pol = CeS3FIFO()
    n = len(small) + len(main)
    s = make_state(n, **pol.state_shape())
    pol.configure(s, capacity)
    a = np.zeros(ACC_LEN, dtype=np.int64)
    m._init.py_func(s, a)
    for lid, pages, in_main in ((s.gi[m.GI.small], small, 0), (s.gi[m.GI.main], main, 1)):
        for p, f in pages:
            s.resident[p] = RESIDENT | (DIRTY if p in dirty else 0)
            list_add_tail(s, int(lid), p)
            s.pm[p, m.PM.freq] = f
            s.pm[p, m.PM.in_main] = in_main
    s.gi[m.GI.small_size] = len(small)
    s.gi[m.GI.main_size] = len(main)
    return s, a


def test_ce_s3fifo_small_walk_moves_kept_pages_to_main():
    # capacity 30 (capacity // 15 = 2), S = 0 1 2 with 0 dirty, 1:2, 2:0; M = 3:1 4:1 5:1.
    # |S| = 3 >= 2: S. 0 may not be evicted: kept, i.e. moved to M's tail WITHOUT IN_MAIN;
    # 1 (freq 2 > 1) promoted to M's tail with freq 2 and IN_MAIN; 2 proposed (moved to S's
    # tail). Counters: |S| = 3 - 2 kept = 1, |M| = 3 + 2 = 5.
    s, a = _state(30, [(0, 1), (1, 2), (2, 0)], [(3, 1), (4, 1), (5, 1)], dirty={0})
    a[A_REQUEST] = 1
    n = m._evict.py_func(s, a)
    assert s.cand[:n].tolist() == [2]
    assert list_pages(s, int(s.gi[m.GI.small])).tolist() == [2]
    assert list_pages(s, int(s.gi[m.GI.main])).tolist() == [3, 4, 5, 0, 1]
    assert (int(s.pm[0, m.PM.in_main]), int(s.pm[1, m.PM.in_main]), int(s.pm[1, m.PM.freq])) == (0, 1, 2)
    assert (int(s.gi[m.GI.small_size]), int(s.gi[m.GI.main_size])) == (1, 5)


def test_ce_s3fifo_main_passes_escalate_when_a_pass_ends_at_4097_nodes():
    # capacity 4500 (// 15 = 300), S empty, M = 4200 pages all freq 1: |S| = 0 < 300 and
    # |M| > 0: M. Pass t = 0 visits 4097 nodes: 1 -> 0, not < 0, each kept to the tail. Pass
    # t = 1 starts at the 4098th page (index 4097): 1 -> 0 < 1: proposed.
    s, a = _state(4500, [], [(p, 1) for p in range(4200)])
    a[A_REQUEST] = 1
    n = m._evict(s, a)
    assert s.cand[:n].tolist() == [4097]
    assert (s.pm[:4097, m.PM.freq] == 0).all() and (s.pm[4098:4200, m.PM.freq] == 1).all()
    assert int(s.pm[4097, m.PM.freq]) == 0
    order = list_pages(s, int(s.gi[m.GI.main])).tolist()
    assert order[:3] == [4098, 4099, 4100] and order[-1] == 4097


def test_ce_s3fifo_main_pass_comes_round_and_never_proposes_twice():
    # M = 0:0 1:3, request 5, S empty (capacity 30): pass 0: 0 -> -1 < 0 proposed (to the
    # tail: 1 0); 1 -> 2 kept (0 1); 0 met again: rotated on untouched; 1 -> 1; 0; 1 -> 0; 0;
    # 1 -> -1 < 0 proposed. Both proposed: the passes rotate them until 4097 visits each.
    # 2 candidates, each once; freqs -1 -1.
    s, a = _state(30, [], [(0, 0), (1, 3)])
    a[A_REQUEST] = 5
    n = m._evict(s, a)
    assert s.cand[:n].tolist() == [0, 1]
    assert s.pm[:2, m.PM.freq].tolist() == [-1, -1]


def test_ce_s3fifo_small_walk_stops_where_it_came_round():
    # S = 0:1 1:0, M = 2:3 (capacity 30, |S| = 2 >= 2: S), request 5, own_fallback: S walk
    # proposes 0 and 1 (each to S's tail), meets 0 again and stops; M's pass 0: 2 -> 2, 1, 0,
    # -1 (three rotations on a one-page list) -> proposed. Candidates 0 1 2.
    s, a = _state(30, [(0, 1), (1, 0)], [(2, 3)])
    a[A_REQUEST] = 5
    n = m._evict(s, a)
    assert s.cand[:n].tolist() == [0, 1, 2]
    assert list_pages(s, int(s.gi[m.GI.small])).tolist() == [0, 1]


def test_ce_s3fifo_differs_from_paper_s3fifo():
    # capacity 20: the paper's S holds 2 pages and promotes after two hits; cache_ext's
    # threshold is 20 // 15 = 1 and a page needs one hit. Same trace, different misses.
    ids = (np.random.default_rng(9).zipf(1.1, 4000) % 200).tolist()
    trace = Trace.from_ids(ids)
    ce = simulate(trace, CeS3FIFO(), 20).misses
    paper = simulate(trace, S3FIFO(), 20).misses
    assert ce != paper
    assert simulate(trace, CeS3FIFO(), 20).counters["fallback_evictions"] == 0
