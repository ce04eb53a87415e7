"""ARC traces (``.lis``): each line ``start count ignored request_no`` is a request for ``count``
consecutive blocks from ``start``, expanded here into ``count`` accesses in order.

The format of the traces of Megiddo and Modha (FAST 2003), as read by Caffeine's ``ArcTraceReader``.
The last two fields are optional here (two to four fields per line); a count of 0 gives no access.
Blocks are 512 bytes in the original traces; ``source["block_bytes"]`` records that. Plain or
compressed (gzip, xz, zstd, bzip2).
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

from .._jit import JIT
from .._stream import CHUNK_BYTES
from ..trace import Trace
from ._common import base_source, iter_int_rows

NAME = "lis"
DESCRIPTION = "ARC traces: 'start count ignored request_no' per line, expanded to count blocks; gz/xz/zst"
EXTENSIONS = (".lis",)
EXPECTED = "'start count [ignored [request_no]]' (2 to 4 unsigned integers)"


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


def read(path: str | os.PathLike[str], *, block_bytes: int = 512, chunk_bytes: int = CHUNK_BYTES) -> Trace:
    """Read an ARC ``.lis`` trace; see the module docstring.

    Parameters
    ----------
    path : str or os.PathLike
        The file, plain or compressed (recognised by content).
    block_bytes : int, optional
        Size of one block in bytes (512 for the ARC traces), recorded in ``source``.
    chunk_bytes : int, optional
        Decompressed bytes parsed per chunk (16 MiB).

    Returns
    -------
    Trace
        One read access per block; ``original_id`` holds block numbers; no size or time.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    TraceFormatError
        At the first line that is not 2 to 4 unsigned integers (blank lines are skipped).
    """
    parts = [_expand(rows) for rows in iter_int_rows(path, 2, 4, EXPECTED, chunk_bytes)]
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
