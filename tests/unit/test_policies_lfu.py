"""LFU by hand: in-cache counts, reset on eviction, ties to the least recently used.

Rows list resident pages as ``page:count``; within a count, the page that reached that count
first (its last access is the oldest) is listed first and is the one evicted on a tie.
"""

from __future__ import annotations

from test_policies_common import run_steps


def test_lfu_tie_goes_to_least_recently_used():
    # capacity 2
    # acc  hit  resident (by count, then by when the count was reached)   evicted
    #  1    m   1:1
    #  2    m   1:1 2:1
    #  2    h   1:1 2:2
    #  1    h   2:2 1:2             2 reached count 2 before 1 did
    #  3    m   3:1 1:2             2 (tie at 2; its last access is older than 1's)
    #  2    m   2:1 1:2             3 (count 1 < 2)
    #  4    m   4:1 1:2             2 (back with count 1: counts restart on eviction)
    #  2    m   2:1 1:2             4
    # 6 misses. Breaking the tie at access 5 by insertion order instead (1 came in first)
    # would evict 1 and the 2 after it would hit.
    ids = [1, 2, 2, 1, 3, 2, 4, 2]
    misses, resident = run_steps("lfu", ids, 2)
    assert misses == 6
    assert resident == [{1}, {1, 2}, {1, 2}, {1, 2}, {1, 3}, {1, 2}, {1, 4}, {1, 2}]


def test_lfu_frequent_page_survives_a_scan():
    # capacity 3: 1 is used three times, then a scan 2..6 passes; 1 (count 3) stays while the
    # scan pages, all count 1, evict each other (oldest first): ... 1:3 and the last two.
    ids = [1, 1, 1, 2, 3, 4, 5, 6, 1]
    misses, resident = run_steps("lfu", ids, 3)
    assert resident[7] == {1, 5, 6}
    assert misses == 6  # 1 once, 2..6, and the final 1 hits
    assert run_steps("lru", ids, 3)[0] == 7


def test_lfu_counts_grow_past_many_buckets():
    # capacity 2: 1 accessed 5 times, 2 four times, then 3 evicts 2 (count 4 < 5); 3 then 2:
    # 2 comes back with count 1 and evicts 3 (count 1, older).
    ids = [1, 2] * 4 + [1, 3, 2]
    misses, resident = run_steps("lfu", ids, 2)
    assert resident[9] == {1, 3}
    assert resident[10] == {1, 2}
    assert misses == 4
