"""S3-FIFO: a small FIFO filters one-hit wonders, a main FIFO (2-bit CLOCK) keeps the rest.

Source      Yang, Zhang, Qiu, Yue, Rashmi, "FIFO queues are all you need for cache eviction",
            SOSP 2023 (Algorithm 1); the exact rules below are libCacheSim's ``S3FIFO``
            (cache/eviction/S3FIFO.c, the revision that inserts into main while the cache is
            still filling; read, not ported).
Structures  Two eviction lists, newest at the head: S (the paper's small FIFO) and M (main).
            Shadow entries G (the paper's ghost FIFO) are the policy's own FIFO of page ids,
            linked through ``pm[page, PM.ghost_next/ghost_prev]`` with ``pm[page, PM.in_ghost]`` as the
            membership flag; it holds at most ``ghost_size_ratio * capacity`` pages.
            ``pm[page, PM.freq]`` is the access counter, 0..3.
Rules       miss (``admit``, before anything is evicted): a page with a shadow entry loses it
            and will go to M.
            added: to the head of M if it had a shadow entry, or if nothing was ever evicted yet
            and S already holds its share; else to the head of S. freq := 0.
            accessed: freq := min(freq + 1, 3).
            evict: if M holds more than its share (capacity - |S| share) or S is empty, run
            M's CLOCK: the tail page with freq >= 1 goes back to M's head with freq - 1 (from at
            most 3), the first with freq 0 is evicted. Otherwise walk S's tail: a page with
            freq >= ``move_to_main_threshold`` moves to M's head with freq 0, the first with a
            lower freq is evicted and leaves a shadow entry (the oldest entry goes when G is
            full). If S empties without an eviction, M's CLOCK evicts.
Parameters  small_ratio = 0.1 (fraction of capacity): S's share, ``int(ratio * capacity)``
            (libCacheSim ``small-size-ratio``, the paper's 10 %).
            move_to_main_threshold = 2 (accesses while in S): promotion needs freq >= this,
            i.e. freq > 1 (libCacheSim's default; the paper's Algorithm 1 promotes at freq > 1).
            ghost_ratio = 0.9 (fraction of capacity): shadow entries kept (libCacheSim's
            ``ghost-size-ratio``, "as many as M holds").
Complexity  O(1) per hit; O(1) amortised per eviction (each page moved had a hit or a promotion).
            Per page: one list node and four int64 (freq, shadow links, shadow flag).
Deviations  1. libCacheSim refuses to insert a page into S when it would fill S (object size >=
               S's size): with unit sizes and capacity 10..19 (S = 1 page) nothing is ever
               cached (every access misses; measured), and below 10 pages it aborts. Here S
               holds at least one page and every missed page is inserted, so capacities below
               20 differ from libCacheSim (tests run it at >= 20 pages).
            2. cache_ext's S3-FIFO (spec §4.4, the separate policy ``ce-s3fifo``) is a
               different tuning of the same idea: its small queue is about 1/15 of the cache
               (evict from S while |S| >= capacity/15 or |M| <= 2 |S|), promotion needs freq >
               1 counting the first read (one hit) and keeps the freq, M's CLOCK lets freq go
               negative and escalates a threshold 0..3 over up to four passes, shadow entries
               are an LRU hash of the cache's size looked up on insertion, and every removal
               (not only S's) leaves one. This module keeps the paper's / libCacheSim's rules;
               tests/crosscheck/test_ce_vs_libcachesim.py works a trace where they differ.
Peers       libCacheSim 0.3.5 ``S3FIFO`` (defaults ``small-size-ratio=0.10,
            ghost-size-ratio=0.90, move-to-main-threshold=2``): identical miss counts on
            cloudPhysicsIO and the LIRS traces at three sizes each (tests/crosscheck).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_len, list_move, list_of, list_pages, list_tail
from pagesim.core.shadow import SH_HEAD, SH_LEN, SH_SIZE, SH_TAIL, shadow_push, shadow_unlink
from pagesim.core.state import A_CGROUP, A_PAGE
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

STATE = Layout(
    "s3fifo",
    pm=(
        field("freq", "accesses", "accesses since insertion (or since the last CLOCK pass), capped at 3"),
        field("ghost_next", "page id", "shadow FIFO: next entry towards the tail (older), -1 if none"),
        field("ghost_prev", "page id", "shadow FIFO: previous entry towards the head (newer), -1 if none"),
        field("in_ghost", "flag", "1 while the page has a shadow entry"),
    ),
    gi=(
        field("small", "list id", "S, the small FIFO"),
        field("main", "list id", "M, the main FIFO"),
        field("small_cap", "pages", "S's share"),
        field("main_cap", "pages", "M's share"),
        field("ghost_cap", "pages", "shadow entries kept at most"),
        field("threshold", "accesses", "move_to_main_threshold"),
        field(
            "ghost",
            "SHADOW_HEADER",
            "the shadow FIFO's header (core.shadow): newest entry, oldest, entries held",
            count=SH_SIZE,
        ),
        field("has_evicted", "flag", "1 once evict has been called"),
        field("hit_on_ghost", "flag", "the current miss had a shadow entry"),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.small] = list_create(s, a[A_CGROUP])
    s.gi[GI.main] = list_create(s, a[A_CGROUP])
    for i in range(s.pm.shape[0]):
        s.pm[i, PM.freq] = 0
        s.pm[i, PM.ghost_next] = -1
        s.pm[i, PM.ghost_prev] = -1
        s.pm[i, PM.in_ghost] = 0
    s.gi[GI.ghost + SH_HEAD] = -1
    s.gi[GI.ghost + SH_TAIL] = -1
    s.gi[GI.ghost + SH_LEN] = 0
    s.gi[GI.has_evicted] = 0
    s.gi[GI.hit_on_ghost] = 0
    return 0 if s.gi[GI.small] >= 0 and s.gi[GI.main] >= 0 else -1


@kernel
def _ghost_unlink(s, p):  # type: ignore[no-untyped-def]
    shadow_unlink(s.pm[:, PM.ghost_next], s.pm[:, PM.ghost_prev], s.gi[GI.ghost : GI.ghost + SH_SIZE], p)
    s.pm[p, PM.in_ghost] = 0


@kernel
def _ghost_push(s, p):  # type: ignore[no-untyped-def]
    """Give ``p`` a shadow entry at the head, dropping the oldest ones to stay within the cap."""
    cap = s.gi[GI.ghost_cap]
    if cap <= 0 or s.pm[p, PM.in_ghost] != 0:
        return
    while s.gi[GI.ghost + SH_LEN] + 1 > cap:
        _ghost_unlink(s, s.gi[GI.ghost + SH_TAIL])
    shadow_push(s.pm[:, PM.ghost_next], s.pm[:, PM.ghost_prev], s.gi[GI.ghost : GI.ghost + SH_SIZE], p)
    s.pm[p, PM.in_ghost] = 1


@kernel
def _admit(s, a):  # type: ignore[no-untyped-def]
    # Looked up before eviction: the evictions for this miss may push shadow entries out.
    p = a[A_PAGE]
    if s.pm[p, PM.in_ghost] != 0:
        _ghost_unlink(s, p)
        s.gi[GI.hit_on_ghost] = 1
    else:
        s.gi[GI.hit_on_ghost] = 0
    return 1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    s.pm[p, PM.freq] = 0
    if s.gi[GI.hit_on_ghost] != 0:
        s.gi[GI.hit_on_ghost] = 0
        list_add(s, s.gi[GI.main], p)
    elif s.gi[GI.has_evicted] == 0 and list_len(s, s.gi[GI.small]) >= s.gi[GI.small_cap]:
        list_add(s, s.gi[GI.main], p)
    else:
        list_add(s, s.gi[GI.small], p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if s.pm[p, PM.freq] < 3:
        s.pm[p, PM.freq] += 1
    return 0


@kernel
def _evict_main(s):  # type: ignore[no-untyped-def]
    main = s.gi[GI.main]
    p = list_tail(s, main)
    while p >= 0 and s.pm[p, PM.freq] >= 1:
        s.pm[p, PM.freq] -= 1
        list_move(s, main, p, False)
        p = list_tail(s, main)
    return p


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.has_evicted] = 1
    small = s.gi[GI.small]
    main = s.gi[GI.main]
    victim = -1
    if list_len(s, main) <= s.gi[GI.main_cap] and list_len(s, small) > 0:
        threshold = s.gi[GI.threshold]
        p = list_tail(s, small)
        while p >= 0:
            if s.pm[p, PM.freq] >= threshold:
                s.pm[p, PM.freq] = 0
                list_move(s, main, p, False)
                p = list_tail(s, small)
            else:
                victim = p
                break
    if victim < 0:
        victim = _evict_main(s)
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    if list_of(s, p) == s.gi[GI.small]:
        _ghost_push(s, p)
    s.pm[p, PM.freq] = 0
    return 0


class S3FIFO(Policy):
    """S3-FIFO (SOSP 2023) as libCacheSim runs it; see the module docstring."""

    name = "s3fifo"
    description = "S3-FIFO: small FIFO filter, main FIFO with 2-bit CLOCK, shadow entries"
    params = defaults("s3fifo")  # policies/params.toml
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    init = staticmethod(_init)
    admit = staticmethod(_admit)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Shares of S, M and the shadow FIFO, as libCacheSim computes them (truncation)."""
        ratio = float(self.values["small_ratio"])
        ghost = float(self.values["ghost_ratio"])
        threshold = int(self.values["move_to_main_threshold"])
        if not 0.0 < ratio < 1.0:
            raise ValueError(f"s3fifo: small_ratio must be in (0, 1), got {ratio}")
        if ghost < 0.0:
            raise ValueError(f"s3fifo: ghost_ratio must be >= 0, got {ghost}")
        if threshold < 1:
            raise ValueError(f"s3fifo: move_to_main_threshold must be >= 1, got {threshold}")
        small = max(1, int(capacity * ratio))
        s.gi[GI.small_cap] = small
        s.gi[GI.main_cap] = capacity - int(capacity * ratio)
        s.gi[GI.ghost_cap] = int(capacity * ghost)
        s.gi[GI.threshold] = threshold

    def check_invariants(self, s: Any) -> None:
        """S and M partition the resident set; freq in 0..3; shadow FIFO consistent, no resident."""
        small = list_pages(s, int(s.gi[GI.small])).tolist()
        main = list_pages(s, int(s.gi[GI.main])).tolist()
        resident = np.flatnonzero(s.resident).tolist()
        assert len(set(small)) == len(small) and len(set(main)) == len(main), "page listed twice"
        assert sorted(small + main) == resident, "S + M != resident set"
        freq = s.pm[:, PM.freq]
        assert ((freq >= 0) & (freq <= 3)).all(), "freq outside 0..3"
        assert not freq[s.resident == 0].any(), "a non-resident page keeps a freq"
        ghost = []
        p = int(s.gi[GI.ghost + SH_HEAD])
        prev = -1
        while p >= 0:
            assert len(ghost) <= s.pm.shape[0], "cycle in the shadow FIFO"
            assert int(s.pm[p, PM.ghost_prev]) == prev, f"shadow entry {p}: broken link"
            ghost.append(p)
            prev = p
            p = int(s.pm[p, PM.ghost_next])
        assert int(s.gi[GI.ghost + SH_TAIL]) == prev, "shadow FIFO tail"
        assert len(ghost) == int(s.gi[GI.ghost + SH_LEN]) <= max(int(s.gi[GI.ghost_cap]), 0), "shadow length"
        assert sorted(ghost) == np.flatnonzero(s.pm[:, PM.in_ghost]).tolist(), "shadow flags"
        assert not set(ghost) & set(resident), "a resident page has a shadow entry"
