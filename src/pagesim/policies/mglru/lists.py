"""MGLRU's generation lists: the policy's own doubly linked lists in ``s.pm`` (columns NXT, PRV),
one per (``seq % 4``, type), heads, tails and sizes in ``s.gi`` (``lrugen->folios[gen][type]``);
head = youngest end, eviction takes the tail.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.policies.mglru.layout import (
    G_HEAD,
    G_MAX_SEQ,
    G_MIN_SEQ,
    G_SIZE,
    G_TAIL,
    GEN,
    MAX_NR_GENS,
    NXT,
    PRV,
    TYP,
)


@kernel
def _link(s, p, seq, typ, at_tail):  # type: ignore[no-untyped-def]
    """Put page ``p`` on list (seq % 4, typ): at the head (youngest end) or the tail."""
    gen = seq % MAX_NR_GENS
    li = gen * 2 + typ
    h = s.gi[G_HEAD + li]
    t = s.gi[G_TAIL + li]
    if h < 0:
        s.pm[p, NXT] = -1
        s.pm[p, PRV] = -1
        s.gi[G_HEAD + li] = p
        s.gi[G_TAIL + li] = p
    elif at_tail:
        s.pm[p, PRV] = t
        s.pm[p, NXT] = -1
        s.pm[t, NXT] = p
        s.gi[G_TAIL + li] = p
    else:
        s.pm[p, NXT] = h
        s.pm[p, PRV] = -1
        s.pm[h, PRV] = p
        s.gi[G_HEAD + li] = p
    s.pm[p, GEN] = gen + 1
    s.pm[p, TYP] = typ
    s.gi[G_SIZE + li] += 1


@kernel
def _unlink(s, p):  # type: ignore[no-untyped-def]
    """Take page ``p`` off its generation list (no-op if on none)."""
    g = s.pm[p, GEN]
    if g == 0:
        return
    li = (g - 1) * 2 + s.pm[p, TYP]
    n = s.pm[p, NXT]
    v = s.pm[p, PRV]
    if v >= 0:
        s.pm[v, NXT] = n
    else:
        s.gi[G_HEAD + li] = n
    if n >= 0:
        s.pm[n, PRV] = v
    else:
        s.gi[G_TAIL + li] = v
    s.pm[p, NXT] = -1
    s.pm[p, PRV] = -1
    s.pm[p, GEN] = 0
    s.gi[G_SIZE + li] -= 1


@kernel
def _move(s, p, seq, at_tail):  # type: ignore[no-untyped-def]
    typ = s.pm[p, TYP]
    _unlink(s, p)
    _link(s, p, seq, typ, at_tail)


@kernel
def _size(s, seq, typ):  # type: ignore[no-untyped-def]
    return s.gi[G_SIZE + (seq % MAX_NR_GENS) * 2 + typ]


@kernel
def _nr_gens(s, typ):  # type: ignore[no-untyped-def]
    return s.gi[G_MAX_SEQ] - s.gi[G_MIN_SEQ + typ] + 1
