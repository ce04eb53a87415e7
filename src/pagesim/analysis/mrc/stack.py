"""Exact miss-ratio curves in one pass for stack algorithms: LRU and Belady's OPT (MIN).

A replacement policy is a *stack algorithm* (Mattson, Gecsei, Slutz, Traiger, "Evaluation
techniques for storage hierarchies", IBM Systems Journal 9(2), 1970) when the cache of size c
always holds a subset of the cache of size c + 1. Then every access has a *stack distance* d
(its depth in one priority-ordered stack, infinite on a first access) and the cache of c pages
misses exactly the accesses with d > c: one pass over the trace gives the misses at every size.

LRU
    Priority = recency. The stack distance of an access is 1 + the number of distinct pages
    accessed since the previous access to the same page. Computed from marks over access times,
    a 1 at the latest access of every page (Bennett and Kruskal, "LRU stack processing", IBM
    J. R&D 19(4), 1975): the distance is the count of marks after the page's previous access,
    plus one. The marks are bits in 64-bit words with a Fenwick tree over the words' counts
    (a popcount inside the word, O(log(m / 64)) across words). The positions span twice the
    number of distinct pages and are compacted (live marks renumbered in order) when full, so
    the structure stays small and in cache: O(n log m) time, O(m) memory for n accesses over m
    pages.
OPT (MIN)
    Priority = next use (sooner is higher). Mattson's update: on an access to page x at depth d
    the page goes to the top; the old top is carried down and, at each depth i < d, swapped
    with the page there when that page's next use is later than the carried page's; the carried
    page ends at depth d. Only the carried page changes hands, so the stack is kept as fixed
    slots with a max segment tree of the slots' next uses, and each swap is found in
    O(log K) ("first slot after i whose next use is later than v"). Depths beyond the largest
    size asked for, K, are misses at every size, so the stack is truncated at K: the top K slots
    do not depend on the pages below them. O(n (1 + s) log K) for s swaps per access; s was
    150-650 on the real traces measured, so below :data:`OPT_ONE_PASS_MIN_SIZES` sizes
    :func:`exact_misses` runs the engine's OPT once per size instead (also exact).

Both count misses as :func:`pagesim.engine.simulate` does: the cache runs from the first access,
misses are counted from access ``warmup`` on, a first access is a miss. Exact for traces with one
cgroup in page units; several cgroups (each its own cache) and byte capacities are refused:
with object sizes LRU stops being a stack algorithm in pagesim's loop (an object larger than
the cache is not inserted, a resident object keeps the size it was inserted with).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pagesim.core.jit import kernel
from pagesim.engine import simulate
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace

__all__ = [
    "INFINITE",
    "OPT_ONE_PASS_MIN_SIZES",
    "STACK_POLICIES",
    "exact_misses",
    "lru_stack_distances",
    "misses_at",
    "opt_stack_distances",
]

#: Registry names of the policies whose miss counts this module computes exactly at every size:
#: pagesim's ``lru`` and ``opt`` (both module docstrings cite Mattson et al. 1970).
STACK_POLICIES = frozenset({"lru", "opt"})

#: From this many distinct capacities on, ``exact_misses`` computes OPT by the priority stack
#: rather than one engine run per size. Measured (OLTP, cloudPhysicsIO): the stack costs as
#: much as 50-300 single-size OPT runs (150-650 carried pages per access, more for deeper
#: stacks), so below about 300 sizes the runs are faster; both are exact.
OPT_ONE_PASS_MIN_SIZES = 300

#: Stack distance of an access that misses at every size (a first access, or an OPT access
#: deeper than the truncated stack).
INFINITE = -1


@kernel
def _popcount(x):  # type: ignore[no-untyped-def]
    """Set bits of a uint64 (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@kernel
def _word_add(tree, w, delta):  # type: ignore[no-untyped-def]
    k = w + 1
    while k < tree.shape[0]:
        tree[k] += delta
        k += k & -k


@kernel
def _lru_distances(page, n_pages):  # type: ignore[no-untyped-def]
    n = page.shape[0]
    n_words = (2 * max(n_pages, 1) + 63) // 64 + 1
    span = 64 * n_words  # positions 0..span-1, one bit each
    bits = np.zeros(n_words, dtype=np.uint64)  # marks: the latest access of every page
    tree = np.zeros(n_words + 1, dtype=np.int32)  # Fenwick over the marks per word
    owner = np.full(span, -1, dtype=np.int64)
    last = np.full(max(n_pages, 1), -1, dtype=np.int64)  # position of the page's mark
    out = np.empty(n, dtype=np.int64)
    one = np.uint64(1)
    live = 0
    top = 0  # next free position
    for t in range(n):
        p = page[t]
        at = last[p]
        if at < 0:
            out[t] = -1
            live += 1
        else:
            w = at >> 6
            bit = one << np.uint64(at & 63)
            below = _popcount(bits[w] & (bit | (bit - one)))  # marks at positions <= at
            k = w
            while k > 0:
                below += tree[k]
                k -= k & -k
            out[t] = live - below + 1
            bits[w] &= ~bit
            _word_add(tree, w, -1)
        if top == span:  # compact: renumber the live marks 0.. in order, rebuild
            new = 0
            for q in range(span):
                o = owner[q]
                owner[q] = -1
                if o >= 0 and last[o] == q and o != p:
                    last[o] = new
                    owner[new] = o
                    new += 1
            bits[:] = 0
            tree[:] = 0
            for q in range(new):
                bits[q >> 6] |= one << np.uint64(q & 63)
            for w in range(n_words):
                tree[w + 1] += _popcount(bits[w])
                r = (w + 1) + ((w + 1) & -(w + 1))
                if r <= n_words:
                    tree[r] += tree[w + 1]
            top = new
        owner[top] = p
        last[p] = top
        bits[top >> 6] |= one << np.uint64(top & 63)
        _word_add(tree, top >> 6, 1)
        top += 1
    return out


def lru_stack_distances(page: np.ndarray, n_pages: int) -> np.ndarray:
    """LRU stack distance of every access.

    Parameters
    ----------
    page : numpy.ndarray of int64, shape (n,)
        Dense page ids, ``0 <= id < n_pages``.
    n_pages : int
        Number of distinct pages.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        1 + distinct other pages accessed since the page's previous access; :data:`INFINITE`
        (-1) on a first access. LRU with c pages hits exactly the accesses with
        ``1 <= d <= c``.
    """
    return _lru_distances(np.ascontiguousarray(page, dtype=np.int64), int(n_pages))


@kernel
def _first_later(tree, leaves, lo, value):  # type: ignore[no-untyped-def]
    """First leaf index >= ``lo`` whose key is > ``value`` in a max segment tree, or -1."""
    if lo >= leaves:
        return -1
    node = lo + leaves
    if tree[node] > value:
        return lo
    while node > 1:
        if (node & 1) == 0 and tree[node + 1] > value:
            node += 1
            while node < leaves:
                node = 2 * node if tree[2 * node] > value else 2 * node + 1
            return node - leaves
        node >>= 1
    return -1


@kernel
def _set_key(tree, leaves, slot, key):  # type: ignore[no-untyped-def]
    node = slot + leaves
    tree[node] = key
    node >>= 1
    while node >= 1:
        a = tree[2 * node]
        b = tree[2 * node + 1]
        tree[node] = a if a > b else b
        node >>= 1


@kernel
def _opt_distances(page, nxt, n_pages, depth):  # type: ignore[no-untyped-def]
    n = page.shape[0]
    leaves = 1
    while leaves < depth:
        leaves *= 2
    tree = np.full(2 * leaves, -1, dtype=np.int64)  # max of next uses; empty slot = -1
    slot_page = np.full(depth, -1, dtype=np.int64)
    slot_of = np.full(max(n_pages, 1), -1, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    size = 0
    swaps = 0
    for t in range(n):
        x = page[t]
        d = slot_of[x]
        if d >= 0:
            out[t] = d + 1
        else:
            out[t] = -1
            d = size  # == depth when full: the carried page falls off the truncated stack
        if d > 0:
            cur = slot_page[0]
            cur_key = tree[leaves]
            i = 0
            while True:
                j = _first_later(tree, leaves, i + 1, cur_key)
                if j < 0 or j >= d:
                    break
                swaps += 1
                old = slot_page[j]
                old_key = tree[leaves + j]
                slot_page[j] = cur
                slot_of[cur] = j
                _set_key(tree, leaves, j, cur_key)
                cur = old
                cur_key = old_key
                i = j
            if d < depth:
                slot_page[d] = cur
                slot_of[cur] = d
                _set_key(tree, leaves, d, cur_key)
                if d == size:
                    size += 1
            else:
                slot_of[cur] = -1
        elif size == 0:
            size = 1
        slot_page[0] = x
        slot_of[x] = 0
        _set_key(tree, leaves, 0, nxt[t])
    return out, swaps


def opt_stack_distances(trace: Trace, depth: int) -> tuple[np.ndarray, int]:
    """Belady's OPT (MIN) stack distance of every access, by Mattson's priority stack.

    Parameters
    ----------
    trace : Trace
        Its ``next_access()`` gives the priorities.
    depth : int
        Largest depth tracked (>= 1): the largest cache size of interest.

    Returns
    -------
    distances : numpy.ndarray of int64, shape (n,)
        Depth of the page before the access (1 = top), or :data:`INFINITE` (-1) if it was not in
        the top ``depth`` (a first access, or deeper): OPT with c <= depth pages hits exactly the
        accesses with ``1 <= d <= c``.
    swaps : int
        Pages moved by carrying, over the whole pass (the work beyond one slot per access).

    Raises
    ------
    ValueError
        If ``depth`` < 1.
    """
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    depth = int(min(depth, max(trace.n_pages, 1)))
    out, swaps = _opt_distances(trace.page, trace.next_access(), trace.n_pages, depth)
    return out, int(swaps)


def misses_at(distances: np.ndarray, capacities: Sequence[int], warmup: int = 0) -> np.ndarray:
    """Misses at each capacity from stack distances, counting accesses ``warmup`` on.

    Parameters
    ----------
    distances : numpy.ndarray of int64, shape (n,)
        Stack distances (1-based; :data:`INFINITE` = miss everywhere).
    capacities : sequence of int
        Cache sizes in pages, each >= 1 (and no deeper than the distances were tracked).
    warmup : int
        Accesses before this index are not counted.

    Returns
    -------
    numpy.ndarray of int64, shape (len(capacities),)
        Accesses ``warmup..n-1`` with distance INFINITE or > capacity.
    """
    counted = distances[warmup:]
    caps = np.asarray(capacities, dtype=np.int64)
    if counted.shape[0] == 0:
        return np.zeros(caps.shape[0], dtype=np.int64)
    # histogram of depths (INFINITE counted in bin 0, then dropped), O(n) rather than a sort
    per_depth = np.bincount(np.maximum(counted, 0))
    per_depth[0] = 0
    hits_within = np.cumsum(per_depth)  # hits_within[c] = accesses at depth 1..c
    hits = hits_within[np.minimum(caps, hits_within.shape[0] - 1)]
    return (counted.shape[0] - hits).astype(np.int64)


def _check_exact_input(trace: Trace, policy_name: str, capacities: Sequence[int], warmup: int) -> None:
    if policy_name not in STACK_POLICIES:
        raise ValueError(
            f"exact miss-ratio curves need a stack algorithm; {policy_name!r} is not one "
            f"(exact works for: {', '.join(sorted(STACK_POLICIES))}; use method='minisim' for "
            "any policy)"
        )
    if trace.cgroup is not None and trace.n_requests and int(trace.cgroup.max()) > 0:
        raise ValueError(
            "exact miss-ratio curves need a trace with one cgroup (each cgroup is its own cache); "
            "use method='minisim' or pagesim compare"
        )
    if any(int(c) < 1 for c in capacities):
        raise ValueError(f"capacities must be >= 1 page, got {list(capacities)}")
    if warmup < 0 or (warmup and warmup >= trace.n_requests):
        raise ValueError(f"warm-up must be in 0..{max(trace.n_requests - 1, 0)}, got {warmup}")


def stack_distances(trace: Trace, policy_name: str, depth: int) -> np.ndarray:
    """Stack distances of ``policy_name`` (``lru`` or ``opt``) tracked to ``depth``."""
    if policy_name == "lru":
        return lru_stack_distances(trace.page, trace.n_pages)
    return opt_stack_distances(trace, depth)[0]


def exact_misses(
    trace: Trace,
    policy_name: str,
    capacities: Sequence[int],
    warmup: int = 0,
    *,
    one_pass: bool | None = None,
) -> np.ndarray:
    """Misses of a stack policy at every capacity, from one pass over the trace.

    Equal to ``simulate(trace, make_policy(policy_name), c, warmup=warmup).misses`` for each
    capacity ``c`` (page units, one cgroup).

    Parameters
    ----------
    trace : Trace
        One cgroup.
    policy_name : str
        A name in :data:`STACK_POLICIES` (``"lru"``, ``"opt"``).
    capacities : sequence of int
        Cache sizes in pages, each >= 1; any order, repeats allowed.
    warmup : int
        Accesses before this index fill the cache uncounted (as ``simulate``'s ``warmup``).
    one_pass : bool or None
        OPT only: True runs Mattson's priority stack, False one engine run per distinct
        capacity (Belady's heap, O(n log c) each), None (default) the priority stack from
        :data:`OPT_ONE_PASS_MIN_SIZES` distinct capacities on. Both are exact; LRU always
        takes one pass.

    Returns
    -------
    numpy.ndarray of int64, shape (len(capacities),)
        Misses counted after the warm-up, in the order of ``capacities``.

    Raises
    ------
    ValueError
        If the policy is not a stack algorithm (the message names those that are), the trace has
        several cgroups, a capacity is < 1 or the warm-up is out of range.
    """
    caps = [int(c) for c in capacities]
    _check_exact_input(trace, policy_name, caps, int(warmup))
    if not caps or trace.n_requests == 0:
        return np.zeros(len(caps), dtype=np.int64)
    distinct = sorted(set(caps))
    if policy_name == "opt" and not (
        one_pass or (one_pass is None and len(distinct) >= OPT_ONE_PASS_MIN_SIZES)
    ):
        by_size = {c: simulate(trace, make_policy("opt"), c, warmup=int(warmup)).misses for c in distinct}
        return np.array([by_size[c] for c in caps], dtype=np.int64)
    distances = stack_distances(trace, policy_name, max(caps))
    return misses_at(distances, caps, int(warmup))
