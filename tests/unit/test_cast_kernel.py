"""CAST in kernel mode on a 100-page node: the clock less frees, the walker's young bits, and a
working set kept beside a stream.

A node of 100 pages (watermarks min 32, low 40, high 48): a tick every 25 pages taken in.
Anon pages only, so no readahead; every fault sets the page's young bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core.state import GI_FILE_QUEUE, GI_SWAP_QUEUE, PROT_NONE
from pagesim.engine.kernel import KernelRun, simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.base import kcompressd_depth, kcompressd_while_off
from pagesim.policies.cast.core import word_count, word_g1, word_tick
from pagesim.policies.cast.layout import (
    PM,
)
from pagesim.policies.cast.policy import CAST
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace
from pagesim.workloads.kernel import make_kernel_workload

ANON = 1
FILE_KIND = 0
READ, WRITE, FREE = 0, 1, 2


def _trace(rows: list[tuple[int, int]]) -> Trace:
    ids, op = zip(*rows)
    n = len(rows)
    return Trace.from_ids(
        np.array(ids), kind=np.full(n, ANON, np.uint8), op=np.array(op, np.uint8), tag=np.zeros(n, np.int32)
    )


def _config() -> KernelConfig:
    return KernelConfig(memory_pages=100, swap_pages=1000, readahead_pages=1)


def _walker_run() -> list[tuple[int, int]]:
    rows = [(i, WRITE) for i in range(30)] + [(i, FREE) for i in range(10)]
    rows += [(i, READ) for i in range(10, 15)] + [(i, WRITE) for i in range(30, 60)]
    return rows


def test_clock_less_frees_and_the_walker() -> None:
    """Anon pages 0..29 written: the 25th page taken in ends tick 0; the walker runs first and
    finds the young bits of pages 0..23, all faulted in this very tick: a read would add
    nothing, so the walker takes no bit and leaves them set (page 24, being taken in, is left
    alone). Intake since the tick: 5. Pages 0..9 are freed: 5 - 10 = -5. Pages 10..14 are read
    (young bits only: no hook). Pages 30..49 come in: -5 + 20 = 15, no tick (without the frees
    there would have been one). Pages 50..59: 25 at page 59, the walker runs: pages 10..23 are
    young -- 10..14 read in tick 1, 15..23 still holding their fault's bit, which the walker
    cannot tell apart -- and were last read in tick 0, so each gets a read at tick 1 (count 2,
    gap 1 tick: class 1): 14 bits taken; pages 24..58, faulted in tick 1, add nothing. Tick 2."""
    run = KernelRun(_trace(_walker_run()), CAST(), _config())
    s, pol = run.state, run.policies[0]

    def word(i: int) -> int:
        return int(s.pm[int(np.flatnonzero(run.trace.original_id == i)[0]), PM.word])

    run.advance(30)
    r = pol.readouts(s)
    assert r["clock_tick"] == 1 and r["walker_young"] == 0
    assert {int(word_count.py_func(word(i))) for i in range(24)} == {1}
    run.advance(10 + 5 + 20)
    r = pol.readouts(s)
    assert r["clock_tick"] == 1 and r["clock_freed"] == 10 and r["clock_in"] == 50
    run.advance(10)
    r = pol.readouts(s)
    assert r["clock_tick"] == 2 and r["clock_in"] == 60 and r["walker_young"] == 14
    for i in range(10, 24):
        w = word(i)
        assert (int(word_count.py_func(w)), int(word_tick.py_func(w)), int(word_g1.py_func(w))) == (2, 1, 1)
    for i in range(24, 59):
        assert int(word_count.py_func(word(i))) == 1
    assert run.counters["pswpout"] == 0
    pol.check_invariants(s)


def test_the_walker_clearing_every_bit() -> None:
    """walker_leave off: the walker clears the bits of pages 0..23 at the end of tick 0 and adds
    nothing (24 bits taken); at the end of tick 1 pages 10..14, read in tick 1, are young (count
    2, gap class 1) and so are pages 24..58, faulted in tick 1 (35 bits taken, nothing added);
    pages 15..23 and 24..58 keep one read."""
    run = KernelRun(_trace(_walker_run()), CAST(walker_leave=False), _config())
    s, pol = run.state, run.policies[0]

    def word(i: int) -> int:
        return int(s.pm[int(np.flatnonzero(run.trace.original_id == i)[0]), PM.word])

    run.advance(30)
    assert pol.readouts(s)["walker_young"] == 24
    run.advance()
    r = pol.readouts(s)
    assert r["clock_tick"] == 2 and r["walker_young"] == 24 + 5 + 35
    for i in range(10, 15):
        w = word(i)
        assert (int(word_count.py_func(w)), int(word_tick.py_func(w)), int(word_g1.py_func(w))) == (2, 1, 1)
    for i in range(15, 59):
        assert int(word_count.py_func(word(i))) == 1


def _loop_swapins(policy: CAST, memory: int, length: int, passes: int) -> list[int]:
    ids = np.tile(np.arange(length), passes)
    n = ids.size
    kind, op = np.full(n, ANON, np.uint8), np.full(n, WRITE, np.uint8)
    tr = Trace.from_ids(ids, kind=kind, op=op, tag=np.zeros(n, np.int32))
    run = KernelRun(tr, policy, KernelConfig(memory_pages=memory, swap_pages=4 * memory, schedule="trace"))
    out = []
    while run.done < run.n:
        before = run.counters["pswpin"]
        run.advance(length)
        out.append(run.counters["pswpin"] - before)
    policy.check_invariants(run.state)
    return out


def test_a_loop_larger_than_memory_keeps_a_part_of_itself() -> None:
    """One task writes a loop of 1,228 pages, 10 passes, on a 1,024-page node (about 790 pages
    resident above the watermarks). Ranked by recency every page is evicted just before it is
    read again: 1,228 swap-ins a pass. CAST (the seed, W and M): the pages of the first pass
    still mapped a tick after their fault have two reads; a page swapped back in has one, meets
    M's lowest at W's tail and goes; the rest stays, so each pass after the second swaps in at
    most 3/4 of the loop (at best 1,228 - 790). With the walker clearing bits that add nothing
    (reading every page table the PMD accessed bits mark), no page of the loop reaches two reads
    and every pass swaps in the whole loop; with MGLRU's use of the Bloom filter besides them
    (``walker_bloom=always``), a table the last walk found without young bits (its pages
    evicted) is not read when they come back, so their bits wait for reclaim's check, which
    takes them as reads, and part of the loop stays. Refaults as
    newcomers (``history=False``): with their history (the default) a page
    swapped back in outranks M's pages not yet read this pass, and this loop swaps in 702-1,050
    a pass after the first."""
    kept = _loop_swapins(CAST(history=False), 1024, 1228, 10)
    assert kept[0] == 0 and all(x <= 0.75 * 1228 for x in kept[2:])
    lost = _loop_swapins(CAST(walker_leave=False, history=False), 1024, 1228, 10)
    assert all(x == 1228 for x in lost[1:])
    filtered = _loop_swapins(CAST(walker_leave=False, walker_bloom="always", history=False), 1024, 1228, 10)
    assert all(x < 1228 for x in filtered[1:])


def test_working_set_is_kept_beside_a_stream() -> None:
    """stream-ws on a 2048-page node: the working set, read every period, is never faulted back
    while the stream fills memory and swap until the OOM killer takes it; compiled and plain
    Python agree."""
    tr = make_kernel_workload("stream-ws", memory_pages=2048, extra_periods=5)
    cfg = KernelConfig(memory_pages=2048, swap_pages=2048)
    a = simulate_kernel(tr, CAST(), cfg)
    assert a.tasks["waits"][0] == 0 and a.tasks["killed"] == [0, 1]
    b = simulate_kernel(tr, CAST(), cfg, interpreted=True)
    assert a.counters == b.counters


def test_a_swap_in_is_a_sample_of_anon_refault_cost() -> None:
    """Anon pages 0..60 written: at page 60 (39 free) kswapd swaps 32 out. Page 0 written again
    is a refault the task waits for (a zram read, W ns): one sample of anon's cost. With
    vm.swappiness 60 the prior is one sample of 2 * 100 us * (200 - 60) / 200 = 140 us for
    anon and 60 us for file: cost(anon) = (140,000 + W) / (1 + 1), cost(file) = 60,000 (no
    waits), and the swappiness they amount to is 200 * file / (anon + swap-out + file)."""
    rows = [(i, WRITE) for i in range(61)] + [(0, WRITE)]
    run = KernelRun(_trace(rows), CAST(), _config())
    run.advance()
    r = run.policies[0].readouts(run.state)
    assert run.counters["pswpin"] == 1 and r["waits_anon"] == 1 and r["waits_file"] == 0
    w = run.result().tasks["longest_wait_ns"][0]
    assert w > 0
    assert r["cost_anon_ns"] == (140_000 + int(w)) / 2
    assert r["cost_file_ns"] == 60_000
    # a miss of anon also costs writing a page out (swapout_ns, 2,500 ns by default)
    assert r["miss_cost_anon_ns"] == r["cost_anon_ns"] + 2_500
    assert r["estimate_swappiness"] == 200 * 60_000 / (r["cost_anon_ns"] + 2_500 + 60_000)


def test_cast_runs_the_node_with_kcompressd_at_its_depth() -> None:
    """CAST's ``kcompressd`` knob (24; -100..100, |k| the depth) sets the engine's per-node
    swap-out thread: kswapd hands it pages on stress-vm; 0 turns it off."""
    assert kcompressd_depth(make_policy("cast")) == 24
    assert kcompressd_depth(make_policy("cast", kcompressd=-8)) == 8
    assert kcompressd_while_off(make_policy("cast", kcompressd=-8)) == 8
    assert kcompressd_depth(make_policy("linux-lru")) == 0
    tr = make_kernel_workload("stress-vm", memory_pages=2048, passes=3, workers=4)
    on = simulate_kernel(tr, make_policy("cast"), KernelConfig(memory_pages=2048))
    off = simulate_kernel(tr, make_policy("cast", kcompressd=0), KernelConfig(memory_pages=2048))
    assert on.counters["kcompressd_pages"] > 0 and off.counters["kcompressd_pages"] == 0


def test_sampled_anon_pages_fault_on_every_access() -> None:
    """The seed: "a sampled mapped page is made to fault so every read of it is seen". On a
    100-page node the sample holds every page (rate 1). Anon pages 0..29 are written (30
    zero-fill faults, each a read for the sample, each page made PROT_NONE), then pages 10..14
    are read 5 times each: every read is a hinting fault (25), a read for the sample (30 + 25 =
    55 events) and 1,000 ns (hint_fault_ns): model time 30 x 250 (zero-fill) + 55 x 100 (CPU)
    = 13,000 ns without the faults, 38,000 with; and the walker at the tick page 24 ends, run by
    the task whose fault took the page in: one PMD entry and 25 PTEs (pages 0..24), all young,
    with SIMD 10 + (ceil(25 / 8) + 25) x 10 = 300 ns. sample_faults=0 (young bits harvested 16
    times a tick): the reads of pages 10..14 come after the last page taken in, the last
    harvest, so the sample sees only the 30 faults."""
    rows = [(i, WRITE) for i in range(30)] + [(i, READ) for _ in range(5) for i in range(10, 15)]
    seen = {}
    for faults in (True, False):
        run = KernelRun(_trace(rows), CAST(sample_faults=faults), _config())
        run.advance()
        r = run.policies[0].readouts(run.state)
        assert r["sample_rate"] == 1.0
        marked = int(((run.state.resident & PROT_NONE) != 0).sum())
        seen[faults] = (
            run.counters["numa_hint_faults"],
            r["sample_events_anon"],
            marked,
            run.result().node["total_ns"],
        )
        assert (r["walker_pmds"], r["walker_ptes"], r["walker_cpu_ns"]) == (1, 25, 300)
    assert seen[True] == (25, 55, 30, 38_300)
    assert seen[False] == (0, 30, 0, 13_300)


def test_writing_anon_out_is_measured_with_swapout_ns_as_its_prior() -> None:
    """Anon pages 0..60 written: kswapd writes 32 out. On zram each write-out costs its writer
    the compression, 2,500 ns (``removed`` is told it, ``r[A_WAIT_NS]``): 32 samples of 2,500
    ns, and anon's swap-out cost stays (2,500 + n x 2,500) / (1 + n) = 2,500, n the samples
    left after halving (the lists shrink below the count as reclaim goes on: n < 32). On an SSD
    a write is queued, not waited for: 32 samples of 0 ns, the cost 2,500 / (1 + n)."""
    rows = [(i, WRITE) for i in range(61)] + [(0, WRITE)]
    for swap, each in (("zram", 2_500.0), ("ssd", 0.0)):
        cfg = KernelConfig(memory_pages=100, swap_pages=1000, readahead_pages=1, swap=swap)
        run = KernelRun(_trace(rows), CAST(), cfg)
        run.advance()
        r = run.policies[0].readouts(run.state)
        assert run.counters["pswpout"] == 32
        assert (r["all_swapout"], r["all_swapout_ns"]) == (32, each)
        n = r["swapouts"]
        assert 0 < n < 32
        assert r["swapout_cost_ns"] == pytest.approx((2_500 + n * each) / (1 + n), abs=1e-9)
        assert r["miss_cost_anon_ns"] == pytest.approx(r["cost_anon_ns"] + r["swapout_cost_ns"], abs=1e-9)


def test_anon_share_counts_what_zram_holds() -> None:
    """File pages 1000..1039 read, then anon pages 0..99 written on the 100-page node: reclaim
    takes both types and the anon pages it takes go to zram, 3 to a page of memory. Anon's
    share is (anon on the lists + ceil(zram's pages / 3)) / (that + file on the lists), as the
    seed counts it; the readout ``zram_pages`` is the node's zram memory at the last event."""
    rows = [(1000 + i, READ, FILE_KIND) for i in range(40)] + [(i, WRITE, ANON) for i in range(100)]
    ids, op, kind = zip(*rows)
    n = len(rows)
    tr = Trace.from_ids(
        np.array(ids), kind=np.array(kind, np.uint8), op=np.array(op, np.uint8), tag=np.zeros(n, np.int32)
    )
    run = KernelRun(tr, CAST(), _config())
    run.advance()
    r = run.policies[0].readouts(run.state)
    zram = -(-run.result().node["zram_stored"] // 3)
    assert zram > 0 and r["zram_pages"] == zram
    anon = r["w_anon"] + r["m_anon"] + zram
    file = r["w_file"] + r["m_file"]
    assert r["anon_share_permille"] == (1000 * anon) // (anon + file)
    assert r["anon_share_permille"] > (1000 * (anon - zram)) // (anon - zram + file)


def test_the_node_tells_each_device_s_queue() -> None:
    """zram is served on the CPU (0), a disk on its own queue (bdi 1 swap, bdi 2 file), no swap
    is -1 (QUEUE_NONE)."""
    rows = [(0, WRITE)]
    for swap, file, queues in (("zram", "ssd", (0, 2)), ("ssd", "hdd", (1, 2)), ("none", "zram", (-1, 0))):
        run = KernelRun(_trace(rows), CAST(), KernelConfig(memory_pages=100, swap=swap, file_device=file))
        assert (int(run.state.gi[GI_SWAP_QUEUE]), int(run.state.gi[GI_FILE_QUEUE])) == queues
