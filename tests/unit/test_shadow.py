"""Shadow-entry lists (pagesim.core.shadow) on a hand-worked case, compiled and plain."""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core import shadow as SH
from pagesim.core.state import make_state
from pagesim.engine.build import interpreted


@pytest.mark.parametrize("plain", [False, True])
def test_push_and_unlink(plain: bool) -> None:
    """Push 4, 7, 2 (newest first: 2 7 4); unlink 7 (2 4); unlink 2 (4); unlink 4 (empty)."""
    push = interpreted(SH.shadow_push) if plain else SH.shadow_push
    unlink = interpreted(SH.shadow_unlink) if plain else SH.shadow_unlink
    nxt = np.full(8, -1, np.int64)
    prv = np.full(8, -1, np.int64)
    hdr = np.array([-1, -1, 0], np.int64)

    def walk() -> list[int]:
        out, p = [], int(hdr[SH.SH_HEAD])
        while p >= 0:
            out.append(p)
            p = int(nxt[p])
        return out

    for p in (4, 7, 2):
        push(nxt, prv, hdr, p)
    assert walk() == [2, 7, 4] and hdr.tolist() == [2, 4, 3]
    unlink(nxt, prv, hdr, 7)
    assert walk() == [2, 4] and prv[4] == 2 and hdr[SH.SH_LEN] == 2
    unlink(nxt, prv, hdr, 2)
    unlink(nxt, prv, hdr, 4)
    assert walk() == [] and hdr.tolist() == [-1, -1, 0]


@pytest.mark.parametrize("plain", [False, True])
def test_append_on_a_strided_header(plain: bool) -> None:
    """MGLRU's header form: head, tail and size 8 slots apart. Append 4, 7 (oldest end: 4 7),
    push 2 (2 4 7); unlink 7 (2 4): the slots between are never written."""
    push = interpreted(SH.shadow_push) if plain else SH.shadow_push
    append = interpreted(SH.shadow_append) if plain else SH.shadow_append
    unlink = interpreted(SH.shadow_unlink) if plain else SH.shadow_unlink
    nxt = np.full(8, -1, np.int64)
    prv = np.full(8, -1, np.int64)
    gi = np.full(24, 99, np.int64)
    gi[[3, 11]] = -1
    gi[19] = 0
    hdr = gi[3:20:8]
    append(nxt, prv, hdr, 4)
    append(nxt, prv, hdr, 7)
    push(nxt, prv, hdr, 2)
    assert gi[[3, 11, 19]].tolist() == [2, 7, 3]
    assert nxt[[2, 4, 7]].tolist() == [4, 7, -1] and prv[[2, 4, 7]].tolist() == [-1, 2, 4]
    unlink(nxt, prv, hdr, 7)
    assert gi[[3, 11, 19]].tolist() == [2, 4, 2] and nxt[4] == -1
    assert (np.delete(gi, [3, 11, 19]) == 99).all()


@pytest.mark.parametrize("plain", [False, True])
def test_packed_pair_by_hand(plain: bool) -> None:
    """B1 and B2 in one column (headers at gi[2:5] and gi[5:8]): push 3, 1, 6 to B1 and 5 to B2;
    unlink 1 (B1: 6 3), then 6 and 3 (B1 empty). Entries: list bits | (next + 1) << 2 |
    (prev + 1) << 33, so 3's entry under 6 is 1 | 0 << 2 | 7 << 33; an unlinked page's is 0."""
    push = interpreted(SH.packed_push) if plain else SH.packed_push
    unlink = interpreted(SH.packed_unlink) if plain else SH.packed_unlink
    s = make_state(8, 1, n_int_fields=1, n_int_globals=8)
    s.gi[2:8] = [-1, -1, 0, -1, -1, 0]
    for p in (3, 1, 6):
        push(s, 2, 1, p)
    push(s, 2, 2, 5)
    assert SH.packed_pages(s, 2, 1) == [6, 1, 3] and SH.packed_pages(s, 2, 2) == [5]
    assert s.gi[2:8].tolist() == [6, 3, 3, 5, 5, 1]
    unlink(s, 2, 1)
    assert SH.packed_pages(s, 2, 1) == [6, 3] and s.pm[1, SH.PACKED_ENTRY] == 0
    assert int(s.pm[3, SH.PACKED_ENTRY]) == 1 | (0 << 2) | (7 << 33)
    unlink(s, 2, 6)
    unlink(s, 2, 3)
    assert SH.packed_pages(s, 2, 1) == [] and s.gi[2:5].tolist() == [-1, -1, 0]
    assert SH.packed_pages(s, 2, 2) == [5] and s.pm[:, SH.PACKED_ENTRY].tolist() == [0] * 5 + [2] + [0] * 2
