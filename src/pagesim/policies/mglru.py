"""Multi-Gen LRU (MGLRU, ``lru_gen``): Linux's generation-based page reclaim, one instance per lruvec.

Source      Yu Zhao, "Multi-Gen LRU", Linux 6.1+ (``mm/vmscan.c``, ``mm/workingset.c``, ``mm/swap.c``,
            ``include/linux/mm_inline.h``; ``Documentation/mm/multigen_lru.rst``); rules as summarised
            in shared/reference/kernel_policies_spec.md §2 and checked against the 6.7-era
            ``mm/vmscan.c`` and Yu Zhao's "mm/mglru: performance optimizations" series (Dec 2024,
            merged for 6.14), which lists what 6.14 changed. The walk, the Bloom filters,
            look-around and ``lru_gen_age_node`` checked against a recent (7.x) ``mm/vmscan.c`` and
            the July 2024 fixes "mm/mglru: fix ineffective protection calculation" and "fix
            overshooting shrinker memory" (in 6.11, so in 6.12: ``set_initial_priority``, the
            ``lru_gen_age_node`` below).
Structures  Per lruvec: ``max_seq``, ``min_seq[anon]``, ``min_seq[file]``; generation ``seq`` lives in
            list ``(seq % 4, type)``, type 0 anon, 1 file (``lrugen->folios[gen][type]``). Eight lists
            exceed cache_ext's five per cgroup, so they are the policy's own doubly linked lists in
            ``s.pm`` (columns NXT, PRV) with heads, tails and sizes in ``s.gi``; head = youngest end
            (``list_add``), eviction takes the tail. Per page: GEN (gen + 1, 0 off-list), TYP, REFD
            (PG_referenced), WS (PG_workingset), LREFS (the 2-bit LRU_REFS counter). Controller
            counters per (type, tier): ``refaulted``, ``evicted``, ``protected`` and their averages
            ``avg_refaulted``, ``avg_total`` (``hist`` has one slot). Birth time of each gen
            (``lrugen->timestamps``, ns of model time, ``a[A_NOW_NS]``).
            Address space (anon pages): each process (mm, the task tag ``a[A_TAG]`` of the fault
            that first brings a page in) lays its pages out in the order it first faults them, one
            VMA from virtual page 0; a page keeps its virtual page for life (swapped out and back,
            or freed and faulted again). PMD region k of a process = its virtual pages
            512k..512k+511 (one PTE table). Per page REG (region + 1), VPN, VNX/VPV (the pages at
            VPN +- 1); per region (row = region id) its next region, first page and mm; per mm
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

from pagesim.core.jit import kernel
from pagesim.core.state import (
    A_CGROUP,
    A_NOW_NS,
    A_PAGE,
    A_PRIORITY,
    A_REASON,
    A_RECLAIMER,
    A_REFAULT,
    A_REQUEST,
    A_SCANNED,
    A_SWAP_FREE,
    A_TAG,
    A_WANT_OOM,
    A_WMARK_HIGH,
    ANON,
    GI_SWAPPINESS,
    GI_USER,
    MAX_CANDIDATES,
    REASON_FREED,
    RECLAIM_KSWAPD,
    STAT_PGACTIVATE,
    STAT_PGREFILL,
    STAT_PGSCAN_ANON,
    STAT_WS_ACTIVATE_ANON,
    STAT_WS_RESTORE_ANON,
    SWAPCACHE,
    WORK_PTES,
    WORK_RMAP,
    YOUNG,
)
from pagesim.policies.base import Policy

# ---- constants (include/linux/mmzone.h, mm/vmscan.c)
MIN_NR_GENS = 2
MAX_NR_GENS = 4
MAX_NR_TIERS = 4
MIN_LRU_BATCH = 64
MAX_LRU_BATCH = 4096
DEF_PRIORITY = 12
MAX_SWAPPINESS = 200
ANON_T = 0  #: LRU_GEN_ANON
FILE_T = 1  #: LRU_GEN_FILE

# ---- per-page columns of s.pm
NXT = 0  #: next page towards the tail (older), -1 none
PRV = 1  #: previous page towards the head (younger), -1 none
GEN = 2  #: seq % 4 + 1 of the list holding the page; 0 when on no list
TYP = 3  #: 0 anon, 1 file
REFD = 4  #: PG_referenced
WS = 5  #: PG_workingset
LREFS = 6  #: LRU_REFS, 0..3
ISO = 7  #: 1 while isolated: proposed to the engine, off every list
# the address space (anon pages only): a page's virtual page number in its process, kept for life
REG = 8  #: PMD region holding the page, + 1 (0: no address yet)
VPN = 9  #: virtual page number within the process (order of first fault)
VNX = 10  #: page at VPN + 1 in the same process, -1 none
VPV = 11  #: page at VPN - 1 in the same process, -1 none
# row r of these columns describes PMD region r (ids 0.. in order of creation; never more than pages)
R_NEXT = 12  #: next region of the same process, -1 none
R_HEAD = 13  #: the page at the region's first virtual page
R_MM = 14  #: the process (mm row) owning the region
# row m of these columns describes the process whose task tag is m (mod the number of rows)
MM_NEXT = 15  #: next mm on the mm_list (order of creation), -1 none
MM_FIRST = 16  #: first region, -1 none
MM_LAST = 17  #: last region, -1 none
MM_NV = 18  #: virtual pages handed out (the VMA's end)
MM_LASTP = 19  #: the page at VPN MM_NV - 1
MM_FLAGS = 20  #: MMF_LISTED | MMF_NEW
N_COLS = 21

MMF_LISTED = 1  #: on the mm_list
MMF_NEW = 2  #: added since the last iteration: the next walk force-scans it
PMD_PAGES = 512  #: PTEs per PTE table (x86-64, 4 KiB pages)
BLOOM_FILTER_SHIFT = 15
BLOOM_WORDS = (1 << BLOOM_FILTER_SHIFT) // 32  #: 32 bits per int64 slot (no sign bit trouble)
#: suitable_to_scan: young * n >= total with n = clamp(cache_line_size / sizeof(pte_t), 2, 8) = 8
YOUNG_PER_CACHELINE = 8
NS_PER_MS = 1_000_000

# ---- globals in s.gi
G_MAX_SEQ = GI_USER
G_MIN_SEQ = GI_USER + 1  #: + type
G_VER = GI_USER + 3  #: 0 = 6.12, 1 = 6.14
G_CGROUP = GI_USER + 4
G_MIN_TTL = GI_USER + 5  #: min_ttl_ms
G_HEAD = GI_USER + 8  #: + gen * 2 + type
G_TAIL = G_HEAD + 8
G_SIZE = G_TAIL + 8
G_REFAULTED = G_SIZE + 8  #: + type * 4 + tier
G_EVICTED = G_REFAULTED + 8
G_PROTECTED = G_EVICTED + 8
G_AVG_REFAULTED = G_PROTECTED + 8
G_AVG_TOTAL = G_AVG_REFAULTED + 8
G_NISO = G_AVG_TOTAL + 8  #: pages isolated by the last evict call
G_ISO = G_NISO + 1  #: ... and their ids (MAX_CANDIDATES slots)
G_TS = G_ISO + MAX_CANDIDATES  #: lrugen->timestamps[gen], ns (4 slots)
G_MM_HEAD = G_TS + 4  #: the mm_list (mm rows), -1 empty
G_MM_TAIL = G_MM_HEAD + 1
G_NREG = G_MM_TAIL + 1  #: PMD regions created
G_FILTER_ON = G_NREG + 1  #: bit g: Bloom filter g allocated (a missing filter lets everything through)
G_WALKED = G_FILTER_ON + 1  #: PTE tables the walker visited (cumulative; for tests and readouts)
G_SKIPPED = G_WALKED + 1  #: PTE tables the Bloom filter made it skip (cumulative)
G_LOOKAROUND = G_SKIPPED + 1  #: pages promoted by look-around (cumulative)
G_LOOKED = G_LOOKAROUND + 1  #: pages the current evict call has looked at (its A_SCANNED)
G_BLOOM = G_LOOKED + 1  #: lru_gen_mm_state->filters[2], BLOOM_WORDS slots each
G_END = G_BLOOM + 2 * BLOOM_WORDS

VERSIONS = {"6.12": 0, "6.14": 1}


# ---------------------------------------------------------------------------- generation lists


@kernel
def _link(s, p, seq, typ, at_tail):  # type: ignore[no-untyped-def]
    """Put page ``p`` on list (seq % 4, typ): at the head (youngest end) or the tail."""
    gen = seq % MAX_NR_GENS
    li = gen * 2 + typ
    h = s.gi[G_HEAD + li]
    t = s.gi[G_TAIL + li]
    if h < 0:
        s.pm[p, NXT] = -1
        s.pm[p, PRV] = -1
        s.gi[G_HEAD + li] = p
        s.gi[G_TAIL + li] = p
    elif at_tail:
        s.pm[p, PRV] = t
        s.pm[p, NXT] = -1
        s.pm[t, NXT] = p
        s.gi[G_TAIL + li] = p
    else:
        s.pm[p, NXT] = h
        s.pm[p, PRV] = -1
        s.pm[h, PRV] = p
        s.gi[G_HEAD + li] = p
    s.pm[p, GEN] = gen + 1
    s.pm[p, TYP] = typ
    s.gi[G_SIZE + li] += 1


@kernel
def _unlink(s, p):  # type: ignore[no-untyped-def]
    """Take page ``p`` off its generation list (no-op if on none)."""
    g = s.pm[p, GEN]
    if g == 0:
        return
    li = (g - 1) * 2 + s.pm[p, TYP]
    n = s.pm[p, NXT]
    v = s.pm[p, PRV]
    if v >= 0:
        s.pm[v, NXT] = n
    else:
        s.gi[G_HEAD + li] = n
    if n >= 0:
        s.pm[n, PRV] = v
    else:
        s.gi[G_TAIL + li] = v
    s.pm[p, NXT] = -1
    s.pm[p, PRV] = -1
    s.pm[p, GEN] = 0
    s.gi[G_SIZE + li] -= 1


@kernel
def _move(s, p, seq, at_tail):  # type: ignore[no-untyped-def]
    typ = s.pm[p, TYP]
    _unlink(s, p)
    _link(s, p, seq, typ, at_tail)


@kernel
def _size(s, seq, typ):  # type: ignore[no-untyped-def]
    return s.gi[G_SIZE + (seq % MAX_NR_GENS) * 2 + typ]


@kernel
def _nr_gens(s, typ):  # type: ignore[no-untyped-def]
    return s.gi[G_MAX_SEQ] - s.gi[G_MIN_SEQ + typ] + 1


# ---------------------------------------------------------------------------- refs and tiers


@kernel
def _ob2(n):  # type: ignore[no-untyped-def]
    """order_base_2: ceil(log2(n)), 0 for n <= 1."""
    r = 0
    while (1 << r) < n:
        r += 1
    return r


@kernel
def _refs(s, p):  # type: ignore[no-untyped-def]
    """folio_lru_refs: 6.12 LRU_REFS + PG_workingset; 6.14 PG_referenced ? LRU_REFS + 1 : 0."""
    if s.gi[G_VER] == 0:
        return s.pm[p, LREFS] + s.pm[p, WS]
    return s.pm[p, LREFS] + 1 if s.pm[p, REFD] else 0


@kernel
def _tier(s, refs, ws):  # type: ignore[no-untyped-def]
    if s.gi[G_VER] == 0:
        return _ob2(refs + 1)
    return MAX_NR_TIERS - 1 if ws else _ob2(refs)


@kernel
def _clear_refs(s, p, keep_ws):  # type: ignore[no-untyped-def]
    s.pm[p, REFD] = 0
    s.pm[p, LREFS] = 0
    if not keep_ws:
        s.pm[p, WS] = 0


# ---------------------------------------------------------------------------- PID controller


@kernel
def _pos(s, typ, tier):  # type: ignore[no-untyped-def]
    """read_ctrl_pos: (refaulted, total) of one tier, or of all tiers if ``tier`` is 4."""
    lo = 0 if tier >= MAX_NR_TIERS else tier
    hi = MAX_NR_TIERS - 1 if tier >= MAX_NR_TIERS else tier
    ref = 0
    tot = 0
    for i in range(lo, hi + 1):
        k = typ * MAX_NR_TIERS + i
        ref += s.gi[G_AVG_REFAULTED + k] + s.gi[G_REFAULTED + k]
        tot += s.gi[G_AVG_TOTAL + k] + s.gi[G_EVICTED + k] + s.gi[G_PROTECTED + k]
    return ref, tot


@kernel
def _positive(s, sp_type, sp_tier, sp_gain, pv_type, pv_tier, pv_gain):  # type: ignore[no-untyped-def]
    """positive_ctrl_err: PV refaults little, or no more often (weighted) than SP."""
    sp_ref, sp_tot = _pos(s, sp_type, sp_tier)
    pv_ref, pv_tot = _pos(s, pv_type, pv_tier)
    return (
        pv_ref < MIN_LRU_BATCH
        or pv_ref * (sp_tot + MIN_LRU_BATCH) * sp_gain <= (sp_ref + 1) * pv_tot * pv_gain
    )


@kernel
def _tier_idx(s, typ):  # type: ignore[no-untyped-def]
    """get_tier_idx: protect the tiers refaulting clearly more than tier 0."""
    g_sp = 1 if s.gi[G_VER] == 0 else 2
    g_pv = 2 if s.gi[G_VER] == 0 else 3
    tier = 1
    while tier < MAX_NR_TIERS:
        if not _positive(s, typ, 0, g_sp, typ, tier, g_pv):
            break
        tier += 1
    return tier - 1


@kernel
def _reset_ctrl(s, typ):  # type: ignore[no-untyped-def]
    """reset_ctrl_pos(carryover): fold the counters into the averages, then zero them."""
    for tier in range(MAX_NR_TIERS):
        k = typ * MAX_NR_TIERS + tier
        s.gi[G_AVG_REFAULTED + k] = (s.gi[G_AVG_REFAULTED + k] + s.gi[G_REFAULTED + k]) // 2
        total = s.gi[G_EVICTED + k] + s.gi[G_PROTECTED + k]
        s.gi[G_AVG_TOTAL + k] = (s.gi[G_AVG_TOTAL + k] + total) // 2
        s.gi[G_REFAULTED + k] = 0
        s.gi[G_EVICTED + k] = 0
        s.gi[G_PROTECTED + k] = 0


# ---------------------------------------------------------------------------- generations


@kernel
def _try_inc_min_seq(s, swp):  # type: ignore[no-untyped-def]
    """try_to_inc_min_seq: skip empty oldest gens of the evictable types."""
    max_seq = s.gi[G_MAX_SEQ]
    new_a = s.gi[G_MIN_SEQ + ANON_T]
    new_f = s.gi[G_MIN_SEQ + FILE_T]
    first = FILE_T if swp == 0 else ANON_T
    for typ in range(first, 2):
        seq = s.gi[G_MIN_SEQ + typ]
        while seq + MIN_NR_GENS <= max_seq and _size(s, seq, typ) == 0:
            seq += 1
        if typ == ANON_T:
            new_a = seq
        else:
            new_f = seq
    if swp != 0 and s.gi[G_VER] == 0:
        new_a = min(new_a, new_f)
        new_f = max(new_a, s.gi[G_MIN_SEQ + FILE_T])
    changed = False
    for typ in range(first, 2):
        new = new_a if typ == ANON_T else new_f
        if new != s.gi[G_MIN_SEQ + typ]:
            _reset_ctrl(s, typ)
            s.gi[G_MIN_SEQ + typ] = new
            changed = True
    return changed


@kernel
def _inc_gen(s, p):  # type: ignore[no-untyped-def]
    """folio_inc_gen: to the tail of min_seq + 1, refs flags cleared (6.14 keeps PG_workingset)."""
    typ = s.pm[p, TYP]
    _clear_refs(s, p, s.gi[G_VER] == 1)
    _move(s, p, s.gi[G_MIN_SEQ + typ] + 1, True)


@kernel
def _inc_max_seq(s, swp, now):  # type: ignore[no-untyped-def]
    """inc_max_seq: force the oldest gen of a type with four forward, then max_seq += 1."""
    max_seq = s.gi[G_MAX_SEQ]
    for typ in range(1, -1, -1):
        min_seq = s.gi[G_MIN_SEQ + typ]
        if max_seq - min_seq + 1 != MAX_NR_GENS:
            continue
        if not (typ == ANON_T and swp == 0):
            li = (min_seq % MAX_NR_GENS) * 2 + typ
            p = s.gi[G_HEAD + li]
            while p >= 0:  # head to tail, each to the tail of min_seq + 1: order kept
                nxt = s.pm[p, NXT]
                if s.gi[G_VER] == 1:
                    refs = _refs(s, p)
                    ws = s.pm[p, WS]
                    if refs + ws != MAX_NR_TIERS + 1:
                        s.gi[G_PROTECTED + typ * MAX_NR_TIERS + _tier(s, refs, ws)] += 1
                _inc_gen(s, p)
                p = nxt
        # at swappiness 0 anon pages stay in their list, which now holds the new max_seq
        _reset_ctrl(s, typ)
        s.gi[G_MIN_SEQ + typ] = min_seq + 1
    s.gi[G_TS + (max_seq + 1) % MAX_NR_GENS] = now  # lrugen->timestamps[next] = jiffies
    s.gi[G_MAX_SEQ] = max_seq + 1


# ---------------------------------------------------------------------------- address space


@kernel
def _map_anon(s, p, tag):  # type: ignore[no-untyped-def]
    """Give anon page ``p`` the next virtual page of process ``tag`` (once: it keeps it for life).

    A process (mm) lays its anonymous memory out in the order it first faults pages in, one VMA
    growing from virtual page 0; PMD region k of the process holds its virtual pages
    512k..512k+511. A process joins the mm_list (lru_gen_add_mm) with its first page.
    """
    m = tag % s.pm.shape[0]
    if m < 0:
        m += s.pm.shape[0]
    if (s.pm[m, MM_FLAGS] & MMF_LISTED) == 0:
        s.pm[m, MM_NEXT] = -1
        s.pm[m, MM_FIRST] = -1
        s.pm[m, MM_LAST] = -1
        s.pm[m, MM_NV] = 0
        s.pm[m, MM_LASTP] = -1
        s.pm[m, MM_FLAGS] = MMF_LISTED | MMF_NEW
        t = s.gi[G_MM_TAIL]
        if t < 0:
            s.gi[G_MM_HEAD] = m
        else:
            s.pm[t, MM_NEXT] = m
        s.gi[G_MM_TAIL] = m
    v = s.pm[m, MM_NV]
    if v % PMD_PAGES == 0:  # a new PTE table
        r = s.gi[G_NREG]
        s.gi[G_NREG] = r + 1
        s.pm[r, R_NEXT] = -1
        s.pm[r, R_HEAD] = p
        s.pm[r, R_MM] = m
        last = s.pm[m, MM_LAST]
        if last < 0:
            s.pm[m, MM_FIRST] = r
        else:
            s.pm[last, R_NEXT] = r
        s.pm[m, MM_LAST] = r
    lastp = s.pm[m, MM_LASTP]
    s.pm[p, REG] = s.pm[m, MM_LAST] + 1
    s.pm[p, VPN] = v
    s.pm[p, VPV] = lastp
    s.pm[p, VNX] = -1
    if lastp >= 0:
        s.pm[lastp, VNX] = p
    s.pm[m, MM_LASTP] = p
    s.pm[m, MM_NV] = v + 1


# ---------------------------------------------------------------------------- Bloom filters


@kernel
def _bloom_key(r):  # type: ignore[no-untyped-def]
    """get_item_key: two 15-bit keys from one 30-bit hash of the PTE table (region ``r``).

    The kernel hashes the PMD entry's address (hash_ptr); a region id stands for it. The hash is
    a 32-bit multiply-xorshift whose products keep their low 32 bits whether they wrap (compiled)
    or not (plain Python).
    """
    h = ((r + 1) * 2654435761) & 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 2246822519) & 0xFFFFFFFF
    h ^= h >> 13
    return h & 0x7FFF, (h >> BLOOM_FILTER_SHIFT) & 0x7FFF


@kernel
def _bloom_bit(s, g, key):  # type: ignore[no-untyped-def]
    return (s.gi[G_BLOOM + g * BLOOM_WORDS + (key >> 5)] >> (key & 31)) & 1


@kernel
def _test_bloom(s, seq, r):  # type: ignore[no-untyped-def]
    """test_bloom_filter: true if filter seq % 2 is missing or holds both keys of ``r``."""
    g = seq % 2
    if (s.gi[G_FILTER_ON] >> g) & 1 == 0:
        return True
    k0, k1 = _bloom_key(r)
    return _bloom_bit(s, g, k0) != 0 and _bloom_bit(s, g, k1) != 0


@kernel
def _update_bloom(s, seq, r):  # type: ignore[no-untyped-def]
    """update_bloom_filter: set both keys of ``r`` in filter seq % 2 (if allocated)."""
    g = seq % 2
    if (s.gi[G_FILTER_ON] >> g) & 1 == 0:
        return
    k0, k1 = _bloom_key(r)
    base = G_BLOOM + g * BLOOM_WORDS
    s.gi[base + (k0 >> 5)] |= 1 << (k0 & 31)
    s.gi[base + (k1 >> 5)] |= 1 << (k1 & 31)


@kernel
def _reset_bloom(s, seq):  # type: ignore[no-untyped-def]
    """reset_bloom_filter: clear (allocating it the first time) filter seq % 2."""
    g = seq % 2
    base = G_BLOOM + g * BLOOM_WORDS
    for i in range(BLOOM_WORDS):
        s.gi[base + i] = 0
    s.gi[G_FILTER_ON] |= 1 << g


# ---------------------------------------------------------------------------- page-table walk


@kernel
def _promote_young(s, p, max_seq):  # type: ignore[no-untyped-def]
    """folio_update_gen for a young PTE found by the walker or look-around (bit already cleared).

    6.12: refs flags cleared, gen = max_seq (an isolated page only gets PG_referenced). 6.14
    two-sighting rule: without PG_referenced and PG_workingset only PG_referenced (LRU_REFS
    cleared); else PG_workingset, refs cleared, gen = max_seq (an isolated page keeps its flags).
    Returns 1 if the page moved to another generation.
    """
    iso = s.pm[p, GEN] == 0
    if s.gi[G_VER] == 0:
        if iso:
            s.pm[p, REFD] = 1
            return 0
        _clear_refs(s, p, False)
    else:
        if s.pm[p, REFD] == 0 and s.pm[p, WS] == 0:
            s.pm[p, REFD] = 1
            s.pm[p, LREFS] = 0
            return 0
        if iso:
            return 0
        s.pm[p, REFD] = 0
        s.pm[p, LREFS] = 0
        s.pm[p, WS] = 1
    if s.pm[p, GEN] - 1 == max_seq % MAX_NR_GENS:
        return 0
    _move(s, p, max_seq, False)
    return 1


@kernel
def _young_mine(s, p, cg):  # type: ignore[no-untyped-def]
    """get_pte_pfn + get_pfn_folio + ptep_clear_young: a young PTE of this lruvec's page (cleared)."""
    v = s.resident[p]
    if (v & YOUNG) == 0 or s.cgroup_of[p] != cg:
        return False
    if s.pm[p, GEN] == 0 and s.pm[p, ISO] == 0:
        return False
    s.resident[p] = v ^ YOUNG
    return True


@kernel
def _walk_pte_range(s, r, max_seq, cg):  # type: ignore[no-untyped-def]
    """walk_pte_range over region ``r``: clear and promote young PTEs; True if dense enough."""
    m = s.pm[r, R_MM]
    p = s.pm[r, R_HEAD]
    start = s.pm[p, VPN]
    end = min(start + PMD_PAGES, s.pm[m, MM_NV])  # clipped to the VMA
    total = end - start
    s.work[WORK_PTES] += total  # every PTE of the table is read, present or not
    young = 0
    for _ in range(total):
        if _young_mine(s, p, cg):
            young += 1
            _promote_young(s, p, max_seq)
        p = s.pm[p, VNX]
    return young * YOUNG_PER_CACHELINE >= total


@kernel
def _walk(s, swp):  # type: ignore[no-untyped-def]
    """try_to_inc_max_seq's walk: iterate the mm_list once, walking each mm's PTE tables.

    iterate_mm_list: the first mm of the iteration resets the Bloom filter of max_seq + 1; an mm
    added since the last iteration turns force_scan on for the rest of it. walk_pmd_range: a PTE
    table is walked only if force_scan or the filter of max_seq has it; a table whose young PTEs
    are at least one per cacheline (8 PTEs) goes into the filter of max_seq + 1.
    should_skip_vma: anonymous VMAs are skipped at swappiness 0.
    """
    if swp == 0:
        return
    seq = s.gi[G_MAX_SEQ]
    cg = s.gi[G_CGROUP]
    m = s.gi[G_MM_HEAD]
    if m >= 0:
        _reset_bloom(s, seq + 1)
    force = False
    while m >= 0:
        if s.pm[m, MM_FLAGS] & MMF_NEW:
            force = True
            s.pm[m, MM_FLAGS] ^= MMF_NEW
        r = s.pm[m, MM_FIRST]
        while r >= 0:
            if not force and not _test_bloom(s, seq, r):
                s.gi[G_SKIPPED] += 1
            else:
                s.gi[G_WALKED] += 1
                if _walk_pte_range(s, r, seq, cg):
                    _update_bloom(s, seq + 1, r)  # carry over to the next generation
            r = s.pm[r, R_NEXT]
        m = s.pm[m, MM_NEXT]


@kernel
def _look_around(s, p, max_seq, cg):  # type: ignore[no-untyped-def]
    """lru_gen_look_around: eviction found ``p`` young; scan up to 64 PTEs around it.

    The window is the PTE table clipped to the VMA, cut to MIN_LRU_BATCH pages centred on ``p``
    where it can be. Young neighbours have their bit cleared and are promoted as by the walker
    (folio_update_gen); if the young PTEs (``p`` included) are one per cacheline, the table goes
    into the Bloom filter of max_seq, the one the next walk reads.
    """
    r = s.pm[p, REG] - 1
    if r < 0:
        return
    m = s.pm[r, R_MM]
    start = s.pm[s.pm[r, R_HEAD], VPN]
    end = min(start + PMD_PAGES, s.pm[m, MM_NV])
    addr = s.pm[p, VPN]
    if end - start == 1:
        return
    if end - start > MIN_LRU_BATCH:
        if addr - start < MIN_LRU_BATCH // 2:
            end = start + MIN_LRU_BATCH
        elif end - addr < MIN_LRU_BATCH // 2:
            start = end - MIN_LRU_BATCH
        else:
            start = addr - MIN_LRU_BATCH // 2
            end = addr + MIN_LRU_BATCH // 2
    q = p
    for _ in range(addr - start):
        q = s.pm[q, VPV]
    s.work[WORK_PTES] += end - start
    young = 1
    for _ in range(end - start):
        if q != p and _young_mine(s, q, cg):
            young += 1
            s.gi[G_LOOKAROUND] += _promote_young(s, q, max_seq)
        q = s.pm[q, VNX]
    if young * YOUNG_PER_CACHELINE >= end - start:
        _update_bloom(s, max_seq, r)


@kernel
def _should_age(s, swp, prio):  # type: ignore[no-untyped-def]
    """should_run_aging; returns (age now, nothing evictable)."""
    max_seq = s.gi[G_MAX_SEQ]
    first = FILE_T if swp == 0 else ANON_T
    m = s.gi[G_MIN_SEQ + first]
    if first == ANON_T:
        m = min(m, s.gi[G_MIN_SEQ + FILE_T])
    if m + MIN_NR_GENS > max_seq:
        return True, True
    if m + MIN_NR_GENS < max_seq or prio == DEF_PRIORITY:
        return False, False
    if s.gi[G_VER] == 1:
        return True, False
    young = 0
    old = 0
    total = 0
    for typ in range(first, 2):
        for seq in range(s.gi[G_MIN_SEQ + typ], max_seq + 1):
            n = _size(s, seq, typ)
            total += n
            if seq == max_seq:
                young += n
            elif seq + MIN_NR_GENS == max_seq:
                old += n
    return young * MIN_NR_GENS > total or old * (MIN_NR_GENS + 2) < total, False


# ---------------------------------------------------------------------------- eviction


@kernel
def _scan(s, typ, tier_idx, n, got):  # type: ignore[no-untyped-def]
    """scan_folios + sort_folio + the rmap check: propose from the tail of min_seq[typ].

    Returns (pages looked at, or 0 if none was isolated; candidates written so far).
    """
    if _nr_gens(s, typ) == MIN_NR_GENS:
        return 0, got
    ver = s.gi[G_VER]
    min_seq = s.gi[G_MIN_SEQ + typ]
    max_seq = s.gi[G_MAX_SEQ]
    cg = s.gi[G_CGROUP]
    li = (min_seq % MAX_NR_GENS) * 2 + typ
    p = s.gi[G_TAIL + li]
    remaining = MAX_LRU_BATCH
    scanned = 0
    isolated = 0
    sorted_ = 0
    while p >= 0 and got < n:
        scanned += 1
        refs = _refs(s, p)
        ws = s.pm[p, WS]
        tier = _tier(s, refs, ws)
        if ver == 0:
            protect = tier > tier_idx or refs == MAX_NR_TIERS
            lazy = False
        else:
            lazy = refs + ws == MAX_NR_TIERS + 1
            protect = tier > tier_idx or lazy
        if protect:
            if not lazy:
                s.gi[G_PROTECTED + typ * MAX_NR_TIERS + tier] += 1
            _inc_gen(s, p)
            sorted_ += 1
        else:
            isolated += 1
            v = s.resident[p]
            if typ == ANON_T:
                s.work[WORK_RMAP] += 1  # folio_referenced walks the reverse map
            if typ == ANON_T and (v & YOUNG):  # mapped and young: folio_referenced
                s.resident[p] = v ^ YOUNG  # the bit is set: clear it
                if ver == 0 or s.pm[p, REFD] != 0 or ws != 0:
                    if ver == 0:
                        _clear_refs(s, p, False)
                    else:
                        s.pm[p, REFD] = 0
                        s.pm[p, LREFS] = 0
                        s.pm[p, WS] = 1
                    s.stat[STAT_PGACTIVATE] += 1
                    _move(s, p, max_seq, False)
                else:  # 6.14 first sighting: keep, out of the oldest gen
                    s.pm[p, REFD] = 1
                    _move(s, p, max_seq - 1, False)
                _look_around(s, p, max_seq, cg)
            else:  # isolate: off the list, proposed
                _unlink(s, p)
                s.pm[p, ISO] = 1
                s.gi[G_ISO + s.gi[G_NISO]] = p
                s.gi[G_NISO] += 1
                s.cand[got] = p
                got += 1
        remaining -= 1
        if remaining == 0 or isolated >= MIN_LRU_BATCH:
            break
        # every page looked at has left the list (isolated, protected, promoted), and look-around
        # may have promoted the next ones: the next page is the list's tail now
        p = s.gi[G_TAIL + li]
    s.stat[STAT_PGREFILL] += sorted_
    s.stat[STAT_PGSCAN_ANON + typ] += isolated
    s.gi[G_LOOKED] += scanned
    return (scanned if isolated > 0 or remaining == 0 else 0), got


@kernel
def _putback(s):  # type: ignore[no-untyped-def]
    """Pages the engine did not evict last time (swap full, request met) go back, oldest gen."""
    for i in range(s.gi[G_NISO]):
        p = s.gi[G_ISO + i]
        if s.pm[p, ISO] != 0:
            s.pm[p, ISO] = 0
            typ = s.pm[p, TYP]
            _link(s, p, s.gi[G_MIN_SEQ + typ], typ, True)
    s.gi[G_NISO] = 0


@kernel
def _effective_swappiness(s, a):  # type: ignore[no-untyped-def]
    """get_swappiness: 0 with fewer than MIN_LRU_BATCH free swap slots."""
    if a[A_SWAP_FREE] < MIN_LRU_BATCH:
        return 0
    return s.gi[GI_SWAPPINESS]


@kernel
def _isolate(s, swp, prio, n, got):  # type: ignore[no-untyped-def]
    """isolate_folios: choose the type (and tier_idx), scan it, else the other type."""
    tier = -1
    if s.gi[G_VER] == 0:
        if swp == 0:
            typ = FILE_T
        elif s.gi[G_MIN_SEQ + ANON_T] < s.gi[G_MIN_SEQ + FILE_T]:
            typ = ANON_T
        elif swp == 1:
            typ = FILE_T
        elif swp == MAX_SWAPPINESS:
            typ = ANON_T
        else:
            g_anon = swp
            g_file = MAX_SWAPPINESS - swp
            typ = FILE_T if _positive(s, ANON_T, 0, g_anon, FILE_T, 0, g_file) else ANON_T
            g_typ = g_file if typ == FILE_T else g_anon
            g_other = g_anon if typ == FILE_T else g_file
            tier = 1
            while tier < MAX_NR_TIERS:
                if not _positive(s, 1 - typ, 0, g_other, typ, tier, g_typ):
                    break
                tier += 1
            tier -= 1
        tries = 1 if swp == 0 else 2
    else:
        if swp == 0:
            typ = FILE_T
        elif swp >= MAX_SWAPPINESS:
            typ = ANON_T
        else:
            sw = MAX_SWAPPINESS - swp
            typ = FILE_T if _positive(s, ANON_T, MAX_NR_TIERS, swp, FILE_T, MAX_NR_TIERS, sw) else ANON_T
        tries = 1 if swp == 0 else 2
    scanned = 0
    for _ in range(tries):
        if tier < 0:
            tier = _tier_idx(s, typ)
        scanned, got = _scan(s, typ, tier, n, got)
        if scanned > 0:
            break
        typ = 1 - typ
        tier = -1
    return scanned, got


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[G_MAX_SEQ] = MIN_NR_GENS + 1  # lru_gen_init_lruvec: four gens, seq 0..3
    s.gi[G_MIN_SEQ + ANON_T] = 0
    s.gi[G_MIN_SEQ + FILE_T] = 0
    s.gi[G_CGROUP] = a[A_CGROUP]
    for i in range(8):
        s.gi[G_HEAD + i] = -1
        s.gi[G_TAIL + i] = -1
        s.gi[G_SIZE + i] = 0
    for i in range(G_REFAULTED, G_END):
        s.gi[i] = 0
    for i in range(MAX_NR_GENS):  # lru_gen_init_lruvec: every birth time is now
        s.gi[G_TS + i] = a[A_NOW_NS]
    s.gi[G_MM_HEAD] = -1
    s.gi[G_MM_TAIL] = -1
    return 0


@kernel
def _refault(s, p, typ, in_fault):  # type: ignore[no-untyped-def]
    """lru_gen_refault: feed the controller; re-promote recent workingset pages."""
    token = s.shadow[p]
    seq = token >> 3
    low = (token >> 1) & 3
    wsbit = token & 1
    if s.gi[G_VER] == 0:
        if seq != s.gi[G_MIN_SEQ + typ]:
            return
        refs = low + wsbit
        tier = _ob2(refs + 1)
        s.gi[G_REFAULTED + typ * MAX_NR_TIERS + tier] += 1
        s.stat[STAT_WS_ACTIVATE_ANON + typ] += 1
        if in_fault or refs >= 3:
            s.pm[p, LREFS] = 3
            s.pm[p, WS] = 1
            s.stat[STAT_WS_RESTORE_ANON + typ] += 1
        return
    if abs(s.gi[G_MAX_SEQ] - seq) >= MAX_NR_GENS:
        return
    refs = low + 1
    tier = MAX_NR_TIERS - 1 if wsbit else _ob2(refs)
    s.gi[G_REFAULTED + typ * MAX_NR_TIERS + tier] += 1
    if in_fault:
        s.stat[STAT_WS_ACTIVATE_ANON + typ] += 1
    if wsbit:
        s.pm[p, WS] = 1
        s.stat[STAT_WS_RESTORE_ANON + typ] += 1
    else:
        s.pm[p, LREFS] = refs - 1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    v = s.resident[p]
    typ = ANON_T if v & ANON else FILE_T
    in_fault = typ == ANON_T  # anon pages come in by faults; file pages by read()
    s.pm[p, REFD] = 0
    s.pm[p, WS] = 0
    s.pm[p, LREFS] = 0
    if a[A_REFAULT] != 0:
        _refault(s, p, typ, in_fault)
    if typ == ANON_T and s.pm[p, REG] == 0:
        _map_anon(s, p, a[A_TAG])
    max_seq = s.gi[G_MAX_SEQ]
    min_seq = s.gi[G_MIN_SEQ + typ]
    if s.gi[G_VER] == 0:
        if in_fault:  # folio_add_lru: PG_active in a fault
            seq = max_seq
        elif typ == ANON_T and (v & SWAPCACHE) == 0:
            seq = max_seq - 1
        elif min_seq + MIN_NR_GENS >= max_seq:
            seq = min_seq
        else:
            seq = min_seq + 1
    else:
        active = False
        if in_fault:
            if s.pm[p, WS]:
                active = True
            elif s.pm[p, REFD] == 0:
                s.pm[p, REFD] = 1
                s.pm[p, LREFS] = 0
        if active:
            gen = MIN_NR_GENS - s.pm[p, WS]
        elif typ == ANON_T and (v & SWAPCACHE) == 0:
            gen = MIN_NR_GENS
        else:
            gen = MAX_NR_GENS - s.pm[p, WS]
        seq = max(max_seq - gen + 1, min_seq)
    _link(s, p, seq, typ, False)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    """folio_mark_accessed under MGLRU: one more reference, no list move."""
    p = a[A_PAGE]
    if s.gi[G_VER] == 0:
        if s.pm[p, REFD] == 0:
            s.pm[p, REFD] = 1
        elif s.pm[p, WS] == 0:
            s.pm[p, WS] = 1
        elif s.pm[p, LREFS] < 3:
            s.pm[p, LREFS] += 1
    elif s.pm[p, REFD] == 0:
        s.pm[p, REFD] = 1
        s.pm[p, LREFS] = 0
    elif s.pm[p, LREFS] == 3:
        s.pm[p, WS] = 1
    else:
        s.pm[p, LREFS] += 1
    return 0


@kernel
def _fls(x):  # type: ignore[no-untyped-def]
    """fls_long: the position of the highest set bit, 1-based; 0 for 0."""
    n = 0
    while x > 0:
        x >>= 1
        n += 1
    return n


@kernel
def _initial_priority(s, a, swp):  # type: ignore[no-untyped-def]
    """set_initial_priority for kswapd (lru_gen_age_node / lru_gen_shrink_node).

    At DEF_PRIORITY with nr_to_reclaim (kswapd: the high watermark, at least SWAP_CLUSTER_MAX)
    of at least MIN_LRU_BATCH: priority = fls(reclaimable) - 1 - fls(nr_to_reclaim - 1), clamped
    to [6, 12], with reclaimable the inactive pages (gens older than max_seq - 1) of the
    evictable types. Lower engine priorities (failed batches) count down from there.
    """
    prio = a[A_PRIORITY]
    if a[A_RECLAIMER] != RECLAIM_KSWAPD:
        return prio
    nr = max(a[A_WMARK_HIGH], 32)
    if nr < MIN_LRU_BATCH:
        return prio
    max_seq = s.gi[G_MAX_SEQ]
    reclaimable = 0
    first = FILE_T if swp == 0 else ANON_T
    for typ in range(first, 2):
        for seq in range(s.gi[G_MIN_SEQ + typ], max_seq - 1):
            reclaimable += _size(s, seq, typ)
    init = _fls(reclaimable) - 1 - _fls(nr - 1)
    init = min(max(init, DEF_PRIORITY // 2), DEF_PRIORITY)
    return max(prio - (DEF_PRIORITY - init), 0)


@kernel
def _reclaimable(s, a, swp, prio):  # type: ignore[no-untyped-def]
    """lruvec_is_reclaimable (min_ttl_ms set): sizable, and its oldest gen born over min_ttl ago.

    Sizable: the evictable types' pages >> priority is not 0. The birth time is that of
    min_seq[file] (6.12's reading of the comment on lru_gen_folio; kept for 6.14).
    """
    total = 0
    first = FILE_T if swp == 0 else ANON_T
    for typ in range(first, 2):
        for seq in range(s.gi[G_MIN_SEQ + typ], s.gi[G_MAX_SEQ] + 1):
            total += _size(s, seq, typ)
    if (total >> prio) == 0:
        return False
    birth = s.gi[G_TS + s.gi[G_MIN_SEQ + FILE_T] % MAX_NR_GENS]
    return birth + s.gi[G_MIN_TTL] * NS_PER_MS < a[A_NOW_NS]


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    n = min(a[A_REQUEST], MAX_CANDIDATES)
    swp = _effective_swappiness(s, a)
    _putback(s)
    _try_inc_min_seq(s, swp)
    prio = _initial_priority(s, a, swp)
    if s.gi[G_MIN_TTL] > 0 and a[A_RECLAIMER] == RECLAIM_KSWAPD and not _reclaimable(s, a, swp, prio):
        a[A_WANT_OOM] = 1  # lru_gen_age_node: no lruvec is reclaimable -> out_of_memory
        return 0
    got = 0
    s.gi[G_LOOKED] = 0
    for _ in range(MAX_NR_GENS * 2):
        if got >= n:
            break
        age, empty = _should_age(s, swp, prio)
        if age and (empty or prio < DEF_PRIORITY):
            _walk(s, swp)
            _inc_max_seq(s, swp, a[A_NOW_NS])
        scanned, got = _isolate(s, swp, prio, n, got)
        if not _try_inc_min_seq(s, swp) and scanned == 0 and not age:
            break
    a[A_SCANNED] = s.gi[G_LOOKED]
    return got


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    if s.pm[p, ISO] != 0:
        s.pm[p, ISO] = 0
    elif s.pm[p, GEN] != 0:
        _unlink(s, p)
    else:
        return 0
    typ = s.pm[p, TYP]
    if r[A_REASON] != REASON_FREED:
        if s.gi[G_VER] == 0:
            # isolate_folio clears the refs flags of a page without PG_referenced
            refs = _refs(s, p) if s.pm[p, REFD] else 0
            wsbit = 1 if refs != 0 else 0
        else:
            refs = _refs(s, p)
            wsbit = s.pm[p, WS]
        tier = _tier(s, refs, s.pm[p, WS] if s.gi[G_VER] == 1 else 0)
        low = refs - 1 if refs > 0 else 0
        if low > 3:
            low = 3
        s.shadow[p] = (s.gi[G_MIN_SEQ + typ] << 3) | (low << 1) | wsbit
        s.gi[G_EVICTED + typ * MAX_NR_TIERS + tier] += 1
    _clear_refs(s, p, False)
    return 0


class MGLRU(Policy):
    """Multi-Gen LRU as in Linux 6.12 (or 6.14 with ``version="6.14"``); see the module docstring."""

    name = "mglru"
    description = "Multi-Gen LRU (Linux lru_gen): generations, tiers, PID-controlled type/tier choice"
    int_fields = (
        "nxt",
        "prv",
        "gen",
        "type",
        "referenced",
        "workingset",
        "lru_refs",
        "isolated",
        "region",
        "vpn",
        "vnext",
        "vprev",
        "region_next",
        "region_head",
        "region_mm",
        "mm_next",
        "mm_first",
        "mm_last",
        "mm_nv",
        "mm_lastp",
        "mm_flags",
    )
    int_globals = G_END - GI_USER
    proposes_batches = True
    uses_fallback = False
    params = {"version": "6.12", "min_ttl_ms": 0}
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
        s.gi[G_VER] = VERSIONS[ver]
        s.gi[G_MIN_TTL] = int(ttl)

    # ---- introspection for tests and reports
    @staticmethod
    def seqs(s: Any) -> tuple[int, int, int]:
        """``(max_seq, min_seq[anon], min_seq[file])``."""
        return int(s.gi[G_MAX_SEQ]), int(s.gi[G_MIN_SEQ + ANON_T]), int(s.gi[G_MIN_SEQ + FILE_T])

    @staticmethod
    def seq_of(s: Any, page: int) -> int:
        """The sequence number of the generation holding ``page`` (-1 if on none)."""
        g = int(s.pm[page, GEN])
        if g == 0:
            return -1
        max_seq = int(s.gi[G_MAX_SEQ])
        return max_seq - ((max_seq - (g - 1)) % MAX_NR_GENS)

    @staticmethod
    def tier_of(s: Any, page: int) -> int:
        """The page's tier now."""
        return int(_tier.py_func(s, _refs.py_func(s, page), s.pm[page, WS]))

    @staticmethod
    def counters(s: Any, name: str) -> np.ndarray:
        """Controller counters ``refaulted``, ``evicted``, ``protected``... as (type, tier)."""
        base = {
            "refaulted": G_REFAULTED,
            "evicted": G_EVICTED,
            "protected": G_PROTECTED,
            "avg_refaulted": G_AVG_REFAULTED,
            "avg_total": G_AVG_TOTAL,
        }[name]
        return np.asarray(s.gi[base : base + 8]).reshape(2, MAX_NR_TIERS).copy()

    def readouts(self, s: Any) -> dict[str, float]:
        """max_seq, min_seq per type and pages per type (sampled into kernel-mode time series)."""
        sizes = [int(s.gi[G_SIZE + g * 2 + t]) for g in range(4) for t in range(2)]
        return {
            "max_seq": float(s.gi[G_MAX_SEQ]),
            "min_seq_anon": float(s.gi[G_MIN_SEQ]),
            "min_seq_file": float(s.gi[G_MIN_SEQ + 1]),
            "gen_pages_anon": float(sum(sizes[0::2])),
            "gen_pages_file": float(sum(sizes[1::2])),
        }

    def check_invariants(self, s: Any) -> None:
        """Lists match their sizes and flags; every resident page of the lruvec is on one list."""
        max_seq, *mins = self.seqs(s)
        cg = int(s.gi[G_CGROUP])
        seen: set[int] = set()
        for typ in (ANON_T, FILE_T):
            assert 2 <= max_seq - mins[typ] + 1 <= MAX_NR_GENS, f"type {typ}: gens {mins[typ]}..{max_seq}"
            live = {seq % MAX_NR_GENS for seq in range(mins[typ], max_seq + 1)}
            for gen in range(MAX_NR_GENS):
                li = gen * 2 + typ
                p = int(s.gi[G_HEAD + li])
                prev = -1
                count = 0
                while p >= 0:
                    assert p not in seen, f"page {p} on two lists"
                    seen.add(p)
                    assert int(s.pm[p, PRV]) == prev, f"page {p}: broken back link"
                    assert int(s.pm[p, GEN]) == gen + 1 and int(s.pm[p, TYP]) == typ, f"page {p}: gen/type"
                    assert s.resident[p] != 0, f"page {p} on a list but not resident"
                    assert bool(s.resident[p] & ANON) == (typ == ANON_T), f"page {p} on the wrong type"
                    prev = p
                    count += 1
                    p = int(s.pm[p, NXT])
                assert int(s.gi[G_TAIL + li]) == prev, f"list {li}: tail"
                assert count == int(s.gi[G_SIZE + li]), f"list {li}: size {s.gi[G_SIZE + li]} != {count}"
                assert count == 0 or gen in live, f"type {typ}: pages in gen {gen} outside the window"
        iso = {int(s.gi[G_ISO + i]) for i in range(int(s.gi[G_NISO]))}
        for p in iso:
            if s.pm[p, ISO]:
                assert p not in seen and s.resident[p] != 0, f"isolated page {p} on a list"
                seen.add(p)
        assert int((s.pm[:, ISO] != 0).sum()) <= len(iso), "an isolated page nobody will put back"
        mine = {int(p) for p in np.flatnonzero((s.resident != 0) & (s.cgroup_of == cg))}
        assert seen == mine, f"resident pages off the lists: {sorted(mine - seen)[:5]}"
        for p in mine:  # the address space: every anon page has its place in its process
            if s.resident[p] & ANON:
                r = int(s.pm[p, REG]) - 1
                assert 0 <= r < int(s.gi[G_NREG]), f"anon page {p} has no virtual page"
                v = int(s.pm[p, VPN])
                start = int(s.pm[int(s.pm[r, R_HEAD]), VPN])
                assert start % PMD_PAGES == 0 and start <= v < start + PMD_PAGES, f"page {p}: region"
                for link, back, dv in ((VNX, VPV, 1), (VPV, VNX, -1)):
                    q = int(s.pm[p, link])
                    if q >= 0:
                        assert int(s.pm[q, back]) == p and int(s.pm[q, VPN]) == v + dv, f"page {p}: chain"
