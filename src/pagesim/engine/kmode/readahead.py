"""Readahead windows (``get_next_ra_size`` growth, PG_readahead marks, synchronous and
asynchronous windows) and reads the policy's ``admit`` bypasses (:func:`_bypassed_read`).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.state import RA_MARK, RESIDENT
from pagesim.engine import counters as C
from pagesim.engine.kmode.devices import _read_wait
from pagesim.engine.kmode.framework import (
    FILE_DEV,
    FMODE_RANDOM,
    N_CTX_RA,
    RA_BYP_LEFT,
    RA_BYP_NEXT,
    RA_END,
    RA_LAST,
    RA_MODE,
    RA_SIZE,
)


@kernel
def _next_window(cur, ra_max):  # type: ignore[no-untyped-def]
    """get_next_ra_size (mm/readahead.c): x4 while small, x2 while under half, then the max."""
    if cur < ra_max // 16:
        return min(4 * cur, ra_max)
    if cur <= ra_max // 2:
        return min(2 * cur, ra_max)
    return ra_max


@kernel
def _plan_window(s, fw, tag, start, size, k, mark=True):  # type: ignore[no-untyped-def]
    """Queue up to ``size`` non-resident file pages from ``start`` on after ``k`` queued pages.

    The middle one gets PG_readahead (unless ``mark`` is False); the task's window end is
    recorded. Returns the new count.
    """
    page = start
    n = 0
    middle = size // 2 if mark else -1
    while page >= 0 and n < size and k < fw.fill.shape[0]:
        if s.resident[page] == 0:
            fw.fill[k] = page
            fw.fill_flags[k] = RESIDENT | (RA_MARK if n == middle else 0)
            fw.fill_ra[k] = 1
            k += 1
            n += 1
        page = fw.ra_next[page]
    fw.tag_ra[tag, RA_END] = page
    return k


@kernel
def _count_window(s, fw, start, size):  # type: ignore[no-untyped-def]
    """How many pages :func:`_plan_window` would queue (it reads the same pages, writes nothing)."""
    page = start
    n = 0
    while page >= 0 and n < size:
        if s.resident[page] == 0:
            n += 1
        page = fw.ra_next[page]
    return n


@kernel
def _pages_needed(s, fw, p, tg, is_anon, o, ra_max):  # type: ignore[no-untyped-def]
    """Pages the access to ``p`` will bring in: the demand page and its readahead window."""
    if o == 2:
        return 0
    v = s.resident[p]
    if v != 0:
        if is_anon or (v & RA_MARK) == 0:
            return 0
        size = _next_window(max(fw.tag_ra[tg, RA_SIZE], 1), ra_max)
        start = fw.tag_ra[tg, RA_END]
        if start < 0:
            start = fw.ra_next[p]
        return _count_window(s, fw, start, size)
    if is_anon or o == 1:
        return 1
    size = _sync_window(s, fw, p, tg, ra_max)
    if size > 1:
        return 1 + _count_window(s, fw, fw.ra_next[p], size - 1)
    return 1


@kernel
def _bypassed_read(s, fw, out, p, tg, ra_max):  # type: ignore[no-untyped-def]
    """What a read of ``p`` that ``admit`` kept out of the cache waits for (ns).

    A page among the rest of the task's last bypassed request (the pages before it may have
    been cache hits) is already in the reader's hands: no wait. Otherwise the read fetches, in
    one request, the page and the pages of the readahead window a miss would have read
    (:func:`_sync_window`; those not in the cache, as readahead reads; the task's readahead
    state moves on as for a miss) from the file device, and none of it enters the cache.
    """
    q = fw.tag_ra[tg, RA_BYP_NEXT]
    left = fw.tag_ra[tg, RA_BYP_LEFT]
    while left > 0 and q >= 0:
        if q == p:
            fw.tag_ra[tg, RA_BYP_LEFT] = left - 1
            fw.tag_ra[tg, RA_BYP_NEXT] = fw.ra_next[p]
            fw.tag_ra[tg, RA_LAST] = p
            return 0.0
        q = fw.ra_next[q]
        left -= 1
    size = _sync_window(s, fw, p, tg, ra_max)
    fw.tag_ra[tg, RA_SIZE] = size
    fw.tag_ra[tg, RA_LAST] = p
    n = 1
    span = 1
    q = fw.ra_next[p]
    while q >= 0 and span < size:
        span += 1
        if s.resident[q] == 0:
            n += 1
        q = fw.ra_next[q]
    fw.tag_ra[tg, RA_BYP_NEXT] = fw.ra_next[p]
    fw.tag_ra[tg, RA_BYP_LEFT] = span - 1
    out[C.PGPGIN] += n
    wait, _ = _read_wait(fw, FILE_DEV, fw.clock[tg], p, n)
    return wait


@kernel
def _sequential(fw, p, tg):  # type: ignore[no-untyped-def]
    """Whether a read of ``p`` follows the task's last read (the next page of the same file)."""
    last = fw.tag_ra[tg, RA_LAST]
    return last >= 0 and fw.ra_next[last] == p


@kernel
def _sync_window(s, fw, p, tg, ra_max):  # type: ignore[no-untyped-def]
    """Size of the synchronous readahead a miss on ``p`` starts (0: none).

    Sequential (:func:`_sequential`): the task's window grown (``get_next_ra_size``). Else, with
    ``context_readahead``, ``try_context_readahead``: ``h`` resident pages just before ``p``
    (up to ``ra_max``); more than the request's one page reads ``min(h + 1, ra_max)``. None
    for a task whose files are FMODE_RANDOM (fadvise RANDOM: ``page_cache_sync_ra`` reads the
    request alone).
    """
    if fw.tag_ra[tg, RA_MODE] & FMODE_RANDOM:
        return 0
    if _sequential(fw, p, tg):
        cur = fw.tag_ra[tg, RA_SIZE]
        return min(4 if cur <= 0 else _next_window(cur, ra_max), ra_max)
    if fw.node[N_CTX_RA] == 0:
        return 0
    h = 0
    q = fw.ra_prev[p]
    while q >= 0 and h < ra_max and s.resident[q] != 0:
        h += 1
        q = fw.ra_prev[q]
    if h <= 1:
        return 0
    return min(h + 1, ra_max)
