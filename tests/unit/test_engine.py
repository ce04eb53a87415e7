"""Engine counters on traces small enough to work out by hand.

Every expected number below is derived in the test's docstring, step by step, cachetools style:
the resident set after each access, most recent first for LRU.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from pagesim.core.jit import kernel
from pagesim.core.state import A_TIME
from pagesim.engine import PolicyError, simulate
from pagesim.policies.base import Policy
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
from _harness import (  # noqa: E402
    assert_counter_laws,
    assert_no_page_lost,
    naive_clock_by_id,
    resident_set,
    run_with_state,
)


class NoHooks(Policy):
    """Every hook is the base class's no-op: evict proposes nothing, so the default policy evicts."""

    name = "test-nohooks"


@kernel
def _raise_at_5th(s, a):  # type: ignore[no-untyped-def]
    if a[A_TIME] == 4:
        raise ValueError("accessed hook failed on purpose")
    return 0


class RaiseOnHit(Policy):
    """``accessed`` raises ValueError at access index 4 (the 5th access, a hit)."""

    name = "test-raise"
    accessed = staticmethod(_raise_at_5th)


@kernel
def _bypass_all(s, a):  # type: ignore[no-untyped-def]
    return 0


class BypassAll(Policy):
    """``admit`` keeps every page out of the cache."""

    name = "test-bypass"
    admit = staticmethod(_bypass_all)


# ------------------------------------------------------------------------------- hits and misses


def test_lru_counters_by_hand() -> None:
    """LRU, 2 pages, ids 1 2 1 3 2 1.

    =====  ======  ==========  ========
    id     result  resident    evicted
    =====  ======  ==========  ========
    1      miss    1
    2      miss    2 1
    1      hit     1 2
    3      miss    3 1         2
    2      miss    2 3         1
    1      miss    1 2         3
    =====  ======  ==========  ========
    """
    t = Trace.from_ids([1, 2, 1, 3, 2, 1])
    c = simulate(t, make_policy("lru"), 2).counters
    assert (c["requests"], c["hits"], c["misses"]) == (6, 1, 5)
    assert c["compulsory_misses"] == 3 == t.n_pages
    assert c["evictions"] == c["policy_evictions"] == c["evict_calls"] == 3
    assert c["fallback_evictions"] == c["fallback_calls"] == c["rejected"] == 0
    assert c["warmup_accesses"] == 0
    assert_counter_laws(c)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", ["lru", "fifo", "mru"])
def test_hits_plus_misses_and_compulsory(name: str, seed: int) -> None:
    """hits + misses = requests; compulsory misses = distinct pages (no warm-up)."""
    ids = np.random.default_rng(seed).integers(0, 60, 500)
    t = Trace.from_ids(ids)
    c = simulate(t, make_policy(name), 16).counters
    assert c["requests"] == 500
    assert c["hits"] + c["misses"] == 500
    assert c["compulsory_misses"] == len(set(ids.tolist())) == t.n_pages


def test_warmup_accesses_not_counted() -> None:
    """Same trace and LRU(2), warm-up 3: accesses 0..2 (1 2 1) only fill the cache.

    Counted: 3 (miss, compulsory: first access to 3), 2 (miss, not compulsory: seen in
    warm-up), 1 (miss). Evictions count the whole run: 3.
    """
    t = Trace.from_ids([1, 2, 1, 3, 2, 1])
    c = simulate(t, make_policy("lru"), 2, warmup=3).counters
    assert c["warmup_accesses"] == 3
    assert (c["requests"], c["hits"], c["misses"]) == (3, 0, 3)
    assert c["compulsory_misses"] == 1
    assert c["evictions"] == 3
    r = simulate(t, make_policy("lru"), 2, warmup=6)
    assert (r.requests, r.misses, r.miss_ratio) == (0, 0, 0.0)
    assert r.counters["warmup_accesses"] == 6


@pytest.mark.parametrize("chunk", [1, 2, 3, 8])
def test_counts_per_chunk_across_the_warmup_boundary(chunk: int) -> None:
    """The loop derives requests, warm-up and hits per call from its range and its misses; chunks
    that start before, at and after the warm-up's end must add up to the same counts.

    LRU(2) over 0 1 0 1 2 0 1 2, warm-up 3: counted 1 (hit), 2 0 1 2 (misses) -> 5 requests,
    1 hit, 4 misses; the counted misses 2 0 1 2 each evict one page -> 4 evictions.
    """
    t = Trace.from_ids([0, 1, 0, 1, 2, 0, 1, 2])
    c = simulate(t, make_policy("lru"), 2, warmup=3, chunk=chunk).counters
    assert (c["requests"], c["hits"], c["misses"], c["warmup_accesses"]) == (5, 1, 4, 3)
    assert c["bytes_requested"] == 5 and c["bytes_missed"] == 4
    assert c["evictions"] == 4


def test_warmup_longer_than_trace() -> None:
    t = Trace.from_ids([1, 2, 3])
    r = simulate(t, make_policy("lru"), 2, warmup=10)
    assert r.requests == 0 and r.counters["warmup_accesses"] == 3 and r.miss_ratio == 0.0


def test_empty_trace() -> None:
    t = Trace.from_ids(np.zeros(0, dtype=np.int64))
    r = simulate(t, make_policy("lru"), 4)
    assert r.requests == 0 and r.hits == 0 and r.misses == 0
    assert r.miss_ratio == 0.0 and not math.isnan(r.miss_ratio)
    assert all(v == 0 for v in r.counters.values())
    assert not math.isnan(r.to_dict()["miss_ratio"])


# ------------------------------------------------------------------------------- bytes mode


def test_bytes_capacity_too_large_never_inserted() -> None:
    """LRU, 10 bytes; ids 1 2 3 1 with sizes 4 4 20 4.

    1 miss (4 used), 2 miss (8), 3 is 20 bytes > 10: a miss, never inserted, nothing evicted,
    1 hit. bytes requested 32, bytes missed 4 + 4 + 20 = 28.
    """
    t = Trace.from_ids([1, 2, 3, 1], size=[4, 4, 20, 4])
    c, s, fw = run_with_state(t, make_policy("lru"), 10, capacity_unit="bytes")
    assert (c["requests"], c["hits"], c["misses"]) == (4, 1, 3)
    assert c["too_large"] == 1
    assert c["evictions"] == 0 and c["evict_calls"] == 0
    assert (c["bytes_requested"], c["bytes_missed"]) == (32, 28)
    assert resident_set(s) == {0, 1}
    assert int(fw.used[0]) == 8
    assert_no_page_lost(s, fw, 10, bytes_mode=True)


def test_bytes_capacity_several_evictions_for_one_object() -> None:
    """LRU, 10 bytes; ids 1 2 3 with sizes 4 4 8: 3 needs 8 free bytes, so both 1 and 2 go.

    One eviction is requested at a time: two evict calls, two policy evictions, 8 bytes used.
    """
    t = Trace.from_ids([1, 2, 3], size=[4, 4, 8])
    c, s, fw = run_with_state(t, make_policy("lru"), 10, capacity_unit="bytes")
    assert c["misses"] == 3
    assert c["evictions"] == c["policy_evictions"] == c["evict_calls"] == 2
    assert resident_set(s) == {2}
    assert int(fw.used[0]) == 8
    assert_no_page_lost(s, fw, 10, bytes_mode=True)


def test_bytes_object_exactly_capacity_fits() -> None:
    t = Trace.from_ids([1, 1, 2, 1], size=[10, 10, 3, 10])
    c = simulate(t, make_policy("lru"), 10, capacity_unit="bytes").counters
    assert (c["hits"], c["misses"], c["too_large"], c["evictions"]) == (1, 3, 0, 2)


def test_bytes_mode_needs_sizes() -> None:
    with pytest.raises(ValueError, match="sizes"):
        simulate(Trace.from_ids([1, 2]), make_policy("lru"), 10, capacity_unit="bytes")


def test_too_large_during_warmup_not_counted() -> None:
    t = Trace.from_ids([1, 2, 3], size=[20, 4, 4])
    c = simulate(t, make_policy("lru"), 10, capacity_unit="bytes", warmup=1).counters
    assert c["too_large"] == 0


def test_bypassed_during_warmup_not_counted() -> None:
    t = Trace.from_ids([1, 2, 3, 4])
    c = simulate(t, BypassAll(), 2, warmup=2).counters
    assert c["bypassed"] == 2


def test_bypass_counts_and_inserts_nothing() -> None:
    t = Trace.from_ids([1, 2, 1, 2, 3])
    c, s, fw = run_with_state(t, BypassAll(), 2)
    assert (c["misses"], c["hits"], c["bypassed"], c["evictions"]) == (5, 0, 5, 0)
    assert resident_set(s) == set()


# ------------------------------------------------------------------------------- default policy


def test_no_evict_hook_uses_default_clock_by_page_id() -> None:
    """A policy without hooks, 3 pages, dense ids 0 1 2 0 3 4 1 0 4 5 (n_pages 6).

    The default policy is CLOCK whose hand sweeps page ids; a hit sets the reference bit, an
    insertion clears it; the hand starts at 0.

    ===  =====  =========  ==============================================  =====
    t    page   result     sweep (hand before -> after)                    res.
    ===  =====  =========  ==============================================  =====
    0-2  0 1 2  3 misses                                                   0 1 2
    3    0      hit        ref[0] = 1                                      0 1 2
    4    3      miss       0: ref, clear; 1: evict (hand 0 -> 2)           0 2 3
    5    4      miss       2: evict (hand 2 -> 3)                          0 3 4
    6    1      miss       3: evict (hand 3 -> 4)                          0 4 1
    7    0      hit        ref[0] = 1                                      0 4 1
    8    4      hit        ref[4] = 1                                      0 4 1
    9    5      miss       4: ref, clear; 5: not resident; wrap; 0: ref,   0 4 5
                           clear; 1: evict (hand 4 -> 2)
    ===  =====  =========  ==============================================  =====

    7 misses, 3 hits, 4 evictions, all by the default policy, one fallback per evict call.
    """
    pages = [0, 1, 2, 0, 3, 4, 1, 0, 4, 5]
    t = Trace(page=pages, original_id=np.arange(6))
    for interpreted in (False, True):
        c, s, fw = run_with_state(t, NoHooks(), 3, interpreted=interpreted)
        assert (c["misses"], c["hits"]) == (7, 3)
        assert c["evictions"] == c["fallback_evictions"] == 4
        assert c["evict_calls"] == c["fallback_calls"] == 4
        assert c["policy_evictions"] == c["proposed"] == c["rejected"] == 0
        assert resident_set(s) == {0, 4, 5}
        assert int(fw.hand[0]) == 2
        assert_no_page_lost(s, fw, 3)
    assert naive_clock_by_id(pages, 3, 6) == (7, {0, 4, 5}, 4)


def test_default_clock_matches_naive_on_random_trace() -> None:
    ids = np.random.default_rng(7).zipf(1.3, 3000) % 97
    t = Trace.from_ids(ids)
    for cap in (1, 5, 20):
        c, s, fw = run_with_state(t, NoHooks(), cap)
        misses, resident, evictions = naive_clock_by_id(t.page, cap, t.n_pages)
        assert (c["misses"], c["evictions"]) == (misses, evictions)
        assert resident_set(s) == resident
        assert_no_page_lost(s, fw, cap)


# ------------------------------------------------------------------------------- hook errors


@pytest.mark.parametrize("interpreted", [False, True], ids=["compiled", "interpreted"])
def test_policy_error_names_access_index(interpreted: bool) -> None:
    """ids 1 2 1 2 1 ...: access index 4 is a hit on 1, where ``accessed`` raises."""
    t = Trace.from_ids([1, 2, 1, 2, 1, 2, 1])
    with pytest.raises(PolicyError) as info:
        simulate(t, RaiseOnHit(), 4, interpreted=interpreted)
    err = info.value
    assert err.access_index == 4
    assert isinstance(err.original, ValueError)
    assert "access index 4" in str(err)
    assert err.policy == "test-raise"
    assert "ValueError" in err.traceback_text


def test_policy_error_across_chunks() -> None:
    """The index is the trace's, not the chunk's."""
    t = Trace.from_ids([1, 2, 1, 2, 1, 2, 1])
    with pytest.raises(PolicyError) as info:
        simulate(t, RaiseOnHit(), 4, chunk=3)
    assert info.value.access_index == 4


def test_invalid_arguments() -> None:
    t = Trace.from_ids([1, 2])
    with pytest.raises(ValueError):
        simulate(t, make_policy("lru"), 0)
    with pytest.raises(ValueError):
        simulate(t, make_policy("lru"), 2, warmup=-1)
    with pytest.raises(ValueError):
        simulate(t, make_policy("lru"), 2, capacity_unit="blocks")


def test_chunking_does_not_change_counters() -> None:
    t = Trace.from_ids(np.random.default_rng(3).integers(0, 40, 1000))
    whole = simulate(t, make_policy("lru"), 8).counters
    assert simulate(t, make_policy("lru"), 8, chunk=7).counters == whole
    assert (
        simulate(t, make_policy("lru"), 8, chunk=1, warmup=13).counters
        == simulate(t, make_policy("lru"), 8, warmup=13).counters
    )


@kernel
def _failing_init(s, a):  # type: ignore[no-untyped-def]
    return 3


class FailingInit(Policy):
    """A policy whose init reports failure (cache_ext: a non-zero init aborts the attach)."""

    name = "failing-init"
    init = staticmethod(_failing_init)


def test_nonzero_init_aborts_the_run() -> None:
    with pytest.raises(PolicyError, match="init returned 3"):
        simulate(Trace.from_ids([1, 2, 3]), FailingInit(), 2)


def test_warmup_evictions_are_not_counted() -> None:
    """1 2 3 1 2 3 with 2 frames, warm-up 3. Warm-up: 1, 2 fill; 3 evicts 1 (not counted).
    Measured: 1 misses and evicts 2, 2 misses and evicts 3, 3 misses and evicts 1: 3 misses,
    3 evictions, 3 evict calls."""
    c = simulate(Trace.from_ids([1, 2, 3, 1, 2, 3]), make_policy("lru"), 2, warmup=3).counters
    assert (c["requests"], c["misses"], c["evictions"], c["evict_calls"]) == (3, 3, 3, 3)
    assert c["warmup_accesses"] == 3
