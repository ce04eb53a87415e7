"""Kernel mode's own state: :class:`KFramework`'s arrays, the slot numbers of its node scalars
(``N_*``, int64), float totals (``F_*``, ns) and per-task readahead state (``RA_*``), and the
node's free-memory accounting (:func:`_free_pages`, :func:`_zram_pages`).

Policies never see these arrays; the loop's subsystems (:mod:`pagesim.engine.kmode`) read and
write them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pagesim.core.jit import kernel
from pagesim.engine.memory import D_KIND, DEV_ZRAM

# node scalars (int64)
N_TOTAL = 0
N_RESIDENT = 1
N_ZRAM_STORED = 2
N_SWAP_USED = 3
N_SWAP_TOTAL = 4
N_WMIN = 5
N_WLOW = 6
N_WHIGH = 7
N_RA_MAX = 8
N_HAS_SWAP = 9
N_RR = 10  #: round-robin cursor over cgroups for node reclaim
N_LAST_OOM_TAG = 11
N_RES_ANON = 12
N_RES_FILE = 13
N_KSWAPD_AWAKE = 14  #: 1 from a wake-up below low until free is back at high
N_KSWAPD_PRIO = 15  #: kswapd's reclaim priority in its current run
N_KSWAPD_IDLE = 16  #: kswapd's fruitless batches in a row at priority 0
N_TIMED = 17  #: 1: tasks run in model-time order (``schedule = time``); 0: in trace order
N_HEAP_N = 18  #: actors in the scheduler's heap
N_LAST_SCANNED = 19  #: pages the last reclaim batch's policy reported looking at (-1: not reported)
N_KSWAPD_FAILURES = 20  #: kswapd runs in a row that gave up (``pgdat->kswapd_failures``)
N_NEXT_SLOT = 21  #: the next swap slot handed out (a device address)
N_STOP = 22  #: 1: the run stops when its first task is done (``stop = first``); 2: stopping now
N_DIRTY = 23  #: dirty file pages in memory (NR_FILE_DIRTY)
N_DIRTY_BG = 24  #: the node's background writeback threshold, pages (0: no flusher)
N_RING_HEAD = 25  #: oldest entry of ``fw.dirty_ring``
N_RING_N = 26  #: entries in ``fw.dirty_ring``
N_KC_DEPTH = 27  #: kcompressd's queue depth (0: no kcompressd)
N_RECLAIMER = 28  #: who runs the current reclaim batch (RECLAIM_*)
N_HAS_NEXT = 29  #: 1 if a policy is clairvoyant (Belady): ``a[A_NEXT]`` filled, told every access
N_ZRAM_UNITS = 30  #: the stored pages' zram costs summed (``fw.zram_cost``), 1/N_ZRAM_SCALE pages
N_ZRAM_SCALE = 31  #: zram holds ``ceil(N_ZRAM_UNITS / N_ZRAM_SCALE)`` pages of memory
N_CTX_RA = 32  #: 1: a random read miss may start a context readahead (``try_context_readahead``)
N_ADV_CALLS = 33  #: fadvise calls made (:mod:`.fadvise`)
N_ADV_DROPPED = 34  #: pages DONTNEED dropped from the page cache
N_ADV_WRITTEN = 35  #: dirty pages DONTNEED wrote back (and left in the cache, under writeback)
N_LEN = 36

#: kswapd stays asleep after this many failed runs until some reclaim frees a page
#: (``MAX_RECLAIM_RETRIES``, mm/internal.h; ``wakeup_kswapd`` skips a hopeless node).
MAX_RECLAIM_RETRIES = 16

# float scratch and totals (ns)
F_COST = 0  #: cost charged to whoever is reclaiming right now
F_KSWAPD_NS = 1
F_DIRECT_NS = 2
F_MAX_LAT = 3
F_MAX_FAULT = 4
F_CPU_NS = 5  #: per-access CPU
F_ZERO_NS = 6
F_SCAN_NS = 7
F_TOTAL_NS = 8
F_NOW = 9  #: model time of the last access, ns
F_RMAP_NS = 10  #: per young bit tested through the reverse map
F_PTE_NS = 11  #: per PTE a page-table walker reads
F_KC_BUSY = 12  #: model time until which kcompressd is busy with its queue, ns
F_KC_NS = 13  #: kcompressd's work in all, ns
F_BATCH_T0 = 14  #: model time the current reclaim batch started, ns
F_HINT_NS = 15  #: per access to a PROT_NONE page (a hinting fault)
F_QUEUE_NS = 16  #: tasks' waits for requests queued behind others, beyond their service, ns
F_QUEUED = 17  #: requests a task waited for that queued behind others
F_LEN = 18

# per-tag readahead state
RA_LAST = 0  #: last file page the tag read (``prev_pos``; -1 none)
RA_SIZE = 1  #: its window's size (``file_ra_state.size``; 0: no window yet)
RA_START = 2  #: its window's first page as a file index, a source id (``start``; -1 none)
RA_BYP_NEXT = 3  #: next page of the task's last bypassed request it has not read yet (-1 none)
RA_BYP_LEFT = 4  #: pages of that request still to be read
RA_MAX = 5  #: the task's readahead maximum, pages (``file->f_ra.ra_pages``; SEQUENTIAL doubles it)
RA_MODE = 6  #: the task's file mode bits set by fadvise (FMODE_RANDOM, FMODE_NOREUSE)
RA_ASYNC = 7  #: its window's ``async_size``: the page ``start + size - async_size`` has PG_readahead
RA_LEN = 8

FMODE_RANDOM = 1  #: POSIX_FADV_RANDOM: a miss reads only the page asked for
FMODE_NOREUSE = 2  #: POSIX_FADV_NOREUSE: read only for mapped accesses in Linux 6.6 (no effect here)

SWAP_DEV = 0
FILE_DEV = 1

#: A task's fruitless batches at priority 0 before the OOM killer acts whatever its policy says.
MAX_FRUITLESS_BATCHES = 1000
SWAP_CLUSTER_MAX = 32  #: pages one reclaim episode frees before the allocation is retried

N_LAT_BUCKETS = 64


class KFramework(NamedTuple):
    """Kernel mode's own arrays (not visible to policies); shapes in the module docstring."""

    used: np.ndarray  #: int64 (n_cgroups,) pages charged to each cgroup
    cap: np.ndarray  #: int64 (n_cgroups,) memory.max of each cgroup, pages
    hand: np.ndarray  #: int64 (n_cgroups,) default policy's CLOCK hand
    swapped: np.ndarray  #: uint8 (n_pages,) the page's content is in a swap slot
    shadowed: np.ndarray  #: uint8 (n_pages,) the page left a shadow entry
    owner_tag: np.ndarray  #: int32 (n_pages,) the process (tag) that faulted the page in
    ra_next: np.ndarray  #: int64 (n_pages,) next page of the same file, -1 if none in the trace
    ra_prev: np.ndarray  #: int64 (n_pages,) previous page of the same file, -1 if none in the trace
    tag_ns: np.ndarray  #: float64 (n_tags,) time of each task: CPU plus waits
    tag_ops: np.ndarray  #: int64 (n_tags,) accesses of each task
    tag_majflt: np.ndarray  #: int64 (n_tags,) waits for I/O of each task (swap-in, file read)
    tag_maxwait: np.ndarray  #: float64 (n_tags,) the longest such wait of each task, ns
    tag_dead: np.ndarray  #: uint8 (n_tags,) killed by the OOM killer
    tag_anon: np.ndarray  #: int64 (n_tags,) anon pages owned (resident or swapped)
    tag_ra: np.ndarray  #: int64 (n_tags, RA_LEN) readahead state per task
    node: np.ndarray  #: int64 (N_LEN,)
    f: np.ndarray  #: float64 (F_LEN,)
    dev: np.ndarray  #: float64 (2, D_LEN): swap device, file device
    dev_last: np.ndarray  #: int64 (2,) device address of the previous request's last page
    dev_busy: np.ndarray  #: float64 (2, 1 + channels): each device's link, then channels, busy until, ns
    addr: np.ndarray  #: int64 (n_pages,) device address: a file page's source id, an anon page's slot
    lat: np.ndarray  #: int64 (N_LAT_BUCKETS,) accesses by latency, bucket = bit length of ns
    victims: np.ndarray  #: int64 (MAX_CANDIDATES,) scratch: pages one reclaim batch evicts
    one_by_one: np.ndarray  #: uint8 (n_cgroups,) 1 if the cgroup's policy proposes one page a call
    no_fallback: np.ndarray  #: uint8 (n_cgroups,) 1 if the policy is the kernel's own (no default under it)
    fill: np.ndarray  #: int64 (2 * ra_max + 1,) scratch: pages one access brings in
    fill_flags: np.ndarray  #: uint8 (2 * ra_max + 1,) their flags
    fill_ra: np.ndarray  #: uint8 (2 * ra_max + 1,) 1 for readahead pages
    release: np.ndarray  #: int64 (n,) or (0,): earliest start of each access, ns of model time
    order: np.ndarray  #: int64 (n,) trace rows grouped by task, each task's in trace order
    task_first: np.ndarray  #: int64 (n_tags + 1,) where each task's rows start in ``order``
    task_pos: np.ndarray  #: int64 (n_tags,) index in ``order`` of each task's next access
    clock: np.ndarray  #: float64 (n_tags + 1,) model time of each task and (last) of kswapd, ns
    tag_stall: np.ndarray  #: float64 (n_tags,) reclaim time the task's pending access has run
    tag_prio: np.ndarray  #: int64 (n_tags,) its direct-reclaim priority (12 when not reclaiming)
    tag_idle: np.ndarray  #: int64 (n_tags,) its fruitless batches in a row at priority 0
    tag_idle_scanned: np.ndarray  #: int64 (n_tags,) pages its policy looked at in them (-1: unknown)
    tag_admit: np.ndarray  #: int64 (n_tags,) ``admit``'s answer for the pending access (-1: not asked)
    tag_stalled: np.ndarray  #: uint8 (n_tags,) 1 once its pending access counted an allocstall
    tag_reclaimer: np.ndarray  #: int64 (n_tags,) its reclaim episode: direct, limit, -1 none
    tag_reclaimed: np.ndarray  #: int64 (n_tags,) pages its episode has freed so far
    heap: np.ndarray  #: int64 (n_tags + 1,) the scheduler's min-heap of actors
    heap_pos: np.ndarray  #: int64 (n_tags + 1,) each actor's slot in ``heap``, -1 if absent
    dirty_ring: np.ndarray  #: int64 (n_pages,) file pages in the order they were dirtied (a ring)
    in_ring: np.ndarray  #: uint8 (n_pages,) 1 while the page has an entry in ``dirty_ring``
    next_use: np.ndarray  #: int64 (n,) or (0,): each access's next access to its page (trace order)
    upcoming: np.ndarray  #: int64 (n_pages,) or (0,): each page's next access not yet run
    dirty_cg: np.ndarray  #: int64 (n_cgroups,) dirty file pages charged to each cgroup
    dirty_bg_cg: np.ndarray  #: int64 (n_cgroups,) each cgroup's background threshold, pages
    zram_cost: np.ndarray  #: int64 (n_pages,) what the page adds to zram while stored, 1/N_ZRAM_SCALE pages
    zram_cg: np.ndarray  #: int64 (n_cgroups,) the zram costs of the pages each cgroup swapped out
    swap_cg: np.ndarray  #: int64 (n_pages,) the cgroup a stored page was swapped out from (-1 none)
    adv_row: np.ndarray  #: int64 (k,) the row each fadvise call precedes (by task, each in row order)
    adv_hint: np.ndarray  #: int64 (k,) their POSIX_FADV_* hints
    adv_ptr: np.ndarray  #: int64 (k + 1,) call i's pages: ``adv_pages[adv_ptr[i]:adv_ptr[i + 1]]``
    adv_pages: np.ndarray  #: int64 (m,) dense page ids of the DONTNEED ranges
    adv_first: np.ndarray  #: int64 (n_tags + 1,) where each task's calls start in ``adv_row``
    adv_pos: np.ndarray  #: int64 (n_tags,) each task's next call not yet made


@kernel
def _zram_pages(fw):  # type: ignore[no-untyped-def]
    """Pages of memory zram holds: its stored pages' costs summed, rounded up once (0 without
    zram swap; :mod:`pagesim.engine.zram`)."""
    if fw.dev[SWAP_DEV, D_KIND] != DEV_ZRAM or fw.node[N_HAS_SWAP] == 0:
        return 0
    return (fw.node[N_ZRAM_UNITS] + fw.node[N_ZRAM_SCALE] - 1) // fw.node[N_ZRAM_SCALE]


@kernel
def _zram_pages_of(fw, cg):  # type: ignore[no-untyped-def]
    """Pages of memory zram holds for the pages cgroup ``cg`` swapped out, rounded up (what its
    lruvec counts in anon's part, ``a[A_ZRAM_PAGES]``; with one cgroup, :func:`_zram_pages`)."""
    if fw.dev[SWAP_DEV, D_KIND] != DEV_ZRAM or fw.node[N_HAS_SWAP] == 0:
        return 0
    return (fw.zram_cg[cg] + fw.node[N_ZRAM_SCALE] - 1) // fw.node[N_ZRAM_SCALE]


@kernel
def _free_pages(fw):  # type: ignore[no-untyped-def]
    return fw.node[N_TOTAL] - fw.node[N_RESIDENT] - _zram_pages(fw)
