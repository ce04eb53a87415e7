"""Linux's legacy two-list LRU by hand on tiny nodes, compiled == interpreted, invariants after
every access on random mixed anon/file traces.

Nodes of 128 pages have watermarks min 32, low 40, high 48 (min_free_kbytes is clamped to 128
KiB): kswapd wakes after the access that leaves 39 pages free (89 resident) and reclaims one
batch of 32. Readahead is off (``readahead_pages=1``) unless said otherwise, so every file miss
reads one page.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pagesim.engine.kernel import KernelRun, simulate_kernel
from pagesim.engine.memory import KernelConfig, watermarks
from pagesim.policies.linux_lru import LinuxLRU, inactive_is_low_counts, lru_lists, scan_fractions
from pagesim.policies.linux_lru.layout import (
    GI,
    PM,
)
from pagesim.trace import Trace

FILE, ANON = 0, 1
READ, WRITE, FREE = 0, 1, 2


def make_trace(rows: list[tuple[int, int, int]]) -> Trace:
    """``rows`` of (source id, kind, op); one task."""
    ids, kind, op = zip(*rows)
    n = len(rows)
    return Trace.from_ids(
        np.array(ids), kind=np.array(kind, np.uint8), op=np.array(op, np.uint8), tag=np.zeros(n, np.int32)
    )


def node(**kw: object) -> KernelConfig:
    """A 128-page node whose reclaim is instantaneous (``schedule="trace"``): the hand-worked
    cases below follow one batch at a time between two accesses, each batch taking its 32 pages
    within one call (``LinuxLRU(priority_loop=True)``); the engine's own priority descent, one
    pass per batch, is tested in test_kswapd_descends_one_priority_per_batch."""
    kw.setdefault("schedule", "trace")
    return KernelConfig(memory_pages=int(kw.pop("memory_pages", 128)), readahead_pages=1, **kw)  # type: ignore[arg-type]


def lists_by_id(run: KernelRun) -> dict[str, list[int]]:
    """The four lists in source ids, head (newest) first."""
    orig = run.trace.original_id
    return {k: [int(orig[q]) for q in v] for k, v in lru_lists(run.state).items()}


def page_of(run: KernelRun, source_id: int) -> int:
    return int(np.flatnonzero(run.trace.original_id == source_id)[0])


def hot_then_cold(hot: int, cold: int, then: list[int]) -> list[tuple[int, int, int]]:
    """File pages 0..hot-1 read twice each (activated), then 1000.. read once, then ``then``."""
    rows = [(h, FILE, READ) for h in range(hot) for _ in range(2)]
    rows += [(1000 + c, FILE, READ) for c in range(cold)]
    rows += [(i, FILE, READ) for i in then]
    return rows


def test_small_node_watermarks():
    assert watermarks(128) == (32, 40, 48)


def test_pure_rules():
    # inactive_is_low: ratio 1 below 1 GB, isqrt(10) = 3 at 1 GB (262144 pages), 10 at 10 GB
    assert inactive_is_low_counts(100, 101) and not inactive_is_low_counts(100, 100)
    assert not inactive_is_low_counts(65536, 196608)  # 1 GB: 65536 * 3 == 196608, not below
    assert inactive_is_low_counts(65535, 196609)
    assert not inactive_is_low_counts(238313, 2383130) and inactive_is_low_counts(238312, 2383130)  # ratio 10
    # SCAN_FRACT weights: costs 0 -> (sw, 200 - sw); anon cost 100: T = 300, a = 200, f = 100
    assert scan_fractions(60, 0, 0) == (60, 140)
    assert scan_fractions(60, 100, 0) == (60 * 301 // 201, 140 * 301 // 101) == (89, 417)
    assert scan_fractions(0, 5, 7)[0] == 0 and scan_fractions(200, 5, 7)[1] == 0


def test_two_touch_promotion_of_a_file_page():
    # access  inactive_file  active_file  PG_referenced  pgactivate  nonresident_age
    #  A        A              -            1              0           0    read: added + mark_accessed
    #  B        B A            -            1 (A)          0           0
    #  A        B              A            0              1           1    second touch: activated
    #  A        B              A            1              1           1
    #  A        B              A            1              1           1    no change
    run = KernelRun(
        make_trace([(1, FILE, READ), (2, FILE, READ)] + [(1, FILE, READ)] * 3),
        LinuxLRU(priority_loop=True),
        node(),
    )
    a = 0
    expect = [([1], [], 1, 0), ([2, 1], [], 1, 0), ([2], [1], 0, 1), ([2], [1], 1, 1), ([2], [1], 1, 1)]
    for inactive, active, ref, activations in expect:
        run.advance(1)
        lists = lists_by_id(run)
        assert (lists["inactive_file"], lists["active_file"]) == (inactive, active)
        assert int(run.state.pm[a, PM.ref]) == ref
        assert run.counters["pgactivate"] == activations == int(run.state.gi[GI.age])
        LinuxLRU(priority_loop=True).check_invariants(run.state)


def test_refault_within_distance_is_added_active():
    # 40 hot pages activated (age 40), 49 cold ones read once: the 89th page wakes kswapd, which
    # reclaims the 32 cold pages at the inactive tail (cache-trim mode: file only, active lists
    # untouched): cold page c gets shadow 40 + c, the age becomes 72. Reading 1000 back:
    # distance 72 - 40 = 32 <= workingset size (active_file = 40): added active, age 73.
    run = KernelRun(make_trace(hot_then_cold(40, 49, [1000])), LinuxLRU(priority_loop=True), node())
    run.advance(run.n - 1)
    c = run.counters
    assert (c["kswapd_wakeups"], c["pgsteal_kswapd"], c["pgscan_file"], c["pgdeactivate"]) == (1, 32, 32, 0)
    assert lists_by_id(run)["inactive_file"] == list(range(1048, 1031, -1))
    assert int(run.state.gi[GI.age]) == 72
    run.advance()
    c = run.counters
    assert c["workingset_refault_file"] == 1 and c["workingset_activate_file"] == 1
    assert c["workingset_restore_file"] == 0  # it had never been active
    assert lists_by_id(run)["active_file"][0] == 1000 and int(run.state.gi[GI.age]) == 73


def test_refault_beyond_distance_is_added_inactive():
    # 8 hot pages (age 8), 81 cold: the batch evicts cold 0..31, age 8 + 32 = 40. Reading 1000
    # back: distance 40 - 8 = 32 > active_file = 8: inactive, like a first read.
    run = KernelRun(make_trace(hot_then_cold(8, 81, [1000])), LinuxLRU(priority_loop=True), node())
    run.advance()
    c = run.counters
    assert c["workingset_refault_file"] == 1 and c["workingset_activate_file"] == 0
    lists = lists_by_id(run)
    assert lists["inactive_file"][0] == 1000 and len(lists["active_file"]) == 8


def test_inactive_is_low_deactivates_and_refault_restores():
    # 60 hot (active), 29 cold: inactive 29 < active 60, so may_deactivate(file): the pass scans
    # both file lists (SCAN_FRACT, anon empty). Deactivated pages get PG_workingset; the batch
    # ends with the 29 cold pages and the first 3 deactivated hot ones (0, 1, 2). Hot page 0
    # refaults at distance 3 <= active_file 30: activated, and restored (its shadow had
    # PG_workingset): workingset_restore_file.
    run = KernelRun(make_trace(hot_then_cold(60, 29, [0])), LinuxLRU(priority_loop=True), node())
    run.advance(run.n - 1)
    c = run.counters
    assert (c["pgsteal_kswapd"], c["pgdeactivate"], c["pgrefill"]) == (32, 30, 30)
    lists = lists_by_id(run)
    assert len(lists["active_file"]) == 30 and sorted(lists["inactive_file"]) == list(range(3, 30))
    s = run.state
    assert all(int(s.pm[page_of(run, i), PM.workingset]) == 1 for i in range(3, 30))
    run.advance()
    c = run.counters
    assert (c["workingset_activate_file"], c["workingset_restore_file"]) == (1, 1)
    p0 = page_of(run, 0)
    assert int(s.pm[p0, PM.active]) == 1 and int(s.pm[p0, PM.workingset]) == 1
    # the same 40/49 split is not low: nothing deactivated (test above: pgdeactivate == 0)


def test_kswapd_reclaims_batches_of_32_to_the_high_watermark():
    # 300 distinct file pages read once: kswapd wakes at 89 resident, one batch of 32 brings
    # free from 39 to 71 >= high; it wakes again 32 accesses later: at 89, 121, ..., 281.
    rows = [(i, FILE, READ) for i in range(300)]
    run = KernelRun(make_trace(rows), LinuxLRU(priority_loop=True), node())
    run.advance()
    c = run.counters
    assert c["kswapd_wakeups"] == 7 and c["evict_calls"] == 7
    assert c["pgsteal_kswapd"] == 7 * 32 and c["allocstall"] == 0 and c["fallback_evictions"] == 0
    assert lists_by_id(run)["inactive_file"] == list(range(299, 299 - 76, -1))  # oldest went first
    # one pass at the framework's priority only: at 12 the lists of so small a node give
    # nothing (49 >> 12 == 0). linux-lru has no default policy under it (uses_fallback is
    # False), so the engine retries the batch at lower priorities; every eviction is still
    # the policy's own
    single = KernelRun(make_trace(rows), LinuxLRU(priority_loop=False), node())
    single.advance()
    c = single.counters
    assert c["evict_calls"] > 7 and c["fallback_evictions"] == 0
    assert c["policy_evictions"] == c["evictions"] > 0


def test_kswapd_descends_one_priority_per_batch():
    # The default: one pass per evict call, the engine lowers kswapd's priority after a pass
    # that frees fewer than 32. 89 file pages read once (each PG_referenced by its read, not
    # mapped: reclaimable); the 89th leaves free 39 < low 40 and wakes kswapd. At priority p the
    # inactive file target is 89 >> p: 0 for p = 12..7 (six fruitless calls, SCAN_FRACT with
    # nothing); from p = 6 cache-trim mode (inactive_file >> p > 0) takes file only: 1 page at
    # 6, 88 >> 5 = 2 at 5, 86 >> 4 = 5 at 4, 81 >> 3 = 10 at 3; free is 39 + 18 = 57 >= high 48
    # and kswapd sleeps. Ten calls, 18 pages, the oldest (0..17) first.
    rows = [(i, FILE, READ) for i in range(300)]
    run = KernelRun(make_trace(rows), LinuxLRU(), node())
    run.advance(89)
    c = run.counters
    assert (c["kswapd_wakeups"], c["evict_calls"], c["pgsteal_kswapd"]) == (1, 10, 18)
    assert lists_by_id(run)["inactive_file"] == list(range(88, 17, -1))
    assert run.result().node["resident_file"] == 71


def swappiness_trace() -> Trace:
    # 40 file pages read twice (active_file 40, inactive_file 0), then 60 anon pages written
    rows = [(f, FILE, READ) for f in range(40) for _ in range(2)]
    rows += [(1000 + x, ANON, WRITE) for x in range(60)]
    return make_trace(rows)


def test_swappiness_0_reclaims_only_file():
    # swappiness 0: ap = 0, anon targets 0; active file is deactivated (inactive_file is low)
    # and reclaimed. Anon is never scanned while file_is_tiny does not hold.
    run = KernelRun(swappiness_trace(), LinuxLRU(priority_loop=True), node(swappiness=0))
    run.advance()
    c = run.counters
    assert (c["pgsteal_kswapd"], c["pswpout"], c["pgscan_anon"], c["pgscan_file"]) == (32, 0, 0, 32)
    assert run.result().node["resident_file"] == 8 and run.result().node["resident_anon"] == 60


def test_swappiness_200_reclaims_only_anon():
    # swappiness 200: fp = 0; no cache-trim mode (inactive_file is empty), so SCAN_FRACT: file
    # targets 0. Fresh anon pages are young: the first passes only rotate them (KEEP, with
    # PG_referenced), a pass at the lowest priority then reclaims 32 of them to zram.
    run = KernelRun(swappiness_trace(), LinuxLRU(priority_loop=True), node(swappiness=200))
    run.advance()
    c = run.counters
    assert (c["pgsteal_kswapd"], c["pswpout"], c["pgscan_file"]) == (32, 32, 0)
    assert c["pgscan_anon"] > 32
    assert run.result().node["resident_file"] == 40


def test_override_beats_node_swappiness_and_no_swap_means_file_only():
    run = KernelRun(
        swappiness_trace(), LinuxLRU(swappiness_override=0, priority_loop=True), node(swappiness=200)
    )
    run.advance()
    assert run.counters["pswpout"] == 0 and run.counters["pgscan_anon"] == 0
    run = KernelRun(swappiness_trace(), LinuxLRU(priority_loop=True), node(swappiness=200, swap="none"))
    run.advance()
    c = run.counters
    assert c["pswpout"] == 0 and c["pgscan_anon"] == 0 and c["swap_full"] == 0 and c["pgsteal_kswapd"] == 32


def mixed_rows(data: st.DataObject, n: int) -> list[tuple[int, int, int]]:
    ids = data.draw(st.lists(st.integers(0, 199), min_size=n, max_size=n))
    ops = data.draw(st.lists(st.sampled_from([READ, READ, READ, WRITE, WRITE, FREE]), min_size=n, max_size=n))
    return [(i, ANON if i % 2 else FILE, o) for i, o in zip(ids, ops)]


@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_invariants_after_every_access(data: st.DataObject):
    rows = mixed_rows(data, data.draw(st.integers(100, 300)))
    cfg = KernelConfig(
        memory_pages=128,
        swap_pages=data.draw(st.sampled_from([0, 16, 128])),
        swappiness=data.draw(st.sampled_from([0, 60, 200])),
        readahead_pages=data.draw(st.sampled_from([1, 4])),
    )
    policy = LinuxLRU(priority_loop=True)
    run = KernelRun(make_trace(rows), policy, cfg)
    before = (0, 0)
    for _ in rows:
        run.advance(1)
        policy.check_invariants(run.state)
        c = run.counters
        # never proposes an anon page swap cannot take (the fallback may, when it runs)
        assert c["swap_full"] == before[0] or c["fallback_calls"] > before[1]
        before = (c["swap_full"], c["fallback_calls"])
    assert run.counters["rejected"] == 0


def test_compiled_equals_interpreted():
    # The engine's interpreted path cannot yet take a file hit or a write hit on a swap-cache
    # page (``v & ~RA_MARK`` / ``~SWAPCACHE`` on a numpy uint8 raise OverflowError with numpy
    # 2), so: 40 file pages read once each, then anon pages written once and read afterwards.
    rng = np.random.default_rng(7)
    rows = [(10_000 + f, FILE, READ) for f in range(40)]
    seen: set[int] = set()
    for i in rng.zipf(1.2, 700) % 140:
        rows.append((int(i), ANON, READ if int(i) in seen else WRITE))
        seen.add(int(i))
    cfg = KernelConfig(memory_pages=128, swap_pages=256, readahead_pages=1)
    runs = []
    for interpreted in (False, True):
        run = KernelRun(make_trace(rows), LinuxLRU(priority_loop=True), cfg, interpreted=interpreted)
        run.advance()
        runs.append(run)
    assert runs[0].mode == "compiled" and runs[1].mode == "interpreted"
    assert runs[0].counters == runs[1].counters
    assert lru_lists(runs[0].state) == lru_lists(runs[1].state)
    assert np.array_equal(runs[0].state.shadow, runs[1].state.shadow)
    assert np.array_equal(runs[0].state.pm, runs[1].state.pm)
    c = runs[0].counters
    assert c["pswpout"] > 0 and c["pswpin"] > 0 and c["workingset_activate_anon"] > 0 and c["pgactivate"] > 0


def test_two_cgroups_have_their_own_lruvec():
    rows = [(i % 70, FILE, READ) for i in range(200)] + [(500 + i % 50, ANON, WRITE) for i in range(100)]
    ids, kind, op = zip(*rows)
    cg = np.array([0] * 200 + [1] * 100)
    trace = Trace.from_ids(np.array(ids), kind=np.array(kind, np.uint8), op=np.array(op, np.uint8), cgroup=cg)
    policy = LinuxLRU(priority_loop=True)
    res = simulate_kernel(trace, policy, node(), cgroup_limits=[60, 40])
    assert res.counters["rejected"] == 0 and res.counters["fallback_evictions"] == 0
    run = KernelRun(trace, policy, node(), cgroup_limits=[60, 40])
    run.advance()
    for k, st_k in enumerate(run.states):
        policy.check_invariants(st_k)
        lists = lru_lists(st_k)
        assert (k == 0) == (len(lists["inactive_anon"]) + len(lists["active_anon"]) == 0)
