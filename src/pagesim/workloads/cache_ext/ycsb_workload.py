"""YCSB on LevelDB (cache_ext spec §5.2, paper Fig. 6): 8 client threads, one cgroup.

:data:`YCSB_MIXES` gives each core workload's read/update/insert/scan/read-modify-write shares
and key distribution; the operations run on :class:`~.leveldb.LevelDBLayout` (the leveled
layout by default, the two-level one with ``levels=0``). With ``compactions="seek"`` the trace
also carries LevelDB's seek compactions (:mod:`.seek`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.trace import OP_FREE, Trace
from pagesim.workloads.cache_ext.keys import scrambled_zipfian, ycsb_zipfian
from pagesim.workloads.cache_ext.leveldb import LevelDBLayout, _kv_ops
from pagesim.workloads.cache_ext.ops import (
    DEFAULT_SCALE,
    GIB_PAGES,
    LEVEL1_PAGES,
    OP_COMPACT,
    OP_FILE,
    OP_GET,
    OP_INSERT,
    OP_RMW,
    OP_SCAN,
    OP_UPDATE,
    OpTrace,
    _Builder,
    _finish,
    _scaled,
)
from pagesim.workloads.cache_ext.seek import SeekCompactions, _compaction_op_numbers, _compaction_release

#: YCSB core workloads (cache_ext spec §5.2): read/update/insert/scan/read-modify-write shares
#: and the key distribution.
YCSB_MIXES: dict[str, tuple[tuple[float, float, float, float, float], str]] = {
    "A": ((0.5, 0.5, 0.0, 0.0, 0.0), "zipfian"),
    "B": ((0.95, 0.05, 0.0, 0.0, 0.0), "zipfian"),
    "C": ((1.0, 0.0, 0.0, 0.0, 0.0), "zipfian"),
    "D": ((0.95, 0.0, 0.05, 0.0, 0.0), "latest"),
    "E": ((0.0, 0.0, 0.05, 0.95, 0.0), "zipfian"),
    "F": ((0.5, 0.0, 0.0, 0.0, 0.5), "zipfian"),
    "uniform": ((1.0, 0.0, 0.0, 0.0, 0.0), "uniform"),
    "uniform-rw": ((0.5, 0.0, 0.5, 0.0, 0.0), "uniform"),
}


def build_ycsb(
    workload: str = "C",
    scale: float = DEFAULT_SCALE,
    ops: int | None = None,
    threads: int = 8,
    theta: float = 0.99,
    scan_length: int = 100,
    seed: int = 0,
    levels: int = 5,
    table_cache: int | None = 990,
    filters: bool = False,
    compactions: str | None = None,
    compaction_ops_s: float | None = None,
) -> OpTrace:
    """YCSB on LevelDB (cache_ext spec §5.2, paper Fig. 6): 8 client threads, one cgroup.

    Parameters
    ----------
    workload : str
        ``A`` .. ``F``, ``uniform`` or ``uniform-rw`` (:data:`YCSB_MIXES`).
    scale : float
        Of the paper's setup: 2**29 records of 16 + 200 B in a 10 GiB cgroup.
    ops : int, optional
        Operations (default 40 per page of the cgroup: long enough for the cache to turn over).
    threads : int
        Client threads; operation ``i`` runs on tag ``i % threads``.
    theta : float
        Zipfian constant (YCSB: 0.99).
    scan_length : int
        Keys per scan (YCSB E: 100).
    seed : int
    levels : int
        Levels of LevelDB's leveled layout (module docstring): levels 1 .. ``levels`` - 1 at
        LevelDB's targets (10 MiB x 10**(L - 1), scaled), the last one the rest; 5 for the
        paper's 100 GiB. 0: the two-level layout (a lower level and an upper one of 10 %).
    table_cache : int, optional
        LevelDB's table cache in tables (``max_open_files`` 1,000 - 10); None: none modelled
        (every probe reads the index page covering its key).
    filters : bool
        Bloom filters in the tables (the paper's LevelDB has none: the harness opens the
        database with LevelDB's default options, ``filter_policy`` null).
    compactions : str, optional
        ``"seek"``: LevelDB's seek compactions (:class:`SeekCompactions`; leveled layout, no
        scans, no filters) on a background thread (tag ``threads``, group ``"compaction"``).
        None or ``"none"`` (the default): no compaction thread and no compaction
        accesses. From the command line: ``pagesim run 'ycsb?compactions=seek'``.
    compaction_ops_s : float, optional
        With ``compactions``: each compaction is released (the trace's ``time`` column) when the
        client operation that triggered it would run at this many client operations per second
        of model time; None: the background thread runs its compactions as soon as it can.

    Returns
    -------
    OpTrace
        Groups: ``{"client": [0 .. threads - 1]}`` (and ``"compaction": [threads]``);
        ``source["cgroup_pages"]`` = the scaled 10 GiB, smaller than the database (``source["db_pages"]``).

    Raises
    ------
    ValueError
        For an unknown workload or non-positive sizes.
    """
    if workload not in YCSB_MIXES:
        raise ValueError(f"unknown YCSB workload {workload!r}; known: {', '.join(YCSB_MIXES)}")
    if scale <= 0 or threads <= 0:
        raise ValueError("scale and threads must be positive")
    if levels < 0 or levels == 1:
        raise ValueError("levels must be 0 (two-level layout) or at least 2")
    compactions = None if compactions in ("none", "") else compactions
    if compactions not in (None, "seek"):
        raise ValueError(f"unknown compactions {compactions!r}; known: seek")
    if compactions and (not levels or filters or YCSB_MIXES[workload][0][3] > 0):
        raise ValueError("compactions='seek' needs the leveled layout (levels >= 2), no filters and no scans")
    layout = LevelDBLayout(
        _scaled(2**29, scale, 1000), log_file_pages=_scaled(1024, scale, 4), seed=seed,
        level_pages=tuple(_scaled(LEVEL1_PAGES * 10**i, scale) for i in range(max(levels - 1, 0))),
        table_cache=table_cache if levels else None, filters=filters, scale=min(scale, 1.0),
    )  # fmt: skip
    limit = _scaled(10 * GIB_PAGES, scale, 64)
    n_ops = int(ops) if ops is not None else 40 * limit
    rng = np.random.default_rng(seed)
    shares, dist = YCSB_MIXES[workload]
    kinds = rng.choice(5, size=n_ops, p=np.asarray(shares) / sum(shares)).astype(np.uint8)
    kinds = np.array([OP_GET, OP_UPDATE, OP_INSERT, OP_SCAN, OP_RMW], np.uint8)[kinds]
    tags = (np.arange(n_ops) % threads).astype(np.int32)
    if dist == "uniform":
        keys = rng.integers(0, layout.n_keys, n_ops)
        pos = layout.position(keys)
    elif dist == "latest":
        pos = _latest_reads(kinds, tags, threads, ycsb_zipfian(rng, layout.n_keys, n_ops, theta))
    else:
        pos = layout.position(scrambled_zipfian(rng, layout.n_keys, n_ops, theta))
    params = {"workload": workload, "scale": scale, "ops": ops, "threads": threads, "theta": theta,
              "scan_length": scan_length, "seed": seed, "levels": levels, "table_cache": table_cache,
              "filters": filters}  # fmt: skip
    extra = {"db_pages": layout.db_pages, "records": layout.n_keys,
             **({"level_pages": layout.level_sizes.tolist()} if levels else {})}  # fmt: skip
    if compactions:
        params.update(compactions=compactions, compaction_ops_s=compaction_ops_s)
        return _ycsb_seek(layout, kinds, pos, rng, tags, threads, limit, params, extra, compaction_ops_s)
    op_of, ids, rw = _kv_ops(
        layout, kinds, pos, rng, scan_length, latest=dist == "latest", theta=theta, writer=tags
    )
    return _finish(
        op_of, ids, rw, kinds, tags,
        name="ycsb", params=params, cgroup_pages=[limit],
        groups={"client": list(range(threads))}, extra=extra,
    )  # fmt: skip


def _latest_reads(kinds: np.ndarray, tags: np.ndarray, threads: int, ranks: np.ndarray) -> np.ndarray:
    """Workload D's reads as the paper's driver makes them (``kinds`` is changed in place).

    My-YCSB's ``LatestWorkload`` (xrp-project/My-YCSB ``core/workload.cpp``), cloned per client
    thread, reads only keys its thread inserted in this run: key ``cur_ack_key - 1 - (rank %
    cur_ack_key)``, ``rank`` a zipfian draw over every record, ``cur_ack_key`` the thread's
    inserts so far; with none yet, the operation is an insert. So D reads the run's own inserts,
    which fit in memory (the paper's D: 210,814 ops/s under the default). Returns, per
    operation, the read's key as ``-1 - k``: the record inserted ``k`` inserts before the
    operation (the level-0 page :func:`._kv_ops` reads with ``latest``); 0 elsewhere.

    Deviation: the thread's own copy of the key is read (every thread inserts the same key
    sequence, so up to ``threads`` copies exist, inserted at about the same time), and a key
    still in the memtable is read from its level-0 page.
    """
    n = kinds.shape[0]
    pos = np.zeros(n, np.int64)
    firsts = np.arange(min(threads, n))
    kinds[firsts[kinds[firsts] == OP_GET]] = OP_INSERT  # cur_ack_key == 0: "read = false"
    is_ins = kinds == OP_INSERT
    global_no = np.cumsum(is_ins) - is_ins  # inserts before each operation, every thread
    for t in range(threads):
        mine = np.flatnonzero(tags == t)
        ins = is_ins[mine]
        before = np.cumsum(ins) - ins  # the thread's cur_ack_key at each of its operations
        numbers = global_no[mine[ins]]  # global insert number of the thread's j-th insert
        reads = (kinds[mine] == OP_GET) & (before > 0)
        ops = mine[reads]
        j = before[reads] - 1 - ranks[ops] % before[reads]
        pos[ops] = numbers[j] - global_no[ops]  # < 0: that many inserts back, -1 the newest
    return pos


def ycsb(**params: Any) -> Trace:
    """:func:`build_ycsb`'s trace."""
    return build_ycsb(**params).trace


def _ycsb_seek(
    layout: LevelDBLayout,
    kinds: np.ndarray,
    pos: np.ndarray,
    rng: np.random.Generator,
    tags: np.ndarray,
    threads: int,
    limit: int,
    params: dict[str, Any],
    extra: dict[str, Any],
    ops_s: float | None,
) -> OpTrace:
    """:func:`build_ycsb` with seek compactions (:class:`SeekCompactions`) on tag ``threads``.

    GETs and RMWs read through the versioned layout in issue order; a compaction becomes an
    operation of kind ``OP_COMPACT`` right after the GET that triggered it: read input page i,
    write output page i, ..., then free the inputs.
    """
    n = kinds.shape[0]
    seek = SeekCompactions(layout, params["scale"])
    # the log and level-0 accesses as without compactions (GETs become no-ops, RMWs updates)
    rest = np.where(kinds == OP_GET, OP_FILE, np.where(kinds == OP_RMW, OP_UPDATE, kinds)).astype(np.uint8)
    w_op, w_ids, w_rw = _kv_ops(layout, rest, pos, rng, writer=tags)
    reads = np.flatnonzero((kinds == OP_GET) | (kinds == OP_RMW))
    home = np.zeros(n, np.int64)
    ok = pos[reads] >= 0
    home[reads[ok]] = layout.level_of(pos[reads[ok]])
    inserted_before = np.cumsum(kinds == OP_INSERT) - (kinds == OP_INSERT)
    g_op: list[int] = []
    g_ids: list[int] = []
    trig: list[int] = []
    c_read: list[np.ndarray] = []
    c_write: list[np.ndarray] = []
    c_free: list[np.ndarray] = []
    for i in reads.tolist():
        p = int(pos[i])
        if p < 0:  # workload D: a key inserted in this run, on its level-0 page
            pages = [int(layout.l0_page(np.int64(max(inserted_before[i] + p, 0))))]
            due = None
        else:
            pages, due = seek.get(p, int(home[i]))
        g_op += [i] * len(pages)
        g_ids += pages
        if due is not None:
            r, w, f = seek.compact(*due)
            trig.append(i)
            c_read.append(r)
            c_write.append(w)
            c_free.append(f)
    t = np.asarray(trig, np.int64)
    n_c = t.shape[0]
    # renumber: each compaction right after its trigger
    client_no = np.arange(n, dtype=np.int64) + np.searchsorted(t, np.arange(n), side="left")
    comp_no = _compaction_op_numbers(t)
    b = _Builder()
    b.add(client_no[np.asarray(g_op, np.int64)], np.asarray(g_ids, np.int64), 0, 0)
    b.add(client_no[w_op], w_ids, w_rw, 1)
    b.slot[-1] = b.slot[-1] + np.arange(w_op.shape[0])  # keep the log's order within an op
    for j in range(n_c):
        k = c_read[j].shape[0]
        steps = np.arange(2 * k, dtype=np.int64)
        ids = np.empty(2 * k, np.int64)
        ids[0::2], ids[1::2] = c_read[j], c_write[j]
        rw = (steps % 2).astype(np.uint8)
        b.add(np.full(2 * k, comp_no[j]), ids, rw, 0)
        b.slot[-1] = steps
        b.add(np.full(c_free[j].shape[0], comp_no[j]), c_free[j], OP_FREE, 2 * k)
    op_of, ids, rw = b.arrays()
    total = n + n_c
    is_c = np.zeros(total, bool)
    is_c[comp_no] = True
    all_kinds = np.full(total, OP_COMPACT, np.uint8)
    all_kinds[client_no] = kinds
    all_tags = np.full(total, threads, np.int32)
    all_tags[client_no] = tags
    release = None if ops_s is None else _compaction_release(t, total, ops_s)
    read_pages = int(sum(r.shape[0] for r in c_read))
    extra = {**extra, "compactions": n_c, "compaction_pages": read_pages,
             "compaction_triggers": t.tolist()}  # fmt: skip
    return _finish(
        op_of, ids, rw, all_kinds, all_tags,
        name="ycsb", params=params, cgroup_pages=[limit],
        groups={"client": list(range(threads)), "compaction": [threads]},
        op_release=release, extra=extra,
    )  # fmt: skip
