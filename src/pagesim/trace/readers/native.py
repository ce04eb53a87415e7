"""pagesim's own lossless trace format (``.pgt``).

A ``.pgt`` file is a zip archive (always zip64-capable) holding:

- ``meta.json``: ``{"format": "pagesim-trace", "version": 1, "n_requests", "n_pages",
  "columns": {name: dtype or null}, "compression": "none" | "zstd", "source": {...}}``;
- one ``<name>.npy`` member per present column (``page``, ``kind``, ``op``, ``cgroup``, ``tag``,
  ``size``, ``time``) and ``original_id.npy``, in numpy's ``.npy`` format; with zstd compression
  each member is ``<name>.npy.zst``, the ``.npy`` bytes compressed as one zstd frame.

Members are stored, not deflated (zstd does the compressing when asked). Reading restores every
column with its dtype, None for absent optional columns, and ``source`` exactly as written.
Unknown newer versions are refused.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from typing import Any

import numpy as np
import zstandard

from ..errors import TraceFormatError
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


def read(path: str | os.PathLike[str]) -> Trace:
    """Read a ``.pgt`` file written by `write`.

    Returns
    -------
    Trace
        Identical to the one written (columns, dtypes, None-ness, ``source``).

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    TraceFormatError
        If the file is not a pagesim trace, is of a newer version, or misses a member.
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"trace file not found: {os.fspath(path)}")
    try:
        zf = zipfile.ZipFile(path, "r")
    except zipfile.BadZipFile:
        raise TraceFormatError(
            path, None, "not a zip archive", "a pagesim .pgt trace (zip)", offset=0
        ) from None
    with zf:
        names = set(zf.namelist())
        if "meta.json" not in names:
            raise TraceFormatError(path, None, f"members {sorted(names)[:5]}", "a meta.json member")
        meta = json.loads(zf.read("meta.json"))
        if meta.get("format") != FORMAT_TAG:
            raise TraceFormatError(path, None, f"format {meta.get('format')!r}", f"format {FORMAT_TAG!r}")
        if int(meta.get("version", 0)) > VERSION:
            raise TraceFormatError(
                path, None, f"version {meta['version']}", f"version <= {VERSION} (upgrade pagesim)"
            )
        suffix = ".npy.zst" if meta.get("compression") == "zstd" else ".npy"
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
            with zf.open(member) as fh:
                if suffix == ".npy.zst":
                    data = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True).read()
                    arr = np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
                else:
                    arr = np.lib.format.read_array(fh, allow_pickle=False)
            if arr.dtype.str != dtype:
                raise TraceFormatError(path, None, f"{name} of dtype {arr.dtype.str}", f"dtype {dtype}")
            arrays[name] = arr
    page = arrays.pop("page")
    original_id = arrays.pop("original_id")
    return Trace(page=page, original_id=original_id, source=meta.get("source", {}), **arrays)  # type: ignore[arg-type]


def sniff(head: bytes) -> bool:
    """True if `head` starts a zip archive whose first member is ``meta.json``."""
    return head.startswith(b"PK\x03\x04") and head[30:39] == b"meta.json"
