"""MGLRU by hand on a 100-page node, compiled == interpreted, invariants after every access.

A node of 100 pages has watermarks min 32, low 40, high 48 (min_free_kbytes clamps to 128 KiB,
gap = 32 // 4): kswapd wakes after an access that leaves fewer than 40 pages free and reclaims
batches of 32 until 48 are free. Swap is zram (3:1: every 3 pages in swap take one page of
memory). Readahead is off. Reclaim is instantaneous (``schedule="trace"``): kswapd reclaims to
high between two accesses. MGLRU starts with max_seq 3 and min_seq 0 for both types.

The shared opening (``_opening``): anon pages 0..60 written once. At page 60 (61 resident, 39
free) kswapd asks for 32. ``try_to_inc_min_seq`` skips the empty gens 0..1 (min_seq 2, 2: two gens),
so aging runs: the walker clears every young bit (all pages sit in gen 3 = max_seq, faulted in
with PG_active) and max_seq becomes 4; gen 2 is empty for both types, min_seq moves to 3, two
gens again, aging again (max_seq 5, nothing young now); the anon scan takes the tail of gen 3,
the oldest pages: 0..31 are swapped out. Afterwards seqs are (5, 3, 3), pages 32..60 in gen 3,
free = 100 - 29 - ceil(32 / 3) = 60.
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core.state import (
    A_NOW_NS,
    A_PRIORITY,
    A_RECLAIMER,
    A_REQUEST,
    A_SWAP_FREE,
    A_WANT_OOM,
    A_WMARK_HIGH,
    ACC_LEN,
    RECLAIM_DIRECT,
    RECLAIM_KSWAPD,
    YOUNG,
)
from pagesim.engine.kernel import KernelRun, simulate_kernel
from pagesim.engine.memory import KernelConfig, watermarks
from pagesim.policies.mglru import MGLRU
from pagesim.policies.mglru.gens import _inc_max_seq
from pagesim.policies.mglru.layout import (
    GI,
)
from pagesim.policies.mglru.walk import _walk
from pagesim.trace import Trace
from pagesim.workloads.kernel import make_kernel_workload

FILE, ANON = 0, 1
READ, WRITE = 0, 1
MEM = 100


def make_trace(rows: list[tuple[int, int, int]], tags: list[int] | None = None) -> Trace:
    """``rows`` of (source id, kind, op); one task (tag 0) unless ``tags`` gives each row's."""
    ids, kind, op = zip(*rows)
    tag = np.zeros(len(rows), np.int32) if tags is None else np.array(tags, np.int32)
    return Trace.from_ids(np.array(ids), kind=np.array(kind, np.uint8), op=np.array(op, np.uint8), tag=tag)


def config(**kw: object) -> KernelConfig:
    kw.setdefault("schedule", "trace")  # instantaneous reclaim between two accesses, as worked here
    return KernelConfig(memory_pages=MEM, swap_pages=1000, readahead_pages=1, **kw)  # type: ignore[arg-type]


def _opening() -> list[tuple[int, int, int]]:
    return [(i, ANON, WRITE) for i in range(61)]


def _page(run: KernelRun, source_id: int) -> int:
    return int(np.flatnonzero(run.trace.original_id == source_id)[0])


def test_watermarks() -> None:
    assert watermarks(MEM) == (32, 40, 48)


def test_opening_rolls_generations_over_and_evicts_the_oldest() -> None:
    run = KernelRun(make_trace(_opening()), MGLRU(), config())
    s, pol = run.state, run.policies[0]
    run.advance(60)  # pages 0..59: no reclaim yet, all in max_seq (faults set PG_active)
    assert MGLRU.seqs(s) == (3, 0, 0)
    assert {MGLRU.seq_of(s, p) for p in range(60)} == {3}
    run.advance(1)
    pol.check_invariants(s)
    assert MGLRU.seqs(s) == (5, 3, 3)
    assert run.counters["pswpout"] == 32
    assert not s.resident[[_page(run, i) for i in range(32)]].any()
    assert {MGLRU.seq_of(s, _page(run, i)) for i in range(32, 61)} == {3}


def test_young_pages_are_promoted_to_the_youngest_generation() -> None:
    """After the opening, pages 50..54 are read (young bits set) and anon 61..81 written
    (resident 50, free 100 - 50 - 11 = 39: kswapd). Three gens (5, 3, 3) at priority 12: no
    aging. The file type (swappiness 60, no refaults: file) has nothing in gen 3, so anon gen 3
    is scanned from its tail: 32..49 are isolated, the young 50 is activated to max_seq 5
    (``pgactivate`` 1) and its look-around (virtual pages 18..81 of the task's one PTE table,
    64 centred on 50) clears the young bits of 51..54, moving them to gen 5 too (folio_update_gen:
    no pgactivate), and of 61..81 (already in gen 5); 55..60 are isolated (24 in all). Gen 3 is
    empty: min_seq 4 for both, two gens: aging (nothing young left) makes max_seq 6; gen 4 is
    empty: min_seq 5, aging again, max_seq 7; gen 5's tail gives the 8 more: the oldest of
    61..81 (61..68), ahead of the promoted 50..54 which sit at gen 5's head.

    (Before look-around was modelled each of 50..54 was activated by its own rmap check:
    ``pgactivate`` was 5; the pages evicted and kept are the same.)"""
    rows = _opening() + [(i, ANON, READ) for i in range(50, 55)] + [(i, ANON, WRITE) for i in range(61, 82)]
    run = KernelRun(make_trace(rows), MGLRU(), config())
    s = run.state
    run.advance(61 + 5 + 20)
    assert run.counters["pswpout"] == 32 and MGLRU.seqs(s) == (5, 3, 3)
    run.advance(1)
    run.policies[0].check_invariants(s)
    c = run.counters
    assert c["pswpout"] == 64 and c["pgactivate"] == 1
    assert int(s.gi[GI.lookaround]) == 4
    assert MGLRU.seqs(s) == (7, 5, 5)
    resident = {i for i in range(82) if s.resident[_page(run, i)]}
    assert resident == set(range(50, 55)) | set(range(69, 82))
    assert {MGLRU.seq_of(s, _page(run, i)) for i in resident} == {5}


@pytest.mark.parametrize("version", ["6.12", "6.14"])
def test_tiers_from_fd_reads(version: str) -> None:
    """File pages read 1, 2 and 4 times (no reclaim) are in tiers 0, 1, 2 under both rules; the
    fifth read puts a page in tier 3 (6.12: refs saturate at 4; 6.14: PG_workingset). 6.12 adds
    read() pages to min_seq + 1 = 1; 6.14 to max_seq - 3 = 0."""
    rows = (
        [(1000, FILE, READ)] + [(2000, FILE, READ)] * 2 + [(3000, FILE, READ)] * 4 + [(4000, FILE, READ)] * 5
    )
    run = KernelRun(make_trace(rows), MGLRU(version=version), config())
    run.advance()
    s = run.state
    assert [MGLRU.tier_of(s, _page(run, i)) for i in (1000, 2000, 3000, 4000)] == [0, 1, 2, 3]
    assert MGLRU.seq_of(s, _page(run, 1000)) == (1 if version == "6.12" else 0)


def test_recent_anon_refault_is_restored_as_workingset() -> None:
    """Page 0, swapped out in the opening with min_seq[anon] 3 in its shadow entry, is written
    again while min_seq[anon] is still 3: a recent refault (6.12: same min_seq). Its tier at
    eviction was 0 (refs cleared by the walker), so refaulted[anon][0] = 1,
    ``workingset_activate_anon`` 1; in a fault the page gets LRU_REFS saturated and
    PG_workingset (``workingset_restore_anon`` 1): tier 3, in max_seq 5."""
    run = KernelRun(make_trace(_opening() + [(0, ANON, WRITE)]), MGLRU(), config())
    run.advance()
    s, c = run.state, run.counters
    assert c["workingset_refault_anon"] == 1 and c["pswpin"] == 1
    assert c["workingset_activate_anon"] == 1 and c["workingset_restore_anon"] == 1
    assert MGLRU.counters(s, "refaulted").tolist() == [[1, 0, 0, 0], [0, 0, 0, 0]]
    assert MGLRU.counters(s, "evicted")[0, 0] == 32
    p = _page(run, 0)
    assert MGLRU.tier_of(s, p) == 3 and MGLRU.seq_of(s, p) == 5


def test_refault_of_an_old_eviction_is_not_recent() -> None:
    """The same page 0 faulted back after min_seq has moved on (the second reclaim of
    ``test_young_pages...`` takes min_seq to 5) is not recent: no activate, no restore."""
    rows = _opening() + [(i, ANON, WRITE) for i in range(61, 82)] + [(0, ANON, WRITE)]
    run = KernelRun(make_trace(rows), MGLRU(), config())
    run.advance()
    c = run.counters
    assert MGLRU.seqs(run.state)[1] > 3
    assert c["workingset_refault_anon"] == 1 and c["workingset_activate_anon"] == 0
    assert c["workingset_restore_anon"] == 0


@pytest.mark.parametrize(("swappiness", "file_evicted", "anon_out"), [(1, 10, 22), (200, 3, 29)])
def test_type_selection_by_swappiness(swappiness: int, file_evicted: int, anon_out: int) -> None:
    """After the opening (seqs 5, 3, 3: three gens), 10 file pages are read: with only three gens
    they go to min_seq = 3, beside anon 32..60. Anon 61..71 (gen 5) bring kswapd back (resident
    50). min_seq is equal for both types, so swappiness 1 picks file: the 10 file pages, then file
    min_seq cannot pass anon's, the file gen is empty and anon gives 22 (32..53). Swappiness 200
    picks anon: 29 pages (all of gen 3), then file gives 3."""
    rows = _opening() + [(10_000 + 2 * i, FILE, READ) for i in range(10)]
    rows += [(i, ANON, WRITE) for i in range(61, 72)]
    run = KernelRun(make_trace(rows), MGLRU(), config(swappiness=swappiness))
    run.advance(71)
    files = [_page(run, 10_000 + 2 * i) for i in range(10)]
    assert {MGLRU.seq_of(run.state, p) for p in files} == {3}
    run.advance()
    run.policies[0].check_invariants(run.state)
    c = run.counters
    assert c["pswpout"] - 32 == anon_out
    assert c["evictions"] - c["pswpout"] == file_evicted


@pytest.mark.parametrize("version", ["6.12", "6.14"])
def test_invariants_after_every_access_on_a_random_mixed_trace(version: str) -> None:
    rng = np.random.default_rng(7)
    n = 1500
    kind = rng.integers(0, 2, n)
    ids = np.where(kind == ANON, rng.integers(0, 120, n), 1000 + 3 * rng.integers(0, 120, n))
    op = rng.integers(0, 2, n)
    rows = list(zip(ids.tolist(), kind.tolist(), op.tolist()))
    run = KernelRun(make_trace(rows), MGLRU(version=version), config())
    pol = run.policies[0]
    while run.done < run.n:
        run.advance(1)
        pol.check_invariants(run.state)
    c = run.counters
    assert c["fallback_evictions"] == 0 and c["rejected"] == 0 and c["oom_kill"] == 0
    assert c["evictions"] > 200


def test_compiled_equals_interpreted() -> None:
    tr = make_kernel_workload("stress-vm", memory_pages=400, passes=2, workers=2)
    cfg = KernelConfig(memory_pages=400)
    for version in ("6.12", "6.14"):
        a = simulate_kernel(tr, MGLRU(version=version), cfg)
        b = simulate_kernel(tr, MGLRU(version=version), cfg, interpreted=True)
        assert a.counters == b.counters and a.tasks == b.tasks


def test_parameters_are_checked() -> None:
    tr = make_trace([(1, ANON, WRITE)])
    with pytest.raises(ValueError, match="version"):
        KernelRun(tr, MGLRU(version="5.15"), config())
    with pytest.raises(ValueError, match="min_ttl_ms"):
        KernelRun(tr, MGLRU(min_ttl_ms=-1), config())
    KernelRun(tr, MGLRU(min_ttl_ms=1000), config())  # any value >= 0 is accepted


# ---- the page-table walk, the Bloom filter, look-around, generations' birth times, min_ttl_ms
#
# The task of every anon page here is tag 0: one process whose virtual pages are handed out in
# the order it faults them (source id i -> virtual page i), so pages 0..81 share one PTE table
# (PMD region). The opening's two walks: the first (seq 3) is forced (the mm is new since the
# last iteration), finds all 61 PTEs young (61 * 8 >= 61: dense) and puts the table in the
# filter of seq 4; the second (seq 4) walks it because that filter has it, finds nothing young
# and leaves the filter of seq 5 (cleared when that walk started) empty.


def test_opening_walks_force_then_by_the_filter() -> None:
    run = KernelRun(make_trace(_opening()), MGLRU(), config())
    run.advance()
    s = run.state
    assert MGLRU.seqs(s) == (5, 3, 3)
    assert int(s.gi[GI.walked]) == 2 and int(s.gi[GI.skipped]) == 0


@pytest.mark.parametrize("version", ["6.12", "6.14"])
def test_bloom_filter_skips_a_table_without_young_ptes_last_walk(version: str) -> None:
    """After the opening, pages 40 and 41 become young (a read after the last walk). The next
    aging walk (seq 5) reads the filter of seq 5, which is empty: the table is skipped, so both
    pages keep their young bit and their generation (3), and the table stays out of the filter
    of seq 6 too: the walk after (seq 6) skips it again."""
    run = KernelRun(make_trace(_opening()), MGLRU(version=version), config())
    run.advance()
    s = run.state
    young = [_page(run, 40), _page(run, 41)]
    for p in young:
        s.resident[p] |= YOUNG
    _walk(s, 60)
    _inc_max_seq(s, 60, 0)
    assert int(s.gi[GI.skipped]) == 1 and int(s.gi[GI.walked]) == 2
    assert all(s.resident[p] & YOUNG for p in young)
    assert [MGLRU.seq_of(s, p) for p in young] == [3, 3]
    _walk(s, 60)
    assert int(s.gi[GI.skipped]) == 2 and all(s.resident[p] & YOUNG for p in young)


def test_a_new_mm_is_force_scanned_once() -> None:
    """After the opening (task 0), task 1 writes pages 1000..1009 (no reclaim: 50 free): a new mm
    on the mm_list, its one PTE table in no filter. Page 40 (task 0) becomes young. The walk at
    seq 5 skips task 0's table (the filter of seq 5 is empty), so 40 stays young; reaching task 1
    turns force_scan on: its table is walked, 10 young PTEs of 10 are cleared (the pages are
    already in max_seq 5) and the table goes into the filter of seq 6. The walk at seq 6 skips
    task 0's table again and walks task 1's because of the filter (nothing young: not carried)."""
    rows = _opening() + [(1000 + i, ANON, WRITE) for i in range(10)]
    run = KernelRun(make_trace(rows, [0] * 61 + [1] * 10), MGLRU(), config())
    run.advance()
    s = run.state
    assert MGLRU.seqs(s) == (5, 3, 3) and run.counters["evict_calls"] == 1
    task1 = [_page(run, 1000 + i) for i in range(10)]
    assert all(s.resident[p] & YOUNG for p in task1)
    s.resident[_page(run, 40)] |= YOUNG
    _walk(s, 60)
    assert (int(s.gi[GI.walked]), int(s.gi[GI.skipped])) == (3, 1)
    assert s.resident[_page(run, 40)] & YOUNG
    assert not any(s.resident[p] & YOUNG for p in task1)
    assert {MGLRU.seq_of(s, p) for p in task1} == {5}
    _inc_max_seq(s, 60, 0)
    _walk(s, 60)
    assert (int(s.gi[GI.walked]), int(s.gi[GI.skipped])) == (4, 2)
    assert s.resident[_page(run, 40)] & YOUNG
    run.policies[0].check_invariants(s)


def test_look_around_promotes_a_neighbour_and_feeds_the_filter() -> None:
    """After the opening, pages 50 and 52 are read and 61..81 written (kswapd as in
    ``test_young_pages...``). Eviction isolates 32..49, finds 50 young (activated, gen 5) and looks
    around virtual pages 18..81: 52 is young and goes to gen 5 (look-around's one promotion),
    61..81 lose their young bits (already in gen 5); 1 + 1 + 21 = 23 young of 64, 23 * 8 >= 64,
    so the table goes into the filter of max_seq 5. Then 51 and 53..60 are isolated (27 in all).
    Gen 3 is empty: min_seq 4, two gens: the walk at seq 5 visits the table (the filter of seq 5
    has it), finds nothing young (not carried to seq 6); max_seq 6, min_seq 5, two gens: the walk
    at seq 6 skips it (the filter of seq 6 is empty); max_seq 7. Gen 5's tail gives the last 5:
    61..65. Kept: 50, 52, 66..81, all in gen 5."""
    rows = _opening() + [(50, ANON, READ), (52, ANON, READ)] + [(i, ANON, WRITE) for i in range(61, 82)]
    run = KernelRun(make_trace(rows), MGLRU(), config())
    run.advance()
    s, c = run.state, run.counters
    run.policies[0].check_invariants(s)
    assert c["pswpout"] == 64 and c["pgactivate"] == 1 and int(s.gi[GI.lookaround]) == 1
    assert MGLRU.seqs(s) == (7, 5, 5)
    assert int(s.gi[GI.walked]) == 3 and int(s.gi[GI.skipped]) == 1
    resident = {i for i in range(82) if s.resident[_page(run, i)]}
    assert resident == {50, 52} | set(range(66, 82))
    assert {MGLRU.seq_of(s, _page(run, i)) for i in resident} == {5}


def test_generation_rollover_forces_the_oldest_forward_and_stamps_birth_times() -> None:
    """After the opening (5, 3, 3; pages 32..60 in gen 3), two agings at 1 ms and 2 ms: the first
    makes max_seq 6 (four gens: 3..6, list 6 % 4 = 2, born at 1 ms); the second finds four gens
    for both types and forces the oldest forward (inc_min_seq: 32..60 to gen 4, which reuses
    list 0), min_seq 4, then max_seq 7 (list 3, born at 2 ms)."""
    run = KernelRun(make_trace(_opening()), MGLRU(), config())
    run.advance()
    s = run.state
    _walk(s, 60)
    _inc_max_seq(s, 60, 1_000_000)
    assert MGLRU.seqs(s) == (6, 3, 3) and int(s.gi[GI.ts + 2]) == 1_000_000
    _walk(s, 60)
    _inc_max_seq(s, 60, 2_000_000)
    run.policies[0].check_invariants(s)
    assert MGLRU.seqs(s) == (7, 4, 4) and int(s.gi[GI.ts + 3]) == 2_000_000
    assert {MGLRU.seq_of(s, _page(run, i)) for i in range(32, 61)} == {4}
    assert int(s.pm[_page(run, 32), 2]) == 4 % 4 + 1  # GEN column: list 0


def _reclaim_event(reclaimer: int, now_ns: int) -> np.ndarray:
    a = np.zeros(ACC_LEN, np.int64)
    a[A_REQUEST] = 32
    a[A_PRIORITY] = 12
    a[A_RECLAIMER] = reclaimer
    a[A_SWAP_FREE] = 1000
    a[A_WMARK_HIGH] = 133  # watermarks(2000) = (89, 111, 133)
    a[A_NOW_NS] = now_ns
    return a


def test_min_ttl_ms_asks_for_the_oom_killer_when_the_oldest_gen_is_too_young() -> None:
    """A 2000-page node (high watermark 133), 1800 anon pages written, no reclaim yet: every gen
    was born at time 0 (lru_gen_init_lruvec), all pages in max_seq 3. kswapd's
    set_initial_priority: nr_to_reclaim 133 >= 64, reclaimable (gens older than max_seq - 1) 0:
    fls(0) - 1 - fls(132) = -9, clamped to 6; 1800 >> 6 = 28 pages: sizable. With
    min_ttl_ms = 1000 at 0.5 s the oldest gen (min_seq[file] = 0, born at 0) is younger than
    1 s: no lruvec is reclaimable, so ``evict`` sets A_WANT_OOM and proposes nothing. At 2 s it
    is old enough and kswapd gets its 32; direct reclaim never checks."""
    rows = [(i, ANON, WRITE) for i in range(1800)]
    cfg = KernelConfig(memory_pages=2000, swap_pages=4000, readahead_pages=1, schedule="trace")
    assert watermarks(2000)[2] == 133
    for now, reclaimer, oom, got in (
        (500_000_000, RECLAIM_KSWAPD, 1, 0),
        (2_000_000_000, RECLAIM_KSWAPD, 0, 32),
        (500_000_000, RECLAIM_DIRECT, 0, 32),
    ):
        run = KernelRun(make_trace(rows), MGLRU(min_ttl_ms=1000), cfg)
        run.advance()
        s = run.state
        assert run.counters["evict_calls"] == 0 and MGLRU.seqs(s) == (3, 0, 0)
        a = _reclaim_event(reclaimer, now)
        assert MGLRU.evict(s, a) == got
        assert a[A_WANT_OOM] == oom


@pytest.mark.parametrize(("reclaimer", "seqs"), [(RECLAIM_KSWAPD, (4, 1, 1)), (RECLAIM_DIRECT, (3, 1, 1))])
def test_kswapd_starts_at_set_initial_priority_and_ages_three_gens(reclaimer: int, seqs: tuple) -> None:
    """A 2000-page node: 1500 anon pages written (max_seq 3, PG_active), then 300 file pages
    read once (6.12: min_seq + 1 = 1, four gens). A reclaim call of 32: try_to_inc_min_seq takes
    anon to 2 and file to 1, the 6.12 clamp keeps anon at file's: (3, 1, 1), three gens.
    kswapd (nr_to_reclaim = high watermark 133 >= 64): reclaimable = the 300 file pages of gen 1
    (older than max_seq - 1), fls(300) - 1 - fls(132) = 0, clamped to priority 6; with three gens
    below DEF_PRIORITY should_run_aging looks at the spread: the youngest gen holds 1500 of 1800
    pages, over half: aging (max_seq 4). Direct reclaim (32 pages) stays at 12: no aging. Either
    way the controller (no refaults yet) picks file and the 32 oldest file pages are proposed."""
    rows = [(i, ANON, WRITE) for i in range(1500)] + [(10_000 + 2 * i, FILE, READ) for i in range(300)]
    cfg = KernelConfig(memory_pages=2000, swap_pages=4000, readahead_pages=1, schedule="trace")
    run = KernelRun(make_trace(rows), MGLRU(), cfg)
    run.advance()
    s = run.state
    assert run.counters["evict_calls"] == 0 and MGLRU.seqs(s) == (3, 0, 0)
    a = _reclaim_event(reclaimer, 0)
    assert MGLRU.evict(s, a) == 32
    assert MGLRU.seqs(s) == seqs
    assert {int(s.cand[i]) for i in range(32)} == {_page(run, 10_000 + 2 * i) for i in range(32)}


@pytest.mark.parametrize(
    ("version", "seqs_seen"),
    [("6.12", [(3, 0, 0), (4, 1, 1), (4, 2, 2)]), ("6.14", [(3, 0, 0), (3, 2, 0)])],
)
def test_mix_ages_once_then_file_refills_the_oldest_gen(version: str, seqs_seen: list) -> None:
    """``mix`` on a 2000-page node: task 0 writes 1300 anon pages once (max_seq 3), task 1 reads a
    3000-page file 4 times. 6.12: at the first kswapd call min_seq becomes (1, 1) (file pages
    read so far sit in gen 1 = min_seq + 1); set_initial_priority gives 6 (about 590 inactive file
    pages against a high watermark of 133); three gens with the youngest holding 1300 of ~1850
    pages: one aging, max_seq 4. From then on read() adds file pages to min_seq + 1 = 2 while gen
    1 drains, then (three gens: 2, 3, 4) to min_seq itself (lru_gen_add_folio: the window is
    minimal): the oldest gen never runs dry, the youngest (4) stays empty and the oldest holds
    every file page (~30 % of the total, not under 1/4): should_run_aging stays false at every
    priority. The anon pages sit in gen 3 (max_seq - 1) and min_seq[anon] cannot pass
    max_seq - 2: no anon page is ever evicted although the controller, seeing file refault on
    every pass, asks for anon (its oldest gen is empty, so file is scanned instead). 6.14 puts
    read() pages at max_seq - 3 clamped to min_seq, so file keeps four gens with everything in
    the oldest: no aging at all. As in the kernel (see the module docstring's note on mix)."""
    cfg = KernelConfig(memory_pages=2000, schedule="trace")
    trace = make_kernel_workload("mix", memory_pages=2000, file_pattern="loop")
    run = KernelRun(trace, MGLRU(version=version), cfg)
    seen = []
    while run.done < run.n:
        run.advance(min(500, run.n - run.done))
        if not seen or seen[-1] != MGLRU.seqs(run.state):
            seen.append(MGLRU.seqs(run.state))
    c = run.counters
    assert seen == seqs_seen
    assert c["pswpout"] == 0 and c["workingset_refault_file"] == 3 * 3000


def test_file_reads_under_a_cgroup_limit_freeze_the_generations() -> None:
    """6.12 rules (= Linux 6.6.8, the cache_ext paper's kernel) on read() pages in a 64-page
    cgroup, no swap (swappiness 0: file only), a 1000-page node (no node pressure). Pages 0..3 are
    read 5 times (refs 4: tier 3), 4..7 twice (tier 1), 8..63 once: all go to min_seq + 1 = gen 1
    (four gens). Page 64 needs a limit reclaim of 32 at priority 12: gen 0 is empty, min_seq[file]
    becomes 1 (three gens, no aging at DEF_PRIORITY). No refault yet, so every tier is below 64
    refaults: tier_idx 3, nothing is protected by the controller; the scan from gen 1's tail (the
    oldest insertions) moves 0..3 to gen 2 (``refs == BIT(LRU_REFS_WIDTH)``) and evicts 4..35,
    the twice-read 4..7 included. Page 64 goes to min_seq itself (the window is minimal). Pages
    65..96: the next reclaim evicts 36..67 from gen 1, whose head keeps receiving new pages, so it
    never empties: max_seq stays 3, min_seq 1, and 0..3 stay in gen 2, never looked at again.
    Pages 8..11 read again refault *recent* (their shadow's seq is still min_seq): refaulted
    tier 0 counts 4, as every refault does while min_seq stands (YCSB: docs/experiments.md)."""
    rows = [(i, FILE, READ) for i in range(64) for _ in range(5 if i < 4 else 2 if i < 8 else 1)]
    rows += [(i, FILE, READ) for i in range(64, 97)] + [(i, FILE, READ) for i in range(8, 12)]
    cfg = KernelConfig(memory_pages=1000, swap_pages=0, readahead_pages=1, schedule="trace")
    run = KernelRun(make_trace(rows), MGLRU(), cfg, cgroup_limits=[64])
    s, pol = run.state, run.policies[0]

    def gone(read: int) -> list[int]:
        return [i for i in range(read) if not s.resident[_page(run, i)]]

    run.advance(4 * 5 + 4 * 2 + 56)
    assert MGLRU.seqs(s) == (3, 0, 0) and {MGLRU.seq_of(s, _page(run, i)) for i in range(64)} == {1}
    run.advance(1)
    pol.check_invariants(s)
    assert MGLRU.seqs(s) == (3, 0, 1) and gone(65) == list(range(4, 36))
    assert [MGLRU.seq_of(s, _page(run, i)) for i in (0, 1, 2, 3, 36, 63, 64)] == [2] * 4 + [1] * 3
    run.advance(32)
    pol.check_invariants(s)
    assert MGLRU.seqs(s) == (3, 0, 1) and gone(97) == list(range(4, 68))
    assert [MGLRU.seq_of(s, _page(run, i)) for i in (0, 1, 2, 3, 68, 96)] == [2] * 4 + [1] * 2
    assert MGLRU.counters(s, "protected")[1].tolist() == [0, 0, 0, 4]
    assert MGLRU.counters(s, "evicted")[1].tolist() == [60, 4, 0, 0]
    run.advance(4)
    assert MGLRU.counters(s, "refaulted")[1].tolist() == [4, 0, 0, 0] and MGLRU.seqs(s) == (3, 0, 1)
