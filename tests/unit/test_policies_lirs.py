"""LIRS with libCacheSim's rules by hand, compiled == interpreted, invariants after every access,
and the naive reference (tests/crosscheck/naive.py) on random traces.

Rows show S from its top (each entry with L = LIR, H = resident HIR, n = non-resident HIR), Q
newest first (its front, the next HIR victim, is last), and PEND (pages in memory the rules no
longer hold; they leave at the next miss).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies.lirs import LIRS, LPD, LQ, LS, PM, S_LIR, S_RES, list_entries
from pagesim.trace import Trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "crosscheck"))
import naive  # noqa: E402


def lirs_steps(ids: list[int], capacity: int, **params: float):
    """Run LIRS access by access; return the misses and (hit, S, Q, PEND) after each access."""
    trace = Trace.from_ids(ids)
    policy = LIRS(**params)
    run = Run(trace, policy, capacity)
    orig = trace.original_id
    rows = []
    for _ in ids:
        before = run.counters["hits"]
        run.advance(1)
        s = run.state
        policy.check_invariants(s)

        def mark(q: int, s=s) -> str:
            f = int(s.pm[q, PM.flags])
            return f"{int(orig[q])}{'L' if f & S_LIR else 'H' if f & S_RES else 'n'}"

        rows.append(
            (
                "h" if run.counters["hits"] > before else "m",
                " ".join(mark(q) for q in list_entries(s, LS)),
                " ".join(str(int(orig[q])) for q in list_entries(s, LQ)),
                " ".join(str(int(orig[q])) for q in list_entries(s, LPD)),
            )
        )
    counters = run.counters
    assert counters["fallback_evictions"] == 0 and counters["rejected"] == 0
    return counters["misses"], rows


def test_lirs_by_hand():
    # capacity 5, hir_share 0.4: H = 2 resident HIR pages, L = 3 LIR pages
    # acc  S (top first)        Q     PEND  what happened
    #  1   1L                   -            LIR set not full: LIR
    #  2   2L 1L
    #  3   3L 2L 1L
    #  4   4H 3L 2L 1L          4            LIR set full: resident HIR, on S and Q
    #  5   5H 4H 3L 2L 1L       5 4
    #  4h  4L 5H 3L 2L          1 5          HIR hit in S: becomes LIR; bottom LIR (1) to Q;
    #                                        prune (2L now at the bottom)
    #  1h  1H 4L 5n 3L          2 1    5     HIR hit in Q only: libCacheSim demotes 2 all the
    #                                        same, Q full so its front (5) is dropped (S keeps
    #                                        5n); 5 stays in memory until the next miss
    #  6   6L 1H 4L 5n 3L       2 1          only 2 LIR pages: 6 is LIR; the miss evicts 5
    #  5   5L 6L 1n 4L          3 2          non-resident HIR in S: LIR; 3 demoted, Q's front
    #                                        (1) dropped and evicted by this miss
    #  2h  2H 5L 6L             4 2    3     Q-only hit again: 4 demoted, 3 dropped (forgotten),
    #                                        pruning removes 1n
    #  3h  3L 2H 5L 6L          4 2          still in memory: a hit here, a miss in libCacheSim
    #                                        (the rules treat it as that miss: a new LIR page)
    #  6h  6L 3L 2H 5L          4 2
    ids = [1, 2, 3, 4, 5, 4, 1, 6, 5, 2, 3, 6]
    misses, rows = lirs_steps(ids, 5, hir_share=0.4)
    assert rows == [
        ("m", "1L", "", ""),
        ("m", "2L 1L", "", ""),
        ("m", "3L 2L 1L", "", ""),
        ("m", "4H 3L 2L 1L", "4", ""),
        ("m", "5H 4H 3L 2L 1L", "5 4", ""),
        ("h", "4L 5H 3L 2L", "1 5", ""),
        ("h", "1H 4L 5n 3L", "2 1", "5"),
        ("m", "6L 1H 4L 5n 3L", "2 1", ""),
        ("m", "5L 6L 1n 4L", "3 2", ""),
        ("h", "2H 5L 6L", "4 2", "3"),
        ("h", "3L 2H 5L 6L", "4 2", ""),
        ("h", "6L 3L 2H 5L", "4 2", ""),
    ]
    assert misses == 7
    rules = naive.lirs_libcachesim(ids, 5, hir_share=0.4)
    assert naive.misses(rules) == 8 and not rules[10]  # libCacheSim's own verdict on 3


def test_lirs_h1_drift_by_hand():
    # capacity 3 at the default share: H = 1, L = 2
    #  1 2      2L 1L
    #  4        4H 2L 1L      Q: 4
    #  4h       4L 2L         Q: 1     (1 demoted)
    #  1h       1H 4L         Q: 2     libCacheSim demotes 2; Q holds one page, so its front
    #                                  is 1 itself, which leaves Q but stays marked resident in
    #                                  S: libCacheSim still hits on 1 without counting it
    #  5        5L 1H 4L      Q: 2     libCacheSim counts 2 pages held, evicts nothing and
    #                                  holds 4 pages in 3 frames; pagesim must evict: PEND is
    #                                  empty, so Q's front (2) goes
    #  2        2H 5L         Q: 4     a miss here, a hit in libCacheSim: 5 misses against 4
    ids = [1, 2, 4, 4, 1, 5, 2]
    misses, rows = lirs_steps(ids, 3)
    assert [r[:3] for r in rows[3:]] == [
        ("h", "4L 2L", "1"),
        ("h", "1H 4L", "2"),
        ("m", "5L 1H 4L", "2"),
        ("m", "2H 5L", "4"),
    ]
    assert misses == 5
    assert naive.misses(naive.lirs_libcachesim(ids, 3)) == 4


def test_lirs_caches_nothing_with_one_page():
    """libCacheSim's LIRS has L = 0 LIR pages at c = 1 and refuses every insertion."""
    misses, rows = lirs_steps([1, 1, 2, 2], 1)
    assert misses == 4 and all(r == ("m", "", "", "") for r in rows)


def random_trace(seed: int, n: int = 3000, pages: int = 80) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ids = rng.zipf(1.3, size=n) % pages
    ids[n // 3 : n // 3 + pages] = np.arange(pages)
    return ids.astype(np.int64)


def test_lirs_compiled_equals_interpreted():
    trace = Trace.from_ids(random_trace(7))
    for cap in (5, 23):
        compiled = simulate(trace, LIRS(), cap)
        interp = simulate(trace, LIRS(), cap, interpreted=True)
        assert compiled.mode == "compiled" and interp.mode == "interpreted"
        assert compiled.counters == interp.counters, cap
    shared = simulate(trace, LIRS(hir_share=0.2), 23)
    assert shared.counters == simulate(trace, LIRS(hir_share=0.2), 23, interpreted=True).counters


def test_lirs_invariants_each_step_and_naive():
    ids = random_trace(11, n=400, pages=30).tolist()
    for cap, share in ((2, 0.01), (4, 0.01), (17, 0.01), (17, 0.2)):
        misses, _ = lirs_steps(ids, cap, hir_share=share)
        assert misses == naive.misses(naive.lirs(ids, cap, hir_share=share)), (cap, share)


@given(
    ids=st.lists(st.integers(0, 15), max_size=150),
    capacity=st.integers(1, 10),
    share=st.sampled_from([0.01, 0.25]),
)
def test_lirs_hits_equal_naive(ids, capacity, share):
    trace = Trace.from_ids(np.array(ids, dtype=np.int64))
    run = Run(trace, LIRS(hir_share=share), capacity)
    hits = []
    for _ in ids:
        before = run.counters["hits"]
        run.advance(1)
        hits.append(run.counters["hits"] > before)
    assert hits == naive.lirs(ids, capacity, hir_share=share)
