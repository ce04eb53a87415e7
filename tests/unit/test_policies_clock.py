"""CLOCK (libCacheSim's FIFO-with-reinsertion form) by hand.

Rows show the clock face unrolled: the hand (oldest) on the left, newest on the right, each page
with its reference bit as a subscript-like suffix (``3'`` = bit set).
"""

from __future__ import annotations

from test_policies_common import run_steps


def test_clock_second_chance_by_hand():
    # capacity 3
    # acc  hit  queue (hand -> newest)    what the hand did
    #  1    m   1
    #  2    m   1 2
    #  3    m   1 2 3
    #  3    h   1 2 3'                     (bit set, nothing moves)
    #  4    m   2 3' 4                     1 has no bit: evicted
    #  5    m   3' 4 5                     2 evicted
    #  6    m   5 3 6                      3' loses its bit and goes to the back; 4 evicted
    #  3    h   5 3' 6
    # 6 misses. LRU would have evicted 3 at access 6 (its last use is the oldest) and missed
    # on the final 3 (7 misses); FIFO too (3 came in before 4 and 5).
    ids = [1, 2, 3, 3, 4, 5, 6, 3]
    misses, resident = run_steps("clock", ids, 3)
    assert misses == 6
    assert resident == [{1}, {1, 2}, {1, 2, 3}, {1, 2, 3}, {2, 3, 4}, {3, 4, 5}, {3, 5, 6}, {3, 5, 6}]
    assert run_steps("lru", ids, 3)[0] == 7
    assert run_steps("fifo", ids, 3)[0] == 7


def test_clock_full_turn_when_every_bit_is_set():
    # capacity 3: 1 2 3 then hits on all three -> 1' 2' 3'. The miss on 4 sends the hand round
    # once clearing every bit (1 2 3) and evicts 1, as FIFO would: queue 2 3 4.
    # Then 1 misses: 2 (bit clear) goes: queue 3 4 1.
    ids = [1, 2, 3, 1, 2, 3, 4, 1]
    misses, resident = run_steps("clock", ids, 3)
    assert resident[6] == {2, 3, 4}
    assert resident[7] == {1, 3, 4}
    assert misses == 5


def test_clock_newcomer_enters_without_bit():
    # capacity 2: 1 2 1 3 -> 1' 2, the hand passes 1' (bit cleared, to the back: 2 1), evicts 2
    # -> 1 3; 4 then evicts 1 (bit clear since the pass) -> 3 4; 3 hits.
    ids = [1, 2, 1, 3, 4, 3]
    misses, resident = run_steps("clock", ids, 2)
    assert resident[3] == {1, 3}
    assert resident[4] == {3, 4}
    assert misses == 4


def test_clock_belady_sequence():
    # 3 frames, no page is hit before the first eviction, so CLOCK starts like FIFO:
    # acc  hit  queue          | acc  hit  queue
    #  1    m   1              |  1    h   1' 2 5
    #  2    m   1 2            |  2    h   1' 2' 5
    #  3    m   1 2 3          |  3    m   5 1 2 3 -> 1, 2 lose bits, 5 evicted: 1 2 3
    #  4    m   2 3 4          |  4    m   2 3 4      (1 evicted)
    #  1    m   3 4 1          |  5    m   3 4 5      (2 evicted)
    #  2    m   4 1 2          |
    #  5    m   1 2 5          |
    ids = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]
    misses, resident = run_steps("clock", ids, 3)
    assert misses == 10
    assert resident[9:] == [{1, 2, 3}, {2, 3, 4}, {3, 4, 5}]
