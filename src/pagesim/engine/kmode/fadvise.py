"""``posix_fadvise`` in kernel mode: Linux 6.6's ``generic_fadvise`` (mm/fadvise.c).

A task's calls (:class:`pagesim.trace.FileAdvice`) are made just before the access they precede
(:func:`_fadvise`, once, before the room for that access is counted). pagesim keeps one
readahead state per task (``fw.tag_ra``), which stands for the task's open files
(``struct file``: ``f_ra`` and ``f_mode``), so a hint that sets a file's mode sets it for every
file the task reads: a workload whose task hints each file it reads is modelled exactly, one
that hints some of its files only is not.

* NORMAL: ``f_ra.ra_pages = bdi->ra_pages`` and FMODE_RANDOM, FMODE_NOREUSE cleared.
* RANDOM: FMODE_RANDOM: a miss reads only the page asked for (``page_cache_sync_ra``: a file
  with FMODE_RANDOM goes to ``force_page_cache_ra`` for the request alone); a PG_readahead
  mark still starts the next window (``page_cache_async_ra`` does not test the flag).
* SEQUENTIAL: ``f_ra.ra_pages = bdi->ra_pages * 2`` and FMODE_RANDOM cleared: the task's
  windows grow to twice ``KernelConfig.readahead_pages`` (``get_next_ra_size`` caps them at
  ``ra_pages``).
* NOREUSE: sets FMODE_NOREUSE, which Linux 6.6 reads in one place, ``vma_has_recency``
  (include/linux/mm_inline.h: ``if (vma->vm_file && (vma->vm_file->f_mode & FMODE_NOREUSE))
  return false;``), i.e. for accesses through a mapping (the rmap walk's and MGLRU's young
  bits); ``filemap_read`` marks the folio accessed whatever the mode. pagesim's file pages are
  read with ``read()``/``pread`` (never mapped), so the flag is kept and changes nothing.
* DONTNEED: ``__filemap_fdatawrite_range`` (WB_SYNC_NONE) starts writeback of the range's dirty
  pages, then ``mapping_try_invalidate`` drops its clean, unmapped, unlocked folios
  (``mapping_evict_folio``: not dirty, not under writeback, no extra reference). Modelled: a
  dirty page is written back (``pgpgout``; the device is occupied, nobody waits) and stays
  (it is under writeback when the invalidation reaches it); a clean resident page leaves
  through the normal removal path (the policy's ``removed`` with REASON_FREED, unlinked,
  charges and counters) and keeps no shadow entry (``remove_mapping`` from invalidation stores
  none), and a shadow entry in the range is cleared (``invalidate_exceptional_entry``), so the
  next read of the page is a plain miss, not a refault. Pages on a per-CPU LRU batch are not
  skipped: 6.6 drains the local batch first (``lru_add_drain``) and, when some folio failed,
  every CPU's (``lru_add_drain_all``) and invalidates the range again. Locked folios (under
  read I/O) are skipped by the kernel; pagesim has none (a read completes at once), so it drops
  them. The deactivation of the folios that could not go (``deactivate_file_folio``) is not
  modelled (it concerns only the dirty pages here).
* WILLNEED is not modelled (refused when the calls are given).

A call takes no model time (its CPU is not charged); counts: ``N.adv_calls``, ``N.adv_dropped``,
``N.adv_written`` in ``fw.node``.
"""

from __future__ import annotations

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.state import ANON, DIRTY, FLAG_MASK, REASON_FREED
from pagesim.engine import counters as C
from pagesim.engine.kmode.devices import _write_busy
from pagesim.engine.kmode.eviction import _kremove
from pagesim.engine.kmode.framework import (
    FILE_DEV,
    FMODE_NOREUSE,
    FMODE_RANDOM,
    RA,
    N,
)

FADV_NORMAL = 0
FADV_RANDOM = 1
FADV_SEQUENTIAL = 2
FADV_DONTNEED = 4
FADV_NOREUSE = 5


@kernel
def _set_mode(fw, tg, hint):  # type: ignore[no-untyped-def]
    """NORMAL, RANDOM, SEQUENTIAL or NOREUSE on task ``tg``'s files (``f_ra.ra_pages``, ``f_mode``)."""
    if hint == FADV_NORMAL:
        fw.tag_ra[tg, RA.max] = fw.node[N.ra_max]
        fw.tag_ra[tg, RA.mode] &= ~(FMODE_RANDOM | FMODE_NOREUSE)
    elif hint == FADV_RANDOM:
        fw.tag_ra[tg, RA.mode] |= FMODE_RANDOM
    elif hint == FADV_SEQUENTIAL:
        fw.tag_ra[tg, RA.max] = 2 * fw.node[N.ra_max]
        fw.tag_ra[tg, RA.mode] &= ~FMODE_RANDOM
    elif hint == FADV_NOREUSE:
        fw.tag_ra[tg, RA.mode] |= FMODE_NOREUSE


@kernel
def _write_back(s, fw, out, page, now):  # type: ignore[no-untyped-def]
    """DONTNEED's writeback of a dirty file page: written, clean, left in memory (1), else 0."""
    v = s.resident[page]
    if v == 0 or (v & ANON) != 0 or (v & DIRTY) == 0:
        return 0
    s.resident[page] = v & (FLAG_MASK ^ DIRTY)
    fw.node[N.dirty] -= 1
    fw.dirty_cg[s.cgroup_of[page]] -= 1
    out[C.PGPGOUT] += 1
    fw.node[N.adv_written] += 1
    _write_busy(fw, FILE_DEV, now, 1)
    return 1


@kernel_inline
def _fadvise(ss, fw, r, out, removed, tg, t):  # type: ignore[no-untyped-def]
    """Make task ``tg``'s calls due before its access at row ``t`` (module docstring); returns
    the pages DONTNEED dropped."""
    s = ss[0]
    pos = fw.adv_pos[tg]
    end = fw.adv_first[tg + 1]
    dropped = 0
    while pos < end and fw.adv_row[pos] <= t:
        hint = fw.adv_hint[pos]
        fw.node[N.adv_calls] += 1
        if hint == FADV_DONTNEED:
            for i in range(fw.adv_ptr[pos], fw.adv_ptr[pos + 1]):
                q = fw.adv_pages[i]
                v = s.resident[q]
                if v == 0:
                    fw.shadowed[q] = 0  # invalidate_exceptional_entry: the shadow entry goes
                elif (v & ANON) == 0 and _write_back(s, fw, out, q, fw.clock[tg]) == 0:
                    _kremove(ss, fw, r, out, removed, q, REASON_FREED, t, -1)
                    fw.shadowed[q] = 0
                    dropped += 1
        else:
            _set_mode(fw, tg, hint)
        pos += 1
    fw.adv_pos[tg] = pos
    fw.node[N.adv_dropped] += dropped
    return dropped
