"""Opening trace files whatever their compression, and reading them in chunks.

Compression is recognised by magic bytes, not by extension: gzip (``1f 8b``), xz (``fd 37 7a 58 5a
00``), zstd (``28 b5 2f fd``) and bzip2 (``BZh``); anything else is read as is. Decompression is
streaming, so memory stays at a few chunks whatever the file size.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np
import zstandard

from .errors import TraceFormatError

__all__ = [
    "CHUNK_BYTES",
    "compression_of",
    "iter_line_chunks",
    "iter_record_chunks",
    "open_bytes",
    "read_head",
]

#: Bytes read (after decompression) per chunk.
CHUNK_BYTES = 16 << 20

_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"BZh", "bzip2"),
)

#: File name suffixes of the compressions, stripped before a format is guessed by extension.
COMPRESSION_SUFFIXES = {".gz": "gzip", ".xz": "xz", ".zst": "zstd", ".zstd": "zstd", ".bz2": "bzip2"}


def _check_exists(path: str | os.PathLike[str]) -> Path:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"trace file not found: {os.fspath(path)}")
    if p.is_dir():
        raise IsADirectoryError(f"trace path is a directory: {os.fspath(path)}")
    return p


def compression_of(path: str | os.PathLike[str]) -> str | None:
    """Compression of a file from its first bytes: "gzip", "xz", "zstd", "bzip2" or None.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    """
    p = _check_exists(path)
    with open(p, "rb") as fh:
        head = fh.read(8)
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def open_bytes(path: str | os.PathLike[str]) -> BinaryIO:
    """Open `path` for binary reading, decompressing on the fly when compressed.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist (the message names it).
    """
    comp = compression_of(path)
    if comp == "gzip":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if comp == "xz":
        return lzma.open(path, "rb")  # type: ignore[return-value]
    if comp == "bzip2":
        return bz2.open(path, "rb")  # type: ignore[return-value]
    fh = open(path, "rb")  # noqa: SIM115 - returned to the caller
    if comp == "zstd":
        reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True, closefd=True)
        return io.BufferedReader(reader, buffer_size=1 << 20)  # type: ignore[arg-type]
    return fh


def _read_full(fh: BinaryIO, n: int) -> bytes:
    """Up to `n` bytes, fewer only at end of stream (decompressors may return short reads)."""
    data = fh.read(n)
    if len(data) == n or not data:
        return data
    parts = [data]
    got = len(data)
    while got < n:
        more = fh.read(n - got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def read_head(path: str | os.PathLike[str], n: int = 1 << 16) -> bytes:
    """The first `n` bytes of the decompressed content of `path`."""
    with open_bytes(path) as fh:
        return _read_full(fh, n)


def iter_line_chunks(path: str | os.PathLike[str], chunk_bytes: int = CHUNK_BYTES) -> Iterator[np.ndarray]:
    """Decompressed content of `path` as uint8 arrays that each end with a whole line.

    Every chunk but possibly the last ends with ``\\n``; no line is split between chunks (a line
    longer than `chunk_bytes` makes a longer chunk). Arrays are read-only views of bytes objects.
    """
    carry = b""
    with open_bytes(path) as fh:
        while True:
            data = _read_full(fh, chunk_bytes)
            if not data:
                break
            if carry:
                data = carry + data
            cut = data.rfind(b"\n")
            if cut < 0:
                carry = data
                continue
            carry = data[cut + 1 :]
            yield np.frombuffer(data, dtype=np.uint8, count=cut + 1)
    if carry:
        yield np.frombuffer(carry, dtype=np.uint8)


def iter_record_chunks(
    path: str | os.PathLike[str],
    record_bytes: int,
    expected: str,
    chunk_bytes: int = CHUNK_BYTES,
) -> Iterator[bytes]:
    """Decompressed content of `path` in chunks holding whole fixed-size records.

    Raises
    ------
    TraceFormatError
        If the content does not end on a record boundary; names the byte offset of the
        incomplete record and `expected` (e.g. "24-byte oracleGeneral records").
    """
    chunk_bytes = max(record_bytes, chunk_bytes // record_bytes * record_bytes)
    offset = 0
    with open_bytes(path) as fh:
        while True:
            data = _read_full(fh, chunk_bytes)
            if not data:
                break
            whole = len(data) // record_bytes * record_bytes
            if whole != len(data):
                # a short read only happens at the end of the stream, so the tail is incomplete
                tail = len(data) - whole
                raise TraceFormatError(
                    path,
                    None,
                    f"{tail} trailing byte{'s' if tail != 1 else ''} (content is {offset + len(data)} bytes, "
                    f"not a multiple of {record_bytes})",
                    expected,
                    offset=offset + whole,
                )
            offset += whole
            yield data
