"""Kernel mode's own state: :class:`KFramework`'s arrays, the declarations of its node scalars
(:data:`NODE`, reached as ``fw.node[N.name]``, int64), float costs and totals (:data:`FLOATS`,
``fw.f[F.name]``, ns) and per-task readahead state (:data:`READAHEAD`, ``fw.tag_ra[tag,
RA.name]``), and the node's free-memory accounting (:func:`_free_pages`, :func:`_zram_pages`).

Each declaration (``core.layout.Record``) gives every slot a name, a unit and a meaning and lays
the slots out in order; ``N.SIZE``, ``F.SIZE`` and ``RA.SIZE`` size the arrays. Policies never
see these arrays; the loop's subsystems (:mod:`pagesim.engine.kmode`) read and write them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.layout import Record, field
from pagesim.engine.memory import D_KIND, DEV_ZRAM

#: kswapd stays asleep after this many failed runs until some reclaim frees a page
#: (``MAX_RECLAIM_RETRIES``, mm/internal.h; ``wakeup_kswapd`` skips a hopeless node).
MAX_RECLAIM_RETRIES = 16

#: The node's int64 scalars, ``fw.node[N.name]`` (``N.SIZE`` slots).
NODE = Record(
    "node",
    field("total", "pages", "memory of the node"),
    field("resident", "pages", "pages in memory (anon and file)"),
    field("zram_stored", "pages", "pages stored in zram"),
    field("swap_used", "slots", "swap slots in use"),
    field("swap_total", "slots", "swap slots of the swap device"),
    field("wmin", "pages", "the min watermark of free memory"),
    field("wlow", "pages", "the low watermark: below it kswapd wakes"),
    field("whigh", "pages", "the high watermark: kswapd sleeps once free is back at it"),
    field("ra_max", "pages", "the largest readahead window"),
    field("has_swap", "flag", "1 if the node has a swap device"),
    field("rr", "cgroup", "round-robin cursor over cgroups for node reclaim"),
    field("last_oom_tag", "tag", "the task the OOM killer killed last (-1 none)"),
    field("res_anon", "pages", "anon pages in memory"),
    field("res_file", "pages", "file pages in memory"),
    field("kswapd_awake", "flag", "1 from a wake-up below low until free is back at high"),
    field("kswapd_prio", "priority", "kswapd's reclaim priority in its current run"),
    field("kswapd_idle", "batches", "kswapd's fruitless batches in a row at priority 0"),
    field("timed", "flag", "1: tasks run in model-time order (``schedule = time``); 0: trace order"),
    field("heap_n", "actors", "actors in the scheduler's heap"),
    field("last_scanned", "pages", "pages the last reclaim batch's policy looked at (-1: not reported)"),
    field("kswapd_failures", "runs", "kswapd runs in a row that gave up (``pgdat->kswapd_failures``)"),
    field("next_slot", "slot", "the next swap slot handed out (a device address)"),
    field("stop", "flag", "1: the run stops when its first task is done (``stop = first``); 2: stopping now"),
    field("dirty", "pages", "dirty file pages in memory (NR_FILE_DIRTY)"),
    field("dirty_bg", "pages", "the node's background writeback threshold (0: no flusher)"),
    field("ring_head", "index", "oldest entry of ``fw.dirty_ring``"),
    field("ring_n", "entries", "entries in ``fw.dirty_ring``"),
    field("kc_depth", "pages", "kcompressd's queue depth (0: no kcompressd)"),
    field("reclaimer", "RECLAIM_*", "who runs the current reclaim batch"),
    field(
        "has_next", "flag", "1 if a policy is clairvoyant (Belady): ``a[A_NEXT]`` filled, told every access"
    ),
    field("zram_units", "1/zram_scale pages", "the stored pages' zram costs summed (``fw.zram_cost``)"),
    field("zram_scale", "units per page", "zram holds ``ceil(zram_units / zram_scale)`` pages of memory"),
    field(
        "ctx_ra", "flag", "1: a random read miss may start a context readahead (``try_context_readahead``)"
    ),
    field("adv_calls", "calls", "fadvise calls made (:mod:`.fadvise`)"),
    field("adv_dropped", "pages", "pages DONTNEED dropped from the page cache"),
    field("adv_written", "pages", "dirty pages DONTNEED wrote back (and left in the cache, under writeback)"),
    field("cpus", "CPUs", "CPUs the actors share (0: one per actor; :mod:`.scheduler`)"),
    field("cpu_cur", "CPU", "the CPU the running step holds"),
)
#: The node's float64 costs, clocks and totals, ``fw.f[F.name]`` (``F.SIZE`` slots).
FLOATS = Record(
    "f",
    field("cost", "ns", "cost charged to whoever is reclaiming right now"),
    field("kswapd_ns", "ns", "kswapd's reclaim work in all"),
    field("direct_ns", "ns", "tasks' direct reclaim work in all"),
    field("max_lat", "ns", "the longest access latency"),
    field("max_fault", "ns", "the longest wait of a fault for I/O"),
    field("cpu_ns", "ns", "CPU per access"),
    field("zero_ns", "ns", "zero-filling a new anon page"),
    field("scan_ns", "ns", "reclaim's work per page looked at"),
    field("total_ns", "ns", "access latencies summed"),
    field("now", "ns", "model time of the last access"),
    field("rmap_ns", "ns", "per young bit tested through the reverse map"),
    field("pte_ns", "ns", "per PTE a page-table walker reads"),
    field("kc_busy", "ns", "model time until which kcompressd is busy with its queue"),
    field("kc_ns", "ns", "kcompressd's work in all"),
    field("batch_t0", "ns", "model time the current reclaim batch started"),
    field("hint_ns", "ns", "per access to a PROT_NONE page (a hinting fault)"),
    field("queue_ns", "ns", "tasks' waits for requests queued behind others, beyond their service"),
    field("queued", "requests", "requests a task waited for that queued behind others"),
    field("runq_ns", "ns", "tasks' waits for a CPU (``cpus`` > 0)"),
    field("kswapd_runq_ns", "ns", "kswapd's waits for a CPU (``cpus`` > 0)"),
)
#: A task's readahead state, ``fw.tag_ra[tag, RA.name]`` (``RA.SIZE`` columns).
READAHEAD = Record(
    "ra",
    field("last", "page id", "last file page the task read (``prev_pos``; -1 none)"),
    field("size", "pages", "its window's size (``file_ra_state.size``; 0: no window yet)"),
    field("start", "source id", "its window's first page as a file index (``start``; -1 none)"),
    field(
        "byp_next", "page id", "next page of the task's last bypassed request it has not read yet (-1 none)"
    ),
    field("byp_left", "pages", "pages of that request still to be read"),
    field("max", "pages", "the task's readahead maximum (``file->f_ra.ra_pages``; SEQUENTIAL doubles it)"),
    field("mode", "FMODE_* bits", "the task's file mode bits set by fadvise (FMODE_RANDOM, FMODE_NOREUSE)"),
    field(
        "async_size",
        "pages",
        "its window's ``async_size``: page ``start + size - async_size`` has PG_readahead",
    ),
    field(
        "noretry",
        "0/1",
        "1 once a reclaim episode of the pending access ended short of its target: its readahead "
        "pages (``__GFP_NORETRY``) get only the room there is",
    ),
)
N, F, RA = NODE.at, FLOATS.at, READAHEAD.at

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
    tag_maxfault: np.ndarray  #: float64 (n_tags,) each task's longest fault (its whole latency), ns
    tag_runq: np.ndarray  #: float64 (n_tags,) waits for a CPU of the task's pending access, ns
    cpu_busy: np.ndarray  #: float64 (max(cpus, 1),) model time until which each CPU is busy, ns
    cpu_since: np.ndarray  #: float64 (n_tags + 1,) when each actor began waiting for a CPU (-1: not waiting)
    tag_dead: np.ndarray  #: uint8 (n_tags,) killed by the OOM killer
    tag_anon: np.ndarray  #: int64 (n_tags,) anon pages owned (resident or swapped)
    tag_ra: np.ndarray  #: int64 (n_tags, RA.SIZE) readahead state per task
    node: np.ndarray  #: int64 (N.SIZE,)
    f: np.ndarray  #: float64 (F.SIZE,)
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
    zram_cost: np.ndarray  #: int64 (n_pages,) what the page adds to zram while stored, 1/N.zram_scale pages
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
    if fw.dev[SWAP_DEV, D_KIND] != DEV_ZRAM or fw.node[N.has_swap] == 0:
        return 0
    return (fw.node[N.zram_units] + fw.node[N.zram_scale] - 1) // fw.node[N.zram_scale]


@kernel
def _zram_pages_of(fw, cg):  # type: ignore[no-untyped-def]
    """Pages of memory zram holds for the pages cgroup ``cg`` swapped out, rounded up (what its
    lruvec counts in anon's part, ``a[A_ZRAM_PAGES]``; with one cgroup, :func:`_zram_pages`)."""
    if fw.dev[SWAP_DEV, D_KIND] != DEV_ZRAM or fw.node[N.has_swap] == 0:
        return 0
    return (fw.zram_cg[cg] + fw.node[N.zram_scale] - 1) // fw.node[N.zram_scale]


@kernel
def _free_pages(fw):  # type: ignore[no-untyped-def]
    return fw.node[N.total] - fw.node[N.resident] - _zram_pages(fw)
