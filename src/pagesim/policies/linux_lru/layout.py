"""The legacy LRU's lists (kernel ``enum lru_list`` order), per-page columns, globals, constants and
shadow-entry fields, and the two small readers of a list (its id, its size). The rules are in
:mod:`.policy`'s docstring.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.state import (
    GI_USER,
    LEN,
)

# ---- lists (kernel enum lru_list order) -------------------------------------------------------
LRU_INACTIVE_ANON = 0
LRU_ACTIVE_ANON = 1
LRU_INACTIVE_FILE = 2
LRU_ACTIVE_FILE = 3
LRU_NAMES = ("inactive_anon", "active_anon", "inactive_file", "active_file")


# ---- pm columns ---------------------------------------------------------------------------------
REF = 0  #: PG_referenced
ACTIVE = 1  #: PG_active
WORKINGSET = 2  #: PG_workingset


# ---- gi slots -----------------------------------------------------------------------------------
G_LIST = GI_USER  #: 4 slots: list id of each LRU_* list
G_CG = GI_USER + 4  #: the cgroup owning this lruvec
G_AGE = GI_USER + 5  #: lruvec->nonresident_age
G_ANON_COST = GI_USER + 6
G_FILE_COST = GI_USER + 7
G_SNAP_ANON = GI_USER + 8  #: refaults[WORKINGSET_ANON]: WORKINGSET_ACTIVATE_ANON at the last reclaim
G_SNAP_FILE = GI_USER + 9
G_SWAPPINESS = GI_USER + 10  #: parameter swappiness_override (-1: node's vm.swappiness)
G_PRIO_LOOP = GI_USER + 11  #: parameter priority_loop
G_NR = GI_USER + 12  #: 4 slots: scan targets of the current pass
G_SKIP = GI_USER + 16  #: 4 slots: candidates of this batch left at the tail of each list
G_CHUNK = GI_USER + 20  #: 4 slots: chunk size of each list in the current pass
G_SLOTS = GI_USER + 24  #: swap slots still free for this batch's anon candidates
G_MAY_DEACT = GI_USER + 25  #: may_deactivate bits of the current pass (1 anon, 2 file)
G_WORK = GI_USER + 26  #: pages the current pass scanned or deactivated
N_GLOBALS = 27


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
    return s.gi[G_LIST + lru]


@kernel
def _size(s, lru):  # type: ignore[no-untyped-def]
    return s.lhd[s.gi[G_LIST + lru], LEN]
