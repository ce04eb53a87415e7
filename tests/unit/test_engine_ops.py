"""Operations in cache mode: deletes, the ``writes`` rules, size changes on a hit, zero sizes.

Every expected value is worked out by hand in the comment above it (LRU, tiny traces).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pagesim.core.state import A_OP, A_PAGE, A_REASON, REASON_FREED
from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies import lru
from pagesim.policies.base import Policy
from pagesim.policies.registry import make_policy
from pagesim.trace import OP_FREE, OP_READ, OP_WRITE, Trace

R, W, F = OP_READ, OP_WRITE, OP_FREE

#: (hook, page, op or reason) seen by the recording policy of the interpreted runs below.
SEEN: list[tuple[str, int, int]] = []


def _added(s, a):  # type: ignore[no-untyped-def]
    SEEN.append(("added", int(a[A_PAGE]), int(a[A_OP])))
    return lru._added(s, a)


def _accessed(s, a):  # type: ignore[no-untyped-def]
    SEEN.append(("accessed", int(a[A_PAGE]), int(a[A_OP])))
    return lru._accessed(s, a)


def _removed(s, a):  # type: ignore[no-untyped-def]
    SEEN.append(("removed", int(a[A_PAGE]), int(a[A_REASON])))
    return 0


class Recording(Policy):
    """LRU that records what its hooks were given (plain Python: run interpreted)."""

    name = "recording-lru"
    int_globals = 1
    init = staticmethod(lru._init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(lru._evict)
    removed = staticmethod(_removed)


def _run(ids: list[int], ops: list[int], capacity: int, **kw: Any) -> dict[str, int]:
    trace = Trace.from_ids(np.array(ids), op=np.array(ops, dtype=np.uint8))
    return simulate(trace, make_policy("lru"), capacity, **kw).counters


def test_a_free_frees_the_page_and_is_neither_hit_nor_miss() -> None:
    # ids 1 2 1 3 1, the second 1 a free, capacity 2 (LRU):
    # 1 miss {1}; 2 miss {1,2}; free 1 -> {2}; 3 miss {2,3}; 1 miss, evict 2 -> {3,1}.
    c = _run([1, 2, 1, 3, 1], [R, R, F, R, R], 2)
    assert (c["requests"], c["hits"], c["misses"]) == (4, 0, 4)
    assert (c["frees"], c["frees_not_resident"], c["evictions"]) == (1, 0, 1)


def test_a_free_of_a_page_not_resident_is_counted_and_ignored() -> None:
    # 1 miss; free 2 (never seen): ignored; 1 hit.
    c = _run([1, 2, 1], [R, F, R], 2)
    assert (c["requests"], c["hits"], c["misses"], c["frees"], c["frees_not_resident"]) == (2, 1, 1, 0, 1)


def test_the_policy_sees_the_op_and_removed_gets_reason_freed() -> None:
    # 1 read (added, op 0); 1 write (a hit: accessed, op 1); free 1 (removed, reason freed);
    # 2 read (added); free 1 again: not resident, no hook.
    SEEN.clear()
    trace = Trace.from_ids(np.array([1, 1, 1, 2, 1]), op=np.array([R, W, F, R, F], dtype=np.uint8))
    simulate(trace, Recording(), 2, interpreted=True)
    assert SEEN == [("added", 0, R), ("accessed", 0, W), ("removed", 0, REASON_FREED), ("added", 1, R)]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        # 1W miss {1}; 1R hit; 2W miss, evict 1 {2}; 1R miss, evict 2 {1}
        ("access", {"requests": 4, "hits": 1, "misses": 3, "evictions": 2, "writes_skipped": 0}),
        # 1W inserted, no request {1}; 1R hit; 2W inserted, evicting 1 {2}; 1R miss, evict 2
        ("insert-only", {"requests": 2, "hits": 1, "misses": 1, "evictions": 2, "writes_skipped": 2}),
        # 1W skipped; 1R miss {1}; 2W skipped; 1R hit
        ("ignore", {"requests": 2, "hits": 1, "misses": 1, "evictions": 0, "writes_skipped": 2}),
    ],
)
def test_writes_rules(rule: str, expected: dict[str, int]) -> None:
    c = _run([1, 1, 2, 1], [W, R, W, R], 1, writes=rule)
    assert {k: c[k] for k in expected} == expected


def test_unknown_writes_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="access, insert-only, ignore"):
        _run([1], [R], 1, writes="sometimes")


def test_a_hit_with_a_new_size_updates_the_size_and_room_is_made_at_the_next_insert() -> None:
    # capacity 10 bytes, LRU, (id, size): (1,4) miss used 4; (2,4) miss used 8; (1,8) hit with a
    # new size: used 12 (libCacheSim: occupied size updated on the hit); (3,1) miss: evict while
    # used + 1 > 10: LRU 2 (used 8), then 9 <= 10, insert: used 9 {1:8, 3:1}; (2,4) miss:
    # 9 + 4 > 10, evict 1 (used 1), insert: used 5 {3:1, 2:4}.
    # With the old size kept, (3,1) would fit without an eviction (used 9 of which 1 weighs 4).
    trace = Trace.from_ids(np.array([1, 2, 1, 3, 2]), size=np.array([4, 4, 8, 1, 4]))
    run = Run(trace, make_policy("lru"), 10, capacity_unit="bytes")
    run.advance()
    c = run.counters
    assert (c["hits"], c["misses"], c["evictions"], c["size_changes"]) == (1, 4, 2, 1)
    assert int(run.framework.used[0]) == 5
    assert set(np.flatnonzero(run.state.resident).tolist()) == {1, 2}  # dense ids of 2 and 3


def test_a_zero_size_object_is_refused_with_its_access_index() -> None:
    # Before: a 4-byte cache held 1,000 objects of size 0.
    trace = Trace.from_ids(np.arange(3), size=np.array([1, 0, 2]))
    with pytest.raises(ValueError, match=r"access 1 \(0-based\) has object size 0"):
        simulate(trace, make_policy("lru"), 4, capacity_unit="bytes")


def test_a_zero_size_delete_is_accepted() -> None:
    # deletes often carry no size: 1 miss; free 1 (size 0) frees it.
    trace = Trace.from_ids(np.array([1, 1]), size=np.array([3, 0]), op=np.array([R, F], dtype=np.uint8))
    c = simulate(trace, make_policy("lru"), 4, capacity_unit="bytes").counters
    assert (c["misses"], c["frees"]) == (1, 1)
