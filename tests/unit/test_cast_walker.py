"""CAST's walker: the mm, PMD and Bloom-filter skips, the look-around feeding the filter, its cost.

Page ids stand for virtual addresses: page table ``b`` holds page ids 512b..512b+511. Anon pages
only, written in id order, so ids are dense in that order; ``schedule="trace"`` keeps the rows'
order. On a 4,096-page node the clock ticks (and the walker runs) every 1,024 pages taken in,
and nothing is evicted below 3,936 pages in use.
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core.state import YOUNG
from pagesim.engine.kernel import KernelRun, simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.cast.core import word_count
from pagesim.policies.cast.costs import walk_cost_ns
from pagesim.policies.cast.knobs import bloom_mode, prefetch_distances
from pagesim.policies.cast.layout import GI, PM
from pagesim.policies.cast.policy import CAST
from pagesim.policies.cast.walk import bloom_add, bloom_test, look_around
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace
from pagesim.workloads.kernel import make_kernel_workload

WRITE = 1


def _run(rows: list[tuple[int, int]], memory: int = 4096, **params):  # type: ignore[no-untyped-def]
    """``rows`` of (page, task), each a write; run to the end under CAST(**params)."""
    ids, tags = zip(*rows)
    n = len(rows)
    tr = Trace.from_ids(
        np.array(ids), kind=np.ones(n, np.uint8), op=np.full(n, WRITE, np.uint8), tag=np.array(tags, np.int32)
    )
    run = KernelRun(tr, CAST(**params), KernelConfig(memory_pages=memory, schedule="trace"))
    run.advance()
    assert run.counters["pswpout"] == 0
    return run, run.policies[0].readouts(run.state)


def test_a_table_whose_pmd_was_not_accessed_is_not_read() -> None:
    """Pages 0..3071 written (tables 0..5): walks at pages 1023, 2047 and 3071. The first reads
    tables 0-1 (1,024 PTEs; every bit a fault of this tick: left, so both keep their PMD bit).
    The second reads tables 0-3 (2,048): it takes the bits of 0..1022 (read in tick 0) and leaves
    1023's and those of tables 2-3 (faulted in tick 1; 2047, the page that ends it, is stamped
    in tick 2). The third skips table 0 (nothing in it accessed since, no bit left) and reads
    tables 1-5 (2,560): the bits of 1023 and 1024..2046 taken. Without the PMD skip the third
    reads table 0 too and takes the same bits (with the filter off: without PMD bits the seed's
    walker reads the Bloom filter instead, and the second walk reads tables 0-1 only)."""
    rows = [(i, 0) for i in range(3072)]
    run, r = _run(rows)
    assert (r["walker_walks"], r["walker_skip_pmd"], r["walker_tables"]) == (3, 1, 2 + 4 + 5)
    assert (r["walker_pmds"], r["walker_ptes"]) == (2 + 4 + 6, 1024 + 2048 + 2560)
    assert r["walker_young"] == 1023 + 1 + 1023
    _, every = _run(rows, walker_pmd=False, walker_bloom="off")
    assert (every["walker_skip_pmd"], every["walker_ptes"]) == (0, 1024 + 2048 + 3072)
    assert every["walker_young"] == r["walker_young"]
    assert every["walker_cpu_ns"] > r["walker_cpu_ns"]
    _, fallback = _run(rows, walker_pmd=False)  # the filter of tables found young: 0-1 only
    assert (fallback["walker_skip_bloom"], fallback["walker_ptes"]) == (2 + 4, 3 * 1024)


def test_an_mm_no_cpu_ran_is_not_walked() -> None:
    """Task 0 writes pages 0..1023 (walk 1 at page 1023), task 1 pages 1024..2046, task 0 page
    2047 (walk 2: task 1's bits, faults of tick 1, are left), then task 0 pages 2048..3071
    (walk 3). Task 1 did not run between walks 2 and 3: its tables 2-3 are not reached and
    the bits walk 2 left stay set, each page read once; table 3 is still read for page 2047
    (task 0's), one PTE. Walking every mm, walk 3 takes them: each page read twice."""
    rows = [(i, 0) for i in range(1024)] + [(i, 1) for i in range(1024, 2047)] + [(2047, 0)]
    rows += [(i, 0) for i in range(2048, 3072)]
    run, r = _run(rows)
    s = run.state
    assert r["walker_skip_mm"] == 1  # table 2: task 1's alone
    idle = np.arange(1024, 2047)
    assert ((s.resident[idle] & YOUNG) != 0).all()
    assert {int(word_count.py_func(int(w))) for w in s.pm[idle, PM.word]} == {1}
    run2, every = _run(rows, walker_mm=False)
    assert every["walker_skip_mm"] == 0
    assert every["walker_ptes"] - r["walker_ptes"] == len(idle)
    assert not (run2.state.resident[idle] & YOUNG).any()
    assert {int(word_count.py_func(int(w))) for w in run2.state.pm[idle, PM.word]} == {2}


def test_mglrus_bloom_filter_skips_a_table_the_last_walk_did_not_find_young() -> None:
    """``walker_bloom=always`` (MGLRU's): the first walk reads every young table and puts
    tables 0-1 in the filter; the second skips tables 2-3 (accessed, but not in the filter), so
    their bits are never taken by the walker (the third finds their PMD bits clear). Reclaim's
    look-around at page 1100 (table 2) takes the young bits around it and puts table 2 into the
    filter the next walk reads (the seed's "rmap-fed bloom")."""
    run, r = _run([(i, 0) for i in range(3072)], walker_bloom="always")
    s = run.state
    assert r["walker_skip_bloom"] >= 2
    assert ((s.resident[1024:2048] & YOUNG) != 0).all()
    g = int(s.gi[GI.bloomg])
    assert not bloom_test.py_func(s, g, 2)
    assert look_around.py_func(s, 1100) == 63  # the 64 PTEs around it, itself excluded
    assert bloom_test.py_func(s, g, 2)
    assert run.policies[0].readouts(s)["lookaround_ptes"] == 64


def test_the_bloom_filter_has_no_false_negatives_and_few_false_positives() -> None:
    """Two 15-bit keys per table in 32,768 bits: every table added is found; of tables never
    added, about (1 - e^(-2k/32768))^2 are found with k added (k = 1,000: 0.35 %)."""
    _, s = _configured()
    rng = np.random.default_rng(1)
    tables = rng.choice(1 << 20, size=21_000, replace=False)
    added, others = tables[:1000], tables[1000:]
    for b in added:
        bloom_add.py_func(s, 0, int(b))
    assert all(bloom_test.py_func(s, 0, int(b)) for b in added)
    false_pos = sum(bool(bloom_test.py_func(s, 0, int(b))) for b in others) / others.size
    assert false_pos < 0.01


def test_the_seeds_skips_change_no_counter_when_the_walk_costs_nothing() -> None:
    """The mm and PMD skips leave out only what cannot have been read: with the walker's costs
    0 (no model time moves), stream-ws's counters are those of a walker reading every mapped
    page id, and the walker reads fewer PTEs."""
    tr = make_kernel_workload("stream-ws", memory_pages=2048, extra_periods=5)
    cfg = KernelConfig(memory_pages=2048, swap_pages=2048)
    free = {"walk_pte_ns": 0, "walk_pmd_ns": 0}
    seed = simulate_kernel(tr, make_policy("cast", **free), cfg)
    every = simulate_kernel(
        tr, make_policy("cast", walker_mm=False, walker_pmd=False, walker_bloom="off", **free), cfg
    )
    assert seed.counters == every.counters
    assert seed.readouts["walker_young"] == every.readouts["walker_young"]
    assert seed.readouts["walker_ptes"] < every.readouts["walker_ptes"]
    assert seed.readouts["walker_skip_pmd"] > 0


def _configured(**params):  # type: ignore[no-untyped-def]
    from pagesim.core.state import make_state

    pol = CAST(**params)
    s = make_state(4096, **pol.state_shape())
    pol.configure(s, 4096)
    return pol, s


def test_walker_simd_reads_a_cache_line_a_step() -> None:
    """One PMD entry and a full table of 512 PTEs, 3 young, at 10 ns each: with SIMD 10 +
    (512 / 8 + 3) x 10 = 680 ns; without, 10 + 512 x 10 = 5,130 ns."""
    _, s = _configured()
    assert walk_cost_ns.py_func(s, 512, 1, 3) == 680.0
    _, s = _configured(walker_simd=False)
    assert walk_cost_ns.py_func(s, 512, 1, 3) == 5130.0
    _, s = _configured(walk_pte_ns=0, walk_pmd_ns=0)
    assert walk_cost_ns.py_func(s, 512, 1, 3) == 0.0


def test_the_walker_knobs_read_their_text_and_refuse_the_rest() -> None:
    """prefetch: "by CPU" or two distances (no modelled effect); walker_bloom: fallback (the
    seed's), always (MGLRU's) or off; version in describe()."""
    assert prefetch_distances("by CPU") is None
    assert prefetch_distances("8 2") == (8, 2) and prefetch_distances("0 0") == (0, 0)
    assert (bloom_mode("fallback"), bloom_mode("always"), bloom_mode(False)) == (1, 2, 0)
    pol, s = _configured(prefetch="0 0")
    assert pol.describe(s).splitlines()[-1] == "version 0.2.6"
    for bad in ({"prefetch": "8"}, {"prefetch": "fast"}, {"walker_bloom": "sometimes"}, {"walk_pte_ns": -1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            _configured(**bad)


def test_reclaims_check_of_a_mapped_candidate_walks_the_reverse_map() -> None:
    """shrink_folio_list's folio_referenced: reclaim's check of a mapped (anon) candidate is one
    reverse-map walk (``WORK_RMAP``, charged at ``rmap_ns_per_page`` as the legacy LRU's and
    MGLRU's), young or not; a file page read by read() has no PTE and costs none."""
    from pagesim.core.state import ANON, RESIDENT, WORK_RMAP
    from pagesim.policies.cast.core import pack
    from pagesim.policies.cast.walk import check_young

    _, s = _configured()
    s.pm[7, PM.word] = pack(0, 0, 0, 1, 1)
    s.resident[7] = RESIDENT | ANON | YOUNG
    s.pm[8, PM.word] = pack(0, 0, 0, 1, 1)
    s.resident[8] = RESIDENT | ANON
    s.pm[9, PM.word] = pack(0, 0, 0, 2, 1)
    s.resident[9] = RESIDENT
    rmap0 = int(s.work[WORK_RMAP])
    assert check_young.py_func(s, 7) and int(s.work[WORK_RMAP]) == rmap0 + 1
    assert not check_young.py_func(s, 8) and int(s.work[WORK_RMAP]) == rmap0 + 2
    assert not check_young.py_func(s, 9) and int(s.work[WORK_RMAP]) == rmap0 + 2
