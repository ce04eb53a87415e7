"""MGLRU's generations: aging (``inc_max_seq``, ``should_run_aging``), the oldest generations'
removal (``try_to_inc_min_seq``) and a page's move to a younger generation (``folio_inc_gen``).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.policies.mglru.layout import (
    ANON_T,
    DEF_PRIORITY,
    FILE_T,
    GI,
    MAX_NR_GENS,
    MAX_NR_TIERS,
    MIN_NR_GENS,
    PM,
)
from pagesim.policies.mglru.lists import _move, _size
from pagesim.policies.mglru.tiers import _clear_refs, _refs, _reset_ctrl, _tier


@kernel
def _try_inc_min_seq(s, swp):  # type: ignore[no-untyped-def]
    """try_to_inc_min_seq: skip empty oldest gens of the evictable types."""
    max_seq = s.gi[GI.max_seq]
    new_a = s.gi[GI.min_seq + ANON_T]
    new_f = s.gi[GI.min_seq + FILE_T]
    first = FILE_T if swp == 0 else ANON_T
    for typ in range(first, 2):
        seq = s.gi[GI.min_seq + typ]
        while seq + MIN_NR_GENS <= max_seq and _size(s, seq, typ) == 0:
            seq += 1
        if typ == ANON_T:
            new_a = seq
        else:
            new_f = seq
    if swp != 0 and s.gi[GI.ver] == 0:
        new_a = min(new_a, new_f)
        new_f = max(new_a, s.gi[GI.min_seq + FILE_T])
    changed = False
    for typ in range(first, 2):
        new = new_a if typ == ANON_T else new_f
        if new != s.gi[GI.min_seq + typ]:
            _reset_ctrl(s, typ)
            s.gi[GI.min_seq + typ] = new
            changed = True
    return changed


@kernel
def _inc_gen(s, p):  # type: ignore[no-untyped-def]
    """folio_inc_gen: to the tail of min_seq + 1, refs flags cleared (6.14 keeps PG_workingset)."""
    typ = s.pm[p, PM.typ]
    _clear_refs(s, p, s.gi[GI.ver] == 1)
    _move(s, p, s.gi[GI.min_seq + typ] + 1, True)


@kernel
def _inc_max_seq(s, swp, now):  # type: ignore[no-untyped-def]
    """inc_max_seq: force the oldest gen of a type with four forward, then max_seq += 1."""
    max_seq = s.gi[GI.max_seq]
    for typ in range(1, -1, -1):
        min_seq = s.gi[GI.min_seq + typ]
        if max_seq - min_seq + 1 != MAX_NR_GENS:
            continue
        if not (typ == ANON_T and swp == 0):
            li = (min_seq % MAX_NR_GENS) * 2 + typ
            p = s.gi[GI.head + li]
            while p >= 0:  # head to tail, each to the tail of min_seq + 1: order kept
                nxt = s.pm[p, PM.nxt]
                if s.gi[GI.ver] == 1:
                    refs = _refs(s, p)
                    ws = s.pm[p, PM.ws]
                    if refs + ws != MAX_NR_TIERS + 1:
                        s.gi[GI.protected + typ * MAX_NR_TIERS + _tier(s, refs, ws)] += 1
                _inc_gen(s, p)
                p = nxt
        # at swappiness 0 anon pages stay in their list, which now holds the new max_seq
        _reset_ctrl(s, typ)
        s.gi[GI.min_seq + typ] = min_seq + 1
    s.gi[GI.ts + (max_seq + 1) % MAX_NR_GENS] = now  # lrugen->timestamps[next] = jiffies
    s.gi[GI.max_seq] = max_seq + 1


@kernel
def _should_age(s, swp, prio):  # type: ignore[no-untyped-def]
    """should_run_aging; returns (age now, nothing evictable)."""
    max_seq = s.gi[GI.max_seq]
    first = FILE_T if swp == 0 else ANON_T
    m = s.gi[GI.min_seq + first]
    if first == ANON_T:
        m = min(m, s.gi[GI.min_seq + FILE_T])
    if m + MIN_NR_GENS > max_seq:
        return True, True
    if m + MIN_NR_GENS < max_seq or prio == DEF_PRIORITY:
        return False, False
    if s.gi[GI.ver] == 1:
        return True, False
    young = 0
    old = 0
    total = 0
    for typ in range(first, 2):
        for seq in range(s.gi[GI.min_seq + typ], max_seq + 1):
            n = _size(s, seq, typ)
            total += n
            if seq == max_seq:
                young += n
            elif seq + MIN_NR_GENS == max_seq:
                old += n
    return young * MIN_NR_GENS > total or old * (MIN_NR_GENS + 2) < total, False
