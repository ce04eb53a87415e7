"""cache_ext S3-FIFO (ce-s3fifo): a small FIFO (~1/15 of the cache) filters one-hit pages, main keeps others.

Source      cache_ext spec §4.4 (cache_ext repo ``policies/``, ``cache_ext_s3fifo``
            and its loader, which passes the cache size in pages), §2.6b (``list_iterate_extended``),
            §6 item 11; Zussman et al., "cache_ext: Customizing the Page Cache with eBPF", SOSP
            2025, §5 (after Yang et al., "FIFO queues are all you need for cache eviction", SOSP
            2023).
Structures  Two eviction lists, oldest at the head: small (S) and main (M). Per page:
            ``pm[page, PM.freq]`` (signed), ``pm[page, PM.in_main]``; the shadow entries (cache_ext's
            ghost, an LRU hash keyed by file and index) are a FIFO of page ids through
            ``pm[page, PM.ghost_next/PM.ghost_prev]``, ``pm[page, PM.in_ghost]``, holding at most
            the cache's size in pages. Approximate sizes of S and M kept as counters, as cache_ext does.
Rules       added: a page with a shadow entry loses it and goes to M's tail (PM.in_main := 1, M's
            counter + 1); any other to S's tail (S's counter + 1). freq := 0, then 1 in cache
            mode with ``fault_read`` (the read that missed: cache_ext sees ``added`` then
            ``accessed``).
            accessed: freq := min(freq + 1, 3).
            removed (any cause): a shadow entry is recorded (the oldest dropped beyond the cap);
            the counter of the list the page was in (by PM.in_main) - 1; metadata dropped.
            evict: from S if |S| >= capacity // 15 or |M| <= 2 |S| (the counters), else from M.
            From S: ``list_iterate_extended`` over S, kept pages to M's tail, proposed pages to
            S's tail. A page that may not be evicted (DIRTY in kernel mode) is kept, i.e. moved
            to M without PM.in_main; freq > 1 is kept and promoted (PM.in_main := 1, freq unchanged);
            else proposed. Then |S| -= kept, |M| += kept.
            From M: up to four passes t = 0, 1, 2, 3 over M, each with kept and proposed pages
            to M's tail, the next pass only while candidates are still wanted: freq := freq - 1
            (no floor: freq may go negative), proposed if freq < t, else kept (a page that may
            not be evicted is kept untouched). A pass walks at most 4097 nodes, so on a list
            shorter than that it comes round and decrements a page again: a CLOCK sweep.
Parameters  own_fallback = True: when S is chosen and yields fewer candidates than wanted
            (S empty, or every page in it promoted), M's passes supply the rest. False:
            cache_ext's rule, no cross-queue fallback: the framework's fallback evicts the
            shortfall (see Deviations 1).
            fault_read = True: count the missed access as the first read (cache mode only).
Complexity  O(1) per hit and per insertion; per eviction O(pages walked): promotions from S and
            decrements in M, at most 5 x 4097 node visits. Per page: one list node and five
            int64; per shadow entry: three int64 of the page's row.
Deviations  1. ``own_fallback``: cache_ext leaves a short S walk to the kernel's LRU, which
               pagesim's default policy (CLOCK over page ids) does not imitate; below 15 pages
               capacity // 15 is 0, S is always chosen and the shortfall would be frequent.
            2. The shadow table is an exact FIFO of at most capacity entries; cache_ext's BPF LRU
               hash replaces approximately (per-CPU lists).
            3. cache_ext's walks fill up to 32 candidates whatever the request; pagesim stops at
               the request (1 in cache mode; the batch in kernel mode). Proposed pages move to
               the tail, so proposing 32 to evict 1 would reorder 31 pages the kernel would
               have evicted; stopping at the request matches the kernel's outcome.
            4. A walk that comes round to a page it proposed in the same ``evict`` call does
               not propose it again (cache_ext would; the kernel skips a page it has already
               taken off its LRU, pagesim would count a rejected duplicate): M's passes rotate
               it on untouched, S's walk stops there (its kept pages go to M). Only a list
               shorter than the request comes round (kernel mode's batches of 32).
            Differences from the paper's S3-FIFO (pagesim's ``s3fifo``, libCacheSim's rules): S
            is about 1/15 of the cache and M at least twice S (paper: S = 10 %); promotion
            needs freq > 1 counting the read of the miss, i.e. one hit while in S (paper: freq
            > 1 without that read, two hits); a promoted page keeps its freq (paper: 0); M's
            CLOCK lets freq go negative and escalates a threshold over four passes (paper: a
            page with freq >= 1 is reinserted with freq - 1); the shadow table holds the
            cache's size (paper: as many as M) and every removal leaves an entry (paper: only
            S's); the shadow lookup happens on insertion, after the evictions for the miss.
Peers       libCacheSim 0.3.5 ``S3FIFO`` is the paper's version (pagesim ``s3fifo`` matches it
            exactly); tests/crosscheck/test_ce_vs_libcachesim.py works one trace where the two
            rule sets differ.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import (
    CONTINUE,
    EVICT,
    STOP,
    TO_TAIL,
    list_add_tail,
    list_create,
    list_iterate,
    list_pages,
)
from pagesim.core.shadow import SH_HEAD, SH_LEN, SH_SIZE, SH_TAIL, shadow_push, shadow_unlink
from pagesim.core.state import A_CGROUP, A_MODE, A_PAGE, A_REQUEST, DIRTY, MAX_CANDIDATES, MODE_CACHE
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

STATE = Layout(
    "ce-s3fifo",
    pm=(
        field("freq", "accesses", "accesses, capped at 3; decremented by M's passes, may be negative"),
        field("in_main", "flag", "1 once promoted to (or inserted into) M"),
        field("ghost_next", "page id", "shadow FIFO: next entry towards the oldest"),
        field("ghost_prev", "page id", "shadow FIFO: previous entry towards the newest"),
        field("in_ghost", "flag", "1 while the page has a shadow entry"),
        field("mark", "evict call", "the evict call that proposed the page"),
    ),
    gi=(
        field("small", "list id", "S, the small FIFO"),
        field("main", "list id", "M, the main FIFO"),
        field("small_size", "pages", "cache_ext's counter of S's pages"),
        field("main_size", "pages", "cache_ext's counter of M's pages"),
        field("small_min", "pages", "capacity // 15"),
        field(
            "ghost",
            "SHADOW_HEADER",
            "the shadow FIFO's header (core.shadow): newest entry, oldest, entries held",
            count=SH_SIZE,
        ),
        field("ghost_cap", "pages", "shadow entries kept at most (the capacity)"),
        field("wanted", "pages", "candidates still wanted in this evict call"),
        field("pass_t", "0..3", "threshold t of the current pass over M"),
        field("kept", "pages", "pages kept (moved to M) by the walk over S"),
        field("call", "evict calls", "evict calls so far"),
        field("own_fallback", "flag", "parameter own_fallback"),
        field("fault_read", "flag", "parameter fault_read"),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.small] = list_create(s, a[A_CGROUP])
    s.gi[GI.main] = list_create(s, a[A_CGROUP])
    for i in range(s.pm.shape[0]):
        s.pm[i, PM.ghost_next] = -1
        s.pm[i, PM.ghost_prev] = -1
    s.gi[GI.ghost + SH_HEAD] = -1
    s.gi[GI.ghost + SH_TAIL] = -1
    s.gi[GI.ghost + SH_LEN] = 0
    return 0 if s.gi[GI.small] >= 0 and s.gi[GI.main] >= 0 else -1


@kernel
def _ghost_unlink(s, p):  # type: ignore[no-untyped-def]
    shadow_unlink(s.pm[:, PM.ghost_next], s.pm[:, PM.ghost_prev], s.gi[GI.ghost : GI.ghost + SH_SIZE], p)
    s.pm[p, PM.in_ghost] = 0


@kernel
def _ghost_push(s, p):  # type: ignore[no-untyped-def]
    cap = s.gi[GI.ghost_cap]
    if cap <= 0 or s.pm[p, PM.in_ghost] != 0:
        return
    while s.gi[GI.ghost + SH_LEN] + 1 > cap:
        _ghost_unlink(s, s.gi[GI.ghost + SH_TAIL])
    shadow_push(s.pm[:, PM.ghost_next], s.pm[:, PM.ghost_prev], s.gi[GI.ghost : GI.ghost + SH_SIZE], p)
    s.pm[p, PM.in_ghost] = 1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if s.pm[p, PM.in_ghost] != 0:
        _ghost_unlink(s, p)
        list_add_tail(s, s.gi[GI.main], p)
        s.pm[p, PM.in_main] = 1
        s.gi[GI.main_size] += 1
    else:
        list_add_tail(s, s.gi[GI.small], p)
        s.pm[p, PM.in_main] = 0
        s.gi[GI.small_size] += 1
    s.pm[p, PM.freq] = 0
    if s.gi[GI.fault_read] != 0 and a[A_MODE] == MODE_CACHE:
        s.pm[p, PM.freq] = 1
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if s.pm[p, PM.freq] < 3:
        s.pm[p, PM.freq] += 1
    return 0


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    _ghost_push(s, p)
    if s.pm[p, PM.in_main] != 0:
        s.gi[GI.main_size] -= 1
    else:
        s.gi[GI.small_size] -= 1
    s.pm[p, PM.freq] = 0
    s.pm[p, PM.in_main] = 0
    return 0


@kernel
def _small_verdict(s, a, index, page):  # type: ignore[no-untyped-def]
    if s.gi[GI.wanted] <= 0 or s.pm[page, PM.mark] == s.gi[GI.call]:
        return STOP
    if s.resident[page] & DIRTY:
        s.gi[GI.kept] += 1  # kept: moved to M (without PM.in_main), as cache_ext does
        return CONTINUE
    if s.pm[page, PM.freq] > 1:
        s.pm[page, PM.in_main] = 1
        s.gi[GI.kept] += 1
        return CONTINUE
    s.pm[page, PM.mark] = s.gi[GI.call]
    s.gi[GI.wanted] -= 1
    return EVICT


@kernel
def _main_verdict(s, a, index, page):  # type: ignore[no-untyped-def]
    if s.gi[GI.wanted] <= 0:
        return STOP
    if s.pm[page, PM.mark] == s.gi[GI.call] or s.resident[page] & DIRTY:
        return CONTINUE  # proposed earlier in this call, or may not be evicted: rotates on
    s.pm[page, PM.freq] -= 1
    if s.pm[page, PM.freq] < s.gi[GI.pass_t]:
        s.pm[page, PM.mark] = s.gi[GI.call]
        s.gi[GI.wanted] -= 1
        return EVICT
    return CONTINUE


@kernel
def _evict_small(s, a, count):  # type: ignore[no-untyped-def]
    s.gi[GI.kept] = 0
    small = s.gi[GI.small]
    n = list_iterate(s, a, small, _small_verdict, count, TO_TAIL, s.gi[GI.main], TO_TAIL, -1)
    s.gi[GI.small_size] -= s.gi[GI.kept]
    s.gi[GI.main_size] += s.gi[GI.kept]
    return count if n < 0 else n


@kernel
def _evict_main(s, a, count):  # type: ignore[no-untyped-def]
    main = s.gi[GI.main]
    for t in range(4):
        if s.gi[GI.wanted] <= 0:
            break
        s.gi[GI.pass_t] = t
        n = list_iterate(s, a, main, _main_verdict, count, TO_TAIL, -1, TO_TAIL, -1)
        if n >= 0:
            count = n
    return count


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.call] += 1
    s.gi[GI.wanted] = min(a[A_REQUEST], MAX_CANDIDATES)
    small_size = s.gi[GI.small_size]
    if small_size >= s.gi[GI.small_min] or s.gi[GI.main_size] <= 2 * small_size:
        count = _evict_small(s, a, 0)
        if s.gi[GI.wanted] > 0 and s.gi[GI.own_fallback] != 0:
            count = _evict_main(s, a, count)
    else:
        count = _evict_main(s, a, 0)
    return count


class CeS3FIFO(Policy):
    """S3-FIFO as cache_ext coded it; see the module docstring (and ``s3fifo`` for the paper's)."""

    name = "ce-s3fifo"
    description = "cache_ext S3-FIFO: small queue ~1/15, main CLOCK with escalating passes"
    params = defaults("ce-s3fifo")  # policies/params.toml
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    proposes_batches = True
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """S's threshold (capacity // 15), the shadow table's size (capacity), the switches."""
        s.gi[GI.small_min] = capacity // 15
        s.gi[GI.ghost_cap] = capacity
        s.gi[GI.own_fallback] = int(bool(self.values["own_fallback"]))
        s.gi[GI.fault_read] = int(bool(self.values["fault_read"]))

    def check_invariants(self, s: Any) -> None:
        """S + M = resident set, counters = lengths (no dirty pages), freq <= 3, shadow FIFO."""
        small = list_pages(s, int(s.gi[GI.small])).tolist()
        main = list_pages(s, int(s.gi[GI.main])).tolist()
        resident = np.flatnonzero(s.resident).tolist()
        assert sorted(small + main) == resident, "S + M != resident set"
        assert (int(s.gi[GI.small_size]), int(s.gi[GI.main_size])) == (len(small), len(main)), "sizes"
        assert sorted(main) == np.flatnonzero(s.pm[:, PM.in_main]).tolist(), "PM.in_main flags"
        assert (s.pm[:, PM.freq] <= 3).all(), "freq above 3"
        ghost = []
        p, prev = int(s.gi[GI.ghost + SH_HEAD]), -1
        while p >= 0:
            assert len(ghost) <= s.pm.shape[0] and int(s.pm[p, PM.ghost_prev]) == prev, "shadow links"
            ghost.append(p)
            prev, p = p, int(s.pm[p, PM.ghost_next])
        assert int(s.gi[GI.ghost + SH_TAIL]) == prev and len(ghost) == int(s.gi[GI.ghost + SH_LEN])
        assert len(ghost) <= int(s.gi[GI.ghost_cap]), "shadow table over its size"
        assert sorted(ghost) == np.flatnonzero(s.pm[:, PM.in_ghost]).tolist(), "shadow flags"
        assert not set(ghost) & set(resident), "a resident page has a shadow entry"
