"""MGLRU's address space and young bits: each anon page's virtual page (:func:`_map_anon`), the
page-table walk of aging (``try_to_inc_max_seq``, ``walk_pte_range``), the Bloom filters of PTE
tables worth walking (``get_item_key``, ``test_bloom_filter``, ``update_bloom_filter``,
``reset_bloom_filter``) and eviction's look-around (``lru_gen_look_around``).
"""

from __future__ import annotations

from pagesim.core.bloom import bloom_keys
from pagesim.core.jit import kernel
from pagesim.core.state import (
    WORK_PTES,
    YOUNG,
)
from pagesim.policies.mglru.layout import (
    BLOOM_WORDS,
    GI,
    MAX_NR_GENS,
    MIN_LRU_BATCH,
    MMF_LISTED,
    MMF_NEW,
    PM,
    PMD_PAGES,
    YOUNG_PER_CACHELINE,
)
from pagesim.policies.mglru.lists import _move
from pagesim.policies.mglru.tiers import _clear_refs


@kernel
def _map_anon(s, p, tag):  # type: ignore[no-untyped-def]
    """Give anon page ``p`` the next virtual page of process ``tag`` (once: it keeps it for life).

    A process (mm) lays its anonymous memory out in the order it first faults pages in, one VMA
    growing from virtual page 0; PMD region k of the process holds its virtual pages
    512k..512k+511. A process joins the mm_list (lru_gen_add_mm) with its first page.
    """
    m = tag % s.pm.shape[0]
    if m < 0:
        m += s.pm.shape[0]
    if (s.pm[m, PM.mm_flags] & MMF_LISTED) == 0:
        s.pm[m, PM.mm_next] = -1
        s.pm[m, PM.mm_first] = -1
        s.pm[m, PM.mm_last] = -1
        s.pm[m, PM.mm_nv] = 0
        s.pm[m, PM.mm_lastp] = -1
        s.pm[m, PM.mm_flags] = MMF_LISTED | MMF_NEW
        t = s.gi[GI.mm_tail]
        if t < 0:
            s.gi[GI.mm_head] = m
        else:
            s.pm[t, PM.mm_next] = m
        s.gi[GI.mm_tail] = m
    v = s.pm[m, PM.mm_nv]
    if v % PMD_PAGES == 0:  # a new PTE table
        r = s.gi[GI.nreg]
        s.gi[GI.nreg] = r + 1
        s.pm[r, PM.r_next] = -1
        s.pm[r, PM.r_head] = p
        s.pm[r, PM.r_mm] = m
        last = s.pm[m, PM.mm_last]
        if last < 0:
            s.pm[m, PM.mm_first] = r
        else:
            s.pm[last, PM.r_next] = r
        s.pm[m, PM.mm_last] = r
    lastp = s.pm[m, PM.mm_lastp]
    s.pm[p, PM.reg] = s.pm[m, PM.mm_last] + 1
    s.pm[p, PM.vpn] = v
    s.pm[p, PM.vpv] = lastp
    s.pm[p, PM.vnx] = -1
    if lastp >= 0:
        s.pm[lastp, PM.vnx] = p
    s.pm[m, PM.mm_lastp] = p
    s.pm[m, PM.mm_nv] = v + 1


@kernel
def _bloom_bit(s, g, key):  # type: ignore[no-untyped-def]
    return (s.gi[GI.bloom + g * BLOOM_WORDS + (key >> 5)] >> (key & 31)) & 1


@kernel
def _test_bloom(s, seq, r):  # type: ignore[no-untyped-def]
    """test_bloom_filter: true if filter seq % 2 is missing or holds both keys of ``r``."""
    g = seq % 2
    if (s.gi[GI.filter_on] >> g) & 1 == 0:
        return True
    k0, k1 = bloom_keys(r)
    return _bloom_bit(s, g, k0) != 0 and _bloom_bit(s, g, k1) != 0


@kernel
def _update_bloom(s, seq, r):  # type: ignore[no-untyped-def]
    """update_bloom_filter: set both keys of ``r`` in filter seq % 2 (if allocated)."""
    g = seq % 2
    if (s.gi[GI.filter_on] >> g) & 1 == 0:
        return
    k0, k1 = bloom_keys(r)
    base = GI.bloom + g * BLOOM_WORDS
    s.gi[base + (k0 >> 5)] |= 1 << (k0 & 31)
    s.gi[base + (k1 >> 5)] |= 1 << (k1 & 31)


@kernel
def _reset_bloom(s, seq):  # type: ignore[no-untyped-def]
    """reset_bloom_filter: clear (allocating it the first time) filter seq % 2."""
    g = seq % 2
    base = GI.bloom + g * BLOOM_WORDS
    for i in range(BLOOM_WORDS):
        s.gi[base + i] = 0
    s.gi[GI.filter_on] |= 1 << g


@kernel
def _promote_young(s, p, max_seq):  # type: ignore[no-untyped-def]
    """folio_update_gen for a young PTE found by the walker or look-around (bit already cleared).

    6.12: refs flags cleared, gen = max_seq (an isolated page only gets PG_referenced). 6.14
    two-sighting rule: without PG_referenced and PG_workingset only PG_referenced (LRU_REFS
    cleared); else PG_workingset, refs cleared, gen = max_seq (an isolated page keeps its flags).
    Returns 1 if the page moved to another generation.
    """
    iso = s.pm[p, PM.gen] == 0
    if s.gi[GI.ver] == 0:
        if iso:
            s.pm[p, PM.refd] = 1
            return 0
        _clear_refs(s, p, False)
    else:
        if s.pm[p, PM.refd] == 0 and s.pm[p, PM.ws] == 0:
            s.pm[p, PM.refd] = 1
            s.pm[p, PM.lrefs] = 0
            return 0
        if iso:
            return 0
        s.pm[p, PM.refd] = 0
        s.pm[p, PM.lrefs] = 0
        s.pm[p, PM.ws] = 1
    if s.pm[p, PM.gen] - 1 == max_seq % MAX_NR_GENS:
        return 0
    _move(s, p, max_seq, False)
    return 1


@kernel
def _young_mine(s, p, cg):  # type: ignore[no-untyped-def]
    """get_pte_pfn + get_pfn_folio + ptep_clear_young: a young PTE of this lruvec's page (cleared)."""
    v = s.resident[p]
    if (v & YOUNG) == 0 or s.cgroup_of[p] != cg:
        return False
    if s.pm[p, PM.gen] == 0 and s.pm[p, PM.iso] == 0:
        return False
    s.resident[p] = v ^ YOUNG
    return True


@kernel
def _walk_pte_range(s, r, max_seq, cg):  # type: ignore[no-untyped-def]
    """walk_pte_range over region ``r``: clear and promote young PTEs; True if dense enough."""
    m = s.pm[r, PM.r_mm]
    p = s.pm[r, PM.r_head]
    start = s.pm[p, PM.vpn]
    end = min(start + PMD_PAGES, s.pm[m, PM.mm_nv])  # clipped to the VMA
    total = end - start
    s.work[WORK_PTES] += total  # every PTE of the table is read, present or not
    young = 0
    for _ in range(total):
        if _young_mine(s, p, cg):
            young += 1
            _promote_young(s, p, max_seq)
        p = s.pm[p, PM.vnx]
    return young * YOUNG_PER_CACHELINE >= total


@kernel
def _walk(s, swp):  # type: ignore[no-untyped-def]
    """try_to_inc_max_seq's walk: iterate the mm_list once, walking each mm's PTE tables.

    iterate_mm_list: the first mm of the iteration resets the Bloom filter of max_seq + 1; an mm
    added since the last iteration turns force_scan on for the rest of it. walk_pmd_range: a PTE
    table is walked only if force_scan or the filter of max_seq has it; a table whose young PTEs
    are at least one per cacheline (8 PTEs) goes into the filter of max_seq + 1.
    should_skip_vma: anonymous VMAs are skipped at swappiness 0.
    """
    if swp == 0:
        return
    seq = s.gi[GI.max_seq]
    cg = s.gi[GI.cgroup]
    m = s.gi[GI.mm_head]
    if m >= 0:
        _reset_bloom(s, seq + 1)
    force = False
    while m >= 0:
        if s.pm[m, PM.mm_flags] & MMF_NEW:
            force = True
            s.pm[m, PM.mm_flags] ^= MMF_NEW
        r = s.pm[m, PM.mm_first]
        while r >= 0:
            if not force and not _test_bloom(s, seq, r):
                s.gi[GI.skipped] += 1
            else:
                s.gi[GI.walked] += 1
                if _walk_pte_range(s, r, seq, cg):
                    _update_bloom(s, seq + 1, r)  # carry over to the next generation
            r = s.pm[r, PM.r_next]
        m = s.pm[m, PM.mm_next]


@kernel
def _look_around(s, p, max_seq, cg):  # type: ignore[no-untyped-def]
    """lru_gen_look_around: eviction found ``p`` young; scan up to 64 PTEs around it.

    The window is the PTE table clipped to the VMA, cut to MIN_LRU_BATCH pages centred on ``p``
    where it can be. Young neighbours have their bit cleared and are promoted as by the walker
    (folio_update_gen); if the young PTEs (``p`` included) are one per cacheline, the table goes
    into the Bloom filter of max_seq, the one the next walk reads.
    """
    r = s.pm[p, PM.reg] - 1
    if r < 0:
        return
    m = s.pm[r, PM.r_mm]
    start = s.pm[s.pm[r, PM.r_head], PM.vpn]
    end = min(start + PMD_PAGES, s.pm[m, PM.mm_nv])
    addr = s.pm[p, PM.vpn]
    if end - start == 1:
        return
    if end - start > MIN_LRU_BATCH:
        if addr - start < MIN_LRU_BATCH // 2:
            end = start + MIN_LRU_BATCH
        elif end - addr < MIN_LRU_BATCH // 2:
            start = end - MIN_LRU_BATCH
        else:
            start = addr - MIN_LRU_BATCH // 2
            end = addr + MIN_LRU_BATCH // 2
    q = p
    for _ in range(addr - start):
        q = s.pm[q, PM.vpv]
    s.work[WORK_PTES] += end - start
    young = 1
    for _ in range(end - start):
        if q != p and _young_mine(s, q, cg):
            young += 1
            s.gi[GI.lookaround] += _promote_young(s, q, max_seq)
        q = s.pm[q, PM.vnx]
    if young * YOUNG_PER_CACHELINE >= end - start:
        _update_bloom(s, max_seq, r)
