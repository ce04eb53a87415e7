"""MGLRU's constants (``include/linux/mmzone.h``, ``mm/vmscan.c``) and where its state sits:
per-page columns of ``s.pm`` and globals of ``s.gi``. The rules are in :mod:`.policy`'s docstring.
"""

from __future__ import annotations

from pagesim.core.bloom import BLOOM_FILTER_SHIFT
from pagesim.core.layout import Layout, field
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


MMF_LISTED = 1  #: on the mm_list
MMF_NEW = 2  #: added since the last iteration: the next walk force-scans it
PMD_PAGES = 512  #: PTEs per PTE table (x86-64, 4 KiB pages)
BLOOM_WORDS = (1 << BLOOM_FILTER_SHIFT) // 32  #: 32 bits per int64 slot (no sign bit trouble)


#: suitable_to_scan: young * n >= total with n = clamp(cache_line_size / sizeof(pte_t), 2, 8) = 8
YOUNG_PER_CACHELINE = 8
NS_PER_MS = 1_000_000


# ---- the state: per page (rows of s.pm), per region and per process (rows of the same columns), globals
STATE = Layout(
    "mglru",
    pm=(
        field("nxt", "page id", "next page towards the tail (older), -1 none"),
        field("prv", "page id", "previous page towards the head (younger), -1 none"),
        field("gen", "gen + 1", "seq % 4 + 1 of the list holding the page; 0 when on no list"),
        field("typ", "type", "0 anon, 1 file"),
        field("refd", "flag", "PG_referenced"),
        field("ws", "flag", "PG_workingset"),
        field("lrefs", "refs", "LRU_REFS, 0..3"),
        field("iso", "flag", "1 while isolated: proposed to the engine, off every list"),
        # the address space (anon pages only): a page's virtual page number in its process, for life
        field("reg", "region + 1", "PMD region holding the page, + 1 (0: no address yet)"),
        field("vpn", "page", "virtual page number within the process (order of first fault)"),
        field("vnx", "page id", "page at VPN + 1 in the same process, -1 none"),
        field("vpv", "page id", "page at VPN - 1 in the same process, -1 none"),
        # row r describes PMD region r (ids 0.. in order of creation; never more than pages)
        field("r_next", "region", "region row: next region of the same process, -1 none"),
        field("r_head", "page id", "region row: the page at the region's first virtual page"),
        field("r_mm", "mm row", "region row: the process owning the region"),
        # row m describes the process whose task tag is m (mod the number of rows)
        field("mm_next", "mm row", "mm row: next mm on the mm_list (order of creation), -1 none"),
        field("mm_first", "region", "mm row: first region, -1 none"),
        field("mm_last", "region", "mm row: last region, -1 none"),
        field("mm_nv", "pages", "mm row: virtual pages handed out (the VMA's end)"),
        field("mm_lastp", "page id", "mm row: the page at VPN mm_nv - 1"),
        field("mm_flags", "bits", "mm row: MMF_LISTED | MMF_NEW"),
    ),
    gi=(
        field("max_seq", "generation", "lrugen->max_seq"),
        field("min_seq", "generation", "lrugen->min_seq[type]", count=2),
        field("ver", "version", "0 = 6.12, 1 = 6.14"),
        field("cgroup", "cgroup", "the cgroup owning this lruvec"),
        field("min_ttl", "ms", "parameter min_ttl_ms"),
        field("reserved", "-", "not used", count=2),
        field("head", "page id", "each generation list's head, [gen][type]", shape=(MAX_NR_GENS, 2)),
        field("tail", "page id", "each generation list's tail, [gen][type]", shape=(MAX_NR_GENS, 2)),
        field("size", "pages", "each generation list's length, [gen][type]", shape=(MAX_NR_GENS, 2)),
        field("refaulted", "pages", "lrugen->refaulted, [type][tier]", shape=(2, MAX_NR_TIERS)),
        field("evicted", "pages", "lrugen->evicted, [type][tier]", shape=(2, MAX_NR_TIERS)),
        field("protected", "pages", "lrugen->protected, [type][tier]", shape=(2, MAX_NR_TIERS)),
        field("avg_refaulted", "pages", "lrugen->avg_refaulted, [type][tier]", shape=(2, MAX_NR_TIERS)),
        field("avg_total", "pages", "lrugen->avg_total, [type][tier]", shape=(2, MAX_NR_TIERS)),
        field("niso", "pages", "pages isolated by the last evict call ..."),
        field("iso", "page id", "... and their ids", count=MAX_CANDIDATES),
        field("ts", "ns", "lrugen->timestamps[gen]", count=MAX_NR_GENS),
        field("mm_head", "mm row", "the mm_list's head, -1 empty"),
        field("mm_tail", "mm row", "the mm_list's tail, -1 empty"),
        field("nreg", "regions", "PMD regions created"),
        field(
            "filter_on", "bits", "bit g: Bloom filter g allocated (a missing filter lets everything through)"
        ),
        field("walked", "tables", "PTE tables the walker visited (cumulative; for tests and readouts)"),
        field("skipped", "tables", "PTE tables the Bloom filter made it skip (cumulative)"),
        field("lookaround", "pages", "pages promoted by look-around (cumulative)"),
        field("looked", "pages", "pages the current evict call has looked at (its A_SCANNED)"),
        field("bloom", "bits", "lru_gen_mm_state->filters[2], 32 bits a slot", shape=(2, BLOOM_WORDS)),
    ),
)
PM, GI = STATE.pm, STATE.gi
GI_END = GI_USER + STATE.int_globals  #: one past the last global

VERSIONS = {"6.12": 0, "6.14": 1}
