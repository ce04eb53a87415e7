"""Removal and eviction of one page (:func:`_kremove`, :func:`_evict_page`) and the default
CLOCK's candidates (:func:`_pick_fallback`) when the policy proposes none that can go (its own are
checked by :func:`pagesim.engine.candidates.collect_candidates`, as in cache mode).
"""

from __future__ import annotations

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.state import (
    A_KIND,
    A_WAIT_NS,
    ANON,
    DIRTY,
    FLAG_MASK,
    REFERENCED,
    SWAPCACHE,
    YOUNG,
)
from pagesim.engine import counters as C
from pagesim.engine.candidates import proposed_before, release_page, removal_event
from pagesim.engine.kmode.devices import _write_busy, _write_ns
from pagesim.engine.kmode.framework import (
    FILE_DEV,
    SWAP_DEV,
    F,
    N,
)
from pagesim.engine.kmode.swapout import _swap_out_ns


@kernel_inline
def _kremove(ss, fw, r, out, removed, page, reason, t, written_ns):  # type: ignore[no-untyped-def]
    """Take ``page`` out of memory: ``removed`` hook (told what writing it out cost, ns, -1 if it
    was not written: ``r[A_WAIT_NS]``), unlink, counters."""
    s = ss[0]
    cg = s.cgroup_of[page]
    removal_event(r, t, page, cg, 1, reason)
    r[A_WAIT_NS] = int(written_ns)
    r[A_KIND] = 1 if s.resident[page] & ANON else 0
    removed(ss, cg, r)
    v = s.resident[page]
    if v & ANON:
        fw.node[N.res_anon] -= 1
    else:
        fw.node[N.res_file] -= 1
        if v & DIRTY:
            fw.node[N.dirty] -= 1
            fw.dirty_cg[cg] -= 1
    release_page(s, page, True)
    fw.used[cg] -= 1
    fw.node[N.resident] -= 1


@kernel_inline
def _evict_page(ss, fw, r, out, removed, page, reason, t):  # type: ignore[no-untyped-def]
    """Evict one page as reclaim does; return 1 if freed, 0 if it had to stay (swap full)."""
    s = ss[0]
    v = s.resident[page]
    if v == 0:
        return 0
    written = -1.0
    if v & ANON:
        if (v & SWAPCACHE) == 0 or (v & DIRTY) != 0:
            if fw.node[N.has_swap] == 0 or fw.node[N.swap_used] >= fw.node[N.swap_total]:
                out[C.SWAP_FULL] += 1
                return 0
            if fw.swapped[page] == 0:
                fw.node[N.swap_used] += 1
                fw.node[N.zram_stored] += 1
                fw.node[N.zram_units] += fw.zram_cost[page]
                cg = s.cgroup_of[page]
                fw.zram_cg[cg] += fw.zram_cost[page]
                fw.swap_cg[page] = cg
                fw.addr[page] = fw.node[N.next_slot]  # slots are handed out in order
                fw.node[N.next_slot] += 1
            fw.swapped[page] = 1
            written = _write_ns(fw, SWAP_DEV, 1)
            fw.f[F.cost] += _swap_out_ns(fw, out)
            _write_busy(fw, SWAP_DEV, fw.f[F.batch_t0], 1)
            out[C.PSWPOUT] += 1
    elif v & DIRTY:
        written = _write_ns(fw, FILE_DEV, 1)
        fw.f[F.cost] += written
        _write_busy(fw, FILE_DEV, fw.f[F.batch_t0], 1)
        out[C.PGPGOUT] += 1
        out[C.DIRTY_WRITEBACK] += 1
    fw.shadowed[page] = 1
    _kremove(ss, fw, r, out, removed, page, reason, t, written)
    out[C.EVICTIONS] += 1
    return 1


@kernel
def _evictable(s, fw, page):  # type: ignore[no-untyped-def]
    """False for an anon page that would need a swap slot when swap is full."""
    v = s.resident[page]
    if (v & ANON) == 0 or ((v & SWAPCACHE) != 0 and (v & DIRTY) == 0):
        return True
    return fw.node[N.has_swap] != 0 and fw.node[N.swap_used] < fw.node[N.swap_total]


@kernel
def _pick_fallback(s, fw, cg, n):  # type: ignore[no-untyped-def]
    """Default policy: CLOCK sweeping page ids over ``cg``'s pages; write up to ``n`` victims."""
    n_pages = s.lst.shape[0]
    got = 0
    hand = fw.hand[cg]
    budget = 2 * n_pages + 1
    while got < n and budget > 0:
        page = hand
        hand += 1
        if hand >= n_pages:
            hand = 0
        budget -= 1
        v = s.resident[page]
        if v == 0 or s.cgroup_of[page] != cg:
            continue
        if v & (REFERENCED | YOUNG):
            s.resident[page] = v & (FLAG_MASK ^ (REFERENCED | YOUNG))
            continue
        if not _evictable(s, fw, page) or proposed_before(fw.victims, got, page):
            continue
        fw.victims[got] = page
        got += 1
    fw.hand[cg] = hand
    return got
