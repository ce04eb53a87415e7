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
N_COUNTERS = 24

#: name -> (slot, meaning). Every count is over the measured accesses (after warm-up) except
#: the framework's eviction bookkeeping, which counts the whole run.
COUNTERS: dict[str, tuple[int, str]] = {
    "requests": (REQUESTS, "accesses counted (after warm-up)"),
    "hits": (HITS, "counted accesses that found their page resident"),
    "misses": (MISSES, "counted accesses that did not"),
    "compulsory_misses": (COMPULSORY, "misses on the first access to a page"),
    "evictions": (EVICTIONS, "pages evicted (whole run)"),
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
    "rejected_overflow": (REJ_OVERFLOW, "refused: more than 32 candidates returned"),
    "unused_candidates": (UNUSED_CANDIDATES, "valid candidates beyond what the request needed"),
    "bypassed": (BYPASSED, "misses the admit hook kept out of the cache"),
    "too_large": (TOO_LARGE, "misses on objects larger than the cache, never inserted"),
    "warmup_accesses": (WARMUP, "accesses that only warmed the cache"),
    "bytes_requested": (BYTES_REQUESTED, "bytes of counted accesses (size-aware traces)"),
    "bytes_missed": (BYTES_MISSED, "bytes of counted misses (size-aware traces)"),
}
