"""CloudPhysics vSCSI binary traces, as read by libCacheSim's vscsi reader.

Two record layouts, both little-endian with natural alignment; the version is the high byte of
``ver`` (libCacheSim ``test_vscsi_version``: the first two records must agree, v2 tried first)::

    v1 (32 bytes): uint32 sn, uint32 len, uint32 nSG, uint16 cmd, uint16 ver, uint64 lbn, uint64 ts
    v2 (40 bytes): uint16 cmd, uint16 ver, uint32 sn, uint32 len, uint32 nSG, uint64 lbn,
                   uint64 ts, uint64 rt

As in libCacheSim, the object id is ``lbn`` (one request per record, not expanded into blocks) and
the size is ``len`` (bytes). Departures from libCacheSim: ``time`` keeps ``ts`` in microseconds
(libCacheSim divides by 10**6), ``op`` is decoded from the SCSI opcode ``cmd`` (libCacheSim leaves
it unset; READ(6/10/12/16) -> read, WRITE(6/10/12/16) -> write, anything else -> read, counted in
``source["n_other_cmd"]``), and trailing bytes that do not make a whole record are an error
(libCacheSim ignores them), as is a ``ts`` of 2**63 or more (named by its byte offset; it does not
fit the int64 ``time`` column).
"""

from __future__ import annotations

import os

import numpy as np

from .._stream import CHUNK_BYTES, iter_record_chunks, read_head
from ..errors import TraceFormatError
from ..trace import OP_READ, OP_WRITE, Trace
from ._common import base_source

NAME = "vscsi"
DESCRIPTION = "CloudPhysics vSCSI binary (libCacheSim vscsi, v1 32-byte / v2 40-byte records); id = LBA"
EXTENSIONS = (".vscsi",)

RECORD_V1 = np.dtype(
    [
        ("sn", "<u4"),
        ("len", "<u4"),
        ("nSG", "<u4"),
        ("cmd", "<u2"),
        ("ver", "<u2"),
        ("lbn", "<u8"),
        ("ts", "<u8"),
    ]
)
RECORD_V2 = np.dtype(
    [
        ("cmd", "<u2"),
        ("ver", "<u2"),
        ("sn", "<u4"),
        ("len", "<u4"),
        ("nSG", "<u4"),
        ("lbn", "<u8"),
        ("ts", "<u8"),
        ("rt", "<u8"),
    ]
)
assert RECORD_V1.itemsize == 32 and RECORD_V2.itemsize == 40

_I64_MAX = (1 << 63) - 1
_READ_CMDS = np.array([0x08, 0x28, 0xA8, 0x88], dtype=np.uint16)
_WRITE_CMDS = np.array([0x0A, 0x2A, 0xAA, 0x8A], dtype=np.uint16)


def version_of(head: bytes) -> int | None:
    """vSCSI version (1 or 2) from the first records in `head`, or None if neither fits."""
    for version, dtype in ((2, RECORD_V2), (1, RECORD_V1)):
        n = min(2, len(head) // dtype.itemsize)
        if n == 0:
            continue
        rec = np.frombuffer(head[: n * dtype.itemsize], dtype=dtype)
        if np.all(rec["ver"] >> 8 == version):
            return version
    return None


def read(path: str | os.PathLike[str], *, chunk_bytes: int = CHUNK_BYTES) -> Trace:
    """Read a vSCSI trace; see the module docstring.

    Parameters
    ----------
    path : str or os.PathLike
        The file, plain or compressed (recognised by content).
    chunk_bytes : int, optional
        Decompressed bytes per chunk (16 MiB, rounded down to whole records).

    Returns
    -------
    Trace
        ids = LBA, ``size`` = len (bytes), ``time`` = ts (``source["time_unit"] = "us"``),
        ``op`` from the SCSI command; ``source["vscsi_version"]``.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    TraceFormatError
        If the first records carry no known version, the content is not a whole number of
        records, or a ``ts`` is 2**63 or more (names the byte offset).
    """
    head = read_head(path, 2 * RECORD_V2.itemsize)
    source = base_source(path, NAME, {})
    source["time_unit"] = "us"
    if not head:
        source["vscsi_version"] = None
        source["n_other_cmd"] = 0
        e = np.empty(0, dtype=np.int64)
        return Trace.from_ids(e, size=e, time=e, source=source)
    version = version_of(head)
    if version is None:
        raise TraceFormatError(
            path,
            None,
            f"first bytes {head[:16].hex(' ')}",
            "vSCSI records with version byte 1 or 2",
            offset=0,
        )
    dtype = RECORD_V1 if version == 1 else RECORD_V2
    ids, sizes, times, ops = [], [], [], []
    n_other = 0
    offset = 0
    for data in iter_record_chunks(
        path, dtype.itemsize, f"{dtype.itemsize}-byte vSCSI v{version} records", chunk_bytes
    ):
        rec = np.frombuffer(data, dtype=dtype)
        _check_times(path, rec, offset)
        offset += len(data)
        ids.append(rec["lbn"].copy())
        sizes.append(rec["len"].astype(np.int64))
        times.append(rec["ts"].astype(np.int64))
        cmd = rec["cmd"]
        is_write = np.isin(cmd, _WRITE_CMDS)
        n_other += int(np.count_nonzero(~is_write & ~np.isin(cmd, _READ_CMDS)))
        ops.append(np.where(is_write, OP_WRITE, OP_READ).astype(np.uint8))
    source["vscsi_version"] = version
    source["n_other_cmd"] = n_other
    return Trace.from_ids(
        np.concatenate(ids).view(np.int64),
        size=np.concatenate(sizes),
        time=np.concatenate(times),
        op=np.concatenate(ops),
        source=source,
    )


def _check_times(path: str | os.PathLike[str], rec: np.ndarray, offset: int) -> None:
    """Refuse a ``ts`` above 2**63 - 1 (it would wrap to a negative int64 time)."""
    big = np.flatnonzero(rec["ts"] > np.uint64(_I64_MAX))
    if big.size:
        k = int(big[0])
        at = offset + k * rec.dtype.itemsize + rec.dtype.fields["ts"][1]
        raise TraceFormatError(path, None, f"ts {int(rec['ts'][k])}", "a time (ts) below 2**63", offset=at)


def sniff(head: bytes, size: int | None = None) -> bool:
    """True if the first records of `head` carry a vSCSI version byte (and `size`, when known, is
    a whole number of records of that version)."""
    if len(head) < RECORD_V1.itemsize:
        return False
    version = version_of(head)
    if version is None:
        return False
    return size is None or size % (RECORD_V1 if version == 1 else RECORD_V2).itemsize == 0
