"""Shadow-entry lists (pagesim.core.shadow) on a hand-worked case, compiled and plain."""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core import shadow as SH
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
