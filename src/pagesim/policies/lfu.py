"""Least Frequently Used (LFU): keeps the pages used most often while cached; evicts the least used.

Source      The classical rule (e.g. Coffman and Denning, "Operating Systems Theory",
            Prentice-Hall, 1973); O(1) frequency buckets from Shah, Mitra, Matani, "An O(1)
            algorithm for implementing the LFU cache eviction scheme", 2010; the tie rule of
            libCacheSim's ``LFU`` (cache/eviction/LFU.c, read, not ported).
Structures  Frequency buckets: a doubly linked list of buckets in increasing count order, each a
            doubly linked FIFO of the pages with that count, kept in the policy's own columns of
            ``s.pm`` (the framework's lists are not used: there may be as many buckets as pages,
            cache_ext allows 5 lists per cgroup). A bucket is a row id in ``0 .. n_pages - 1``;
            page rows and bucket rows share ``pm`` but use different columns. Free bucket ids are
            chained through ``PM.b_up``.
Rules       The count of a page is the number of accesses since it was last inserted (reset on
            eviction; a newcomer has count 1).
            added: count 1, appended to the tail of bucket 1.
            accessed: count + 1, the page moves to the tail of the next bucket.
            evict: propose the head of the lowest bucket.
            Tie rule (libCacheSim's): among the pages with the lowest count, evict the one that
            reached that count first, i.e. whose last access is the oldest (LRU among the least
            frequently used) -- a page enters a bucket exactly at its most recent access.
Parameters  none.
Complexity  O(1) per access and per eviction; 9 int64 columns per page (4 page fields, 5 bucket
            fields); ``init`` is O(n_pages) (chains the free bucket ids).
Deviations  none. With several cgroups each cgroup runs its own instance (its own buckets in
            its own ``pm``), so the victim is the least frequent page of that cgroup.
Peers       libCacheSim 0.3.5 ``LFU``: identical miss counts on cloudPhysicsIO and LIRS traces
            (tests/crosscheck); its C++ ``LFUCpp`` breaks ties differently (see LFU.c's header).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.state import A_PAGE
from pagesim.policies.base import Policy

#: per page its count and bucket links; per bucket (row = bucket id) the bucket's fields
STATE = Layout(
    "lfu",
    pm=(
        field("freq", "accesses", "accesses since insertion; 0 when not resident"),
        field("bucket", "bucket id", "bucket id holding the page, -1 when not resident"),
        field("next", "page id", "next page in the bucket (towards the tail), -1 if none"),
        field("prev", "page id", "previous page in the bucket (towards the head), -1 if none"),
        field("b_freq", "accesses", "bucket row: count shared by the bucket's pages"),
        field("b_head", "page id", "bucket row: oldest page of the bucket (the eviction end), -1 if empty"),
        field("b_tail", "page id", "bucket row: newest page of the bucket"),
        field(
            "b_up",
            "bucket id",
            "bucket row: next bucket with a higher count (or next free bucket id), -1 if none",
        ),
        field("b_down", "bucket id", "bucket row: previous bucket with a lower count, -1 if none"),
    ),
    gi=(
        field("low", "bucket id", "lowest-count bucket, -1 if the cache is empty"),
        field("free", "bucket id", "first free bucket id, -1 if none"),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    n = s.pm.shape[0]
    for i in range(n):
        s.pm[i, PM.freq] = 0
        s.pm[i, PM.bucket] = -1
        s.pm[i, PM.next] = -1
        s.pm[i, PM.prev] = -1
        s.pm[i, PM.b_freq] = 0
        s.pm[i, PM.b_head] = -1
        s.pm[i, PM.b_tail] = -1
        s.pm[i, PM.b_up] = i + 1 if i + 1 < n else -1
        s.pm[i, PM.b_down] = -1
    s.gi[GI.low] = -1
    s.gi[GI.free] = 0
    return 0


@kernel
def _bucket_new(s, freq, below):  # type: ignore[no-untyped-def]
    """Take a free bucket id for ``freq`` and link it just above bucket ``below`` (-1: lowest)."""
    b = s.gi[GI.free]
    s.gi[GI.free] = s.pm[b, PM.b_up]
    s.pm[b, PM.b_freq] = freq
    s.pm[b, PM.b_head] = -1
    s.pm[b, PM.b_tail] = -1
    if below < 0:
        up = s.gi[GI.low]
        s.gi[GI.low] = b
    else:
        up = s.pm[below, PM.b_up]
        s.pm[below, PM.b_up] = b
    s.pm[b, PM.b_down] = below
    s.pm[b, PM.b_up] = up
    if up >= 0:
        s.pm[up, PM.b_down] = b
    return b


@kernel
def _bucket_free(s, b):  # type: ignore[no-untyped-def]
    """Unlink the empty bucket ``b`` from the bucket list and return its id to the free chain."""
    up = s.pm[b, PM.b_up]
    down = s.pm[b, PM.b_down]
    if down >= 0:
        s.pm[down, PM.b_up] = up
    else:
        s.gi[GI.low] = up
    if up >= 0:
        s.pm[up, PM.b_down] = down
    s.pm[b, PM.b_freq] = 0
    s.pm[b, PM.b_down] = -1
    s.pm[b, PM.b_up] = s.gi[GI.free]
    s.gi[GI.free] = b


@kernel
def _append(s, b, p):  # type: ignore[no-untyped-def]
    """Append page ``p`` at the tail of bucket ``b``."""
    t = s.pm[b, PM.b_tail]
    s.pm[p, PM.bucket] = b
    s.pm[p, PM.prev] = t
    s.pm[p, PM.next] = -1
    if t >= 0:
        s.pm[t, PM.next] = p
    else:
        s.pm[b, PM.b_head] = p
    s.pm[b, PM.b_tail] = p


@kernel
def _detach(s, p):  # type: ignore[no-untyped-def]
    """Unlink page ``p`` from its bucket; return the bucket id."""
    b = s.pm[p, PM.bucket]
    nxt = s.pm[p, PM.next]
    prv = s.pm[p, PM.prev]
    if prv >= 0:
        s.pm[prv, PM.next] = nxt
    else:
        s.pm[b, PM.b_head] = nxt
    if nxt >= 0:
        s.pm[nxt, PM.prev] = prv
    else:
        s.pm[b, PM.b_tail] = prv
    s.pm[p, PM.bucket] = -1
    s.pm[p, PM.next] = -1
    s.pm[p, PM.prev] = -1
    return b


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    low = s.gi[GI.low]
    if low >= 0 and s.pm[low, PM.b_freq] == 1:
        b = low
    else:
        b = _bucket_new(s, 1, -1)
    s.pm[p, PM.freq] = 1
    _append(s, b, p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    b = s.pm[p, PM.bucket]
    if b < 0:  # not ours (should not happen in cache mode)
        return 0
    f = s.pm[p, PM.freq] + 1
    s.pm[p, PM.freq] = f
    up = s.pm[b, PM.b_up]
    if up >= 0 and s.pm[up, PM.b_freq] == f:
        _detach(s, p)
        _append(s, up, p)
        if s.pm[b, PM.b_head] < 0:
            _bucket_free(s, b)
    elif s.pm[b, PM.b_head] == p and s.pm[b, PM.b_tail] == p:
        s.pm[b, PM.b_freq] = f  # alone in its bucket: the bucket moves up with it
    else:
        _detach(s, p)
        nb = _bucket_new(s, f, b)
        _append(s, nb, p)
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    low = s.gi[GI.low]
    if low < 0:
        return 0
    s.cand[0] = s.pm[low, PM.b_head]
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    if s.pm[p, PM.bucket] < 0:
        return 0
    b = _detach(s, p)
    s.pm[p, PM.freq] = 0
    if s.pm[b, PM.b_head] < 0:
        _bucket_free(s, b)
    return 0


class LFU(Policy):
    """Least Frequently Used with libCacheSim's tie rule (LRU among the least used)."""

    name = "lfu"
    description = "Least Frequently Used (in-cache counts; ties: least recently used)"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def check_invariants(self, s: Any) -> None:
        """Buckets strictly increasing and non-empty; every resident page in the bucket of its count."""
        pm = s.pm
        seen: set[int] = set()
        b = int(s.gi[GI.low])
        down = -1
        prev_freq = 0
        n_buckets = 0
        while b >= 0:
            n_buckets += 1
            assert n_buckets <= pm.shape[0], "cycle in the bucket list"
            assert int(pm[b, PM.b_down]) == down, f"bucket {b}: broken down link"
            f = int(pm[b, PM.b_freq])
            assert f > prev_freq, f"bucket {b}: count {f} not above {prev_freq}"
            p = int(pm[b, PM.b_head])
            assert p >= 0, f"bucket {b} (count {f}) is empty but linked"
            prv = -1
            while p >= 0:
                assert p not in seen, f"page {p} twice in the buckets"
                seen.add(p)
                assert s.resident[p], f"page {p} in a bucket but not resident"
                assert int(pm[p, PM.bucket]) == b and int(pm[p, PM.prev]) == prv, f"page {p}: links"
                assert int(pm[p, PM.freq]) == f, f"page {p}: count {pm[p, PM.freq]} in bucket {f}"
                prv = p
                p = int(pm[p, PM.next])
            assert int(pm[b, PM.b_tail]) == prv, f"bucket {b}: tail"
            prev_freq = f
            down = b
            b = int(pm[b, PM.b_up])
        assert sorted(seen) == np.flatnonzero(s.resident).tolist(), "buckets != resident set"
        n_free = 0
        b = int(s.gi[GI.free])
        while b >= 0:
            n_free += 1
            assert n_free <= pm.shape[0], "cycle in the free bucket chain"
            b = int(pm[b, PM.b_up])
        assert n_free + n_buckets == pm.shape[0], "bucket ids lost"
