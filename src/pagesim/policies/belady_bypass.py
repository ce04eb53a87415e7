"""Belady's MIN with bypass (opt-bypass): the offline optimum when a miss may be served without inserting.

Source      Belady, "A study of replacement algorithms for a virtual-storage computer", IBM
            Systems Journal 5(2), 1966 (MIN: replace the page whose next use is furthest).
            The bypass variant (a miss may be served without caching the page, as caches with
            exclusion or admission control do) is MIN over the resident pages together with the
            requested one; see McFarling, "Cache replacement with dynamic exclusion", ISCA 1992,
            for optimal replacement when a reference may be excluded from the cache.
Structures  Belady's heap (:mod:`pagesim.policies.belady`: the resident pages keyed by minus
            their next use, root = furthest next use) and two globals of its own: the capacity
            ``gi[GI.cap]`` (from ``configure``) and the units in use ``gi[GI.used]``; per page its
            size in units ``pm[page, PM.size]``.
Rules       needs the next access of every access (``a[A_NEXT]``).
            admit: a miss is inserted when it fits without evicting; when the cache is full it
            is inserted only if its own next use comes before the furthest next use among the
            resident pages (the heap's root); otherwise it is served without inserting (bypass;
            counted as ``bypassed``). Ties (equal next uses: both never used again) bypass.
            added, accessed, evict, removed: as Belady's OPT (evict the furthest next use).
Parameters  none.
Why a bound With equal-size pages (``capacity_unit="pages"``) no policy that may bypass makes
            fewer misses on the same trace and capacity: at a miss with a full cache the choice
            is which one of the resident pages *and the requested one* is not in the cache
            afterwards, and MIN's exchange argument (Belady 1966; Mattson et al. 1970) applies
            unchanged to that larger set, so keeping the ones used soonest is optimal. Hence its
            misses are <= demand-fetch OPT's (``opt``, which must insert) and <= those of every
            policy, bypassing or not. With object sizes (bytes) it is, like ``opt``, a
            furthest-next-use heuristic, not a bound.
Complexity  O(log n) per insertion, hit and eviction (Belady's heap); O(1) per bypass; 5 int64
            columns per page.
Deviations  With several cgroups each runs its own instance: the optimum within each cgroup's
            capacity. Cache mode only (kernel mode's reclaim does not run ``admit`` as a
            demand-paging choice).
Peers       libCacheSim has no bypassing Belady; checked against an exhaustive search over every
            insert/bypass/evict choice on small traces (tests/unit/test_policies_opt_bypass.py).
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.state import A_NEXT, A_PAGE, A_SIZE
from pagesim.policies import belady
from pagesim.policies.belady import (
    Belady,
    _accessed,
    _added,
    _evict,
    _init,
    _removed,
)

#: OPT's state and the units of the pages held
STATE = Layout(
    "opt-bypass",
    pm=(
        *belady.STATE.fields["pm"],
        field("size", "units", "page row: units the page occupies while resident"),
    ),
    gi=(
        *belady.STATE.fields["gi"],
        field("cap", "units", "capacity, in the run's units"),
        field("used", "units", "units in use"),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _bypass_init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.used] = 0
    return _init(s, a)


@kernel
def _admit(s, a):  # type: ignore[no-untyped-def]
    if s.gi[GI.used] + a[A_SIZE] <= s.gi[GI.cap] or s.gi[GI.size] == 0:
        return 1
    furthest = -s.pm[0, PM.heap_key]  # the root: the largest next use among the resident pages
    return 1 if a[A_NEXT] < furthest else 0


@kernel
def _bypass_added(s, a):  # type: ignore[no-untyped-def]
    s.pm[a[A_PAGE], PM.size] = a[A_SIZE]
    s.gi[GI.used] += a[A_SIZE]
    return _added(s, a)


@kernel
def _bypass_removed(s, r):  # type: ignore[no-untyped-def]
    s.gi[GI.used] -= s.pm[r[A_PAGE], PM.size]
    return _removed(s, r)


class BeladyBypass(Belady):
    """Belady's MIN with bypass: the bound for policies that may bypass; see the module docstring."""

    name = "opt-bypass"
    description = "MIN with bypass: a miss is not inserted when its next use is furthest (bound with admit)"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    init = staticmethod(_bypass_init)
    admit = staticmethod(_admit)
    added = staticmethod(_bypass_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_bypass_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Write the capacity (in the run's units) into ``gi[GI.cap]``."""
        s.gi[GI.cap] = int(capacity)
