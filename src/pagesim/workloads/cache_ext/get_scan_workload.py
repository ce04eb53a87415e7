"""GET-SCAN on LevelDB (cache_ext spec §5.5, paper Fig. 10): thread 0 scans, threads 1-3 GET.

The two-level :class:`~.leveldb.LevelDBLayout`; :func:`build_get_scan` gives the parameters.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.trace import Trace
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
