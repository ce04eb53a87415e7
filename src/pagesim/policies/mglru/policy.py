"""Multi-Gen LRU (MGLRU, ``lru_gen``): Linux's generation-based page reclaim, one instance per lruvec.

Source      Yu Zhao, "Multi-Gen LRU", Linux 6.1+ (``mm/vmscan.c``, ``mm/workingset.c``, ``mm/swap.c``,
            ``include/linux/mm_inline.h``; ``Documentation/mm/multigen_lru.rst``); rules as summarised
            in shared/reference/kernel_policies_spec.md §2 and checked against the 6.7-era
            ``mm/vmscan.c`` and Yu Zhao's "mm/mglru: performance optimizations" series (Dec 2024,
            merged for 6.14), which lists what 6.14 changed. The walk, the Bloom filters,
            look-around and ``lru_gen_age_node`` checked against a recent (7.x) ``mm/vmscan.c`` and
            the July 2024 fixes "mm/mglru: fix ineffective protection calculation" and "fix
            overshooting shrinker memory" (in 6.11, so in 6.12: ``set_initial_priority``, the
            ``lru_gen_age_node`` in hooks.py).
Structures  Per lruvec: ``max_seq``, ``min_seq[anon]``, ``min_seq[file]``; generation ``seq`` lives in
            list ``(seq % 4, type)``, type 0 anon, 1 file (``lrugen->folios[gen][type]``). Eight lists
            exceed cache_ext's five per cgroup, so they are the policy's own doubly linked lists in
            ``s.pm`` (columns PM.nxt, PM.prv) with heads, tails and sizes in ``s.gi``; head = youngest end
            (``list_add``), eviction takes the tail. Per page: PM.gen (gen + 1, 0 off-list), PM.typ, PM.refd
            (PG_referenced), PM.ws (PG_workingset), PM.lrefs (the 2-bit LRU_REFS counter). Controller
            counters per (type, tier): ``refaulted``, ``evicted``, ``protected`` and their averages
            ``avg_refaulted``, ``avg_total`` (``hist`` has one slot). Birth time of each gen
            (``lrugen->timestamps``, ns of model time, ``a[A_NOW_NS]``).
            Address space (anon pages): each process (mm, the task tag ``a[A_TAG]`` of the fault
            that first brings a page in) lays its pages out in the order it first faults them, one
            VMA from virtual page 0; a page keeps its virtual page for life (swapped out and back,
            or freed and faulted again). PMD region k of a process = its virtual pages
            512k..512k+511 (one PTE table). Per page PM.reg (region + 1), PM.vpn, PM.vnx/PM.vpv (the pages at
            PM.vpn +- 1); per region (row = region id) its next region, first page and mm; per mm
            (row = tag) the mm_list link, first/last region, pages handed out (the VMA's end), last
            page and flags. ``lru_gen_mm_state``: the mm_list (FIFO of mms by creation) and
            ``filters[2]``, two real Bloom filters of 2^15 bits, k = 2, keyed by a 30-bit hash of
            the region (the kernel hashes the PMD entry's address).

Terms
-----
*refs* and *tier*. 6.12: an fd access sets PG_referenced, the next PG_workingset, further ones count
LRU_REFS up to 3; ``refs = LRU_REFS + PG_workingset`` and ``tier = order_base_2(refs + 1)``, so a page
read 1, 2, 4 times is in tier 0, 1, 2 (5 or more: tier 3, refs saturated at 4). 6.14: the first
access sets PG_referenced, further ones count LRU_REFS, then PG_workingset; ``refs = PG_referenced ?
LRU_REFS + 1 : 0``, ``tier = 3 if PG_workingset else order_base_2(refs)`` (same tiers for 1, 2, 4).
*Evictable types*: file always, anon unless the effective swappiness is 0 (``vm.swappiness`` 0, or
fewer than 64 free swap slots, ``get_swappiness``). *Positive error* of a set point SP and a
process variable PV (``positive_ctrl_err``): ``pv.refaulted < 64`` or ``pv.refaulted * (sp.total +
64) * sp.gain <= (sp.refaulted + 1) * pv.total * pv.gain``, where ``refaulted = avg_refaulted +
refaulted`` and ``total = avg_total + evicted + protected`` of that type and tier.

Rules
-----
added (``lru_gen_add_folio``): a refault is checked first (below). 6.12: a page added in a fault
(every anon page here: zero-fill or swap-in) gets PG_active (``folio_add_lru`` under
``lru_gen_in_fault``) and goes to ``max_seq``; anon outside a fault to ``max_seq - 1``; file pages
(read() and readahead, refs 0) to ``min_seq + 1``, or ``min_seq`` while the window is minimal
(``min_seq + 2 >= max_seq``: at most three gens).
6.14: in a fault a PG_workingset page gets PG_active, any other gets PG_referenced; then active ->
``max_seq - 1 + !workingset``... precisely ``max_seq + 1 - gen`` with gen = 2 - workingset (active),
2 (anon not in swap cache), 4 - workingset (the rest), clamped to ``min_seq``.
accessed (``folio_mark_accessed``): increments refs as above; never moves the page.
refault (``lru_gen_refault``): the shadow entry holds ``min_seq`` at eviction, ``max(refs - 1, 0)``
and the workingset bit. 6.12: *recent* iff the stored seq equals the current ``min_seq[type]``;
then ``refaulted[type][tier]++``, ``workingset_activate``, and in a fault (anon) or with refs >= 3
the page gets LRU_REFS saturated and PG_workingset, ``workingset_restore``. 6.14: *recent* iff
within 4 generations of ``max_seq``; ``refaulted++``; ``workingset_activate`` in a fault; a stored
workingset bit sets PG_workingset (``workingset_restore``), else the stored refs are restored.
evict (``try_to_shrink_lruvec`` + ``evict_folios``), one engine batch per call:
  1. aging check (``should_run_aging``): with ``m`` the lowest ``min_seq`` of the evictable types,
     nothing is evictable if ``m + 2 > max_seq``; 6.12 also ages with three gens when the youngest
     holds over 1/2 or the oldest-but-one under 1/4 of the pages; 6.14 ages with three gens.
     At DEF_PRIORITY (12) it ages only when nothing is evictable (deviation 10). kswapd's
     priority starts where ``set_initial_priority`` puts it: with ``nr_to_reclaim`` = max(high
     watermark, 32) >= 64, ``fls(reclaimable) - 1 - fls(nr_to_reclaim - 1)`` clamped to [6, 12],
     reclaimable = pages of the evictable types in gens older than ``max_seq - 1`` (the
     "inactive" ones); the engine's lower priorities count down from there. Direct and limit
     reclaim (32 pages) keep 12. Before any of this, kswapd with ``min_ttl_ms`` > 0 runs
     ``lru_gen_age_node``: the lruvec is reclaimable if ``pages >> priority`` is not 0 and
     ``min_seq[file]``'s gen was born over ``min_ttl_ms`` ago; if not, ``a[A_WANT_OOM] = 1``
     (out_of_memory) and nothing is proposed.
  2. aging (``try_to_inc_max_seq``), skipped at swappiness 0 (``should_skip_vma``): one iteration
     of the mm_list (``iterate_mm_list``): the first mm clears (allocating it the first time) the
     Bloom filter of ``max_seq + 1``; an mm added since the last iteration turns ``force_scan`` on
     for the rest of it. Each mm's PTE tables in address order (``walk_pmd_range``): walked only
     if ``force_scan`` or the filter of ``max_seq`` has the table (a filter never allocated lets
     all through). ``walk_pte_range`` over the table clipped to the VMA: each young PTE of this
     lruvec's pages is cleared and (6.12) the page moves to ``max_seq`` with its refs flags
     cleared (``folio_update_gen``); 6.14 two-sighting rule: a page with neither PG_referenced
     nor PG_workingset only gets PG_referenced, others get PG_workingset (PG_referenced cleared)
     and move to ``max_seq``. A table with ``young * 8 >= total`` (one young PTE per 64-byte
     cacheline, ``suitable_to_scan``; total counts every PTE, swapped-out pages too) goes into
     the filter of ``max_seq + 1`` (carried over). Then ``inc_max_seq``: a type with four gens
     has its oldest forced forward (pages to the tail of ``min_seq + 1``, refs flags cleared;
     6.14 counts them in ``protected``; anon at swappiness 0 only renumbers), the new gen's
     birth time is now, and ``max_seq += 1``.
  3. type (``isolate_folios``). 6.12: swappiness 0 -> file; ``min_seq[anon] < min_seq[file]`` ->
     anon; 1 -> file; 200 -> anon; else SP = anon tier 0 (gain swappiness), PV = file tier 0 (gain
     200 - swappiness), file if positive, and ``tier_idx`` from the other type's tier 0 against
     this type's tiers 1..3 with the same gains. The other type is tried if the first scans
     nothing. 6.14: file at swappiness 0, anon at 200, else all tiers of anon against all tiers of
     file. Either way the other type is tried when the first scans nothing.
  4. ``tier_idx`` otherwise (``get_tier_idx``): SP = tier 0 (gain 1; 6.14: 2), PV = tier 1, 2, 3
     (gain 2; 6.14: 3); ``tier_idx`` = the tier before the first non-positive one.
  5. scan (``scan_folios`` + ``sort_folio`` + the rmap check of ``shrink_folio_list``) from the
     tail of ``min_seq[type]``, nothing if the type has two gens: ``tier > tier_idx`` (6.12: or
     refs saturated) -> ``folio_inc_gen`` to the tail of ``min_seq + 1``, refs flags cleared,
     ``protected[type][tier]++`` (6.14: refs+workingset saturated is a lazy promotion, not
     counted, PG_workingset kept); an anon page with its young bit set -> bit cleared, 6.12
     activated (``max_seq``, refs cleared, ``pgactivate``), 6.14 ``lru_gen_set_refs``: first
     sighting PG_referenced and ``max_seq - 1``, else PG_workingset and ``max_seq``
     (``pgactivate``), then look-around (``lru_gen_look_around``): up to 64 PTEs of the page's
     table (clipped to the VMA, centred on the page where they fit); each young one of this
     lruvec is cleared and promoted as by the walker (``folio_update_gen``, no ``pgactivate``;
     an isolated neighbour only gets PG_referenced), and if ``young * 8 >= PTEs looked at``
     (the page included) the table goes into the filter of ``max_seq``, the one the next walk
     reads; any other page is isolated (taken off its list) and proposed; pages
     the engine leaves (request met, swap full) go back to the tail of the oldest gen at the
     next call. At most 4096 pages looked at and 64 isolated.
     ``pgrefill`` counts sorted pages, ``pgscan_anon/file`` isolated ones.
  6. ``try_to_inc_min_seq``: ``min_seq`` skips empty oldest gens (never past ``max_seq - 2``);
     6.12 keeps ``min_seq[anon] <= min_seq[file]`` and file from passing anon; each advance folds
     the counters into the averages (``avg = (avg + cur) / 2``) and zeroes them. Steps 5-6 repeat
     until the request is met, a scan finds nothing, or the evictable type is down to two gens.
removed (``lru_gen_eviction``): shadow token ``(min_seq << 3) | (max(refs - 1, 0) << 1) | ws``
(6.12: ws = refs != 0; refs as the isolation left them: cleared unless PG_referenced);
``evicted[type][tier]++``. A page freed by its owner leaves no shadow and no count.

Aging with a file stream beside cold anon (``pagesim run mix``: max_seq stays at 4 in 6.12, 3 in
6.14): the kernel's behaviour, not a bug of the model. 6.12 adds read() pages to ``min_seq + 1``,
and to ``min_seq`` itself once the window is down to three gens (``lru_gen_add_folio``), so the
file type's oldest gen is refilled as fast as it is evicted and never runs dry: the "out of cold
folios" aging never fires. The other aging triggers of ``should_run_aging`` (three gens and the
youngest over 1/2 or the oldest under 1/4 of the pages) apply only below DEF_PRIORITY: kswapd's
``set_initial_priority`` (6 on the scaled node) makes one aging happen while the 65 % of cold anon
fills the youngest gen (max_seq 3 -> 4); after it the youngest gen is empty and the oldest holds
every file page (~1/3), so no trigger holds again. The anon pages stay in ``max_seq - 1``;
``min_seq[anon]`` cannot pass ``max_seq - 2``, so although the controller asks for anon (file
refaults on every pass), anon's oldest gen is empty and file is scanned instead: pswpout 0. 6.14
adds read() pages at ``max_seq - 3`` clamped to ``min_seq``: file keeps four gens, all its pages
in the oldest, and ``should_run_aging`` (fewer than four gens) never fires. kswapd's
``lru_gen_age_node`` does not age in 6.12 (aging left it in 6.3, "mm: multi-gen LRU: remove aging
fairness safeguard"); it only sets the initial priority and checks ``min_ttl_ms``. The model's
fault was that kswapd ran at priority 12 (the engine's) instead of ``set_initial_priority``'s, so
it never aged at all (max_seq stayed at 3). Test: ``test_mix_ages_once_then_file_refills...``.

File reads under a cgroup limit, no swap (YCSB on LevelDB, the cache_ext paper's 10 GiB cgroup):
the generations freeze after the first reclaim, as in the kernel. Limit reclaim runs at
DEF_PRIORITY (a 10 GiB lruvec has ``total >> 12`` = 640 pages to scan; ``get_nr_to_scan``: "skip
the aging path at the default priority"; ``should_abort_scan``: "don't abort memcg reclaim"), so
it ages only when two gens are left. ``lru_gen_add_folio`` puts read() pages into ``min_seq``
itself once three gens remain, so the oldest gen is refilled at its head as fast as it is
evicted at its tail and never empties: max_seq stays 3 and min_seq[file] 1 for the whole run.
The oldest gen is a FIFO; a page that reaches its tail with five reads (``refs ==
BIT(LRU_REFS_WIDTH)``) goes to ``min_seq + 1`` and stays there, never scanned again. The shadow
test ``lru_gen_test_recent`` (stored seq == min_seq) counts every refault as recent while
min_seq stands, so tier 0's refault rate is high (72 % on YCSB C at 1/1024, tier 1's 91 %) and
``get_tier_idx`` (gain 1:2) protects no tier. Checked against cache_ext's own 6.6.8 tree
(cache-ext/linux-cache-ext ``mm/vmscan.c``: ``sort_folio``, ``get_nr_to_scan``,
``should_abort_scan``). Test: ``test_file_reads_under_a_cgroup_limit_freeze_the_generations``.

Parameters  version = "6.12": "6.12" (the rules of 6.1-6.13 as in 6.12) or "6.14" (Yu Zhao's late-2024
            rework, as in 6.14+; spec §2 unmarked rules). "6.12" is also Linux 6.6.8, the cache_ext
            paper's kernel, in every rule used here: 6.6.8 took "mm/mglru: fix underprotected page
            cache" (upstream 081488051d28, 6.7; the 6.6.y stable queue of 18 Dec 2023, 6.6.8-rc1:
            the ``min_seq + 1`` placement, ``refs == BIT(LRU_REFS_WIDTH)`` protection, refault
            restore at refs >= 3) and "mm/mglru: try to stop at high watermarks".
            min_ttl_ms = 0: thrashing prevention (``/sys/kernel/mm/lru_gen/min_ttl_ms``), any
            integer >= 0; 0 is off.
Complexity  O(1) per access and per fault; per evict call O(pages looked at) (<= 4096) + 64 per
            look-around; aging O(PTEs of the tables walked) + 1024 to clear a filter. 21 int64 per
            page (8 LRU, 4 address, 3 per-region and 6 per-mm rows reuse page rows), one int64
            shadow per evicted page, 2048 globals for the filters.
Deviations  1. One node, one zone (no ``reclaim_idx`` sort); ``hist`` has one slot (no CONFIG_LRU_GEN_STATS).
            2. The address space is modelled, not read: a process's anon pages are laid out in the
               order of their first fault (the trace has no addresses), one VMA per process, no THP
               (no PMD leaves). Mapped file pages do not exist here, so only anon VMAs are walked.
               An mm's row is its tag modulo the number of pages (tags that large would share one).
            3. The walker and look-around move a promoted page to ``max_seq``'s list at once; the
               kernel only rewrites its gen and ``sort_folio`` moves it when eviction reaches it
               (same counts, list order differs).
            4. No ``nr_to_scan = size >> priority`` budget and no yield after aging: the engine asks
               for batches of 32 and lowers the priority only when a batch frees nothing; after an
               aging step the same call evicts (the kernel returns and lets other memcgs go first).
               Limit reclaim stays at DEF_PRIORITY, the path of a full-size cgroup: a literal
               kernel on a scaled one (2,560 pages: ``total >> 12`` = 0) would scan nothing at 12
               and go on at 11, where three gens can trigger aging.
            5. Dirty file pages are proposed (the engine writes them back synchronously); the kernel
               bumps them to ``min_seq + 1`` with PG_reclaim and waits for the flusher.
            6. Survivors of the rmap check never get the kernel's immediate retry; a proposed page
               the engine does not evict (swap full) stays where it was.
            7. ``min_ttl_ms`` is checked per kswapd batch (the kernel: once per ``balance_pgdat``
               priority round), against this lruvec only (each cgroup's instance decides alone,
               where the kernel asks whether any memcg is reclaimable), in ns (not jiffies); the
               engine acts on ``a[A_WANT_OOM]``. ``memory.min`` protection does not exist here.
               The lruvec is as old as the run: the four initial gens are born at the first event's
               time (0), as for a memcg created with the workload (the root lruvec of a real node
               was born at boot), so a node that fills up within ``min_ttl_ms`` of the start asks
               for the OOM killer at kswapd's first batch.
            8. 6.14's walker counts as an rmap sighting; VM_EXEC file pages do not exist here.
            9. 6.14 tries the other type whenever the first scans nothing, as in the merged
               "rework type selection" patch (spec §2.6 says only at priority 0, from a later tree).
            10. The aging check runs at every priority when nothing is evictable: a call that
               proposes nothing would hand the batch to the engine's fallback policy, where the
               kernel would retry at a lower priority.
            11. The mm_list: every mm counts as having run since the last walk (the kernel skips an
               mm whose task was not scheduled, ``lru_gen_use_mm``; a task that did not run has no
               young PTE, so only the walk's cost differs); no skip of mms under 64 pages (6.12's
               ``should_skip_mm`` has one; the recent tree read has none); one walker, so no stale
               ``max_seq`` and no ``mm_state->seq`` races; the non-leaf PMD accessed bit (enabled
               0x0004) is not modelled (a table it would skip has no young PTE unless a walk cleared
               the PMD's bit while leaving PTEs young, so only the walk's cost differs).
            12. The rmap check runs as each page is isolated, not on the whole batch after isolation:
               a neighbour look-around finds young before eviction reaches it is promoted, where the
               kernel, having isolated it already, only sets PG_referenced (its rmap check then
               finds no young PTE). Look-around always takes the kswapd path (``folio_update_gen``
               with an mm_walk); without one (direct reclaim) the kernel may ``folio_activate``
               instead (counted in ``pgactivate``).
Peers       none (no other simulator models MGLRU); hand-worked tests in tests/unit/test_mglru.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.state import (
    ANON,
)
from pagesim.policies.base import Policy
from pagesim.policies.mglru.hooks import _accessed, _added, _evict, _init, _removed
from pagesim.policies.mglru.layout import (
    ANON_T,
    FILE_T,
    GI,
    MAX_NR_GENS,
    MAX_NR_TIERS,
    PM,
    PMD_PAGES,
    STATE,
    VERSIONS,
)
from pagesim.policies.mglru.tiers import _refs, _tier
from pagesim.policies.params import defaults


class MGLRU(Policy):
    """Multi-Gen LRU as in Linux 6.12 (or 6.14 with ``version="6.14"``); see the module docstring."""

    name = "mglru"
    description = "Multi-Gen LRU (Linux lru_gen): generations, tiers, PID-controlled type/tier choice"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    proposes_batches = True
    uses_fallback = False
    params = defaults("mglru")  # policies/params.toml
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Write the version; reject what is not modelled."""
        ver = str(self.values["version"])
        if ver not in VERSIONS:
            raise ValueError(f"mglru: version must be one of {', '.join(VERSIONS)}, got {ver!r}")
        ttl = self.values["min_ttl_ms"]
        if isinstance(ttl, bool) or not isinstance(ttl, (int, np.integer)) or ttl < 0:
            raise ValueError(f"mglru: min_ttl_ms must be an integer >= 0 (milliseconds), got {ttl!r}")
        s.gi[GI.ver] = VERSIONS[ver]
        s.gi[GI.min_ttl] = int(ttl)

    # ---- introspection for tests and reports
    @staticmethod
    def seqs(s: Any) -> tuple[int, int, int]:
        """``(max_seq, min_seq[anon], min_seq[file])``."""
        return int(s.gi[GI.max_seq]), int(s.gi[GI.min_seq + ANON_T]), int(s.gi[GI.min_seq + FILE_T])

    @staticmethod
    def seq_of(s: Any, page: int) -> int:
        """The sequence number of the generation holding ``page`` (-1 if on none)."""
        g = int(s.pm[page, PM.gen])
        if g == 0:
            return -1
        max_seq = int(s.gi[GI.max_seq])
        return max_seq - ((max_seq - (g - 1)) % MAX_NR_GENS)

    @staticmethod
    def tier_of(s: Any, page: int) -> int:
        """The page's tier now."""
        return int(_tier.py_func(s, _refs.py_func(s, page), s.pm[page, PM.ws]))

    @staticmethod
    def counters(s: Any, name: str) -> np.ndarray:
        """Controller counters ``refaulted``, ``evicted``, ``protected``... as (type, tier)."""
        base = {
            "refaulted": GI.refaulted,
            "evicted": GI.evicted,
            "protected": GI.protected,
            "avg_refaulted": GI.avg_refaulted,
            "avg_total": GI.avg_total,
        }[name]
        return np.asarray(s.gi[base : base + 2 * MAX_NR_TIERS]).reshape(2, MAX_NR_TIERS).copy()

    def readouts(self, s: Any) -> dict[str, float]:
        """max_seq, min_seq per type and pages per type (sampled into kernel-mode time series)."""
        sizes = [int(s.gi[GI.size + g * 2 + t]) for g in range(4) for t in range(2)]
        return {
            "max_seq": float(s.gi[GI.max_seq]),
            "min_seq_anon": float(s.gi[GI.min_seq + ANON_T]),
            "min_seq_file": float(s.gi[GI.min_seq + FILE_T]),
            "gen_pages_anon": float(sum(sizes[0::2])),
            "gen_pages_file": float(sum(sizes[1::2])),
        }

    def check_invariants(self, s: Any) -> None:
        """Lists match their sizes and flags; every resident page of the lruvec is on one list."""
        max_seq, *mins = self.seqs(s)
        cg = int(s.gi[GI.cgroup])
        seen: set[int] = set()
        for typ in (ANON_T, FILE_T):
            assert 2 <= max_seq - mins[typ] + 1 <= MAX_NR_GENS, f"type {typ}: gens {mins[typ]}..{max_seq}"
            live = {seq % MAX_NR_GENS for seq in range(mins[typ], max_seq + 1)}
            for gen in range(MAX_NR_GENS):
                li = gen * 2 + typ
                p = int(s.gi[GI.head + li])
                prev = -1
                count = 0
                while p >= 0:
                    assert p not in seen, f"page {p} on two lists"
                    seen.add(p)
                    assert int(s.pm[p, PM.prv]) == prev, f"page {p}: broken back link"
                    assert int(s.pm[p, PM.gen]) == gen + 1 and int(s.pm[p, PM.typ]) == typ, (
                        f"page {p}: gen/type"
                    )
                    assert s.resident[p] != 0, f"page {p} on a list but not resident"
                    assert bool(s.resident[p] & ANON) == (typ == ANON_T), f"page {p} on the wrong type"
                    prev = p
                    count += 1
                    p = int(s.pm[p, PM.nxt])
                assert int(s.gi[GI.tail + li]) == prev, f"list {li}: tail"
                assert count == int(s.gi[GI.size + li]), f"list {li}: size {s.gi[GI.size + li]} != {count}"
                assert count == 0 or gen in live, f"type {typ}: pages in gen {gen} outside the window"
        iso = {int(s.gi[GI.iso + i]) for i in range(int(s.gi[GI.niso]))}
        for p in iso:
            if s.pm[p, PM.iso]:
                assert p not in seen and s.resident[p] != 0, f"isolated page {p} on a list"
                seen.add(p)
        assert int((s.pm[:, PM.iso] != 0).sum()) <= len(iso), "an isolated page nobody will put back"
        mine = {int(p) for p in np.flatnonzero((s.resident != 0) & (s.cgroup_of == cg))}
        assert seen == mine, f"resident pages off the lists: {sorted(mine - seen)[:5]}"
        for p in mine:  # the address space: every anon page has its place in its process
            if s.resident[p] & ANON:
                r = int(s.pm[p, PM.reg]) - 1
                assert 0 <= r < int(s.gi[GI.nreg]), f"anon page {p} has no virtual page"
                v = int(s.pm[p, PM.vpn])
                start = int(s.pm[int(s.pm[r, PM.r_head]), PM.vpn])
                assert start % PMD_PAGES == 0 and start <= v < start + PMD_PAGES, f"page {p}: region"
                for link, back, dv in ((PM.vnx, PM.vpv, 1), (PM.vpv, PM.vnx, -1)):
                    q = int(s.pm[p, link])
                    if q >= 0:
                        assert int(s.pm[q, back]) == p and int(s.pm[q, PM.vpn]) == v + dv, f"page {p}: chain"
