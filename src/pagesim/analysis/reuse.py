"""Reuse distances and summary statistics of a trace.

The reuse distance of an access is the number of distinct other pages accessed since the previous
access to the same page (infinite, written -1, on a first access). LRU with a capacity of c pages
hits exactly the accesses whose reuse distance is below c, so the distance histogram is LRU's
whole miss-ratio curve [1]_.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types

from pagesim.trace import Trace
from pagesim.trace._jit import JIT

__all__ = ["reuse_distances", "trace_stats"]

#: Bytes per page when a trace has no object sizes.
PAGE_BYTES = 4096

_I64C = types.Array(types.int64, 1, "C")
_I64C_RO = types.Array(types.int64, 1, "C", readonly=True)


@njit([_I64C(_I64C, types.int64), _I64C(_I64C_RO, types.int64)], **JIT)
def _reuse_distances(pages, n_pages):
    """Reuse distances by a Fenwick tree over access times; see `reuse_distances`.

    ``tree`` counts, for every time t, whether the access at t is the latest access so far to its
    page; the distance of access i to page p last accessed at j is the count over (j, i).
    """
    n = pages.size
    tree = np.zeros(n + 1, dtype=np.int64)
    last = np.full(n_pages, -1, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        p = pages[i]
        j = last[p]
        if j < 0:
            out[i] = -1
        else:
            # marks in (j, i) = prefix(i - 1) - prefix(j); 1-based tree positions t + 1
            s = 0
            k = i  # prefix over times 0..i-1 = positions 1..i
            while k > 0:
                s += tree[k]
                k -= k & -k
            k = j + 1  # prefix over times 0..j
            while k > 0:
                s -= tree[k]
                k -= k & -k
            out[i] = s
            k = j + 1  # unmark j
            while k <= n:
                tree[k] -= 1
                k += k & -k
        k = i + 1  # mark i
        while k <= n:
            tree[k] += 1
            k += k & -k
        last[p] = i
    return out


def reuse_distances(pages: Any) -> np.ndarray:
    """Reuse distance of every access in a trace.

    Parameters
    ----------
    pages : numpy.ndarray of int64, shape (n_accesses,)
        Dense page ids after remapping; 0 <= id < n_pages (any non-negative ids work; memory grows
        with the largest id).

    Returns
    -------
    numpy.ndarray of int64, shape (n_accesses,)
        Distinct other pages accessed since the previous access to the same page; -1 on a first
        access.

    Raises
    ------
    ValueError
        If `pages` is not one-dimensional, not integer, or holds a negative id.

    Notes
    -----
    Exact stack algorithm with a Fenwick (binary indexed) tree over access times [2]_, O(n log n)
    time, O(n + n_pages) memory; kernel `_reuse_distances`. Distances count pages, time is the
    access index; LRU of capacity c hits iff 0 <= d < c.

    References
    ----------
    .. [1] Mattson et al., "Evaluation techniques for storage hierarchies", IBM Syst. J. 9(2), 1970.
    .. [2] P. M. Fenwick, "A new data structure for cumulative frequency tables",
       Software: Practice and Experience 24(3), 1994.

    Examples
    --------
    >>> reuse_distances(np.array([0, 1, 0, 2, 1]))
    array([-1, -1,  1, -1,  2])
    """
    arr = np.asarray(pages)
    if arr.ndim != 1:
        raise ValueError(f"reuse_distances: pages must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"reuse_distances: pages must be integers, got dtype {arr.dtype}")
    if int(arr.min()) < 0:
        raise ValueError(f"reuse_distances: pages must be non-negative, found {int(arr.min())}")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    return _reuse_distances(arr, int(arr.max()) + 1)


def _block_bytes(source: dict[str, Any]) -> int | None:
    """``source["block_bytes"]`` when it is a positive integer, else None."""
    value = source.get("block_bytes")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        return None
    return int(value)


def trace_stats(trace: Trace) -> dict[str, Any]:
    """Summary statistics of a trace, as a JSON-serialisable dict.

    Parameters
    ----------
    trace : Trace
        Any trace, possibly empty.

    Returns
    -------
    dict
        ``requests``: accesses; ``unique_pages``: distinct pages; ``footprint_bytes``: when the
        trace has object sizes, the sum over objects of the largest size seen for each; else
        unique pages x ``source["block_bytes"]`` when the source records a block size (512 for
        ARC ``.lis`` traces); else unique pages x 4096; ``footprint_basis``: ``"object sizes"``,
        ``"pages x 512 (block_bytes)"`` or ``"pages x 4096"``;
        ``one_hit_wonders``: pages accessed exactly once, and ``one_hit_wonder_fraction`` of unique
        pages (0.0 for an empty trace); ``reaccesses``: accesses that are not first accesses;
        ``reuse_distance``: ``{"p50", "p90", "p99"}`` over re-accesses (observed values,
        ``inverted_cdf`` quantiles; None when there is no re-access); ``writes``, ``frees``:
        accesses with those ops; ``source``: the trace's source metadata.

    Notes
    -----
    O(n log n) for the reuse distances; everything else O(n).
    """
    n = trace.n_requests
    n_pages = trace.n_pages
    counts = np.bincount(trace.page, minlength=n_pages) if n else np.zeros(0, dtype=np.int64)
    one_hit = int(np.count_nonzero(counts == 1))
    if trace.size is not None:
        max_size = np.zeros(n_pages, dtype=np.int64)
        np.maximum.at(max_size, trace.page, trace.size)
        footprint = int(max_size.sum())
        basis = "object sizes"
    else:
        block = _block_bytes(trace.source)
        if block is not None:
            footprint = n_pages * block
            basis = f"pages x {block} (block_bytes)"
        else:
            footprint = n_pages * PAGE_BYTES
            basis = f"pages x {PAGE_BYTES}"
    dist = reuse_distances(trace.page)
    re = dist[dist >= 0]
    if re.size:
        q = np.percentile(re, [50, 90, 99], method="inverted_cdf")
        quantiles: dict[str, int | None] = {"p50": int(q[0]), "p90": int(q[1]), "p99": int(q[2])}
    else:
        quantiles = {"p50": None, "p90": None, "p99": None}
    return {
        "requests": n,
        "unique_pages": n_pages,
        "footprint_bytes": footprint,
        "footprint_basis": basis,
        "one_hit_wonders": one_hit,
        "one_hit_wonder_fraction": (one_hit / n_pages) if n_pages else 0.0,
        "reaccesses": int(re.size),
        "reuse_distance": quantiles,
        "writes": int(np.count_nonzero(trace.op == 1)),
        "frees": int(np.count_nonzero(trace.op == 2)),
        "source": trace.source,
    }
