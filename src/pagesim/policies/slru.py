"""Segmented LRU (SLRU): a probation segment for pages seen once and a protected segment for pages
hit since they came in, each an LRU list; a hit promotes, and the protected segment's overflow
goes back to probation instead of out of the cache.

Source      Karedla, Love, Wherry, "Caching strategies to improve disk system performance",
            IEEE Computer 27(3), 1994 (segmented LRU); the sizes and the fill rule of
            libCacheSim's ``SLRU`` with two segments (cache/eviction/SLRU.c, read, not ported).
Structures  Two framework lists, most recent at each head: probation and protected.
Rules       added: the head of probation while probation holds fewer than its share
            (c - int(c * protected) pages), else the head of protected while protected holds
            fewer than int(c * protected), else the head of probation.
            accessed: a page in probation moves to the head of protected; if protected then
            holds more than its share, its tail moves to the head of probation. A page in
            protected moves to its head.
            evict: the tail of probation, or of protected when probation is empty.
Parameters  protected = 0.8: the protected segment's share of the capacity, in [0, 1);
            int(c * protected) pages. 0 makes SLRU an LRU.
Complexity  O(1) per access and per eviction; one list node per resident page.
Deviations  While the cache fills, a new page goes into protected once probation holds its
            share (libCacheSim's rule: the lowest segment with room); the paper lets probation
            take every new page until the cache is full. Once protected holds its share the two
            rules coincide. One cgroup per instance (each cgroup its own segments).
Peers       libCacheSim 0.3.5 ``SLRU`` with ``seg-size`` set to the two shares: identical miss
            counts where its segment sizes (each share of c truncated) add up to c, e.g. every c
            that is a multiple of 5 at protected = 0.8 (tests/crosscheck/test_slru_vs_libcachesim.py).
            Where they fall short, libCacheSim lets probation run over and a later hit evicts a
            page, which a cache_ext policy cannot do. libCacheSim's default is four equal
            segments (S4LRU); pagesim's SLRU is the paper's two.
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_len, list_move, list_of, list_tail
from pagesim.core.state import A_CGROUP, A_PAGE
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

STATE = Layout(
    "slru",
    gi=(
        field("probation", "list id", "the probation segment"),
        field("protected", "list id", "the protected segment"),
        field("probation_max", "pages", "probation's share"),
        field("protected_max", "pages", "protected's share"),
    ),
)
GI = STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.probation] = list_create(s, a[A_CGROUP])
    s.gi[GI.protected] = list_create(s, a[A_CGROUP])
    return 0 if s.gi[GI.probation] >= 0 and s.gi[GI.protected] >= 0 else -1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    probation = s.gi[GI.probation]
    protected = s.gi[GI.protected]
    if list_len(s, probation) >= s.gi[GI.probation_max] and list_len(s, protected) < s.gi[GI.protected_max]:
        list_add(s, protected, a[A_PAGE])
    else:
        list_add(s, probation, a[A_PAGE])
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    page = a[A_PAGE]
    protected = s.gi[GI.protected]
    promoted = list_of(s, page) != protected
    list_move(s, protected, page, False)
    if promoted and list_len(s, protected) > s.gi[GI.protected_max]:
        list_move(s, s.gi[GI.probation], list_tail(s, protected), False)
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    victim = list_tail(s, s.gi[GI.probation])
    if victim < 0:
        victim = list_tail(s, s.gi[GI.protected])
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


def segment_sizes(capacity: int, protected: float) -> tuple[int, int]:
    """(probation, protected) shares in pages of a cache of ``capacity`` pages.

    Raises
    ------
    ValueError
        If ``protected`` is outside [0, 1).
    """
    if not 0.0 <= protected < 1.0:
        raise ValueError(f"slru: protected must be in [0, 1), got {protected}")
    protected_pages = int(capacity * protected)
    return capacity - protected_pages, protected_pages


class SLRU(Policy):
    """Segmented LRU; see the module docstring."""

    name = "slru"
    description = "Segmented LRU: a probation and a protected LRU segment (Karedla et al. 1994)"
    params = defaults("slru")  # policies/params.toml
    int_globals = STATE.int_globals
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)

    def configure(self, s: Any, capacity: int) -> None:
        """Write the two segments' shares (pages) into the globals before ``init``."""
        probation, protected = segment_sizes(int(capacity), float(self.values["protected"]))
        s.gi[GI.probation_max] = probation
        s.gi[GI.protected_max] = protected
