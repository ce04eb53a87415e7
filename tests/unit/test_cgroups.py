"""Each cgroup runs its own policy over its own capacity (cache_ext §3), in cache mode."""

from __future__ import annotations

import numpy as np

from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace


def _interleaved(seed: int = 3) -> tuple[Trace, np.ndarray, np.ndarray]:
    """Two cgroups with disjoint pages: cgroup 0 reads a zipf-like set, cgroup 1 loops."""
    rng = np.random.default_rng(seed)
    a = rng.zipf(1.3, 3000) % 200  # ids 0..199
    b = 1000 + np.tile(np.arange(60), 50)  # a loop over 60 pages
    ids = np.empty(a.size + b.size, dtype=np.int64)
    cg = np.empty_like(ids)
    ids[0::2], cg[0::2] = a, 0
    ids[1::2], cg[1::2] = b, 1
    return Trace.from_ids(ids, cgroup=cg.astype(np.uint16)), a, b


def test_each_cgroup_runs_its_own_policy_and_capacity() -> None:
    trace, a, b = _interleaved()
    both = simulate(trace, [make_policy("lru"), make_policy("mru")], [30, 40])
    alone_a = simulate(Trace.from_ids(a), make_policy("lru"), 30)
    alone_b = simulate(Trace.from_ids(b), make_policy("mru"), 40)
    assert both.misses == alone_a.misses + alone_b.misses
    assert both.counters["evictions"] == alone_a.counters["evictions"] + alone_b.counters["evictions"]
    assert both.counters["rejected"] == 0 and both.counters["fallback_evictions"] == 0
    assert both.policy == "cg0=lru,cg1=mru"


def test_mru_on_a_loop_larger_than_memory() -> None:
    """Loop 0..4 four times, 3 frames. LRU misses all 20. MRU, resident set after each pass:

    pass 1: 0 1 2 miss (fill); 3 miss, evict 2 (MRU) -> {0,1,3}; 4 miss, evict 3 -> {0,1,4}: 5
    pass 2: 0 hit, 1 hit; 2 miss, evict 1 -> {0,2,4}; 3 miss, evict 2 -> {0,3,4}; 4 hit:     2
    pass 3: 0 hit; 1 miss, evict 0 -> {1,3,4}; 2 miss, evict 1 -> {2,3,4}; 3 hit, 4 hit:       2
    pass 4: 0 miss, evict 4 -> {0,2,3}; 1 miss, evict 0 -> {1,2,3}; 2, 3 hit;
            4 miss, evict 3 -> {1,2,4}:                                                     3
    MRU: 12 misses. In a two-cgroup run (cgroup 0 LRU, cgroup 1 MRU on the loop) the loop's
    cgroup keeps its 12.
    """
    loop = np.tile(np.arange(5), 4)
    assert simulate(Trace.from_ids(loop), make_policy("lru"), 3).misses == 20
    assert simulate(Trace.from_ids(loop), make_policy("mru"), 3).misses == 12
    ids = np.concatenate([[100, 101], loop])  # cgroup 0 reads two pages first, then is idle
    cg = np.array([0, 0] + [1] * loop.size, dtype=np.uint16)
    mixed = simulate(Trace.from_ids(ids, cgroup=cg), [make_policy("lru"), make_policy("mru")], [2, 3])
    assert mixed.misses == 2 + 12


def test_a_hit_on_another_cgroups_page_goes_to_the_owner() -> None:
    """cgroup 1 reads page 7 that cgroup 0 faulted in: a hit, charged to nobody new."""
    ids = [7, 8, 7, 9]
    cg = np.array([0, 0, 1, 1], dtype=np.uint16)
    run = Run(Trace.from_ids(ids, cgroup=cg), make_policy("lru"), 2)
    run.advance()
    c = run.counters
    assert (c["hits"], c["misses"]) == (1, 3)
    fw = run.framework
    assert fw.used.tolist() == [2, 1]  # pages 7 and 8 are cgroup 0's; 9 is cgroup 1's
    owners = {int(p): int(run.state.cgroup_of[p]) for p in np.flatnonzero(run.state.resident)}
    assert owners == {0: 0, 1: 0, 2: 1}  # dense ids: 7 -> 0, 8 -> 1, 9 -> 2


def test_compiled_equals_interpreted_with_two_policies() -> None:
    trace, _, _ = _interleaved(seed=5)
    pols = lambda: [make_policy("clock"), make_policy("lfu")]  # noqa: E731
    compiled = simulate(trace, pols(), [25, 35])
    plain = simulate(trace, pols(), [25, 35], interpreted=True)
    assert compiled.counters == plain.counters
