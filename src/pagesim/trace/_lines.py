"""Compiled parsers of text lines held in uint8 buffers.

Each kernel walks a chunk of bytes once and writes numbers straight into preallocated arrays, so a
line costs a few nanoseconds and no Python object. A kernel stops at the first malformed line and
returns where it is; the Python caller turns that into a `TraceFormatError` with the line number.

Whitespace is space, tab, ``\\r`` (so CRLF files work), vertical tab and form feed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._jit import JIT

__all__ = ["parse_int_lines", "fnv1a"]

_U10 = np.uint64(10)
#: Largest value that can be multiplied by 10 without overflowing uint64.
_U64_DIV10 = np.uint64(1844674407370955161)
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@njit(**JIT)
def _is_space(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(**JIT)
def _line_end(buf, i):
    """Index of the ``\\n`` ending the line that holds ``buf[i]`` (or ``buf.size``)."""
    n = buf.size
    while i < n and buf[i] != 10:
        i += 1
    return i


@njit(**JIT)
def parse_int_lines(buf, min_fields, max_fields, out):
    """Parse lines of whitespace-separated unsigned decimal integers.

    Parameters
    ----------
    buf : numpy.ndarray of uint8, shape (n_bytes,)
        Whole lines; the last one may lack its ``\\n``.
    min_fields, max_fields : int
        A line must hold between these many integers (inclusive). Blank lines and lines holding
        only ``*`` (markers of the LIRS simulator) are skipped.
    out : numpy.ndarray of uint64, shape (>= n_lines, max_fields)
        Receives the fields of each accepted line, row by row; fields beyond a line's count are
        left as they were.

    Returns
    -------
    n_rows : int
        Accepted lines written to `out`.
    n_lines : int
        Lines consumed (including skipped ones); on error, the 0-based index of the bad line.
    err_start, err_end : int
        Byte span of the malformed line, or -1, -1.
    err_code : int
        0 ok; 1 not an integer; 2 too few fields; 3 too many fields; 4 integer above 2**64 - 1.

    Notes
    -----
    Values are accumulated in uint64; the caller reinterprets them as int64 bit for bit.
    """
    n = buf.size
    i = 0
    row = 0
    line = 0
    while i < n:
        start = i
        nf = 0
        code = 0
        marker = False
        while True:
            while i < n and _is_space(buf[i]):
                i += 1
            if i >= n or buf[i] == 10:
                break
            c = buf[i]
            if c == 42 and nf == 0 and not marker:  # '*'
                marker = True
                i += 1
                continue
            if marker or c < 48 or c > 57:
                code = 1
                break
            v = np.uint64(0)
            while i < n and 48 <= buf[i] <= 57:
                d = np.uint64(buf[i]) - np.uint64(48)
                if v > _U64_DIV10 or (v == _U64_DIV10 and d > np.uint64(5)):
                    code = 4
                    break
                v = v * _U10 + d
                i += 1
            if code != 0:
                break
            if i < n and buf[i] != 10 and not _is_space(buf[i]):
                code = 1
                break
            if nf >= max_fields:
                code = 3
                break
            out[row, nf] = v
            nf += 1
        if code == 0 and nf > 0 and nf < min_fields:
            code = 2
        if code != 0:
            return row, line, start, _line_end(buf, start), code
        if nf > 0:
            row += 1
        line += 1
        i += 1  # past '\n'
    return row, line, -1, -1, 0


@njit(**JIT)
def fnv1a(buf, start, end):
    """64-bit FNV-1a hash of ``buf[start:end]``, as uint64 (used for non-numeric ids)."""
    h = _FNV_OFFSET
    for k in range(start, end):
        h = (h ^ np.uint64(buf[k])) * _FNV_PRIME
    return h
