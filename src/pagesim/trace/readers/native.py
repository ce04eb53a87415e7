"""pagesim's own lossless trace format (``.pgt``).

A ``.pgt`` file is a zip archive (always zip64-capable) holding:

- ``meta.json``: ``{"format": "pagesim-trace", "version": 1, "n_requests", "n_pages",
  "columns": {name: dtype or null}, "compression": "none" | "zstd", "source": {...}}``;
- one ``<name>.npy`` member per present column (``page``, ``kind``, ``op``, ``cgroup``, ``tag``,
  ``size``, ``time``) and ``original_id.npy``, in numpy's ``.npy`` format; with zstd compression
  each member is ``<name>.npy.zst``, the ``.npy`` bytes compressed as one zstd frame.

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
import zipfile
import zlib
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
    cctx = zstandard.ZstdCompressor(level=level) if compress else None
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
        `CompressedDataError` if it is truncated or a member is corrupt.
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"trace file not found: {os.fspath(path)}")
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != b"PK\x03\x04":
        raise TraceFormatError(path, None, "not a zip archive", "a pagesim .pgt trace (zip)", offset=0)
    try:
        zf = zipfile.ZipFile(path, "r")
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise CompressedDataError(path, "zip", f"{exc} (a .pgt file is a zip archive)") from None
    with zf:
        names = set(zf.namelist())
        if "meta.json" not in names:
            raise TraceFormatError(path, None, f"members {sorted(names)[:5]}", "a meta.json member")
        meta = _read_meta(zf, path)
        compressed = meta.get("compression") == "zstd"
        suffix = ".npy.zst" if compressed else ".npy"
        arrays: dict[str, np.ndarray | None] = {}
        for name in (*_COLUMNS, "original_id"):
            dtype = meta["columns"].get(name) if name != "original_id" else "<i8"
            if dtype is None:
                arrays[name] = None
                continue
            member = name + suffix
            if member not in names:
                raise TraceFormatError(
                    path, None, f"no member {member!r}", f"member {member!r} for column {name!r}"
                )
            if mmap and not compressed:
                arr = _map_member(zf, path, member)
            else:
                arr = _read_member(zf, path, member, compressed)
            if arr.dtype.str != dtype:
                raise TraceFormatError(path, None, f"{name} of dtype {arr.dtype.str}", f"dtype {dtype}")
            arrays[name] = arr
    page = arrays.pop("page")
    original_id = arrays.pop("original_id")
    assert page is not None and original_id is not None
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


def _read_member(
    zf: zipfile.ZipFile, path: str | os.PathLike[str], member: str, compressed: bool
) -> np.ndarray:
    """The array in `member`; truncated or corrupt data raise `CompressedDataError`."""
    with zf.open(member) as fh:
        stream = ZstdStream(fh, closefd=False) if compressed else fh
        try:
            data = stream.read()  # to the end, so that zipfile checks the member's CRC-32
        except (zipfile.BadZipFile, zlib.error) as exc:
            where = "" if member in str(exc) else f" in member {member!r}"
            raise CompressedDataError(path, "zip", f"{exc}{where}") from None
        except DECOMPRESSION_ERRORS as exc:
            at = f" at compressed byte {stream.compressed_pos}" if isinstance(stream, ZstdStream) else ""
            label = "zstd" if compressed else "zip"
            raise CompressedDataError(path, label, f"{exc}{at} of member {member!r}") from None
    try:
        return np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
    except (ValueError, EOFError) as exc:
        raise TraceFormatError(path, None, f"member {member!r}: {exc}", "a .npy array") from None


def _map_member(zf: zipfile.ZipFile, path: str | os.PathLike[str], member: str) -> np.ndarray:
    """The array in a stored (uncompressed) `member`, mapped copy-on-write from the file."""
    info = zf.getinfo(member)
    if info.compress_type != zipfile.ZIP_STORED:
        return _read_member(zf, path, member, False)
    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise TraceFormatError(path, None, f"member {member!r}: bad local header", "a zip member")
        name_len = int.from_bytes(local[26:28], "little")
        extra_len = int.from_bytes(local[28:30], "little")
        fh.seek(info.header_offset + 30 + name_len + extra_len)
        try:
            version = np.lib.format.read_magic(fh)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        except ValueError as exc:
            raise TraceFormatError(path, None, f"member {member!r}: {exc}", "a .npy array") from None
        offset = fh.tell()
    count = int(np.prod(shape))
    if count == 0 or dtype.hasobject:
        return _read_member(zf, path, member, False)
    if offset + count * dtype.itemsize > os.path.getsize(path):
        raise CompressedDataError(path, "zip", f"member {member!r} is truncated")
    order = "F" if fortran else "C"
    return np.memmap(path, dtype=dtype, mode="c", offset=offset, shape=shape, order=order)


def sniff(head: bytes, size: int | None = None) -> bool:
    """True if `head` starts a zip archive whose first member is ``meta.json``."""
    return head.startswith(b"PK\x03\x04") and head[30:39] == b"meta.json"
