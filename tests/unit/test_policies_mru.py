"""MRU by hand: a loop one page larger than memory keeps all but one page."""

from __future__ import annotations

from test_policies_common import run_steps


def test_mru_loop_by_hand():
    # capacity 3, loop 1 2 3 4 twice
    # acc  hit  resident   most recent before the access   evicted
    #  1    m   1
    #  2    m   1 2
    #  3    m   1 2 3
    #  4    m   1 2 4      3                                3
    #  1    h   1 2 4
    #  2    h   1 2 4
    #  3    m   1 3 4      2                                2
    #  4    h   1 3 4
    ids = [1, 2, 3, 4, 1, 2, 3, 4]
    misses, resident = run_steps("mru", ids, 3)
    assert misses == 5
    assert resident == [{1}, {1, 2}, {1, 2, 3}, {1, 2, 4}, {1, 2, 4}, {1, 2, 4}, {1, 3, 4}, {1, 3, 4}]
    assert run_steps("lru", ids, 3)[0] == 8  # LRU misses every access of this loop


def test_mru_evicts_the_page_just_hit():
    # capacity 2: 1 2 1 3 -> 1 (used last) goes, 2 stays
    misses, resident = run_steps("mru", [1, 2, 1, 3, 2], 2)
    assert resident[3] == {2, 3}
    assert misses == 3
