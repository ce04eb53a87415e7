"""Traces read in chunks, for cache mode's bounded memory.

A `TraceStream` gives a trace's accesses as a sequence of `TraceChunk` (dense page ids and the
columns the engine reads), never all of them at once: what a streamed run holds is one chunk,
the per-page arrays (the engine's state and, for formats that need it, an `IdMap` of the
distinct ids) and nothing that grows with the trace's length. Streams:

- `MemoryStream`: chunks of a `Trace` already in memory (views, no copy); the streamed and the
  in-memory path then run the very same accesses, which the tests compare.
- `PgtStream`: a ``.pgt`` file (:mod:`pagesim.trace.readers.native`): its columns are read
  member by member, ``chunk`` accesses at a time, through the zstd frames (each checked), the
  page ids checked dense in first-occurrence order as they come. A first pass reads the cgroup
  column alone for the number of cgroups.
- `OracleStream`: libCacheSim oracleGeneral records (:mod:`pagesim.trace.readers.oracle`), plain
  or compressed. A first pass maps the ids to dense pages (`IdMap`) and counts the accesses; each
  later pass decompresses the file again and maps its chunks through the same map.

OPT needs every access's next access: :meth:`TraceStream.next_access` writes it to a temporary
file (8 bytes per access, in ``TMPDIR`` or the directory given) in one forward pass that writes
the page ids and one backward pass, chunk by chunk, that overwrites them in place with the next
accesses; the engine maps one chunk's window of that file at a time (`NextAccessFile`). The file
is deleted by :meth:`TraceStream.close` (or when the stream is collected).

`should_stream` decides whether ``pagesim compare`` streams a file (``PAGESIM_STREAM``).
"""

from __future__ import annotations

import os
import tempfile
import weakref
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np
from numba import njit, types

from ._jit import JIT
from ._stream import CHUNK_BYTES, compression_of, iter_record_chunks
from .errors import TraceFormatError
from .remap import IdMap
from .trace import NEVER, OP_FREE, Trace

__all__ = [
    "CHUNK_ACCESSES",
    "NextAccessFile",
    "STREAM_THRESHOLD_BYTES",
    "TraceChunk",
    "TraceStream",
    "open_stream",
    "should_stream",
]

#: Accesses per chunk of a stream by default (about 40 MB of columns).
CHUNK_ACCESSES = 2_000_000
#: ``pagesim compare`` streams a ``.pgt`` or oracleGeneral file whose columns would take at least
#: this many bytes in memory (``PAGESIM_STREAM=always`` or ``never`` overrides).
STREAM_THRESHOLD_BYTES = 512 << 20
#: Formats that can be streamed.
STREAMABLE = ("pagesim", "oracle")


class TraceChunk(NamedTuple):
    """Accesses ``start .. start + len(page)`` of a trace.

    page : int64 (m,) dense ids; size : int64 (m,) bytes or None; cgroup : uint16 (m,) or None;
    tag : int32 (m,) or None; op : uint8 (m,) or None (absent columns are all 0).
    """

    start: int
    page: np.ndarray
    size: np.ndarray | None
    cgroup: np.ndarray | None
    tag: np.ndarray | None
    op: np.ndarray | None


@njit(types.int64(types.Array(types.int64, 1, "C", readonly=True), types.int64[::1]), **JIT)
def _dense_violation(page, next_new):  # pragma: no cover - compiled
    """First index of `page` that breaks dense first-occurrence order given ``next_new[0]``
    pages seen before it (-1 if none); advances ``next_new[0]``."""
    nn = next_new[0]
    for i in range(page.size):
        p = page[i]
        if p < 0 or p > nn:
            next_new[0] = nn
            return i
        if p == nn:
            nn += 1
    next_new[0] = nn
    return -1


@njit(types.void(types.int64[::1], types.int64, types.int64[::1]), **JIT)
def _next_backward(block, start, last):  # pragma: no cover - compiled
    """Replace the page ids of accesses ``start ..`` in `block` by their next accesses, given
    in `last` each page's first access after the block (`NEVER` if none); updates `last`."""
    for i in range(block.size - 1, -1, -1):
        p = block[i]
        block[i] = last[p]
        last[p] = start + i


class NextAccessFile:
    """Every access's next access to the same page (`Trace.next_access`), in a temporary file.

    Built by two passes over `stream` (see the module docstring); disk: 8 bytes per access;
    memory: 8 bytes per page and one block. `window` maps one range of it.

    Raises
    ------
    OSError
        If the temporary file cannot be written (a full disk).
    """

    def __init__(self, stream: TraceStream, tmpdir: str | None = None, block: int = CHUNK_ACCESSES) -> None:
        fd, self.path = tempfile.mkstemp(prefix="pagesim-next-", suffix=".i64", dir=tmpdir)
        self._finalizer = weakref.finalize(self, _unlink, self.path)
        self.n = stream.n_requests
        with os.fdopen(fd, "wb") as fh:
            for chunk in stream.chunks():
                fh.write(np.ascontiguousarray(chunk.page, dtype="<i8").tobytes())
        last = np.full(max(stream.n_pages, 1), NEVER, dtype=np.int64)
        with open(self.path, "r+b") as fh:
            for s in range((self.n - 1) // block * block if self.n else -1, -1, -block):
                e = min(self.n, s + block)
                fh.seek(8 * s)
                part = np.fromfile(fh, dtype="<i8", count=e - s).astype(np.int64)
                _next_backward(part, s, last)
                fh.seek(8 * s)
                fh.write(part.tobytes())

    def window(self, start: int, stop: int) -> np.ndarray:
        """Next accesses of accesses ``start:stop`` (int64, trace indices or `NEVER`), mapped
        copy-on-write from the file (nothing is written back)."""
        if stop <= start:
            return np.zeros(0, dtype=np.int64)
        return np.memmap(self.path, dtype=np.int64, mode="c", offset=8 * start, shape=(stop - start,))

    def close(self) -> None:
        """Delete the file."""
        self._finalizer()


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


class TraceStream:
    """A trace read in chunks; subclasses set the attributes and implement :meth:`_chunks`.

    Attributes
    ----------
    n_requests, n_pages, n_cgroups : int
        Accesses, distinct pages (dense ids ``0 .. n_pages - 1``), cgroups (1 + largest cgroup).
    has_size, has_op, has_tag, has_cgroup : bool
        Which optional columns the chunks carry.
    source : dict
        As `Trace.source`, with ``streamed: True``.
    chunk : int
        Accesses per chunk.
    """

    n_requests: int = 0
    n_pages: int = 0
    n_cgroups: int = 1
    has_size: bool = False
    has_op: bool = False
    has_tag: bool = False
    has_cgroup: bool = False
    source: dict[str, Any]
    chunk: int = CHUNK_ACCESSES
    _next: NextAccessFile | None = None
    _footprint: int | None = None

    def chunks(self) -> Iterator[TraceChunk]:
        """The accesses in order, `chunk` at a time (the last chunk may be shorter)."""
        return self._chunks()

    def _chunks(self) -> Iterator[TraceChunk]:
        raise NotImplementedError

    def next_access(self, tmpdir: str | None = None) -> NextAccessFile:
        """The `NextAccessFile` of this trace, built on the first call and kept until `close`."""
        if self._next is None:
            self._next = NextAccessFile(self, tmpdir, max(self.chunk, 1 << 16))
        return self._next

    def footprint_bytes(self) -> int:
        """Sum over pages of the largest size each is accessed with (one pass, then kept; needs sizes)."""
        if not self.has_size:
            raise ValueError("--capacity-unit bytes needs a trace with object sizes")
        if self._footprint is None:
            biggest = np.zeros(max(self.n_pages, 1), dtype=np.int64)
            for ch in self.chunks():
                np.maximum.at(biggest, ch.page, ch.size)
            self._footprint = int(biggest.sum())
        return self._footprint

    def close(self) -> None:
        """Delete the temporary next-access file, if one was made."""
        if self._next is not None:
            self._next.close()
            self._next = None

    def __enter__(self) -> TraceStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return self.n_requests

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(n_requests={self.n_requests}, n_pages={self.n_pages}, "
            f"path={self.source.get('path', '')!r})"
        )


def _check_chunk(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"chunk must be a positive number of accesses, got {n!r}")
    return int(n)


class MemoryStream(TraceStream):
    """The accesses of an in-memory `Trace`, `chunk` at a time (views of its columns)."""

    def __init__(self, trace: Trace, chunk: int = CHUNK_ACCESSES) -> None:
        self.trace = trace
        self.chunk = _check_chunk(chunk)
        self.n_requests = trace.n_requests
        self.n_pages = trace.n_pages
        cg = trace.cgroup
        self.n_cgroups = int(cg.max()) + 1 if cg is not None and cg.size else 1
        self.has_size = trace.size is not None
        self.has_op = trace.op is not None
        self.has_tag = trace.tag is not None
        self.has_cgroup = cg is not None
        self.source = {**trace.source, "streamed": True}

    def _chunks(self) -> Iterator[TraceChunk]:
        t = self.trace
        for s in range(0, self.n_requests, self.chunk):
            e = min(s + self.chunk, self.n_requests)
            cut = [None if c is None else c[s:e] for c in (t.size, t.cgroup, t.tag, t.op)]
            yield TraceChunk(s, t.page[s:e], *cut)


class OracleStream(TraceStream):
    """An oracleGeneral file in chunks of ``chunk_bytes`` decompressed bytes (see the module).

    The first pass checks what `pagesim.trace.readers.oracle.check_plausible` checks, within each
    chunk for a next access that falls in the same chunk (across chunks only the time order and
    the range of ``next_access_vtime``).

    Raises
    ------
    FileNotFoundError, TraceFormatError
        As `pagesim.trace.readers.oracle.read`.
    """

    def __init__(self, path: str | os.PathLike[str], chunk_bytes: int = CHUNK_BYTES) -> None:
        from .readers import oracle
        from .readers._common import base_source

        self.path = path
        self._record = oracle.RECORD
        self.chunk_bytes = chunk_bytes
        self.chunk = max(1, chunk_bytes // oracle.RECORD.itemsize)
        self.ids = IdMap()
        n = 0
        last_time = -1
        for data in iter_record_chunks(path, oracle.RECORD.itemsize, oracle.EXPECTED, chunk_bytes):
            rec = np.frombuffer(data, dtype=oracle.RECORD)
            ids = rec["obj_id"].astype(np.uint64).view(np.int64)
            time = rec["time"].astype(np.int64)
            nxt = rec["next_access_vtime"].astype(np.int64)
            if time.size and time[0] < last_time:
                found = f"request {n + 1}: time {time[0]}"
                what = "a time no earlier than the previous record's"
                raise TraceFormatError(path, None, found, what, offset=n * oracle.RECORD.itemsize)
            _check_local(path, oracle, ids, time, nxt, n)
            last_time = int(time[-1]) if time.size else last_time
            self.ids.map(ids)
            n += rec.shape[0]
        self.n_requests = n
        self.n_pages = self.ids.n_distinct
        self.has_size = True
        self.source = {**base_source(path, oracle.NAME, {}), "time_unit": "s", "streamed": True}

    def _chunks(self) -> Iterator[TraceChunk]:
        start = 0
        for data in iter_record_chunks(self.path, self._record.itemsize, "", self.chunk_bytes):
            rec = np.frombuffer(data, dtype=self._record)
            page = self.ids.map(rec["obj_id"].astype(np.uint64).view(np.int64))
            yield TraceChunk(start, page, rec["obj_size"].astype(np.int64), None, None, None)
            start += rec.shape[0]


def _check_local(
    path: Any, oracle: Any, ids: np.ndarray, time: np.ndarray, nxt: np.ndarray, base: int
) -> None:
    """`check_plausible`'s checks on one chunk of records whose first is request ``base + 1``: a
    next access must be -1 or later, name a request to the same id when it falls in the chunk,
    and times must not decrease."""
    n = ids.shape[0]
    index = np.arange(base + 1, base + n + 1, dtype=np.int64)
    has_next = nxt != -1
    in_range = ~has_next | (nxt > index)
    same = np.ones(n, dtype=bool)
    inside = has_next & in_range & (nxt <= base + n)
    same[inside] = ids[nxt[inside] - base - 1] == ids[inside]
    ordered = np.ones(n, dtype=bool)
    ordered[1:] = time[1:] >= time[:-1]
    for bad, what in (
        (~in_range, "next_access_vtime -1 or a later request's 1-based index"),
        (~same, "next_access_vtime naming a request to the same obj_id"),
        (~ordered, "a time no earlier than the previous record's"),
    ):
        if bad.any():
            i = int(np.argmax(bad))
            oid = int(ids[i]) & 0xFFFFFFFFFFFFFFFF
            found = f"request {base + i + 1}: obj_id {oid}, time {time[i]}, next_access_vtime {nxt[i]}"
            raise TraceFormatError(path, None, found, what, offset=(base + i) * oracle.RECORD.itemsize)


def open_stream(
    path: str | os.PathLike[str],
    format: str | None = None,
    *,
    chunk: int = CHUNK_ACCESSES,
    **options: Any,  # noqa: A002
) -> TraceStream:
    """A `TraceStream` of a ``.pgt`` or oracleGeneral file.

    Parameters
    ----------
    path : str or os.PathLike
        The trace file.
    format : {"pagesim", "oracle"} or None
        None detects it (`pagesim.trace.detect_format`).
    chunk : int
        Accesses per chunk (``.pgt``); oracleGeneral chunks are ``chunk_bytes`` of records.
    **options
        ``chunk_bytes`` for oracleGeneral (decompressed bytes per chunk).

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    ValueError
        If the format cannot be streamed or an option is unknown.
    TraceFormatError
        If the file is malformed (as its reader says it).
    """
    from .io import detect_format

    name = format if format is not None else detect_format(path)
    if name not in STREAMABLE:
        raise ValueError(f"format {name!r} cannot be streamed; streamable: {', '.join(STREAMABLE)}")
    allowed = {"chunk_bytes"} if name == "oracle" else set()
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ValueError(f"format {name!r} streams without the reader option(s) {', '.join(unknown)}")
    if name == "oracle":
        return OracleStream(path, int(options.get("chunk_bytes", CHUNK_BYTES)))
    from ._pgt_stream import PgtStream

    return PgtStream(path, _check_chunk(chunk))


def should_stream(path: str | os.PathLike[str], format: str | None = None) -> bool:  # noqa: A002
    """Whether ``pagesim compare`` streams `path` in cache mode.

    ``PAGESIM_STREAM=always`` streams every streamable file, ``never`` none; otherwise (``auto``)
    a ``.pgt`` or oracleGeneral file whose columns would take at least `STREAM_THRESHOLD_BYTES`
    in memory is streamed (``.pgt``: accesses from meta.json times the bytes per access of its
    columns; oracleGeneral: 40 bytes per 24-byte record, its compressed size taken as a third of
    the content).

    A ``.pgt`` file whose meta.json cannot be read is not streamed (`pagesim.trace.read_trace`
    then reports what is wrong with it).

    Raises
    ------
    ValueError
        If ``PAGESIM_STREAM`` is not auto, always or never.
    """
    from .io import detect_format

    mode = os.environ.get("PAGESIM_STREAM", "auto").strip().lower() or "auto"
    if mode not in ("auto", "always", "never"):
        raise ValueError(f"PAGESIM_STREAM must be auto, always or never, got {mode!r}")
    name = format if format is not None else detect_format(path)
    if name not in STREAMABLE or mode == "never":
        return False
    if mode == "always":
        return True
    if name == "oracle":
        content = os.path.getsize(path) * (1 if compression_of(path) is None else 3)
        return content // 24 * 40 >= STREAM_THRESHOLD_BYTES
    from ._pgt_stream import pgt_column_bytes

    try:
        return pgt_column_bytes(path) >= STREAM_THRESHOLD_BYTES
    except (OSError, ValueError):  # a damaged file: reading it says what is wrong, as always
        return False


def is_stream(trace: object) -> bool:
    """True for a `TraceStream`."""
    return isinstance(trace, TraceStream)


def zero_size_at(size: np.ndarray, op: np.ndarray | None) -> int:
    """Index of the first size <= 0 of an access that is no delete in a chunk; -1 if none."""
    bad = size <= 0
    if op is not None and op.shape[0]:
        bad &= op != OP_FREE
    return int(np.argmax(bad)) if bad.any() else -1
