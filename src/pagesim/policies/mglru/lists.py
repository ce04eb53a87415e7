"""MGLRU's generation lists: the policy's own doubly linked lists in ``s.pm`` (columns PM.nxt, PM.prv),
one per (``seq % 4``, type), heads, tails and sizes in ``s.gi`` (``lrugen->folios[gen][type]``);
head = youngest end, eviction takes the tail.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.policies.mglru.layout import (
    GI,
    MAX_NR_GENS,
    PM,
)


@kernel
def _link(s, p, seq, typ, at_tail):  # type: ignore[no-untyped-def]
    """Put page ``p`` on list (seq % 4, typ): at the head (youngest end) or the tail."""
    gen = seq % MAX_NR_GENS
    li = gen * 2 + typ
    h = s.gi[GI.head + li]
    t = s.gi[GI.tail + li]
    if h < 0:
        s.pm[p, PM.nxt] = -1
        s.pm[p, PM.prv] = -1
        s.gi[GI.head + li] = p
        s.gi[GI.tail + li] = p
    elif at_tail:
        s.pm[p, PM.prv] = t
        s.pm[p, PM.nxt] = -1
        s.pm[t, PM.nxt] = p
        s.gi[GI.tail + li] = p
    else:
        s.pm[p, PM.nxt] = h
        s.pm[p, PM.prv] = -1
        s.pm[h, PM.prv] = p
        s.gi[GI.head + li] = p
    s.pm[p, PM.gen] = gen + 1
    s.pm[p, PM.typ] = typ
    s.gi[GI.size + li] += 1


@kernel
def _unlink(s, p):  # type: ignore[no-untyped-def]
    """Take page ``p`` off its generation list (no-op if on none)."""
    g = s.pm[p, PM.gen]
    if g == 0:
        return
    li = (g - 1) * 2 + s.pm[p, PM.typ]
    n = s.pm[p, PM.nxt]
    v = s.pm[p, PM.prv]
    if v >= 0:
        s.pm[v, PM.nxt] = n
    else:
        s.gi[GI.head + li] = n
    if n >= 0:
        s.pm[n, PM.prv] = v
    else:
        s.gi[GI.tail + li] = v
    s.pm[p, PM.nxt] = -1
    s.pm[p, PM.prv] = -1
    s.pm[p, PM.gen] = 0
    s.gi[GI.size + li] -= 1


@kernel
def _move(s, p, seq, at_tail):  # type: ignore[no-untyped-def]
    typ = s.pm[p, PM.typ]
    _unlink(s, p)
    _link(s, p, seq, typ, at_tail)


@kernel
def _size(s, seq, typ):  # type: ignore[no-untyped-def]
    return s.gi[GI.size + (seq % MAX_NR_GENS) * 2 + typ]


@kernel
def _nr_gens(s, typ):  # type: ignore[no-untyped-def]
    return s.gi[GI.max_seq] - s.gi[GI.min_seq + typ] + 1
