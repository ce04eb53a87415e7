"""An operation trace (page accesses and the application operation of each) and its assembly.

Every cache_ext workload builds its accesses as chunks of (operation number, page id, read or
write) with :class:`_Builder`, then :func:`_finish` turns them into an :class:`OpTrace`: a
:class:`~pagesim.trace.Trace` of file pages (``tag`` = thread, ``cgroup``; ``time`` = release
times in ns when the workload paces its operations) and, per access, its operation. Page ids are
source ids built by :func:`_ids`: a region (the LevelDB level, the log, the file tree...) in the
high bits, then the file, then the page in the file. Sizes are the paper's times ``scale``
(:data:`DEFAULT_SCALE`, 1/1024).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pagesim.trace import KIND_FILE, OP_FREE, OP_READ, OP_WRITE, Trace

PAGE = 4096
DEFAULT_SCALE = 1 / 1024  #: of the paper's sizes: LevelDB's 10 GiB cgroup -> 2,560 pages
GIB_PAGES = (1 << 30) // PAGE
LEVEL1_PAGES = (10 << 20) // PAGE  #: LevelDB's level-1 target (10 MiB; x 10 per level below)


#: Operation kinds (``OpTrace.op_kind``).
OP_GET = 0
OP_UPDATE = 1
OP_INSERT = 2
OP_SCAN = 3
OP_RMW = 4
OP_FILE = 5  #: one file read by the search
OP_COMPACT = 6  #: one compaction step (read a page of the input, write a page of the output)
OP_NAMES = ("get", "update", "insert", "scan", "rmw", "file", "compact")


# source ids: region in the high bits, then the file, then the page in the file
_R_MAIN, _R_UPPER, _R_L0, _R_LOG, _R_TREE, _R_OUT = 1, 2, 3, 4, 5, 6
_R_SEEK = 7  #: tables written by seek compactions (``build_ycsb(compactions="seek")``)
_R_LEVEL = 16  #: level L of the leveled layout is region 16 + L


@dataclass
class OpTrace:
    """Page accesses plus the application operation of each.

    Attributes
    ----------
    trace : Trace
        The accesses (``kind`` file, ``op`` read/write, ``tag`` thread, ``cgroup``).
    op_of : numpy.ndarray of int64, shape (n_requests,)
        The operation each access belongs to (0 .. n_ops - 1, in issue order).
    op_kind : numpy.ndarray of uint8, shape (n_ops,)
        ``OP_GET``, ``OP_UPDATE``... of each operation.
    groups : dict of str to list of int
        Thread roles and their tags (``{"get": [1, 2, 3], "scan": [0]}``).
    """

    trace: Trace
    op_of: np.ndarray
    op_kind: np.ndarray
    groups: dict[str, list[int]] = field(default_factory=dict)

    @property
    def n_ops(self) -> int:
        """Number of operations."""
        return int(self.op_kind.shape[0])


def _ids(region: int, file_no: np.ndarray | int, page: np.ndarray | int) -> np.ndarray:
    """Source id of page ``page`` of file ``file_no`` of ``region`` (consecutive within a file)."""
    f = np.asarray(file_no, dtype=np.int64)
    p = np.asarray(page, dtype=np.int64)
    return (np.int64(region) << np.int64(52)) | (f << np.int64(26)) | p


class _Builder:
    """Accumulates (op, id, rw) access chunks; op numbers are global and in issue order."""

    def __init__(self) -> None:
        self.ops: list[np.ndarray] = []
        self.ids: list[np.ndarray] = []
        self.rw: list[np.ndarray] = []
        self.slot: list[np.ndarray] = []

    def add(self, op: np.ndarray, ids: np.ndarray, rw: int | np.ndarray, slot: int) -> None:
        op = np.asarray(op, dtype=np.int64)
        self.ops.append(op)
        self.ids.append(np.asarray(ids, dtype=np.int64))
        self.rw.append(np.broadcast_to(np.asarray(rw, dtype=np.uint8), op.shape).copy())
        self.slot.append(np.full(op.shape, slot, dtype=np.int64))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        op = np.concatenate(self.ops) if self.ops else np.zeros(0, np.int64)
        order = np.lexsort((np.concatenate(self.slot), op)) if self.ops else np.zeros(0, np.int64)
        return op[order], np.concatenate(self.ids)[order], np.concatenate(self.rw)[order]


def _finish(
    op_of: np.ndarray,
    ids: np.ndarray,
    rw: np.ndarray,
    op_kind: np.ndarray,
    op_tag: np.ndarray,
    *,
    name: str,
    params: dict[str, Any],
    cgroup_pages: Sequence[int],
    groups: dict[str, list[int]],
    op_cgroup: np.ndarray | None = None,
    op_release: np.ndarray | None = None,
    extra: dict[str, Any] | None = None,
) -> OpTrace:
    n = ids.shape[0]
    cg = np.zeros(n, np.int64) if op_cgroup is None else np.asarray(op_cgroup, np.int64)[op_of]
    limits = [int(x) for x in cgroup_pages]
    source = {
        "format": "workload",
        "workload": name,
        "params": params,
        "memory_pages": int(sum(limits) * 2 + 1024),
        "cgroup_pages": limits,
        "groups": groups,
        "ops": int(op_kind.shape[0]),
        **(extra or {}),
    }
    timing: dict[str, Any] = {}
    if op_release is not None:
        timing["time"] = np.asarray(op_release, np.int64)[op_of]
        source.update(time_unit="ns", time_is_release=True)
    trace = Trace.from_ids(
        ids,
        kind=np.full(n, KIND_FILE, np.uint8),
        op=np.where(rw == OP_FREE, OP_FREE, np.where(rw != 0, OP_WRITE, OP_READ)).astype(np.uint8),
        tag=np.asarray(op_tag, np.int32)[op_of],
        cgroup=cg,
        source=source,
        **timing,
    )
    return OpTrace(trace, op_of, np.asarray(op_kind, np.uint8), groups)


def _scaled(value: float, scale: float, minimum: int = 1) -> int:
    return max(int(round(value * scale)), minimum)
