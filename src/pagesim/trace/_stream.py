"""Opening trace files whatever their compression, and reading them in chunks.

Compression is recognised by magic bytes, not by extension: gzip (``1f 8b``), xz (``fd 37 7a 58 5a
00``), zstd (``28 b5 2f fd``) and bzip2 (``BZh``); anything else is read as is. Decompression is
streaming, so memory stays at a few chunks whatever the file size. Truncated or corrupt compressed
content raises `CompressedDataError` (a `TraceFormatError`), never a silent short read: an
unfinished frame or stream at the end of the input counts as truncation.

Several streams (members, frames) in one file are read one after the other, as ``gzip -d``,
``xz -d``, ``bzip2 -d`` and ``zstd -d`` do. Whatever follows the last whole stream must be another
whole stream: trailing junk is refused alike for every compression. The only exceptions are
NUL bytes after a gzip member (as Python's ``gzip`` and ``gzip -d`` accept) and xz stream padding
(NUL bytes in multiples of four, as the xz format defines); zstd skippable frames are skipped.
gzip headers are checked in full (reserved flags, header CRC) by zlib.

Line-oriented content that starts with a UTF-8 byte-order mark (``EF BB BF``) is read without it.
"""

from __future__ import annotations

import bz2
import lzma
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import zstandard

from .errors import CompressedDataError, TraceFormatError

__all__ = [
    "CHUNK_BYTES",
    "StrictStream",
    "ZstdStream",
    "check_chunk_bytes",
    "compression_of",
    "iter_line_chunks",
    "iter_record_chunks",
    "open_bytes",
    "read_head",
]

#: The UTF-8 byte-order mark, skipped at the start of line-oriented content.
UTF8_BOM = b"\xef\xbb\xbf"

#: Longest line (bytes) the line readers accept across a chunk boundary: a file without newlines
#: is refused after this much, not accumulated in memory.
MAX_LINE_BYTES = 1 << 20

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


#: Names of the compressions in messages ("truncated or corrupt bz2 data").
_LABEL = {"gzip": "gzip", "xz": "xz", "zstd": "zstd", "bzip2": "bz2"}

#: Compressed bytes fed to the zstd decompressor at a time. This bounds the output of one call:
#: a zstd block of 4 bytes (RLE) may stand for 128 KiB, so 1 KiB of input makes at most 32 MiB.
_ZSTD_FEED = 1 << 10


class _Decompressed:
    """What a decompressing reader shares: `_fill` decompresses the next block into `_pending`,
    adding to `_produced`, and sets `_done` at the end of content; `read` and `tell` serve it."""

    _pending: memoryview
    _done: bool
    _produced: int

    def _fill(self) -> None:
        raise NotImplementedError

    def read(self, n: int = -1) -> bytes:
        """Up to `n` decompressed bytes (all the rest if `n` < 0); b"" at end of content."""
        parts = []
        got = 0
        while n < 0 or got < n:
            if not self._pending:
                if self._done:
                    break
                self._fill()
                continue
            take = len(self._pending) if n < 0 else min(n - got, len(self._pending))
            parts.append(self._pending[:take])
            self._pending = self._pending[take:]
            got += take
        return b"".join(parts)

    def tell(self) -> int:
        """Decompressed bytes produced so far (read or waiting to be read)."""
        return self._produced


class ZstdStream(_Decompressed):
    """Decompressed content of a zstd stream, frame after frame, as a readable binary stream.

    Unlike ``zstandard``'s ``stream_reader``, the end of input inside a frame is an error (raised
    as `EOFError`, as `gzip`, `lzma` and `bz2` do for their truncated streams); corrupt data raises
    ``zstandard.ZstdError``. Skippable frames are skipped.

    Parameters
    ----------
    fh : binary file object
        The compressed input; closed with this stream when `closefd`.
    closefd : bool, optional
        Close `fh` in `close` (default True).

    Attributes
    ----------
    compressed_pos : int
        Compressed bytes consumed so far (an input block is consumed whole).
    block_start : int
        Compressed offset of the block being decompressed (where a ZstdError arose).
    """

    def __init__(self, fh: BinaryIO, closefd: bool = True) -> None:
        self._fh = fh
        self._closefd = closefd
        self._dctx = zstandard.ZstdDecompressor()
        self._obj: Any = None  # decompressor of the current frame, None between frames
        self._unused = b""  # input left over after the end of a frame
        self._pending = memoryview(b"")
        self._done = False
        self.compressed_pos = 0
        self.block_start = 0
        self._produced = 0

    def _fill(self) -> None:
        if self._unused:
            data, self._unused = self._unused, b""
        else:
            data = self._fh.read(_ZSTD_FEED)
            self.compressed_pos += len(data)
        if not data:
            self._done = True
            if self._obj is not None:
                raise EOFError("file ends inside a zstd frame")
            return
        self.block_start = self.compressed_pos - len(data)
        if self._obj is None:
            self._obj = self._dctx.decompressobj()
        out = self._obj.decompress(data)
        self._produced += len(out)
        if self._obj.eof:
            self._unused = self._obj.unused_data
            self._obj = None
        self._pending = memoryview(out)

    def close(self) -> None:
        if self._closefd:
            self._fh.close()

    def __enter__(self) -> ZstdStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Compressed bytes read at a time for gzip, xz and bzip2 (their output is bounded by `_MAX_OUT`).
_STREAM_FEED = 1 << 15
#: Decompressed bytes one call of a gzip, xz or bzip2 decompressor may return (bounds memory).
_MAX_OUT = 1 << 20


class _GzipMember:
    """zlib's gzip decoder (header flags and CRC, trailer CRC-32 and length all checked) with the
    interface of ``lzma.LZMADecompressor``: ``decompress(data, max_length)``, ``needs_input``."""

    def __init__(self) -> None:
        self._d = zlib.decompressobj(wbits=31)
        self.needs_input = True

    @property
    def eof(self) -> bool:
        return bool(self._d.eof)

    @property
    def unused_data(self) -> bytes:
        return bytes(self._d.unused_data)

    def decompress(self, data: bytes, max_length: int) -> bytes:
        out = self._d.decompress(self._d.unconsumed_tail + data, max_length)
        self.needs_input = not self._d.unconsumed_tail and len(out) < max_length
        return out


class StrictStream(_Decompressed):
    """Decompressed content of a gzip, xz or bzip2 file, stream after stream, as a binary stream.

    Python's ``lzma.LZMAFile`` and ``bz2.BZ2File`` stop silently at trailing data that is not a
    valid stream, and ``gzip.GzipFile`` does not check reserved header flags or the header CRC;
    here the input must be whole streams, one after the other, and nothing else but the padding
    the formats allow: NUL bytes after a gzip member (as Python's ``gzip`` allows), xz stream
    padding (NUL bytes in multiples of four). A truncated stream raises `EOFError`; corrupt data
    or trailing junk ``zlib.error``, ``lzma.LZMAError`` or ``OSError``.

    Parameters
    ----------
    fh : binary file object
        The compressed input (not closed here).
    compression : {"gzip", "xz", "bzip2"}

    Attributes
    ----------
    compressed_pos, block_start : int
        As in `ZstdStream`.
    """

    def __init__(self, fh: BinaryIO, compression: str) -> None:
        if compression not in ("gzip", "xz", "bzip2"):
            raise ValueError(f"StrictStream: compression must be gzip, xz or bzip2, got {compression!r}")
        self._fh = fh
        self._kind = compression
        self._dec: Any = None  # decompressor of the current stream, None between streams
        self._unused = b""
        self._pending = memoryview(b"")
        self._done = False
        self._padding = 0  # NUL padding seen since the last stream
        self.compressed_pos = 0
        self.block_start = 0
        self._produced = 0

    def _new(self) -> Any:
        if self._kind == "gzip":
            return _GzipMember()
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ) if self._kind == "xz" else bz2.BZ2Decompressor()

    def _input(self) -> bytes:
        if self._unused:
            data, self._unused = self._unused, b""
            return data
        data = self._fh.read(_STREAM_FEED)
        self.compressed_pos += len(data)
        return data

    def _fill(self) -> None:
        dec = self._dec
        if dec is not None and not dec.needs_input:
            out = dec.decompress(b"", _MAX_OUT)
        else:
            data = self._input()
            label = _LABEL[self._kind]
            if not data:
                self._done = True
                if dec is not None:
                    raise EOFError(f"file ends inside a {label} stream")
                if self._padding % 4 and self._kind == "xz":
                    raise lzma.LZMAError(f"{self._padding} NUL bytes of padding, not a multiple of 4")
                return
            self.block_start = self.compressed_pos - len(data)
            if dec is None:
                if self._kind != "bzip2":  # padding between or after streams
                    stripped = data.lstrip(b"\0")
                    self._padding += len(data) - len(stripped)
                    data = stripped
                    if not data:
                        return
                    if self._padding % 4 and self._kind == "xz":
                        raise lzma.LZMAError(f"{self._padding} NUL bytes of padding, not a multiple of 4")
                    self._padding = 0
                dec = self._dec = self._new()
            out = dec.decompress(data, _MAX_OUT)
        self._produced += len(out)
        if dec.eof:
            self._unused = dec.unused_data + self._unused
            self._dec = None
        self._pending = memoryview(out)

    def close(self) -> None:
        """Nothing to release (the input belongs to the caller)."""


#: What decompressors raise on truncated (EOFError) or corrupt input.
DECOMPRESSION_ERRORS: tuple[type[BaseException], ...] = (
    EOFError,
    OSError,  # gzip.BadGzipFile, bz2's "Invalid data stream"
    zlib.error,
    lzma.LZMAError,
    zstandard.ZstdError,
)


class _CheckedStream:
    """A decompressing stream whose decompression errors become `CompressedDataError`s."""

    def __init__(self, path: str | os.PathLike[str], compression: str, raw: BinaryIO, stream: Any) -> None:
        self._path = path
        self._label = _LABEL[compression]
        self._raw = raw
        self._stream = stream

    def read(self, n: int = -1) -> bytes:
        try:
            return self._stream.read(n)
        except DECOMPRESSION_ERRORS as exc:
            raise self._error(exc) from None

    def _error(self, exc: BaseException) -> CompressedDataError:
        if isinstance(self._stream, (ZstdStream, StrictStream)):
            truncated = isinstance(exc, EOFError)
            where = self._stream.compressed_pos if truncated else self._stream.block_start
            exact = truncated
        else:
            try:  # the stdlib decompressors read their input in blocks of a few KiB
                where, exact = self._raw.tell(), isinstance(exc, EOFError)
            except (OSError, ValueError):  # pragma: no cover - closed or unseekable input
                where, exact = None, False
        try:  # decompressed bytes produced before the failure
            produced: int | None = int(self._stream.tell())
        except (OSError, ValueError, EOFError):  # pragma: no cover - a stream that cannot tell
            produced = None
        detail = str(exc) or type(exc).__name__
        return CompressedDataError(
            self._path, self._label, detail, compressed_offset=where, offset=produced, exact=exact
        )

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            self._raw.close()

    def __enter__(self) -> _CheckedStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_bytes(path: str | os.PathLike[str]) -> BinaryIO:
    """Open `path` for binary reading, decompressing on the fly when compressed.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist (the message names it).
    CompressedDataError
        From ``read``, if compressed content is truncated or corrupt: a `TraceFormatError` naming
        the file, the compression and the compressed byte offset ("truncated or corrupt gzip data
        at compressed byte 100000: ...").
    """
    comp = compression_of(path)
    raw = open(path, "rb")  # noqa: SIM115 - returned to the caller
    if comp is None:
        return raw
    stream: Any
    if comp in ("gzip", "xz", "bzip2"):
        stream = StrictStream(raw, comp)
    else:
        stream = ZstdStream(raw, closefd=False)
    return _CheckedStream(path, comp, raw, stream)  # type: ignore[return-value]


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


def check_chunk_bytes(chunk_bytes: object) -> None:
    """Refuse a `chunk_bytes` reader option that is not a positive integer (0 would read nothing).

    Raises
    ------
    ValueError
        Naming the value.
    """
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, (int, np.integer)) or chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be a positive integer (bytes), got {chunk_bytes!r}")


def iter_line_chunks(path: str | os.PathLike[str], chunk_bytes: int = CHUNK_BYTES) -> Iterator[np.ndarray]:
    """Decompressed content of `path` as uint8 arrays that each end with a whole line.

    Every chunk but possibly the last ends with ``\\n``; no line is split between chunks (a line
    longer than `chunk_bytes` makes a longer chunk). Arrays are read-only views of bytes objects.
    A UTF-8 byte-order mark at the start of the content is dropped.

    Raises
    ------
    ValueError
        If `chunk_bytes` is not a positive integer.
    TraceFormatError
        If a line is longer than `MAX_LINE_BYTES` and does not end in the chunk where it starts
        (content without newlines), naming its line number.
    """
    check_chunk_bytes(chunk_bytes)
    carry = b""
    first = True
    lines = 0  # lines yielded so far
    with open_bytes(path) as fh:
        while True:
            data = _read_full(fh, chunk_bytes)
            if first:
                first = False
                if data.startswith(UTF8_BOM):
                    data = data[len(UTF8_BOM) :] or _read_full(fh, chunk_bytes)
            if not data:
                break
            if carry:
                data = carry + data
            cut = data.rfind(b"\n")
            if cut >= 0:
                yield np.frombuffer(data, dtype=np.uint8, count=cut + 1)
                lines += data.count(b"\n", 0, cut + 1)
            carry = data[cut + 1 :]
            if len(carry) > MAX_LINE_BYTES:  # refused before it grows further (a file with no newline)
                raise TraceFormatError(
                    path,
                    lines + 1,
                    carry[:80].decode("utf-8", errors="replace"),
                    f"lines of at most {MAX_LINE_BYTES:,} bytes",
                )
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
    ValueError
        If `chunk_bytes` is not a positive integer.
    TraceFormatError
        If the content does not end on a record boundary; names the byte offset of the
        incomplete record and `expected` (e.g. "24-byte oracleGeneral records").
    """
    check_chunk_bytes(chunk_bytes)
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
