"""MGLRU's generation lists: the policy's own doubly linked lists in ``s.pm`` (columns PM.nxt, PM.prv),
one per (``seq % 4``, type), heads, tails and sizes in ``s.gi`` (``lrugen->folios[gen][type]``);
head = youngest end, eviction takes the tail. The list operations are :mod:`pagesim.core.shadow`'s.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.shadow import shadow_append, shadow_push, shadow_unlink
from pagesim.policies.mglru.layout import (
    GI,
    MAX_NR_GENS,
    PM,
)

#: Slots between a list's head, tail and size in ``s.gi``: its header for core.shadow is a strided
#: view ``[head, tail, size]``.
HDR_STEP = GI.tail - GI.head
if GI.size - GI.tail != HDR_STEP:
    raise RuntimeError("mglru layout: GI.head, GI.tail and GI.size must be equally far apart")


@kernel
def _link(s, p, seq, typ, at_tail):  # type: ignore[no-untyped-def]
    """Put page ``p`` on list (seq % 4, typ): at the head (youngest end) or the tail."""
    gen = seq % MAX_NR_GENS
    li = gen * 2 + typ
    hdr = s.gi[GI.head + li : GI.size + li + 1 : HDR_STEP]
    if at_tail:
        shadow_append(s.pm[:, PM.nxt], s.pm[:, PM.prv], hdr, p)
    else:
        shadow_push(s.pm[:, PM.nxt], s.pm[:, PM.prv], hdr, p)
    s.pm[p, PM.gen] = gen + 1
    s.pm[p, PM.typ] = typ


@kernel
def _unlink(s, p):  # type: ignore[no-untyped-def]
    """Take page ``p`` off its generation list (no-op if on none)."""
    g = s.pm[p, PM.gen]
    if g == 0:
        return
    li = (g - 1) * 2 + s.pm[p, PM.typ]
    shadow_unlink(s.pm[:, PM.nxt], s.pm[:, PM.prv], s.gi[GI.head + li : GI.size + li + 1 : HDR_STEP], p)
    s.pm[p, PM.gen] = 0


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
