"""The contract every registered policy must keep (STYLE.md, Tests: ``tests/contract/``).

Parametrised at collection time over ``policy_names()``, so a newly registered policy is checked
without touching this file. For each policy, on seeded random traces:

* after every access: capacity never exceeded, resident count = min(capacity, distinct pages
  seen) (built-in policies admit every page), a hit evicts nothing, framework invariants and
  the policy's own ``check_invariants``;
* hits + misses = requests; evictions = misses - min(capacity, distinct) (cache mode, unit
  sizes); a cache holding every page misses only compulsorily;
* built-in policies propose only valid pages: no rejects, no fallback evictions;
* the same input gives the same counters; compiled and interpreted runs agree exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _harness import assert_counter_laws, assert_no_page_lost, run_with_state

from pagesim.engine import counters as C
from pagesim.engine import simulate
from pagesim.policies.registry import make_policy, policy_class, policy_names
from pagesim.trace import Trace

NAMES = policy_names()
CAPACITIES = [1, 2, 7, 40]


def _trace(seed: int, n: int = 1200, pages: int = 90) -> Trace:
    """Zipf-like accesses with a loop mixed in, so recency and frequency both matter."""
    rng = np.random.default_rng(seed)
    ids = (rng.zipf(1.15, n) - 1) % pages
    loop = np.arange(n) % (pages // 3)
    mix = rng.random(n) < 0.3
    return Trace.from_ids(np.where(mix, loop, ids))


def _step_checker(trace: Trace, policy: Any, capacity: int) -> Any:
    page = trace.page
    first = np.zeros(trace.n_requests + 1, dtype=np.int64)
    seen: set[int] = set()
    for i, p in enumerate(page.tolist()):
        seen.add(p)
        first[i + 1] = len(seen)

    def check(s: Any, fw: Any, done: int, out: Any) -> None:
        resident = int(np.count_nonzero(s.resident))
        assert resident <= capacity, f"{resident} pages resident > capacity {capacity} after {done}"
        if type(policy).has_admit():  # admission may keep pages out (2Q, LIRS below 4 pages)
            assert resident <= min(capacity, int(first[done])), f"after {done} accesses"
        else:
            assert resident == min(capacity, int(first[done])), f"after {done} accesses"
        assert_no_page_lost(s, fw, capacity)
        policy.check_invariants(s)

    return check


def _hit_evicts_nothing_checker(trace: Trace) -> Any:
    prev = {"hits": 0, "evictions": 0}

    def check(s: Any, fw: Any, done: int, out: Any) -> None:
        hits, evictions = int(out[C.HITS]), int(out[C.EVICTIONS])
        if hits > prev["hits"]:
            assert evictions == prev["evictions"], f"the hit at access {done - 1} evicted a page"
        prev["hits"], prev["evictions"] = hits, evictions

    return check


@pytest.mark.parametrize("capacity", CAPACITIES)
@pytest.mark.parametrize("name", NAMES)
def test_capacity_and_counters_after_every_access(name: str, capacity: int) -> None:
    trace = _trace(seed=capacity)
    # auto's candidates are policies of their own, each checked here under its name: two that
    # differ keep auto's switching under the check without compiling the whole suite again
    policy = make_policy(name, candidates="lru,fifo") if name == "auto" else make_policy(name)
    steps = _step_checker(trace, policy, capacity)
    hits = _hit_evicts_nothing_checker(trace)

    def check(s: Any, fw: Any, done: int, out: Any) -> None:
        steps(s, fw, done, out)
        hits(s, fw, done, out)

    # checked: the engine verifies after every hook that residency and owners are untouched
    c, s, fw = run_with_state(trace, policy, capacity, step=1, check=check, checked=True)
    assert_counter_laws(c)
    assert c["requests"] == trace.n_requests
    assert c["hits"] + c["misses"] == c["requests"]
    assert c["compulsory_misses"] == trace.n_pages
    assert c["evictions"] <= c["misses"]
    if not policy_class(name).has_admit():
        assert c["evictions"] == c["misses"] - min(capacity, trace.n_pages)
    assert c["rejected"] == 0, "a built-in policy proposed an invalid page"
    if policy.values.get("own_fallback", True):
        assert c["fallback_evictions"] == 0 and c["fallback_calls"] == 0
    else:  # it leaves a shortfall to the kernel's default policy by design (ce-mglru, cache_ext's rule)
        assert c["fallback_evictions"] <= c["evictions"]


@pytest.mark.parametrize("name", NAMES)
def test_cache_larger_than_working_set_misses_only_compulsorily(name: str) -> None:
    trace = _trace(seed=3)
    c = simulate(trace, make_policy(name), trace.n_pages).counters
    assert c["misses"] == c["compulsory_misses"] == trace.n_pages
    assert c["evictions"] == c["evict_calls"] == 0


@pytest.mark.parametrize("name", NAMES)
def test_same_input_same_counters(name: str) -> None:
    trace = _trace(seed=21, n=3000)
    first = simulate(trace, make_policy(name), 16).counters
    again = simulate(_trace(seed=21, n=3000), make_policy(name), 16).counters
    assert first == again
    warm = simulate(trace, make_policy(name), 16, warmup=500).counters
    assert warm["requests"] == 2500 and warm["warmup_accesses"] == 500
    assert warm["hits"] + warm["misses"] == 2500


@pytest.mark.parametrize("capacity", [3, 25])
@pytest.mark.parametrize("name", NAMES)
def test_compiled_equals_interpreted(name: str, capacity: int) -> None:
    trace = _trace(seed=100 + capacity, n=800)
    compiled = simulate(trace, make_policy(name), capacity)
    interpreted = simulate(trace, make_policy(name), capacity, interpreted=True)
    assert compiled.mode == "compiled" and interpreted.mode == "interpreted"
    assert compiled.counters == interpreted.counters
