"""Plain text traces: one decimal id per line (LIRS, LIRS2 and libCacheSim ``txt`` traces).

Blank lines and lines holding only ``*`` (a marker of the original LIRS simulator, not an access) are
skipped; whitespace around the id and CRLF line ends are allowed. Plain, gzip, xz, zstd or bzip2.
"""

from __future__ import annotations

import os

import numpy as np

from .._stream import CHUNK_BYTES
from ..trace import Trace
from ._common import base_source, iter_int_rows

NAME = "text"
DESCRIPTION = "one decimal id per line; blank and '*' lines skipped (LIRS, libCacheSim txt); gz/xz/zst/bz2"
EXTENSIONS = (".txt", ".trace")
EXPECTED = "an integer page id"


def read_ids(path: str | os.PathLike[str], chunk_bytes: int = CHUNK_BYTES) -> np.ndarray:
    """The ids of a text trace, in order.

    Returns
    -------
    numpy.ndarray of int64, shape (n_requests,)
        Ids as written (values above 2**63 - 1 reinterpreted from uint64 bit for bit).

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    TraceFormatError
        At the first line that is not blank, ``*`` or one unsigned decimal integer.
    """
    parts = [rows[:, 0].copy() for rows in iter_int_rows(path, 1, 1, EXPECTED, chunk_bytes)]
    ids = np.concatenate(parts) if parts else np.empty(0, dtype=np.uint64)
    return ids.view(np.int64)


def read(path: str | os.PathLike[str], *, chunk_bytes: int = CHUNK_BYTES) -> Trace:
    """Read a text trace; see the module docstring.

    Parameters
    ----------
    path : str or os.PathLike
        The file, plain or compressed (recognised by content).
    chunk_bytes : int, optional
        Decompressed bytes parsed per chunk (16 MiB).

    Returns
    -------
    Trace
        Every access a read of a file page; no size or time.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    TraceFormatError
        At the first malformed line, e.g. ``trace.txt:17: expected an integer page id, found 'abc'``.
    """
    ids = read_ids(path, chunk_bytes)
    return Trace.from_ids(ids, source=base_source(path, NAME, {}))


def sniff(head: bytes, size: int | None = None) -> bool:
    """True if the first lines of `head` are all blank, ``*`` or a single unsigned integer."""
    lines = _complete_lines(head)
    fields = [ln.split() for ln in lines]
    fields = [f for f in fields if f and f != [b"*"]]
    return bool(fields) and all(len(f) == 1 and f[0].isdigit() for f in fields)


def _complete_lines(head: bytes, limit: int = 64) -> list[bytes]:
    lines = head.split(b"\n")
    if len(lines) > 1:
        lines = lines[:-1]  # the last one may be cut
    return lines[:limit]
