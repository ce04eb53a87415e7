"""The chunks of a streamed trace as the cache-mode loop reads them (:class:`ChunkFeed`)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from pagesim.trace.stream import NextAccessFile, TraceChunk, TraceStream, zero_size_at

__all__ = ["ChunkFeed"]

Columns = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class ChunkFeed:
    """A `TraceStream`'s chunks as the loop's arrays ``(page, size, nxt, cgroup, tag, op)``.

    What :class:`pagesim.engine.simulate.Run` holds of a streamed trace: one chunk's columns
    (with the loop's dtypes) and, for a policy that needs next accesses, the window of the
    stream's `NextAccessFile` over that chunk. ``start`` and ``stop`` delimit the current chunk.

    Raises
    ------
    ValueError
        If bytes are asked of a stream without sizes; from :meth:`next`, at an object of size
        <= 0 that is no delete (bytes mode), with its access index.
    """

    def __init__(self, stream: TraceStream, capacity_unit: str, needs_next: bool) -> None:
        if capacity_unit == "bytes" and not stream.has_size:
            raise ValueError("--capacity-unit bytes needs a trace with object sizes")
        self.stream = stream
        self.bytes_mode = capacity_unit == "bytes"
        self.has_op = stream.has_op
        self.next_file: NextAccessFile | None = stream.next_access() if needs_next else None
        self._chunks: Iterator[TraceChunk] | None = None
        self.start = 0
        self.stop = 0

    def empty(self) -> Columns:
        """Columns of no access (for ``init``)."""
        none = np.zeros(0, np.int64)
        return self._columns(TraceChunk(0, none, none, None, None, None))

    def next(self) -> Columns:
        """The columns of the next chunk; ``start``/``stop`` move to it.

        Raises
        ------
        ValueError
            If the stream ends before ``n_requests`` accesses (a trace that changed meanwhile).
        """
        if self._chunks is None:
            self._chunks = self.stream.chunks()
        chunk = next(self._chunks, None)
        if chunk is None or chunk.page.shape[0] == 0 or chunk.start != self.stop:
            raise ValueError(
                f"{self.stream.source.get('path', 'the trace')}: the stream ended after "
                f"{self.stop} of {self.stream.n_requests} accesses"
            )
        self.start = chunk.start
        self.stop = chunk.start + chunk.page.shape[0]
        return self._columns(chunk)

    def _columns(self, chunk: TraceChunk) -> Columns:
        m = chunk.page.shape[0]
        page = np.ascontiguousarray(chunk.page, dtype=np.int64)
        if self.bytes_mode:
            size = np.ascontiguousarray(chunk.size, dtype=np.int64)
            bad = zero_size_at(size, chunk.op)
            if bad >= 0:
                where = self.stream.source.get("path", "")
                raise ValueError(
                    f"{where + ': ' if where else ''}access {chunk.start + bad} (0-based) has object "
                    f"size {int(size[bad])}: with --capacity-unit bytes every object must weigh at "
                    "least 1 byte"
                )
        else:
            size = np.ones(m, dtype=np.int64)
        nxt = (
            np.zeros(0, np.int64)
            if self.next_file is None
            else self.next_file.window(chunk.start, chunk.start + m)
        )
        cgroup = np.zeros(m, np.int64) if chunk.cgroup is None else chunk.cgroup.astype(np.int64)
        tag = np.zeros(m, np.int32) if chunk.tag is None else np.ascontiguousarray(chunk.tag, dtype=np.int32)
        op = (
            np.ascontiguousarray(chunk.op, dtype=np.uint8)
            if self.has_op and chunk.op is not None
            else np.zeros(m if self.has_op else 0, np.uint8)
        )
        return page, size, nxt, cgroup, tag, op
