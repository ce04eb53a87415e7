"""Kernel mode's mechanisms on small hand-worked cases (pagesim.engine.kernel).

A node of 1000 pages has watermarks min 63, low 78, high 93 (4*sqrt(4000 kB) = 253 kB; gap =
max(63 // 4, 1000 * 10 // 10000) = 15): allocations keep free >= 63 by direct reclaim, kswapd
wakes below 78 and reclaims to 93.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pagesim.core.state import DIRTY
from pagesim.engine.kernel import KernelRun, file_successors, simulate_kernel
from pagesim.engine.kernel_loop import (
    N,
    _free_pages,
)
from pagesim.engine.memory import KernelConfig, watermarks
from pagesim.policies.registry import make_policy
from pagesim.trace import KIND_ANON, KIND_FILE, OP_FREE, OP_READ, OP_WRITE, Trace
from pagesim.workloads.kernel import make_kernel_workload


def _trace(ids, kind, op, tag=None, cgroup=None) -> Trace:  # type: ignore[no-untyped-def]
    n = len(ids)
    cols = {
        "kind": np.full(n, kind, np.uint8) if np.isscalar(kind) else np.asarray(kind, np.uint8),
        "op": np.full(n, op, np.uint8) if np.isscalar(op) else np.asarray(op, np.uint8),
        "tag": np.zeros(n, np.int32) if tag is None else np.asarray(tag, np.int32),
    }
    if cgroup is not None:
        cols["cgroup"] = np.asarray(cgroup, np.uint16)
    return Trace.from_ids(np.asarray(ids, np.int64), **cols)


def test_watermarks_of_a_small_node() -> None:
    assert watermarks(1000) == (63, 78, 93)
    assert watermarks(2 * 1024 * 1024) == (2896, 4993, 7090)  # 8 GiB


def test_anon_loop_larger_than_memory_swaps_every_page_back() -> None:
    """Write 2000 anon pages twice on a 1000-page node with zram (3:1) and 4000 pages of swap
    (zram's compressed pages take memory too: 2000 pages do not fit in 1000 + 1000 of swap,
    and the OOM killer would act). Pass 1 is 2000 zero-fill
    faults; LRU evicts the oldest, so in pass 2 every page has been swapped out: 2000 swap-ins,
    each counted as an anon refault. Memory is conserved after every access: resident pages +
    zram's share (ceil(stored / 3)) + free = 1000, and free never falls below min (63)."""
    ids = list(range(2000)) * 2
    run = KernelRun(
        _trace(ids, KIND_ANON, OP_WRITE),
        make_policy("lru"),
        KernelConfig(memory_pages=1000, swap_pages=4000, schedule="trace"),
    )
    while run.done < run.n:
        run.advance(97)
        fw = run.framework
        free = int(_free_pages(fw))
        zram = math.ceil(fw.node[N.zram_stored] / 3)
        assert fw.node[N.resident] + zram + free == 1000
        assert free >= 63
    c = run.counters
    assert c["zero_fill"] == 2000 and c["misses"] == 4000 and c["hits"] == 0
    assert c["pswpin"] == 2000 and c["workingset_refault_anon"] == 2000 and c["pgmajfault"] == 2000
    assert c["pswpout"] == c["evictions"] == c["pgsteal_kswapd"] + c["pgsteal_direct"]
    assert c["oom_kill"] == 0 and c["swap_full"] == 0
    # every page is written again after its swap-in, which frees its slot: what is in swap now
    # is exactly what is not resident
    assert int(run.framework.node[N.swap_used]) == 2000 - int(run.framework.node[N.resident])
    r = run.result()
    assert r.latency_ns["max"] == pytest.approx(3700 + 100)  # a zram swap-in plus the access


def test_sequential_file_read_is_read_ahead() -> None:
    """Pages 0..99 of one file read in order. p0: no history, read alone (1 page). p1 follows
    p0: synchronous readahead of 4 pages (p1 and 3 ahead, PG_readahead on p2). p2's hit starts
    the next window asynchronously: 8 pages (x2), and so on. Only p0 and p1 miss; the other 98
    pages come in by readahead; 100 pages read in all."""
    run = KernelRun(
        _trace(range(100), KIND_FILE, OP_READ), make_policy("lru"), KernelConfig(memory_pages=4096)
    )
    run.advance()
    c = run.counters
    assert (c["misses"], c["hits"]) == (2, 98)
    assert c["readahead_pages"] == 98 and c["pgpgin"] == 100


def test_reads_that_never_follow_each_other_are_not_read_ahead() -> None:
    """Every third page, three passes (0, 3, 6, ..., then 1, 4, ..., then 2, 5, ...): each read
    is three pages past the last, past prev_index + 1 (``index - prev_index <= 1UL`` in
    ondemand_readahead), so none reads ahead."""
    ids = list(range(0, 300, 3)) + list(range(1, 300, 3)) + list(range(2, 300, 3))
    cfg = KernelConfig(memory_pages=4096)
    c = simulate_kernel(_trace(ids, KIND_FILE, OP_READ), make_policy("lru"), cfg).counters
    assert c["readahead_pages"] == 0 and c["misses"] == 300 and c["pgpgin"] == 300


def test_context_readahead_reads_ahead_of_a_random_miss_after_cached_pages() -> None:
    """Linux 6.6's try_context_readahead: pages 109 down to 100 read one by one (each a random
    read: no readahead), then 110..150 in order. 110 is far from the last read (100), but the
    10 pages before it are cached: a window of 10 + 1 from 110, async_size 1 (mark on 120),
    whose hit starts the next. Without it, 110 is read alone and 111 starts a window of 4."""
    ids = list(range(109, 99, -1)) + list(range(110, 151))
    trace = _trace(ids, KIND_FILE, OP_READ)
    off = KernelRun(trace, make_policy("lru"), KernelConfig(memory_pages=4096))
    on = KernelRun(trace, make_policy("lru"), KernelConfig(memory_pages=4096, context_readahead=True))
    for run in (off, on):
        run.advance(11)
    assert on.counters["readahead_pages"] == 10 and off.counters["readahead_pages"] == 0
    for run in (off, on):
        run.advance()
        assert run.counters["pgpgin"] == 51
    assert on.counters["misses"] == 11 and off.counters["misses"] == 12


def test_file_successors_follow_source_ids_within_files() -> None:
    t = _trace([10, 11, 12, 50, 13], KIND_FILE, OP_READ)
    assert file_successors(t).tolist() == [1, 2, 4, -1, -1]


def test_oom_kills_the_largest_anon_task() -> None:
    """Task 1 writes 3000 pages on a 1000-page node with 500 pages of swap: it cannot fit, the
    OOM killer takes it (task 0 has 10 pages), and its later accesses are not simulated."""
    ids = list(range(10)) + [1000 + i for i in range(3000)] + list(range(10))
    tags = [0] * 10 + [1] * 3000 + [0] * 10
    r = simulate_kernel(
        _trace(ids, KIND_ANON, OP_WRITE, tag=tags),
        make_policy("lru"),
        KernelConfig(memory_pages=1000, swap_pages=500),
    )
    assert r.counters["oom_kill"] == 1
    assert r.node["oom_victim_tag"] == 1 and r.tasks["killed"] == [0, 1]
    assert r.counters["oom_skipped_accesses"] > 0
    assert r.tasks["ops"][0] == 20


def test_freed_pages_leave_no_shadow() -> None:
    """A page freed by its owner and touched again is a new zero-fill, not a refault."""
    ids = [1, 2, 1, 1]
    ops = [OP_WRITE, OP_WRITE, OP_FREE, OP_WRITE]
    c = simulate_kernel(
        _trace(ids, KIND_ANON, ops), make_policy("lru"), KernelConfig(memory_pages=1000)
    ).counters
    assert c["zero_fill"] == 3 and c["pgfree_by_owner"] == 1 and c["workingset_refault_anon"] == 0


def test_cgroup_limit_is_never_exceeded() -> None:
    """Two cgroups, memory.max 100 and 1000 pages: cgroup 0 reclaims from itself at its limit."""
    ids = [i for i in range(300)] * 2 + [5000 + i for i in range(200)]
    cg = [0] * 600 + [1] * 200
    run = KernelRun(
        _trace(ids, KIND_ANON, OP_WRITE, cgroup=cg),
        make_policy("lru"),
        KernelConfig(memory_pages=4096),
        cgroup_limits=[100, 1000],
    )
    while run.done < run.n:
        run.advance(1)
        assert run.framework.used[0] <= 100
    # limit reclaim frees a batch of 32 when a charge would pass the limit
    assert 100 - 32 < run.framework.used[0] <= 100 and run.framework.used[1] == 200
    assert run.counters["oom_kill"] == 0


def test_compiled_equals_interpreted_on_a_small_stress_vm() -> None:
    tr = make_kernel_workload("stress-vm", memory_pages=400, passes=2, workers=2)
    cfg = KernelConfig(memory_pages=400)
    a = simulate_kernel(tr, make_policy("lru"), cfg)
    b = simulate_kernel(tr, make_policy("lru"), cfg, interpreted=True)
    assert a.counters == b.counters
    assert a.tasks == b.tasks


def test_time_series_is_sampled_at_fixed_intervals() -> None:
    """2000 anon writes on a 1000-page node, sampled every 500 accesses: points at 0, 500,
    1000, 1500, 2000; resident anon grows by 500 per point until reclaim holds it below memory,
    and the swap traffic never falls."""
    ids = list(range(2000))
    r = simulate_kernel(
        _trace(ids, KIND_ANON, OP_WRITE),
        make_policy("lru"),
        KernelConfig(memory_pages=1000, swap_pages=4000),
        sample_every=500,
    )
    s = r.series
    assert s["access"] == [0.0, 500.0, 1000.0, 1500.0, 2000.0]
    assert s["resident_anon"][:2] == [0.0, 500.0]
    assert max(s["resident_anon"]) < 1000
    assert s["pswpout"] == sorted(s["pswpout"]) and s["pswpout"][-1] == r.counters["pswpout"]
    assert all(f >= 63 for f in s["free"])  # never below the min watermark


def test_kswapd_beside_the_task_falls_behind_and_the_task_reclaims_directly() -> None:
    """schedule="trace": kswapd reclaims to high at once between two accesses, the task never
    stalls. schedule="time" (the default): kswapd runs beside the task on its own clock; a
    batch of 32 zram swap-outs costs it at least 32 * 2.5 us = 80 us, while the task allocates
    a page every 350 ns (100 ns of work, 250 ns zero-fill), so free falls to min and the task
    reclaims directly. Both write out the same stream of pages."""
    ids = list(range(2000))
    trace = _trace(ids, KIND_ANON, OP_WRITE)
    base = {"memory_pages": 1000, "swap_pages": 4000}
    instant = simulate_kernel(trace, make_policy("lru"), KernelConfig(**base, schedule="trace"))
    timed = simulate_kernel(trace, make_policy("lru"), KernelConfig(**base))
    assert instant.counters["allocstall"] == 0 and instant.counters["pgsteal_direct"] == 0
    assert timed.counters["allocstall"] > 10 and timed.counters["pgsteal_direct"] > 100
    assert timed.counters["pgsteal_kswapd"] > 0
    # 2000 pages through 1000 (zram's copies take a third of a page each: at most about 400
    # stay resident): at least 1000 written out, no OOM; the two differ only by what the last
    # batches left free when the run ended (under one batch)
    assert instant.counters["oom_kill"] == timed.counters["oom_kill"] == 0
    assert min(timed.counters["pswpout"], instant.counters["pswpout"]) >= 1000
    assert abs(timed.counters["pswpout"] - instant.counters["pswpout"]) < 32
    assert timed.direct_reclaim_ns > 0 and timed.throughput_ops_per_s < instant.throughput_ops_per_s


def test_release_times_hold_a_task_back_and_others_run_meanwhile() -> None:
    """Task 0 writes three new anon pages released at 0, 10 us and 20 us; task 1 four pages at
    once. No reclaim (the node is large): each access costs 100 ns + 250 ns zero-fill. Task 0's
    clock ends at 20,000 + 350 ns, task 1's at 4 * 350; their busy times are 3 * 350 and 4 * 350
    (sleep is not work), so throughput is 3 / 1.05 us + 4 / 1.4 us."""
    ids = [0, 1, 2, 10, 11, 12, 13]
    tag = [0, 0, 0, 1, 1, 1, 1]
    trace = Trace.from_ids(
        np.asarray(ids, np.int64),
        kind=np.full(7, KIND_ANON, np.uint8),
        op=np.full(7, OP_WRITE, np.uint8),
        tag=np.asarray(tag, np.int32),
        time=np.asarray([0, 10_000, 20_000, 0, 0, 0, 0], np.int64),
        source={"time_unit": "ns", "time_is_release": True},
    )
    run = KernelRun(trace, make_policy("lru"), KernelConfig(memory_pages=1000))
    run.advance()
    assert run.framework.clock[:2].tolist() == [20_350.0, 1_400.0]
    r = run.result()
    assert r.tasks["time_ns"] == [1050.0, 1400.0]
    assert r.throughput_ops_per_s == pytest.approx(3 / 1.05e-6 + 4 / 1.4e-6)


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("linux-lru", ("inactive_anon", "active_anon", "inactive_file", "active_file")),
        ("mglru", ("gen_pages_anon", "gen_pages_file")),
    ],
)
def test_policy_readouts_enter_the_time_series(name: str, keys: tuple[str, ...]) -> None:
    """The kernel policies' readouts are sampled too; their pages add up to the resident ones."""
    tr = make_kernel_workload("mix", memory_pages=400, passes=2, file_pattern="loop")
    r = simulate_kernel(tr, make_policy(name), KernelConfig(memory_pages=400), sample_every=200)
    s = r.series
    for i in range(len(s["access"])):
        assert sum(s[k][i] for k in keys) == s["resident_anon"][i] + s["resident_file"][i]


def test_only_an_allocating_task_calls_the_oom_killer() -> None:
    """3000 anon pages cannot fit a 1000-page node with zram swap: every swapped page keeps a
    third of a page in memory, so resident + stored / 3 <= 937 has no solution once 2811 pages
    exist. kswapd, finding nothing at its lowest priority, gives up without killing; the task
    that then cannot allocate reclaims directly (one allocstall) and the OOM killer takes it."""
    trace = _trace(list(range(3000)), KIND_ANON, OP_WRITE)
    r = simulate_kernel(
        trace, make_policy("lru"), KernelConfig(memory_pages=1000, swap_pages=4000, schedule="trace")
    )
    c = r.counters
    assert c["oom_kill"] == 1 and r.node["oom_victim_tag"] == 0 and r.tasks["killed"] == [1]
    assert c["allocstall"] == 1 and c["pgsteal_direct"] == 0
    assert c["oom_skipped_accesses"] == 3000 - r.tasks["ops"][0]


def test_hdd_seeks_unless_a_read_continues_the_previous_one() -> None:
    """200 one-page reads from an HDD (8 ms seek, 27 us a page), no readahead: in file order one
    seek then 200 transfers, 8 + 200 * 0.027 = 13.4 ms of waits; in random order every read
    seeks, 200 * 8.027 = 1605.4 ms (the device address is the page's block, not the order the
    trace first touched it)."""
    rng = np.random.default_rng(0)
    cfg = KernelConfig(memory_pages=4096, file_device="hdd", readahead_pages=1)
    waits = {}
    for name, ids in (("in order", np.arange(200)), ("shuffled", rng.permutation(200))):
        r = simulate_kernel(_trace(ids, KIND_FILE, OP_READ), make_policy("lru"), cfg)
        waits[name] = r.node["total_ns"] - 200 * 100  # minus the CPU of the accesses
    assert waits["in order"] == pytest.approx(8_000_000 + 200 * 27_000)
    assert waits["shuffled"] == pytest.approx(200 * 8_027_000)


def test_a_whole_page_write_to_a_file_reads_nothing() -> None:
    """Writing a file page that is not cached creates it in memory (no read, no readahead): no
    pgpgin, no wait; the page is dirty and reclaim writes it back."""
    cfg = KernelConfig(memory_pages=1000, readahead_pages=32)
    r = simulate_kernel(_trace(list(range(100)), KIND_FILE, OP_WRITE), make_policy("lru"), cfg)
    c = r.counters
    assert c["pgpgin"] == 0 and c["readahead_pages"] == 0 and c["misses"] == 100
    assert r.node["total_ns"] == 100 * 100 and r.tasks["waits"] == [0]


def test_admit_keeps_a_read_miss_out_of_memory_in_kernel_mode() -> None:
    """admit-compaction with compaction tag 1: task 1 reads 100 file pages first; each read is
    waited for (pgpgin, an SSD read) but nothing enters memory. Task 0 then reads the same pages:
    100 misses that are inserted (schedule="trace" keeps the order of the trace)."""
    ids = list(range(100)) * 2
    tags = [1] * 100 + [0] * 100
    trace = _trace(ids, KIND_FILE, OP_READ, tag=tags)
    cfg = KernelConfig(memory_pages=1000, readahead_pages=1, schedule="trace")
    r = simulate_kernel(trace, make_policy("admit-compaction", compaction_tags="1"), cfg)
    c = r.counters
    assert c["bypassed"] == 100 and c["misses"] == 200 and c["pgpgin"] == 200
    assert r.node["resident_file"] == 100 and r.tasks["waits"] == [100, 100]
    plain = simulate_kernel(trace, make_policy("lru"), cfg)
    assert plain.counters["bypassed"] == 0 and plain.counters["misses"] == 100


def test_a_direct_reclaim_episode_frees_32_pages_before_the_allocation_is_retried() -> None:
    """do_try_to_free_pages: an allocating task reclaims until it has freed SWAP_CLUSTER_MAX
    (32) pages, going down the priorities, before the allocator retries. The legacy LRU frees
    fewer than 32 per batch on stress-vm (young pages are rotated once at the inactive tail), so
    an episode takes several batches; every episode still ends at exactly 32 pages freed
    (none here runs out of priorities), so pgsteal_direct is 32 times the episodes, and each
    stalled access ran at least one episode. Before, an episode ended as soon as the page fit,
    freeing ~7.5 pages on average."""
    tr = make_kernel_workload("stress-vm", memory_pages=4096, passes=3)
    r = simulate_kernel(tr, make_policy("linux-lru"), KernelConfig(memory_pages=4096))
    c = r.counters
    assert c["oom_kill"] == 0 and c["allocstall"] > 0
    assert c["pgsteal_direct"] % 32 == 0
    assert c["pgsteal_direct"] >= 32 * c["allocstall"]


def test_stop_first_ends_the_run_when_the_first_task_is_done() -> None:
    """Task 0 writes 3 new anon pages, task 1 ten; each access costs 350 ns (100 ns + 250 ns
    zero-fill) and ties go by trace row, so the tasks alternate: 0, 1, 0, 1, 0. After task 0's
    third access the run stops (stress-ng --timeout): task 1 has done 2, its other 8 are not run."""
    ids = list(range(13))
    tag = [0, 0, 0] + [1] * 10
    trace = _trace(ids, KIND_ANON, OP_WRITE, tag=tag)
    r = simulate_kernel(trace, make_policy("lru"), KernelConfig(memory_pages=1000, stop="first"))
    assert r.tasks["ops"] == [3, 2]
    assert r.counters["stopped_accesses"] == 8 and r.counters["requests"] == 5
    every = simulate_kernel(trace, make_policy("lru"), KernelConfig(memory_pages=1000))
    assert every.tasks["ops"] == [3, 10] and every.counters["stopped_accesses"] == 0
    # a trace can ask for it (stress-vm does); the config's "all" overrides
    trace.source["stop"] = "first"
    assert simulate_kernel(trace, make_policy("lru"), KernelConfig(memory_pages=1000)).tasks["ops"] == [3, 2]
    forced = simulate_kernel(trace, make_policy("lru"), KernelConfig(memory_pages=1000, stop="all"))
    assert forced.tasks["ops"] == [3, 10]
    with pytest.raises(ValueError, match="unknown stop"):
        KernelConfig(stop="never").validated()


def test_a_buffered_write_does_not_mark_a_file_page_accessed() -> None:
    """folio_mark_accessed runs on read(), not on write() (generic_perform_write takes the folio
    without FGP_ACCESSED): a file page written three times stays inactive; one read twice is
    activated (the legacy LRU's two-touch promotion)."""
    cfg = KernelConfig(memory_pages=1000, readahead_pages=0)
    written = simulate_kernel(_trace([5, 5, 5], KIND_FILE, OP_WRITE), make_policy("linux-lru"), cfg)
    read = simulate_kernel(_trace([5, 5, 5], KIND_FILE, OP_READ), make_policy("linux-lru"), cfg)
    assert written.counters["pgactivate"] == 0
    assert read.counters["pgactivate"] == 1


def test_a_workloads_cgroup_limit_applies_without_being_passed() -> None:
    """A trace whose source carries ``cgroup_pages`` (the cache_ext workloads) runs with that
    memory.max unless the caller gives other limits. 300 file pages read once through a
    100-page cgroup: the 101st starts a limit-reclaim episode that frees 32 (SWAP_CLUSTER_MAX,
    try_to_free_mem_cgroup_pages), so every 32 reads after the first 100 cost one episode; the
    7th episode comes at read 293 and the last 8 reads leave 68 + 8 = 76 resident. With 200
    pages allowed: 3 episodes up to read 296, the 4th at 297, 168 + 4 = 172."""
    trace = _trace(list(range(300)), KIND_FILE, OP_READ)
    trace.source["cgroup_pages"] = [100]
    cfg = KernelConfig(memory_pages=1000, readahead_pages=0)
    limited = simulate_kernel(trace, make_policy("lru"), cfg)
    assert limited.node["resident_file"] == 76
    wider = simulate_kernel(trace, make_policy("lru"), cfg, cgroup_limits=[200])
    assert wider.node["resident_file"] == 172


def test_the_flusher_writes_back_the_pages_dirtied_first_over_the_background_threshold() -> None:
    """vm.dirty_background_ratio = 1 % of 1000 pages: 10 dirty file pages are allowed. Whole-page
    writes of 15 new file pages: from the 11th on, each write puts the node over 10 and the
    flusher writes back the page dirtied first (pages 0..4): 5 pages written, 10 still dirty,
    all 15 resident (nothing was evicted). Page 0 written again is dirty anew and queued behind
    the others, so the next flush takes page 5, not page 0."""
    cfg = KernelConfig(memory_pages=1000, readahead_pages=0, dirty_background_ratio=1)
    run = KernelRun(_trace(list(range(15)) + [0], KIND_FILE, OP_WRITE), make_policy("lru"), cfg)
    run.advance(15)
    assert run.counters["flusher_writeback"] == 5 and run.counters["pgpgout"] == 5
    assert int(run.framework.node[N.dirty]) == 10 and run.result().node["resident_file"] == 15
    assert [int(run.states[0].resident[p]) & DIRTY for p in range(6)] == [0] * 5 + [DIRTY]
    run.advance()  # page 0 again: 11 dirty, the flusher takes page 5
    assert run.counters["flusher_writeback"] == 6 and int(run.framework.node[N.dirty]) == 10
    assert int(run.states[0].resident[0]) & DIRTY and not int(run.states[0].resident[5]) & DIRTY
    off = KernelConfig(memory_pages=1000, readahead_pages=0, dirty_background_ratio=0)
    quiet = simulate_kernel(_trace(list(range(15)), KIND_FILE, OP_WRITE), make_policy("lru"), off)
    assert quiet.counters["flusher_writeback"] == 0 and quiet.counters["pgpgout"] == 0


def test_a_cgroup_over_its_own_background_threshold_is_flushed() -> None:
    """A cgroup of memory.max 100 pages in a node of 1000, ratio 10 %: the node allows 100 dirty
    pages, the cgroup 10; 15 written pages in it: 5 written back."""
    cfg = KernelConfig(memory_pages=1000, readahead_pages=0, dirty_background_ratio=10)
    r = simulate_kernel(
        _trace(list(range(15)), KIND_FILE, OP_WRITE), make_policy("lru"), cfg, cgroup_limits=[100]
    )
    assert r.counters["flusher_writeback"] == 5


def test_kcompressd_takes_swap_writes_off_kswapd_until_its_queue_is_full() -> None:
    """kcompressd (queue depth 2), zram compression 2,500 ns a page, kswapd's batch starting at
    t = 0: the first two pages are queued (kswapd pays nothing; the thread is busy until 5,000);
    the third finds the queue full and kswapd writes it itself (2,500). A batch starting at
    2,500 finds one page left in the queue: its page is queued (busy until 7,500). Direct
    reclaim always writes its own pages."""
    from pagesim.core.state import RECLAIM_DIRECT, RECLAIM_KSWAPD
    from pagesim.engine.kernel_loop import (
        F,
        N,
        _swap_out_ns,
    )

    run = KernelRun(
        _trace([0], KIND_ANON, OP_WRITE), make_policy("lru"), KernelConfig(memory_pages=1000, kcompressd=2)
    )
    fw, out = run.framework, run.out
    fw.node[N.reclaimer] = RECLAIM_KSWAPD
    fw.f[F.batch_t0] = 0.0
    assert [_swap_out_ns.py_func(fw, out) for _ in range(3)] == [0.0, 0.0, 2500.0]
    assert fw.f[F.kc_busy] == 5000.0 and run.counters["kcompressd_pages"] == 2
    fw.f[F.batch_t0] = 2500.0
    assert _swap_out_ns.py_func(fw, out) == 0.0 and fw.f[F.kc_busy] == 7500.0
    fw.node[N.reclaimer] = RECLAIM_DIRECT
    assert _swap_out_ns.py_func(fw, out) == 2500.0


def test_kcompressd_shortens_kswapd_on_stress_vm() -> None:
    """The same stress-vm with and without kcompressd: kswapd hands pages to it (counted) and
    spends less time per page it reclaims; a policy's own depth is used when the config says
    nothing (the default policies ask for none)."""
    tr = make_kernel_workload("stress-vm", memory_pages=2048, passes=3, workers=4)
    base = simulate_kernel(tr, make_policy("lru"), KernelConfig(memory_pages=2048))
    kc = simulate_kernel(tr, make_policy("lru"), KernelConfig(memory_pages=2048, kcompressd=24))
    assert base.counters["kcompressd_pages"] == 0 and kc.counters["kcompressd_pages"] > 0
    per_page = [r.kswapd_ns / max(r.counters["pgsteal_kswapd"], 1) for r in (base, kc)]
    assert per_page[1] < per_page[0]
    assert kc.node["kcompressd_ns"] == 2500 * kc.counters["kcompressd_pages"]
    with pytest.raises(ValueError, match="kcompressd"):
        KernelConfig(kcompressd=-1).validated()


def test_belady_in_kernel_mode_knows_every_pages_next_access() -> None:
    """A clairvoyant policy gets ``a[A_NEXT]`` in kernel mode too and is told every access
    (a mapped anon hit included), so at the end each resident page's key is its next access in
    trace order (NEVER after its last). On an anon loop of 1,500 pages through a 1,024-page
    node (swap on an SSD, so swapped pages take no memory) LRU swaps every page of passes 2 and 3
    back in (3,000), OPT at least the 2 x 476 pages that cannot fit and under half of LRU's."""
    from pagesim.core.state import NEVER
    from pagesim.policies.belady import PM

    ids = list(range(1500)) * 3
    trace = _trace(ids, KIND_ANON, OP_WRITE)
    cfg = KernelConfig(memory_pages=1024, schedule="trace", swap="ssd")
    run = KernelRun(trace, make_policy("opt"), cfg)
    run.advance()
    s = run.states[0]
    resident = np.flatnonzero(s.resident)
    assert resident.size > 500
    assert all(int(s.pm[p, PM.next_use]) == NEVER for p in resident)  # after the last pass
    half = KernelRun(trace, make_policy("opt"), cfg)
    half.advance(2000)  # in pass 2: each resident page's next access is in pass 2 or 3
    s = half.states[0]
    for p in np.flatnonzero(s.resident)[:50]:
        want = 1500 + p if p >= 500 else 3000 + p
        assert int(s.pm[p, PM.next_use]) == want
    opt = run.result().counters["pswpin"]
    lru = simulate_kernel(trace, make_policy("lru"), cfg).counters["pswpin"]
    assert lru == 3000 and 2 * 476 <= opt < lru / 2
