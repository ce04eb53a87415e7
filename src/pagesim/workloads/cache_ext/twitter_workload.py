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

#: Twitter cluster configurations of the paper's harness (cache_ext spec §5.3, from the first
#: rows of each trace): key bytes, value bytes, unique keys.
TWITTER_CLUSTERS: dict[int, tuple[int, int, int]] = {
    17: (16, 408, 995_136),
    18: (16, 35, 1_896_120),
    24: (33, 674, 658_146),
    34: (33, 536, 7_377_763),
    52: (22, 195, 2_767_367),
}
_TWITTER_READS = frozenset({"get", "gets"})


@dataclass(frozen=True)
class ClusterStats:
    """A Twitter cluster's published statistics (Yang et al., "A large scale analysis of
    hundreds of in-memory cache clusters at Twitter", OSDI 2020; per-cluster table
    ``stat/2020Mar.md`` of github.com/twitter/cache-trace).

    Attributes
    ----------
    key_bytes, value_bytes : int
        Mean key and value sizes over the whole trace (the harness pads to its own means,
        :data:`TWITTER_CLUSTERS`).
    ops : dict of str to float
        Operation mix (share of requests per operation; the table rounds to 0.01, so the
        shares may not add up to 1).
    zipf_alpha : float
        The Zipf exponent fitted to the key popularity.
    one_hit_wonder : float
        Share of keys requested once, in [0, 1).
    trace_rows : int
        Rows of the trace the paper's harness replayed (cache_ext spec §5.3: 12 M for cluster
        17, 20 M for 18, 34 and 52, the batch script's 60 M for 24).
    """

    key_bytes: int
    value_bytes: int
    ops: dict[str, float]
    zipf_alpha: float
    one_hit_wonder: float
    trace_rows: int

    def shares(self) -> tuple[float, float, float]:
        """(GET, UPDATE, INSERT) shares as the paper's conversion maps operations: get and gets
        -> GET, cas -> UPDATE, everything else (set, add, ..., and the table's rounding rest)
        -> INSERT."""
        get = self.ops.get("get", 0.0) + self.ops.get("gets", 0.0)
        update = self.ops.get("cas", 0.0)
        return get, update, max(1.0 - get - update, 0.0)


#: Published statistics of the paper's five clusters (:class:`ClusterStats`).
TWITTER_STATS: dict[int, ClusterStats] = {
    17: ClusterStats(19, 212, {"get": 0.99}, 2.1106, 0.3887, 12_000_000),
    18: ClusterStats(
        18, 37, {"get": 0.96, "add": 0.01, "gets": 0.01, "cas": 0.01}, 2.0994, 0.0071, 20_000_000
    ),
    24: ClusterStats(32, 699, {"get": 0.99}, 1.3726, 0.0565, 60_000_000),
    34: ClusterStats(33, 322, {"get": 0.94, "set": 0.06}, 1.1401, 0.0026, 20_000_000),
    52: ClusterStats(
        20, 273, {"get": 0.91, "add": 0.04, "gets": 0.02, "cas": 0.02}, 1.2117, 0.1936, 20_000_000
    ),
}


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
    cluster: int = 52, scale: float = DEFAULT_SCALE, ops: int | None = None, alpha: float | None = None,
    get_share: float | None = None, seed: int = 0,
) -> TwitterOps:  # fmt: skip
    """A stand-in for a Twitter cluster, generated from its published statistics.

    Sizes and unique keys are the harness's (:data:`TWITTER_CLUSTERS`, keys times ``scale``);
    popularity, one-hit wonders and the operation mix are the cluster's published statistics
    (:data:`TWITTER_STATS`): every key is requested at least once (the harness loads the keys
    the replayed rows name), the share ``one_hit_wonder`` of them exactly once, every other key
    at least twice, and the remaining requests draw among those keys by Zipf(``alpha``) over a
    random ranking; requests are in random order (a static popularity: the real traces'
    churn and diurnal shifts are not modelled). Each request is a GET, UPDATE (cas) or INSERT
    (every other write) with the cluster's shares (:meth:`ClusterStats.shares`).

    Parameters
    ----------
    cluster : int
        17, 18, 24, 34 or 52.
    scale : float
        Scales the unique keys (at least 100).
    ops : int, optional
        Requests (default: the harness's replayed rows per unique key times the keys, at least
        the keys).
    alpha : float, optional
        Overrides the published Zipf exponent.
    get_share : float, optional
        Overrides the published GET share (the rest split between UPDATE and INSERT in the
        published proportions, or all INSERT if the cluster has no writes).
    seed : int

    Returns
    -------
    TwitterOps
        Not the real trace: :func:`read_twitter_csv` reads the real files.

    Raises
    ------
    ValueError
        For an unknown cluster, ``alpha`` < 0 or ``get_share`` outside [0, 1].
    """
    if cluster not in TWITTER_CLUSTERS:
        raise ValueError(f"unknown Twitter cluster {cluster}; known: {', '.join(map(str, TWITTER_CLUSTERS))}")
    stats = TWITTER_STATS[cluster]
    a = stats.zipf_alpha if alpha is None else float(alpha)
    if a < 0:
        raise ValueError(f"alpha must be >= 0, got {a}")
    kb, vb, unique = TWITTER_CLUSTERS[cluster]
    n_keys = _scaled(unique, scale, 100)
    n_ops = max(int(ops) if ops is not None else int(round(n_keys * stats.trace_rows / unique)), n_keys)
    rng = np.random.default_rng(seed)
    keys = _popular_keys(rng, n_keys, n_ops, a, stats.one_hit_wonder)
    kinds = _twitter_kinds(rng, n_ops, stats.shares(), get_share)
    _, first = np.unique(keys, return_index=True)
    dense = np.empty(n_keys, np.int64)
    dense[np.argsort(first)] = np.arange(n_keys)  # key ids in first-occurrence order
    return TwitterOps(dense[keys], kinds, kb, vb)


def _popular_keys(rng: np.random.Generator, n_keys: int, n_ops: int, alpha: float, ohw: float) -> np.ndarray:
    """``n_ops`` key ids in [0, n_keys): every key once, a share ``ohw`` of them only once, each
    other key at least twice (as far as ``n_ops`` allows), the remaining requests Zipf(alpha)
    over the reused keys in a random ranking."""
    spare = n_ops - n_keys
    n_once = min(int(round(n_keys * ohw)), n_keys - 1) if spare > 0 else n_keys
    reused = rng.permutation(n_keys)[: n_keys - n_once]  # reused keys, in rank order
    second = reused[: min(reused.shape[0], spare)]
    rest = spare - second.shape[0]
    w = np.arange(1, reused.shape[0] + 1, dtype=np.float64) ** -alpha
    extra = reused[rng.choice(reused.shape[0], size=rest, p=w / w.sum())] if rest > 0 else second[:0]
    return rng.permutation(
        np.concatenate([np.arange(n_keys, dtype=np.int64), second, extra]).astype(np.int64)
    )


def _twitter_kinds(
    rng: np.random.Generator, n: int, shares: tuple[float, float, float], get_share: float | None
) -> np.ndarray:
    """``n`` operation kinds drawn with (GET, UPDATE, INSERT) ``shares``, GET's overridable."""
    get, update, insert = shares
    if get_share is not None:
        if not 0.0 <= get_share <= 1.0:
            raise ValueError(f"get_share must be within [0, 1], got {get_share}")
        writes = update + insert
        update = (1.0 - get_share) * (update / writes if writes > 0 else 0.0)
        get, insert = get_share, 1.0 - get_share - update
    p = np.array([get, update, insert]) / (get + update + insert)
    return np.array([OP_GET, OP_UPDATE, OP_INSERT], np.uint8)[rng.choice(3, size=n, p=p)]


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
