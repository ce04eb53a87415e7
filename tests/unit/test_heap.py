"""The shared indexed min-heap (pagesim.core.heap) on hand-worked cases, compiled and plain."""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core import heap as H
from pagesim.engine.build import interpreted

APIS = {
    "compiled": (H.heap_push, H.heap_update, H.heap_remove, H.heap_clear),
    "plain": tuple(interpreted(f) for f in (H.heap_push, H.heap_update, H.heap_remove, H.heap_clear)),
}


@pytest.mark.parametrize("mode", list(APIS))
def test_push_update_remove(mode: str) -> None:
    """Pages 0..3 with keys 5, 3, 8, 1: root page 3 (key 1). Page 3's key -> 9: root page 1
    (key 3). Remove page 1: root page 0 (key 5). Every slot agrees with its page's position."""
    push, update, remove, clear = APIS[mode]
    slot_page = np.zeros(8, np.int64)
    slot_key = np.zeros(8, np.int64)
    pos = np.zeros(8, np.int64)
    clear(slot_page, pos)
    n = 0
    for page, key in enumerate([5, 3, 8, 1]):
        n = push(slot_page, slot_key, pos, n, page, key)
    assert (n, slot_page[0], slot_key[0]) == (4, 3, 1)
    update(slot_page, slot_key, pos, n, 3, 9)
    assert (slot_page[0], slot_key[0]) == (1, 3)
    n = remove(slot_page, slot_key, pos, n, 1)
    assert (n, slot_page[0], slot_key[0], pos[1]) == (3, 0, 5, -1)
    assert remove(slot_page, slot_key, pos, n, 1) == 3  # absent: unchanged
    for slot in range(n):
        assert pos[slot_page[slot]] == slot
        if slot:
            assert slot_key[(slot - 1) // 2] <= slot_key[slot]
    assert sorted(slot_key[:n].tolist()) == [5, 8, 9]
