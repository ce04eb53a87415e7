"""CAST's costs and their readouts, by hand: anon's share with zram, the write-out samples, the
seed's per-queue ``cpu:`` and ``bdi N:`` lines of ``estimate``."""

from __future__ import annotations

from pagesim.core.state import GI_FILE_QUEUE, GI_SWAP_QUEUE, GI_SWAPPINESS, make_state
from pagesim.policies.cast.costs import anon_share, miss_cost, note_wait, refault_cost
from pagesim.policies.cast.layout import (
    ANON_T,
    FILE_T,
    GF,
    GI,
    SWAPOUT_K,
)
from pagesim.policies.cast.policy import CAST


def _state(**params: object):  # type: ignore[no-untyped-def]
    pol = CAST(**params)
    s = make_state(16, 1, **pol.state_shape())
    s.gi[GI_SWAPPINESS] = 60
    pol.configure(s, 16)
    return pol, s


def test_anon_share_counts_zram_memory_as_anon() -> None:
    """Anon 100 pages on the lists, file 300: 1000 * 100 / 400 = 250 permille; with zram holding
    100 pages of memory (300 pages compressed 3 to 1) anon's part is 200 of 500: 400."""
    _, s = _state()
    s.gi[GI.msize + ANON_T] = 100
    s.gi[GI.msize + FILE_T] = 300
    assert anon_share.py_func(s) == 250
    s.gi[GI.zram] = 100
    assert anon_share.py_func(s) == 400


def test_write_out_samples_halve_as_the_waits_and_are_also_kept_whole() -> None:
    """Four write-outs of 100 ns with 4 pages on the lists: the fourth brings the number to 4,
    so sum and number halve (200 ns over 2); the unhalved record keeps 400 ns over 4. Anon's
    miss cost adds (prior 2,500 + 200) / (1 + 2) = 900 ns to its refault cost; file's none."""
    _, s = _state()
    for _ in range(4):
        note_wait.py_func(s, SWAPOUT_K, 100.0, 4)
    assert (s.gf[GF.out_sum], s.gf[GF.out_n]) == (200.0, 2.0)
    assert (s.gf[GF.all_sum + SWAPOUT_K], s.gf[GF.all_n + SWAPOUT_K]) == (400.0, 4.0)
    assert miss_cost.py_func(s, ANON_T) == refault_cost.py_func(s, ANON_T) + 900.0
    assert miss_cost.py_func(s, FILE_T) == refault_cost.py_func(s, FILE_T)
    assert s.gf[GF.all_n + ANON_T] == 0.0  # a write-out is no refault


def _estimate_lines(pol: CAST, s) -> list[str]:  # type: ignore[no-untyped-def]
    lines = pol.describe(s).splitlines()
    return lines[lines.index("in flight 0") - 1 : lines.index("tune:")]


def test_estimate_has_the_seeds_swap_out_cpu_and_bdi_lines() -> None:
    """The seed's layout: ``swap-out N ns (P pages)``, ``in flight``, then ``cpu:`` and one
    ``bdi N:`` line per disk, each ``anon X ns (n) file Y ns (n) swap-out Z ns (n)`` over every
    sample since the start. Two anon waits of 3,667 ns on average (7,334 ns), one file wait of
    350,000 ns, four write-outs of 2,500 ns (10,000; the halved record the same: the swap-out
    cost (2,500 + 10,000) / 5 = 2,500 ns). Swap on zram (the CPU), file on bdi 2; then swap on
    an SSD (bdi 1): the cpu line is all zeros and each disk has its own line."""
    pol, s = _state()
    for k, (total, n) in enumerate(((7_334.0, 2.0), (350_000.0, 1.0), (10_000.0, 4.0))):
        s.gf[GF.all_sum + k] = total
        s.gf[GF.all_n + k] = n
    s.gf[GF.out_sum] = 10_000.0
    s.gf[GF.out_n] = 4.0
    s.gi[GI_SWAP_QUEUE] = 0
    s.gi[GI_FILE_QUEUE] = 2
    assert _estimate_lines(pol, s) == [
        "swap-out 2500 ns (4 pages)",
        "in flight 0",
        "cpu: anon 3667 ns (2) file 0 ns (0) swap-out 2500 ns (4)",
        "bdi 2: anon 0 ns (0) file 350000 ns (1) swap-out 0 ns (0)",
    ]
    s.gi[GI_SWAP_QUEUE] = 1
    assert _estimate_lines(pol, s)[2:] == [
        "cpu: anon 0 ns (0) file 0 ns (0) swap-out 0 ns (0)",
        "bdi 1: anon 3667 ns (2) file 0 ns (0) swap-out 2500 ns (4)",
        "bdi 2: anon 0 ns (0) file 350000 ns (1) swap-out 0 ns (0)",
    ]
