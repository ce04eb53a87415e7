"""CAST in kernel mode on a 100-page node: the clock less frees, the walker's young bits, and a
working set kept beside a stream.

A node of 100 pages (watermarks min 32, low 40, high 48): a tick every 25 pages taken in.
Anon pages only, so no readahead; every fault sets the page's young bit.
"""

from __future__ import annotations

import numpy as np

from pagesim.engine.kernel import KernelRun, simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.cast.core import word_count, word_g1, word_tick
from pagesim.policies.cast.layout import WORD
from pagesim.policies.cast.policy import CAST
from pagesim.trace import Trace
from pagesim.workloads.kernel import make_kernel_workload

ANON = 1
READ, WRITE, FREE = 0, 1, 2


def _trace(rows: list[tuple[int, int]]) -> Trace:
    ids, op = zip(*rows)
    n = len(rows)
    return Trace.from_ids(
        np.array(ids), kind=np.full(n, ANON, np.uint8), op=np.array(op, np.uint8), tag=np.zeros(n, np.int32)
    )


def _config() -> KernelConfig:
    return KernelConfig(memory_pages=100, swap_pages=1000, readahead_pages=1)


def test_clock_less_frees_and_the_walker() -> None:
    """Anon pages 0..29 written: the 25th page taken in ends tick 0; the walker runs first and
    finds the young bits of pages 0..23, all faulted in this very tick: bits cleared, nothing
    added (page 24, being taken in, is left alone). Intake since the tick: 5. Pages 0..9 are
    freed: 5 - 10 = -5. Pages 10..14 are read (young bits only: no hook). Pages 30..49 come in:
    -5 + 20 = 15, no tick (without the frees there would have been one). Pages 50..59: 25 at
    page 59, the walker runs: pages 10..14 were read in tick 1 after their fault in tick 0, so
    each gets a read at tick 1 (count 2, gap 1 tick: class 1); pages 24..58, faulted in tick 1,
    add nothing. Then tick 2."""
    rows = [(i, WRITE) for i in range(30)] + [(i, FREE) for i in range(10)]
    rows += [(i, READ) for i in range(10, 15)] + [(i, WRITE) for i in range(30, 60)]
    run = KernelRun(_trace(rows), CAST(), _config())
    s, pol = run.state, run.policies[0]

    def word(i: int) -> int:
        return int(s.pm[int(np.flatnonzero(run.trace.original_id == i)[0]), WORD])

    run.advance(30)
    r = pol.readouts(s)
    assert r["clock_tick"] == 1 and r["walker_young"] == 24
    assert {int(word_count.py_func(word(i))) for i in range(24)} == {1}
    run.advance(10 + 5 + 20)
    r = pol.readouts(s)
    assert r["clock_tick"] == 1 and r["clock_freed"] == 10 and r["clock_in"] == 50
    run.advance(10)
    r = pol.readouts(s)
    assert r["clock_tick"] == 2 and r["clock_in"] == 60
    for i in range(10, 15):
        w = word(i)
        assert (int(word_count.py_func(w)), int(word_tick.py_func(w)), int(word_g1.py_func(w))) == (2, 1, 1)
    for i in list(range(15, 24)) + list(range(24, 59)):
        assert int(word_count.py_func(word(i))) == 1
    assert run.counters["pswpout"] == 0
    pol.check_invariants(s)


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
