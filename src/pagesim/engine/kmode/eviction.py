"""Removal and eviction of one page (:func:`_kremove`, :func:`_evict_page`) and the choice of
candidates: the policy's (:func:`_collect_candidates`) or, when it proposes none that can go,
the default CLOCK's (:func:`_pick_fallback`).
"""

from __future__ import annotations

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.lists import list_unlink_unchecked
from pagesim.core.state import (
    A_CGROUP,
    A_KIND,
    A_PAGE,
    A_REASON,
    A_SIZE,
    A_TIME,
    A_WAIT_NS,
    ANON,
    DIRTY,
    FLAG_MASK,
    LIST,
    MAX_CANDIDATES,
    REFERENCED,
    SWAPCACHE,
    YOUNG,
)
from pagesim.engine import counters as C
from pagesim.engine.kmode.devices import _write_busy, _write_ns
from pagesim.engine.kmode.framework import (
    F_BATCH_T0,
    F_COST,
    FILE_DEV,
    N_DIRTY,
    N_HAS_SWAP,
    N_NEXT_SLOT,
    N_RES_ANON,
    N_RES_FILE,
    N_RESIDENT,
    N_SWAP_TOTAL,
    N_SWAP_USED,
    N_ZRAM_STORED,
    N_ZRAM_UNITS,
    SWAP_DEV,
)
from pagesim.engine.kmode.swapout import _swap_out_ns
from pagesim.engine.loop import _proposed_before


@kernel_inline
def _kremove(ss, fw, r, out, removed, page, reason, t, written_ns):  # type: ignore[no-untyped-def]
    """Take ``page`` out of memory: ``removed`` hook (told what writing it out cost, ns, -1 if it
    was not written: ``r[A_WAIT_NS]``), unlink, counters."""
    s = ss[0]
    cg = s.cgroup_of[page]
    r[A_TIME] = t
    r[A_WAIT_NS] = int(written_ns)
    r[A_PAGE] = page
    r[A_CGROUP] = cg
    r[A_SIZE] = 1
    r[A_REASON] = reason
    r[A_KIND] = 1 if s.resident[page] & ANON else 0
    removed(ss, cg, r)
    if s.lst[page, LIST] >= 0:
        list_unlink_unchecked(s, page)
    if s.resident[page] & ANON:
        fw.node[N_RES_ANON] -= 1
    else:
        fw.node[N_RES_FILE] -= 1
        if s.resident[page] & DIRTY:
            fw.node[N_DIRTY] -= 1
            fw.dirty_cg[cg] -= 1
    s.resident[page] = 0
    s.cgroup_of[page] = -1
    fw.used[cg] -= 1
    fw.node[N_RESIDENT] -= 1


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
            if fw.node[N_HAS_SWAP] == 0 or fw.node[N_SWAP_USED] >= fw.node[N_SWAP_TOTAL]:
                out[C.SWAP_FULL] += 1
                return 0
            if fw.swapped[page] == 0:
                fw.node[N_SWAP_USED] += 1
                fw.node[N_ZRAM_STORED] += 1
                fw.node[N_ZRAM_UNITS] += fw.zram_cost[page]
                cg = s.cgroup_of[page]
                fw.zram_cg[cg] += fw.zram_cost[page]
                fw.swap_cg[page] = cg
                fw.addr[page] = fw.node[N_NEXT_SLOT]  # slots are handed out in order
                fw.node[N_NEXT_SLOT] += 1
            fw.swapped[page] = 1
            written = _write_ns(fw, SWAP_DEV, 1)
            fw.f[F_COST] += _swap_out_ns(fw, out)
            _write_busy(fw, SWAP_DEV, fw.f[F_BATCH_T0], 1)
            out[C.PSWPOUT] += 1
    elif v & DIRTY:
        written = _write_ns(fw, FILE_DEV, 1)
        fw.f[F_COST] += written
        _write_busy(fw, FILE_DEV, fw.f[F_BATCH_T0], 1)
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
    return fw.node[N_HAS_SWAP] != 0 and fw.node[N_SWAP_USED] < fw.node[N_SWAP_TOTAL]


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
        if not _evictable(s, fw, page) or _proposed_before(fw.victims, got, page):
            continue
        fw.victims[got] = page
        got += 1
    fw.hand[cg] = hand
    return got


@kernel
def _collect_candidates(s, fw, out, cg, n):  # type: ignore[no-untyped-def]
    """Validate the policy's ``n`` proposals; copy the valid ones to ``fw.victims``."""
    n_pages = s.lst.shape[0]
    if n > MAX_CANDIDATES:
        # cache_ext aborts the attempt: one refused proposal, whatever count was returned
        out[C.REJ_OVERFLOW] += 1
        out[C.REJECTED] += 1
        out[C.PROPOSED] += 1
        return 0
    if n > 0:
        out[C.PROPOSED] += n
    valid = 0
    for i in range(max(n, 0)):
        c = s.cand[i]
        if c < 0 or c >= n_pages:
            out[C.REJ_OUT_OF_RANGE] += 1
            out[C.REJECTED] += 1
        elif _proposed_before(s.cand, i, c):
            out[C.REJ_DUPLICATE] += 1
            out[C.REJECTED] += 1
        elif s.resident[c] == 0:
            out[C.REJ_NOT_RESIDENT] += 1
            out[C.REJECTED] += 1
        elif s.cgroup_of[c] != cg:
            out[C.REJ_FOREIGN] += 1
            out[C.REJECTED] += 1
        else:
            fw.victims[valid] = c
            valid += 1
    return valid
