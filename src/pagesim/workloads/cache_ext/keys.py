"""Key choice: YCSB's zipfian and scrambled-zipfian generators, FNV-1a, an LRU set of keys.

Source: YCSB's ``ZipfianGenerator`` (Gray et al., "Quickly generating billion-record synthetic
databases", SIGMOD 1994), ``ScrambledZipfianGenerator`` and ``Utils.fnvhash64``.
:class:`LRUSet` and :func:`lru_hits` are LevelDB's table cache (:mod:`.leveldb`).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np


def fnv1a64(values: np.ndarray) -> np.ndarray:
    """YCSB's ``Utils.fnvhash64`` of each value (FNV-1a over its 8 little-endian bytes), >= 0.

    Returns
    -------
    numpy.ndarray of int64, same shape
    """
    v = np.asarray(values, dtype=np.int64).astype(np.uint64)
    h = np.full(v.shape, 0xCBF29CE484222325, dtype=np.uint64)
    prime = np.uint64(1099511628211)
    with np.errstate(over="ignore"):
        for _ in range(8):
            h ^= v & np.uint64(0xFF)
            h *= prime
            v >>= np.uint64(8)
    signed = h.view(np.int64)
    with np.errstate(over="ignore"):
        out = np.abs(signed)  # YCSB's Math.abs
    return np.where(out < 0, np.int64(2**63 - 1), out)  # (Long.MIN_VALUE stays negative in Java)


def _zeta(n: int, theta: float) -> float:
    """sum_{k=1..n} k**-theta; exact up to 2**22 terms, Euler-Maclaurin beyond."""
    m = min(n, 1 << 22)
    total = 0.0
    for start in range(1, m + 1, 1 << 20):
        k = np.arange(start, min(start + (1 << 20), m + 1), dtype=np.float64)
        total += float((k**-theta).sum())
    if n > m:
        a, b = m + 0.5, n + 0.5
        total += (b ** (1 - theta) - a ** (1 - theta)) / (1 - theta)
    return total


def ycsb_zipfian(rng: np.random.Generator, n_items: int, size: int, theta: float = 0.99) -> np.ndarray:
    """Ranks 0 .. n_items - 1 drawn as YCSB's ``ZipfianGenerator`` draws them (Gray et al. 1994).

    Returns
    -------
    numpy.ndarray of int64, shape (size,); rank 0 is the most popular.
    """
    if n_items <= 0:
        raise ValueError("n_items must be positive")
    if n_items == 1 or size == 0:
        return np.zeros(size, dtype=np.int64)
    zetan = _zeta(n_items, theta)
    zeta2 = 1.0 + 0.5**theta
    alpha = 1.0 / (1.0 - theta)
    eta = (1.0 - (2.0 / n_items) ** (1.0 - theta)) / (1.0 - zeta2 / zetan)
    u = rng.random(size)
    uz = u * zetan
    ranks = (n_items * np.power(eta * u - eta + 1.0, alpha)).astype(np.int64)
    ranks[uz < 1.0 + 0.5**theta] = 1
    ranks[uz < 1.0] = 0
    return np.minimum(ranks, n_items - 1)


def scrambled_zipfian(rng: np.random.Generator, n_items: int, size: int, theta: float = 0.99) -> np.ndarray:
    """YCSB's ``ScrambledZipfianGenerator``: a zipfian rank hashed (FNV-1a 64) onto the key space."""
    return fnv1a64(ycsb_zipfian(rng, n_items, size, theta)) % n_items


class LRUSet:
    """An LRU set of ``capacity`` int keys (LevelDB's table cache): :meth:`touch` references one.

    Parameters
    ----------
    capacity : int
        Entries kept; 0 keeps none (every reference misses).
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._keys: OrderedDict[int, None] = OrderedDict()

    def touch(self, key: int) -> bool:
        """Reference ``key``: True if it was in the set (now the most recent), else False (added,
        the least recent leaving when over capacity)."""
        if key in self._keys:
            self._keys.move_to_end(key)
            return True
        if self.capacity > 0:
            self._keys[key] = None
            if len(self._keys) > self.capacity:
                self._keys.popitem(last=False)
        return False


def lru_hits(keys: np.ndarray, capacity: int) -> np.ndarray:
    """Whether each reference of ``keys`` (in order) hits an LRU cache of ``capacity`` entries.

    Returns
    -------
    numpy.ndarray of bool, same shape as ``keys``
    """
    cache = LRUSet(capacity)
    hits = np.zeros(np.shape(keys), dtype=bool)
    for i, k in enumerate(np.asarray(keys).tolist()):
        hits[i] = cache.touch(k)
    return hits
