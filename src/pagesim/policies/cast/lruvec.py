"""Small readers of one CAST lruvec that the other modules share: its tag, a page's type,
W's length, the pages on its lists, the rank order, the node's memory.

The rules are in :mod:`.policy`'s docstring (Structures, Ties).
"""

from __future__ import annotations

from pagesim.core.state import (
    A_MEMORY,
    A_MODE,
    A_ZRAM_PAGES,
    ANON,
    LEN,
    MODE_KERNEL,
)
from pagesim.policies.cast.core import (
    cast_kernel,
)
from pagesim.policies.cast.layout import (
    ANON_T,
    FILE_T,
    GI,
)


@cast_kernel
def _mytag(s, t):  # type: ignore[no-untyped-def]
    """This lruvec's tag for M of type ``t`` (1..14)."""
    return 1 + t + 2 * (s.gi[GI.cg] % 7)


@cast_kernel
def _type_of(s, p):  # type: ignore[no-untyped-def]
    return ANON_T if s.resident[p] & ANON else FILE_T


@cast_kernel
def _w_len(s, t):  # type: ignore[no-untyped-def]
    return s.lhd[s.gi[GI.list + t], LEN]


@cast_kernel
def _lru_pages(s):  # type: ignore[no-untyped-def]
    """Pages on this lruvec's lists (W and M of both types): the costs' memory."""
    return _w_len(s, ANON_T) + _w_len(s, FILE_T) + s.gi[GI.msize + ANON_T] + s.gi[GI.msize + FILE_T]


@cast_kernel
def _less(k1, tb1, k2, tb2):  # type: ignore[no-untyped-def]
    """Rank order: lower key first, then lower tie rank."""
    return k1 < k2 or (k1 == k2 and tb1 < tb2)


@cast_kernel
def _update_memory(s, a):  # type: ignore[no-untyped-def]
    """The node's memory and what zram holds of it for this lruvec's pages (kernel mode;
    ``added``, ``evict``)."""
    if a[A_MODE] == MODE_KERNEL and a[A_MEMORY] > 0:
        s.gi[GI.mem] = a[A_MEMORY]
        s.gi[GI.zram] = a[A_ZRAM_PAGES]
