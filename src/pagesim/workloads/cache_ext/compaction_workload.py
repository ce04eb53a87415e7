"""RocksDB-like uniform read/write with background compaction (cache_ext spec §5.6, §4.8).

Foreground threads run uniform GETs and PUTs on a LevelDB-like layout; compaction threads read
their input's pages sequentially and write their output's (:func:`build_compaction`); the
``admit-compaction`` policy is the paper's admission filter for them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.trace import Trace
from pagesim.workloads.cache_ext.leveldb import LevelDBLayout, _kv_ops
from pagesim.workloads.cache_ext.ops import (
    _R_MAIN,
    _R_OUT,
    DEFAULT_SCALE,
    GIB_PAGES,
    OP_COMPACT,
    OP_GET,
    OP_UPDATE,
    PAGE,
    OpTrace,
    _Builder,
    _finish,
    _ids,
    _scaled,
)


def build_compaction(
    scale: float = DEFAULT_SCALE,
    ops: int | None = None,
    threads: int = 4,
    compaction_threads: int = 1,
    compaction_mb_s: float = 100.0,
    chunk: int = 16,
    seed: int = 0,
) -> OpTrace:
    """RocksDB-like uniform read/write with background compaction (cache_ext spec §5.6, §4.8).

    Foreground threads (tags ``0 .. threads - 1``) run uniform GETs and PUTs half and half on a
    LevelDB-like layout (PUTs append to the log); compaction threads (the next tags) merge SST
    files: each step reads the next ``chunk`` pages of its input (sequential, so readahead
    applies) and writes ``chunk`` pages of its output.

    Parameters
    ----------
    scale : float
        Of a 100 GiB database in a 10 GiB cgroup (the YCSB setup; the paper gives no size).
    ops : int, optional
        Foreground operations (default 40 per cgroup page).
    threads, compaction_threads : int
    compaction_mb_s : float
        Compaction's pace: its steps are released (the trace's ``time`` column) at this rate
        over the foreground's nominal duration, ``ops`` / 44,618 ops/s (the paper's RocksDB
        uniform baseline, Table 1), so compaction runs beside the foreground throughout.
    chunk : int
        Pages read, then written, per compaction step.
    seed : int

    Returns
    -------
    OpTrace
        Groups ``{"foreground": [...], "compaction": [...]}``.
    """
    layout = LevelDBLayout(_scaled(2**29, scale, 1000), log_file_pages=_scaled(1024, scale, 4), seed=seed)
    limit = _scaled(10 * GIB_PAGES, scale, 64)
    n_fg = int(ops) if ops is not None else 40 * limit
    duration_ns = n_fg / 44_618 * 1e9
    n_cp = max(int(duration_ns * 1e-9 * compaction_mb_s * 1e6 / (PAGE * chunk)), 1)
    rng = np.random.default_rng(seed)
    fg_kinds = np.where(rng.random(n_fg) < 0.5, OP_GET, OP_UPDATE).astype(np.uint8)
    pos = layout.position(rng.integers(0, layout.n_keys, n_fg))
    f_op, f_ids, f_rw = _kv_ops(layout, fg_kinds, pos, rng, writer=np.arange(n_fg) % threads)
    # compaction: each step reads the next `chunk` pages of its input files (in file order from a
    # random file) and writes as many pages of its output files
    per = layout.file_data_pages + layout.index_pages + 1
    n_files = -(-layout.data_pages // layout.file_data_pages)
    start = int(rng.integers(0, n_files))
    page_no = np.arange(n_cp * chunk, dtype=np.int64)
    c_op = page_no // chunk
    c_read = _ids(_R_MAIN, (start + page_no // per) % n_files, page_no % per)
    c_write = _ids(_R_OUT, page_no // per, page_no % per)
    # interleave: compaction operations spread evenly among the foreground ones
    total = n_fg + n_cp
    is_cp = np.zeros(total, bool)
    is_cp[np.linspace(0, total - 1, n_cp).astype(np.int64) if n_cp else []] = True
    new_no = np.empty(total, np.int64)
    new_no[~is_cp] = np.arange(n_fg)
    new_no[is_cp] = np.arange(n_cp)
    fg_global = np.flatnonzero(~is_cp)
    cp_global = np.flatnonzero(is_cp)
    b = _Builder()
    b.add(fg_global[f_op], f_ids, f_rw, 0)
    b.slot[-1] = np.arange(f_op.shape[0], dtype=np.int64) - np.searchsorted(f_op, f_op)
    b.add(cp_global[c_op], c_read, 0, 0)
    b.add(cp_global[c_op], c_write, 1, 1)
    op_of, ids, rw = b.arrays()
    kinds = np.where(is_cp, OP_COMPACT, 0).astype(np.uint8)
    kinds[~is_cp] = fg_kinds
    fg_tag = np.arange(n_fg) % threads
    cp_tag = threads + np.arange(n_cp) % compaction_threads
    tags = np.empty(total, np.int32)
    tags[~is_cp] = fg_tag
    tags[is_cp] = cp_tag
    release = np.zeros(total, np.int64)
    release[is_cp] = (np.arange(n_cp) * (duration_ns / n_cp)).astype(np.int64)
    params = {"scale": scale, "ops": ops, "threads": threads, "compaction_threads": compaction_threads,
              "compaction_mb_s": compaction_mb_s, "chunk": chunk, "seed": seed}  # fmt: skip
    return _finish(
        op_of, ids, rw, kinds, tags,
        name="compaction", params=params, cgroup_pages=[limit],
        groups={"foreground": list(range(threads)),
                "compaction": list(range(threads, threads + compaction_threads))},
        op_release=release, extra={"db_pages": layout.db_pages},
    )  # fmt: skip


def compaction(**params: Any) -> Trace:
    """:func:`build_compaction`'s trace."""
    return build_compaction(**params).trace
