"""CAR by hand (Bansal and Modha, FAST 2004, Fig. 2), compiled == interpreted, invariants after
every access.

Rows show T1 and T2 from the clock hand (oldest) on, with each page's reference bit, B1 and B2
most recent first, and p.
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core.lists import list_pages
from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies.car import CAR, GI, PM, shadow_pages
from pagesim.policies.lru import LRU
from pagesim.trace import Trace


def _clock(s, lid: int, orig: np.ndarray) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """A clock's pages from the hand (the list's tail) on, with their reference bits."""
    pages = list_pages(s, int(s.gi[lid]))[::-1]
    return [(int(orig[q]), int(s.pm[q, PM.ref])) for q in pages]


def car_steps(ids: list[int], capacity: int, *, interpreted: bool = False):
    """Run CAR access by access; return misses and (T1, T2, B1, B2, p) after each access."""
    trace = Trace.from_ids(ids)
    policy = CAR()
    run = Run(trace, policy, capacity, interpreted=interpreted)
    orig = trace.original_id
    rows = []
    for _ in ids:
        run.advance(1)
        s = run.state
        policy.check_invariants(s)

        b1 = [int(orig[q]) for q in shadow_pages(s, 1)]
        b2 = [int(orig[q]) for q in shadow_pages(s, 2)]
        rows.append((_clock(s, GI.t1, orig), _clock(s, GI.t2, orig), b1, b2, float(s.gf[0])))
    return run.result().misses, rows


# c = 2. (page, bit) pairs from the hand on.
#  1  miss          T1 (1,0)
#  2  miss          T1 (1,0) (2,0)
#  1  hit           T1 (1,1) (2,0)
#  3  miss, full: replace: |T1| = 2 >= max(1, p = 0): 1 has its bit -> cleared, behind T2's
#     hand; 2 has none -> to B1. Directory: |T1| + |B1| = 1 < 2, total 2 < 4. 3 enters T1.
#                   T1 (3,0)  T2 (1,0)  B1 [2]
#  4  replace: 3 -> B1; |T1| + |B1| = 0 + 2 = c: B1's LRU (2) discarded. 4 enters T1.
#                   T1 (4,0)  T2 (1,0)  B1 [3]
#  2  (no shadow) replace: 4 -> B1 [4, 3]; |T1| + |B1| = 2: discard 3.   T1 (2,0) T2 (1,0) B1 [4]
#  3  (no shadow) replace: 2 -> B1 [2, 4]; discard 4.                    T1 (3,0) T2 (1,0) B1 [2]
#  2  in B1: replace: 3 -> B1 [3, 2]; no directory step (2 is in B1); p = min(0 + max(1,
#     0 / 2), 2) = 1; 2 leaves B1 and enters T2.                          T1 -  T2 (1,0) (2,0) B1 [3]
#  1  hit                                                                 T2 (1,1) (2,0)
#  5  replace: |T1| = 0 < max(1, 1): T2's hand: 1 has its bit -> cleared, behind the hand; 2 ->
#     B2. Directory: |T1| + |B1| = 1, total 3. 5 enters T1.               T1 (5,0) T2 (1,0) B1 [3] B2 [2]
#  2  in B2: replace: |T1| = 1 >= max(1, 1): 5 -> B1 [5, 3]; p = max(1 - max(1, 2 / 1), 0) = 0;
#     2 leaves B2 and enters T2.                                          T1 - T2 (1,0) (2,0) B1 [5, 3]
IDS = [1, 2, 1, 3, 4, 2, 3, 2, 1, 5, 2]
EXPECTED = [
    ([(1, 0)], [], [], [], 0.0),
    ([(1, 0), (2, 0)], [], [], [], 0.0),
    ([(1, 1), (2, 0)], [], [], [], 0.0),
    ([(3, 0)], [(1, 0)], [2], [], 0.0),
    ([(4, 0)], [(1, 0)], [3], [], 0.0),
    ([(2, 0)], [(1, 0)], [4], [], 0.0),
    ([(3, 0)], [(1, 0)], [2], [], 0.0),
    ([], [(1, 0), (2, 0)], [3], [], 1.0),
    ([], [(1, 1), (2, 0)], [3], [], 1.0),
    ([(5, 0)], [(1, 0)], [3], [2], 1.0),
    ([], [(1, 0), (2, 0)], [5, 3], [], 0.0),
]


@pytest.mark.parametrize("interpreted", [False, True])
def test_car_by_hand(interpreted: bool) -> None:
    misses, rows = car_steps(IDS, 2, interpreted=interpreted)
    assert misses == 9  # hits: the 3rd access (1) and the 9th (1)
    assert rows == EXPECTED


def test_car_keeps_a_frequent_page_through_a_scan() -> None:
    """A page read twice keeps its bit, so the clock moves it to T2 instead of demoting it; a
    scan of new pages passes through T1 only (p stays 0: no shadow hits), so the twice-read page
    outlives it where LRU loses it."""
    ids = [7, 7] + list(range(100, 140)) + [7]
    car = simulate(Trace.from_ids(ids), CAR(), 4)
    assert car.misses == 41  # 7 once, the 40 scan pages; 7's last read hits
    lru = simulate(Trace.from_ids(ids), LRU(), 4)
    assert lru.misses == 42


def test_car_on_random_traces_keeps_its_invariants() -> None:
    rng = np.random.default_rng(3)
    for capacity in (1, 3, 8):
        ids = rng.zipf(1.3, 400) % 30
        car_steps(ids.tolist(), capacity)  # check_invariants after every access
