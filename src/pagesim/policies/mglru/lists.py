"""MGLRU's generation lists: the policy's own doubly linked lists in ``s.pm`` (columns NXT, PRV),
one per (``seq % 4``, type), heads, tails and sizes in ``s.gi`` (``lrugen->folios[gen][type]``);
head = youngest end, eviction takes the tail. The list operations are :mod:`pagesim.core.shadow`'s.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.shadow import shadow_append, shadow_push, shadow_unlink
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

#: Slots between a list's head, tail and size in ``s.gi``: its header for core.shadow is a strided
#: view ``[head, tail, size]``.
HDR_STEP = G_TAIL - G_HEAD
if G_SIZE - G_TAIL != HDR_STEP:
    raise RuntimeError("mglru layout: G_HEAD, G_TAIL and G_SIZE must be equally far apart")


@kernel
def _link(s, p, seq, typ, at_tail):  # type: ignore[no-untyped-def]
    """Put page ``p`` on list (seq % 4, typ): at the head (youngest end) or the tail."""
    gen = seq % MAX_NR_GENS
    li = gen * 2 + typ
    hdr = s.gi[G_HEAD + li : G_SIZE + li + 1 : HDR_STEP]
    if at_tail:
        shadow_append(s.pm[:, NXT], s.pm[:, PRV], hdr, p)
    else:
        shadow_push(s.pm[:, NXT], s.pm[:, PRV], hdr, p)
    s.pm[p, GEN] = gen + 1
    s.pm[p, TYP] = typ


@kernel
def _unlink(s, p):  # type: ignore[no-untyped-def]
    """Take page ``p`` off its generation list (no-op if on none)."""
    g = s.pm[p, GEN]
    if g == 0:
        return
    li = (g - 1) * 2 + s.pm[p, TYP]
    shadow_unlink(s.pm[:, NXT], s.pm[:, PRV], s.gi[G_HEAD + li : G_SIZE + li + 1 : HDR_STEP], p)
    s.pm[p, GEN] = 0


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
