"""pagesim's own lossless trace format (``.pgt``).

A ``.pgt`` file is a zip archive (always zip64-capable) holding:

- ``meta.json``: ``{"format": "pagesim-trace", "version": 1, "n_requests", "n_pages",
  "columns": {name: dtype or null}, "compression": "none" | "zstd", "source": {...}}``;
- one ``<name>.npy`` member per present column (``page``, ``kind``, ``op``, ``cgroup``, ``tag``,
  ``size``, ``time``) and ``original_id.npy``, in numpy's ``.npy`` format; with zstd compression
  each member is ``<name>.npy.zst``, the ``.npy`` bytes compressed as one zstd frame that carries
  its content checksum (files written without one are still read).

Members are stored, not deflated (zstd does the compressing when asked). Reading restores every
column with its dtype and None for absent optional columns; the written ``source`` comes back as
``source["converted_from"]`` under a source that names the ``.pgt`` file and format ``"pagesim"``
(see `read`). Unknown newer versions are refused; truncated or corrupt files raise
`CompressedDataError` (a `TraceFormatError`).
"""

from __future__ import annotations

import io
import json
import os
import struct
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import zstandard

from .._stream import DECOMPRESSION_ERRORS, ZstdStream
from ..errors import CompressedDataError, TraceFormatError
from ..trace import Trace

NAME = "pagesim"
DESCRIPTION = "pagesim native lossless format (.pgt): zip of .npy columns + meta.json, optional zstd"
EXTENSIONS = (".pgt",)
FORMAT_TAG = "pagesim-trace"
VERSION = 1
_COLUMNS = ("page", "kind", "op", "cgroup", "tag", "size", "time")


def write(trace: Trace, path: str | os.PathLike[str], *, compress: bool = True, level: int = 3) -> None:
    """Write `trace` losslessly to `path`.

    Parameters
    ----------
    trace : Trace
        The trace.
    path : str or os.PathLike
        Output file (``.pgt`` by convention); overwritten.
    compress : bool, optional
        zstd-compress each array (default True).
    level : int, optional
        zstd level (3).
    """
    cols = trace.columns()
    meta: dict[str, Any] = {
        "format": FORMAT_TAG,
        "version": VERSION,
        "n_requests": trace.n_requests,
        "n_pages": trace.n_pages,
        "columns": {name: (None if arr is None else arr.dtype.str) for name, arr in cols.items()},
        "compression": "zstd" if compress else "none",
        "source": trace.source,
    }
    suffix = ".npy.zst" if compress else ".npy"
    cctx = zstandard.ZstdCompressor(level=level, write_checksum=True) if compress else None
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        zf.writestr("meta.json", json.dumps(meta, indent=1, sort_keys=True, allow_nan=False))
        for name, arr in [*cols.items(), ("original_id", trace.original_id)]:
            if arr is None:
                continue
            with zf.open(name + suffix, "w", force_zip64=True) as member:
                if cctx is not None:
                    with cctx.stream_writer(member, closefd=False) as zw:
                        np.lib.format.write_array(zw, arr, allow_pickle=False)
                else:
                    np.lib.format.write_array(member, arr, allow_pickle=False)


def write_columns(
    path: str | os.PathLike[str],
    n_requests: int,
    original_id: np.ndarray,
    columns: Mapping[str, Iterable[np.ndarray]],
    *,
    source: dict[str, Any] | None = None,
    compress: bool = True,
    level: int = 3,
) -> None:
    """Write a ``.pgt`` file from columns given in chunks, for traces larger than memory.

    Each column is written as one member, its chunks consumed in turn (a generator is read
    once, lazily), so memory holds one chunk; the result reads back as `write` of the same trace.

    Parameters
    ----------
    path : str or os.PathLike
        Output file; overwritten.
    n_requests : int
        Accesses: each column's chunks must hold exactly this many values.
    original_id : numpy.ndarray of int64, shape (n_pages,)
        Source id of each dense page; its length is the number of pages.
    columns : mapping of name to iterable of numpy.ndarray
        ``page`` (required: dense ids in first-occurrence order, checked as written) and any of
        ``kind``, ``op``, ``cgroup``, ``tag``, ``size``, ``time`` (absent ones read back as the
        Trace's defaults: zeros, or None for size and time); values are cast to the column's dtype.
    source, compress, level
        As for `write` (``source`` defaults to ``{}``).

    Raises
    ------
    ValueError
        If a column is unknown, ``page`` is missing, a column holds more or fewer than
        `n_requests` values, or ``page`` is not dense in first-occurrence order over
        ``len(original_id)`` pages.
    """
    unknown = sorted(set(columns) - set(_COLUMNS))
    if unknown or "page" not in columns:
        raise ValueError(f"write_columns: need 'page' and known columns {_COLUMNS}; got {sorted(columns)}")
    original = np.ascontiguousarray(original_id, dtype=np.int64)
    present = {name: columns.get(name) for name in _COLUMNS}
    meta: dict[str, Any] = {
        "format": FORMAT_TAG,
        "version": VERSION,
        "n_requests": int(n_requests),
        "n_pages": int(original.shape[0]),
        "columns": {name: (None if present[name] is None else _DTYPES[name]) for name in _COLUMNS},
        "compression": "zstd" if compress else "none",
        "source": json.loads(json.dumps(source or {}, allow_nan=False)),
    }
    suffix = ".npy.zst" if compress else ".npy"
    cctx = zstandard.ZstdCompressor(level=level, write_checksum=True) if compress else None
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        zf.writestr("meta.json", json.dumps(meta, indent=1, sort_keys=True, allow_nan=False))
        for name, chunks in [*present.items(), ("original_id", [original])]:
            if chunks is not None:
                length = original.shape[0] if name == "original_id" else int(n_requests)
                with zf.open(name + suffix, "w", force_zip64=True) as member:
                    _write_member(member, cctx, name, chunks, length, original.shape[0])


def _write_member(
    member: Any, cctx: Any, name: str, chunks: Iterable[np.ndarray], length: int, n_pages: int
) -> None:
    """One column of `write_columns` into the open zip `member`: the ``.npy`` header, then the
    chunks (zstd-compressed into one checksummed frame when `cctx` is given)."""
    from ..stream import _dense_violation

    dtype = np.dtype(_DTYPES[name])
    next_new = np.zeros(1, dtype=np.int64)
    written = 0
    out: Any = cctx.stream_writer(member, closefd=False) if cctx is not None else member
    np.lib.format.write_array_header_2_0(
        out, {"descr": dtype.str, "fortran_order": False, "shape": (length,)}
    )
    for chunk in chunks:
        arr = np.ascontiguousarray(chunk, dtype=dtype)
        if name == "page" and int(_dense_violation(arr, next_new)) >= 0:
            raise ValueError(f"write_columns: page ids not dense in first-occurrence order after {written}")
        written += arr.shape[0]
        if written > length:
            break
        out.write(arr.tobytes())
    if cctx is not None:
        out.close()
    if written != length:
        held = f"more than {length}" if written > length else str(written)
        raise ValueError(f"write_columns: column {name!r} holds {held} values, expected {length}")
    if name == "page" and int(next_new[0]) != n_pages:
        raise ValueError(f"write_columns: page uses {int(next_new[0])} pages, original_id has {n_pages}")


def read(path: str | os.PathLike[str], *, mmap: bool = False) -> Trace:
    """Read a ``.pgt`` file written by `write`.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    mmap : bool, optional
        Map the columns of an uncompressed file (``write(..., compress=False)``) from the file
        instead of reading them: copy-on-write ``numpy.memmap`` views, so that processes mapping
        the same file share its pages in the page cache. Members' CRC-32 are not checked then.
        A compressed file is read into memory as usual.

    Returns
    -------
    Trace
        The columns exactly as written (values, dtypes, None-ness). ``source`` describes this
        file (``format`` ``"pagesim"``, ``path``, ``compression`` of the members) and keeps the
        written trace's source as ``converted_from`` (the first one, when a ``.pgt`` was read and
        written again); the keys that describe the columns' values (``block_bytes``,
        ``time_unit``, ``id_hash``) are copied from it to the top level.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    TraceFormatError
        If the file is not a pagesim trace, is of a newer version, or misses a member;
        `CompressedDataError` if it is truncated or a member is corrupt. Every damage is one of
        these two, naming the file: the zip's CRC-32 of each member and the zstd frame checksum
        `write` adds make a flipped bit an error, never other content.
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"trace file not found: {os.fspath(path)}")
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != b"PK\x03\x04":
        raise TraceFormatError(path, None, "not a zip archive", "a pagesim .pgt trace (zip)", offset=0)
    try:
        return _read_archive(path, mmap)
    except TraceFormatError:
        raise
    except _CORRUPTION_ERRORS as exc:  # whatever a damaged archive makes zipfile, json or numpy raise
        raise TraceFormatError(
            path, None, f"{type(exc).__name__}: {exc}", "an intact pagesim .pgt archive"
        ) from None


#: What reading a damaged zip archive, meta.json or .npy member can raise besides our own errors.
_CORRUPTION_ERRORS: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    NotImplementedError,  # an unknown compression method in a damaged header
    ValueError,
    KeyError,
    IndexError,
    TypeError,
    OverflowError,
    RuntimeError,
    MemoryError,
    zlib.error,
    struct.error,
    *DECOMPRESSION_ERRORS,
)

#: The dtype of each column as `write` stores it (`Trace`'s column dtypes).
_DTYPES = {
    "page": "<i8",
    "kind": "|u1",
    "op": "|u1",
    "cgroup": "<u2",
    "tag": "<i4",
    "size": "<i8",
    "time": "<i8",
    "original_id": "<i8",
}


def _read_archive(path: str | os.PathLike[str], mmap: bool = False) -> Trace:
    try:
        zf = zipfile.ZipFile(path, "r")
    except (zipfile.BadZipFile, EOFError, ValueError, OSError) as exc:
        raise CompressedDataError(path, "zip", f"{exc} (a .pgt file is a zip archive)") from None
    with zf:
        names = set(zf.namelist())
        if "meta.json" not in names:
            raise TraceFormatError(path, None, f"members {sorted(names)[:5]}", "a meta.json member")
        meta = _read_meta(zf, path)
        compressed = meta.get("compression") == "zstd"
        if meta.get("compression") not in ("zstd", "none"):
            raise TraceFormatError(
                path, None, f"compression {meta.get('compression')!r}", "compression 'zstd' or 'none'"
            )
        suffix = ".npy.zst" if compressed else ".npy"
        arrays: dict[str, np.ndarray | None] = {}
        for name in (*_COLUMNS, "original_id"):
            dtype = meta["columns"].get(name) if name != "original_id" else _DTYPES[name]
            if dtype is None:  # an absent optional column (a missing one is filled by Trace)
                arrays[name] = None
                continue
            if dtype != _DTYPES[name]:
                raise TraceFormatError(path, None, f"{name} of dtype {dtype!r}", f"dtype {_DTYPES[name]}")
            member = name + suffix
            if member not in names:
                raise TraceFormatError(
                    path, None, f"no member {member!r}", f"member {member!r} for column {name!r}"
                )
            length = meta.get("n_pages") if name == "original_id" else meta.get("n_requests")
            if isinstance(length, bool) or not isinstance(length, int) or length < 0:
                raise TraceFormatError(path, None, f"{length!r}", "counts of accesses and pages in meta.json")
            if mmap and not compressed:
                arrays[name] = _map_member(zf, path, member, np.dtype(dtype), length)
            else:
                arrays[name] = _read_member(zf, path, member, compressed, np.dtype(dtype), length)
    page = arrays.pop("page")
    original_id = arrays.pop("original_id")
    if page is None or original_id is None:
        raise TraceFormatError(path, None, "no page column", "a 'page' column in meta.json")
    if page.shape != (meta.get("n_requests"),) or original_id.shape != (meta.get("n_pages"),):
        raise TraceFormatError(
            path,
            None,
            f"{page.shape[0]} accesses over {original_id.shape[0]} pages",
            f"{meta.get('n_requests')} accesses over {meta.get('n_pages')} pages (as meta.json says)",
        )
    source = _source(path, meta.get("source", {}), compressed)
    try:
        return Trace(page=page, original_id=original_id, source=source, **arrays)  # type: ignore[arg-type]
    except ValueError as exc:
        raise TraceFormatError(path, None, str(exc), "columns that make a valid trace") from None


#: Keys of a source that describe the values in the columns, kept at the top level of the source
#: of a trace read from a ``.pgt`` file (which keeps the rest under ``converted_from``).
DATA_KEYS = ("block_bytes", "time_unit", "id_hash")


def _source(path: str | os.PathLike[str], stored: Any, compressed: bool) -> dict[str, Any]:
    """The source of a trace read from `path`, whose meta.json holds the source `stored`."""
    if not isinstance(stored, dict):
        stored = {}
    original = stored
    if stored.get("format") == NAME and isinstance(stored.get("converted_from"), dict):
        original = stored["converted_from"]  # a .pgt read and written again: keep the first source
    source: dict[str, Any] = {
        "path": os.fspath(path),
        "format": NAME,
        "options": {},
        "compression": "zstd" if compressed else None,
    }
    source.update({k: original[k] for k in DATA_KEYS if k in original})
    source["converted_from"] = original
    return source


def _read_meta(zf: zipfile.ZipFile, path: str | os.PathLike[str]) -> dict[str, Any]:
    """meta.json of a .pgt archive, checked for format tag, version and column table."""
    try:
        meta = json.loads(zf.read("meta.json"))
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise CompressedDataError(path, "zip", f"{exc} in member 'meta.json'") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise TraceFormatError(path, None, f"meta.json: {exc}", "a JSON object in meta.json") from None
    if not isinstance(meta, dict):
        raise TraceFormatError(path, None, f"meta.json holding {type(meta).__name__}", "a JSON object")
    if meta.get("format") != FORMAT_TAG:
        raise TraceFormatError(path, None, f"format {meta.get('format')!r}", f"format {FORMAT_TAG!r}")
    try:
        version = int(meta.get("version", 0))
    except (TypeError, ValueError):
        raise TraceFormatError(path, None, f"version {meta.get('version')!r}", "an integer version") from None
    if version > VERSION:
        raise TraceFormatError(path, None, f"version {version}", f"version <= {VERSION} (upgrade pagesim)")
    if not isinstance(meta.get("columns"), dict):
        raise TraceFormatError(path, None, "no column table", "a 'columns' object in meta.json")
    return meta


#: Bytes read first from a member: room for any ``.npy`` header numpy writes.
_NPY_HEAD = 1 << 16


def _read_member(
    zf: zipfile.ZipFile,
    path: str | os.PathLike[str],
    member: str,
    compressed: bool,
    dtype: np.dtype,
    length: int | None = None,
) -> np.ndarray:
    """The 1-D array of `dtype` (of `length` values, when given) in `member`.

    The ``.npy`` header is read and checked first; then exactly the bytes it announces, and the
    member must end there, so neither a damaged header nor a member that decompresses to more
    than it says can make this hold more than the array (memory stays bounded). Reading to the
    end of the member makes zipfile check its CRC-32 and zstd its frame checksum.

    Raises
    ------
    CompressedDataError
        If the member's zip or zstd data are damaged.
    TraceFormatError
        If the ``.npy`` header is not that of a 1-D array of `dtype` and `length`, or the member
        holds fewer or more bytes than the header announces.
    """
    with zf.open(member) as fh:
        stream = ZstdStream(fh, closefd=False) if compressed else fh
        try:
            head = _read_full(stream, _NPY_HEAD)
            shape, start = _npy_header(path, member, head, dtype, length)
            need = shape * dtype.itemsize - (len(head) - start)
            rest = _read_full(stream, need) if need > 0 else b""
            extra = stream.read(1)  # b"" at the end: the checks above have run
        except (zipfile.BadZipFile, zlib.error) as exc:
            where = "" if member in str(exc) else f" in member {member!r}"
            raise CompressedDataError(path, "zip", f"{exc}{where}") from None
        except DECOMPRESSION_ERRORS as exc:
            at = f" at compressed byte {stream.compressed_pos}" if isinstance(stream, ZstdStream) else ""
            label = "zstd" if compressed else "zip"
            raise CompressedDataError(path, label, f"{exc}{at} of member {member!r}") from None
    have = len(head) - start + len(rest) + len(extra)
    if need < 0 or len(rest) < need or extra:
        more = " or more" if extra else ""
        raise TraceFormatError(
            path,
            None,
            f"member {member!r}: {have}{more} data bytes for {shape} values",
            f"{shape * dtype.itemsize} data bytes",
        )
    data = head[start:] + rest
    return np.frombuffer(data, dtype=dtype, count=shape).copy()


def _read_full(stream: Any, n: int) -> bytes:
    """Up to `n` bytes of `stream`, fewer only at its end."""
    parts = []
    got = 0
    while got < n:
        more = stream.read(n - got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def _npy_header(
    path: str | os.PathLike[str], member: str, head: bytes, dtype: np.dtype, length: int | None
) -> tuple[int, int]:
    """(number of values, offset of the data) from the ``.npy`` header at the start of `head`."""
    bio = io.BytesIO(head)
    try:
        version = np.lib.format.read_magic(bio)
        if version == (1, 0):
            shape, _, found = np.lib.format.read_array_header_1_0(bio)
        else:
            shape, _, found = np.lib.format.read_array_header_2_0(bio)
    except (ValueError, EOFError, SyntaxError, TypeError) as exc:
        raise TraceFormatError(path, None, f"member {member!r}: {exc}", "a .npy array") from None
    if found != dtype or len(shape) != 1:
        raise TraceFormatError(
            path, None, f"member {member!r}: {found} of shape {shape}", f"a 1-D {dtype.str} array"
        )
    if length is not None and shape[0] != length:
        raise TraceFormatError(
            path, None, f"member {member!r}: {shape[0]} values", f"{length} values (as meta.json says)"
        )
    return int(shape[0]), bio.tell()


def _map_member(
    zf: zipfile.ZipFile, path: str | os.PathLike[str], member: str, dtype: np.dtype, length: int
) -> np.ndarray:
    """The array in a stored (uncompressed) `member`, mapped copy-on-write from the file.

    The ``.npy`` header is checked as :func:`_read_member` checks it (dtype, one dimension,
    `length` values) and the data must lie inside the file.
    """
    info = zf.getinfo(member)
    if info.compress_type != zipfile.ZIP_STORED or length == 0:
        return _read_member(zf, path, member, False, dtype, length)
    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise TraceFormatError(path, None, f"member {member!r}: bad local header", "a zip member")
        name_len = int.from_bytes(local[26:28], "little")
        extra_len = int.from_bytes(local[28:30], "little")
        start = info.header_offset + 30 + name_len + extra_len
        fh.seek(start)
        head = fh.read(4096)
    count, data_offset = _npy_header(path, member, head, dtype, length)
    offset = start + data_offset
    if offset + count * dtype.itemsize > os.path.getsize(path):
        raise CompressedDataError(path, "zip", f"member {member!r} is truncated")
    return np.memmap(path, dtype=dtype, mode="c", offset=offset, shape=(count,))


def sniff(head: bytes, size: int | None = None) -> bool:
    """True if `head` starts a zip archive whose first member is ``meta.json``."""
    return head.startswith(b"PK\x03\x04") and head[30:39] == b"meta.json"
