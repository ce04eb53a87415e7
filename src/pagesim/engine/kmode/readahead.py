"""File readahead as Linux 6.6 does it for a one-page ``read()``/``pread`` (mm/readahead.c:
``page_cache_sync_ra``, ``page_cache_async_ra``, ``ondemand_readahead``, ``get_init_ra_size``,
``get_next_ra_size``, ``page_cache_ra_unbounded``; mm/filemap.c: ``filemap_get_pages``,
``filemap_readahead``, ``filemap_read``), and reads the policy's ``admit`` bypasses
(:func:`_bypassed_read`).

A task's ``struct file_ra_state`` is ``fw.tag_ra[tag]``: ``RA.start``, ``RA.size``,
``RA.async_size`` (``start``, ``size``, ``async_size``; ``start`` is a file index, pagesim's source id
``fw.addr``), ``RA.last`` (the page the task's last read asked for: ``prev_pos``, which
``filemap_read`` sets to the byte after the read) and ``RA.max`` (``ra_pages``; fadvise
SEQUENTIAL doubles it). A window ``[start, start + size)`` reads its pages not in memory and
gives PG_readahead (``RA_MARK``) to the page at ``start + size - async_size`` if it reads it.

* A read miss (:func:`_sync_plan`): a task with FMODE_RANDOM reads the page alone
  (``force_page_cache_ra``). A page at the window's expected index (``start + size``, or its
  marked page ``start + size - async_size``) pushes the window on: ``start += size``,
  ``size = get_next_ra_size``, ``async_size = size``. Else a page one or two after the last
  read (``index - prev_index <= 1``) starts again: ``start = index``, ``size =
  get_init_ra_size(1, ra_pages)`` (4 pages with ``ra_pages`` 32 or 64), ``async_size = size -
  1``. Else, with ``context_readahead``, ``try_context_readahead``; else the page alone, the
  state untouched. Then ``readit``: a window that would mark the page being read (``index ==
  start``, ``size == async_size``) takes in the next one.
* A read that finds PG_readahead (:func:`_async_plan`, ``page_cache_async_ra``, even under
  FMODE_RANDOM) clears it and pushes the window on as above if the page is at the expected
  index; else (the task's state describes another stream) the next window starts at the first
  page after it not in memory, ``size = get_next_ra_size(gap + 1)``, none if that is more than
  ``ra_pages`` away.
* Writes neither read ahead nor move ``prev_pos`` (``generic_perform_write``).

Not modelled: a read of a file's first page (``index == 0``) starts a window whatever came
before (a trace has no file offsets); large folios (``page_cache_ra_order``'s orders: ext4 in
6.6 has none).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.state import RA_MARK, RESIDENT
from pagesim.engine import counters as C
from pagesim.engine.kmode.devices import _read_wait
from pagesim.engine.kmode.framework import (
    FILE_DEV,
    FMODE_RANDOM,
    RA,
    N,
    _free_pages,
)


@kernel
def _next_window(cur, ra_max):  # type: ignore[no-untyped-def]
    """``get_next_ra_size``: x4 below ``ra_max / 16``, x2 up to ``ra_max / 2``, then ``ra_max``."""
    if cur < ra_max // 16:
        return 4 * cur
    if cur <= ra_max // 2:
        return 2 * cur
    return ra_max


@kernel
def _init_window(req, ra_max):  # type: ignore[no-untyped-def]
    """``get_init_ra_size``: the request rounded up to a power of two, x4 up to ``ra_max / 32``,
    x2 up to ``ra_max / 4``, else ``ra_max``."""
    size = 1
    while size < req:
        size *= 2
    if size <= ra_max // 32:
        return 4 * size
    if size <= ra_max // 4:
        return 2 * size
    return ra_max


@kernel
def _readit(a, start, size, asz, ra_max):  # type: ignore[no-untyped-def]
    """``ondemand_readahead``'s ``readit``: a window starting at the page read (index ``a``)
    whose mark would fall on it takes in the next window; returns ``(size, async_size)``."""
    if a == start and size == asz:
        add = _next_window(size, ra_max)
        if size + add <= ra_max:
            return size + add, add
        return ra_max, ra_max >> 1
    return size, asz


@kernel
def _expected(fw, p, tg):  # type: ignore[no-untyped-def]
    """Whether ``p`` is at the task's expected index: ``start + size - async_size`` (the marked
    page) or ``start + size``."""
    size = fw.tag_ra[tg, RA.size]
    if size <= 0:
        return False
    end = fw.tag_ra[tg, RA.start] + size
    a = fw.addr[p]
    return a == end or a == end - fw.tag_ra[tg, RA.async_size]


@kernel
def _sequential(fw, p, tg):  # type: ignore[no-untyped-def]
    """``index - prev_index <= 1UL``: ``p`` is the page after the task's last read or the one
    after that (``prev_pos`` is the byte after the last read: its page is the next page)."""
    last = fw.tag_ra[tg, RA.last]
    if last < 0:
        return False
    d = fw.addr[p] - fw.addr[last] - 1
    return 0 <= d <= 1


@kernel
def _context_window(s, fw, p, ra_max):  # type: ignore[no-untyped-def]
    """``try_context_readahead`` for a one-page request (0: none, or off): ``h`` resident pages
    just before ``p`` (``count_history_pages``, at most ``ra_max``); more than one gives
    ``min(h + 1, ra_max)``."""
    if fw.node[N.ctx_ra] == 0:
        return 0
    h = 0
    q = fw.ra_prev[p]
    while q >= 0 and h < ra_max and s.resident[q] != 0:
        h += 1
        q = fw.ra_prev[q]
    if h <= 1:
        return 0
    return min(h + 1, ra_max)


@kernel
def _sync_plan(s, fw, p, tg, ra_max):  # type: ignore[no-untyped-def]
    """``page_cache_sync_ra`` for a one-page read miss of ``p``: ``(start, size, async_size)``
    of the window it reads (size 0: the page alone, the task's state untouched)."""
    if fw.tag_ra[tg, RA.mode] & FMODE_RANDOM:
        return -1, 0, 0
    a = fw.addr[p]
    if _expected(fw, p, tg):
        start = fw.tag_ra[tg, RA.start] + fw.tag_ra[tg, RA.size]
        size = _next_window(fw.tag_ra[tg, RA.size], ra_max)
        asz = size
    elif _sequential(fw, p, tg):
        start = a
        size = _init_window(1, ra_max)
        asz = size - 1 if size > 1 else size
    else:
        size = _context_window(s, fw, p, ra_max)
        if size == 0:
            return -1, 0, 0
        start = a
        asz = 1
    size, asz = _readit(a, start, size, asz, ra_max)
    return start, size, asz


@kernel
def _async_plan(s, fw, p, tg, ra_max):  # type: ignore[no-untyped-def]
    """``page_cache_async_ra`` for a read of ``p``, which has PG_readahead: ``(start, size,
    async_size)`` of the next window (size 0: none)."""
    a = fw.addr[p]
    if _expected(fw, p, tg):
        start = fw.tag_ra[tg, RA.start] + fw.tag_ra[tg, RA.size]
        size = _next_window(fw.tag_ra[tg, RA.size], ra_max)
    else:  # page_cache_next_miss from p + 1, at most ra_max pages
        n = 1
        q = fw.ra_next[p]
        while q >= 0 and n <= ra_max and s.resident[q] != 0:
            n += 1
            q = fw.ra_next[q]
        if n > ra_max:
            return -1, 0, 0
        start = a + n
        size = _next_window(n + 1, ra_max)
    size, asz = _readit(a, start, size, size, ra_max)
    return start, size, asz


@kernel
def _commit(fw, tg, start, size, asz):  # type: ignore[no-untyped-def]
    """Store a window as the task's readahead state."""
    fw.tag_ra[tg, RA.start] = start
    fw.tag_ra[tg, RA.size] = size
    fw.tag_ra[tg, RA.async_size] = asz


@kernel
def _page_at(fw, p, off):  # type: ignore[no-untyped-def]
    """The page ``off`` pages after ``p`` in its file (-1 past the pages in the trace)."""
    q = p
    for _ in range(off):
        if q < 0:
            break
        q = fw.ra_next[q]
    return q


@kernel
def _plan_window(s, fw, first, size, asz, skip, k, limit):  # type: ignore[no-untyped-def]
    """Queue the non-resident pages of the window of ``size`` pages from ``first`` (but
    ``skip``, queued already) after ``k`` queued pages, ``limit`` queued at most (-1: as many as
    ``fw.fill`` holds); the page ``size - asz`` from its start gets PG_readahead if queued.
    Returns the new count."""
    page = first
    mark = size - asz
    most = fw.fill.shape[0] if limit < 0 else min(limit, fw.fill.shape[0])
    for i in range(size):
        if page < 0 or k >= most:
            break
        if page != skip and s.resident[page] == 0:
            fw.fill[k] = page
            fw.fill_flags[k] = RESIDENT | (RA_MARK if i == mark else 0)
            fw.fill_ra[k] = 1
            k += 1
        page = fw.ra_next[page]
    return k


@kernel
def _count_window(s, fw, first, size, skip):  # type: ignore[no-untyped-def]
    """How many pages :func:`_plan_window` would queue (it reads the same pages, writes nothing)."""
    page = first
    n = 0
    for _ in range(size):
        if page < 0:
            break
        if page != skip and s.resident[page] == 0:
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
        if is_anon or o != 0 or (v & RA_MARK) == 0:
            return 0
        start, size, _ = _async_plan(s, fw, p, tg, ra_max)
        if size == 0:
            return 0
        return _count_window(s, fw, _page_at(fw, p, start - fw.addr[p]), size, -1)
    if is_anon or o == 1:
        return 1
    start, size, _ = _sync_plan(s, fw, p, tg, ra_max)
    if size == 0:
        return 1
    return 1 + _count_window(s, fw, _page_at(fw, p, start - fw.addr[p]), size, p)


@kernel
def _noretry_fill(fw, cg, k, demand):  # type: ignore[no-untyped-def]
    """Pages an access that wants ``k`` (``demand`` of them its own page, 0 or 1) may bring in
    once its reclaim episode ended short of its target: the readahead pages are allocated with
    ``__GFP_NORETRY`` (``readahead_gfp_mask``), so they get the room there is, and
    ``page_cache_ra_unbounded`` reads the window's pages it allocated before the first failure;
    the demand page's own allocation retries (``filemap_create_folio``)."""
    room = min(fw.cap[cg] - fw.used[cg], _free_pages(fw) - fw.node[N.wmin])
    return max(demand, min(k, room))


@kernel
def _bypassed_read(s, fw, out, p, tg, ra_max):  # type: ignore[no-untyped-def]
    """What a read of ``p`` that ``admit`` kept out of the cache waits for (ns).

    A page among the rest of the task's last bypassed request (the pages before it may have
    been cache hits) is already in the reader's hands: no wait. Otherwise the read fetches, in
    one request, the page and the pages from it to the end of the readahead window a miss
    would have read (:func:`_sync_plan`; those not in the cache, as readahead reads; the task's
    readahead state moves on as for a miss) from the file device, and none of it enters the
    cache.
    """
    q = fw.tag_ra[tg, RA.byp_next]
    left = fw.tag_ra[tg, RA.byp_left]
    while left > 0 and q >= 0:
        if q == p:
            fw.tag_ra[tg, RA.byp_left] = left - 1
            fw.tag_ra[tg, RA.byp_next] = fw.ra_next[p]
            fw.tag_ra[tg, RA.last] = p
            return 0.0
        q = fw.ra_next[q]
        left -= 1
    start, size, asz = _sync_plan(s, fw, p, tg, ra_max)
    end = 1
    if size > 0:
        _commit(fw, tg, start, size, asz)
        end = start + size - fw.addr[p]
    fw.tag_ra[tg, RA.last] = p
    n = 1
    span = 1
    q = fw.ra_next[p]
    while q >= 0 and span < end:
        span += 1
        if s.resident[q] == 0:
            n += 1
        q = fw.ra_next[q]
    fw.tag_ra[tg, RA.byp_next] = fw.ra_next[p]
    fw.tag_ra[tg, RA.byp_left] = span - 1
    out[C.PGPGIN] += n
    wait, _ = _read_wait(fw, FILE_DEV, fw.clock[tg], p, n)
    return wait
