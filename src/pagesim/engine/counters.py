"""Counter slots of the engine's ``out`` array, with names, units and meanings.

The compiled loop writes into one int64 array; :data:`COUNTERS` names each slot so that results,
tables and JSON are rendered from one declaration.
"""

from __future__ import annotations

REQUESTS = 0
HITS = 1
MISSES = 2
COMPULSORY = 3
EVICTIONS = 4
POLICY_EVICTIONS = 5
FALLBACK_EVICTIONS = 6
EVICT_CALLS = 7
FALLBACK_CALLS = 8
PROPOSED = 9
REJECTED = 10
REJ_OUT_OF_RANGE = 11
REJ_NOT_RESIDENT = 12
REJ_FOREIGN = 13
REJ_DUPLICATE = 14
REJ_OVERFLOW = 15
UNUSED_CANDIDATES = 16
BYPASSED = 17
TOO_LARGE = 18
WARMUP = 19
BYTES_REQUESTED = 20
BYTES_MISSED = 21
FREES = 22
FREES_ABSENT = 23
WRITES_SKIPPED = 24
SIZE_CHANGES = 25
N_COUNTERS = 32

#: name -> (slot, meaning). Every count is over the measured accesses (after warm-up): what a
#: warm-up access causes (its evictions, proposals, rejects) is not counted.
COUNTERS: dict[str, tuple[int, str]] = {
    "requests": (REQUESTS, "accesses counted (after warm-up)"),
    "hits": (HITS, "counted accesses that found their page resident"),
    "misses": (MISSES, "counted accesses that did not"),
    "compulsory_misses": (COMPULSORY, "misses on the first access to a page"),
    "evictions": (EVICTIONS, "pages evicted"),
    "policy_evictions": (POLICY_EVICTIONS, "evictions of pages the policy proposed"),
    "fallback_evictions": (FALLBACK_EVICTIONS, "evictions made by the default policy"),
    "evict_calls": (EVICT_CALLS, "calls of the policy's evict hook"),
    "fallback_calls": (FALLBACK_CALLS, "evict calls whose shortfall the default policy covered"),
    "proposed": (PROPOSED, "candidates proposed by the policy"),
    "rejected": (REJECTED, "proposed candidates the framework refused"),
    "rejected_out_of_range": (REJ_OUT_OF_RANGE, "refused: not a page id"),
    "rejected_not_resident": (REJ_NOT_RESIDENT, "refused: page not in memory"),
    "rejected_foreign": (REJ_FOREIGN, "refused: page owned by another cgroup"),
    "rejected_duplicate": (REJ_DUPLICATE, "refused: proposed twice in one request"),
    "rejected_overflow": (
        REJ_OVERFLOW,
        "refused: evict calls that returned more than 32 candidates (the whole proposal, counted once)",
    ),
    "unused_candidates": (UNUSED_CANDIDATES, "valid candidates beyond what the request needed"),
    "bypassed": (BYPASSED, "misses the admit hook kept out of the cache"),
    "too_large": (TOO_LARGE, "misses on objects larger than the cache, never inserted"),
    "warmup_accesses": (WARMUP, "accesses that only warmed the cache"),
    "bytes_requested": (BYTES_REQUESTED, "bytes of counted accesses (size-aware traces)"),
    "bytes_missed": (BYTES_MISSED, "bytes of counted misses (size-aware traces)"),
    "frees": (FREES, "deletes (op free) of resident pages: freed, neither hit nor miss"),
    "frees_not_resident": (FREES_ABSENT, "deletes of pages not resident: ignored"),
    "writes_skipped": (WRITES_SKIPPED, "writes not counted as requests (--writes insert-only or ignore)"),
    "size_changes": (SIZE_CHANGES, "hits whose object came with a new size (bytes mode): size updated"),
}

# ---- kernel mode: counters under their /proc/vmstat names (slots after the cache-mode ones) ----
PGFAULT = 32
PGMAJFAULT = 33
PSWPIN = 34
PSWPOUT = 35
WS_REFAULT_ANON = 36
WS_REFAULT_FILE = 37
PGPGIN = 38
PGPGOUT = 39
PGSTEAL_KSWAPD = 40
PGSTEAL_DIRECT = 41
PGSCAN_KSWAPD = 42
PGSCAN_DIRECT = 43
ALLOCSTALL = 44
OOM_KILL = 45
OOM_SKIPPED = 46
SWAP_FULL = 47
READAHEAD_PAGES = 48
KSWAPD_WAKE = 49
ZERO_FILL = 50
PGFREE_BY_OWNER = 51
DIRTY_WRITEBACK = 52
STOPPED = 53
FLUSHED = 54
KCOMPRESSD = 55
HINT_FAULTS = 56
N_KERNEL_COUNTERS = 64

KERNEL_COUNTERS: dict[str, tuple[int, str]] = {
    "pgfault": (PGFAULT, "page faults (anon first touch and swap-in)"),
    "pgmajfault": (PGMAJFAULT, "faults that waited for I/O (swap-in)"),
    "pswpin": (PSWPIN, "pages read from swap"),
    "pswpout": (PSWPOUT, "pages written to swap"),
    "workingset_refault_anon": (WS_REFAULT_ANON, "anon pages faulted back that left a shadow entry"),
    "workingset_refault_file": (WS_REFAULT_FILE, "file pages read back that left a shadow entry"),
    "pgpgin": (PGPGIN, "file pages read from their device (demand and readahead)"),
    "pgpgout": (PGPGOUT, "dirty file pages written back before eviction"),
    "pgsteal_kswapd": (PGSTEAL_KSWAPD, "pages reclaimed by kswapd"),
    "pgsteal_direct": (PGSTEAL_DIRECT, "pages reclaimed by allocating tasks (direct reclaim)"),
    "pgscan_kswapd": (PGSCAN_KSWAPD, "candidates kswapd's reclaim was offered"),
    "pgscan_direct": (PGSCAN_DIRECT, "candidates direct reclaim was offered"),
    "allocstall": (ALLOCSTALL, "allocations that entered direct reclaim"),
    "oom_kill": (OOM_KILL, "processes killed because nothing was reclaimable"),
    "oom_skipped_accesses": (OOM_SKIPPED, "accesses of killed processes, not simulated"),
    "swap_full": (SWAP_FULL, "anon candidates kept because swap was full"),
    "readahead_pages": (READAHEAD_PAGES, "pages read ahead of demand"),
    "kswapd_wakeups": (KSWAPD_WAKE, "times kswapd was woken (free below low)"),
    "zero_fill": (ZERO_FILL, "anon first touches (zero-filled, no I/O)"),
    "pgfree_by_owner": (PGFREE_BY_OWNER, "pages freed by their owner (munmap, exit, truncate)"),
    "dirty_writeback": (DIRTY_WRITEBACK, "evictions that had to write a dirty page first"),
    "flusher_writeback": (FLUSHED, "dirty file pages written back by the flusher (background)"),
    "kcompressd_pages": (KCOMPRESSD, "anon pages kswapd handed to kcompressd to write to swap"),
    "numa_hint_faults": (HINT_FAULTS, "accesses to PROT_NONE pages a policy asked to see (hinting faults)"),
    "stopped_accesses": (STOPPED, "accesses not run: the run stopped when its first task finished"),
}
