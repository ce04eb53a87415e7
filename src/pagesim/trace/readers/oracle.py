"""libCacheSim ``oracleGeneral`` binary traces: packed little-endian 24-byte records.

Record layout (no padding)::

    uint32 time               clock time (seconds in libCacheSim's traces)
    uint64 obj_id             object id
    uint32 obj_size           object size in bytes
    int64  next_access_vtime  1-based index of the next request to obj_id, -1 if none

The next-access column is not stored in the Trace (`Trace.next_access` recomputes it, 0-based).
Plain or compressed (``.zst`` as libCacheSim distributes them, or gzip/xz/bzip2).
"""

from __future__ import annotations

import os

import numpy as np

from .._stream import CHUNK_BYTES, iter_record_chunks
from ..errors import TraceFormatError
from ..trace import Trace
from ._common import base_source

NAME = "oracle"
DESCRIPTION = "libCacheSim oracleGeneral: packed 24-byte records {u32 time, u64 id, u32 size, i64 next}; zst"
EXTENSIONS = (".oracleGeneral", ".oracleGeneral.bin", ".oraclegeneral")

#: The on-disk record, packed and little-endian.
RECORD = np.dtype([("time", "<u4"), ("obj_id", "<u8"), ("obj_size", "<u4"), ("next_access_vtime", "<i8")])
assert RECORD.itemsize == 24
EXPECTED = "24-byte oracleGeneral records"
#: Largest next-access index `sniff` accepts when the content's length is unknown.
_MAX_SNIFF_VTIME = 1 << 48


def read(path: str | os.PathLike[str], *, chunk_bytes: int = CHUNK_BYTES) -> Trace:
    """Read an oracleGeneral trace; see the module docstring.

    Parameters
    ----------
    path : str or os.PathLike
        The file, plain or compressed (recognised by content).
    chunk_bytes : int, optional
        Decompressed bytes per chunk (16 MiB, rounded down to whole records).

    Returns
    -------
    Trace
        ``size`` = obj_size (bytes), ``time`` = time (``source["time_unit"] = "s"``); all reads.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    TraceFormatError
        If the (decompressed) content is not a whole number of 24-byte records, or the records
        are not plausible (:func:`check_plausible`); names the file and the byte offset of the
        incomplete or first implausible record.
    """
    ids, sizes, times, nexts = [], [], [], []
    for data in iter_record_chunks(path, RECORD.itemsize, EXPECTED, chunk_bytes):
        rec = np.frombuffer(data, dtype=RECORD)
        ids.append(rec["obj_id"].astype(np.uint64))
        sizes.append(rec["obj_size"].astype(np.int64))
        times.append(rec["time"].astype(np.int64))
        nexts.append(rec["next_access_vtime"].astype(np.int64))
    ids_a = np.concatenate(ids).view(np.int64) if ids else np.empty(0, dtype=np.int64)
    size = np.concatenate(sizes) if sizes else np.empty(0, dtype=np.int64)
    time = np.concatenate(times) if times else np.empty(0, dtype=np.int64)
    check_plausible(path, ids_a, time, np.concatenate(nexts) if nexts else np.empty(0, dtype=np.int64))
    source = base_source(path, NAME, {})
    source["time_unit"] = "s"
    return Trace.from_ids(ids_a, size=size, time=time, source=source)


def check_plausible(
    path: str | os.PathLike[str], obj_id: np.ndarray, time: np.ndarray, next_vtime: np.ndarray
) -> None:
    """Refuse records that are not a request sequence, such as random bytes named ``.oracleGeneral``.

    A file is taken as oracleGeneral by its name alone; these checks stand in for the content
    test :func:`sniff` makes of an unnamed file. Request ``i`` (1-based) must have a
    ``next_access_vtime`` of -1 or above ``i``; where it names a request of this file (at most
    ``n``) that request must be of the same object (one past the end is a truncated trace's,
    as ``head -c`` of a real trace leaves); and times must not decrease (libCacheSim's traces
    are in time order). Sizes are not checked: a size of 0 is a legitimate record.

    Parameters
    ----------
    obj_id, time, next_vtime : numpy.ndarray of int64, shape (n,)
        The records' columns as read.

    Raises
    ------
    TraceFormatError
        At the first implausible record, with its byte offset and what was wrong.
    """
    n = obj_id.shape[0]
    index = np.arange(1, n + 1, dtype=np.int64)
    has_next = next_vtime != -1
    in_range = ~has_next | (next_vtime > index)
    same = np.ones(n, dtype=bool)
    follows = has_next & in_range & (next_vtime <= n)
    same[follows] = obj_id[next_vtime[follows] - 1] == obj_id[follows]
    ordered = np.ones(n, dtype=bool)
    ordered[1:] = time[1:] >= time[:-1]
    for bad, what in (
        (~in_range, "next_access_vtime -1 or a later request's 1-based index"),
        (~same, "next_access_vtime naming a request to the same obj_id"),
        (~ordered, "a time no earlier than the previous record's"),
    ):
        if bad.any():
            i = int(np.argmax(bad))
            oid = int(obj_id[i]) & 0xFFFFFFFFFFFFFFFF  # as stored: unsigned
            found = f"request {i + 1}: obj_id {oid}, time {time[i]}, next_access_vtime {next_vtime[i]}"
            raise TraceFormatError(path, None, found, what.format(n=n), offset=i * RECORD.itemsize)


def write(trace: Trace, path: str | os.PathLike[str], *, compress: bool | None = None) -> None:
    """Write `trace` as oracleGeneral records (lossy: only original ids, sizes and times).

    Parameters
    ----------
    trace : Trace
        Any trace; missing sizes are written as 4096 bytes, missing times as 0. Times and sizes
        must fit in uint32.
    path : str or os.PathLike
        Output file; zstd-compressed when `compress` is True, or None and the name ends in ``.zst``.
    compress : bool or None, optional
        See `path`.

    Raises
    ------
    ValueError
        If a size or time does not fit in uint32.
    """
    n = trace.n_requests
    rec = np.empty(n, dtype=RECORD)
    rec["obj_id"] = trace.original_id[trace.page].view(np.uint64)
    for name, col, default in (("obj_size", trace.size, 4096), ("time", trace.time, 0)):
        if col is None:
            rec[name] = default
            continue
        if n and (int(col.min()) < 0 or int(col.max()) > np.iinfo(np.uint32).max):
            raise ValueError(f"oracleGeneral: {name} values must fit in uint32")
        rec[name] = col
    nxt = trace.next_access()
    rec["next_access_vtime"] = np.where(nxt == np.iinfo(np.int64).max, -1, nxt + 1)
    _write_bytes(path, rec.tobytes(), compress)


def _write_bytes(path: str | os.PathLike[str], data: bytes, compress: bool | None) -> None:
    import zstandard

    if compress is None:
        compress = os.fspath(path).endswith((".zst", ".zstd"))
    if compress:
        data = zstandard.ZstdCompressor(level=3, write_checksum=True).compress(data)
    with open(path, "wb") as fh:
        fh.write(data)


def sniff(head: bytes, size: int | None = None) -> bool:
    """True if `head` holds plausible oracleGeneral records, strictly enough that text never is.

    Every whole record in `head` must have ``obj_size > 0`` and a ``next_access_vtime`` that is -1
    or a 1-based request index beyond its own and not beyond the last request: at most
    ``size // 24`` when the content's length `size` is known (which must then be a multiple of
    24), else at most 2**48. Text fails on its first record: the little-endian int64 in its
    bytes 16..23 is at least 2**56 or negative unless byte 23 is NUL or all eight are 0xff.
    """
    rec_bytes = RECORD.itemsize
    if size is not None:
        if size % rec_bytes:
            return False
        limit = size // rec_bytes
    else:
        limit = _MAX_SNIFF_VTIME
    n = len(head) // rec_bytes
    if n == 0:
        return False
    rec = np.frombuffer(head[: n * rec_bytes], dtype=RECORD)
    nxt = rec["next_access_vtime"]
    idx = np.arange(1, n + 1)
    ok_next = (nxt == -1) | ((nxt > idx) & (nxt <= limit))
    return bool(np.all(ok_next) and np.all(rec["obj_size"] > 0))
