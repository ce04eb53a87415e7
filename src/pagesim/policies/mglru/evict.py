"""MGLRU's eviction: the type and tier to scan (``isolate_folios``, ``get_swappiness``), the scan of
the oldest generation's tail (``scan_folios``, ``sort_folio``, the rmap check) and the pages
proposed but not evicted put back.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.state import (
    A_SWAP_FREE,
    GI_SWAPPINESS,
    STAT_PGACTIVATE,
    STAT_PGREFILL,
    STAT_PGSCAN_ANON,
    WORK_RMAP,
    YOUNG,
)
from pagesim.policies.mglru.gens import _inc_gen
from pagesim.policies.mglru.layout import (
    ANON_T,
    FILE_T,
    GI,
    MAX_LRU_BATCH,
    MAX_NR_GENS,
    MAX_NR_TIERS,
    MAX_SWAPPINESS,
    MIN_LRU_BATCH,
    MIN_NR_GENS,
    PM,
)
from pagesim.policies.mglru.lists import _link, _move, _nr_gens, _unlink
from pagesim.policies.mglru.tiers import _clear_refs, _positive, _refs, _tier, _tier_idx
from pagesim.policies.mglru.walk import _look_around


@kernel
def _scan(s, typ, tier_idx, n, got):  # type: ignore[no-untyped-def]
    """scan_folios + sort_folio + the rmap check: propose from the tail of min_seq[typ].

    Returns (pages looked at, or 0 if none was isolated; candidates written so far).
    """
    if _nr_gens(s, typ) == MIN_NR_GENS:
        return 0, got
    ver = s.gi[GI.ver]
    min_seq = s.gi[GI.min_seq + typ]
    max_seq = s.gi[GI.max_seq]
    cg = s.gi[GI.cgroup]
    li = (min_seq % MAX_NR_GENS) * 2 + typ
    p = s.gi[GI.tail + li]
    remaining = MAX_LRU_BATCH
    scanned = 0
    isolated = 0
    sorted_ = 0
    while p >= 0 and got < n:
        scanned += 1
        refs = _refs(s, p)
        ws = s.pm[p, PM.ws]
        tier = _tier(s, refs, ws)
        if ver == 0:
            protect = tier > tier_idx or refs == MAX_NR_TIERS
            lazy = False
        else:
            lazy = refs + ws == MAX_NR_TIERS + 1
            protect = tier > tier_idx or lazy
        if protect:
            if not lazy:
                s.gi[GI.protected + typ * MAX_NR_TIERS + tier] += 1
            _inc_gen(s, p)
            sorted_ += 1
        else:
            isolated += 1
            v = s.resident[p]
            if typ == ANON_T:
                s.work[WORK_RMAP] += 1  # folio_referenced walks the reverse map
            if typ == ANON_T and (v & YOUNG):  # mapped and young: folio_referenced
                s.resident[p] = v ^ YOUNG  # the bit is set: clear it
                if ver == 0 or s.pm[p, PM.refd] != 0 or ws != 0:
                    if ver == 0:
                        _clear_refs(s, p, False)
                    else:
                        s.pm[p, PM.refd] = 0
                        s.pm[p, PM.lrefs] = 0
                        s.pm[p, PM.ws] = 1
                    s.stat[STAT_PGACTIVATE] += 1
                    _move(s, p, max_seq, False)
                else:  # 6.14 first sighting: keep, out of the oldest gen
                    s.pm[p, PM.refd] = 1
                    _move(s, p, max_seq - 1, False)
                _look_around(s, p, max_seq, cg)
            else:  # isolate: off the list, proposed
                _unlink(s, p)
                s.pm[p, PM.iso] = 1
                s.gi[GI.iso + s.gi[GI.niso]] = p
                s.gi[GI.niso] += 1
                s.cand[got] = p
                got += 1
        remaining -= 1
        if remaining == 0 or isolated >= MIN_LRU_BATCH:
            break
        # every page looked at has left the list (isolated, protected, promoted), and look-around
        # may have promoted the next ones: the next page is the list's tail now
        p = s.gi[GI.tail + li]
    s.stat[STAT_PGREFILL] += sorted_
    s.stat[STAT_PGSCAN_ANON + typ] += isolated
    s.gi[GI.looked] += scanned
    return (scanned if isolated > 0 or remaining == 0 else 0), got


@kernel
def _putback(s):  # type: ignore[no-untyped-def]
    """Pages the engine did not evict last time (swap full, request met) go back, oldest gen."""
    for i in range(s.gi[GI.niso]):
        p = s.gi[GI.iso + i]
        if s.pm[p, PM.iso] != 0:
            s.pm[p, PM.iso] = 0
            typ = s.pm[p, PM.typ]
            _link(s, p, s.gi[GI.min_seq + typ], typ, True)
    s.gi[GI.niso] = 0


@kernel
def _effective_swappiness(s, a):  # type: ignore[no-untyped-def]
    """get_swappiness: 0 with fewer than MIN_LRU_BATCH free swap slots."""
    if a[A_SWAP_FREE] < MIN_LRU_BATCH:
        return 0
    return s.gi[GI_SWAPPINESS]


@kernel
def _isolate(s, swp, prio, n, got):  # type: ignore[no-untyped-def]
    """isolate_folios: choose the type (and tier_idx), scan it, else the other type."""
    tier = -1
    if s.gi[GI.ver] == 0:
        if swp == 0:
            typ = FILE_T
        elif s.gi[GI.min_seq + ANON_T] < s.gi[GI.min_seq + FILE_T]:
            typ = ANON_T
        elif swp == 1:
            typ = FILE_T
        elif swp == MAX_SWAPPINESS:
            typ = ANON_T
        else:
            g_anon = swp
            g_file = MAX_SWAPPINESS - swp
            typ = FILE_T if _positive(s, ANON_T, 0, g_anon, FILE_T, 0, g_file) else ANON_T
            g_typ = g_file if typ == FILE_T else g_anon
            g_other = g_anon if typ == FILE_T else g_file
            tier = 1
            while tier < MAX_NR_TIERS:
                if not _positive(s, 1 - typ, 0, g_other, typ, tier, g_typ):
                    break
                tier += 1
            tier -= 1
        tries = 1 if swp == 0 else 2
    else:
        if swp == 0:
            typ = FILE_T
        elif swp >= MAX_SWAPPINESS:
            typ = ANON_T
        else:
            sw = MAX_SWAPPINESS - swp
            typ = FILE_T if _positive(s, ANON_T, MAX_NR_TIERS, swp, FILE_T, MAX_NR_TIERS, sw) else ANON_T
        tries = 1 if swp == 0 else 2
    scanned = 0
    for _ in range(tries):
        if tier < 0:
            tier = _tier_idx(s, typ)
        scanned, got = _scan(s, typ, tier, n, got)
        if scanned > 0:
            break
        typ = 1 - typ
        tier = -1
    return scanned, got
