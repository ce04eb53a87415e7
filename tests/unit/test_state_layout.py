"""The per-page metadata's layout (``core.state.row_width``, ``line_aligned_zeros``) and the
prefetch of a row's last line (``core.prefetch.prefetch_row_end``): speed only, never results."""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core.jit import kernel
from pagesim.core.prefetch import prefetch, prefetch_row_end
from pagesim.core.state import CACHE_LINE, line_aligned_zeros, make_state, row_width, state_sharing_lists


@pytest.mark.parametrize(
    ("fields", "width"),
    [(0, 1), (1, 1), (2, 2), (3, 4), (4, 4), (5, 8), (6, 8), (7, 8), (8, 8), (9, 9), (16, 16), (21, 21)],
)
def test_row_width(fields: int, width: int) -> None:
    """Up to 8 fields a row is padded to 1, 2, 4 or 8 int64 (8, 16, 32, 64 bytes: a divisor of a
    64-byte line, so an aligned row never crosses one); wider rows are left as they are."""
    assert row_width(fields) == width


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (7, 3), (1000, 4), (333, 8), (5, 9)])
def test_line_aligned_zeros(rows: int, cols: int) -> None:
    a = line_aligned_zeros(rows, cols)
    assert a.shape == (rows, cols) and a.dtype == np.int64 and a.flags.c_contiguous
    assert a.ctypes.data % CACHE_LINE == 0 and not a.any()
    a[-1, -1] = 7  # writable, the whole extent
    assert a.sum() == 7


def test_make_state_pm_is_aligned_and_padded() -> None:
    s = make_state(1000, 2, n_int_fields=3)
    assert s.pm.shape == (1000, 4) and s.pm.ctypes.data % CACHE_LINE == 0
    t = state_sharing_lists(s, n_int_fields=6)
    assert t.pm.shape == (1000, 8) and t.pm.ctypes.data % CACHE_LINE == 0
    # 64-byte rows from a line boundary: row i is exactly line i
    assert (t.pm[1:].ctypes.data - t.pm.ctypes.data) == CACHE_LINE


@kernel
def _sum_with_prefetches(a):  # type: ignore[no-untyped-def]
    total = 0
    for i in range(a.shape[0] + 3):  # out of bounds too: a prefetch never faults
        prefetch(a, i)
        prefetch_row_end(a, i)
        if i < a.shape[0]:
            total += a[i, a.shape[1] - 1]
    return total


def test_prefetch_row_end_changes_nothing() -> None:
    a = np.arange(60, dtype=np.int64).reshape(5, 12)
    assert _sum_with_prefetches(a) == 11 + 23 + 35 + 47 + 59
    assert _sum_with_prefetches.py_func(a) == 11 + 23 + 35 + 47 + 59
