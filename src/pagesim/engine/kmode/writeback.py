"""Dirty file pages and the flusher: counting a page that turned dirty (:func:`_dirtied`) and
background writeback of the pages dirtied first (:func:`_flush`).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.state import ANON, DIRTY, FLAG_MASK
from pagesim.engine import counters as C
from pagesim.engine.kmode.devices import _write_busy
from pagesim.engine.kmode.framework import (
    FILE_DEV,
    F,
    N,
)


@kernel
def _dirtied(fw, page, cg):  # type: ignore[no-untyped-def]
    """A file page of cgroup ``cg`` turned dirty: count it, queue it for the flusher."""
    fw.node[N.dirty] += 1
    fw.dirty_cg[cg] += 1
    if fw.in_ring[page] == 0:
        size = fw.dirty_ring.shape[0]
        fw.dirty_ring[(fw.node[N.ring_head] + fw.node[N.ring_n]) % size] = page
        fw.node[N.ring_n] += 1
        fw.in_ring[page] = 1


@kernel
def _flush(s, fw, out, cg):  # type: ignore[no-untyped-def]
    """Background writeback (the flusher, ``wb_start_background_writeback``): while the node's
    or cgroup ``cg``'s dirty file pages are over their background threshold, write back the
    pages dirtied first, as one request at the current access's time (no task waits for it; a
    queued device is occupied). Returns the pages written."""
    size = fw.dirty_ring.shape[0]
    n = 0
    while fw.node[N.ring_n] > 0 and (
        fw.node[N.dirty] > fw.node[N.dirty_bg] or fw.dirty_cg[cg] > fw.dirty_bg_cg[cg]
    ):
        page = fw.dirty_ring[fw.node[N.ring_head]]
        fw.node[N.ring_head] = (fw.node[N.ring_head] + 1) % size
        fw.node[N.ring_n] -= 1
        fw.in_ring[page] = 0
        v = s.resident[page]
        if v != 0 and (v & ANON) == 0 and (v & DIRTY) != 0:
            s.resident[page] = v & (FLAG_MASK ^ DIRTY)
            fw.node[N.dirty] -= 1
            fw.dirty_cg[s.cgroup_of[page]] -= 1
            n += 1
    out[C.PGPGOUT] += n
    out[C.FLUSHED] += n
    _write_busy(fw, FILE_DEV, fw.f[F.now], n)
    return n
