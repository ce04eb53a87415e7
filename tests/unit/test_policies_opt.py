"""Belady's OPT by hand: evict the page whose next use is furthest; demand fetch, no bypass."""

from __future__ import annotations

from test_policies_common import run_steps

BELADY = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]


def test_opt_belady_sequence_3_frames():
    # t  acc  hit  next use of the residents at a miss          resident after
    #  0  1    m                                                1
    #  1  2    m                                                1 2
    #  2  3    m                                                1 2 3
    #  3  4    m   1@4 2@5 3@9 -> evict 3                       1 2 4
    #  4  1    h                                                1 2 4
    #  5  2    h                                                1 2 4
    #  6  5    m   1@7 2@8 4@10 -> evict 4                      1 2 5
    #  7  1    h
    #  8  2    h
    #  9  3    m   1 never, 2 never, 5@11 -> evict 1 or 2       {1 or 2} 3 5
    # 10  4    m   3 never, the other of 1/2 never, 5@11        ... 4 5
    # 11  5    h
    # 7 misses (FIFO 9, LRU 10).
    misses, resident = run_steps("opt", BELADY, 3)
    assert misses == 7
    assert resident[:9] == [
        {1},
        {1, 2},
        {1, 2, 3},
        {1, 2, 4},
        {1, 2, 4},
        {1, 2, 4},
        {1, 2, 5},
        {1, 2, 5},
        {1, 2, 5},
    ]
    assert {3, 5} <= resident[9] and {4, 5} <= resident[10] and 5 in resident[11]


def test_opt_belady_sequence_4_frames():
    # 1-4 miss; 1 2 hit; 5 misses: 1@7 2@8 3@9 4@10 -> evict 4; 1 2 3 hit; 4 misses (evicts
    # one of 1 2 3, none used again); 5 hits. 6 misses.
    misses, resident = run_steps("opt", BELADY, 4)
    assert misses == 6
    assert resident[6] == {1, 2, 3, 5}


def test_opt_demand_fetch_never_bypasses():
    # capacity 2: 1 2 3 1 2. At 3: next uses 1@3, 2@4 -> evict 2 and insert 3 although 3 is
    # never used again (a bypassing OPT would keep 1 2 and miss 3 times, not 4).
    # t  acc  hit  resident
    #  0  1    m   1
    #  1  2    m   1 2
    #  2  3    m   1 3
    #  3  1    h   1 3
    #  4  2    m   1 2 or 2 3 (1 and 3 are never used again)
    misses, resident = run_steps("opt", [1, 2, 3, 1, 2], 2)
    assert misses == 4
    assert resident[2] == {1, 3}
