"""Delimited text traces (libCacheSim's ``csv`` reader and similar): one request per line.

Columns are chosen by 1-based index (as libCacheSim's ``obj-id-col`` and friends) or by header
name; with a header, columns not given are looked up among common names (``obj_id``, ``id``,
``key``, ``lbn``, ``lba``...; ``size``, ``obj_size``, ``len``...; ``time``, ``timestamp``,
``ts``...; ``op``, ``operation``, ``cmd``...). libCacheSim's ``cloudPhysicsIO.csv`` sample reads
with the defaults: header ``version,time,op,size,lbn`` -> id ``lbn``, size, time, op.

Fields may be double-quoted (``""`` inside quotes stands for a quote; quoted fields cannot span
lines; only whitespace may follow the closing quote); whitespace around fields and CRLF line ends
are allowed; blank lines are skipped. A UTF-8 byte-order mark is skipped; a header line may start
with ``#`` (``# timestamp, op, id, size``).

Range checks: ids are unsigned 64-bit integers (up to 2**64 - 1, kept bit for bit); sizes and times
must fit int64 (up to 2**63 - 1); anything else, and every malformed line, is a `TraceFormatError`
naming the file and line.

Ids: decimal or ``0x`` hexadecimal unsigned integers (libCacheSim's ``strtoull(.., 0)`` also reads
a leading 0 as octal; we read decimal), or, with ``id_type="str"``, any text, hashed with 64-bit
FNV-1a [1]_ to an int64 stored in ``original_id`` (the strings themselves are not kept; two
distinct strings collide with probability about n_distinct**2 / 2**65). The string path is as
fast as the numeric one: both are compiled. Sizes are unsigned integers (bytes); times unsigned
decimals, truncated to integers as libCacheSim's ``atof`` does. Ops are mapped by name (case
insensitive): see `DEFAULT_OPS`; others need ``op_map``.

References
----------
.. [1] G. Fowler, L. C. Noll, K.-P. Vo, D. Eastlake, "The FNV Non-Cryptographic Hash Algorithm",
   IETF draft-eastlake-fnv, 2019.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numba import njit

from .._jit import JIT
from .._lines import fnv1a
from .._stream import CHUNK_BYTES, iter_line_chunks
from ..errors import TraceFormatError
from ..trace import OP_FREE, OP_READ, OP_WRITE, Trace
from ._common import base_source, found_text

NAME = "csv"
DESCRIPTION = "delimited text, one request per line; id/size/time/op columns by 1-based index or header name"
EXTENSIONS = (".csv", ".tsv")

#: Op names (lower case) understood without ``op_map``; SCSI opcodes in hex as in CloudPhysics.
DEFAULT_OPS: dict[str, int] = {
    **dict.fromkeys(
        ["r", "read", "rd", "get", "gets", "load", "28", "0x28", "08", "0x08", "88", "0x88", "a8", "0xa8"],
        OP_READ,
    ),
    **dict.fromkeys(
        [
            "w",
            "write",
            "wr",
            "set",
            "add",
            "replace",
            "cas",
            "append",
            "prepend",
            "incr",
            "decr",
            "put",
            "update",
            "store",
            "2a",
            "0x2a",
            "0a",
            "0x0a",
            "8a",
            "0x8a",
            "aa",
            "0xaa",
        ],
        OP_WRITE,
    ),
    **dict.fromkeys(
        ["d", "del", "delete", "remove", "free", "trim", "discard", "unmap", "invalidate"], OP_FREE
    ),
}
_OP_NAMES = {"read": OP_READ, "write": OP_WRITE, "free": OP_FREE}

_HEADER_NAMES = {
    "id": ("obj_id", "id", "key", "lbn", "lba", "block", "page", "object", "obj", "objid", "address", "addr"),
    "size": ("obj_size", "size", "len", "length", "bytes", "object_size"),
    "time": ("time", "timestamp", "ts", "clock_time", "real_time"),
    "op": ("op", "operation", "cmd", "type", "rw", "request_type"),
}
_ROLES = ("id", "size", "time", "op")
#: Largest column index accepted for ``id_col`` and friends.
_MAX_COLUMN = 1 << 20
_EXPECTED = {
    1: "an integer object id in column {col} (pass id_type='str' for text ids)",
    2: "an integer size in bytes, 0 to 2**63 - 1, in column {col}",
    3: "a non-negative number (time) below 2**63 in column {col}",
    5: "at least {col} fields",
    6: "quoted fields that end with their closing quote (then the delimiter)",
}


#: Largest size or time (int64 columns); larger values are refused, never wrapped to negative.
_I64_MAX = np.uint64(0x7FFFFFFFFFFFFFFF)


@njit(**JIT)
def _is_space(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(**JIT)
def _parse_uint(buf, s, e, allow_fraction):
    """(value, ok) for decimal or 0x-hex digits in ``buf[s:e]``; a '.fraction' is dropped if allowed."""
    v = np.uint64(0)
    if s >= e:
        return v, False
    if e - s > 2 and buf[s] == 48 and (buf[s + 1] == 120 or buf[s + 1] == 88):  # 0x
        for k in range(s + 2, e):
            c = buf[k]
            if 48 <= c <= 57:
                d = c - 48
            elif 97 <= c <= 102:
                d = c - 87
            elif 65 <= c <= 70:
                d = c - 55
            else:
                return v, False
            if v >> np.uint64(60):
                return v, False
            v = (v << np.uint64(4)) | np.uint64(d)
        return v, True
    k = s
    while k < e and 48 <= buf[k] <= 57:
        d = np.uint64(buf[k]) - np.uint64(48)
        if v > np.uint64(1844674407370955161) or (v == np.uint64(1844674407370955161) and d > np.uint64(5)):
            return v, False
        v = v * np.uint64(10) + d
        k += 1
    if k == s:
        return v, False
    if k < e and allow_fraction and buf[k] == 46:  # '.'
        k += 1
        while k < e and 48 <= buf[k] <= 57:
            k += 1
    return v, k == e


@njit(**JIT)
def _parse_csv(buf, delim, quote, cols, id_is_text, ids, sizes, times, op_hash, op_start, op_end):
    """Parse delimited lines into columns.

    Parameters
    ----------
    buf : numpy.ndarray of uint8, shape (n_bytes,)
        Whole lines (the last may lack its ``\\n``), header already removed.
    delim, quote : int
        Delimiter and quote bytes.
    cols : numpy.ndarray of int64, shape (4,)
        0-based column of id, size, time, op; -1 when absent (id is always present).
    id_is_text : bool
        Hash the id field (FNV-1a) instead of parsing an integer.
    ids, sizes, times, op_hash, op_start, op_end : numpy.ndarray, shape (>= n_lines,)
        Outputs: ids and op hashes uint64; sizes, times, op byte spans int64.

    Returns
    -------
    n_rows, n_lines, err_start, err_end, err_code : int
        As `pagesim.trace._lines.parse_int_lines`; codes 1 bad id, 2 bad size, 3 bad time,
        5 too few fields, 6 a quoted field not closed, or followed by more than whitespace.
    """
    n = buf.size
    max_col = max(max(cols[0], cols[1]), max(cols[2], cols[3]))
    i = 0
    row = 0
    line = 0
    while i < n:
        start = i
        j = i
        while j < n and _is_space(buf[j]):
            j += 1
        if j >= n or buf[j] == 10:  # blank line
            i = j + 1
            line += 1
            continue
        f = 0
        code = 0
        while True:
            while i < n and buf[i] != delim and _is_space(buf[i]):
                i += 1
            if i < n and buf[i] == quote:
                i += 1
                fs = i
                closed = False
                while i < n and buf[i] != 10:
                    if buf[i] == quote:
                        if i + 1 < n and buf[i + 1] == quote:
                            i += 2
                            continue
                        closed = True
                        break
                    i += 1
                fe = i
                if not closed:
                    code = 6
                    break
                i += 1  # past the closing quote: only whitespace may come before the delimiter
                while i < n and buf[i] != delim and buf[i] != 10 and _is_space(buf[i]):
                    i += 1
                if i < n and buf[i] != delim and buf[i] != 10:
                    code = 6
                    break
            else:
                fs = i
                while i < n and buf[i] != delim and buf[i] != 10:
                    i += 1
                fe = i
                while fe > fs and _is_space(buf[fe - 1]):
                    fe -= 1
            if f == cols[0]:
                if id_is_text:
                    ids[row] = fnv1a(buf, fs, fe)
                else:
                    v, ok = _parse_uint(buf, fs, fe, False)
                    if not ok:
                        code = 1
                        break
                    ids[row] = v
            if f == cols[1]:
                v, ok = _parse_uint(buf, fs, fe, False)
                if not ok or v > _I64_MAX:
                    code = 2
                    break
                sizes[row] = np.int64(v)
            if f == cols[2]:
                v, ok = _parse_uint(buf, fs, fe, True)
                if not ok or v > _I64_MAX:
                    code = 3
                    break
                times[row] = np.int64(v)
            if f == cols[3]:
                h = np.uint64(0xCBF29CE484222325)
                for k in range(fs, fe):
                    c = buf[k]
                    if 65 <= c <= 90:
                        c += 32
                    h = (h ^ np.uint64(c)) * np.uint64(0x100000001B3)
                op_hash[row] = h
                op_start[row] = fs
                op_end[row] = fe
            f += 1
            if i < n and buf[i] == delim:
                i += 1
                continue
            break
        if code == 0 and f <= max_col:
            code = 5
        if code != 0:
            e = start
            while e < n and buf[e] != 10:
                e += 1
            return row, line, start, e, code
        row += 1
        line += 1
        i += 1
    return row, line, -1, -1, 0


def op_table(op_map: Any) -> dict[str, int]:
    """`DEFAULT_OPS` with the names of `op_map` added or overridden.

    Parameters
    ----------
    op_map : dict of str to {"read", "write", "free"} or int 0..2, or str, or None
        A str is ``"name:op,name:op"`` (``"del:free,put:write"``).

    Returns
    -------
    dict of str to int
        Lower-case op name -> OP_READ, OP_WRITE or OP_FREE.

    Raises
    ------
    ValueError
        If `op_map` is not of that shape; the message shows the expected form.
    """
    form = "op_map as name:op pairs, e.g. del:free,put:write (ops: read, write, free)"
    if isinstance(op_map, str):
        pairs = [p.strip() for p in op_map.split(",") if p.strip()]
        if not pairs or any(p.count(":") != 1 for p in pairs):
            raise ValueError(f"csv: cannot read op_map {op_map!r}: give {form}")
        op_map = dict(p.split(":") for p in pairs)
    if op_map is None:
        op_map = {}
    if not isinstance(op_map, dict):
        raise ValueError(f"csv: op_map must be a mapping or text, got {type(op_map).__name__}: give {form}")
    ops = dict(DEFAULT_OPS)
    for name, code in op_map.items():
        key = str(name).strip().lower()
        if isinstance(code, str) and code.strip().lower() in _OP_NAMES:
            ops[key] = _OP_NAMES[code.strip().lower()]
        elif isinstance(code, (int, np.integer)) and not isinstance(code, bool) and 0 <= int(code) <= OP_FREE:
            ops[key] = int(code)
        else:
            raise ValueError(f"csv: op_map maps {name!r} to {code!r}; ops are read, write, free (or 0, 1, 2)")
        if not key:
            raise ValueError(f"csv: op_map has an empty op name: give {form}")
    return ops


def _split_line(line: str, delim: str) -> list[str]:
    return [f.strip().strip('"').strip() for f in line.split(delim)]


def _header_fields(line: str, delim: str) -> list[str]:
    """Fields of a header line; a leading ``#`` (a commented header, ``# time, op, id``) is dropped."""
    return _split_line(line.strip().removeprefix("#"), delim)


def _is_number(text: str) -> bool:
    t = text.strip()
    if t.lower().startswith("0x"):
        try:
            int(t, 16)
            return True
        except ValueError:
            return False
    try:
        float(t)
        return True
    except ValueError:
        return False


def _detect_delimiter(line: str) -> str:
    """The most frequent of ``, TAB | ; :`` in `line` (ties: that order); a space only if none occurs.

    Spaces around another delimiter (``1, r, 5``) are padding, not the delimiter; a leading
    ``#`` of a commented header and the whitespace after it are ignored.
    """
    line = line.strip().removeprefix("#").strip()
    counts = {d: line.count(d) for d in (",", "\t", "|", ";", ":")}
    best = max(counts, key=lambda d: counts[d])  # ties: first in the order above
    if counts[best]:
        return best
    return " " if line.count(" ") else ","


def _resolve_col(role: str, spec: int | str | None, header: list[str] | None, path: Any) -> int:
    """0-based column index for `role`, or -1 when absent."""
    if spec is None:
        if header is None:
            return -1
        lower = [h.lower() for h in header]
        for name in _HEADER_NAMES[role]:
            if name in lower:
                return lower.index(name)
        return -1
    if isinstance(spec, bool) or not isinstance(spec, (int, str)):
        raise ValueError(f"csv: {role}_col must be a 1-based int or a header name, got {spec!r}")
    if isinstance(spec, int):
        if spec < 1 or spec > _MAX_COLUMN:
            raise ValueError(f"csv: {role}_col is a 1-based column index up to {_MAX_COLUMN:,}, got {spec}")
        return spec - 1
    if header is None:
        raise ValueError(f"csv: {role}_col={spec!r} names a column but {os.fspath(path)} has no header")
    lower = [h.lower() for h in header]
    if spec.lower() not in lower:
        raise ValueError(f"csv: no column named {spec!r} in the header of {os.fspath(path)}: {header}")
    return lower.index(spec.lower())


def read(
    path: str | os.PathLike[str],
    *,
    id_col: int | str | None = None,
    size_col: int | str | None = None,
    time_col: int | str | None = None,
    op_col: int | str | None = None,
    delimiter: str | None = None,
    has_header: bool | None = None,
    id_type: str = "auto",
    op_map: dict[str, str | int] | None = None,
    chunk_bytes: int = CHUNK_BYTES,
) -> Trace:
    """Read a delimited text trace; see the module docstring.

    Parameters
    ----------
    path : str or os.PathLike
        The file, plain or compressed (recognised by content).
    id_col, size_col, time_col, op_col : int or str or None
        Column of the object id, size (bytes), time and op: 1-based index or header name. None:
        looked up by common header names; without a header, `id_col` defaults to 1 only for
        single-column files, and the others are absent.
    delimiter : str or None
        One character; None detects it from the first line (most frequent of ``, TAB | ; : space``).
    has_header : bool or None
        None detects it: the first line is a header when none of its fields is a number and the
        second line has at least one that is.
    id_type : {"auto", "int", "str"}
        ``"int"`` parses ids as integers; ``"str"`` hashes the id text (FNV-1a 64); ``"auto"`` picks
        ``"int"`` when the first row's id is an integer.
    op_map : dict of str to {"read", "write", "free"} or int, or str, optional
        Extra or overriding op names (case insensitive) on top of `DEFAULT_OPS`; as text (the
        command line's ``--reader op_map=del:free,put:write``): ``name:op`` pairs separated by
        commas. See `op_table`.
    chunk_bytes : int, optional
        Decompressed bytes parsed per chunk (16 MiB).

    Returns
    -------
    Trace
        ``size``/``time`` present iff their column is; ``op`` from the op column (all reads
        otherwise); ``source["options"]`` holds the resolved 1-based columns, delimiter, header
        flag and id type.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    ValueError
        For inconsistent or ill-typed options (unknown column name, no id column, an op_map
        that is not a mapping of names to read/write/free).
    TraceFormatError
        At the first malformed line (non-integer id, size or time, too few fields, unknown op).
    """
    if id_type not in ("auto", "int", "str"):
        raise ValueError(f"csv: id_type must be 'auto', 'int' or 'str', got {id_type!r}")
    if delimiter is not None and (
        not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '\n"'
    ):
        raise ValueError(f"csv: delimiter must be one character but newline and '\"', got {delimiter!r}")
    if has_header is not None and not isinstance(has_header, bool):
        raise ValueError(f"csv: has_header must be true or false, got {has_header!r}")
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise ValueError(f"csv: chunk_bytes must be a positive integer, got {chunk_bytes!r}")
    ops = op_table(op_map)

    chunks = iter_line_chunks(path, chunk_bytes)
    first = next(chunks, None)
    empty_options = {"id_col": id_col, "size_col": size_col, "time_col": time_col, "op_col": op_col}
    source = base_source(path, NAME, {})
    if first is None:
        source["options"] = {k: v for k, v in empty_options.items()}
        e = np.empty(0, dtype=np.int64)
        return Trace.from_ids(e, source=source)

    head_text = bytes(first[: 1 << 16]).decode("utf-8", errors="replace").replace("\r", "")
    head_lines = [ln for ln in head_text.split("\n") if ln.strip()]
    delim = delimiter if delimiter is not None else _detect_delimiter(head_lines[0] if head_lines else "")
    if has_header is None:
        f0 = _header_fields(head_lines[0], delim) if head_lines else []
        f1 = _split_line(head_lines[1], delim) if len(head_lines) > 1 else []
        has_header = (
            bool(f0) and not any(_is_number(x) for x in f0) and (not f1 or any(_is_number(x) for x in f1))
        )
    header = None
    line_base = 0
    if has_header:
        nl = int(np.argmax(first == 10)) if np.any(first == 10) else first.size
        header = _header_fields(bytes(first[:nl]).decode("utf-8", errors="replace").replace("\r", ""), delim)
        first = first[nl + 1 :]
        line_base = 1
    cols = np.array(
        [_resolve_col(r, s, header, path) for r, s in zip(_ROLES, (id_col, size_col, time_col, op_col))],
        dtype=np.int64,
    )
    if cols[0] < 0:
        n_fields = len(_split_line(head_lines[line_base], delim)) if len(head_lines) > line_base else 1
        if id_col is None and n_fields == 1:
            cols[0] = 0
        else:
            raise ValueError(
                f"csv: cannot tell which column of {os.fspath(path)} holds the object id; pass id_col "
                f"(1-based index{' or header name' if header else ''})"
                f"{f'; header: {header}' if header else ''}"
            )
    if id_type == "auto":
        id_type = "int"
        if len(head_lines) > line_base:
            fields = _split_line(head_lines[line_base], delim)
            if cols[0] < len(fields) and not _is_int(fields[cols[0]]):
                id_type = "str"
    id_is_text = id_type == "str"

    def one_based(c: int) -> int | None:
        return int(c) + 1 if c >= 0 else None

    source["options"] = {
        "id_col": one_based(cols[0]),
        "size_col": one_based(cols[1]),
        "time_col": one_based(cols[2]),
        "op_col": one_based(cols[3]),
        "delimiter": delim,
        "has_header": bool(has_header),
        "id_type": id_type,
    }
    if header is not None:
        source["header"] = header
    if id_is_text:
        source["id_hash"] = "fnv1a64"
    if op_map:
        source["options"]["op_map"] = {k: v for k, v in ops.items() if DEFAULT_OPS.get(k) != v}

    id_parts, size_parts, time_parts, op_parts = [], [], [], []
    op_codes: dict[int, int] = {}
    delim_b, quote_b = ord(delim), ord('"')

    def chunk_iter():
        yield first
        yield from chunks

    for buf in chunk_iter():
        cap = int(np.count_nonzero(buf == 10)) + 1
        ids = np.empty(cap, dtype=np.uint64)
        sizes = np.empty(cap, dtype=np.int64)
        times = np.empty(cap, dtype=np.int64)
        op_hash = np.empty(cap, dtype=np.uint64)
        op_start = np.empty(cap, dtype=np.int64)
        op_end = np.empty(cap, dtype=np.int64)
        with np.errstate(over="ignore"):  # FNV hashing wraps uint64 (matters only without the JIT)
            n_rows, n_lines, err_start, err_end, code = _parse_csv(
                buf, delim_b, quote_b, cols, id_is_text, ids, sizes, times, op_hash, op_start, op_end
            )
        if code != 0:
            col = int(cols[code - 1]) + 1 if code <= 3 else int(max(cols)) + 1
            raise TraceFormatError(
                path,
                line_base + n_lines + 1,
                found_text(buf, err_start, err_end),
                _EXPECTED[code].format(col=col),
            )
        id_parts.append(ids[:n_rows])
        if cols[1] >= 0:
            size_parts.append(sizes[:n_rows])
        if cols[2] >= 0:
            time_parts.append(times[:n_rows])
        if cols[3] >= 0:
            op_parts.append(_map_ops(path, buf, line_base, op_hash[:n_rows], op_start, op_end, ops, op_codes))
        line_base += n_lines

    ids_all = np.concatenate(id_parts).view(np.int64)
    size = np.concatenate(size_parts) if size_parts else None
    time = np.concatenate(time_parts) if time_parts else None
    op = np.concatenate(op_parts) if op_parts else None
    return Trace.from_ids(ids_all, size=size, time=time, op=op, source=source)


def _is_int(text: str) -> bool:
    t = text.strip()
    if t.lower().startswith("0x"):
        return _is_number(t)
    return t.isdigit()


def _map_ops(
    path: Any,
    buf: np.ndarray,
    line_base: int,
    op_hash: np.ndarray,
    op_start: np.ndarray,
    op_end: np.ndarray,
    ops: dict[str, int],
    op_codes: dict[int, int],
) -> np.ndarray:
    """Op codes for one chunk: look up each distinct op text once (by its first row)."""
    if op_hash.size == 0:
        return np.empty(0, dtype=np.uint8)
    uniq, first_row, inverse = np.unique(op_hash, return_index=True, return_inverse=True)
    codes = np.empty(uniq.size, dtype=np.uint8)
    for k, (h, r) in enumerate(zip(uniq.tolist(), first_row.tolist())):
        if h not in op_codes:
            text = bytes(buf[op_start[r] : op_end[r]]).decode("utf-8", errors="replace").strip().lower()
            if text not in ops:
                line_no = line_base + int(np.count_nonzero(buf[: op_start[r]] == 10)) + 1
                known = ", ".join(sorted({k for k in ops if not k.startswith("0x")})[:12])
                raise TraceFormatError(
                    path, line_no, text, f"an op such as {known}... (pass op_map to name others)"
                )
            op_codes[h] = ops[text]
        codes[k] = op_codes[h]
    return codes[inverse]


def sniff(head: bytes, size: int | None = None) -> bool:
    """True if the first lines of `head` have the same number (> 1) of ``,``, TAB or ``|`` fields."""
    lines = [ln for ln in head.replace(b"\r", b"").split(b"\n")[:-1][:64] if ln.strip()]
    if len(lines) < 1:
        return False
    for d in (b",", b"\t", b"|", b";"):
        counts = {ln.count(d) for ln in lines}
        if len(counts) == 1 and counts.pop() > 0:
            return True
    return False
