"""The legacy LRU's lists (kernel ``enum lru_list`` order), per-page columns, globals, constants and
shadow-entry fields, and the two small readers of a list (its id, its size). The rules are in
:mod:`.policy`'s docstring.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.state import LEN

# ---- lists (kernel enum lru_list order) -------------------------------------------------------
LRU_INACTIVE_ANON = 0
LRU_ACTIVE_ANON = 1
LRU_INACTIVE_FILE = 2
LRU_ACTIVE_FILE = 3
LRU_NAMES = ("inactive_anon", "active_anon", "inactive_file", "active_file")


# ---- the state ------------------------------------------------------------------------------------
STATE = Layout(
    "linux-lru",
    pm=(
        field("ref", "flag", "PG_referenced"),
        field("active", "flag", "PG_active"),
        field("workingset", "flag", "PG_workingset"),
    ),
    gi=(
        field("list", "list id", "per LRU_* list (enum lru_list order)", count=4),
        field("cg", "cgroup", "the cgroup owning this lruvec"),
        field("age", "pages", "lruvec->nonresident_age"),
        field("anon_cost", "pages", "lruvec->anon_cost"),
        field("file_cost", "pages", "lruvec->file_cost"),
        field("snap_anon", "pages", "refaults[WORKINGSET_ANON]: WORKINGSET_ACTIVATE_ANON at last reclaim"),
        field("snap_file", "pages", "refaults[WORKINGSET_FILE]: WORKINGSET_ACTIVATE_FILE at last reclaim"),
        field("swappiness", "0-200", "parameter swappiness_override (-1: node's vm.swappiness)"),
        field("prio_loop", "flag", "parameter priority_loop"),
        field("nr", "pages", "per LRU_* list: scan targets of the current pass", count=4),
        field("skip", "pages", "per LRU_* list: candidates of this batch left at its tail", count=4),
        field("chunk", "pages", "per LRU_* list: chunk size in the current pass", count=4),
        field("slots", "slots", "swap slots still free for this batch's anon candidates"),
        field("may_deact", "bits", "may_deactivate bits of the current pass (1 anon, 2 file)"),
        field("work", "pages", "pages the current pass scanned or deactivated"),
    ),
)
PM, GI = STATE.pm, STATE.gi


# ---- constants ----------------------------------------------------------------------------------
SWAP_CLUSTER_MAX = 32
DEF_PRIORITY = 12
MAX_SWAPPINESS = 200
PAGES_PER_GB_SHIFT = 18  #: 30 - PAGE_SHIFT (4 KiB pages)
DEACTIVATE_ANON = 1
DEACTIVATE_FILE = 2
SCAN_EQUAL = 0
SCAN_FRACT = 1
SCAN_ANON = 2
SCAN_FILE = 3
MAX_FLOOR_PASSES = 64  #: passes at the lowest priority within one batch before giving up


# ---- shadow entries -----------------------------------------------------------------------------
SHADOW_AGE_BITS = 48
SHADOW_AGE_MASK = (1 << SHADOW_AGE_BITS) - 1
SHADOW_CG_MASK = (1 << 14) - 1
SHADOW_WORKINGSET = 1 << 62


@kernel
def _lid(s, lru):  # type: ignore[no-untyped-def]
    return s.gi[GI.list + lru]


@kernel
def _size(s, lru):  # type: ignore[no-untyped-def]
    return s.lhd[s.gi[GI.list + lru], LEN]
