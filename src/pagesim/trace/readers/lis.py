"""ARC traces (``.lis``): each line ``start count ignored request_no`` is a request for ``count``
consecutive blocks from ``start``, expanded here into ``count`` accesses in order.

The format of the traces of Megiddo and Modha (FAST 2003), as read by Caffeine's ``ArcTraceReader``.
The last two fields are optional here (two to four fields per line); a count of 0 gives no access.
Blocks are 512 bytes in the original traces; ``source["block_bytes"]`` records that. Plain or
compressed (gzip, xz, zstd, bzip2).

Range checks, each refused with the file and line before anything is allocated: a count above
`MAX_RUN` (``max_run``, 2**24 blocks: 8 GiB at 512 bytes, far above any extent of the ARC traces);
an extent that runs past block 2**64 - 1 (``start + count - 1`` would wrap); and, over the whole
file, more than ``max_accesses`` (`MAX_ACCESSES`, 2**32) expanded accesses.
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

from .._jit import JIT
from .._stream import CHUNK_BYTES
from ..trace import Trace
from ._common import RowCheck, base_source, iter_int_rows

NAME = "lis"
DESCRIPTION = "ARC traces: 'start count ignored request_no' per line, expanded to count blocks; gz/xz/zst"
EXTENSIONS = (".lis",)
EXPECTED = "'start count [ignored [request_no]]' (2 to 4 unsigned integers)"
#: Largest block count of one line accepted by default.
MAX_RUN = 1 << 24
#: Largest number of accesses (blocks, after expansion) of a file accepted by default.
MAX_ACCESSES = 1 << 32
_U64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(**JIT)
def _expand(rows):
    """Expand extents into blocks.

    Parameters
    ----------
    rows : numpy.ndarray of uint64, shape (n_lines, >= 2)
        Column 0 start block, column 1 block count.

    Returns
    -------
    numpy.ndarray of uint64, shape (sum of counts,)
        ``start, start + 1, ..., start + count - 1`` for each line in order.
    """
    total = 0
    for r in range(rows.shape[0]):
        total += rows[r, 1]
    out = np.empty(total, dtype=np.uint64)
    k = 0
    for r in range(rows.shape[0]):
        s = rows[r, 0]
        for j in range(rows[r, 1]):
            out[k] = s + np.uint64(j)
            k += 1
    return out


def _extent_check(max_run: int, max_accesses: int) -> RowCheck:
    """A check of each chunk's extents (see the module docstring), keeping the running total."""
    total = 0

    def check(rows: np.ndarray) -> tuple[int, str] | None:
        nonlocal total
        count = rows[:, 1]
        too_long = count > np.uint64(max_run)
        wraps = (count > 0) & (rows[:, 0] > _U64_MAX - (count - np.uint64(1)))
        bad = np.flatnonzero(too_long | wraps)
        bounded = np.minimum(count, np.uint64(max_run)).astype(np.int64)
        running = total + np.cumsum(bounded)
        over = np.flatnonzero(running > max_accesses)
        first = min(int(bad[0]) if bad.size else rows.shape[0], int(over[0]) if over.size else rows.shape[0])
        if first < rows.shape[0]:
            if too_long[first]:
                return first, f"a block count of at most {max_run:,} (max_run)"
            if wraps[first]:
                return first, "an extent that ends at or before block 2**64 - 1 (start + count - 1)"
            return first, f"at most {max_accesses:,} accesses in the whole file (max_accesses)"
        total = int(running[-1]) if running.size else total
        return None

    return check


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 1:
        raise ValueError(f"lis: {name} must be a positive integer, got {value!r}")
    return int(value)


def read(
    path: str | os.PathLike[str],
    *,
    block_bytes: int = 512,
    chunk_bytes: int = CHUNK_BYTES,
    max_run: int = MAX_RUN,
    max_accesses: int = MAX_ACCESSES,
) -> Trace:
    """Read an ARC ``.lis`` trace; see the module docstring.

    Parameters
    ----------
    path : str or os.PathLike
        The file, plain or compressed (recognised by content).
    block_bytes : int, optional
        Size of one block in bytes (512 for the ARC traces), recorded in ``source``.
    chunk_bytes : int, optional
        Decompressed bytes parsed per chunk (16 MiB).
    max_run : int, optional
        Largest block count of one line (`MAX_RUN`); a larger one is refused.
    max_accesses : int, optional
        Largest number of accesses after expansion (`MAX_ACCESSES`); more are refused.

    Returns
    -------
    Trace
        One read access per block; ``original_id`` holds block numbers; no size or time.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    ValueError
        If an option is not a positive integer.
    TraceFormatError
        At the first line that is not 2 to 4 unsigned integers (blank lines are skipped), or
        whose extent breaks a range check of the module docstring.
    """
    for name, value in (("block_bytes", block_bytes), ("chunk_bytes", chunk_bytes), ("max_run", max_run)):
        _positive_int(name, value)
    _positive_int("max_accesses", max_accesses)
    check = _extent_check(max_run, max_accesses)
    parts = [_expand(rows) for rows in iter_int_rows(path, 2, 4, EXPECTED, chunk_bytes, check)]
    ids = np.concatenate(parts) if parts else np.empty(0, dtype=np.uint64)
    source = base_source(path, NAME, {"block_bytes": block_bytes})
    source["block_bytes"] = block_bytes
    return Trace.from_ids(ids.view(np.int64), source=source)


def sniff(head: bytes, size: int | None = None) -> bool:
    """True if the first lines of `head` each hold four unsigned integers."""
    lines = head.split(b"\n")
    lines = [ln.split() for ln in (lines[:-1] if len(lines) > 1 else lines)[:64]]
    lines = [f for f in lines if f]
    return bool(lines) and all(len(f) == 4 and all(x.isdigit() for x in f) for f in lines)
