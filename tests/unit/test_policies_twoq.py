"""2Q (full version) by hand with libCacheSim's sizes, compiled == interpreted, invariants after
every access, and the naive reference on random traces.

Rows show A1in (newest first) | Am (most recent first) | A1out (newest first).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from pagesim.core.lists import list_pages
from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies.twoq import GI, TwoQ, shadow_pages
from pagesim.trace import Trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "crosscheck"))
import naive  # noqa: E402


def twoq_steps(ids: list[int], capacity: int, **params: float):
    """Run 2Q access by access; return the misses and (A1in, Am, A1out) after each access."""
    trace = Trace.from_ids(ids)
    policy = TwoQ(**params)
    run = Run(trace, policy, capacity)
    orig = trace.original_id
    rows = []
    for _ in ids:
        run.advance(1)
        s = run.state
        policy.check_invariants(s)
        a1in = [int(orig[q]) for q in list_pages(s, int(s.gi[GI.a1in]))]
        am = [int(orig[q]) for q in list_pages(s, int(s.gi[GI.am]))]
        out = [int(orig[q]) for q in shadow_pages(s)]
        rows.append((a1in, am, out))
    counters = run.counters
    assert counters["fallback_evictions"] == 0 and counters["rejected"] == 0
    return counters["misses"], rows


def test_twoq_by_hand():
    # capacity 4: Kin = int(4 * 0.25) = 1, Kout = int(4 * 0.5) = 2
    # acc  hit  A1in        Am     A1out   what happened
    # 1-4   m   4 3 2 1     -      -
    #  1    h   4 3 2 1     -      -       a hit in A1in changes nothing
    #  5    m   5 4 3 2     -      1       |A1in| = 4 > Kin: its oldest (1) -> A1out
    #  1    m   5 4 3       1      2       remembered: entry dropped first, 2 -> A1out, 1 -> Am
    #  6    m   6 5 4       1      3 2
    #  1    h   6 5 4       1      3 2     hit in Am: to its head
    #  2    m   6 5         2 1    4 3     remembered; 4 put out of A1in
    #  7    m   7 6         2 1    5 4     A1out full: its oldest (3) forgotten
    #  8    m   8 7         2 1    6 5
    #  9    m   9 8         2 1    7 6
    ids = [1, 2, 3, 4, 1, 5, 1, 6, 1, 2, 7, 8, 9]
    misses, rows = twoq_steps(ids, 4)
    assert rows[3] == ([4, 3, 2, 1], [], [])
    assert rows[4] == ([4, 3, 2, 1], [], [])
    assert rows[5:] == [
        ([5, 4, 3, 2], [], [1]),
        ([5, 4, 3], [1], [2]),
        ([6, 5, 4], [1], [3, 2]),
        ([6, 5, 4], [1], [3, 2]),
        ([6, 5], [2, 1], [4, 3]),
        ([7, 6], [2, 1], [5, 4]),
        ([8, 7], [2, 1], [6, 5]),
        ([9, 8], [2, 1], [7, 6]),
    ]
    assert misses == 11


def test_twoq_am_gives_way_when_a1in_at_kin():
    # capacity 4, kin = 0.5: Kin = 2, Kout = 2
    # acc  A1in        Am     A1out   what happened
    # 1-4  4 3 2 1     -      -
    #  5   5 4 3 2     -      1       |A1in| = 4 > Kin: 1 -> A1out
    #  1   5 4 3       1      2       remembered: to Am; 2 -> A1out
    #  2   5 4         2 1    3       remembered: to Am; 3 -> A1out
    #  6   6 5 4       2      3       |A1in| = 2 = Kin: Am's LRU (1) leaves, remembered nowhere
    #  8   8 6 5       2      4 3     |A1in| = 3 > Kin: 4 -> A1out
    ids = [1, 2, 3, 4, 5, 1, 2, 6, 8]
    misses, rows = twoq_steps(ids, 4, kin=0.5)
    assert rows[4:] == [
        ([5, 4, 3, 2], [], [1]),
        ([5, 4, 3], [1], [2]),
        ([5, 4], [2, 1], [3]),
        ([6, 5, 4], [2], [3]),
        ([8, 6, 5], [2], [4, 3]),
    ]
    assert misses == 9 == naive.misses(naive.twoq(ids, 4, kin=0.5))


def test_twoq_caches_nothing_below_four_pages():
    """libCacheSim's TwoQ refuses objects larger than A1in: Kin = int(c / 4) = 0 for c < 4."""
    ids = [1, 1, 1, 2, 2]
    for cap in (1, 2, 3):
        misses, rows = twoq_steps(ids, cap)
        assert misses == 5 and all(r == ([], [], []) for r in rows)
    assert twoq_steps(ids, 4)[0] == 2


def random_trace(seed: int, n: int = 3000, pages: int = 80) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ids = rng.zipf(1.3, size=n) % pages
    ids[n // 3 : n // 3 + pages] = np.arange(pages)
    return ids.astype(np.int64)


def test_twoq_compiled_equals_interpreted():
    trace = Trace.from_ids(random_trace(7))
    for cap in (5, 23):
        compiled = simulate(trace, TwoQ(), cap)
        interp = simulate(trace, TwoQ(), cap, interpreted=True)
        assert compiled.mode == "compiled" and interp.mode == "interpreted"
        assert compiled.counters == interp.counters, cap


def test_twoq_invariants_each_step_and_naive():
    ids = random_trace(11, n=400, pages=30).tolist()
    for cap in (4, 9, 17):
        assert twoq_steps(ids, cap)[0] == naive.misses(naive.twoq(ids, cap)), cap
    assert twoq_steps(ids, 9, kin=0.5, kout=1.0)[0] == naive.misses(naive.twoq(ids, 9, 0.5, 1.0))


@given(ids=st.lists(st.integers(0, 15), max_size=150), capacity=st.integers(1, 12))
def test_twoq_hits_equal_naive(ids, capacity):
    trace = Trace.from_ids(np.array(ids, dtype=np.int64))
    run = Run(trace, TwoQ(), capacity)
    hits = []
    for _ in ids:
        before = run.counters["hits"]
        run.advance(1)
        hits.append(run.counters["hits"] > before)
    assert hits == naive.twoq(ids, capacity)
