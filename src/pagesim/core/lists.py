"""Framework-managed eviction lists: cache_ext's list kfuncs as compiled functions.

Source: Zussman et al., "cache_ext: Customizing the Page Cache with eBPF", SOSP 2025, §4.2
(eviction lists) and the artifact's ``mm/cache_ext_ds.c`` as summarised in
``shared/reference/cache_ext_spec.md`` §2.2–2.7.

Terms
-----
Each page has one list node (``State.lst[page]``); a node is in at most one list. Lists belong to
the cgroup that created them (at most ``MAX_LISTS_PER_CGROUP``). ``list_add`` inserts at the head,
``list_add_tail`` at the tail; iteration and sampling run from head to tail, so a policy that
inserts at the tail sees its oldest pages first, as in cache_ext.

Deviations from cache_ext
-------------------------
1. List ids are small integers starting at 0 and ``list_create`` returns -1 on failure
   (cache_ext: kernel addresses, 0 on failure); "the list being iterated" is -1, not 0.
2. Iteration callbacks receive ``(s, a, index, page)`` instead of ``(index, node)``.
3. ``list_sample`` takes ``partial``: with ``partial=False`` (cache_ext's behaviour) a list
   shorter than ``request * sample_size`` yields no candidates; with ``partial=True`` it samples
   what there is, in groups of ``sample_size`` and a last shorter group.

All functions run compiled or, with ``NUMBA_DISABLE_JIT=1``, as plain Python. The ones a policy
calls on every access are inlined into their callers (``kernel_inline``): a compiled call takes
the ``State`` (14 arrays) by value, which can cost more than the few loads and stores of the
list operation (measured: a W-TinyLFU sketch estimate of one cached page, 400 ns called, 80 ns
inlined, at load 6 on 2 CPUs).

The indexed sampler (``list_sample_indexed``, ``index_add_tail``, ``index_removed``) is in
:mod:`pagesim.core.indexed`.
"""

from __future__ import annotations

import numpy as np

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.state import (
    HEAD,
    LEN,
    LIST,
    MAX_CANDIDATES,
    MAX_ITERATE,
    MAX_LISTS_PER_CGROUP,
    MAX_SAMPLE,
    NEXT,
    OWNER,
    PREV,
    TAIL,
    VERSION,
)

#: Verdicts of an iteration callback (cache_ext: CONTINUE, STOP, EVICT).
CONTINUE = 0
STOP = 1
EVICT = 2


#: Where ``list_iterate`` puts a node after its verdict.
SKIP = 0
TO_HEAD = 1
TO_TAIL = 2


@kernel_inline
def list_valid(s, lid):  # type: ignore[no-untyped-def]
    """1 if ``lid`` names a created list, else 0."""
    return 1 if 0 <= lid < s.lhd.shape[0] and s.lhd[lid, OWNER] >= 0 else 0


@kernel
def list_create(s, cgroup):  # type: ignore[no-untyped-def]
    """Create an empty list owned by ``cgroup``; return its id, or -1 if the cgroup has 5."""
    base = cgroup * MAX_LISTS_PER_CGROUP
    if cgroup < 0 or base + MAX_LISTS_PER_CGROUP > s.lhd.shape[0]:
        return -1
    for lid in range(base, base + MAX_LISTS_PER_CGROUP):
        if s.lhd[lid, OWNER] < 0:
            s.lhd[lid, HEAD] = -1
            s.lhd[lid, TAIL] = -1
            s.lhd[lid, LEN] = 0
            s.lhd[lid, OWNER] = cgroup
            return lid
    return -1


@kernel_inline
def _link_head(s, lid, page):  # type: ignore[no-untyped-def]
    h = s.lhd[lid, HEAD]
    s.lst[page, NEXT] = h
    s.lst[page, PREV] = -1
    s.lst[page, LIST] = lid
    if h >= 0:
        s.lst[h, PREV] = page
    else:
        s.lhd[lid, TAIL] = page
    s.lhd[lid, HEAD] = page
    s.lhd[lid, LEN] += 1
    s.lhd[lid, VERSION] += 1


@kernel_inline
def _link_tail(s, lid, page):  # type: ignore[no-untyped-def]
    t = s.lhd[lid, TAIL]
    s.lst[page, PREV] = t
    s.lst[page, NEXT] = -1
    s.lst[page, LIST] = lid
    if t >= 0:
        s.lst[t, NEXT] = page
    else:
        s.lhd[lid, HEAD] = page
    s.lhd[lid, TAIL] = page
    s.lhd[lid, LEN] += 1
    s.lhd[lid, VERSION] += 1


@kernel_inline
def _unlink(s, page):  # type: ignore[no-untyped-def]
    lid = s.lst[page, LIST]
    nxt = s.lst[page, NEXT]
    prv = s.lst[page, PREV]
    if prv >= 0:
        s.lst[prv, NEXT] = nxt
    else:
        s.lhd[lid, HEAD] = nxt
    if nxt >= 0:
        s.lst[nxt, PREV] = prv
    else:
        s.lhd[lid, TAIL] = prv
    s.lst[page, NEXT] = -1
    s.lst[page, PREV] = -1
    s.lst[page, LIST] = -1
    s.lhd[lid, LEN] -= 1
    s.lhd[lid, VERSION] += 1


@kernel_inline
def _page_ok(s, page):  # type: ignore[no-untyped-def]
    return 0 <= page < s.lst.shape[0] and s.resident[page] != 0


@kernel_inline
def list_add(s, lid, page):  # type: ignore[no-untyped-def]
    """Insert a resident ``page`` at the head of list ``lid``.

    Returns 0, or -1 if the list is invalid, the page is not resident, or it is already in a list.
    """
    if list_valid(s, lid) == 0 or not _page_ok(s, page) or s.lst[page, LIST] >= 0:
        return -1
    _link_head(s, lid, page)
    return 0


@kernel_inline
def list_add_tail(s, lid, page):  # type: ignore[no-untyped-def]
    """Insert a resident ``page`` at the tail of list ``lid``; 0, or -1 as :func:`list_add`."""
    if list_valid(s, lid) == 0 or not _page_ok(s, page) or s.lst[page, LIST] >= 0:
        return -1
    _link_tail(s, lid, page)
    return 0


@kernel_inline
def list_move(s, lid, page, tail):  # type: ignore[no-untyped-def]
    """Move ``page`` to the head (``tail`` false) or tail of ``lid``, from any list or none.

    Returns 0, or -1 if the list is invalid or the page is not resident.
    """
    if list_valid(s, lid) == 0 or not _page_ok(s, page):
        return -1
    if s.lst[page, LIST] >= 0:
        _unlink(s, page)
    if tail:
        _link_tail(s, lid, page)
    else:
        _link_head(s, lid, page)
    return 0


#: The unchecked link operations, for code whose own invariants guarantee what the checked
#: ones test (``lid`` valid, the page resident; in a list for the unlink, in none for the
#: link): the engine's removal, a policy switch, ARC's hit. Wrong use corrupts the lists.
list_unlink_unchecked = _unlink
list_link_head_unchecked = _link_head


@kernel
def list_del(s, page):  # type: ignore[no-untyped-def]
    """Unlink ``page`` from its list; 0, or -1 if it is in none or out of range."""
    if page < 0 or page >= s.lst.shape[0] or s.lst[page, LIST] < 0:
        return -1
    _unlink(s, page)
    return 0


@kernel_inline
def list_head(s, lid):  # type: ignore[no-untyped-def]
    """First page of ``lid`` (where iteration starts), or -1 if empty."""
    return s.lhd[lid, HEAD]


@kernel_inline
def list_tail(s, lid):  # type: ignore[no-untyped-def]
    """Last page of ``lid``, or -1 if empty."""
    return s.lhd[lid, TAIL]


@kernel_inline
def list_len(s, lid):  # type: ignore[no-untyped-def]
    """Number of pages in ``lid``."""
    return s.lhd[lid, LEN]


@kernel_inline
def list_next(s, page):  # type: ignore[no-untyped-def]
    """The page after ``page`` (towards the tail), or -1."""
    return s.lst[page, NEXT]


@kernel_inline
def list_prev(s, page):  # type: ignore[no-untyped-def]
    """The page before ``page`` (towards the head), or -1."""
    return s.lst[page, PREV]


@kernel_inline
def list_of(s, page):  # type: ignore[no-untyped-def]
    """Id of the list holding ``page``, or -1."""
    return s.lst[page, LIST]


@kernel
def _place(s, page, mode, target, current):  # type: ignore[no-untyped-def]
    if mode == SKIP:
        return
    lid = current if target < 0 else target
    _unlink(s, page)
    if mode == TO_TAIL:
        _link_tail(s, lid, page)
    else:
        _link_head(s, lid, page)


@kernel
def _target_ok(s, lid, target, mode):  # type: ignore[no-untyped-def]
    """A move target is -1 (the list itself), or a valid list with a mode other than SKIP."""
    if target < 0 or target == lid:
        return True
    return list_valid(s, target) == 1 and mode != SKIP


@kernel_inline
def list_iterate(s, a, lid, verdict, count, continue_mode, continue_list, evict_mode, evict_list):  # type: ignore[no-untyped-def]
    """Walk ``lid`` from head to tail, asking ``verdict`` about each page.

    Parameters
    ----------
    s : State
    a : numpy.ndarray of int64, shape (ACC_LEN,)
        The current event, passed through to ``verdict``.
    lid : int
        List to walk.
    verdict : compiled function ``(s, a, index, page) -> int``
        Returns ``CONTINUE`` (keep), ``STOP`` or ``EVICT`` (propose the page).
    count : int
        Candidates already in ``s.cand``; new ones are appended after them.
    continue_mode, evict_mode : int
        ``SKIP``, ``TO_HEAD`` or ``TO_TAIL``: where a kept / proposed node goes afterwards.
    continue_list, evict_list : int
        Target list of the move; -1 means ``lid`` itself.

    Returns
    -------
    int
        The new candidate count (``count`` when nothing was proposed), or -1 if ``lid`` or a
        target list is invalid, or a target other than ``lid`` is given with mode ``SKIP``.
        Iteration stops at ``MAX_CANDIDATES`` candidates, a ``STOP``, a verdict that is none of
        the three (cache_ext aborts the walk there), the end of the list or ``MAX_ITERATE``
        visited nodes (cache_ext ``list_iterate``).
    """
    if list_valid(s, lid) == 0:
        return -1
    if not _target_ok(s, lid, continue_list, continue_mode):
        return -1
    if not _target_ok(s, lid, evict_list, evict_mode):
        return -1
    page = s.lhd[lid, HEAD]
    i = 0
    while page >= 0 and count < MAX_CANDIDATES and i < MAX_ITERATE:
        nxt = s.lst[page, NEXT]
        r = verdict(s, a, i, page)
        if r == STOP or (r != CONTINUE and r != EVICT):
            break
        if r == EVICT:
            s.cand[count] = page
            count += 1
            _place(s, page, evict_mode, evict_list, lid)
        else:
            _place(s, page, continue_mode, continue_list, lid)
        i += 1
        page = nxt
    return count


@kernel_inline
def _rotate(s, lid, last, after):  # type: ignore[no-untyped-def]
    """Move the run from the head to ``last`` (``after`` follows it, not -1) behind the tail.

    Six link writes, whatever the run's length: the run keeps its order, so this is the same end
    state as unlinking its nodes one by one from the head and appending each at the tail.
    """
    first = s.lhd[lid, HEAD]
    tail = s.lhd[lid, TAIL]
    s.lhd[lid, HEAD] = after
    s.lst[after, PREV] = -1
    s.lst[tail, NEXT] = first
    s.lst[first, PREV] = tail
    s.lst[last, NEXT] = -1
    s.lhd[lid, TAIL] = last
    s.lhd[lid, VERSION] += 1


@kernel_inline
def _window_length(s, lid, request, sample_size, partial):  # type: ignore[no-untyped-def]
    """How many head nodes a sample of ``request`` groups of ``sample_size`` scores.

    Returns
    -------
    int
        ``request * sample_size``, or the list's length if it is shorter and ``partial``;
        0 if it is shorter and not ``partial`` or empty; -1 if ``lid`` is invalid, an argument
        is not positive, ``request > MAX_CANDIDATES`` or ``request * sample_size > MAX_SAMPLE``.
    """
    if list_valid(s, lid) == 0 or request <= 0 or sample_size <= 0:
        return -1
    if request > MAX_CANDIDATES or request * sample_size > MAX_SAMPLE:
        return -1
    k = request * sample_size
    n = s.lhd[lid, LEN]
    if n < k:
        if not partial or n == 0:
            return 0
        k = n
    return k


@kernel_inline
def _score_groups(s, a, score, k, sample_size):  # type: ignore[no-untyped-def]
    """Score ``s.sample[:k]`` with ``score`` and write each group's lowest to ``s.cand``.

    Groups are consecutive runs of ``sample_size`` (the last may be shorter); strict ``<`` gives
    ties to the node nearer the head; the winner's score goes to ``s.scores``. The pages are
    known in advance, so their loads overlap.

    Returns
    -------
    int
        The number of groups, ``ceil(k / sample_size)``.
    """
    groups = 0
    j = 0
    while j < k:
        hi = min(j + sample_size, k)
        best = s.sample[j]
        best_score = score(s, a, best)
        j += 1
        while j < hi:
            page = s.sample[j]
            v = score(s, a, page)
            if v < best_score:
                best_score = v
                best = page
            j += 1
        s.cand[groups] = best
        s.scores[groups] = best_score
        groups += 1
    return groups


@kernel_inline
def list_sample(s, a, lid, score, request, sample_size, partial):  # type: ignore[no-untyped-def]
    """Batch scoring: score ``request`` groups of ``sample_size`` head nodes, propose each minimum.

    The ``request * sample_size`` nodes nearest the head are scored by
    ``score(s, a, page) -> int64`` (they are written to ``s.sample`` in list order), the lowest of
    each consecutive group (strict ``<``: ties go to the node nearer the head) is written to
    ``s.cand[g]`` with its score in ``s.scores[g]``, and every sampled node, winners included,
    ends at the tail in its original order (cache_ext ``list_sample``, spec §2.6c).

    cache_ext detaches the window before scoring and re-attaches it at the tail afterwards; here
    the window's ids are collected by one walk, scored in place, and then moved behind the tail
    as one run (six link writes, not two unlinks and links per node). The end state, the
    candidates and the scores are the same. Score functions must not touch the lists
    (cache_ext's callbacks may not call list kfuncs either).

    Returns
    -------
    int
        Number of candidates written (``request``, or fewer groups for a partial sample), 0 if
        the list is too short and ``partial`` is false (or empty), or -1 if ``lid`` is invalid
        or ``request * sample_size > MAX_SAMPLE``.
    """
    k = _window_length(s, lid, request, sample_size, partial)
    if k <= 0:
        return k
    page = s.lhd[lid, HEAD]
    for j in range(k):
        s.sample[j] = page
        page = s.lst[page, NEXT]
    groups = _score_groups(s, a, score, k, sample_size)
    if k < s.lhd[lid, LEN]:
        _rotate(s, lid, s.sample[k - 1], page)
    return groups


@kernel
def check_lists(s):  # type: ignore[no-untyped-def]
    """Walk every list and check links, lengths and membership; return 0 or an error code.

    Codes: 1 a node's LIST disagrees with the list it is found in, 2 PREV link broken,
    3 length disagrees, 4 a node is in a list but not resident, 5 a cycle (walk longer than
    the page count).
    """
    n_pages = s.lst.shape[0]
    for lid in range(s.lhd.shape[0]):
        if s.lhd[lid, OWNER] < 0:
            continue
        page = s.lhd[lid, HEAD]
        prev = -1
        k = 0
        while page >= 0:
            k += 1
            if k > n_pages:
                return 5
            if s.lst[page, LIST] != lid:
                return 1
            if s.lst[page, PREV] != prev:
                return 2
            if s.resident[page] == 0:
                return 4
            prev = page
            page = s.lst[page, NEXT]
        if k != s.lhd[lid, LEN] or s.lhd[lid, TAIL] != prev:
            return 3
    return 0


def list_pages(s, lid):  # type: ignore[no-untyped-def]
    """Pages of ``lid`` from head to tail, as a numpy int64 array (Python, for tests/reports)."""
    out = []
    page = int(s.lhd[lid, HEAD])
    while page >= 0:
        out.append(page)
        page = int(s.lst[page, NEXT])
    return np.array(out, dtype=np.int64)
