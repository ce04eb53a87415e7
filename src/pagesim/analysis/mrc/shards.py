"""SHARDS: LRU miss-ratio curves from a spatially hashed sample of the pages.

Source: Waldspurger, Park, Garthwaite, Ahmad, "Efficient MRC construction with SHARDS", FAST'15.

A page is sampled when ``hash(page) mod P < T``, so every access to a sampled page is kept and
about a fraction ``R = T / P`` of the pages is; LRU stack distances computed on the sampled
accesses alone are scaled by ``1 / R`` to stand for distances in the whole trace. Here ``P =
2**32`` and the hash is the splitmix64 finaliser (Steele, Lea, Flood, "Fast splittable
pseudorandom number generators", OOPSLA'14) of the dense page id xor the seed times an odd
constant: deterministic
across runs and machines, unlike Python's ``hash()``.

Fixed rate (``rate=R``), adjusted
    The sampled accesses' distances, scaled. SHARDS_adj: the expected number of sampled
    accesses is ``R * N``; the difference between it and the number actually sampled (which
    one very popular page can skew) is counted as hits at every size, and the miss ratio at
    size c is ``sampled misses at c / (R * N)`` (clipped to 1).
Fixed size (``samples=S``)
    At most S pages are tracked. The threshold starts at P (every page) and, whenever a new page
    would make S + 1, drops to the largest tracked hash, whose page is forgotten: R = T / P
    shrinks as the trace goes on. Each sampled access is scaled by the rate of its moment;
    when R drops from R0 to R1 the counts so far are scaled by R1 / R0 (the paper's histogram
    rescaling), i.e. an access sampled at rate R_i weighs ``R_final / R_i`` in the end. The
    adjustment as for a fixed rate: weighted misses over ``R_final * N``. (Measured on a Zipf(0.9)
    trace of 300,000 accesses over 30,000 pages, S = 2000, three seeds: MAE 0.003-0.008 so,
    0.034-0.070 normalised by the total weight instead.)

The paper reports a mean absolute error below 0.01 (fixed size, S = 8K) on its block traces;
the error is largest at small sizes (a few popular pages in or out of the sample, Carra and
Neglia, "Efficient miss ratio curve computation for heterogeneous content popularity", ATC'20).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from pagesim.analysis.mrc.stack import INFINITE, lru_stack_distances
from pagesim.core.heap import sift_down, sift_up
from pagesim.core.jit import kernel, kernel_inline
from pagesim.trace import Trace

__all__ = ["HASH_SPACE", "ShardsEstimate", "page_hashes", "shards_fixed_rate", "shards_fixed_size"]

#: P: hashes are taken modulo 2**32; a rate R samples pages with ``hash < R * P``.
HASH_SPACE = 1 << 32


@kernel
def _splitmix_hashes(n_pages, seed):  # type: ignore[no-untyped-def]
    out = np.empty(n_pages, dtype=np.int64)
    # the seed times an odd constant: a small seed changes the high bits of every key too
    s = np.uint64(seed) * np.uint64(0xD1B54A32D192ED03)
    for p in range(n_pages):
        z = np.uint64(p) ^ s
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        out[p] = np.int64(z >> np.uint64(32))
    return out


def page_hashes(n_pages: int, seed: int = 0) -> np.ndarray:
    """Hash of every dense page id, ``0 <= h < 2**32`` (splitmix64 finaliser, upper 32 bits).

    Parameters
    ----------
    n_pages : int
        Pages ``0 .. n_pages - 1``.
    seed : int
        Any integer; taken modulo 2**64.

    Returns
    -------
    numpy.ndarray of int64, shape (n_pages,)
    """
    return _splitmix_hashes(int(n_pages), int(seed) % (1 << 64))


@kernel
def _sampled_accesses(page, hashes, limit, warmup):  # type: ignore[no-untyped-def]
    """Dense ids (first-occurrence order) of the accesses to pages with hash < limit; their
    count before ``warmup``; the number of distinct pages sampled."""
    n_pages = hashes.shape[0]
    # one bit a page says "sampled" (a 1 M-page trace: 128 KB, in cache); the id table
    # (int32) is read only for the sampled accesses
    bits = np.zeros((n_pages + 63) // 64, dtype=np.uint64)
    sub_id = np.full(n_pages, -1, dtype=np.int32)
    for p in range(n_pages):
        if hashes[p] < limit:
            bits[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    out = np.empty(page.shape[0], dtype=np.int64)
    m = 0
    seen = 0
    before = 0
    for t in range(page.shape[0]):
        p = page[t]
        if (bits[p >> 6] >> np.uint64(p & 63)) & np.uint64(1) == 0:
            continue
        q = np.int64(sub_id[p])
        if q < 0:
            q = seen
            sub_id[p] = np.int32(q)
            seen += 1
        out[m] = q
        m += 1
        if t < warmup:
            before += 1
    return out[:m], before, seen


def threshold_for(rate: float) -> int:
    """T for a sampling rate: pages with ``hash < T`` are sampled (raises ValueError unless 0 < rate <= 1)."""
    if not 0 < rate <= 1:
        raise ValueError(f"sampling rate must be in (0, 1], got {rate}")
    return max(1, int(round(rate * HASH_SPACE)))


class ShardsEstimate(NamedTuple):
    """A SHARDS curve: miss ratios at the sizes asked, and what the sample was.

    miss_ratio : float64, shape (n_sizes,); rate : final R; sampled_requests : counted accesses
    to sampled pages; sampled_pages : distinct pages sampled (tracked at the end, fixed size).
    """

    miss_ratio: np.ndarray
    rate: float
    sampled_requests: int
    sampled_pages: int


def shards_fixed_rate(
    trace: Trace, capacities: Sequence[int], rate: float, seed: int = 0, warmup: int = 0
) -> ShardsEstimate:
    """Fixed-rate SHARDS with the adjustment (SHARDS_adj) for LRU.

    Parameters
    ----------
    trace : Trace
    capacities : sequence of int
        Cache sizes in pages (>= 1).
    rate : float
        Sampling rate R, 0 < R <= 1.
    seed : int
        Hash seed.
    warmup : int
        Accesses before this index are not counted (they still build the stack).

    Returns
    -------
    ShardsEstimate

    Raises
    ------
    ValueError
        If the rate is out of range.
    """
    limit = threshold_for(rate)
    r = limit / HASH_SPACE
    hashes = page_hashes(trace.n_pages, seed)
    sub, before, n_sampled = _sampled_accesses(trace.page, hashes, limit, int(warmup))
    distances = lru_stack_distances(sub, int(n_sampled))
    counted = distances[before:]
    n_counted = max(trace.n_requests - warmup, 0)
    expected = r * n_counted
    caps = np.asarray(capacities, dtype=np.float64)
    scaled = np.sort(counted[counted != INFINITE]).astype(np.float64) / r
    cold = counted.shape[0] - scaled.shape[0]
    misses = cold + scaled.shape[0] - np.searchsorted(scaled, caps, side="right")
    ratio = np.minimum(misses / expected, 1.0) if expected > 0 else np.zeros(caps.shape[0])
    return ShardsEstimate(ratio, r, int(counted.shape[0]), int(n_sampled))


# The tracked pages' max-heap by hash (pagesim.core.heap's sifting): ``h`` is (heap, hashes), an
# entry is a page, and the larger hash goes first (ties stay where they are).
@kernel_inline
def _tracked_at(h, slot):  # type: ignore[no-untyped-def]
    return h[0][slot]


@kernel_inline
def _track_at(h, slot, p):  # type: ignore[no-untyped-def]
    h[0][slot] = p


@kernel_inline
def _larger_hash(h, x, y):  # type: ignore[no-untyped-def]
    return h[1][x] > h[1][y]


@kernel
def _fixed_size(page, hashes, samples, warmup):  # type: ignore[no-untyped-def]
    """Distances (unscaled), rates per sampled access and counted flags, fixed-size SHARDS."""
    n = page.shape[0]
    span = n + 1
    tree = np.zeros(span + 1, dtype=np.int32)  # Fenwick over access positions 1..n
    last = np.zeros(hashes.shape[0], dtype=np.int64)  # position of the tracked page's mark
    heap = np.empty(samples + 1, dtype=np.int64)  # max-heap of tracked pages by hash
    size = 0
    live = 0
    limit = np.int64(1) << 32
    dist = np.empty(n, dtype=np.int64)
    rate = np.empty(n, dtype=np.float64)
    m = 0
    for t in range(n):
        p = page[t]
        h = hashes[p]
        if h >= limit:
            continue
        at = last[p]
        pos = t + 1
        if at == 0:
            # a new tracked page: push; if over budget, forget the one with the largest hash
            heap[size] = p
            sift_up((heap, hashes), size, _larger_hash, _tracked_at, _track_at)
            size += 1
            live += 1
            if size > samples:
                gone = heap[0]
                limit = hashes[gone]
                size -= 1
                heap[0] = heap[size]
                sift_down((heap, hashes), 0, size, _larger_hash, _tracked_at, _track_at)
                if last[gone] > 0:
                    k = last[gone]
                    while k <= span:
                        tree[k] -= 1
                        k += k & -k
                    last[gone] = 0
                live -= 1
                if gone == p:
                    continue
            d = np.int64(-1)
        else:
            below = 0
            k = at
            while k > 0:
                below += tree[k]
                k -= k & -k
            d = live - below + 1
            k = at
            while k <= span:
                tree[k] -= 1
                k += k & -k
        last[p] = pos
        k = pos
        while k <= span:
            tree[k] += 1
            k += k & -k
        if t >= warmup:
            dist[m] = d
            rate[m] = limit / 4294967296.0
            m += 1
    return dist[:m], rate[:m], limit, size


def shards_fixed_size(
    trace: Trace, capacities: Sequence[int], samples: int, seed: int = 0, warmup: int = 0
) -> ShardsEstimate:
    """Fixed-size SHARDS for LRU: at most ``samples`` pages tracked, rate lowered as needed.

    Parameters
    ----------
    trace : Trace
    capacities : sequence of int
        Cache sizes in pages (>= 1).
    samples : int
        S, the most pages tracked at once (>= 1).
    seed : int
        Hash seed.
    warmup : int
        Accesses before this index are not counted.

    Returns
    -------
    ShardsEstimate
        ``rate`` is the final R (1.0 if the trace has at most S pages: then exact).

    Raises
    ------
    ValueError
        If ``samples`` < 1.
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    hashes = page_hashes(trace.n_pages, seed)
    dist, rates, limit, tracked = _fixed_size(trace.page, hashes, int(samples), int(warmup))
    final = limit / HASH_SPACE
    weight = final / rates
    caps = np.asarray(capacities, dtype=np.float64)
    n_counted = max(trace.n_requests - warmup, 0)
    total = final * n_counted
    cold = dist == INFINITE
    scaled = np.where(cold, np.inf, dist / rates)
    order = np.argsort(scaled, kind="stable")
    cum = np.concatenate(([0.0], np.cumsum(weight[order])))
    misses = cum[-1] - cum[np.searchsorted(scaled[order], caps, side="right")]
    ratio = misses / total if total > 0 else np.zeros(caps.shape[0])
    return ShardsEstimate(np.clip(ratio, 0.0, 1.0), float(final), int(dist.shape[0]), int(tracked))
