"""A policy's own lists: intrusive doubly linked lists over two of its per-page columns.

Framework eviction lists hold resident pages only and one node a page, so ARC's B1/B2, 2Q's
A1out and S3-FIFO's ghost queue (shadow entries: pages that left memory but that a policy still
remembers) and MGLRU's generation lists (``policies/mglru/lists.py``) keep their own list over
two of the policy's per-page columns and a three-slot header among its globals:

``nxt``, ``prv`` : int64, shape (n_pages,)
    The next (older) and previous (newer) entry of each page; -1 at the ends and off the list.
``hdr`` : int64, shape (SH_SIZE,) = (3,)
    ``[SH_HEAD, SH_TAIL, SH_LEN]`` (the record :data:`SHADOW_HEADER`): the newest entry, the
    oldest, the number of entries. Any int64 view of three slots: a slice of a field declared
    ``count=SH_SIZE``, ``s.gi[GI.ghost : GI.ghost + SH_SIZE]`` (its slots ``GI.ghost + SH_TAIL``
    and so on), or a strided one whose slots are apart (MGLRU's heads, tails and sizes:
    ``s.gi[GI.head + li : GI.size + li + 1 : HDR_STEP]``).

The policy keeps its own membership flag (which list a page is on, if any). Pass column and
slice views, e.g. ``shadow_push(s.pm[:, PM.nxt], s.pm[:, PM.prv], s.gi[GI.b1 : GI.b1 + SH_SIZE], page)``.
O(1) per operation.

Two shadow lists B1, B2 (ARC, CAR) have a shared layout of three columns (``pair_*``) and a
packed one of a single column (``packed_*``: which list and both links in one int64, a quarter
of the memory, so that the rows the engine prefetches stay in cache more often).
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.layout import Record, field

#: A shadow list's header, three slots among a policy's globals: declare it as one field of
#: ``count=SH_SIZE`` and reach its slots as ``GI.name + SH_HEAD`` (``SH_TAIL``, ``SH_LEN``).
SHADOW_HEADER = Record(
    "shadow_header",
    field("head", "page id", "the newest entry, -1 if none"),
    field("tail", "page id", "the oldest entry, -1 if none"),
    field("length", "entries", "entries held"),
).at
SH_HEAD = SHADOW_HEADER.head
SH_TAIL = SHADOW_HEADER.tail
SH_LEN = SHADOW_HEADER.length
SH_SIZE = SHADOW_HEADER.SIZE

#: Two shadow lists' headers, B1's then B2's (ARC, CAR): declare them as one field of
#: ``count=PAIR_SIZE`` among a policy's globals and pass that field's offset as ``hdr`` to the
#: pair and packed functions below. B1's slots are ``GI.name + PAIR_B1 + SH_HEAD`` (``SH_TAIL``,
#: ``SH_LEN``), B2's ``GI.name + PAIR_B2 + SH_HEAD`` and so on; list ``which`` (1 = B1, 2 = B2)
#: has its header at ``hdr + PAIR_B1 + SH_SIZE * (which - 1)`` (:func:`pair_header`).
SHADOW_PAIR = Record(
    "shadow_pair",
    field("b1", "shadow header", "B1's header (SHADOW_HEADER: head, tail, length)", count=SH_SIZE),
    field("b2", "shadow header", "B2's header (SHADOW_HEADER: head, tail, length)", count=SH_SIZE),
).at
PAIR_B1 = SHADOW_PAIR.b1
PAIR_B2 = SHADOW_PAIR.b2
PAIR_SIZE = SHADOW_PAIR.SIZE
assert PAIR_B2 == PAIR_B1 + SH_SIZE, "list ``which``'s header is SH_SIZE * (which - 1) after B1's"


@kernel
def shadow_push(nxt, prv, hdr, page):  # type: ignore[no-untyped-def]
    """Put ``page`` (on no shadow list) at the newest end of the list ``hdr``."""
    head = hdr[SH_HEAD]
    nxt[page] = head
    prv[page] = -1
    if head >= 0:
        prv[head] = page
    else:
        hdr[SH_TAIL] = page
    hdr[SH_HEAD] = page
    hdr[SH_LEN] += 1


@kernel
def shadow_append(nxt, prv, hdr, page):  # type: ignore[no-untyped-def]
    """Put ``page`` (on no list) at the oldest end of the list ``hdr``."""
    tail = hdr[SH_TAIL]
    prv[page] = tail
    nxt[page] = -1
    if tail >= 0:
        nxt[tail] = page
    else:
        hdr[SH_HEAD] = page
    hdr[SH_TAIL] = page
    hdr[SH_LEN] += 1


@kernel
def shadow_unlink(nxt, prv, hdr, page):  # type: ignore[no-untyped-def]
    """Take ``page`` off the list ``hdr`` it is on."""
    n = nxt[page]
    p = prv[page]
    if p >= 0:
        nxt[p] = n
    else:
        hdr[SH_HEAD] = n
    if n >= 0:
        prv[n] = p
    else:
        hdr[SH_TAIL] = p
    nxt[page] = -1
    prv[page] = -1
    hdr[SH_LEN] -= 1


# ---- two shadow lists B1, B2 (ARC, CAR): the layout both adaptive policies share
#
# Per page, in the policy's ``s.pm``: column PAIR_NEXT, PAIR_PREV (the list links) and PAIR_WHERE
# (0 on neither list, 1 on B1, 2 on B2). In ``s.gi``: the two headers as the record SHADOW_PAIR
# at ``hdr`` (a field of ``count=PAIR_SIZE``).

PAIR_NEXT = 0
PAIR_PREV = 1
PAIR_WHERE = 2


def pair_header(hdr: int, which: int) -> int:
    """The first slot of B1's (``which`` = 1) or B2's (2) header in the SHADOW_PAIR at ``hdr``
    (the compiled functions below write the same expression in place)."""
    return hdr + PAIR_B1 + SH_SIZE * (which - 1)


@kernel
def pair_push(s, hdr, which, page):  # type: ignore[no-untyped-def]
    """Put ``page`` (on neither list) at the newest end of B1 (``which`` = 1) or B2 (2)."""
    h = hdr + PAIR_B1 + SH_SIZE * (which - 1)
    shadow_push(s.pm[:, PAIR_NEXT], s.pm[:, PAIR_PREV], s.gi[h : h + SH_SIZE], page)
    s.pm[page, PAIR_WHERE] = which


@kernel
def pair_unlink(s, hdr, page):  # type: ignore[no-untyped-def]
    """Take ``page`` off whichever of B1, B2 it is on."""
    h = hdr + PAIR_B1 + SH_SIZE * (s.pm[page, PAIR_WHERE] - 1)
    shadow_unlink(s.pm[:, PAIR_NEXT], s.pm[:, PAIR_PREV], s.gi[h : h + SH_SIZE], page)
    s.pm[page, PAIR_WHERE] = 0


def pair_pages(s, hdr: int, which: int) -> list[int]:  # type: ignore[no-untyped-def]
    """Pages of B1 (``which`` = 1) or B2 (2), newest first (tests, reports; not compiled)."""
    out = []
    page = int(s.gi[pair_header(hdr, which) + SH_HEAD])
    while page >= 0:
        out.append(page)
        page = int(s.pm[page, PAIR_NEXT])
    return out


# ---- B1, B2 packed in one column (ARC; LIRS packs one list's links the same way)
#
# A page's entry in ``s.pm[:, PACKED_ENTRY]`` is one int64, 0 while it is on neither list:
# bits 0-1 the list (1 B1, 2 B2), bits 2-32 the next (older) entry + 1, bits 33-63 the previous
# (newer) entry + 1 (0: none). Page ids are below 2**31 - 1 (core.state.make_state). Headers in
# ``s.gi`` as for the pair layout.

PACKED_ENTRY = 0
WHERE_MASK = 3  #: the entry's list bits
ID_MASK = (1 << 31) - 1
NEXT_SHIFT = 2
PREV_SHIFT = 33
KEEP_PREV = -1 ^ (ID_MASK << NEXT_SHIFT)  #: clears the next field
KEEP_NEXT = (1 << PREV_SHIFT) - 1  #: clears the previous field


@kernel_inline
def entry_next(x):  # type: ignore[no-untyped-def]
    """The next (older) page of packed entry ``x`` (int64), -1 if none."""
    return ((x >> NEXT_SHIFT) & ID_MASK) - 1


@kernel_inline
def entry_prev(x):  # type: ignore[no-untyped-def]
    """The previous (newer) page of packed entry ``x`` (int64), -1 if none."""
    return ((x >> PREV_SHIFT) & ID_MASK) - 1


@kernel_inline
def with_next(x, page):  # type: ignore[no-untyped-def]
    """Packed entry ``x`` with its next page set to ``page`` (-1: none); other bits kept."""
    return (x & KEEP_PREV) | ((page + 1) << NEXT_SHIFT)


@kernel_inline
def with_prev(x, page):  # type: ignore[no-untyped-def]
    """Packed entry ``x`` with its previous page set to ``page`` (-1: none); other bits kept."""
    return (x & KEEP_NEXT) | ((page + 1) << PREV_SHIFT)


@kernel_inline
def packed_push(s, hdr, which, page):  # type: ignore[no-untyped-def]
    """Put ``page`` (entry 0: on neither list) at the newest end of B1 (``which`` = 1) or B2 (2)."""
    h = hdr + PAIR_B1 + SH_SIZE * (which - 1)
    head = s.gi[h + SH_HEAD]
    s.pm[page, PACKED_ENTRY] = which | ((head + 1) << NEXT_SHIFT)
    if head >= 0:
        s.pm[head, PACKED_ENTRY] = with_prev(s.pm[head, PACKED_ENTRY], page)
    else:
        s.gi[h + SH_TAIL] = page
    s.gi[h + SH_HEAD] = page
    s.gi[h + SH_LEN] += 1


@kernel_inline
def packed_unlink(s, hdr, page):  # type: ignore[no-untyped-def]
    """Take ``page`` off whichever of B1, B2 it is on; its entry becomes 0."""
    x = s.pm[page, PACKED_ENTRY]
    h = hdr + PAIR_B1 + SH_SIZE * ((x & WHERE_MASK) - 1)
    nxt = entry_next(x)
    prv = entry_prev(x)
    if prv >= 0:
        s.pm[prv, PACKED_ENTRY] = with_next(s.pm[prv, PACKED_ENTRY], nxt)
    else:
        s.gi[h + SH_HEAD] = nxt
    if nxt >= 0:
        s.pm[nxt, PACKED_ENTRY] = with_prev(s.pm[nxt, PACKED_ENTRY], prv)
    else:
        s.gi[h + SH_TAIL] = prv
    s.pm[page, PACKED_ENTRY] = 0
    s.gi[h + SH_LEN] -= 1


def plain(func: Any) -> Any:
    """The plain-Python body of a compiled helper (cheap to call per entry from Python)."""
    return getattr(func, "py_func", func)


def packed_pages(s, hdr: int, which: int) -> list[int]:  # type: ignore[no-untyped-def]
    """Pages of packed B1 (``which`` = 1) or B2 (2), newest first (tests, reports; not compiled)."""
    out = []
    page = int(s.gi[pair_header(hdr, which) + SH_HEAD])
    while page >= 0:
        out.append(page)
        page = plain(entry_next)(int(s.pm[page, PACKED_ENTRY]))
    return out
