"""Reading and writing traces in any supported format.

`FORMATS` maps a format name to its reader module; `read_trace` picks one by name or by
`detect_format`: a known extension (compression suffixes stripped) decides; otherwise the content
(magic bytes, first decompressed 64 KiB) does. Each reader defines ``sniff(head, size)``, where
`size` is the decompressed content's length when known (None otherwise).
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from ._stream import COMPRESSION_SUFFIXES, compression_of, read_head
from .readers import csv as _csv
from .readers import lis as _lis
from .readers import native as _native
from .readers import oracle as _oracle
from .readers import text as _text
from .readers import vscsi as _vscsi
from .trace import Trace

__all__ = [
    "FORMATS",
    "WRITE_FORMATS",
    "Format",
    "detect_format",
    "read_trace",
    "reader_options",
    "write_trace",
]


class Format(NamedTuple):
    """A trace format: its reader module and a one-line description."""

    name: str
    reader: ModuleType
    description: str
    extensions: tuple[str, ...]


#: Supported formats by name, in the order content sniffing tries them.
FORMATS: dict[str, Format] = {
    m.NAME: Format(m.NAME, m, m.DESCRIPTION, m.EXTENSIONS)
    for m in (_native, _vscsi, _oracle, _lis, _text, _csv)
}

#: Formats `write_trace` can write, with what they keep.
WRITE_FORMATS: dict[str, str] = {
    "pagesim": "lossless: every column, original ids and source metadata",
    "text": "original ids only, one per line (gzip/xz/zstd by output suffix)",
    "oracle": "libCacheSim oracleGeneral: original ids, sizes (4096 if none), times (0 if none)",
}


def _strip_compression(name: str) -> tuple[str, str | None]:
    lower = name.lower()
    for suffix, comp in COMPRESSION_SUFFIXES.items():
        if lower.endswith(suffix):
            return name[: -len(suffix)], comp
    return name, None


def _by_extension(path: str | os.PathLike[str]) -> str | None:
    name, _ = _strip_compression(Path(path).name)
    lower = name.lower()
    for fmt in FORMATS.values():
        if any(lower.endswith(ext.lower()) for ext in fmt.extensions):
            return fmt.name
    return None


def detect_format(path: str | os.PathLike[str]) -> str:
    """Name of the format of the trace at `path`.

    A known extension (after stripping ``.gz``, ``.xz``, ``.zst``, ``.bz2``) decides, without
    looking at the content: a ``.csv`` file is read as csv, and a malformed line is reported by the
    csv reader with its number, never silently read as another format that happens to fit. Only
    without a known extension does the content decide (first 64 KiB, decompressed): the first
    format whose sniffer accepts it wins (order of `FORMATS`); empty files are ``"text"``.

    Parameters
    ----------
    path : str or os.PathLike
        The trace file.

    Returns
    -------
    str
        A key of `FORMATS`.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    ValueError
        If neither the name nor the content identifies a format.
    TraceFormatError
        If the content must be sniffed and its first 64 KiB are truncated or corrupt compressed data.
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"trace file not found: {os.fspath(path)}")
    by_ext = _by_extension(path)
    if by_ext is not None:
        return by_ext
    limit = 1 << 16
    head = read_head(path, limit + 1)
    if len(head) <= limit:
        size: int | None = len(head)  # the whole content
    elif compression_of(path) is None:
        size = os.path.getsize(path)
    else:
        size = None
    head = head[:limit]
    if not head:
        return "text"
    for name, fmt in FORMATS.items():
        if _sniff(fmt, head, size):
            return name
    raise ValueError(f"cannot detect the format of {os.fspath(path)}; pass format= one of {sorted(FORMATS)}")


def _sniff(fmt: Format, head: bytes, size: int | None) -> bool:
    try:
        return bool(fmt.reader.sniff(head, size))
    except Exception:  # a sniffer must never make detection fail  # noqa: BLE001
        return False


def read_trace(path: str | os.PathLike[str], format: str | None = None, **options: Any) -> Trace:  # noqa: A002
    """Read a trace file of any supported format.

    Parameters
    ----------
    path : str or os.PathLike
        The trace file; compressed files (gzip, xz, zstd, bzip2) are recognised by content.
    format : str or None, optional
        A key of `FORMATS`; None detects it with `detect_format`.
    **options
        Passed to the reader (e.g. ``id_col=5`` for csv, ``chunk_bytes``); see each reader's
        ``read`` in `pagesim.trace.readers`.

    Returns
    -------
    Trace
        With ``source["path"]`` and ``source["format"]`` set.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    ValueError
        If `format` is unknown or cannot be detected, an option is not one the reader takes (the
        message lists those it takes, see `reader_options`) or has a value it refuses, or the
        trace does not fit in memory.
    TraceFormatError
        If the content is malformed (names file and line or byte offset), or compressed content
        is truncated or corrupt (`CompressedDataError`: "truncated or corrupt zstd data ...").
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"trace file not found: {os.fspath(path)}")
    name = format if format is not None else detect_format(path)
    if name not in FORMATS:
        raise ValueError(f"unknown trace format {name!r}; known: {sorted(FORMATS)}")
    known = reader_options(name)
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise ValueError(
            f"format {name!r} does not accept the reader option(s) {', '.join(unknown)}; "
            f"its options: {', '.join(known) or 'none'}"
        )
    try:
        return FORMATS[name].reader.read(path, **options)
    except MemoryError:
        raise ValueError(
            f"{os.fspath(path)}: not enough memory to read this trace as {name} "
            "(split it, or convert it to .pgt on a larger machine)"
        ) from None


def reader_options(name: str) -> list[str]:
    """The options the reader of format `name` takes (keyword arguments of its ``read``), sorted.

    Raises
    ------
    ValueError
        If `name` is not a key of `FORMATS`.
    """
    if name not in FORMATS:
        raise ValueError(f"unknown trace format {name!r}; known: {sorted(FORMATS)}")
    params = inspect.signature(FORMATS[name].reader.read).parameters.values()
    return sorted(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)


def write_trace(
    trace: Trace, path: str | os.PathLike[str], format: str | None = None, **options: Any
) -> None:  # noqa: A002
    """Write `trace` to `path`.

    Parameters
    ----------
    trace : Trace
        The trace.
    path : str or os.PathLike
        Output file, overwritten.
    format : str or None, optional
        A key of `WRITE_FORMATS`; None chooses by extension: ``.pgt`` pagesim, ``.txt``/``.trace``
        (optionally ``.gz``/``.xz``/``.zst``) text, ``.oracleGeneral[.bin][.zst]`` oracle;
        anything else is written as pagesim.
    **options
        ``compress`` (bool) for pagesim and oracle; ``level`` for pagesim.

    Raises
    ------
    ValueError
        If `format` cannot be written.
    """
    name = format if format is not None else (_by_extension(path) or "pagesim")
    if name == "pagesim":
        _native.write(trace, path, **options)
    elif name == "text":
        _write_text(trace, path)
    elif name == "oracle":
        _oracle.write(trace, path, **options)
    else:
        raise ValueError(f"cannot write format {name!r}; writable: {sorted(WRITE_FORMATS)}")


def _write_text(trace: Trace, path: str | os.PathLike[str]) -> None:
    import bz2
    import gzip
    import lzma

    import numpy as np
    import zstandard

    _, comp = _strip_compression(Path(path).name)
    ids = trace.original_id[trace.page]
    if (ids < 0).any():  # ids above 2**63 - 1 were stored as negative int64: print them unsigned
        ids = ids.view(np.uint64)
    openers = {
        None: lambda: open(path, "wb"),
        "gzip": lambda: gzip.open(path, "wb"),
        "xz": lambda: lzma.open(path, "wb"),
        "bzip2": lambda: bz2.open(path, "wb"),
        "zstd": lambda: zstandard.ZstdCompressor(write_checksum=True).stream_writer(open(path, "wb")),
    }
    with openers[comp]() as fh:
        step = 1 << 20
        for s in range(0, ids.size, step):
            block = ids[s : s + step]
            fh.write(("\n".join(map(str, block.tolist())) + "\n").encode())
