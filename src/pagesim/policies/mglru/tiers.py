"""MGLRU's refs and tiers and its PID controller (``mm/vmscan.c``: ``folio_lru_refs``,
``lru_tier_from_refs``, ``read_ctrl_pos``, ``positive_ctrl_err``, ``get_tier_idx``,
``reset_ctrl_pos``): which tiers are protected from eviction by their refault rates.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.policies.mglru.layout import (
    GI,
    MAX_NR_TIERS,
    MIN_LRU_BATCH,
    PM,
)


@kernel
def _ob2(n):  # type: ignore[no-untyped-def]
    """order_base_2: ceil(log2(n)), 0 for n <= 1."""
    r = 0
    while (1 << r) < n:
        r += 1
    return r


@kernel
def _refs(s, p):  # type: ignore[no-untyped-def]
    """folio_lru_refs: 6.12 LRU_REFS + PG_workingset; 6.14 PG_referenced ? LRU_REFS + 1 : 0."""
    if s.gi[GI.ver] == 0:
        return s.pm[p, PM.lrefs] + s.pm[p, PM.ws]
    return s.pm[p, PM.lrefs] + 1 if s.pm[p, PM.refd] else 0


@kernel
def _tier(s, refs, ws):  # type: ignore[no-untyped-def]
    if s.gi[GI.ver] == 0:
        return _ob2(refs + 1)
    return MAX_NR_TIERS - 1 if ws else _ob2(refs)


@kernel
def _clear_refs(s, p, keep_ws):  # type: ignore[no-untyped-def]
    s.pm[p, PM.refd] = 0
    s.pm[p, PM.lrefs] = 0
    if not keep_ws:
        s.pm[p, PM.ws] = 0


@kernel
def _pos(s, typ, tier):  # type: ignore[no-untyped-def]
    """read_ctrl_pos: (refaulted, total) of one tier, or of all tiers if ``tier`` is 4."""
    lo = 0 if tier >= MAX_NR_TIERS else tier
    hi = MAX_NR_TIERS - 1 if tier >= MAX_NR_TIERS else tier
    ref = 0
    tot = 0
    for i in range(lo, hi + 1):
        k = typ * MAX_NR_TIERS + i
        ref += s.gi[GI.avg_refaulted + k] + s.gi[GI.refaulted + k]
        tot += s.gi[GI.avg_total + k] + s.gi[GI.evicted + k] + s.gi[GI.protected + k]
    return ref, tot


@kernel
def _positive(s, sp_type, sp_tier, sp_gain, pv_type, pv_tier, pv_gain):  # type: ignore[no-untyped-def]
    """positive_ctrl_err: PV refaults little, or no more often (weighted) than SP."""
    sp_ref, sp_tot = _pos(s, sp_type, sp_tier)
    pv_ref, pv_tot = _pos(s, pv_type, pv_tier)
    return (
        pv_ref < MIN_LRU_BATCH
        or pv_ref * (sp_tot + MIN_LRU_BATCH) * sp_gain <= (sp_ref + 1) * pv_tot * pv_gain
    )


@kernel
def _tier_idx(s, typ):  # type: ignore[no-untyped-def]
    """get_tier_idx: protect the tiers refaulting clearly more than tier 0."""
    g_sp = 1 if s.gi[GI.ver] == 0 else 2
    g_pv = 2 if s.gi[GI.ver] == 0 else 3
    tier = 1
    while tier < MAX_NR_TIERS:
        if not _positive(s, typ, 0, g_sp, typ, tier, g_pv):
            break
        tier += 1
    return tier - 1


@kernel
def _reset_ctrl(s, typ):  # type: ignore[no-untyped-def]
    """reset_ctrl_pos(carryover): fold the counters into the averages, then zero them."""
    for tier in range(MAX_NR_TIERS):
        k = typ * MAX_NR_TIERS + tier
        s.gi[GI.avg_refaulted + k] = (s.gi[GI.avg_refaulted + k] + s.gi[GI.refaulted + k]) // 2
        total = s.gi[GI.evicted + k] + s.gi[GI.protected + k]
        s.gi[GI.avg_total + k] = (s.gi[GI.avg_total + k] + total) // 2
        s.gi[GI.refaulted + k] = 0
        s.gi[GI.evicted + k] = 0
        s.gi[GI.protected + k] = 0
