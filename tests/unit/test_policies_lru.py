"""LRU by hand: resident set after each access (least recently used first in each row)."""

from __future__ import annotations

from test_policies_common import run_steps


def test_lru_capacity_3_by_hand():
    # access  hit?  resident, oldest use first   evicted
    #   1      m    1
    #   2      m    1 2
    #   3      m    1 2 3
    #   1      h    2 3 1
    #   4      m    3 1 4                          2
    #   2      m    1 4 2                          3
    #   5      m    4 2 5                          1
    #   1      m    2 5 1                          4
    #   2      h    5 1 2
    #   3      m    1 2 3                          5
    ids = [1, 2, 3, 1, 4, 2, 5, 1, 2, 3]
    misses, resident = run_steps("lru", ids, 3)
    assert misses == 8
    assert resident == [
        {1},
        {1, 2},
        {1, 2, 3},
        {1, 2, 3},
        {1, 3, 4},
        {1, 2, 4},
        {2, 4, 5},
        {1, 2, 5},
        {1, 2, 5},
        {1, 2, 3},
    ]


def test_lru_belady_sequence():
    # 3 frames                        4 frames
    # acc  hit  resident (old->new)   hit  resident (old->new)
    #  1    m   1                      m   1
    #  2    m   1 2                    m   1 2
    #  3    m   1 2 3                  m   1 2 3
    #  4    m   2 3 4                  m   1 2 3 4
    #  1    m   3 4 1                  h   2 3 4 1
    #  2    m   4 1 2                  h   3 4 1 2
    #  5    m   1 2 5                  m   4 1 2 5
    #  1    h   2 5 1                  h   4 2 5 1
    #  2    h   5 1 2                  h   4 5 1 2
    #  3    m   1 2 3                  m   5 1 2 3
    #  4    m   2 3 4                  m   1 2 3 4
    #  5    m   3 4 5                  m   2 3 4 5
    # 10 misses with 3 frames, 8 with 4: LRU is a stack algorithm, no anomaly.
    ids = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]
    m3, r3 = run_steps("lru", ids, 3)
    assert m3 == 10
    assert r3 == [
        {1},
        {1, 2},
        {1, 2, 3},
        {2, 3, 4},
        {1, 3, 4},
        {1, 2, 4},
        {1, 2, 5},
        {1, 2, 5},
        {1, 2, 5},
        {1, 2, 3},
        {2, 3, 4},
        {3, 4, 5},
    ]
    m4, r4 = run_steps("lru", ids, 4)
    assert m4 == 8
    assert r4[3:] == [
        {1, 2, 3, 4},
        {1, 2, 3, 4},
        {1, 2, 3, 4},
        {1, 2, 4, 5},
        {1, 2, 4, 5},
        {1, 2, 4, 5},
        {1, 2, 3, 5},
        {1, 2, 3, 4},
        {2, 3, 4, 5},
    ]


def test_lru_one_page():
    # capacity 1: hit only on an immediate repeat
    assert run_steps("lru", [1, 1, 2, 2, 1, 2], 1)[0] == 4
