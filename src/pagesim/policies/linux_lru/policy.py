"""Linux's legacy two-list LRU (active/inactive, per lruvec): protects pages seen used twice and the
working set that refaults within its own size; evicts from the inactive tails.

Source      Linux 6.x mm/vmscan.c (``get_scan_count``, ``shrink_lruvec``, ``shrink_active_list``,
            ``shrink_inactive_list``, ``folio_check_references``, ``inactive_is_low``,
            ``lru_note_cost``), mm/swap.c (``folio_mark_accessed``), mm/workingset.c
            (``workingset_eviction``, ``workingset_refault``, ``workingset_test_recent``), as
            paraphrased in shared/reference/kernel_policies_spec.md §1 (rules) and §4 (events).
Structures  One lruvec per cgroup (one instance of the class per cgroup): four framework lists
            ``inactive_anon``, ``active_anon``, ``inactive_file``, ``active_file`` (kernel
            ``enum lru_list`` order, :data:`LRU_INACTIVE_ANON` ...), newest at the head, reclaim
            from the tail. Per page (declared in :mod:`.layout`'s ``STATE``): PG_referenced
            (``PM.ref``), PG_active (``PM.active``), PG_workingset (``PM.workingset``). The PTE
            young bit is the framework's (``s.resident & YOUNG``,
            :func:`~pagesim.core.pageflags.test_and_clear_young`).
            Globals: ``lruvec->nonresident_age`` (``GI.age``), ``anon_cost``/``file_cost``,
            the ``refaults[]`` snapshot of WORKINGSET_ACTIVATE. A shadow entry (``s.shadow``) packs
            the age at eviction (bits 0-47), the evicting cgroup (48-61) and PG_workingset (62).
Rules       added (§1.2, §1.8): a page goes to the head of its type's inactive list, except a
            refault whose distance ``age_now - age_at_eviction`` is at most the workingset size
            (active_file, + inactive_file for anon, + active_anon (+ inactive_anon for file) if
            swap has free slots): it is added active (``workingset_activate_*``, age += 1), and
            if its shadow carried PG_workingset it gets PG_workingset, ``workingset_restore_*``
            and a refault cost of 32 on its type.
            accessed (§1.3, ``folio_mark_accessed``, file read()/write() hits): inactive
            unreferenced -> referenced; inactive referenced -> active head, unreferenced
            (``pgactivate``, age += 1); active unreferenced -> referenced.
            evict = one reclaim batch (§1.7): ``get_scan_count`` at priority p gives each list
            ``size >> p`` scaled by the decision tree (no free swap or limit reclaim with
            swappiness 0 -> file only; p = 0 and swappiness > 0 -> both by size; file tiny ->
            anon; cache-trim mode -> file; else fractions ap = sw*(T+1)/(a+1),
            fp = (200-sw)*(T+1)/(f+1) from the decayed costs). ``shrink_lruvec`` takes up to 32
            at a time from inactive anon, active anon, inactive file, active file in turn.
            Active lists (§1.5) are scanned only if ``may_deactivate`` has the type (refault
            activations since the last reclaim, or ``inactive_is_low``): every page has its young
            bit cleared, loses PG_active, gains PG_workingset and goes to the inactive head
            (``pgrefill``, ``pgdeactivate``). Inactive tails (§1.4): young (mapped) -> set
            PG_referenced, ACTIVATE if PG_referenced was already set else KEEP (rotate to the
            head); not young -> RECLAIM (a candidate in ``s.cand``); an anon page that would need
            a swap slot when none is left -> ACTIVATE. ACTIVATE: active head, ``pgactivate``,
            age += 1. ``lru_note_cost(io * 32 + rotated)`` after each inactive chunk, both costs
            halved when their sum exceeds a quarter of the lruvec. At the end of each pass (and,
            for kswapd, before it: background aging) 32 active anon are deactivated if swap
            exists and ``inactive_is_low(anon)`` (``isqrt(10 * GB)``, 1 below 1 GB).
            removed: an eviction stores the shadow entry and advances the age; a free does not.
Parameters  swappiness_override = -1: ``vm.swappiness`` (0-200) for this lruvec; -1 reads the
            node's (``KernelConfig.swappiness``, ``s.gi[GI_SWAPPINESS]``, default 60).
            priority_loop = False: one pass at ``a[A_PRIORITY]`` per call; the engine lowers the
            priority for the next batch when a pass yields fewer than 32 pages
            (``do_try_to_free_pages``' loop from 12 to 0, kswapd's down to 1), and the other
            tasks run between two batches. True: the pass goes on at the next priorities within
            the same call (the model before the engine scheduled reclaim in time; kept to
            compare).
Complexity  O(1) per access, add and removal; a batch visits at most the pages the priority
            allows (``size >> p`` per list, scaled to the batch), O(n) only at priority 0.
            Three int64 per page, one int64 shadow entry per evicted page.
Deviations  1. Per-CPU LRU batches (``lru_add``, ``lru_activate``...) are applied at once.
            2. One node and one zone; no unevictable list (no mlock); no exec file pages, so no
            active page is ever kept by ``shrink_active_list`` (``nr_rotated`` there is 0).
            3. File pages are never mapped in kernel mode yet, so their young bit is never set
            and ``referenced_ptes > 1`` never happens; anon pages have one mapping.
            4. A batch ends at ``a[A_REQUEST]`` candidates (32, the framework evicts them):
            the kernel keeps scanning to the end of its targets (direct reclaim at
            DEF_PRIORITY) or scales the other type's remainder and reclaims more. So that a
            32-page batch still takes both types in proportion to their targets (the kernel
            takes 32 from each list in turn, which only evens out over a whole pass), the list
            with the largest target is taken 32 at a time and the others in chunks scaled to
            their targets. When a pass ends short, the engine's next batch runs at the next
            priority (Parameters: priority_loop). Each call reports the pages it looked at in
            ``a[A_SCANNED]`` (inactive pages scanned plus active pages deactivated).
            5. Dirty file pages are proposed and written back by the framework (no flusher
            yet) instead of being parked active with PG_reclaim; their write counts as I/O in
            ``lru_note_cost``. Lazyfree anon, writeback states and "activate frees the swap
            slot when swap is > 50 % full" are not modelled.
            6. Per-cgroup lruvecs only: global reclaim reads this cgroup's lists where the
            kernel reads the root (node) lruvec for ``may_deactivate``, ``file_is_tiny`` and the
            costs; a refault into another cgroup than the one that evicted the page is not
            tested against the evicting lruvec (it is added inactive). memcg protection
            (memory.min/low) and the ancestors' cost propagation are not modelled.
            7. ``refaults[]`` is snapshot at the end of every batch (the kernel: at the end of a
            reclaim run; no access happens in between, so the same value). The swap-free test of
            the workingset size reads ``a[A_SWAP_FREE]``, which the engine refreshes only when
            it calls ``evict`` (value of the last reclaim batch).
            8. In cache mode (no priority, no swap) it runs as a file-only two-list LRU with
            priority starting at 12 and descending within the call (as ``priority_loop``).
Peers       none yet (a trace-driven comparison with a real kernel's /proc/vmstat is future work).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.lists import list_pages
from pagesim.core.pageflags import is_anon
from pagesim.core.state import (
    HEAD,
    LEN,
)
from pagesim.policies.base import Policy
from pagesim.policies.linux_lru.hooks import _accessed, _added, _evict, _init, _removed
from pagesim.policies.linux_lru.layout import (
    GI,
    LRU_INACTIVE_FILE,
    LRU_NAMES,
    MAX_SWAPPINESS,
    PM,
    STATE,
)
from pagesim.policies.params import defaults


def lru_lists(s: Any) -> dict[str, list[int]]:
    """The four lists of the lruvec in ``s``, head (newest) first, by kernel name (tests, reports)."""
    return {name: list_pages(s, int(s.gi[GI.list + lru])).tolist() for lru, name in enumerate(LRU_NAMES)}


class LinuxLRU(Policy):
    """Linux's legacy active/inactive LRU per lruvec; see the module docstring."""

    name = "linux-lru"
    description = "Linux two-list LRU (active/inactive anon and file, refault distance, get_scan_count)"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    proposes_batches = True
    uses_fallback = False
    params = defaults("linux-lru")  # policies/params.toml
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Write ``swappiness_override`` and ``priority_loop`` into the globals."""
        swp = int(self.values["swappiness_override"])
        if not (swp == -1 or 0 <= swp <= MAX_SWAPPINESS):
            raise ValueError(f"linux-lru: swappiness_override must be -1 or within 0..200, got {swp}")
        s.gi[GI.swappiness] = swp
        s.gi[GI.prio_loop] = 1 if self.values["priority_loop"] else 0

    def readouts(self, s: Any) -> dict[str, float]:
        """The four list sizes, nonresident_age and the cost counters (kernel-mode time series)."""
        names = ("inactive_anon", "active_anon", "inactive_file", "active_file")
        out = {name: float(s.lhd[int(s.gi[GI.list + k]), 2]) for k, name in enumerate(names)}
        out.update(
            nonresident_age=float(s.gi[GI.age]),
            anon_cost=float(s.gi[GI.anon_cost]),
            file_cost=float(s.gi[GI.file_cost]),
        )
        return out

    def check_invariants(self, s: Any) -> None:
        """Each page of this cgroup on exactly one of the four lists, the one its flags name."""
        cg = int(s.gi[GI.cg])
        lists = lru_lists(s)
        seen: dict[int, int] = {}
        for lru, name in enumerate(LRU_NAMES):
            pages = lists[name]
            lid = int(s.gi[GI.list + lru])
            assert len(pages) == int(s.lhd[lid, LEN]), (
                f"{name}: length {int(s.lhd[lid, LEN])} != {len(pages)}"
            )
            assert int(s.lhd[lid, HEAD]) == (pages[0] if pages else -1), f"{name}: head"
            for q in pages:
                assert q not in seen, f"page {q} is on {name} and on {LRU_NAMES[seen[q]]}"
                seen[q] = lru
                assert s.resident[q] != 0, f"page {q} on {name} is not resident"
                assert int(s.cgroup_of[q]) == cg, (
                    f"page {q} on {name} belongs to cgroup {int(s.cgroup_of[q])}"
                )
                anon = bool(is_anon.py_func(s, q))
                assert anon == (lru < LRU_INACTIVE_FILE), f"page {q} (anon={anon}) on {name}"
                assert int(s.pm[q, PM.active]) == (lru & 1), (
                    f"page {q} on {name} has PG_active={int(s.pm[q, PM.active])}"
                )
        mine = np.flatnonzero((s.resident != 0) & (s.cgroup_of == cg)).tolist()
        assert sorted(seen) == mine, "the four lists != this cgroup's resident pages"
        flags = s.pm[:, : PM.workingset + 1]
        assert set(np.unique(flags).tolist()) <= {0, 1}, "page flag outside {0, 1}"
        off = s.resident == 0
        assert not flags[off].any(), "a non-resident page keeps PG_referenced/active/workingset"
