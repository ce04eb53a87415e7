"""Remapping of arbitrary int64 ids to dense ids in first-occurrence order."""

from __future__ import annotations

import numpy as np
from numba import njit, types

from pagesim.core.prefetch import prefetch

from ._jit import JIT

__all__ = ["IdMap", "remap"]

_I64 = types.int64[::1]
_SIG = types.Tuple((_I64, _I64))(types.Array(types.int64, 1, "C", readonly=True))
_SIG_RANGE = types.Tuple((_I64, _I64))(
    types.Array(types.int64, 1, "C", readonly=True), types.int64, types.int64
)

#: Fibonacci hashing multiplier, 2**64 / golden ratio.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)

#: A direct-index table is used instead of hashing when max(ids) - min(ids) + 1 is at most
#: this many slots per id plus a constant (the table is then at most ~32 bytes per id).
_RANGE_SLOTS_PER_ID = 4
_RANGE_SLOTS_MIN = 1 << 20

#: How many ids ahead the hash kernel prefetches its table slot.
_LOOKAHEAD = 16


@njit(_SIG, **JIT)
def _remap_hash(ids):
    """Dense ids by an open-addressing (linear probing) hash table; see `remap`.

    The table interleaves key and value (``table[2*s]`` key, ``table[2*s+1]`` dense id or -1 when
    empty) so that a lookup touches one cache line; it doubles when half full. The slot of the id
    `_LOOKAHEAD` positions ahead is prefetched, which hides most of the memory latency.
    """
    n = ids.size
    dense = np.empty(n, dtype=np.int64)
    original = np.empty(n, dtype=np.int64)
    log_cap = 12
    cap = np.int64(1) << log_cap
    table = np.full(2 * cap, -1, dtype=np.int64)
    mask = np.uint64(cap - 1)
    shift = np.uint64(64 - log_cap)
    n_distinct = 0
    for i in range(n):
        if i + _LOOKAHEAD < n:
            prefetch(table, 2 * np.int64((np.uint64(ids[i + _LOOKAHEAD]) * _GOLDEN) >> shift))
        key = ids[i]
        s = np.int64((np.uint64(key) * _GOLDEN) >> shift)
        while True:
            v = table[2 * s + 1]
            if v < 0:
                v = n_distinct
                table[2 * s] = key
                table[2 * s + 1] = v
                original[v] = key
                n_distinct += 1
                if 2 * n_distinct > cap:  # grow and rehash from `original`
                    log_cap += 1
                    cap = np.int64(1) << log_cap
                    table = np.full(2 * cap, -1, dtype=np.int64)
                    mask = np.uint64(cap - 1)
                    shift = np.uint64(64 - log_cap)
                    for d in range(n_distinct):
                        if d + _LOOKAHEAD < n_distinct:
                            prefetch(
                                table, 2 * np.int64((np.uint64(original[d + _LOOKAHEAD]) * _GOLDEN) >> shift)
                            )
                        k = original[d]
                        t = np.int64((np.uint64(k) * _GOLDEN) >> shift)
                        while table[2 * t + 1] >= 0:
                            t = np.int64((np.uint64(t) + np.uint64(1)) & mask)
                        table[2 * t] = k
                        table[2 * t + 1] = d
                break
            if table[2 * s] == key:
                break
            s = np.int64((np.uint64(s) + np.uint64(1)) & mask)
        dense[i] = v
    return dense, original[:n_distinct].copy()


@njit(_SIG_RANGE, **JIT)
def _remap_range(ids, lo, span):
    """Dense ids by a direct-index table over ``[lo, lo + span)``; see `remap`."""
    n = ids.size
    dense = np.empty(n, dtype=np.int64)
    original = np.empty(n, dtype=np.int64)
    table = np.full(span, -1, dtype=np.int64)
    n_distinct = 0
    for i in range(n):
        key = ids[i]
        j = key - lo
        v = table[j]
        if v < 0:
            v = n_distinct
            table[j] = v
            original[v] = key
            n_distinct += 1
        dense[i] = v
    return dense, original[:n_distinct].copy()


def remap(ids: np.ndarray, *, method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """Relabel ids densely, 0, 1, 2, ... in order of first occurrence.

    Parameters
    ----------
    ids : array_like of int, shape (n,)
        Any int64 ids (object ids, block numbers, hashes); converted to int64 (uint64 ids are
        reinterpreted bit for bit).
    method : {"auto", "hash", "range"}, optional
        ``"hash"``: open-addressing hash table, O(n) expected, memory 32 bytes per distinct id at
        worst. ``"range"``: direct table over ``[min(ids), max(ids)]``, 8 bytes per value of that
        range. ``"auto"`` (default) takes ``"range"`` when the range holds at most
        ``4 * n + 2**20`` values, else ``"hash"``. All give the same result.

    Returns
    -------
    dense : numpy.ndarray of int64, shape (n,)
        ``dense[i]`` is the number of distinct ids that first occur before the first occurrence of
        ``ids[i]``; ``0 <= dense < n_distinct``.
    original_id : numpy.ndarray of int64, shape (n_distinct,)
        ``original_id[dense[i]] == ids[i]``; the distinct ids in order of first occurrence.

    Raises
    ------
    ValueError
        If `ids` is not one-dimensional, not of an integer dtype, or `method` is unknown.

    Notes
    -----
    Kernels `_remap_hash` (Fibonacci hashing [1]_, linear probing, table doubled at load 1/2) and
    `_remap_range`; both compiled with explicit signatures and cached, so later processes load them
    without compiling. Measured here: 10 M ids over 1 M distinct random int64 values in about
    0.25 s (hash); ``np.unique(return_inverse=True)`` takes more than 2 s for the same input.

    References
    ----------
    .. [1] D. E. Knuth, *The Art of Computer Programming*, vol. 3, 2nd ed., section 6.4
       (multiplicative hashing), 1998.

    Examples
    --------
    >>> remap(np.array([7, 3, 7, 9, 3]))
    (array([0, 1, 0, 2, 1]), array([7, 3, 9]))
    """
    arr = np.asarray(ids)
    if arr.ndim != 1:
        raise ValueError(f"remap: ids must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8:
        arr = arr.view(np.int64)
    elif arr.dtype.kind in "iub" or arr.size == 0:
        arr = arr.astype(np.int64, copy=False)
    else:
        raise ValueError(f"remap: ids must be integers, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr)
    n = arr.size
    if n == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    if method not in ("auto", "hash", "range"):
        raise ValueError(f"remap: unknown method {method!r}; use 'auto', 'hash' or 'range'")
    lo, hi = int(arr.min()), int(arr.max())
    span = hi - lo + 1  # a Python int: no overflow
    if method == "range" or (method == "auto" and span <= _RANGE_SLOTS_PER_ID * n + _RANGE_SLOTS_MIN):
        if span > np.iinfo(np.int64).max:
            raise ValueError("remap: ids span more than 2**63 values; use method='hash'")
        return _remap_range(arr, lo, span)
    with np.errstate(over="ignore"):  # hashing wraps uint64 by design (matters only without the JIT)
        return _remap_hash(arr)


_SIG_MORE = types.int64(
    types.Array(types.int64, 1, "C", readonly=True),
    _I64,
    _I64,
    _I64,
    _I64,
    types.int64,
)


@njit(_SIG_MORE, **JIT)
def _remap_more(ids, dense, table, original, count, start):  # pragma: no cover - compiled
    """Map ``ids[start:]`` into ``dense`` through the persistent hash `table` (layout of
    `_remap_hash`), adding unseen ids as ``count[0]``, ``count[0] + 1``...; stops before an
    insert that would fill the table beyond half or `original` beyond its length and returns
    the index reached (``ids.size`` when done)."""
    n = ids.size
    cap = np.int64(table.size // 2)
    mask = np.uint64(cap - 1)
    log_cap = 0
    while (np.int64(1) << log_cap) < cap:
        log_cap += 1
    shift = np.uint64(64 - log_cap)
    for i in range(start, n):
        key = ids[i]
        s = np.int64((np.uint64(key) * _GOLDEN) >> shift)
        while True:
            v = table[2 * s + 1]
            if v < 0:
                c = count[0]
                if 2 * (c + 1) > cap or c >= original.size:
                    return i
                v = c
                table[2 * s] = key
                table[2 * s + 1] = v
                original[v] = key
                count[0] = c + 1
                break
            if table[2 * s] == key:
                break
            s = np.int64((np.uint64(s) + np.uint64(1)) & mask)
        dense[i] = v
    return n


@njit(types.void(_I64, types.int64, _I64), **JIT)
def _rehash(original, count, table):  # pragma: no cover - compiled
    """Insert ``original[:count]`` (dense id = position) into the empty hash `table`."""
    cap = np.int64(table.size // 2)
    mask = np.uint64(cap - 1)
    log_cap = 0
    while (np.int64(1) << log_cap) < cap:
        log_cap += 1
    shift = np.uint64(64 - log_cap)
    for d in range(count):
        k = original[d]
        t = np.int64((np.uint64(k) * _GOLDEN) >> shift)
        while table[2 * t + 1] >= 0:
            t = np.int64((np.uint64(t) + np.uint64(1)) & mask)
        table[2 * t] = k
        table[2 * t + 1] = d


class IdMap:
    """Dense ids in first-occurrence order for ids that arrive in chunks (streamed traces).

    ``IdMap().map(chunk)`` for the chunks of a trace in order gives, concatenated, what
    ``remap(all_ids)[0]`` gives; mapping the same chunks again (a second pass) gives the same
    ids. Memory: an open-addressing table of 16 bytes per slot, at most half full, and the
    distinct ids (8 bytes each): 24 to 40 bytes per distinct id, whatever the number of ids
    mapped. Not thread-safe.

    Attributes
    ----------
    n_distinct : int
        Distinct ids seen so far.
    """

    def __init__(self) -> None:
        self._table = np.full(2 << 12, -1, dtype=np.int64)
        self._original = np.empty(1 << 12, dtype=np.int64)
        self._count = np.zeros(1, dtype=np.int64)

    @property
    def n_distinct(self) -> int:
        return int(self._count[0])

    def original_ids(self) -> np.ndarray:
        """The distinct ids in first-occurrence order (int64, shape (n_distinct,)); a copy."""
        return self._original[: self.n_distinct].copy()

    def map(self, ids: np.ndarray) -> np.ndarray:
        """Dense ids (int64, same shape as `ids`) of a chunk of int64 (or uint64) ids."""
        arr = np.asarray(ids)
        if arr.dtype.kind == "u" and arr.dtype.itemsize == 8:
            arr = arr.view(np.int64)
        arr = np.ascontiguousarray(arr, dtype=np.int64)
        dense = np.empty(arr.shape[0], dtype=np.int64)
        i = 0
        with np.errstate(over="ignore"):
            while True:
                i = int(_remap_more(arr, dense, self._table, self._original, self._count, i))
                if i >= arr.shape[0]:
                    return dense
                self._grow()

    def _grow(self) -> None:
        count = self.n_distinct
        if count >= self._original.shape[0]:
            bigger = np.empty(2 * self._original.shape[0], dtype=np.int64)
            bigger[:count] = self._original[:count]
            self._original = bigger
        if 2 * (count + 1) > self._table.shape[0] // 2:
            self._table = np.full(2 * self._table.shape[0], -1, dtype=np.int64)
            with np.errstate(over="ignore"):
                _rehash(self._original, count, self._table)
