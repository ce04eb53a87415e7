"""The typed state a policy works on: eviction lists, per-page metadata, globals, candidates.

A policy in pagesim is, as in cache_ext (Zussman et al., SOSP 2025, §4), a set of hooks over
framework-managed eviction lists plus its own typed arrays (eBPF maps in the original). Every hook
receives the same two arguments:

``s`` : :class:`State`
    The policy's state (below). Hooks read and write it; the framework owns ``lst``/``lhd``
    through the list functions of :mod:`pagesim.core.lists` and ``resident``/``cgroup_of``.
``a`` : numpy.ndarray of int64, shape (ACC_LEN,)
    The event being handled. Index it with the ``A_*`` constants below.

State fields
------------
lst : int32, shape (n_pages, 3)
    One list node per page: ``[NEXT, PREV, LIST]``; ``-1`` means none. A page is in at most one
    eviction list at a time (cache_ext §2.3: the node is owned by the folio's registry entry).
lhd : int64, shape (n_list_slots, 5)
    Per list: ``[HEAD, TAIL, LEN, OWNER, VERSION]``; ``OWNER`` is the cgroup that created it,
    ``-1`` free; ``VERSION`` counts the list's link changes (never reset: an index of the list's
    order uses it to know it is still exact, see :func:`pagesim.core.indexed.list_sample_indexed`).
    Heads are where ``list_add`` inserts; iteration runs head to tail.
pm : int64, shape (n_pages, row_width(n_int_fields))
    Per-page integer metadata, columns named by the policy; the columns after its own are
    padding (rows of 1, 2, 4 or 8 int64 in an array aligned to a 64-byte cache line, so that
    none crosses a line: :func:`row_width`).
pf : float64, shape (n_pages, n_float_fields)
    Per-page floating-point metadata.
gi : int64, shape (n_int_globals,)
    Policy globals (list ids, counters, parameters). Slots below ``GI_USER`` are reserved.
gf : float64, shape (n_float_globals,)
    Policy float globals and parameters.
cand : int64, shape (MAX_CANDIDATES,)
    Candidates proposed by ``evict``; the hook returns how many it wrote.
scores : int64, shape (MAX_SAMPLE,)
    Scratch for batch scoring (:func:`pagesim.core.lists.list_sample`).
sample : int64, shape (MAX_SAMPLE,)
    Scratch: pages detached by batch scoring.
resident : uint8, shape (n_pages,)
    Non-zero while the page is in memory (bit ``RESIDENT``); bit ``REFERENCED`` is the default
    policy's reference bit, set on every hit; in kernel mode also ``YOUNG``, ``DIRTY``,
    ``ANON``, ``SWAPCACHE``, ``RA_MARK``. Read-only for policies (test ``!= 0``) except
    ``YOUNG``, which reclaim clears with :func:`pagesim.core.lists.test_and_clear_young`.
shadow : int64, shape (n_pages,)
    What the page's policy stored when it evicted the page (its shadow entry: the kernel's
    ``workingset_eviction`` token); valid while ``a[A_REFAULT]`` would be 1.
stat : int64, shape (N_STAT,)
    The policy's own vmstat-style counters (``STAT_*`` slots), summed into the result.
work : int64, shape (N_WORK,)
    Shared by every cgroup's state: young-bit tests through the reverse map (``WORK_RMAP``) and by
    a page-table walker (``WORK_PTES``), counted by :mod:`pagesim.core.pageflags`; kernel mode
    charges their time to whoever is reclaiming. ``WORK_CPU_NS``: CPU time, ns, a policy's own
    work took as the policy models it (CAST's walker and look-around), charged to whoever runs
    the hook (reclaim, or the task whose page the hook ``added`` is about).
pmd_seq : int64, shape (n_pages // PMD_PAGES + 1,)
    Kernel mode, shared by every cgroup's state: per aligned block of ``PMD_PAGES`` page ids (a
    page table; page ids stand for virtual addresses), ``a[A_SEQ]`` of the last access to an
    anon page in it, -1 never: the PMD's accessed bit is "set since event ``q``" when
    ``pmd_seq[b] >= q``. Written by the engine, read-only for policies.
mm_seq : int64, shape (n_tags,)
    Kernel mode, shared: per task (tag, the model's process), ``a[A_SEQ]`` of its last access,
    -1 never: a CPU ran the task's mm since event ``q`` when ``mm_seq[tag] >= q``
    (``lru_gen_use_mm`` at a context switch). Written by the engine, read-only for policies.
cgroup_of : int32, shape (n_pages,)
    Owning cgroup of each resident page (the one that faulted it in); 0 for every page when
    the run has one cgroup. Read-only for policies.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# ---- event array layout (``a``) -------------------------------------------------------------
A_TIME = 0  #: index of the access in the trace (0-based)
A_PAGE = 1  #: dense page id the event is about
A_KIND = 2  #: 0 file, 1 anon
A_OP = 3  #: 0 read, 1 write, 2 free
A_CGROUP = 4  #: cgroup of the access (for ``removed``: the page's owner)
A_TAG = 5  #: thread / pid / role tag of the access
A_SIZE = 6  #: size of the page or object, in capacity units (1 in page mode, bytes otherwise)
A_NEXT = 7  #: index of the next access to this page; ``NEVER`` if none; -1 if unknown
A_REQUEST = 8  #: for ``evict``: how many pages the framework wants freed
A_CAPACITY = 9  #: capacity of the caller's cgroup, in capacity units
A_USED = 10  #: units in use in the caller's cgroup
A_REASON = 11  #: for ``removed``: REASON_POLICY, REASON_FALLBACK or REASON_FREED
A_N_PAGES = 12  #: number of distinct pages in the trace
A_HIT = 13  #: 1 if the current access hit
# kernel mode
A_REFAULT = 14  #: for ``added``: 1 if the page left a shadow entry when it was last evicted
A_READAHEAD = 15  #: for ``added``: 1 if the page came in by readahead, not on demand
A_PRIORITY = 16  #: for ``evict``: reclaim priority, 12 (DEF_PRIORITY, gentle) down to 0
A_RECLAIMER = 17  #: for ``evict``: RECLAIM_KSWAPD, RECLAIM_DIRECT or RECLAIM_LIMIT
A_FREE = 18  #: free pages of the node when the event happens
A_WMARK_LOW = 19  #: the node's low watermark, in pages
A_WMARK_HIGH = 20  #: the node's high watermark, in pages
A_SWAP_FREE = 21  #: free swap slots (0: anon cannot be evicted)
A_MODE = 22  #: MODE_CACHE or MODE_KERNEL
A_MEMORY = 23  #: pages of memory of the node (kernel mode) or the cgroup's capacity (cache mode)
#: for ``added`` of a refault: the device's work the task waits for, ns (0 if none); for
#: ``removed`` in kernel mode: what writing the page out cost its writer, ns (zram: compressing
#: it; a disk: submitting it), -1 if nothing was written
A_WAIT_NS = 24
A_SCANNED = 25  #: ``evict`` may set it: pages it visited in this call (charged as scan time); -1 unset
A_NOW_NS = 26  #: kernel mode: model time of the event, ns (the task's clock, or kswapd's)
A_SEQ = 27  #: kernel mode: accesses processed so far in the run (monotone; ``A_TIME`` is the trace row)
A_WANT_OOM = 28  #: ``evict`` may set it to 1: ask kernel mode's OOM killer to act (MGLRU ``min_ttl_ms``)
#: kernel mode, ``added`` and ``evict``: pages of memory zram holds compressed for the pages the
#: event's cgroup swapped out (the node's zram when there is one cgroup)
A_ZRAM_PAGES = 29
#: kernel mode, ``evict`` may set it: of ``A_SCANNED``, the entries the policy read from an array
#: of its own (CAST's state words) rather than folios reclaim looked at; their CPU is the policy's
#: to model (``WORK_CPU_NS``), so the engine charges ``reclaim_ns_per_page`` only for the rest
A_SCAN_WORDS = 30
ACC_LEN = 32

MODE_CACHE = 0
MODE_KERNEL = 1

RECLAIM_KSWAPD = 0
RECLAIM_DIRECT = 1
RECLAIM_LIMIT = 2

#: Bits of ``State.resident``.
RESIDENT = 1  #: the page is in memory
REFERENCED = 2  #: the default policy's reference bit (set on every hit)
YOUNG = 4  #: kernel mode: the PTE accessed bit of a mapped (anon) page, set by every access
DIRTY = 8  #: kernel mode: the page differs from its backing copy (file, or swap slot)
ANON = 16  #: kernel mode: the page is anonymous (swap-backed); else file
SWAPCACHE = 32  #: kernel mode: an anon page read back from swap whose slot still holds it
RA_MARK = 64  #: kernel mode: PG_readahead, a hit starts the next asynchronous readahead
#: kernel mode, set by a policy on a mapped (anon) page: its PTE is made PROT_NONE, so every
#: access faults (a hinting fault, as NUMA balancing's) and the engine calls ``accessed``; the
#: policy clears it to stop (CAST's sample: "a sampled mapped page is made to fault").
PROT_NONE = 128
#: All bits of the byte: clear bit X with ``v & (FLAG_MASK ^ X)`` (``~X`` is negative, which a
#: uint8 cannot hold when the code runs as plain Python).
FLAG_MASK = 255

REASON_POLICY = 0
REASON_FALLBACK = 1
REASON_FREED = 2

NEVER = np.iinfo(np.int64).max

# ---- list node and list header layout --------------------------------------------------------
NEXT = 0
PREV = 1
LIST = 2
HEAD = 0
TAIL = 1
LEN = 2
OWNER = 3
VERSION = 4

#: cache_ext allows at most 5 lists per cgroup (cache_ext_ds registry, spec §1.5).
MAX_LISTS_PER_CGROUP = 5
#: At most 32 candidates per ``evict`` call (cache_ext eviction context).
MAX_CANDIDATES = 32
#: ``list_iterate`` visits at most 4097 nodes per call (cache_ext spec §2.6).
MAX_ITERATE = 4097
#: ``list_sample`` detaches at most 2048 nodes (request * sample size).
MAX_SAMPLE = 2048

#: Global slots below this are reserved for the framework; policies use ``gi[GI_USER:]``.
GI_USER = 4
#: Reserved slot: ``vm.swappiness`` (0-200), written by kernel mode before ``init``.
GI_SWAPPINESS = 0
#: Reserved slots, written by kernel mode before ``init``: the queue a wait on the swap device
#: (``GI_SWAP_QUEUE``) or the file device (``GI_FILE_QUEUE``) is served on: ``QUEUE_CPU`` for a
#: synchronous device (zram: the task's own CPU), ``N >= 1`` block device N's queue, ``QUEUE_NONE``
#: without the device (no swap). Cache mode leaves them 0.
GI_SWAP_QUEUE = 1
GI_FILE_QUEUE = 2
QUEUE_NONE = -1
QUEUE_CPU = 0

#: Slots of ``State.stat``: counters a policy keeps under their /proc/vmstat names.
STAT_NAMES = (
    "pgactivate",
    "pgdeactivate",
    "pgrefill",
    "pgscan_anon",
    "pgscan_file",
    "pgrotated",
    "workingset_activate_anon",
    "workingset_activate_file",
    "workingset_restore_anon",
    "workingset_restore_file",
)
STAT_PGACTIVATE = 0
STAT_PGDEACTIVATE = 1
STAT_PGREFILL = 2
STAT_PGSCAN_ANON = 3
STAT_PGSCAN_FILE = 4
STAT_PGROTATED = 5
STAT_WS_ACTIVATE_ANON = 6
STAT_WS_ACTIVATE_FILE = 7
STAT_WS_RESTORE_ANON = 8
STAT_WS_RESTORE_FILE = 9
N_STAT = 16

#: Slots of ``State.work``, shared by every cgroup's state: work whose time kernel mode charges.
WORK_RMAP = 0  #: young bits tested through the reverse map (``folio_referenced``)
WORK_PTES = 1  #: young bits tested by a page-table walker (MGLRU aging, look-around)
WORK_CPU_NS = 2  #: ns of CPU a policy's own work took, as it models it (CAST's walker)
N_WORK = 4

PMD_SHIFT = 9  #: log2 of the page ids per page table (``State.pmd_seq``)
PMD_PAGES = 1 << PMD_SHIFT  #: page ids per page table: a PMD entry maps 512 PTEs (x86-64, 4 KiB)


CACHE_LINE = 64  #: bytes (x86-64, arm64)


def row_width(n_fields: int) -> int:
    """Columns allocated for ``n_fields`` int64 fields: 1, 2, 4 or 8, or ``n_fields`` above 8.

    With the array aligned to a cache line (:func:`line_aligned_zeros`) a row of up to 8 fields
    then lies in one line, so a page's row costs one line to load, not two for many pages:
    numpy starts large arrays 16 bytes into a line, where a 24-byte row crosses a line for one
    page in three and a 48-byte row for every other page. Wider rows span two lines or more
    either way and are not padded.
    """
    n = max(n_fields, 1)
    if n <= 2 or n > 8:
        return n
    return 4 if n <= 4 else 8


def line_aligned_zeros(rows: int, cols: int, dtype: type = np.int64) -> np.ndarray:
    """A zeroed C-contiguous ``(rows, cols)`` array whose first byte starts a cache line."""
    itemsize = np.dtype(dtype).itemsize
    nbytes = rows * cols * itemsize
    raw = np.zeros(nbytes + CACHE_LINE, dtype=np.uint8)
    offset = -raw.ctypes.data % CACHE_LINE
    return raw[offset : offset + nbytes].view(dtype).reshape(rows, cols)


class State(NamedTuple):
    """A policy's typed state; see the module docstring for every field's shape and meaning."""

    lst: np.ndarray
    lhd: np.ndarray
    pm: np.ndarray
    pf: np.ndarray
    gi: np.ndarray
    gf: np.ndarray
    cand: np.ndarray
    scores: np.ndarray
    sample: np.ndarray
    resident: np.ndarray
    cgroup_of: np.ndarray
    shadow: np.ndarray
    stat: np.ndarray
    work: np.ndarray
    pmd_seq: np.ndarray
    mm_seq: np.ndarray


def make_state(
    n_pages: int,
    n_cgroups: int = 1,
    n_int_fields: int = 1,
    n_float_fields: int = 1,
    n_int_globals: int = 16,
    n_float_globals: int = 16,
    n_tags: int = 1,
) -> State:
    """Allocate a zeroed :class:`State` with every list empty.

    Parameters
    ----------
    n_pages : int
        Distinct pages in the trace (dense ids ``0..n_pages-1``); must be >= 0.
    n_cgroups : int
        Number of cgroups; each may create ``MAX_LISTS_PER_CGROUP`` lists.
    n_int_fields, n_float_fields : int
        Columns of per-page metadata (at least one of each is allocated).
    n_int_globals, n_float_globals : int
        Global slots; ``n_int_globals`` is raised to at least ``GI_USER + 1``.
    n_tags : int
        Tasks (kernel mode: the trace's largest tag + 1), the length of ``mm_seq``.

    Returns
    -------
    State

    Raises
    ------
    ValueError
        If a count is negative.
    """
    if min(n_pages, n_cgroups, n_int_fields, n_float_fields, n_int_globals, n_float_globals, n_tags) < 0:
        raise ValueError("state sizes must be non-negative")
    n = max(n_pages, 1)
    if n_pages >= 2**31 - 1:
        raise ValueError(f"at most 2**31 - 2 pages are supported, got {n_pages}")
    lst = np.full((n, 3), -1, dtype=np.int32)
    lhd = np.full((max(n_cgroups, 1) * MAX_LISTS_PER_CGROUP, 5), -1, dtype=np.int64)
    lhd[:, LEN] = 0
    lhd[:, VERSION] = 0
    return State(
        lst=lst,
        lhd=lhd,
        pm=line_aligned_zeros(n, row_width(n_int_fields)),
        pf=np.zeros((n, max(n_float_fields, 1)), dtype=np.float64),
        gi=np.zeros(max(n_int_globals, GI_USER + 1), dtype=np.int64),
        gf=np.zeros(max(n_float_globals, 1), dtype=np.float64),
        cand=np.full(MAX_CANDIDATES, -1, dtype=np.int64),
        scores=np.zeros(MAX_SAMPLE, dtype=np.int64),
        sample=np.full(MAX_SAMPLE, -1, dtype=np.int64),
        resident=np.zeros(n, dtype=np.uint8),
        cgroup_of=np.full(n, -1 if n_cgroups > 1 else 0, dtype=np.int32),
        shadow=np.zeros(n, dtype=np.int64),
        stat=np.zeros(N_STAT, dtype=np.int64),
        work=np.zeros(N_WORK, dtype=np.int64),
        pmd_seq=np.full(n // PMD_PAGES + 1, -1, dtype=np.int64),
        mm_seq=np.full(max(n_tags, 1), -1, dtype=np.int64),
    )


def state_sharing_lists(
    base: State,
    n_int_fields: int = 1,
    n_float_fields: int = 1,
    n_int_globals: int = 16,
    n_float_globals: int = 16,
) -> State:
    """A State for another cgroup's policy: its own metadata and globals, ``base``'s lists.

    The list nodes and headers, the residency flags, the owners, the candidate and sampling
    scratch arrays, the work counters and the accessed-bit stamps (``pmd_seq``, ``mm_seq``) are
    the same objects as in ``base`` (one node per page, whoever owns it, as cache_ext's
    registry); ``pm``, ``pf``, ``gi`` and ``gf`` are fresh zeroed arrays.
    """
    n = base.lst.shape[0]
    return base._replace(
        pm=line_aligned_zeros(n, row_width(n_int_fields)),
        pf=np.zeros((n, max(n_float_fields, 1)), dtype=np.float64),
        gi=np.zeros(max(n_int_globals, GI_USER + 1), dtype=np.int64),
        gf=np.zeros(max(n_float_globals, 1), dtype=np.float64),
        stat=np.zeros(N_STAT, dtype=np.int64),
    )
