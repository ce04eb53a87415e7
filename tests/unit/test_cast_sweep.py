"""CAST's sweep, worked by hand on a state built directly: the 128 lowest keys, the bitmap of 256
blocks, the 1/16 quantile of a pass and the stop once enough keys lie at or below it, the check
of a candidate before it is taken, and the two tie orders.

1024 page ids, so a bitmap block is 4 pages. Decay 8 (H = 4 ticks): a page read once at tick E
has key 16 E / 4 = 4 E.
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core.state import A_CGROUP, ACC_LEN, RESIDENT, make_state
from pagesim.policies.cast import hooks, sweep
from pagesim.policies.cast.core import pack, read_word
from pagesim.policies.cast.layout import (
    FILE_T,
    GI,
    N_BLOCKS,
    PM,
)
from pagesim.policies.cast.policy import CAST

N = 1024
TAG_FILE = 2  # lruvec 0, file: 1 + 1 + 2 * 0


def _state(now: int) -> tuple[CAST, object]:
    pol = CAST()
    s = make_state(N, **pol.state_shape())
    pol.configure(s, N)
    a = np.zeros(ACC_LEN, dtype=np.int64)
    a[A_CGROUP] = 0
    assert hooks._init(s, a) == 0
    s.gi[GI.now] = now
    for b in range(N_BLOCKS):
        s.gi[GI.bitmap + b] = 1  # every block marked: the sweep clears the empty ones
    return pol, s


def _put_m(s: object, p: int, word: int) -> None:
    s.pm[p, PM.word] = word  # type: ignore[attr-defined]
    s.resident[p] = RESIDENT  # type: ignore[attr-defined]
    s.gi[GI.msize + FILE_T] += 1  # type: ignore[attr-defined]


def _drain(s: object) -> None:
    while s.gi[GI.buflen + FILE_T] > 0:  # type: ignore[attr-defined]
        sweep.buf_pop(s, FILE_T)


def test_a_first_pass_keeps_the_128_lowest_and_sets_the_quantile() -> None:
    """M: pages 5i (i = 0..199), read once at tick i mod 50: keys 4 (i mod 50), each key four
    times. No pass has completed, so the first sweep goes all the way round: it reads all 1024
    words, keeps the 128 lowest keys (0..124, four pages each, in the order found: key 0 is
    pages 0, 250, 500, 750), and the pass's 1/16 quantile is the key at rank 200 // 16 = 12 of
    the sorted 200: 0,0,0,0,4,4,4,4,8,8,8,8,12 -> 12. The 5i are 1.25 blocks apart, so each
    falls in its own block: 200 blocks keep their bit, the other 56 are cleared."""
    pol, s = _state(now=60)
    for i in range(200):
        _put_m(s, 5 * i, pack(i % 50, 0, 0, TAG_FILE, 1))
    s.gi[GI.budget + FILE_T] = N
    sweep.sweep(s, FILE_T)
    cands = pol.candidates(s, FILE_T)
    assert len(cands) == 128
    assert cands[:5] == [(0, 0), (250, 0), (500, 0), (750, 0), (5, 4)]
    assert [k for _, k in cands] == sorted(4 * j for j in range(32) for _ in range(4))
    assert s.gi[GI.qvalid + FILE_T] == 1 and s.gi[GI.q + FILE_T] == 12
    assert s.gi[GI.words] == N and s.gi[GI.cursor + FILE_T] == 0
    bits = s.gi[GI.bitmap : GI.bitmap + N_BLOCKS]
    assert int(bits.sum()) == 200 and bits[4] == 0 and bits[250:].sum() == 0

    # The second sweep stops once it holds enough keys at or below 12: enough = min(32,
    # |M| / 32) = 6. In page order those are pages 0, 5, 10, 15 (i = 0..3) and 250, 255
    # (i = 50, 51): it stops at the end of block 63 (pages 252..255). Of the 64 blocks it passed,
    # 52 hold a page of M (5i < 256: i <= 51) and are read (208 words); 12 are skipped.
    _drain(s)
    words, frames = int(s.gi[GI.words]), int(s.gi[GI.frames])
    s.gi[GI.budget + FILE_T] = N
    sweep.sweep(s, FILE_T)
    assert s.gi[GI.cursor + FILE_T] == 256
    assert s.gi[GI.words] - words == 208 and s.gi[GI.frames] - frames == 256
    cands = pol.candidates(s, FILE_T)
    assert len(cands) == 52
    assert cands[:6] == [(0, 0), (250, 0), (5, 4), (255, 4), (10, 8), (15, 12)]

    # Each candidate is checked before it is taken: page 0 was read since it was found (its
    # word changed): passed over, counted stale; M's lowest is page 250.
    s.pm[0, PM.word] = read_word(int(s.pm[0, PM.word]), 60)
    assert sweep.m_lowest(s, FILE_T) == 250
    assert s.gi[GI.stale] == 1
    pol.check_invariants(s)


def _order(s: object, n: int) -> list[int]:
    out = []
    for _ in range(n):
        p = sweep.m_lowest(s, FILE_T)
        out.append(int(p))
        sweep.buf_pop(s, FILE_T)
    return out


@pytest.mark.parametrize("cursor", [0, 8])
def test_ties_read_once_go_by_the_sweep_and_read_more_by_the_frame_hash(cursor: int) -> None:
    """Pages 4, 8, 12 (blocks 1, 2, 3) with the same word. Read once: they go in the order the
    sweep finds them, a clock: from cursor 0 it is 4, 8, 12; from cursor 8 (block 2) it is 8,
    12, then 4 after the wrap. Read twice: by hash(p) = p * 2654435761 mod 2^32: 4 ->
    2,027,808,452, 8 -> 4,055,616,904, 12 -> 1,788,458,060, so from cursor 0, where one sweep
    holds all three, 12, 4, 8: the same pages of a loop go first every time. From cursor 8 the
    first sweep ends at the wrap (its pass complete, with enough keys at its quantile) holding
    8 and 12: 12 then 8 by hash, and 4 from the next sweep."""
    once = pack(7, 0, 0, TAG_FILE, 1)
    twice = read_word(once, 7)
    for word, expected in (
        (once, [4, 8, 12] if cursor == 0 else [8, 12, 4]),
        (twice, [12, 4, 8] if cursor == 0 else [12, 8, 4]),
    ):
        pol, s = _state(now=7)
        for p in (4, 8, 12):
            _put_m(s, p, word)
        s.gi[GI.cursor + FILE_T] = cursor
        s.gi[GI.budget + FILE_T] = N
        assert _order(s, 3) == expected


def test_the_sweep_charges_lines_of_frames_and_keys() -> None:
    """The sweep's CPU (costs.sweep_cost_ns): 200 pages of M (5i) in memory, 100 other pages in
    memory and not in M (5i + 1, i < 100: W's, the other type's), the rest of the 1024 page ids
    not in memory. One whole pass reads every word of the marked blocks (all 1024), of which
    300 are frames' (a PFN array holds words of frames only): 300 / 16 lines of 8 ns and 200
    keys of 10 ns = 150 + 2,000 = 2,150 ns, added to the reclaimer's CPU (``WORK_CPU_NS``);
    with the two costs at 0 nothing is charged and the sweep finds the same candidates."""
    from pagesim.core.state import WORK_CPU_NS
    from pagesim.policies.cast.layout import GF

    found = []
    for line_ns, key_ns in ((8, 10), (0, 0)):
        pol, s = _state(now=60)
        s.gi[GI.linens] = line_ns
        s.gi[GI.keyns] = key_ns
        for i in range(200):
            _put_m(s, 5 * i, pack(i % 50, 0, 0, TAG_FILE, 1))
        for i in range(100):
            s.resident[5 * i + 1] = RESIDENT
        s.gi[GI.budget + FILE_T] = N
        cpu0 = int(s.work[WORK_CPU_NS])
        sweep.sweep(s, FILE_T)
        assert s.gi[GI.words] == N and s.gi[GI.fwords] == 300 and s.gi[GI.keys] == 200
        want = 300 * line_ns / 16 + 200 * key_ns
        assert s.gf[GF.sweep_ns] == pytest.approx(want)
        assert int(s.work[WORK_CPU_NS]) - cpu0 == round(want)
        found.append(pol.candidates(s, FILE_T))
    assert found[0] == found[1]
