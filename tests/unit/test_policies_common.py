"""Every classic policy: compiled == interpreted, invariants after each step, naive references.

``run_steps`` is the step-by-step driver the per-policy files use: it runs ``simulate`` one
access per chunk and, after each, records the resident set (in the trace's own ids) and calls
the policy's ``check_invariants`` on the live state. The state is caught by wrapping the
instance's ``configure`` (the engine calls it with the freshly allocated state), so the same
cached compiled runner as in production is exercised.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pagesim.engine import simulate
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "crosscheck"))
import naive  # noqa: E402

POLICIES = ["lru", "fifo", "mru", "clock", "lfu", "opt"]


def run_steps(
    name: str,
    ids: list[int],
    capacity: int,
    *,
    interpreted: bool = False,
    check: bool = True,
    **params: Any,
) -> tuple[int, list[set[int]]]:
    """Simulate ``name`` over ``ids`` access by access.

    ``params`` are the policy's parameter overrides.

    Returns
    -------
    misses : int
    resident : list of set of int
        The resident ids after each access.
    """
    trace = Trace.from_ids(ids)
    policy = make_policy(name, **params)
    states: list[Any] = []
    original = policy.configure

    def spy(s: Any, cap: int) -> None:
        states.append(s)
        original(s, cap)

    policy.configure = spy  # type: ignore[method-assign]
    resident: list[set[int]] = []

    def after(done: int, total: int) -> None:
        s = states[0]
        resident.append({int(x) for x in trace.original_id[np.flatnonzero(s.resident)]})
        if check:
            policy.check_invariants(s)

    res = simulate(trace, policy, capacity, interpreted=interpreted, progress=after, chunk=1)
    assert res.counters["fallback_evictions"] == 0, "the policy left evictions to the fallback"
    assert res.counters["rejected"] == 0, "the framework refused a candidate"
    return res.misses, resident


def hits_from_steps(ids: list[int], resident: list[set[int]]) -> list[bool]:
    """Access t hit iff its page was resident after access t - 1."""
    return [t > 0 and p in resident[t - 1] for t, p in enumerate(ids)]


def random_trace(seed: int, n: int = 3000, pages: int = 80) -> np.ndarray:
    """Zipf-like ids with a scan mixed in, seeded."""
    rng = np.random.default_rng(seed)
    ids = rng.zipf(1.3, size=n) % pages
    ids[n // 3 : n // 3 + pages] = np.arange(pages)
    return ids.astype(np.int64)


@pytest.mark.parametrize("name", POLICIES)
def test_compiled_equals_interpreted(name):
    trace = Trace.from_ids(random_trace(7))
    for cap in (5, 23):
        compiled = simulate(trace, make_policy(name), cap)
        interp = simulate(trace, make_policy(name), cap, interpreted=True)
        assert compiled.mode == "compiled" and interp.mode == "interpreted"
        assert compiled.counters == interp.counters, (name, cap)
        assert compiled.counters["fallback_evictions"] == 0


@pytest.mark.parametrize("name", POLICIES)
def test_invariants_each_step_and_naive_hits(name):
    """Invariants after every access of a random trace; the hit pattern equals the reference's."""
    ids = random_trace(11, n=400, pages=30).tolist()
    for cap in (1, 4, 17):
        m, resident = run_steps(name, ids, cap)
        assert all(len(r) <= cap for r in resident)
        ref = naive.REFERENCES[name](ids, cap)
        if name == "opt":  # ties between never-again pages may leave different sets, same count
            assert m == naive.misses(ref), cap
        else:
            assert hits_from_steps(ids, resident) == ref, cap
            assert m == naive.misses(ref)


@pytest.mark.parametrize("name", POLICIES)
@given(
    ids=st.lists(st.integers(0, 12), min_size=0, max_size=120),
    capacity=st.integers(1, 10),
)
def test_misses_equal_naive(name, ids, capacity):
    trace = Trace.from_ids(np.array(ids, dtype=np.int64))
    res = simulate(trace, make_policy(name), capacity)
    assert res.misses == naive.misses(naive.REFERENCES[name](ids, capacity))
    assert res.hits + res.misses == len(ids)


def test_opt_never_worse_than_the_others():
    ids = random_trace(3, n=2000, pages=60)
    trace = Trace.from_ids(ids)
    for cap in (3, 10, 30):
        best = simulate(trace, make_policy("opt"), cap).misses
        for name in POLICIES:
            assert simulate(trace, make_policy(name), cap).misses >= best, (name, cap)


def test_registry_names():
    assert type(make_policy("clock")).__name__ == "Clock"
    assert type(make_policy("lfu")).__name__ == "LFU"
    assert type(make_policy("opt")).__name__ == "Belady"
    assert make_policy("opt").needs_next_access
