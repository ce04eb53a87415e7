"""Hostile policies: whatever ``evict`` proposes, the framework must contain it (cache_ext §1.3-1.4).

Each mode of the hostile policy (``_hostile.Hostile``) keeps LRU's list (the real LRU hooks) but
proposes something wrong: pages not in memory, ids that are no pages, duplicates, more than 32
candidates, nothing, another cgroup's pages, garbage around one valid page, a ``list_iterate``
that would rotate its list for ever, a verdict that is none of CONTINUE/STOP/EVICT. For each,
on a seeded random trace with a cache of ``CAP`` pages, the test checks

* the exact counters: every refused candidate counted once under its reason, the fallback
  (default CLOCK over page ids) covering each shortfall, and the conservation law
  ``proposed = rejected + policy evictions + unused``;
* after *every* access: no page lost or duplicated -- resident count = min(capacity, distinct
  pages seen so far) per cgroup, owners and units in use agree, lists intact;
* the misses and the final resident set against a naive reference: LRU when a valid LRU victim
  is among the garbage, the default CLOCK alone when nothing valid is proposed.

``E`` below is the number of evictions, ``misses - min(capacity, distinct pages)``: the cache
fills once and then every miss evicts one page through one evict call.

Also here: too few candidates for a larger request (the 80 % rule, on the framework's request
function directly: cache mode always asks for one page, so there "too few" is "none"), and a
hook that raises (a ``PolicyError`` naming the access; the state is left consistent).

A policy that loops without end *in its own code* (``while True`` in ``evict``):
``list_iterate`` stops at ``MAX_ITERATE`` visits (tested below); anything else is left to the
watchdog (``policy_timeout``), which stops an interpreted hook and abandons a compiled one,
since compiled code cannot be interrupted (cache_ext relies on the eBPF verifier and has no
watchdog, spec §2.7): see ``test_hostile_framework.py``, which also covers writes to what the
framework owns, a huge candidate count and writes past the candidate buffer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _harness import (
    assert_counter_laws,
    assert_no_page_lost,
    naive_clock_by_id,
    naive_lru,
    resident_set,
    run_with_state,
)
from _hostile import COUNT, Hostile

from pagesim.core.state import ACC_LEN, MAX_ITERATE, RESIDENT, make_state
from pagesim.engine import counters as C
from pagesim.engine.build import interpreted
from pagesim.engine.loop import _evict_request, make_framework
from pagesim.engine.simulate import PolicyError, Run
from pagesim.trace import Trace

CAP = 8


#: case -> (Hostile's mode, reference, {counter: multiple of E}); counters not named must be 0.
CASES: dict[str, tuple[str, str, dict[str, int]]] = {
    "not-resident": ("not-resident", "clock", {"proposed": 1, "rejected": 1, "rejected_not_resident": 1}),
    "out-of-range": ("out-of-range", "clock", {"proposed": 3, "rejected": 3, "rejected_out_of_range": 3}),
    "duplicate": (
        "duplicate-unused",
        "lru",
        {"proposed": 3, "rejected": 1, "rejected_duplicate": 1, "unused_candidates": 1},
    ),
    # the whole proposal refused and counted once per call, whatever the count returned
    "more-than-32": ("overflow", "clock", {"proposed": 1, "rejected": 1, "rejected_overflow": 1}),
    "none": ("nothing", "clock", {}),
    "negative-count": ("negative", "clock", {}),
    "garbage-one-valid": (
        "garbage-one-valid",
        "lru",
        {"proposed": 5, "rejected": 4, "rejected_out_of_range": 3, "rejected_not_resident": 1},
    ),
    "valid-last-of-32": (
        "valid-last-of-32",
        "lru",
        {"proposed": 32, "rejected": 31, "rejected_out_of_range": 31},
    ),
    "endless-rotation": ("endless-rotation", "clock", {}),
    "bad-verdict": ("bad-verdict", "clock", {}),
}

_FALLBACK = {"fallback_calls": 1, "fallback_evictions": 1}
_POLICY = {"policy_evictions": 1}
_RUN = (
    "requests",
    "hits",
    "misses",
    "compulsory_misses",
    "evictions",
    "evict_calls",
    "bytes_requested",
    "bytes_missed",
    "warmup_accesses",
)


def _trace(seed: int = 11, n: int = 1500, pages: int = 60) -> Trace:
    rng = np.random.default_rng(seed)
    ids = (rng.zipf(1.2, n) - 1) % pages
    return Trace.from_ids(ids)


def _two_cgroup_trace(seed: int = 5, n: int = 1500, pages: int = 40) -> Trace:
    """cgroup 0 uses ids 0..pages-1, cgroup 1 ids 1000..; both fault a page before any eviction."""
    rng = np.random.default_rng(seed)
    cg = rng.integers(0, 2, n)
    cg[:2] = [0, 1]
    ids = (rng.zipf(1.2, n) - 1) % pages + 1000 * cg
    return Trace.from_ids(ids, cgroup=cg)


def _resident_checker(trace: Trace, capacity: int) -> Any:
    """check(s, fw, done, out): invariants, and resident pages per cgroup = min(capacity, distinct)."""
    page, cg = trace.page, trace.cgroup.astype(np.int64)

    def check(s: Any, fw: Any, done: int, out: Any) -> None:
        assert_no_page_lost(s, fw, capacity)
        for c in range(fw.used.shape[0]):
            distinct = len(set(page[:done][cg[:done] == c].tolist()))
            resident = int(((s.resident != 0) & (s.cgroup_of == c)).sum())
            assert resident == min(capacity, distinct), f"after {done} accesses, cgroup {c}"

    return check


def _expected_counters(c: dict[str, int], per_e: dict[str, int], e: int) -> dict[str, int]:
    """Every counter but the run's own: the named multiples of E, zero elsewhere."""
    return {k: per_e.get(k, 0) * e for k in c if k not in _RUN}


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_policy_is_contained(case: str) -> None:
    mode, reference, per_e = CASES[case]
    trace = _trace()
    distinct = trace.n_pages
    c, s, fw = run_with_state(
        trace, Hostile(mode=mode), CAP, step=1, check=_resident_checker(trace, CAP), checked=True
    )
    e = c["misses"] - min(CAP, distinct)
    assert e > 100
    assert c["evictions"] == c["evict_calls"] == e
    assert_counter_laws(c)
    expected = {**per_e, **(_FALLBACK if reference == "clock" else _POLICY)}
    assert _expected_counters(c, expected, e) == {k: v for k, v in c.items() if k not in _RUN}
    if reference == "lru":
        misses, resident = naive_lru(trace.page, CAP)
    else:
        misses, resident, _ = naive_clock_by_id(trace.page, CAP, trace.n_pages)
    assert c["misses"] == misses
    assert resident_set(s) == resident
    # interpreted, on a prefix: endless-rotation asks 4,097 verdicts per evict call in Python
    short = _trace(n=300)
    ci, si, _ = run_with_state(short, Hostile(mode=mode), CAP, interpreted=True)
    cc, sc, _ = run_with_state(short, Hostile(mode=mode), CAP)
    assert ci == cc and ci["evict_calls"] > 50
    assert resident_set(si) == resident_set(sc)


def test_foreign_pages_are_refused() -> None:
    """Two cgroups with CAP pages each; every proposal is the other cgroup's LRU page."""
    trace = _two_cgroup_trace()
    c, s, fw = run_with_state(
        trace, Hostile(mode="foreign"), CAP, step=1, check=_resident_checker(trace, CAP), checked=True
    )
    cg = trace.cgroup.astype(np.int64)
    distinct = [len(set(trace.page[cg == k].tolist())) for k in (0, 1)]
    e = c["misses"] - sum(min(CAP, d) for d in distinct)
    assert e > 100 and c["evictions"] == c["evict_calls"] == e
    assert_counter_laws(c)
    expected = {"proposed": 1, "rejected": 1, "rejected_foreign": 1, **_FALLBACK}
    assert _expected_counters(c, expected, e) == {k: v for k, v in c.items() if k not in _RUN}
    misses, resident, evictions = naive_clock_by_id(trace.page, CAP, trace.n_pages, cg)
    assert (c["misses"], c["evictions"]) == (misses, evictions)
    assert resident_set(s) == resident
    owners = {int(p): int(s.cgroup_of[p]) for p in np.flatnonzero(s.resident)}
    first_cg = {int(p): int(k) for p, k in zip(trace.page, cg)}
    assert all(owners[p] == first_cg[p] for p in owners)
    ci, _, _ = run_with_state(trace, Hostile(mode="foreign"), CAP, interpreted=True)
    assert ci == c


def test_duplicate_of_victim_counts_as_duplicate() -> None:
    trace = _trace()
    c, s, fw = run_with_state(trace, Hostile(mode="duplicate-victim"), CAP)
    e = c["evictions"]
    assert c["rejected_not_resident"] == 0
    assert c["rejected_duplicate"] == e


def test_duplicate_of_victim_is_contained() -> None:
    """Whatever the reason counted, proposing the victim twice evicts it once: LRU misses."""
    trace = _trace()
    c, s, fw = run_with_state(
        trace,
        Hostile(mode="duplicate-victim"),
        CAP,
        step=1,
        check=_resident_checker(trace, CAP),
        checked=True,
    )
    e = c["evictions"]
    assert c["rejected"] == e and c["policy_evictions"] == e and c["fallback_evictions"] == 0
    assert_counter_laws(c)
    misses, resident = naive_lru(trace.page, CAP)
    assert c["misses"] == misses and resident_set(s) == resident


def test_endless_rotation_is_cut_at_max_iterate() -> None:
    """Every evict call asks the verdict exactly MAX_ITERATE (4097) times, then gives up."""
    trace = _trace()
    c, s, _ = run_with_state(trace, Hostile(mode="endless-rotation"), CAP)
    assert c["evict_calls"] > 100
    assert int(s.gi[COUNT]) == MAX_ITERATE * c["evict_calls"]
    assert c["fallback_evictions"] == c["evictions"] == c["evict_calls"]


def test_bad_verdict_aborts_the_walk_at_the_first_node() -> None:
    trace = _trace()
    c, s, _ = run_with_state(trace, Hostile(mode="bad-verdict"), CAP)
    assert int(s.gi[COUNT]) == c["evict_calls"] > 100
    assert c["proposed"] == 0 and c["fallback_evictions"] == c["evictions"]


@pytest.mark.parametrize("interpreted_run", [False, True])
def test_a_hook_that_raises_names_the_access_and_loses_no_page(interpreted_run: bool) -> None:
    # distinct pages 0..19, CAP 8: the k-th evict call serves access 8 + k - 1; the third
    # raises, at access 10. Accesses 8 and 9 evicted pages 0 and 1: 2..9 are resident.
    trace = Trace.from_ids(np.arange(20))
    run = Run(trace, Hostile(mode="raises"), CAP, interpreted=interpreted_run)
    with pytest.raises(PolicyError, match="hostile evict") as err:
        run.advance()
    assert err.value.access_index == 10
    assert resident_set(run.state) == set(range(2, 10))
    assert_no_page_lost(run.state, run.framework, CAP)


def _request_of(n_valid: int, request: int) -> tuple[int, dict[str, int], set[int]]:
    """Call the framework's request function once for ``request`` pages on a full cache of 20
    pages (0..19, no reference bits) with a policy proposing pages 0..n_valid-1."""
    s = make_state(20)
    s.resident[:] = RESIDENT
    fw = make_framework(20, np.array([20]))
    fw.used[0] = 20
    a = np.zeros(ACC_LEN, dtype=np.int64)
    r = np.zeros(ACC_LEN, dtype=np.int64)
    out = np.zeros(C.N_COUNTERS, dtype=np.int64)

    def evict(ss, cg, ev):  # type: ignore[no-untyped-def]
        ss[0].cand[:n_valid] = np.arange(n_valid)
        return n_valid

    def removed(ss, cg, ev):  # type: ignore[no-untyped-def]
        return 0

    freed = interpreted(_evict_request)((s,), fw, a, r, out, evict, removed, 0, request, 0, False, False)
    names = ("proposed", "policy_evictions", "fallback_calls", "fallback_evictions", "evictions")
    counters = {k: int(out[getattr(C, k.upper())]) for k in names}
    return int(freed), counters, resident_set(s)


def test_too_few_candidates_the_80_percent_rule() -> None:
    # request 10: 8 valid candidates free 80 %, not more: the fallback (CLOCK from page id 0,
    # skipping the 8 gone) evicts 8 and 9. 9 candidates free 90 % > 80 %: no fallback, and the
    # framework does not ask again within the request (cache_ext: one pass).
    freed, c, resident = _request_of(8, 10)
    assert freed == 10 and resident == set(range(10, 20))
    assert (c["proposed"], c["policy_evictions"], c["fallback_calls"], c["fallback_evictions"]) == (
        8,
        8,
        1,
        2,
    )
    freed, c, resident = _request_of(9, 10)
    assert freed == 9 and resident == set(range(9, 20))
    assert (c["policy_evictions"], c["fallback_calls"], c["fallback_evictions"]) == (9, 0, 0)
