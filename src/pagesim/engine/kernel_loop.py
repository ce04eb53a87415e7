"""The simulation loop in kernel mode: anon and file pages, swap, readahead, watermark reclaim.

Terms (Linux names; shared/reference/kernel_policies_spec.md §1, §4)
-------------------------------------------------------------------
*free* pages are the node's pages minus resident pages minus what zram holds compressed
(:func:`_zram_pages`: each stored page's cost, :mod:`pagesim.engine.zram`).
*Watermarks* min < low < high (:func:`pagesim.engine.memory.watermarks`). An allocation that
would leave free below min makes the allocating task reclaim (*direct reclaim*: an episode
goes down the priorities in batches until it has freed 32 pages, SWAP_CLUSTER_MAX, as
``do_try_to_free_pages`` does, and only then is the allocation retried; its time is charged to
the task); after every access, free below low wakes *kswapd*, which
reclaims in batches of 32 until free is back at high (its CPU is counted apart, not charged to
tasks). A cgroup at its ``memory.max`` reclaims from itself first (*limit reclaim*). When
reclaim frees nothing at priority 0, the OOM killer kills the process (tag) owning the most
anonymous memory and frees it.

What each access does
---------------------
* anon (always mapped): a hit sets the page's young bit (the PTE accessed bit) and nothing else
  -- no hook is called, as no kernel code runs on a mapped access -- unless the policy made the
  page PROT_NONE (``PROT_NONE`` flag): then the access is a hinting fault (``numa_hint_faults``,
  ``hint_fault_ns``) and ``accessed`` is called; the first touch is a
  zero-fill fault; touching a page that was swapped out is a major fault that reads it back
  (``pswpin``; ``workingset_refault_anon`` if it left a shadow entry) and charges the task the
  device's time. A write dirties the page and frees a swap copy it still had.
* file (read()/write()): a read calls ``accessed`` (``folio_mark_accessed``; a buffered write
  does not: ``generic_perform_write`` takes the folio without FGP_ACCESSED); a hit on a page
  carrying PG_readahead starts the next window asynchronously. A miss reads the page, and on a
  sequential stream a readahead window (grown x4 then x2 up to ``ra_pages``), the task waiting
  for the request; each page gets ``added`` (``a[A_READAHEAD]`` for those not asked for) and the
  demand page then ``accessed``, as in the kernel's read path.
* free: the owner unmaps or deletes the page; it leaves memory without a shadow entry and any
  swap slot it held is released.

Eviction (a candidate the policy proposed, or the default policy's): a clean file page is
dropped; a dirty file page is written back first; an anon page is written to swap unless its
swap copy is still valid (``pswpout``), and kept if swap is full. Every evicted page keeps a
shadow entry (``s.shadow``, written by the policy's ``removed`` hook) until it is faulted back
or freed.

Writeback: a file page turns dirty on a write; when the node's dirty file pages exceed
``dirty_background_ratio`` of memory, or a cgroup's exceed it of its ``memory.max``, the flusher
writes back the pages dirtied first (:func:`_flush`) until they are under it again (no task
waits for it; ``pgpgout``, ``flusher_writeback``).

Known simplifications (for future work)
---------------------------------------
One node, one zone; readahead reads only pages that occur in the trace (``ra_next``); a dirty
file page reclaim meets is written back by the reclaimer at once (the kernel parks it with
PG_reclaim until the flusher has written it); the flusher has no ``dirty_expire`` (30 s) and
writes no faster than tasks dirty; file pages are never mapped (mmap'd file access is not
modelled yet).

Devices (:mod:`pagesim.engine.memory`): by default each request is timed alone. A device with
``channels`` or ``link_page_ns`` queues them (:func:`_occupy`): ``fw.dev_busy`` keeps, per
device, when its link and each channel are busy until (model time, ns); requests arrive in
model-time order (the scheduler runs the earliest actor), so first come first served is exact.
A task waits for its request's queueing and service; asynchronous readahead, the flusher's
write-back, reclaim's write-back and swap-out occupy the device without anyone waiting. A page
read by asynchronous readahead is resident at once (the wait for a page still under I/O is not
modelled). What a policy is told a refault cost (``a[A_WAIT_NS]``) is the request's service
alone, not its queueing behind others (CAST's refault cost). A read the policy's ``admit``
bypasses reads its readahead window in one request, the pages going to the reader and not into
the cache; the reader's next reads of that window are served from it (``RA_BYP_*``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.lists import _unlink
from pagesim.core.state import (
    A_CAPACITY,
    A_CGROUP,
    A_FREE,
    A_HIT,
    A_KIND,
    A_MEMORY,
    A_MODE,
    A_N_PAGES,
    A_NEXT,
    A_NOW_NS,
    A_OP,
    A_PAGE,
    A_PRIORITY,
    A_READAHEAD,
    A_REASON,
    A_RECLAIMER,
    A_REFAULT,
    A_REQUEST,
    A_SCANNED,
    A_SEQ,
    A_SIZE,
    A_SWAP_FREE,
    A_TAG,
    A_TIME,
    A_USED,
    A_WAIT_NS,
    A_WANT_OOM,
    A_WMARK_HIGH,
    A_WMARK_LOW,
    A_ZRAM_PAGES,
    ANON,
    DIRTY,
    FLAG_MASK,
    LIST,
    MAX_CANDIDATES,
    MODE_KERNEL,
    PROT_NONE,
    RA_MARK,
    REASON_FALLBACK,
    REASON_FREED,
    REASON_POLICY,
    RECLAIM_DIRECT,
    RECLAIM_KSWAPD,
    RECLAIM_LIMIT,
    REFERENCED,
    RESIDENT,
    SWAPCACHE,
    WORK_PTES,
    WORK_RMAP,
    YOUNG,
)
from pagesim.engine import counters as C
from pagesim.engine.loop import (
    CFG_END,
    CFG_HAS_ADMIT,
    CFG_INIT_RESULT,
    CFG_INITED,
    CFG_START,
    CFG_WARMUP,
    _proposed_before,
)
from pagesim.engine.memory import (
    D_BUSY_WRITE_NS,
    D_BUSY_WRITE_PAGE_NS,
    D_CHANNELS,
    D_CPU_READ_NS,
    D_CPU_WRITE_NS,
    D_KIND,
    D_LINK_PAGE_NS,
    D_READ_NS,
    D_READ_PAGE_NS,
    D_SEEK_NS,
    D_WRITE_NS,
    D_WRITE_PAGE_NS,
    DEV_ZRAM,
)

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
N_LEN = 32

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
RA_LAST = 0  #: last file page the tag read
RA_SIZE = 1  #: current window size
RA_END = 2  #: first page after the current window (-1 none)
RA_BYP_NEXT = 3  #: next page of the task's last bypassed request it has not read yet (-1 none)
RA_BYP_LEFT = 4  #: pages of that request still to be read
RA_LEN = 5

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
    fill: np.ndarray  #: int64 (ra_max + 1,) scratch: pages one access brings in
    fill_flags: np.ndarray  #: uint8 (ra_max + 1,) their flags
    fill_ra: np.ndarray  #: uint8 (ra_max + 1,) 1 for readahead pages
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


# ---------------------------------------------------------------------------- devices and memory


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


@kernel
def _read_ns(fw, d, first_page, n):  # type: ignore[no-untyped-def]
    """Time a task waits for ``n`` pages read in one request from device ``d``.

    A request seeks unless it starts at the device address after the previous request's last
    (``fw.addr``: a file page's block in its file, an anon page's swap slot).
    """
    if n <= 0:
        return 0.0
    if fw.dev[d, D_KIND] == DEV_ZRAM:
        return n * fw.dev[d, D_CPU_READ_NS]
    t = fw.dev[d, D_READ_NS] + (n - 1) * fw.dev[d, D_READ_PAGE_NS]
    addr = fw.addr[first_page]
    if fw.dev_last[d] < 0 or addr != fw.dev_last[d] + 1:
        t += fw.dev[d, D_SEEK_NS]
    fw.dev_last[d] = addr + n - 1
    return t


@kernel
def _queued(fw, d):  # type: ignore[no-untyped-def]
    """True if device ``d`` queues requests (finite channels or a link; never zram)."""
    return fw.dev[d, D_KIND] != DEV_ZRAM and (fw.dev[d, D_CHANNELS] > 0 or fw.dev[d, D_LINK_PAGE_NS] > 0)


@kernel
def _occupy(fw, d, now, work, n):  # type: ignore[no-untyped-def]
    """Queue a request of ``n`` pages and ``work`` ns at device ``d`` at model time ``now``;
    return how long after ``now`` it completes (queueing plus service).

    It starts on the channel free first, when that is free (first come first served: requests
    arrive in model-time order), and holds it until both its work and its transfer over the
    link (``n * link_page_ns``, one transfer at a time, from its start or when the link is
    free) are done. Without channels and link (the default) it completes after ``work``.
    """
    if not _queued(fw, d):
        return work
    nch = int(fw.dev[d, D_CHANNELS])
    best = 1
    for c in range(2, nch + 1):
        if fw.dev_busy[d, c] < fw.dev_busy[d, best]:
            best = c
    start = max(now, fw.dev_busy[d, best]) if nch > 0 else now
    done = start + work
    link = n * fw.dev[d, D_LINK_PAGE_NS]
    if link > 0:
        end = max(start, fw.dev_busy[d, 0]) + link
        fw.dev_busy[d, 0] = end
        done = max(done, end)
    if nch > 0:
        fw.dev_busy[d, best] = done
    return done - now


@kernel
def _service_ns(fw, d, work, n):  # type: ignore[no-untyped-def]
    """The request's time alone: its work, or its transfer over the link if that is longer."""
    if not _queued(fw, d):
        return work
    return max(work, n * fw.dev[d, D_LINK_PAGE_NS])


@kernel
def _read_wait(fw, d, now, first_page, n):  # type: ignore[no-untyped-def]
    """``(wait, service)`` of a read of ``n`` pages a task issues at ``now`` and waits for: its
    queueing plus service, and its service alone (what the device did for it); counts the
    queueing in ``F_QUEUE_NS``/``F_QUEUED``."""
    work = _read_ns(fw, d, first_page, n)
    if work <= 0.0 or not _queued(fw, d):
        return work, work
    wait = _occupy(fw, d, now, work, n)
    service = _service_ns(fw, d, work, n)
    if wait > service:
        fw.f[F_QUEUE_NS] += wait - service
        fw.f[F_QUEUED] += 1.0
    return wait, service


@kernel
def _write_busy(fw, d, now, n):  # type: ignore[no-untyped-def]
    """A write of ``n`` pages nobody waits for occupies a queued device ``d`` from ``now``."""
    if n > 0 and _queued(fw, d):
        _occupy(fw, d, now, fw.dev[d, D_BUSY_WRITE_NS] + (n - 1) * fw.dev[d, D_BUSY_WRITE_PAGE_NS], n)


@kernel
def _write_ns(fw, d, n):  # type: ignore[no-untyped-def]
    """Time the writer spends on ``n`` pages written to device ``d`` (zram: compression)."""
    if fw.dev[d, D_KIND] == DEV_ZRAM:
        return n * fw.dev[d, D_CPU_WRITE_NS]
    return fw.dev[d, D_WRITE_NS] + max(n - 1, 0) * fw.dev[d, D_WRITE_PAGE_NS]


@kernel
def _swap_out_ns(fw, out):  # type: ignore[no-untyped-def]
    """What writing one anon page to swap costs the reclaimer.

    With kcompressd (``N_KC_DEPTH`` > 0; kcompressd-unofficial, CAST's ``kcompressd``) kswapd
    hands the page to a per-node thread, a FIFO server that compresses and writes one page in
    the time the reclaimer would have, and goes on (enqueueing costs nothing here); with the
    queue full, kswapd first processes the oldest queued page itself (so it pays one page's
    time and the queue keeps its length). Direct reclaim writes its pages itself. The page
    counts as freed at once: at most ``depth`` pages are held by the queue.
    """
    ns = _write_ns(fw, SWAP_DEV, 1)
    depth = fw.node[N_KC_DEPTH]
    if depth <= 0 or fw.node[N_RECLAIMER] != RECLAIM_KSWAPD or ns <= 0.0:
        return ns
    t0 = fw.f[F_BATCH_T0]
    queued = math.ceil((fw.f[F_KC_BUSY] - t0) / ns) if fw.f[F_KC_BUSY] > t0 else 0
    if queued >= depth:
        return ns
    fw.f[F_KC_BUSY] = max(fw.f[F_KC_BUSY], t0) + ns
    fw.f[F_KC_NS] += ns
    out[C.KCOMPRESSD] += 1
    return 0.0


@kernel
def _release_swap(fw, page):  # type: ignore[no-untyped-def]
    if fw.swapped[page] != 0:
        fw.swapped[page] = 0
        fw.node[N_SWAP_USED] -= 1
        fw.node[N_ZRAM_STORED] -= 1
        fw.node[N_ZRAM_UNITS] -= fw.zram_cost[page]
        fw.zram_cg[fw.swap_cg[page]] -= fw.zram_cost[page]
        fw.swap_cg[page] = -1


# ---------------------------------------------------------------------------- removal and eviction


@kernel_inline
def _kremove(ss, fw, r, out, removed, page, reason, t, written_ns):  # type: ignore[no-untyped-def]
    """Take ``page`` out of memory: ``removed`` hook (told what writing it out cost, ns, -1 if it
    was not written: ``r[A_WAIT_NS]``), unlink, counters."""
    s = ss[0]
    cg = s.cgroup_of[page]
    r[A_TIME] = t
    r[A_WAIT_NS] = int(written_ns)
    r[A_PAGE] = page
    r[A_CGROUP] = cg
    r[A_SIZE] = 1
    r[A_REASON] = reason
    r[A_KIND] = 1 if s.resident[page] & ANON else 0
    removed(ss, cg, r)
    if s.lst[page, LIST] >= 0:
        _unlink(s, page)
    if s.resident[page] & ANON:
        fw.node[N_RES_ANON] -= 1
    else:
        fw.node[N_RES_FILE] -= 1
        if s.resident[page] & DIRTY:
            fw.node[N_DIRTY] -= 1
            fw.dirty_cg[cg] -= 1
    s.resident[page] = 0
    s.cgroup_of[page] = -1
    fw.used[cg] -= 1
    fw.node[N_RESIDENT] -= 1


@kernel_inline
def _evict_page(ss, fw, r, out, removed, page, reason, t):  # type: ignore[no-untyped-def]
    """Evict one page as reclaim does; return 1 if freed, 0 if it had to stay (swap full)."""
    s = ss[0]
    v = s.resident[page]
    if v == 0:
        return 0
    written = -1.0
    if v & ANON:
        if (v & SWAPCACHE) == 0 or (v & DIRTY) != 0:
            if fw.node[N_HAS_SWAP] == 0 or fw.node[N_SWAP_USED] >= fw.node[N_SWAP_TOTAL]:
                out[C.SWAP_FULL] += 1
                return 0
            if fw.swapped[page] == 0:
                fw.node[N_SWAP_USED] += 1
                fw.node[N_ZRAM_STORED] += 1
                fw.node[N_ZRAM_UNITS] += fw.zram_cost[page]
                cg = s.cgroup_of[page]
                fw.zram_cg[cg] += fw.zram_cost[page]
                fw.swap_cg[page] = cg
                fw.addr[page] = fw.node[N_NEXT_SLOT]  # slots are handed out in order
                fw.node[N_NEXT_SLOT] += 1
            fw.swapped[page] = 1
            written = _write_ns(fw, SWAP_DEV, 1)
            fw.f[F_COST] += _swap_out_ns(fw, out)
            _write_busy(fw, SWAP_DEV, fw.f[F_BATCH_T0], 1)
            out[C.PSWPOUT] += 1
    elif v & DIRTY:
        written = _write_ns(fw, FILE_DEV, 1)
        fw.f[F_COST] += written
        _write_busy(fw, FILE_DEV, fw.f[F_BATCH_T0], 1)
        out[C.PGPGOUT] += 1
        out[C.DIRTY_WRITEBACK] += 1
    fw.shadowed[page] = 1
    _kremove(ss, fw, r, out, removed, page, reason, t, written)
    out[C.EVICTIONS] += 1
    return 1


@kernel
def _evictable(s, fw, page):  # type: ignore[no-untyped-def]
    """False for an anon page that would need a swap slot when swap is full."""
    v = s.resident[page]
    if (v & ANON) == 0 or ((v & SWAPCACHE) != 0 and (v & DIRTY) == 0):
        return True
    return fw.node[N_HAS_SWAP] != 0 and fw.node[N_SWAP_USED] < fw.node[N_SWAP_TOTAL]


@kernel
def _pick_fallback(s, fw, cg, n):  # type: ignore[no-untyped-def]
    """Default policy: CLOCK sweeping page ids over ``cg``'s pages; write up to ``n`` victims."""
    n_pages = s.lst.shape[0]
    got = 0
    hand = fw.hand[cg]
    budget = 2 * n_pages + 1
    while got < n and budget > 0:
        page = hand
        hand += 1
        if hand >= n_pages:
            hand = 0
        budget -= 1
        v = s.resident[page]
        if v == 0 or s.cgroup_of[page] != cg:
            continue
        if v & (REFERENCED | YOUNG):
            s.resident[page] = v & (FLAG_MASK ^ (REFERENCED | YOUNG))
            continue
        if not _evictable(s, fw, page) or _proposed_before(fw.victims, got, page):
            continue
        fw.victims[got] = page
        got += 1
    fw.hand[cg] = hand
    return got


@kernel
def _collect_candidates(s, fw, out, cg, n):  # type: ignore[no-untyped-def]
    """Validate the policy's ``n`` proposals; copy the valid ones to ``fw.victims``."""
    n_pages = s.lst.shape[0]
    if n > MAX_CANDIDATES:
        # cache_ext aborts the attempt: one refused proposal, whatever count was returned
        out[C.REJ_OVERFLOW] += 1
        out[C.REJECTED] += 1
        out[C.PROPOSED] += 1
        return 0
    if n > 0:
        out[C.PROPOSED] += n
    valid = 0
    for i in range(max(n, 0)):
        c = s.cand[i]
        if c < 0 or c >= n_pages:
            out[C.REJ_OUT_OF_RANGE] += 1
            out[C.REJECTED] += 1
        elif _proposed_before(s.cand, i, c):
            out[C.REJ_DUPLICATE] += 1
            out[C.REJECTED] += 1
        elif s.resident[c] == 0:
            out[C.REJ_NOT_RESIDENT] += 1
            out[C.REJECTED] += 1
        elif s.cgroup_of[c] != cg:
            out[C.REJ_FOREIGN] += 1
            out[C.REJECTED] += 1
        else:
            fw.victims[valid] = c
            valid += 1
    return valid


@kernel_inline
def _reclaim(ss, fw, a, r, out, evict, removed, cg, request, prio, reclaimer, t):  # type: ignore[no-untyped-def]
    """One reclaim batch from cgroup ``cg``: ask its policy, validate, evict, fall back."""
    s = ss[0]
    a[A_REQUEST] = request
    a[A_PRIORITY] = prio
    a[A_RECLAIMER] = reclaimer
    a[A_USED] = fw.used[cg]
    a[A_CAPACITY] = fw.cap[cg]
    a[A_FREE] = _free_pages(fw)
    a[A_ZRAM_PAGES] = _zram_pages_of(fw, cg)
    a[A_SWAP_FREE] = fw.node[N_SWAP_TOTAL] - fw.node[N_SWAP_USED] if fw.node[N_HAS_SWAP] else 0
    # A policy written for cache mode proposes one page per call: ask it once per page.
    one_by_one = fw.one_by_one[cg] != 0
    rounds = request if one_by_one else 1
    freed = 0
    policy_done = False
    for rnd in range(rounds + 1):
        fallback = rnd == rounds or policy_done
        if fallback:
            if freed * 100 > 80 * request or fw.no_fallback[cg] != 0:
                break
            out[C.FALLBACK_CALLS] += 1
            nv = _pick_fallback(s, fw, cg, request - freed)
            fw.f[F_COST] += nv * fw.f[F_SCAN_NS]
        else:
            a[A_REQUEST] = 1 if one_by_one else request
            a[A_SCANNED] = -1
            out[C.EVICT_CALLS] += 1
            rmap0 = s.work[WORK_RMAP]
            ptes0 = s.work[WORK_PTES]
            nv = _collect_candidates(s, fw, out, cg, evict(ss, cg, a))
            if a[A_SCANNED] < 0:
                fw.node[N_LAST_SCANNED] = -1
            elif fw.node[N_LAST_SCANNED] >= 0:
                fw.node[N_LAST_SCANNED] += a[A_SCANNED]
            scanned = a[A_SCANNED] if a[A_SCANNED] >= 0 else nv
            fw.f[F_COST] += (
                scanned * fw.f[F_SCAN_NS]
                + (s.work[WORK_RMAP] - rmap0) * fw.f[F_RMAP_NS]
                + (s.work[WORK_PTES] - ptes0) * fw.f[F_PTE_NS]
            )
            if reclaimer == RECLAIM_KSWAPD:
                out[C.PGSCAN_KSWAPD] += nv
            else:
                out[C.PGSCAN_DIRECT] += nv
        for i in range(nv):
            if freed >= request:
                if not fallback:
                    out[C.UNUSED_CANDIDATES] += 1
                continue
            reason = REASON_FALLBACK if fallback else REASON_POLICY
            if _evict_page(ss, fw, r, out, removed, fw.victims[i], reason, t) == 1:
                freed += 1
                if fallback:
                    out[C.FALLBACK_EVICTIONS] += 1
                else:
                    out[C.POLICY_EVICTIONS] += 1
        if fallback:
            break
        if freed >= request or nv == 0:
            policy_done = True
    if reclaimer == RECLAIM_KSWAPD:
        out[C.PGSTEAL_KSWAPD] += freed
    else:
        out[C.PGSTEAL_DIRECT] += freed
    return freed


@kernel
def _oom_victim(fw):  # type: ignore[no-untyped-def]
    """The live task owning the most anonymous memory, or -1."""
    victim = -1
    most = 0
    for tag in range(fw.tag_anon.shape[0]):
        if fw.tag_dead[tag] == 0 and fw.tag_anon[tag] > most:
            most = fw.tag_anon[tag]
            victim = tag
    return victim


@kernel
def _pick_cgroup(fw):  # type: ignore[no-untyped-def]
    """Node reclaim visits the cgroups in turn, skipping empty ones."""
    k = fw.used.shape[0]
    for _ in range(k):
        cg = fw.node[N_RR] % k
        fw.node[N_RR] += 1
        if fw.used[cg] > 0:
            return cg
    return 0


# ---------------------------------------------------------------------------- the scheduler
#
# Actors are the tasks (tags 0..n_tags-1) and kswapd (id n_tags). Each has a clock in model time
# (``fw.clock``, ns). The next to run is the one with the smallest key: (clock, trace row of its
# next access) with ``schedule = time``, the trace row alone with ``schedule = trace``; kswapd's
# row is -1, so in trace mode it runs to completion before the next access (instantaneous
# reclaim), and in time mode it goes first among equals. A binary min-heap of actors (``fw.heap``,
# positions in ``fw.heap_pos``) keeps the order; keys only grow, so a changed actor sifts down.


@kernel
def _actor_row(fw, x):  # type: ignore[no-untyped-def]
    if x >= fw.task_pos.shape[0]:
        return -1
    return fw.order[fw.task_pos[x]]


@kernel
def _before(fw, x, y):  # type: ignore[no-untyped-def]
    """True if actor ``x`` runs before actor ``y``."""
    if fw.node[N_TIMED] != 0:
        cx = fw.clock[x]
        cy = fw.clock[y]
        if cx != cy:
            return cx < cy
    return _actor_row(fw, x) < _actor_row(fw, y)


@kernel
def _heap_set(fw, slot, x):  # type: ignore[no-untyped-def]
    fw.heap[slot] = x
    fw.heap_pos[x] = slot


@kernel
def _heap_up(fw, slot):  # type: ignore[no-untyped-def]
    x = fw.heap[slot]
    while slot > 0:
        parent = (slot - 1) >> 1
        if not _before(fw, x, fw.heap[parent]):
            break
        _heap_set(fw, slot, fw.heap[parent])
        slot = parent
    _heap_set(fw, slot, x)


@kernel
def _heap_down(fw, slot):  # type: ignore[no-untyped-def]
    n = fw.node[N_HEAP_N]
    x = fw.heap[slot]
    while True:
        child = 2 * slot + 1
        if child >= n:
            break
        if child + 1 < n and _before(fw, fw.heap[child + 1], fw.heap[child]):
            child += 1
        if not _before(fw, fw.heap[child], x):
            break
        _heap_set(fw, slot, fw.heap[child])
        slot = child
    _heap_set(fw, slot, x)


@kernel
def _heap_push(fw, x):  # type: ignore[no-untyped-def]
    if fw.heap_pos[x] >= 0:
        return
    n = fw.node[N_HEAP_N]
    fw.node[N_HEAP_N] = n + 1
    _heap_set(fw, n, x)
    _heap_up(fw, n)


@kernel
def _heap_remove(fw, x):  # type: ignore[no-untyped-def]
    slot = fw.heap_pos[x]
    if slot < 0:
        return
    n = fw.node[N_HEAP_N] - 1
    fw.node[N_HEAP_N] = n
    fw.heap_pos[x] = -1
    if slot == n:
        return
    moved = fw.heap[n]
    _heap_set(fw, slot, moved)
    _heap_up(fw, slot)
    _heap_down(fw, fw.heap_pos[moved])


@kernel
def _heap_fix(fw, x):  # type: ignore[no-untyped-def]
    """Actor ``x``'s key grew: move it down."""
    slot = fw.heap_pos[x]
    if slot >= 0:
        _heap_down(fw, slot)


@kernel
def _wake_kswapd(fw, out, now):  # type: ignore[no-untyped-def]
    """Free below low wakes kswapd (``wakeup_kswapd``); it starts at DEF_PRIORITY."""
    if fw.node[N_KSWAPD_AWAKE] != 0 or _free_pages(fw) >= fw.node[N_WLOW]:
        return
    if fw.node[N_KSWAPD_FAILURES] >= MAX_RECLAIM_RETRIES:
        return  # a hopeless node: direct reclaim has to make progress first
    out[C.KSWAPD_WAKE] += 1
    fw.node[N_KSWAPD_AWAKE] = 1
    fw.node[N_KSWAPD_PRIO] = 12
    fw.node[N_KSWAPD_IDLE] = 0
    k = fw.clock.shape[0] - 1
    fw.clock[k] = max(fw.clock[k], now)
    _heap_push(fw, k)


@kernel
def _kill_rest(fw, out, tag):  # type: ignore[no-untyped-def]
    """A killed task's accesses still to come are skipped; returns how many."""
    rest = fw.task_first[tag + 1] - fw.task_pos[tag]
    out[C.OOM_SKIPPED] += rest
    fw.task_pos[tag] = fw.task_first[tag + 1] - 1  # keeps _actor_row valid
    _heap_remove(fw, tag)
    return rest


@kernel
def _dirtied(fw, page, cg):  # type: ignore[no-untyped-def]
    """A file page of cgroup ``cg`` turned dirty: count it, queue it for the flusher."""
    fw.node[N_DIRTY] += 1
    fw.dirty_cg[cg] += 1
    if fw.in_ring[page] == 0:
        size = fw.dirty_ring.shape[0]
        fw.dirty_ring[(fw.node[N_RING_HEAD] + fw.node[N_RING_N]) % size] = page
        fw.node[N_RING_N] += 1
        fw.in_ring[page] = 1


@kernel
def _flush(s, fw, out, cg):  # type: ignore[no-untyped-def]
    """Background writeback (the flusher, ``wb_start_background_writeback``): while the node's
    or cgroup ``cg``'s dirty file pages are over their background threshold, write back the
    pages dirtied first, as one request at the current access's time (no task waits for it; a
    queued device is occupied). Returns the pages written."""
    size = fw.dirty_ring.shape[0]
    n = 0
    while fw.node[N_RING_N] > 0 and (
        fw.node[N_DIRTY] > fw.node[N_DIRTY_BG] or fw.dirty_cg[cg] > fw.dirty_bg_cg[cg]
    ):
        page = fw.dirty_ring[fw.node[N_RING_HEAD]]
        fw.node[N_RING_HEAD] = (fw.node[N_RING_HEAD] + 1) % size
        fw.node[N_RING_N] -= 1
        fw.in_ring[page] = 0
        v = s.resident[page]
        if v != 0 and (v & ANON) == 0 and (v & DIRTY) != 0:
            s.resident[page] = v & (FLAG_MASK ^ DIRTY)
            fw.node[N_DIRTY] -= 1
            fw.dirty_cg[s.cgroup_of[page]] -= 1
            n += 1
    out[C.PGPGOUT] += n
    out[C.FLUSHED] += n
    _write_busy(fw, FILE_DEV, fw.f[F_NOW], n)
    return n


@kernel
def _stop_all(fw, out):  # type: ignore[no-untyped-def]
    """End the run now (``stop = first``): every task's accesses still to come are not run;
    returns how many."""
    rest = 0
    for tg in range(fw.task_pos.shape[0]):
        if fw.heap_pos[tg] >= 0:
            rest += fw.task_first[tg + 1] - fw.task_pos[tg]
            fw.task_pos[tg] = fw.task_first[tg + 1] - 1
    for x in range(fw.heap_pos.shape[0]):
        fw.heap_pos[x] = -1
    fw.node[N_HEAP_N] = 0
    fw.node[N_KSWAPD_AWAKE] = 0
    out[C.STOPPED] += rest
    return rest


@kernel
def _room_needed(fw, cg, k):  # type: ignore[no-untyped-def]
    """Who must reclaim before ``k`` pages can be charged to ``cg``: limit, direct, or -1."""
    if k <= 0:
        return -1
    if fw.used[cg] + k > fw.cap[cg]:
        return RECLAIM_LIMIT
    if _free_pages(fw) - k < fw.node[N_WMIN]:
        return RECLAIM_DIRECT
    return -1


@kernel_inline
def _reclaim_step(ss, fw, a, r, out, evict, removed, actor, cg, reclaimer, t):  # type: ignore[no-untyped-def]
    """One reclaim batch by ``actor`` (a task in direct or limit reclaim, or kswapd).

    Lowers the actor's priority when a batch frees nothing; at priority 0, three fruitless
    batches make kswapd give up and a task call the OOM killer. Advances the actor's clock by
    the batch's cost and returns the number of pages the OOM killer skipped (killed tasks'
    remaining accesses).
    """
    s = ss[0]
    kswapd = actor == fw.clock.shape[0] - 1
    if kswapd:
        if _free_pages(fw) >= fw.node[N_WHIGH]:
            fw.node[N_KSWAPD_AWAKE] = 0
            _heap_remove(fw, actor)
            return 0
        target = _pick_cgroup(fw)
        prio = fw.node[N_KSWAPD_PRIO]
    else:
        target = cg if reclaimer == RECLAIM_LIMIT else _pick_cgroup(fw)
        prio = fw.tag_prio[actor]
        if reclaimer == RECLAIM_DIRECT and fw.tag_stalled[actor] == 0:
            out[C.ALLOCSTALL] += 1
            fw.tag_stalled[actor] = 1
    a[A_NOW_NS] = int(fw.clock[actor])
    a[A_WANT_OOM] = 0
    fw.f[F_COST] = 0.0
    rk = RECLAIM_KSWAPD if kswapd else reclaimer
    fw.node[N_RECLAIMER] = rk
    fw.f[F_BATCH_T0] = fw.clock[actor]
    fw.node[N_LAST_SCANNED] = 0
    request = SWAP_CLUSTER_MAX
    if not kswapd:
        if fw.tag_reclaimer[actor] != reclaimer:
            fw.tag_reclaimer[actor] = reclaimer
            fw.tag_reclaimed[actor] = 0
        request = SWAP_CLUSTER_MAX - fw.tag_reclaimed[actor]
    freed = _reclaim(ss, fw, a, r, out, evict, removed, target, request, prio, rk, t)
    cost = max(fw.f[F_COST], fw.f[F_SCAN_NS])
    fw.clock[actor] += cost
    if freed > 0:
        fw.node[N_KSWAPD_FAILURES] = 0  # any progress makes the node worth kswapd's time again
    want_oom = a[A_WANT_OOM] != 0
    a[A_WANT_OOM] = 0
    if kswapd:
        fw.f[F_KSWAPD_NS] += cost
    else:
        fw.f[F_DIRECT_NS] += cost
        fw.tag_stall[actor] += cost
    # A pass at this priority that did not yield a whole batch goes on at the next one
    # (do_try_to_free_pages, balance_pgdat); kswapd never scans at 0.
    floor = 1 if kswapd else 0
    idle = 0
    if not kswapd:
        fw.tag_reclaimed[actor] += freed
        if fw.tag_reclaimed[actor] >= SWAP_CLUSTER_MAX or (prio == 0 and freed < request):
            fw.tag_reclaimer[actor] = -1  # the episode is over: the allocation is retried
    if freed < request and not want_oom and prio > floor:
        prio -= 1
    elif freed == 0 and not want_oom:
        idle = (fw.node[N_KSWAPD_IDLE] if kswapd else fw.tag_idle[actor]) + 1
    # Out of memory: three fruitless batches at the lowest priority, and -- for a policy that
    # reports its scans and looks at a bounded number of pages per call (MGLRU: 4096) -- having
    # looked at as many pages as its cgroup holds since the first of them, or finding nothing it
    # may even look at (the kernel's priority 0 pass covers every page, and the allocator retries
    # before it calls the OOM killer).
    oom = False
    if not kswapd:
        if idle == 0:
            fw.tag_idle_scanned[actor] = 0
        elif fw.node[N_LAST_SCANNED] < 0 or fw.tag_idle_scanned[actor] < 0:
            fw.tag_idle_scanned[actor] = -1
        else:
            fw.tag_idle_scanned[actor] += fw.node[N_LAST_SCANNED]
        seen = fw.tag_idle_scanned[actor]
        nothing_to_scan = fw.node[N_LAST_SCANNED] == 0  # no page it may reclaim is left to look at
        oom = idle > 2 and (
            seen < 0 or nothing_to_scan or seen >= fw.used[target] or idle > MAX_FRUITLESS_BATCHES
        )
    skipped = 0
    if kswapd:
        fw.node[N_KSWAPD_PRIO] = prio
        fw.node[N_KSWAPD_IDLE] = idle if freed == 0 else 0
        if idle > 2:  # "hopeless": direct reclaim and the OOM killer take over
            fw.node[N_KSWAPD_AWAKE] = 0
            fw.node[N_KSWAPD_FAILURES] += 1
            _heap_remove(fw, actor)
        elif _free_pages(fw) >= fw.node[N_WHIGH]:
            fw.node[N_KSWAPD_AWAKE] = 0
            _heap_remove(fw, actor)
        else:
            _heap_fix(fw, actor)
    else:
        fw.tag_prio[actor] = prio
        fw.tag_idle[actor] = idle if freed == 0 else 0
        _heap_fix(fw, actor)
    if want_oom or oom:
        victim = _oom_victim(fw)
        if victim >= 0:
            for page in range(s.lst.shape[0]):
                if fw.owner_tag[page] != victim:
                    continue
                if s.resident[page] & ANON:
                    _kremove(ss, fw, r, out, removed, page, REASON_FREED, t, -1)
                if s.resident[page] == 0 and fw.swapped[page] != 0:
                    _release_swap(fw, page)
                fw.shadowed[page] = 0
            fw.tag_dead[victim] = 1
            fw.tag_anon[victim] = 0
            fw.node[N_LAST_OOM_TAG] = victim
            out[C.OOM_KILL] += 1
            skipped = _kill_rest(fw, out, victim)
        if not kswapd:
            fw.tag_idle[actor] = 0
            fw.tag_idle_scanned[actor] = 0
            fw.tag_prio[actor] = 12
            fw.tag_reclaimer[actor] = -1
    return skipped


@kernel
def _next_window(cur, ra_max):  # type: ignore[no-untyped-def]
    """get_next_ra_size (mm/readahead.c): x4 while small, x2 while under half, then the max."""
    if cur < ra_max // 16:
        return min(4 * cur, ra_max)
    if cur <= ra_max // 2:
        return min(2 * cur, ra_max)
    return ra_max


@kernel
def _plan_window(s, fw, tag, start, size, k):  # type: ignore[no-untyped-def]
    """Queue up to ``size`` non-resident file pages from ``start`` on after ``k`` queued pages.

    The middle one gets PG_readahead; the task's window end is recorded. Returns the new count.
    """
    page = start
    n = 0
    middle = size // 2
    while page >= 0 and n < size and k < fw.fill.shape[0]:
        if s.resident[page] == 0:
            fw.fill[k] = page
            fw.fill_flags[k] = RESIDENT | (RA_MARK if n == middle else 0)
            fw.fill_ra[k] = 1
            k += 1
            n += 1
        page = fw.ra_next[page]
    fw.tag_ra[tag, RA_END] = page
    return k


@kernel
def _count_window(s, fw, start, size):  # type: ignore[no-untyped-def]
    """How many pages :func:`_plan_window` would queue (it reads the same pages, writes nothing)."""
    page = start
    n = 0
    while page >= 0 and n < size:
        if s.resident[page] == 0:
            n += 1
        page = fw.ra_next[page]
    return n


@kernel
def _pages_needed(s, fw, p, tg, is_anon, o, ra_max):  # type: ignore[no-untyped-def]
    """Pages the access to ``p`` will bring in: the demand page and its readahead window."""
    if o == 2:
        return 0
    v = s.resident[p]
    if v != 0:
        if is_anon or (v & RA_MARK) == 0:
            return 0
        size = _next_window(max(fw.tag_ra[tg, RA_SIZE], 1), ra_max)
        start = fw.tag_ra[tg, RA_END]
        if start < 0:
            start = fw.ra_next[p]
        return _count_window(s, fw, start, size)
    if is_anon or o == 1:
        return 1
    size = _sync_window(fw, p, tg, ra_max)
    if size > 1:
        return 1 + _count_window(s, fw, fw.ra_next[p], size - 1)
    return 1


@kernel
def _bypassed_read(s, fw, out, p, tg, ra_max):  # type: ignore[no-untyped-def]
    """What a read of ``p`` that ``admit`` kept out of the cache waits for (ns).

    A page among the rest of the task's last bypassed request (the pages before it may have
    been cache hits) is already in the reader's hands: no wait. Otherwise the read fetches, in
    one request, the page and the pages of the readahead window a miss would have read
    (:func:`_sync_window`; those not in the cache, as readahead reads; the task's readahead
    state moves on as for a miss) from the file device, and none of it enters the cache.
    """
    q = fw.tag_ra[tg, RA_BYP_NEXT]
    left = fw.tag_ra[tg, RA_BYP_LEFT]
    while left > 0 and q >= 0:
        if q == p:
            fw.tag_ra[tg, RA_BYP_LEFT] = left - 1
            fw.tag_ra[tg, RA_BYP_NEXT] = fw.ra_next[p]
            fw.tag_ra[tg, RA_LAST] = p
            return 0.0
        q = fw.ra_next[q]
        left -= 1
    size = _sync_window(fw, p, tg, ra_max)
    fw.tag_ra[tg, RA_SIZE] = size
    fw.tag_ra[tg, RA_LAST] = p
    n = 1
    span = 1
    q = fw.ra_next[p]
    while q >= 0 and span < size:
        span += 1
        if s.resident[q] == 0:
            n += 1
        q = fw.ra_next[q]
    fw.tag_ra[tg, RA_BYP_NEXT] = fw.ra_next[p]
    fw.tag_ra[tg, RA_BYP_LEFT] = span - 1
    out[C.PGPGIN] += n
    wait, _ = _read_wait(fw, FILE_DEV, fw.clock[tg], p, n)
    return wait


@kernel
def _sync_window(fw, p, tg, ra_max):  # type: ignore[no-untyped-def]
    """Size of the synchronous readahead a miss on ``p`` starts (0: not sequential)."""
    last = fw.tag_ra[tg, RA_LAST]
    if last >= 0 and fw.ra_next[last] == p:
        cur = fw.tag_ra[tg, RA_SIZE]
        return min(4 if cur <= 0 else _next_window(cur, ra_max), ra_max)
    return 0


@kernel
def _next_task_access(fw, tg, release):  # type: ignore[no-untyped-def]
    """Move task ``tg`` to its next access; returns False when it has none left."""
    fw.task_pos[tg] += 1
    if fw.task_pos[tg] >= fw.task_first[tg + 1]:
        fw.task_pos[tg] = fw.task_first[tg + 1] - 1
        _heap_remove(fw, tg)
        if fw.node[N_STOP] == 1:
            fw.node[N_STOP] = 2
        return False
    if release.shape[0] > 0:
        fw.clock[tg] = max(fw.clock[tg], float(release[fw.order[fw.task_pos[tg]]]))
    _heap_fix(fw, tg)
    return True


@kernel
def _finish_access(fw, tg, cpu_ns, stall, fault, major):  # type: ignore[no-untyped-def]
    """Charge an access that ran: its CPU, its waits (``stall``, plus the reclaim batches its
    task ran for it), the latency histogram, the longest fault (``fault``) and the task's longest
    wait for I/O (``major``); reset the task's reclaim state."""
    wait = stall + fw.tag_stall[tg]
    lat = cpu_ns + wait
    fw.tag_stall[tg] = 0.0
    fw.tag_stalled[tg] = 0
    fw.tag_reclaimer[tg] = -1
    fw.tag_prio[tg] = 12
    fw.tag_idle[tg] = 0
    fw.clock[tg] += cpu_ns + stall
    fw.tag_ns[tg] += lat
    fw.tag_ops[tg] += 1
    fw.f[F_TOTAL_NS] += lat
    if lat > fw.f[F_MAX_LAT]:
        fw.f[F_MAX_LAT] = lat
    if fault and wait > fw.f[F_MAX_FAULT]:
        fw.f[F_MAX_FAULT] = wait
    if major:
        fw.tag_majflt[tg] += 1
        if wait > fw.tag_maxwait[tg]:
            fw.tag_maxwait[tg] = wait
    b = 0
    xl = int(lat)
    while xl > 0 and b < N_LAT_BUCKETS - 1:
        xl >>= 1
        b += 1
    fw.lat[b] += 1


@kernel
def _start_schedule(fw, release):  # type: ignore[no-untyped-def]
    """Put every task with accesses into the heap, its clock at its first access's release."""
    for tg in range(fw.task_pos.shape[0]):
        if fw.task_pos[tg] < fw.task_first[tg + 1] and fw.tag_dead[tg] == 0:
            if release.shape[0] > 0:
                fw.clock[tg] = max(fw.clock[tg], float(release[fw.order[fw.task_pos[tg]]]))
            _heap_push(fw, tg)


@kernel_inline
def run_kernel(  # type: ignore[no-untyped-def]
    page, kind, op, tag, cgroup, cfg, ss, fw, a, r, out, init, admit, added, accessed, evict, removed
):
    """Run ``cfg[CFG_END] - cfg[CFG_START]`` accesses in kernel mode (see the module docstring).

    Parameters
    ----------
    page : int64 (n,) dense page ids; kind : uint8 (n,) 0 file / 1 anon; op : uint8 (n,) 0 read,
    1 write, 2 free; tag : int32 (n,) task (process) of the access; cgroup : int64 (n,).
    cfg : int64 (CFG_LEN,); ss : tuple of State, one per cgroup; fw : KFramework;
    a, r : int64 (ACC_LEN,) event arrays; out : int64 (N_KERNEL_COUNTERS,) counters.
    init ... removed : generated dispatchers ``(ss, cg, a)``, as in cache mode.

    Returns
    -------
    int
        Accesses consumed (run, or skipped because their task was killed); resumable.
        ``cfg[CFG_START]`` is advanced by as many.

    Notes
    -----
    Accesses are taken task by task in the scheduler's order (``fw.heap``): with
    ``schedule = time`` the task whose clock is earliest goes next, so a task that waits (a
    fault, a reclaim batch, its next access's release time) lets the others run meanwhile. A
    task that must reclaim before its access can allocate runs one batch and yields; its
    episode goes on, batch by batch, until it has freed 32 pages (or priority 0 gave less), and
    the access runs when the episode is over and there is room. Each access brings in at most
    one batch of pages (the demand page, a readahead window or both), queued in ``fw.fill``.
    Functions that receive the hooks are inlined, so each is called from one place to keep
    compilation short.
    """
    s = ss[0]
    n_pages = s.lst.shape[0]
    a[A_N_PAGES] = n_pages
    r[A_N_PAGES] = n_pages
    a[A_MODE] = MODE_KERNEL
    r[A_MODE] = MODE_KERNEL
    a[A_MEMORY] = fw.node[N_TOTAL]
    a[A_WMARK_LOW] = fw.node[N_WLOW]
    a[A_WMARK_HIGH] = fw.node[N_WHIGH]
    release = fw.release
    if cfg[CFG_INITED] == 0:
        for k in range(fw.cap.shape[0]):
            a[A_CGROUP] = k
            res = init(ss, k, a)
            if res != 0 and cfg[CFG_INIT_RESULT] == 0:
                cfg[CFG_INIT_RESULT] = res
        cfg[CFG_INITED] = 1
        _start_schedule(fw, release)
    warmup = cfg[CFG_WARMUP]
    ra_max = fw.node[N_RA_MAX]
    cpu_ns = fw.f[F_CPU_NS]
    budget = cfg[CFG_END] - cfg[CFG_START]
    consumed = 0
    kswapd_id = fw.clock.shape[0] - 1
    has_admit = cfg[CFG_HAS_ADMIT] != 0
    while fw.node[N_HEAP_N] > 0:
        if fw.node[N_STOP] == 2:
            consumed += _stop_all(fw, out)
            break
        x = fw.heap[0]
        if consumed >= budget and (fw.node[N_TIMED] != 0 or x != kswapd_id):
            break  # (in trace order kswapd finishes before the call returns, as it would)
        tg = x
        t = 0
        reclaimer = -1
        cg = 0
        if x != kswapd_id:
            t = fw.order[fw.task_pos[tg]]
            cg = cgroup[t]
            p = page[t]
            if fw.tag_admit[tg] < 0:  # asked once per access, before any reclaim it needs
                fw.tag_admit[tg] = 1
                if has_admit and kind[t] == 0 and op[t] == 0 and s.resident[p] == 0:
                    a[A_TIME] = t
                    a[A_PAGE] = p
                    a[A_CGROUP] = cg
                    a[A_TAG] = tg
                    a[A_OP] = 0
                    a[A_KIND] = 0
                    a[A_NOW_NS] = int(fw.clock[tg])
                    fw.tag_admit[tg] = 1 if admit(ss, cg, a) != 0 else 0
            if fw.tag_admit[tg] == 0:
                k = 0  # a bypassed read brings nothing into memory
            else:
                k = _pages_needed(s, fw, p, tg, kind[t] == 1, op[t], ra_max)
            reclaimer = _room_needed(fw, cg, k)
            if reclaimer < 0 and k > 0 and fw.tag_reclaimer[tg] >= 0:
                reclaimer = fw.tag_reclaimer[tg]  # an episode goes on until it has freed 32
            if reclaimer == RECLAIM_DIRECT:
                if fw.node[N_TIMED] != 0:  # (trace order keeps kswapd to its own wake-ups)
                    _wake_kswapd(fw, out, fw.clock[tg])
        if x == kswapd_id or reclaimer >= 0:
            a[A_TIME] = t
            a[A_SEQ] = cfg[CFG_START] + consumed
            consumed += _reclaim_step(ss, fw, a, r, out, evict, removed, x, cg, reclaimer, t)
            continue
        # ---- the access runs: there is room for what it brings in
        p = page[t]
        o = op[t]
        is_anon = kind[t] == 1
        fw.f[F_NOW] = fw.clock[tg]
        a[A_TIME] = t
        a[A_SEQ] = cfg[CFG_START] + consumed
        a[A_NOW_NS] = int(fw.clock[tg])
        a[A_PAGE] = p
        a[A_CGROUP] = cg
        a[A_TAG] = tg
        a[A_OP] = o
        a[A_KIND] = 1 if is_anon else 0
        a[A_SIZE] = 1
        a[A_READAHEAD] = 0
        a[A_REFAULT] = 0
        a[A_WAIT_NS] = 0
        consumed += 1
        has_next = fw.node[N_HAS_NEXT] != 0
        if has_next:
            fw.upcoming[p] = fw.next_use[t]
            a[A_NEXT] = fw.next_use[t]
        if o == 2:  # the owner frees the page: no shadow entry, swap slot released
            if s.resident[p] & ANON and fw.owner_tag[p] >= 0:
                fw.tag_anon[fw.owner_tag[p]] -= 1
            elif s.resident[p] == 0 and fw.swapped[p] != 0 and fw.owner_tag[p] >= 0:
                fw.tag_anon[fw.owner_tag[p]] -= 1
            if s.resident[p] != 0:
                _kremove(ss, fw, r, out, removed, p, REASON_FREED, t, -1)
                out[C.PGFREE_BY_OWNER] += 1
            _release_swap(fw, p)
            fw.shadowed[p] = 0
            fw.owner_tag[p] = -1
            _next_task_access(fw, tg, release)
            continue
        counted = t >= warmup
        if counted:
            out[C.REQUESTS] += 1
        else:
            out[C.WARMUP] += 1
        if fw.tag_admit[tg] == 0:  # the policy's admit kept this read miss out of the cache
            fw.tag_admit[tg] = -1
            out[C.BYPASSED] += 1
            if counted:
                out[C.MISSES] += 1
            wait = _bypassed_read(s, fw, out, p, tg, ra_max)
            _finish_access(fw, tg, cpu_ns, wait, True, wait > 0.0)
            _next_task_access(fw, tg, release)
            continue
        fw.tag_admit[tg] = -1
        stall = 0.0  # waits for I/O and zero-fill of this access
        fault = False
        major = False
        mark_accessed = False
        wait_read = 0  # pages whose read the task waits for
        k = 0  # pages queued in fw.fill
        v = s.resident[p]
        if v != 0:
            a[A_HIT] = 1
            if counted:
                out[C.HITS] += 1
            v |= REFERENCED
            if o == 1:
                if (v & (DIRTY | ANON)) == 0:
                    _dirtied(fw, p, s.cgroup_of[p])
                v |= DIRTY
                if v & SWAPCACHE:
                    v &= FLAG_MASK ^ SWAPCACHE
                    _release_swap(fw, p)
            if is_anon:
                s.resident[p] = v | YOUNG
                if v & PROT_NONE:  # the policy asked to see this page's accesses: a hinting fault
                    mark_accessed = True
                    stall += fw.f[F_HINT_NS]
                    out[C.HINT_FAULTS] += 1
            else:
                s.resident[p] = v & (FLAG_MASK ^ RA_MARK)
                mark_accessed = o == 0  # a buffered write does not mark the folio accessed
                if v & RA_MARK:  # PG_readahead hit: the next window, asynchronously
                    size = _next_window(max(fw.tag_ra[tg, RA_SIZE], 1), ra_max)
                    fw.tag_ra[tg, RA_SIZE] = size
                    start = fw.tag_ra[tg, RA_END]
                    if start < 0:
                        start = fw.ra_next[p]
                    k = _plan_window(s, fw, tg, start, size, 0)
                    if k > 0 and _queued(fw, FILE_DEV):  # nobody waits for it
                        _occupy(fw, FILE_DEV, fw.clock[tg], _read_ns(fw, FILE_DEV, fw.fill[0], k), k)
                fw.tag_ra[tg, RA_LAST] = p
        else:
            a[A_HIT] = 0
            fault = True
            if counted:
                out[C.MISSES] += 1
            fw.fill[0] = p
            fw.fill_ra[0] = 0
            k = 1
            if is_anon:
                out[C.PGFAULT] += 1
                if fw.swapped[p] != 0:
                    major = True
                    out[C.PGMAJFAULT] += 1
                    out[C.PSWPIN] += 1
                    swap_wait, swap_service = _read_wait(fw, SWAP_DEV, fw.clock[tg], p, 1)
                    stall += swap_wait
                    a[A_WAIT_NS] = int(swap_service)
                    flags = RESIDENT | ANON | YOUNG | REFERENCED | SWAPCACHE
                    if o == 1:
                        flags = (flags | DIRTY) & (FLAG_MASK ^ SWAPCACHE)
                else:
                    out[C.ZERO_FILL] += 1
                    if counted and fw.owner_tag[p] < 0 and fw.shadowed[p] == 0:
                        out[C.COMPULSORY] += 1
                    stall += fw.f[F_ZERO_NS]
                    flags = RESIDENT | ANON | YOUNG | REFERENCED | DIRTY
                    fw.tag_anon[tg] += 1
                fw.fill_flags[0] = flags
            else:
                if counted and fw.owner_tag[p] < 0 and fw.shadowed[p] == 0:
                    out[C.COMPULSORY] += 1
                fw.fill_flags[0] = RESIDENT | REFERENCED | (DIRTY if o == 1 else 0)
                if o == 1:  # a whole-page write: the page is created in memory, nothing is read
                    wait_read = 0
                else:
                    size = _sync_window(fw, p, tg, ra_max)
                    fw.tag_ra[tg, RA_SIZE] = size
                    if size > 1:
                        k = _plan_window(s, fw, tg, fw.ra_next[p], size - 1, 1)
                    wait_read = k
                    major = True
                mark_accessed = o == 0
                fw.tag_ra[tg, RA_LAST] = p
        if k > 0:
            read_ns = 0.0
            if wait_read > 0:
                read_ns, read_service = _read_wait(fw, FILE_DEV, fw.clock[tg], p, wait_read)
                a[A_WAIT_NS] = int(read_service)
            for i in range(k):
                q = fw.fill[i]
                flags = fw.fill_flags[i]
                if s.resident[q] != 0:
                    continue
                if flags & ANON:
                    fw.node[N_RES_ANON] += 1
                    if fw.shadowed[q]:
                        out[C.WS_REFAULT_ANON] += 1
                    if (flags & SWAPCACHE) == 0:
                        _release_swap(fw, q)
                else:
                    fw.node[N_RES_FILE] += 1
                    if flags & DIRTY:
                        _dirtied(fw, q, cg)
                    if q != p or o != 1:
                        out[C.PGPGIN] += 1
                    if fw.shadowed[q]:
                        out[C.WS_REFAULT_FILE] += 1
                    if fw.fill_ra[i]:
                        out[C.READAHEAD_PAGES] += 1
                s.resident[q] = flags
                s.cgroup_of[q] = cg
                fw.used[cg] += 1
                fw.node[N_RESIDENT] += 1
                if fw.owner_tag[q] < 0:
                    fw.owner_tag[q] = tg
                a[A_PAGE] = q
                if has_next:
                    a[A_NEXT] = fw.upcoming[q]
                a[A_READAHEAD] = fw.fill_ra[i]
                a[A_REFAULT] = fw.shadowed[q]
                if q != p:
                    a[A_WAIT_NS] = 0
                a[A_FREE] = _free_pages(fw)
                a[A_ZRAM_PAGES] = _zram_pages_of(fw, cg)
                a[A_SWAP_FREE] = fw.node[N_SWAP_TOTAL] - fw.node[N_SWAP_USED] if fw.node[N_HAS_SWAP] else 0
                added(ss, cg, a)
                fw.shadowed[q] = 0
            stall += read_ns
            a[A_PAGE] = p
            if has_next:
                a[A_NEXT] = fw.upcoming[p]
            a[A_READAHEAD] = 0
            a[A_REFAULT] = 0
        # A clairvoyant policy is a reference, not a kernel policy: it is told every access
        # (a mapped hit too), so its next-use keys stay exact.
        if (mark_accessed or has_next) and s.resident[p] != 0:
            accessed(ss, s.cgroup_of[p], a)
        if o == 1 and not is_anon and fw.node[N_DIRTY_BG] > 0:
            if fw.node[N_DIRTY] > fw.node[N_DIRTY_BG] or fw.dirty_cg[cg] > fw.dirty_bg_cg[cg]:
                _flush(s, fw, out, cg)
        _finish_access(fw, tg, cpu_ns, stall, fault, major)
        _wake_kswapd(fw, out, fw.clock[tg])
        _next_task_access(fw, tg, release)
    cfg[CFG_START] = cfg[CFG_START] + consumed
    return consumed
