"""Twitter's cache traces replayed on LevelDB (paper Fig. 8).

:func:`read_twitter_csv` reads a twitter/cache-trace CSV file (``timestamp,key,key_size,
value_size,client_id,operation,TTL``); :func:`synthetic_twitter` stands in for a cluster of
:data:`TWITTER_CLUSTERS` when no file is given (not the real trace); :func:`build_twitter` replays
either on the two-level :class:`~.leveldb.LevelDBLayout`.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pagesim.trace import Trace
from pagesim.trace.errors import TraceFormatError
from pagesim.workloads.cache_ext.leveldb import LevelDBLayout, _kv_ops
from pagesim.workloads.cache_ext.ops import (
    DEFAULT_SCALE,
    OP_GET,
    OP_INSERT,
    OP_UPDATE,
    OpTrace,
    _finish,
    _scaled,
)

#: Twitter cluster configurations (cache_ext spec §5.3): key bytes, value bytes, unique keys.
TWITTER_CLUSTERS: dict[int, tuple[int, int, int]] = {
    17: (16, 408, 995_136),
    18: (16, 35, 1_896_120),
    24: (33, 674, 658_146),
    34: (33, 536, 7_377_763),
    52: (22, 195, 2_767_367),
}
_TWITTER_READS = frozenset({"get", "gets"})


@dataclass
class TwitterOps:
    """A Twitter cache trace, as the paper's conversion sees it (cache_ext spec §5.3).

    Attributes
    ----------
    keys : numpy.ndarray of int64, shape (n,)
        Dense key ids in first-occurrence order.
    kinds : numpy.ndarray of uint8, shape (n,)
        ``OP_GET`` (get, gets), ``OP_UPDATE`` (cas) or ``OP_INSERT`` (anything else).
    key_bytes, value_bytes : int
        Mean key and value sizes (the conversion pads every record to them).
    """

    keys: np.ndarray
    kinds: np.ndarray
    key_bytes: int
    value_bytes: int

    @property
    def n_keys(self) -> int:
        """Distinct keys."""
        return int(self.keys.max()) + 1 if self.keys.size else 0


def read_twitter_csv(path: str | Path, max_rows: int | None = None) -> TwitterOps:
    """Read a twitter/cache-trace CSV file (plain or ``.zst``).

    Each line is ``timestamp,key,key_size,value_size,client_id,operation,TTL`` (the format of
    ``twemcacheWorkload/open_source/clusterN.sort.zst``).

    Raises
    ------
    TraceFormatError
        ``<path>:<line>: expected ...`` for a line with another number of fields, a non-integer
        size or an empty operation.
    OSError
        If the file cannot be read.
    """
    path = Path(path)
    raw = path.open("rb")
    try:
        if path.suffix == ".zst":
            import zstandard

            stream: Any = io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(raw), encoding="utf-8")
        else:
            stream = io.TextIOWrapper(raw, encoding="utf-8")
        ids: dict[str, int] = {}
        keys: list[int] = []
        kinds: list[int] = []
        ksum = vsum = 0
        for line_no, row in enumerate(csv.reader(stream), start=1):
            if max_rows is not None and len(keys) >= max_rows:
                break
            if not row:
                continue
            text = ",".join(row)
            if len(row) != 7:
                raise TraceFormatError(path, line_no, text, "7 comma-separated fields "
                                       "(timestamp,key,key_size,value_size,client_id,op,ttl)")  # fmt: skip
            try:
                ksize, vsize = int(row[2]), int(row[3])
            except ValueError:
                raise TraceFormatError(path, line_no, text, "integer key and value sizes") from None
            op = row[5].strip().lower()
            if not op or not row[1]:
                raise TraceFormatError(path, line_no, text, "a key and an operation")
            keys.append(ids.setdefault(row[1], len(ids)))
            kinds.append(OP_GET if op in _TWITTER_READS else OP_UPDATE if op == "cas" else OP_INSERT)
            ksum += ksize
            vsum += vsize
    finally:
        raw.close()
    n = max(len(keys), 1)
    return TwitterOps(
        np.asarray(keys, np.int64),
        np.asarray(kinds, np.uint8),
        max(int(round(ksum / n)), 1),
        max(int(round(vsum / n)), 1),
    )


def synthetic_twitter(
    cluster: int = 52, scale: float = DEFAULT_SCALE, ops: int | None = None, alpha: float = 1.0,
    get_share: float = 0.9, seed: int = 0,
) -> TwitterOps:  # fmt: skip
    """A stand-in for a Twitter cluster: its key and value sizes, its unique keys times ``scale``.

    Keys follow Zipf(``alpha``), ``get_share`` of the operations are GETs, the rest SETs
    (INSERT). Not the real trace: use :func:`read_twitter_csv` with the real files for that.
    """
    if cluster not in TWITTER_CLUSTERS:
        raise ValueError(f"unknown Twitter cluster {cluster}; known: {', '.join(map(str, TWITTER_CLUSTERS))}")
    kb, vb, unique = TWITTER_CLUSTERS[cluster]
    n_keys = _scaled(unique, scale, 100)
    n_ops = int(ops) if ops is not None else 4 * n_keys
    rng = np.random.default_rng(seed)
    w = np.arange(1, n_keys + 1, dtype=np.float64) ** -alpha
    ranks = rng.choice(n_keys, size=n_ops, p=w / w.sum())
    keys = rng.permutation(n_keys)[ranks]
    _, dense = np.unique(keys, return_inverse=True)
    first = np.full(n_keys, -1, np.int64)
    order = np.arange(n_ops - 1, -1, -1)
    first[dense[order]] = order
    rank_of = np.argsort(np.argsort(first[first >= 0]))
    remap = np.full(n_keys, -1, np.int64)
    remap[np.flatnonzero(first >= 0)] = rank_of
    kinds = np.where(rng.random(n_ops) < get_share, OP_GET, OP_INSERT).astype(np.uint8)
    return TwitterOps(remap[dense], kinds, kb, vb)


def write_twitter_csv(ops: TwitterOps, path: str | Path, seed: int = 0) -> None:
    """Write ``ops`` in the twitter/cache-trace CSV format (for samples and tests)."""
    rng = np.random.default_rng(seed)
    names = {0: "get", 1: "cas", 2: "set"}
    with Path(path).open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        for i, (k, kind) in enumerate(zip(ops.keys.tolist(), ops.kinds.tolist())):
            key = f"k{k:x}".ljust(ops.key_bytes, "0")
            value = max(int(ops.value_bytes + rng.integers(-8, 9)), 1)
            w.writerow([i // 100, key, len(key), value, 1 + k % 4, names[kind], 0])


def build_twitter(
    path: str | None = None,
    cluster: int = 52,
    scale: float = 1 / 64,
    ops: int | None = None,
    threads: int = 8,
    cgroup_percent: float = 10.0,
    seed: int = 0,
) -> OpTrace:
    """A Twitter cache trace replayed on LevelDB (cache_ext spec §5.3, paper Fig. 8).

    Parameters
    ----------
    path : str, optional
        A twitter/cache-trace CSV (``.zst`` too). None: a synthetic stand-in for ``cluster``
        (:func:`synthetic_twitter`).
    cluster : int
        Cluster of the stand-in (17, 18, 24, 34, 52).
    scale : float
        Scales the stand-in's unique keys and the cgroup's fixed terms (default 1/64: cluster
        52's 2.77 M keys -> 43,240).
    ops : int, optional
        Operations replayed (the file's first rows; default all).
    threads : int
        Replay threads: operation ``i`` (trace order) on tag ``i % threads``.
    cgroup_percent : float
        ``memory.max`` = this share of the database + 20 MiB, at least 70 MiB (both scaled).
    seed : int

    Returns
    -------
    OpTrace
        Every unique key is loaded into the database in random order; GETs read index and data
        pages; cas (UPDATE) and the other writes (INSERT) append to the log.

    Raises
    ------
    TraceFormatError
        For a malformed line of ``path`` (file and line named).
    """
    tw = read_twitter_csv(path, ops) if path else synthetic_twitter(cluster, scale, ops, seed=seed)
    layout = LevelDBLayout(
        max(tw.n_keys, 1), tw.key_bytes, tw.value_bytes, log_file_pages=_scaled(1024, scale, 4), seed=seed
    )
    rng = np.random.default_rng(seed)
    order = rng.permutation(layout.n_keys)  # the init file: unique keys in random order
    pos = layout.position(order[tw.keys])
    kinds = tw.kinds.copy()
    kinds[kinds == OP_INSERT] = OP_UPDATE  # every key exists: a write appends to the log
    tags = (np.arange(kinds.shape[0]) % threads).astype(np.int32)
    op_of, ids, rw = _kv_ops(layout, kinds, pos, rng, writer=tags)
    limit = max(int(layout.db_pages * cgroup_percent / 100) + _scaled(5120, scale), _scaled(17920, scale))
    params = {"path": path, "cluster": cluster, "scale": scale, "ops": ops, "threads": threads,
              "cgroup_percent": cgroup_percent, "seed": seed}  # fmt: skip
    return _finish(
        op_of, ids, rw, tw.kinds, tags,
        name="twitter", params=params, cgroup_pages=[limit],
        groups={"client": list(range(threads))},
        extra={"db_pages": layout.db_pages, "keys": layout.n_keys, "key_bytes": tw.key_bytes,
               "value_bytes": tw.value_bytes},
    )  # fmt: skip


def twitter(**params: Any) -> Trace:
    """:func:`build_twitter`'s trace."""
    return build_twitter(**params).trace
