"""Helpers shared by the line-oriented readers."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .._lines import parse_int_lines
from .._stream import CHUNK_BYTES, compression_of, iter_line_chunks
from ..errors import TraceFormatError

__all__ = ["RowCheck", "base_source", "found_text", "iter_int_rows", "row_line"]

#: A check of one chunk's rows: ``check(rows)`` returns None, or ``(k, expected)`` for the first
#: bad row ``k`` (0-based among the chunk's accepted rows) and what that row should hold.
RowCheck = Callable[[np.ndarray], "tuple[int, str] | None"]


def found_text(buf: np.ndarray, start: int, end: int) -> str:
    """The bytes ``buf[start:end]`` as text, stripped, for an error message."""
    return bytes(buf[start:end]).decode("utf-8", errors="replace").strip()


def base_source(path: str | os.PathLike[str], fmt: str, options: dict[str, Any]) -> dict[str, Any]:
    """The common part of `Trace.source` for a trace read from `path`."""
    return {
        "path": os.fspath(path),
        "format": fmt,
        "options": dict(options),
        "compression": compression_of(path),
    }


_CODES = {1: None, 2: "too few fields", 3: "too many fields", 4: "an integer above 2**64 - 1"}


def iter_int_rows(
    path: str | os.PathLike[str],
    min_fields: int,
    max_fields: int,
    expected: str,
    chunk_bytes: int = CHUNK_BYTES,
    check: RowCheck | None = None,
) -> Iterator[np.ndarray]:
    """Rows of integers of a whitespace-separated text file, one uint64 array per chunk.

    `check`, when given, sees each chunk's rows before they are yielded (see `RowCheck`), so a
    reader can refuse a value out of its range with the line that holds it.

    Yields
    ------
    numpy.ndarray of uint64, shape (n_rows, max_fields)
        Fields of the accepted lines of one chunk (blank and ``*`` lines skipped); for lines with
        fewer than `max_fields` fields the missing ones are 0.

    Raises
    ------
    TraceFormatError
        At the first malformed line, with its 1-based number and text; `expected` says what a line
        should hold.
    """
    line_base = 0
    for buf in iter_line_chunks(path, chunk_bytes):
        cap = int(np.count_nonzero(buf == 10)) + 1
        out = np.zeros((cap, max_fields), dtype=np.uint64)
        n_rows, n_lines, err_start, err_end, code = parse_int_lines(buf, min_fields, max_fields, out)
        if code != 0:
            raise TraceFormatError(
                path, line_base + n_lines + 1, found_text(buf, err_start, err_end), expected
            )
        rows = out[:n_rows]
        bad = check(rows) if check is not None else None
        if bad is not None:
            line_no, text = row_line(buf, bad[0])
            raise TraceFormatError(path, line_base + line_no, text, bad[1])
        line_base += n_lines
        yield rows


def row_line(buf: np.ndarray, k: int) -> tuple[int, str]:
    """(1-based line number within `buf`, stripped text) of the `k`-th accepted row (0-based).

    Accepted rows are the lines `iter_int_rows` keeps: not blank and not a lone ``*``. Slow (a
    Python walk of the chunk); used only to report an error.
    """
    seen = -1
    for i, line in enumerate(bytes(buf).split(b"\n")):
        fields = line.split()
        if fields and fields != [b"*"]:
            seen += 1
            if seen == k:
                return i + 1, line.decode("utf-8", errors="replace").strip()
    raise ValueError(f"row_line: no row {k} in this chunk")  # pragma: no cover - caller's bug
