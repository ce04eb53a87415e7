"""Test harness: run a policy exactly as :func:`pagesim.engine.simulate` does, keeping the state.

``simulate`` returns counters only; the contract tests also need the final ``State`` and
``Framework`` (who is resident, list integrity, units in use) and, for the strongest checks, the
state after *every* access. :func:`run_with_state` drives the same runner (compiled or
interpreted) through the resumable loop, one chunk at a time, and calls ``check(s, fw, done, out)``
between chunks. Its counters are compared with ``simulate``'s on every call, so the harness
cannot silently drift from the engine.

Also here: naive references (LRU, the engine's default CLOCK over page ids) written as plain,
obviously-right Python, and :func:`assert_no_page_lost`, the framework invariants.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from pagesim.core.lists import check_lists
from pagesim.core.state import REFERENCED, RESIDENT
from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies.base import Policy
from pagesim.trace import Trace


def run_with_state(
    trace: Trace,
    policy: Policy,
    capacity: int,
    *,
    interpreted: bool = False,
    warmup: int = 0,
    capacity_unit: str = "pages",
    step: int = 0,
    check: Callable[[Any, Any, int, Any], None] | None = None,
    checked: bool = False,
) -> tuple[dict[str, int], Any, Any]:
    """Run ``policy`` over ``trace`` and return ``(counters, s, fw)`` after the last access.

    ``step > 0`` advances ``step`` accesses at a time (:class:`pagesim.engine.simulate.Run`)
    and calls ``check(s, fw, done, out)`` after each advance (``step=1``: after every access);
    ``out`` is the engine's raw counter array (slots in :mod:`pagesim.engine.counters`). The
    counters are also checked equal to :func:`simulate`'s for the same run. ``checked``: the
    engine verifies after every hook that the policy left residency and owners alone.
    """
    run = Run(
        trace,
        policy,
        capacity,
        warmup=warmup,
        capacity_unit=capacity_unit,
        interpreted=interpreted,
        checked=checked,
    )
    chunk = step if step > 0 else max(run.n, 1)
    while run.done < run.n:
        run.advance(chunk)
        if check is not None:
            check(run.state, run.framework, run.done, run.out)
    counters = run.counters
    reference = simulate(
        trace,
        policy,
        capacity,
        warmup=warmup,
        capacity_unit=capacity_unit,
        interpreted=interpreted,
        checked=checked,
    )
    assert counters == reference.counters, "harness and simulate disagree"
    return counters, run.state, run.framework


def assert_counter_laws(c: dict[str, int]) -> None:
    """Identities every run satisfies, whatever the policy proposes."""
    assert c["hits"] + c["misses"] == c["requests"]
    assert c["evictions"] == c["policy_evictions"] + c["fallback_evictions"]
    assert c["evictions"] <= c["misses"] + c["warmup_accesses"]
    reasons = (
        c["rejected_out_of_range"]
        + c["rejected_not_resident"]
        + c["rejected_foreign"]
        + c["rejected_duplicate"]
        + c["rejected_overflow"]
    )
    assert c["rejected"] == reasons
    # every proposed candidate is refused, evicted or left unused -- nothing else
    assert c["proposed"] == c["rejected"] + c["policy_evictions"] + c["unused_candidates"]
    assert c["fallback_calls"] <= c["evict_calls"]


def assert_no_page_lost(s: Any, fw: Any, capacity: int, bytes_mode: bool = False) -> None:
    """Framework invariants: resident flags, owners, units in use, list integrity."""
    res = s.resident
    # bit 0: resident; bit 1: the default policy's reference bit, only ever set while resident
    assert set(np.unique(res).tolist()) <= {0, RESIDENT, RESIDENT | REFERENCED}
    on = res != 0
    assert (s.cgroup_of[on] >= 0).all(), "a resident page has no owner"
    if fw.used.shape[0] > 1:  # with one cgroup every page is cgroup 0's, resident or not
        assert (s.cgroup_of[~on] == -1).all(), "a page that left memory still has an owner"
    for cg in range(fw.used.shape[0]):
        mine = on & (s.cgroup_of == cg)
        used = int(fw.psize[mine].sum()) if bytes_mode else int(mine.sum())
        assert int(fw.used[cg]) == used, f"cgroup {cg}: used {fw.used[cg]} != {used} resident"
        assert used <= capacity, f"cgroup {cg}: {used} units resident > capacity {capacity}"
    assert int(check_lists(s)) == 0
    listed = s.lst[:, 2] >= 0
    assert not (listed & ~on).any(), "a page that left memory is still in a list"
    assert int(listed.sum()) == int(s.lhd[s.lhd[:, 3] >= 0, 2].sum())


def resident_set(s: Any) -> set[int]:
    """Dense ids of the resident pages."""
    return set(np.flatnonzero(s.resident).tolist())


# ---------------------------------------------------------------------------- naive references


def naive_lru(pages: Any, capacity: int) -> tuple[int, set[int]]:
    """Misses and final resident set of LRU with ``capacity`` pages."""
    cache: OrderedDict[int, None] = OrderedDict()
    misses = 0
    for p in map(int, pages):
        if p in cache:
            cache.move_to_end(p)
            continue
        misses += 1
        if len(cache) >= capacity:
            cache.popitem(last=False)
        cache[p] = None
    return misses, set(cache)


def naive_clock_by_id(
    pages: Any, capacity: int, n_pages: int, cgroups: Any = None
) -> tuple[int, set[int], int]:
    """The engine's default policy alone: per cgroup, CLOCK whose hand sweeps page ids.

    A hit sets the page's reference bit, an insertion clears it; to evict, the cgroup's hand
    walks ids upwards (wrapping at ``n_pages``), skips pages not resident or of another cgroup,
    clears set bits and evicts the first page whose bit is clear. Each cgroup has ``capacity``.

    Returns (misses, final resident set, evictions).
    """
    pages = [int(p) for p in pages]
    cgs = [0] * len(pages) if cgroups is None else [int(c) for c in cgroups]
    owner: dict[int, int] = {}
    ref: dict[int, bool] = {}
    used: dict[int, int] = {}
    hand: dict[int, int] = {}
    misses = evictions = 0
    for p, cg in zip(pages, cgs):
        if p in owner:
            ref[p] = True
            continue
        misses += 1
        if used.get(cg, 0) >= capacity:
            h = hand.get(cg, 0)
            while True:
                q = h
                h = (h + 1) % n_pages
                if owner.get(q) != cg:
                    continue
                if ref[q]:
                    ref[q] = False
                    continue
                del owner[q], ref[q]
                used[cg] -= 1
                evictions += 1
                break
            hand[cg] = h
        owner[p] = cg
        ref[p] = False
        used[cg] = used.get(cg, 0) + 1
    return misses, set(owner), evictions
