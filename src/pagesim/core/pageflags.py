"""Page flags a policy may read in kernel mode, and the one it may change (the young bit).

The bits live in ``State.resident`` (see :mod:`pagesim.core.state`): ``YOUNG`` is the PTE accessed
bit of a mapped page, set by the (simulated) hardware on every access and cleared by reclaim when
it samples it (``folio_referenced`` / the MGLRU walker: mm/rmap.c, mm/vmscan.c).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.state import (
    ANON,
    DIRTY,
    FLAG_MASK,
    RA_MARK,
    SWAPCACHE,
    WORK_PTES,
    WORK_RMAP,
    YOUNG,
)


@kernel
def is_anon(s, page):  # type: ignore[no-untyped-def]
    """True if ``page`` is anonymous (swap-backed)."""
    return (s.resident[page] & ANON) != 0


@kernel
def is_dirty(s, page):  # type: ignore[no-untyped-def]
    """True if ``page`` must be written (to its file or to swap) before it can be dropped."""
    return (s.resident[page] & DIRTY) != 0


@kernel
def in_swapcache(s, page):  # type: ignore[no-untyped-def]
    """True if an anon ``page`` still has its copy in a swap slot (evicting it writes nothing)."""
    return (s.resident[page] & SWAPCACHE) != 0


@kernel
def has_readahead_mark(s, page):  # type: ignore[no-untyped-def]
    """True if ``page`` carries PG_readahead (a hit on it starts the next readahead)."""
    return (s.resident[page] & RA_MARK) != 0


@kernel
def test_and_clear_young(s, page):  # type: ignore[no-untyped-def]
    """Return whether ``page``'s young bit was set, and clear it, through the reverse map.

    ``folio_referenced`` (mm/rmap.c): reclaim asks each mapping of the page. Every call on a
    mapped (anon) page counts one in ``s.work[WORK_RMAP]``, which kernel mode charges at
    ``KernelConfig.rmap_ns_per_page`` when the call happens inside ``evict``.
    """
    v = s.resident[page]
    if v & ANON:
        s.work[WORK_RMAP] += 1
    if v & YOUNG:
        s.resident[page] = v & (FLAG_MASK ^ YOUNG)
        return True
    return False


@kernel
def walk_test_and_clear_young(s, page):  # type: ignore[no-untyped-def]
    """As :func:`test_and_clear_young`, for a page-table walker that reads the PTE directly.

    MGLRU's aging walk and look-around (``walk_pte_range``, ``lru_gen_look_around``) read PTEs in
    order, without the reverse map: each call counts one in ``s.work[WORK_PTES]`` (charged at
    ``KernelConfig.walk_ns_per_pte``).
    """
    s.work[WORK_PTES] += 1
    v = s.resident[page]
    if v & YOUNG:
        s.resident[page] = v & (FLAG_MASK ^ YOUNG)
        return True
    return False
