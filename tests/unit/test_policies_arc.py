"""ARC by hand (Megiddo and Modha, FAST 2003, Fig. 4, with libCacheSim's choices), compiled ==
interpreted, invariants after every access, and the naive reference on random traces.

Rows show T1 | T2 | B1 | B2 most recent first, and p, after each access.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pagesim.core import shadow
from pagesim.core.lists import list_pages
from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies.arc import ARC, GI, shadow_pages
from pagesim.trace import Trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "crosscheck"))
import naive  # noqa: E402


def arc_steps(ids: list[int], capacity: int, *, interpreted: bool = False):
    """Run ARC access by access; return the misses and (T1, T2, B1, B2, p) after each access."""
    trace = Trace.from_ids(ids)
    policy = ARC()
    run = Run(trace, policy, capacity, interpreted=interpreted)
    orig = trace.original_id
    rows = []
    for _ in ids:
        run.advance(1)
        s = run.state
        policy.check_invariants(s)
        t1 = [int(orig[q]) for q in list_pages(s, int(s.gi[GI.t1]))]
        t2 = [int(orig[q]) for q in list_pages(s, int(s.gi[GI.t2]))]
        b1 = [int(orig[q]) for q in shadow_pages(s, 1)]
        b2 = [int(orig[q]) for q in shadow_pages(s, 2)]
        rows.append((t1, t2, b1, b2, ARC.p(s)))
    counters = run.counters
    assert counters["fallback_evictions"] == 0 and counters["rejected"] == 0
    return counters["misses"], rows


def test_arc_by_hand_p_moves_on_shadow_hits():
    # capacity 2
    # acc  hit  T1     T2     B1    B2     p    what happened
    #  1    m   1      -      -     -      0
    #  2    m   2 1    -      -     -      0
    #  1    h   2      1      -     -      0    case I: T1 -> T2
    #  3    m   3      1      2     -      0    IV.B, REPLACE: |T1| = 1 > p = 0, T1's LRU -> B1
    #  2    m   3      2      -     1      1    case II: p += max(|B2|/|B1|, 1) = 1; REPLACE:
    #                                           |T1| = p and 2 was not in B2: T2's LRU -> B2
    #  4    m   4 3    -      -     2 1    1    IV.B, REPLACE: |T1| = 1 = p, T2's LRU -> B2
    #  1    m   4      1      3     2      0    case III: p -= max(|B1|/|B2| = 0, 1); REPLACE:
    #                                           |T1| = 2 > p: T1's LRU (3) -> B1
    misses, rows = arc_steps([1, 2, 1, 3, 2, 4, 1], 2)
    assert misses == 6
    assert rows == [
        ([1], [], [], [], 0.0),
        ([2, 1], [], [], [], 0.0),
        ([2], [1], [], [], 0.0),
        ([3], [1], [2], [], 0.0),
        ([3], [2], [], [1], 1.0),
        ([4, 3], [], [], [2, 1], 1.0),
        ([4], [1], [3], [2], 0.0),
    ]


def test_arc_delta_is_the_shadow_ratio():
    # capacity 4
    # acc   T1         T2          B1        B2    p    what happened
    # 1-4   4 3 2 1    -           -         -     0
    # 1 2 3 4          3 2 1       -         -     0    three hits: T1 -> T2
    # 5     5          3 2 1       4         -     0    IV.B, REPLACE: |T1| = 1 > p: 4 -> B1
    # 6     6          3 2 1       5 4       -     0
    # 7     7          3 2 1       6 5 4     -     0
    # 8     8          3 2 1       7 6 5     -     0    IV.A: |T1| + |B1| = 4: B1's LRU (4)
    #                                                   dropped, then REPLACE: 7 -> B1
    # 5     8          5 3 2       7 6       1     1    II: p += max(|B2|/|B1| = 0/3, 1);
    #                                                   REPLACE: |T1| = 1 = p: T2's LRU -> B2
    # 1     -          1 5 3 2     8 7 6     -     0    III: p -= max(|B1|/|B2| = 2/1, 1) = 2,
    #                                                   floored at 0; REPLACE: 8 -> B1
    # 6     -          6 1 5 3     8 7       2     1    II: T1 empty, so T2's LRU goes to B2
    ids = [1, 2, 3, 4, 1, 2, 3, 5, 6, 7, 8, 5, 1, 6]
    misses, rows = arc_steps(ids, 4)
    assert rows[6] == ([4], [3, 2, 1], [], [], 0.0)
    assert rows[10] == ([8], [3, 2, 1], [7, 6, 5], [], 0.0)
    assert rows[11:] == [
        ([8], [5, 3, 2], [7, 6], [1], 1.0),
        ([], [1, 5, 3, 2], [8, 7, 6], [], 0.0),
        ([], [6, 1, 5, 3], [8, 7], [2], 1.0),
    ]
    assert misses == 11 == naive.misses(naive.arc(ids, 4))


def test_arc_t1_full_evicts_without_shadow_entry():
    # capacity 3, no hits: T1 fills (3 2 1) and B1 stays empty, so IV.A evicts T1's LRU and
    # remembers nothing: ARC behaves as FIFO/LRU and 1 is a plain miss again.
    misses, rows = arc_steps([1, 2, 3, 4, 1], 3)
    assert rows[3] == ([4, 3, 2], [], [], [], 0.0)
    assert rows[4] == ([1, 4, 3], [], [], [], 0.0)
    assert misses == 5


def random_trace(seed: int, n: int = 3000, pages: int = 80) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ids = rng.zipf(1.3, size=n) % pages
    ids[n // 3 : n // 3 + pages] = np.arange(pages)
    return ids.astype(np.int64)


def test_arc_compiled_equals_interpreted():
    trace = Trace.from_ids(random_trace(7))
    for cap in (5, 23):
        compiled = simulate(trace, ARC(), cap)
        interp = simulate(trace, ARC(), cap, interpreted=True)
        assert compiled.mode == "compiled" and interp.mode == "interpreted"
        assert compiled.counters == interp.counters, cap


def test_arc_invariants_each_step_and_naive_hits():
    ids = random_trace(11, n=400, pages=30).tolist()
    for cap in (1, 4, 17):
        misses, _ = arc_steps(ids, cap)
        assert misses == naive.misses(naive.arc(ids, cap)), cap


@given(ids=st.lists(st.integers(0, 15), max_size=150), capacity=st.integers(1, 10))
def test_arc_hits_equal_naive(ids, capacity):
    trace = Trace.from_ids(np.array(ids, dtype=np.int64))
    run = Run(trace, ARC(), capacity)
    hits = []
    for _ in ids:
        before = run.counters["hits"]
        run.advance(1)
        hits.append(run.counters["hits"] > before)
    assert hits == naive.arc(ids, capacity)


@pytest.mark.parametrize("cap", [1, 2])
def test_arc_tiny_cache(cap):
    ids = [1, 2, 1, 3, 1, 2, 2, 3]
    assert arc_steps(ids, cap)[0] == naive.misses(naive.arc(ids, cap))


@pytest.mark.parametrize("plain", [False, True])
def test_arc_shadow_entry_packs_any_page_id(plain):
    # one int64 holds the list (2 bits) and both links (31 bits each), the highest page id too
    fns = [shadow.entry_next, shadow.entry_prev, shadow.with_next, shadow.with_prev]
    entry_next, entry_prev, with_next, with_prev = [getattr(f, "py_func", f) if plain else f for f in fns]
    top = 2**31 - 2  # core.state.make_state: fewer than 2**31 - 1 pages
    for which in (1, 2):
        for nxt in (-1, 0, 5, top):
            for prv in (-1, 0, 7, top):
                x = with_prev(with_next(np.int64(which), np.int64(nxt)), np.int64(prv))
                assert (int(x) & 3, entry_next(x), entry_prev(x)) == (which, nxt, prv)
                y = with_next(with_prev(x, np.int64(top - 1)), np.int64(-1))
                assert (int(y) & 3, entry_next(y), entry_prev(y)) == (which, -1, top - 1)
