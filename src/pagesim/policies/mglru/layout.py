"""MGLRU's constants (``include/linux/mmzone.h``, ``mm/vmscan.c``) and where its state sits:
per-page columns of ``s.pm`` and globals of ``s.gi``. The rules are in :mod:`.policy`'s docstring.
"""

from __future__ import annotations

from pagesim.core.state import (
    GI_USER,
    MAX_CANDIDATES,
)

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
