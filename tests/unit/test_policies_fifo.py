"""FIFO by hand, including Belady's anomaly (9 misses with 3 frames, 10 with 4)."""

from __future__ import annotations

from test_policies_common import run_steps

BELADY = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]


def test_fifo_belady_anomaly_3_frames():
    # acc  hit  resident (first in first)  evicted
    #  1    m   1
    #  2    m   1 2
    #  3    m   1 2 3
    #  4    m   2 3 4                       1
    #  1    m   3 4 1                       2
    #  2    m   4 1 2                       3
    #  5    m   1 2 5                       4
    #  1    h   1 2 5
    #  2    h   1 2 5
    #  3    m   2 5 3                       1
    #  4    m   5 3 4                       2
    #  5    h   5 3 4
    misses, resident = run_steps("fifo", BELADY, 3)
    assert misses == 9
    assert resident == [
        {1},
        {1, 2},
        {1, 2, 3},
        {2, 3, 4},
        {1, 3, 4},
        {1, 2, 4},
        {1, 2, 5},
        {1, 2, 5},
        {1, 2, 5},
        {2, 3, 5},
        {3, 4, 5},
        {3, 4, 5},
    ]


def test_fifo_belady_anomaly_4_frames():
    # acc  hit  resident (first in first)  evicted
    #  1-4  m   1 2 3 4
    #  1    h   1 2 3 4
    #  2    h   1 2 3 4
    #  5    m   2 3 4 5                     1
    #  1    m   3 4 5 1                     2
    #  2    m   4 5 1 2                     3
    #  3    m   5 1 2 3                     4
    #  4    m   1 2 3 4                     5
    #  5    m   2 3 4 5                     1
    misses, resident = run_steps("fifo", BELADY, 4)
    assert misses == 10
    assert resident[3:] == [
        {1, 2, 3, 4},
        {1, 2, 3, 4},
        {1, 2, 3, 4},
        {2, 3, 4, 5},
        {1, 3, 4, 5},
        {1, 2, 4, 5},
        {1, 2, 3, 5},
        {1, 2, 3, 4},
        {2, 3, 4, 5},
    ]


def test_fifo_hit_does_not_protect():
    # capacity 2: 1 2 1 3 -> 3 evicts 1 although 1 was just used (LRU would evict 2); then 1 misses
    misses, resident = run_steps("fifo", [1, 2, 1, 3, 1], 2)
    assert resident[3] == {2, 3}
    assert misses == 4
