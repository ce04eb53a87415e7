"""Indexed sampling: a policy-kept copy of one list's order, so that a sample's pages load in parallel.

Walking a list is a chain of dependent loads, one cache miss per node (measured on this project's
2-core machine: ~190 ns a node for a 100k-node list over 760k pages, against ~5 ns when the
nodes' ids are known in advance and the loads can overlap). A sampling policy walks
``request * sample_size`` nodes per eviction, so the chain, not the scoring, bounds its speed.
An *index* is a copy of one list's order in two of the policy's own ``pm`` columns: column
``rc`` used as a ring of page ids by position (row = ring slot; -1 = a removed page's
tombstone), column ``pc`` the slot of each page; ``INDEX_GLOBALS`` globals from ``gi[g]``:
the ring's first slot, its span (live entries and tombstones), the list's ``VERSION`` at which
the index was last known to equal the list (-1: not known), a page removed from the index
whose unlink from the list is due next (-1: none), and how far past the first slot the rows
were prefetched (slots, live ids). The policy keeps it with :func:`index_add_tail` (instead
of ``list_add_tail``) and :func:`index_removed` (in its ``removed`` hook: the framework unlinks
the page right after) and samples with :func:`list_sample_indexed`. ``VERSION`` counts every
link change of the list, so the index knows it is exact exactly when no other call changed
the list since; otherwise the sample first rebuilds it from the list (O(length)). The list stays
the truth: results are those of :func:`list_sample`, whatever else changed the list.

Used by ce-lfu and ce-lhd; the list API itself is :mod:`pagesim.core.lists`.
"""

from __future__ import annotations

import numpy as np

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.lists import _rotate, _window_length, list_add_tail
from pagesim.core.prefetch import prefetch
from pagesim.core.state import (
    HEAD,
    LEN,
    LIST,
    NEVER,
    NEXT,
    VERSION,
)

G_START = 0  #: offsets from ``g`` of the index's globals
G_SPAN = 1
G_SYNCED = 2
G_PENDING = 3
G_AHEAD = 4  #: slots past the start whose rows were prefetched (``_prefetch_ahead``)
G_AHEAD_LIVE = 5  #: live ids among them
INDEX_GLOBALS = 6  #: ``gi`` slots an index takes


#: how many windows ahead of the next sample ``list_sample_indexed`` prefetches the rows of
WINDOWS_AHEAD = 2


@kernel
def index_reset(s, lid, g, pc):  # type: ignore[no-untyped-def]
    """Empty the index at ``gi[g:g + INDEX_GLOBALS]`` of list ``lid``; every page's slot (column
    ``pc``) := -1.

    Returns
    -------
    None
        ``s.gi[g:g + INDEX_GLOBALS]`` is ``[0, 0, version, -1, 0, 0]`` afterwards (version: the
        list's ``VERSION`` if it is empty, else -1, so that the first sample rebuilds the index)
        and ``s.pm[:, pc]`` is -1 (O(n_pages)).
    """
    s.gi[g + G_START] = 0
    s.gi[g + G_SPAN] = 0
    s.gi[g + G_SYNCED] = s.lhd[lid, VERSION] if s.lhd[lid, LEN] == 0 else -1
    s.gi[g + G_PENDING] = -1
    s.gi[g + G_AHEAD] = 0
    s.gi[g + G_AHEAD_LIVE] = 0
    for p in range(s.pm.shape[0]):
        s.pm[p, pc] = -1


@kernel
def index_rebuild(s, lid, g, rc, pc):  # type: ignore[no-untyped-def]
    """Rewrite the index from list ``lid`` (head first, from slot 0): O(length).

    Returns
    -------
    None
        ``s.pm[:m, rc]`` holds the list's pages head first (m = its length), ``s.pm[page, pc]``
        each one's slot, ``s.gi[g:g + INDEX_GLOBALS]`` is ``[0, m, the list's VERSION, -1, 0,
        0]``; other rows are left as they are.
    """
    page = s.lhd[lid, HEAD]
    m = 0
    while page >= 0:
        s.pm[m, rc] = page
        s.pm[page, pc] = m
        m += 1
        page = s.lst[page, NEXT]
    s.gi[g + G_START] = 0
    s.gi[g + G_SPAN] = m
    s.gi[g + G_SYNCED] = s.lhd[lid, VERSION]
    s.gi[g + G_PENDING] = -1
    s.gi[g + G_AHEAD] = 0
    s.gi[g + G_AHEAD_LIVE] = 0


@kernel_inline
def _index_exact(s, lid, g):  # type: ignore[no-untyped-def]
    """True if the index holds list ``lid``'s order (its live entries, head first).

    It does when the list's ``VERSION`` is the one recorded, or one more with the pending page
    (removed from the index while it was exact, then in the list) out of the list: the only
    single link change that takes a page out of a list is its unlink.
    """
    v = s.lhd[lid, VERSION]
    p = s.gi[g + G_PENDING]
    if p >= 0:
        s.gi[g + G_PENDING] = -1
        s.gi[g + G_SYNCED] = v if s.gi[g + G_SYNCED] == v - 1 and s.lst[p, LIST] != lid else -1
    return s.gi[g + G_SYNCED] == v


@kernel_inline
def _index_append(s, lid, page, g, rc, pc):  # type: ignore[no-untyped-def]
    n = s.pm.shape[0]
    m = s.gi[g + G_SPAN]
    if m >= n:  # the ring is full of tombstones: compact (the list already holds ``page``)
        index_rebuild(s, lid, g, rc, pc)
        return
    slot = s.gi[g + G_START] + m
    if slot >= n:
        slot -= n
    s.pm[slot, rc] = page
    s.pm[page, pc] = slot
    s.gi[g + G_SPAN] = m + 1


@kernel_inline
def index_add_tail(s, lid, page, g, rc, pc):  # type: ignore[no-untyped-def]
    """``list_add_tail(s, lid, page)`` and the same append to the index.

    Returns
    -------
    int
        ``list_add_tail``'s result: 0, or -1 (list invalid, page not resident or already in a
        list), in which case the index is left unchanged.
    """
    exact = _index_exact(s, lid, g)
    r = list_add_tail(s, lid, page)
    if r == 0:
        _index_append(s, lid, page, g, rc, pc)
        if exact:
            s.gi[g + G_SYNCED] = s.lhd[lid, VERSION]
    return r


@kernel_inline
def index_removed(s, lid, page, g, rc, pc):  # type: ignore[no-untyped-def]
    """Mark ``page``'s slot in the index of ``lid`` as a tombstone (call from the ``removed`` hook,
    before the framework unlinks the page).

    Returns
    -------
    None
        ``s.pm[page, pc]`` is -1 afterwards; the ring entry becomes -1 if it still named ``page``.
    """
    exact = _index_exact(s, lid, g)
    slot = s.pm[page, pc]
    live = slot >= 0 and s.pm[slot, rc] == page
    if live:
        s.pm[slot, rc] = -1
        if exact and s.lst[page, LIST] == lid:
            s.gi[g + G_PENDING] = page  # exact again once the page's unlink is the list's next change
        else:
            s.gi[g + G_SYNCED] = -1
    s.pm[page, pc] = -1


@kernel_inline
def _sample_ring(s, a, score, k, sample_size, g, rc, pc):  # type: ignore[no-untyped-def]
    """One pass over the index from its start: the first ``k`` live ids go to ``s.sample``, are
    scored in groups of ``sample_size`` (the lowest of each to ``s.cand``, its score to
    ``s.scores``, strict ``<``: ties to the node nearer the head) and are appended to the
    index's end as they are read (the window moves to the tail), each page's slot rewritten in
    the row its score just read.

    The writes never overtake the reads: the end is ``span`` slots after the start and at most
    ``n`` slots exist, so a write lands on a slot this pass has already read. The pass reads at
    most ``span`` slots: an exact index holds at least ``k`` live ids there; a ring a policy
    overwrote can end it with fewer.

    Returns
    -------
    (int, int, int)
        The number of groups, ``ceil(k / sample_size)`` if ``k`` ids were found; the slots read
        (live ids and tombstones), which leave the index's start; the ids found and appended.
    """
    n = s.pm.shape[0]
    read = s.gi[g + G_START]
    write = read + s.gi[g + G_SPAN]
    if write >= n:
        write -= n
    used = 0
    got = 0
    groups = 0
    m = s.gi[g + G_SPAN]
    while got < k and used < m:
        hi = min(got + sample_size, k)
        best = -1
        best_score = NEVER
        while got < hi and used < m:  # bounded even if a policy wrote over its ring
            page = s.pm[np.uint64(read), rc]
            read += 1
            if read == n:
                read = 0
            used += 1
            if page < 0:
                continue
            v = score(s, a, page)
            take = (v < best_score) | (best < 0)
            best = page if take else best
            best_score = v if take else best_score
            s.sample[np.uint64(got)] = page
            s.pm[np.uint64(write), rc] = page
            s.pm[np.uint64(page), pc] = write
            write += 1
            if write == n:
                write = 0
            got += 1
        s.cand[groups] = best
        s.scores[groups] = best_score
        groups += 1
    return groups, used, got


@kernel_inline
def _prefetch_links(s, k, groups, sample_size):  # type: ignore[no-untyped-def]
    """Start loading the list nodes the rotation and the winners' unlinks write: the window's
    ends and each winner with its neighbours (none of them was read to find the window)."""
    prefetch(s.lst, s.sample[0])
    prefetch(s.lst, s.sample[k - 1])
    for grp in range(groups):
        j = grp * sample_size
        hi = min(j + sample_size, k)
        while j < hi - 1 and s.sample[j] != s.cand[grp]:
            j += 1
        if j > 0:
            prefetch(s.lst, s.sample[j - 1])
        prefetch(s.lst, s.sample[j])
        if j + 1 < k:
            prefetch(s.lst, s.sample[j + 1])


@kernel_inline
def _prefetch_ahead(s, k, used, g, rc):  # type: ignore[no-untyped-def]
    """Keep the rows of the next ``WINDOWS_AHEAD`` windows (``k`` live ids each) at the index's
    start loading: a cursor ``gi[g + G_AHEAD]`` slots past the start, ``gi[g + G_AHEAD_LIVE]``
    live ids behind it, moves on by what this sample consumed (``used`` slots, ``k`` ids).
    Each window's first and last ids also get their list nodes loaded (the rotation writes
    them). The loads have the accesses of the evictions in between to finish; results never
    depend on them (a removal in between only makes a prefetch useless)."""
    n = s.pm.shape[0]
    m = s.gi[g + G_SPAN]
    ahead = s.gi[g + G_AHEAD] - used
    live = s.gi[g + G_AHEAD_LIVE] - k
    if ahead <= 0 or live < 0:
        ahead = 0
        live = 0
    slot = s.gi[g + G_START] + ahead
    if slot >= n:
        slot -= n
    want = WINDOWS_AHEAD * k
    pos = live % k  # the next live id's place in its window
    while live < want and ahead < m:
        e = s.pm[np.uint64(slot), rc]
        slot += 1
        if slot == n:
            slot = 0
        ahead += 1
        if e >= 0:
            prefetch(s.pm, e)  # one line: rows are line-aligned (core.state.row_width)
            if pos == 0 or pos == k - 1:
                prefetch(s.lst, e)
            pos += 1
            if pos == k:
                pos = 0
            live += 1
    s.gi[g + G_AHEAD] = ahead
    s.gi[g + G_AHEAD_LIVE] = live


@kernel_inline
def list_sample_indexed(s, a, lid, score, request, sample_size, partial, g, rc, pc):  # type: ignore[no-untyped-def]
    """:func:`list_sample` reading the window from the index at ``gi[g:g + INDEX_GLOBALS]``
    (columns ``rc``, ``pc``).

    Same arguments, checks, candidates, scores, ``s.sample`` and end state as
    :func:`list_sample` (cache_ext ``list_sample``, spec §2.6c); the window's ids come from the
    index (rebuilt from the list first if another call changed the list since the index last
    matched it), so its nodes load in parallel instead of one pointer at a time and their links
    are not read. The window moves to the index's end in the same pass, as it moves to the
    list's tail.

    Returns
    -------
    int
        As :func:`list_sample`: the number of candidates written to ``s.cand`` (int64 page ids,
        their int64 scores in ``s.scores``), 0 if the list is too short and ``partial`` is false
        (or empty), -1 if ``lid`` is invalid or ``request * sample_size > MAX_SAMPLE``.
    """
    k = _window_length(s, lid, request, sample_size, partial)
    if k <= 0:
        return k
    if not _index_exact(s, lid, g):
        index_rebuild(s, lid, g, rc, pc)
    groups = used = 0
    for _ in range(2):  # one call site: the score is inlined once
        groups, used, got = _sample_ring(s, a, score, k, sample_size, g, rc, pc)
        if got == k:
            break
        # the ring is not the list's order (the policy wrote over it): the list decides
        index_rebuild(s, lid, g, rc, pc)
    _prefetch_links(s, k, groups, sample_size)
    last = s.sample[k - 1]
    if k < s.lhd[lid, LEN]:
        _rotate(s, lid, last, s.lst[last, NEXT])
    start = s.gi[g + G_START] + used
    if start >= s.pm.shape[0]:
        start -= s.pm.shape[0]
    s.gi[g + G_START] = start
    s.gi[g + G_SPAN] += k - used
    s.gi[g + G_SYNCED] = s.lhd[lid, VERSION]
    _prefetch_ahead(s, k, used, g, rc)
    return groups
