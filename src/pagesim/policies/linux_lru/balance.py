"""The legacy LRU's scan balance: ``inactive_is_low`` (``mm/vmscan.c``) and ``get_scan_count``'s
split of the scan between anon and file by their costs and swappiness.
"""

from __future__ import annotations

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.state import (
    A_FREE,
    A_RECLAIMER,
    A_SWAP_FREE,
    A_WMARK_HIGH,
    GI_SWAPPINESS,
    RECLAIM_LIMIT,
    STAT_WS_ACTIVATE_ANON,
    STAT_WS_ACTIVATE_FILE,
)
from pagesim.policies.linux_lru.layout import (
    DEACTIVATE_ANON,
    DEACTIVATE_FILE,
    GI,
    LRU_ACTIVE_FILE,
    LRU_INACTIVE_ANON,
    LRU_INACTIVE_FILE,
    MAX_SWAPPINESS,
    PAGES_PER_GB_SHIFT,
    SCAN_ANON,
    SCAN_EQUAL,
    SCAN_FILE,
    SCAN_FRACT,
    SWAP_CLUSTER_MAX,
    _size,
)


@kernel
def _isqrt(n):  # type: ignore[no-untyped-def]
    """Integer square root of ``n >= 0`` (the kernel's ``int_sqrt``)."""
    if n <= 0:
        return 0
    r = int(np.sqrt(float(n)))
    while r * r > n:
        r -= 1
    while (r + 1) * (r + 1) <= n:
        r += 1
    return r


@kernel
def inactive_is_low_counts(inactive, active):  # type: ignore[no-untyped-def]
    """``inactive_is_low`` (§1.6) for list sizes in 4 KiB pages: ``inactive * ratio < active``.

    ``ratio = isqrt(10 * GB)`` with GB the integer gigabytes of both lists, 1 below 1 GB.
    """
    gb = (inactive + active) >> PAGES_PER_GB_SHIFT
    ratio = _isqrt(10 * gb) if gb > 0 else 1
    return inactive * ratio < active


@kernel
def _inactive_is_low(s, inactive_lru):  # type: ignore[no-untyped-def]
    return inactive_is_low_counts(_size(s, inactive_lru), _size(s, inactive_lru + 1))


@kernel
def scan_fractions(swappiness, anon_cost, file_cost):  # type: ignore[no-untyped-def]
    """``(ap, fp)``: SCAN_FRACT's anon and file weights (§1.7, integer arithmetic as the kernel)."""
    total = anon_cost + file_cost
    a = total + anon_cost
    f = total + file_cost
    t = a + f
    ap = swappiness * (t + 1) // (a + 1)
    fp = (MAX_SWAPPINESS - swappiness) * (t + 1) // (f + 1)
    return ap, fp


@kernel
def _note_cost(s, file, nr_io, nr_rotated):  # type: ignore[no-untyped-def]
    """``lru_note_cost``: charge ``nr_io * 32 + nr_rotated``; halve both when above lru/4."""
    cost = nr_io * SWAP_CLUSTER_MAX + nr_rotated
    if file:
        s.gi[GI.file_cost] += cost
    else:
        s.gi[GI.anon_cost] += cost
    lru_pages = 0
    for lru in range(4):
        lru_pages += _size(s, lru)
    if s.gi[GI.file_cost] + s.gi[GI.anon_cost] > lru_pages // 4:
        s.gi[GI.file_cost] //= 2
        s.gi[GI.anon_cost] //= 2


@kernel
def _swappiness(s):  # type: ignore[no-untyped-def]
    if s.gi[GI.swappiness] >= 0:
        return s.gi[GI.swappiness]
    return s.gi[GI_SWAPPINESS]


@kernel
def _can_age_anon(a):  # type: ignore[no-untyped-def]
    return a[A_SWAP_FREE] > 0


@kernel
def _get_scan_count(s, a, prio, force):  # type: ignore[no-untyped-def]
    """``prepare_scan_control`` + ``get_scan_count``: targets into ``gi[GI.nr:]``; the balance."""
    ia = _size(s, LRU_INACTIVE_ANON)
    inf = _size(s, LRU_INACTIVE_FILE)
    af = _size(s, LRU_ACTIVE_FILE)
    swp = _swappiness(s)
    may = 0
    if force or s.stat[STAT_WS_ACTIVATE_ANON] != s.gi[GI.snap_anon] or _inactive_is_low(s, LRU_INACTIVE_ANON):
        may |= DEACTIVATE_ANON
    if force or s.stat[STAT_WS_ACTIVATE_FILE] != s.gi[GI.snap_file] or _inactive_is_low(s, LRU_INACTIVE_FILE):
        may |= DEACTIVATE_FILE
    s.gi[GI.may_deact] = may
    cache_trim = (inf >> prio) > 0 and (may & DEACTIVATE_FILE) == 0
    file_is_tiny = False
    if a[A_RECLAIMER] != RECLAIM_LIMIT:
        file_is_tiny = (
            inf + af + a[A_FREE] <= a[A_WMARK_HIGH] and (may & DEACTIVATE_ANON) == 0 and (ia >> prio) > 0
        )
    ap = 0
    fp = 0
    if a[A_SWAP_FREE] <= 0:
        balance = SCAN_FILE
    elif a[A_RECLAIMER] == RECLAIM_LIMIT and swp == 0:
        balance = SCAN_FILE
    elif prio == 0 and swp != 0:
        balance = SCAN_EQUAL
    elif file_is_tiny:
        balance = SCAN_ANON
    elif cache_trim:
        balance = SCAN_FILE
    else:
        balance = SCAN_FRACT
        ap, fp = scan_fractions(swp, s.gi[GI.anon_cost], s.gi[GI.file_cost])
    denominator = ap + fp
    for lru in range(4):
        file = lru >= LRU_INACTIVE_FILE
        scan = _size(s, lru) >> prio
        if balance == SCAN_FRACT:
            scan = scan * (fp if file else ap) // denominator if denominator > 0 else 0
        elif balance == SCAN_FILE and not file:
            scan = 0
        elif balance == SCAN_ANON and file:
            scan = 0
        s.gi[GI.nr + lru] = scan
    return balance
