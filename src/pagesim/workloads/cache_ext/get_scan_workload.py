"""GET-SCAN on LevelDB (cache_ext spec §5.5, paper Fig. 10): thread 0 scans, threads 1-3 GET.

The two-level :class:`~.leveldb.LevelDBLayout`; :func:`build_get_scan` gives the parameters;
:func:`scan_fadvise` the scan thread's ``posix_fadvise`` calls of the paper's fadvise baselines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.trace import FileAdvice, Trace
from pagesim.trace.advice import POSIX_FADV_DONTNEED, hint_code
from pagesim.workloads.cache_ext.keys import scrambled_zipfian
from pagesim.workloads.cache_ext.leveldb import LevelDBLayout, _kv_ops
from pagesim.workloads.cache_ext.ops import (
    DEFAULT_SCALE,
    GIB_PAGES,
    OP_GET,
    OP_SCAN,
    OpTrace,
    _finish,
    _scaled,
)


def build_get_scan(
    scale: float = DEFAULT_SCALE,
    gets: int | None = None,
    scans: int | None = None,
    get_threads: int = 3,
    scan_length: int = 10_000,
    scan_keys_per_get: float = 40.0,
    theta: float = 0.99,
    seed: int = 0,
) -> OpTrace:
    """GET-SCAN on LevelDB (cache_ext spec §5.5, paper Fig. 10): thread 0 scans, threads 1-3 GET.

    Parameters
    ----------
    scale : float
        Of the paper's setup (the YCSB database and 10 GiB cgroup).
    gets : int, optional
        GET operations, dealt to the GET threads (default 40 per cgroup page).
    scans : int, optional
        Scans from a zipfian start (default: ``gets * scan_keys_per_get / scan_length``).
    get_threads : int
    scan_length : int
        Keys per scan (10,000; below ``scale`` 1/64 shortened in proportion, at least 300 keys,
        so that one scan stays a small share of the cgroup).
    scan_keys_per_get : float
        Keys scanned per GET. The paper's measured mix is 279 (47 scans of 10,000 keys per
        1,685 GETs, under the default policy); pagesim charges a scanned page less than LevelDB
        does (no CPU per record), so 40 keeps the scan thread running about as long as the GET
        threads under linux-lru (measured at 1/4096), as in the paper's fixed-time runs.
    theta : float
    seed : int

    Returns
    -------
    OpTrace
        Groups ``{"scan": [0], "get": [1 .. get_threads]}``.
    """
    layout = LevelDBLayout(_scaled(2**29, scale, 1000), seed=seed)
    limit = _scaled(10 * GIB_PAGES, scale, 64)
    n_get = int(gets) if gets is not None else 40 * limit
    length = scan_length if scale >= 1 / 64 else max(int(scan_length * scale * 64), 300)
    n_scan = int(scans) if scans is not None else max(int(round(n_get * scan_keys_per_get / length)), 1)
    rng = np.random.default_rng(seed)
    kinds = np.concatenate([np.full(n_get, OP_GET, np.uint8), np.full(n_scan, OP_SCAN, np.uint8)])
    perm = rng.permutation(kinds.shape[0])
    kinds = kinds[perm]
    pos = layout.position(scrambled_zipfian(rng, layout.n_keys, kinds.shape[0], theta))
    op_of, ids, rw = _kv_ops(layout, kinds, pos, rng, length)
    get_no = np.cumsum(kinds == OP_GET) - 1
    tags = np.where(kinds == OP_SCAN, 0, 1 + get_no % get_threads).astype(np.int32)
    params = {"scale": scale, "gets": gets, "scans": scans, "get_threads": get_threads,
              "scan_length": scan_length, "scan_keys_per_get": scan_keys_per_get, "theta": theta,
              "seed": seed}  # fmt: skip
    return _finish(
        op_of, ids, rw, kinds, tags,
        name="get-scan", params=params, cgroup_pages=[limit],
        groups={"scan": [0], "get": list(range(1, get_threads + 1))},
        extra={"db_pages": layout.db_pages, "scan_keys": length, "scan_quota_pages": _scaled(5000, scale)},
    )  # fmt: skip


def get_scan(**params: Any) -> Trace:
    """:func:`build_get_scan`'s trace."""
    return build_get_scan(**params).trace


def scan_fadvise(ops: OpTrace, hint: str, file_data_pages: int = LevelDBLayout.file_data_pages) -> FileAdvice:
    """The scan threads' ``posix_fadvise`` calls for one of the paper's fadvise baselines.

    cache_ext's harness sets ``ENABLE_SCAN_FADVISE`` (``bench_leveldb.py``, default policy's
    cgroup only) for its LevelDB fork's scan thread; the fork's calls are not public. Read here
    as: the scan's iterator hints each SSTable file it enters (SEQUENTIAL, NOREUSE, NORMAL,
    RANDOM: one call before the scan's first read of the file), and with DONTNEED drops what it
    has read of a file once it is done with it: one call, before the thread's next read, over
    the data pages the scan read in that file (first to last; the index block is left alone:
    LevelDB keeps an open table's index in memory, the two-level layout only reads it through
    the page cache). A DONTNEED after the thread's last read is not made (the run ends there).

    Parameters
    ----------
    ops : OpTrace
        A :func:`build_get_scan` workload (``groups["scan"]`` names the scan threads).
    hint : str
        ``SEQUENTIAL``, ``NOREUSE``, ``DONTNEED``, ``NORMAL`` or ``RANDOM``.
    file_data_pages : int
        Data pages per SST file (the layout's; its index block follows them).

    Returns
    -------
    FileAdvice

    Raises
    ------
    ValueError
        For an unknown hint, or a trace without scan threads.
    """
    code = hint_code(hint)
    tr = ops.trace
    tags = ops.groups.get("scan", [])
    if not tags:
        raise ValueError("scan_fadvise: the workload has no scan threads (groups['scan'])")
    rows_out, first_out, last_out = [], [], []
    for tag in tags:
        rows = np.flatnonzero(tr.tag == tag)
        if rows.size == 0:
            continue
        ids = np.asarray(tr.original_id, np.int64)[tr.page[rows]]
        file_key = ids >> np.int64(26)
        data = (ids & np.int64((1 << 26) - 1)) < file_data_pages
        op = ops.op_of[rows]
        new = np.r_[True, (op[1:] != op[:-1]) | (file_key[1:] != file_key[:-1])]
        starts = np.flatnonzero(new)
        lo = np.minimum.reduceat(np.where(data, ids, np.iinfo(np.int64).max), starts)
        hi = np.maximum.reduceat(np.where(data, ids, -1), starts)
        if code != POSIX_FADV_DONTNEED:
            rows_out.append(rows[starts])
            first_out.append(np.where(hi >= 0, lo, ids[starts]))
            last_out.append(np.where(hi >= 0, hi, ids[starts]))
            continue
        nxt = np.r_[starts[1:], rows.size]  # the thread's next access after each span
        keep = (hi >= 0) & (nxt < rows.size)
        rows_out.append(rows[nxt[keep]])
        first_out.append(lo[keep])
        last_out.append(hi[keep])
    row = np.concatenate(rows_out) if rows_out else np.zeros(0, np.int64)
    return FileAdvice(
        row=row,
        hint=np.full(row.shape[0], code, np.int64),
        first=np.concatenate(first_out) if first_out else row,
        last=np.concatenate(last_out) if last_out else row,
    )
