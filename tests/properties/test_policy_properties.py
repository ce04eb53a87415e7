"""Properties of policies over arbitrary small traces (Hypothesis).

* Belady's OPT never misses more than any registered policy (skipped until ``opt`` exists);
* LRU is a stack algorithm: misses never rise with capacity, and LRU of capacity c misses
  exactly the accesses whose reuse distance d is -1 (first access) or >= c;
* every policy keeps resident pages = min(capacity, distinct pages) and its invariants;
* a policy proposing random garbage never loses or duplicates a page.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _harness import assert_counter_laws, assert_no_page_lost, naive_lru, run_with_state
from _hostile import Hostile
from hypothesis import given, settings
from hypothesis import strategies as st

from pagesim.analysis.reuse import reuse_distances
from pagesim.engine import simulate
from pagesim.policies.registry import make_policy, policy_names
from pagesim.trace import Trace

PROPS = settings(parent=settings.get_profile("properties-ci"))
NAMES = policy_names()

page_lists = st.lists(st.integers(0, 14), min_size=0, max_size=160)
capacities = st.integers(1, 12)


def _trace(ids: list[int]) -> Trace:
    return Trace.from_ids(np.asarray(ids, dtype=np.int64))


@pytest.mark.skipif("opt" not in NAMES, reason="policy 'opt' is not registered yet")
@PROPS
@given(ids=page_lists, capacity=capacities)
def test_opt_never_loses(ids: list[int], capacity: int) -> None:
    # demand-fetch OPT bounds the policies that insert every miss; MIN with bypass bounds all,
    # those that may bypass (define admit: 2q, lirs, admit-compaction, opt-bypass) included
    trace = _trace(ids)
    opt = simulate(trace, make_policy("opt"), capacity).misses
    bypass = simulate(trace, make_policy("opt-bypass"), capacity).misses if "opt-bypass" in NAMES else 0
    assert bypass <= opt
    for name in NAMES:
        policy = make_policy(name)
        misses = simulate(trace, policy, capacity).misses
        assert bypass <= misses, name
        if not type(policy).has_admit():
            assert opt <= misses, name


@PROPS
@given(ids=page_lists)
def test_lru_is_a_stack_algorithm(ids: list[int]) -> None:
    trace = _trace(ids)
    d = reuse_distances(trace.page)
    previous = None
    for capacity in range(1, 17):
        misses = simulate(trace, make_policy("lru"), capacity).misses
        assert misses == int(np.count_nonzero((d < 0) | (d >= capacity)))
        assert misses == naive_lru(trace.page, capacity)[0]
        if previous is not None:
            assert misses <= previous
        previous = misses


@PROPS
@given(ids=page_lists, capacity=capacities, name=st.sampled_from(NAMES))
def test_resident_never_exceeds_capacity(ids: list[int], capacity: int, name: str) -> None:
    trace = _trace(ids)
    policy = make_policy(name)
    distinct: set[int] = set()
    page = trace.page.tolist()

    def check(s: Any, fw: Any, done: int, out: Any) -> None:
        distinct.add(page[done - 1])
        resident = int(np.count_nonzero(s.resident))
        if type(policy).has_admit():  # admission may keep pages out
            assert resident <= min(capacity, len(distinct))
        else:
            assert resident == min(capacity, len(distinct))
        assert_no_page_lost(s, fw, capacity)
        policy.check_invariants(s)

    c, _, _ = run_with_state(trace, policy, capacity, step=1, check=check)
    assert_counter_laws(c)
    assert c["rejected"] == 0 and c["fallback_evictions"] == 0


# ---------------------------------------------------------------------------- random garbage


@PROPS
@given(
    ids=page_lists,
    capacity=capacities,
    seed=st.integers(0, 2**31 - 1),
    two_cgroups=st.booleans(),
)
def test_random_garbage_never_loses_a_page(
    ids: list[int], capacity: int, seed: int, two_cgroups: bool
) -> None:
    arr = np.asarray(ids, dtype=np.int64)
    cg = (arr % 2) if two_cgroups else np.zeros_like(arr)  # a page always has the same cgroup
    trace = Trace.from_ids(arr, cgroup=cg)
    cgs = trace.cgroup.astype(np.int64).tolist()
    page = trace.page.tolist()
    distinct: list[set[int]] = [set(), set()]

    def check(s: Any, fw: Any, done: int, out: Any) -> None:
        distinct[cgs[done - 1]].add(page[done - 1])
        assert_no_page_lost(s, fw, capacity)
        for k in range(fw.used.shape[0]):
            mine = int(((s.resident != 0) & (s.cgroup_of == k)).sum())
            assert mine == min(capacity, len(distinct[k]))

    policy = Hostile(mode="random-garbage", seed=seed)
    c, _, _ = run_with_state(trace, policy, capacity, step=1, check=check)
    assert_counter_laws(c)
    assert c["requests"] == len(ids)
    ci, _, _ = run_with_state(trace, Hostile(mode="random-garbage", seed=seed), capacity, interpreted=True)
    assert ci == c
