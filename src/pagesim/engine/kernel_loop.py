"""The simulation loop in kernel mode: anon and file pages, swap, readahead, watermark reclaim.

Terms (Linux names; shared/reference/kernel_policies_spec.md §1, §4)
-------------------------------------------------------------------
*free* pages are the node's pages minus resident pages minus what zram holds compressed.
*Watermarks* min < low < high (:func:`pagesim.engine.memory.watermarks`). An allocation that
would leave free below min makes the allocating task reclaim (*direct reclaim*, batches of
32, its time charged to the task); after every access, free below low wakes *kswapd*, which
reclaims in batches of 32 until free is back at high (its CPU is counted apart, not charged to
tasks). A cgroup at its ``memory.max`` reclaims from itself first (*limit reclaim*). When
reclaim frees nothing at priority 0, the OOM killer kills the process (tag) owning the most
anonymous memory and frees it.

What each access does
---------------------
* anon (always mapped): a hit sets the page's young bit (the PTE accessed bit) and nothing else
  -- no hook is called, as no kernel code runs on a mapped access; the first touch is a
  zero-fill fault; touching a page that was swapped out is a major fault that reads it back
  (``pswpin``; ``workingset_refault_anon`` if it left a shadow entry) and charges the task the
  device's time. A write dirties the page and frees a swap copy it still had.
* file (read()/write()): a hit calls ``accessed`` (``folio_mark_accessed``); a hit on a page
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

Known simplifications (for future work)
---------------------------------------
One node, one zone; readahead reads only pages that occur in the trace (``ra_next``); dirty file
pages are written back synchronously by the reclaimer instead of by the flusher; file pages
are never mapped (mmap'd file access is not modelled yet); device queues are not modelled
(each request is timed alone).
"""

from __future__ import annotations

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
    A_OP,
    A_PAGE,
    A_PRIORITY,
    A_READAHEAD,
    A_REASON,
    A_RECLAIMER,
    A_REFAULT,
    A_REQUEST,
    A_SIZE,
    A_SWAP_FREE,
    A_TAG,
    A_TIME,
    A_USED,
    A_WMARK_HIGH,
    A_WMARK_LOW,
    ANON,
    DIRTY,
    FLAG_MASK,
    LIST,
    MAX_CANDIDATES,
    MODE_KERNEL,
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
    YOUNG,
)
from pagesim.engine import counters as C
from pagesim.engine.loop import (
    CFG_END,
    CFG_INIT_RESULT,
    CFG_INITED,
    CFG_START,
    CFG_WARMUP,
    _proposed_before,
)
from pagesim.engine.memory import (
    D_CPU_READ_NS,
    D_CPU_WRITE_NS,
    D_KIND,
    D_RATIO,
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
N_LEN = 16

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
F_KSWAPD_RATE = 9  #: kswapd's CPU per ns of task time (0: kswapd is instantaneous)
F_KSWAPD_CREDIT = 10  #: CPU time kswapd may still spend now, ns
F_LAST_LAT = 11  #: the last access's time, ns
F_LEN = 12

#: kswapd cannot bank more than this much unused time (ns).
KSWAPD_CREDIT_CAP_NS = 1_000_000.0

# per-tag readahead state
RA_LAST = 0  #: last file page the tag read
RA_SIZE = 1  #: current window size
RA_END = 2  #: first page after the current window (-1 none)

SWAP_DEV = 0
FILE_DEV = 1

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
    tag_ra: np.ndarray  #: int64 (n_tags, 3) readahead state per task
    node: np.ndarray  #: int64 (N_LEN,)
    f: np.ndarray  #: float64 (F_LEN,)
    dev: np.ndarray  #: float64 (2, D_LEN): swap device, file device
    dev_last: np.ndarray  #: int64 (2,) last page of the previous request per device
    lat: np.ndarray  #: int64 (N_LAT_BUCKETS,) accesses by latency, bucket = bit length of ns
    victims: np.ndarray  #: int64 (MAX_CANDIDATES,) scratch: pages one reclaim batch evicts
    one_by_one: np.ndarray  #: uint8 (n_cgroups,) 1 if the cgroup's policy proposes one page a call
    no_fallback: np.ndarray  #: uint8 (n_cgroups,) 1 if the policy is the kernel's own (no default under it)
    fill: np.ndarray  #: int64 (ra_max + 1,) scratch: pages one access brings in
    fill_flags: np.ndarray  #: uint8 (ra_max + 1,) their flags
    fill_ra: np.ndarray  #: uint8 (ra_max + 1,) 1 for readahead pages


# ---------------------------------------------------------------------------- devices and memory


@kernel
def _free_pages(fw):  # type: ignore[no-untyped-def]
    zram = 0
    if fw.dev[SWAP_DEV, D_KIND] == DEV_ZRAM and fw.node[N_HAS_SWAP] != 0:
        ratio = fw.dev[SWAP_DEV, D_RATIO]
        zram = int(np.ceil(fw.node[N_ZRAM_STORED] / ratio)) if ratio > 0 else fw.node[N_ZRAM_STORED]
    return fw.node[N_TOTAL] - fw.node[N_RESIDENT] - zram


@kernel
def _read_ns(fw, d, first_page, n):  # type: ignore[no-untyped-def]
    """Time a task waits for ``n`` pages read in one request from device ``d``."""
    if n <= 0:
        return 0.0
    if fw.dev[d, D_KIND] == DEV_ZRAM:
        return n * fw.dev[d, D_CPU_READ_NS]
    t = fw.dev[d, D_READ_NS] + (n - 1) * fw.dev[d, D_READ_PAGE_NS]
    if fw.dev_last[d] < 0 or first_page != fw.dev_last[d] + 1:
        t += fw.dev[d, D_SEEK_NS]
    fw.dev_last[d] = first_page + n - 1
    return t


@kernel
def _write_ns(fw, d, n):  # type: ignore[no-untyped-def]
    """Time the writer spends on ``n`` pages written to device ``d`` (zram: compression)."""
    if fw.dev[d, D_KIND] == DEV_ZRAM:
        return n * fw.dev[d, D_CPU_WRITE_NS]
    return fw.dev[d, D_WRITE_NS] + max(n - 1, 0) * fw.dev[d, D_WRITE_PAGE_NS]


@kernel
def _release_swap(fw, page):  # type: ignore[no-untyped-def]
    if fw.swapped[page] != 0:
        fw.swapped[page] = 0
        fw.node[N_SWAP_USED] -= 1
        fw.node[N_ZRAM_STORED] -= 1


# ---------------------------------------------------------------------------- removal and eviction


@kernel_inline
def _kremove(ss, fw, r, out, removed, page, reason, t):  # type: ignore[no-untyped-def]
    """Take ``page`` out of memory: ``removed`` hook, unlink, counters."""
    s = ss[0]
    cg = s.cgroup_of[page]
    r[A_TIME] = t
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
    if v & ANON:
        if (v & SWAPCACHE) == 0 or (v & DIRTY) != 0:
            if fw.node[N_HAS_SWAP] == 0 or fw.node[N_SWAP_USED] >= fw.node[N_SWAP_TOTAL]:
                out[C.SWAP_FULL] += 1
                return 0
            if fw.swapped[page] == 0:
                fw.node[N_SWAP_USED] += 1
                fw.node[N_ZRAM_STORED] += 1
            fw.swapped[page] = 1
            fw.f[F_COST] += _write_ns(fw, SWAP_DEV, 1)
            out[C.PSWPOUT] += 1
    elif v & DIRTY:
        fw.f[F_COST] += _write_ns(fw, FILE_DEV, 1)
        out[C.PGPGOUT] += 1
        out[C.DIRTY_WRITEBACK] += 1
    fw.shadowed[page] = 1
    _kremove(ss, fw, r, out, removed, page, reason, t)
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
        out[C.REJ_OVERFLOW] += n
        out[C.REJECTED] += n
        out[C.PROPOSED] += n
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
        else:
            a[A_REQUEST] = 1 if one_by_one else request
            out[C.EVICT_CALLS] += 1
            nv = _collect_candidates(s, fw, out, cg, evict(ss, cg, a))
            fw.f[F_COST] += nv * fw.f[F_SCAN_NS]
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


@kernel_inline
def _make_room(ss, fw, a, r, out, evict, removed, cg, k, background, t):  # type: ignore[no-untyped-def]
    """Reclaim until ``k`` pages can be charged to ``cg`` (limit, then node watermarks).

    With ``background`` it is kswapd instead: woken below low, it reclaims until free reaches
    high. Returns the time spent, in ns (the task's stall, or kswapd's CPU).
    """
    s = ss[0]
    spent = 0.0
    prio = 12
    idle = 0
    stalled = False
    paced = background and fw.f[F_KSWAPD_RATE] > 0.0
    if background:
        if paced:  # kswapd runs beside the tasks: it earns CPU time as they run
            credit = fw.f[F_KSWAPD_CREDIT] + fw.f[F_LAST_LAT] * fw.f[F_KSWAPD_RATE]
            fw.f[F_KSWAPD_CREDIT] = min(credit, KSWAPD_CREDIT_CAP_NS)
        if fw.node[N_KSWAPD_AWAKE] == 0:
            if _free_pages(fw) >= fw.node[N_WLOW]:
                return 0.0
            out[C.KSWAPD_WAKE] += 1
            fw.node[N_KSWAPD_AWAKE] = 1
            fw.node[N_KSWAPD_PRIO] = 12
        prio = fw.node[N_KSWAPD_PRIO]
    while True:
        if background:
            if _free_pages(fw) >= fw.node[N_WHIGH]:
                fw.node[N_KSWAPD_AWAKE] = 0
                break
            if paced and fw.f[F_KSWAPD_CREDIT] <= 0.0:
                break  # out of time for now: it goes on after the next accesses
            target = _pick_cgroup(fw)
            reclaimer = RECLAIM_KSWAPD
        elif fw.used[cg] + k > fw.cap[cg]:
            target = cg
            reclaimer = RECLAIM_LIMIT
        elif _free_pages(fw) - k < fw.node[N_WMIN]:
            target = _pick_cgroup(fw)
            reclaimer = RECLAIM_DIRECT
            if not stalled:
                out[C.ALLOCSTALL] += 1
                stalled = True
        else:
            break
        fw.f[F_COST] = 0.0
        freed = _reclaim(ss, fw, a, r, out, evict, removed, target, 32, prio, reclaimer, t)
        spent += fw.f[F_COST]
        if paced:
            fw.f[F_KSWAPD_CREDIT] -= max(fw.f[F_COST], fw.f[F_SCAN_NS])
        if freed > 0:
            continue
        if prio > 0:
            prio -= 1
            continue
        idle += 1
        if idle <= 2:
            continue
        if background:
            fw.node[N_KSWAPD_AWAKE] = 0
            break  # kswapd gives up ("hopeless"); direct reclaim and the OOM killer take over
        victim = _oom_victim(fw)
        if victim < 0:
            break
        for page in range(s.lst.shape[0]):
            if fw.owner_tag[page] != victim:
                continue
            if s.resident[page] & ANON:
                _kremove(ss, fw, r, out, removed, page, REASON_FREED, t)
            if s.resident[page] == 0 and fw.swapped[page] != 0:
                _release_swap(fw, page)
            fw.shadowed[page] = 0
        fw.tag_dead[victim] = 1
        fw.tag_anon[victim] = 0
        fw.node[N_LAST_OOM_TAG] = victim
        out[C.OOM_KILL] += 1
        idle = 0
        prio = 12
    if background:
        fw.node[N_KSWAPD_PRIO] = prio
        fw.f[F_KSWAPD_NS] += spent
    else:
        fw.f[F_DIRECT_NS] += spent
    return spent


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


@kernel_inline
def run_kernel(  # type: ignore[no-untyped-def]
    page, kind, op, tag, cgroup, cfg, ss, fw, a, r, out, init, admit, added, accessed, evict, removed
):
    """Run accesses ``cfg[CFG_START]:cfg[CFG_END]`` in kernel mode (see the module docstring).

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
        Accesses processed; resumable.

    Notes
    -----
    Each access brings in at most one batch of pages (the demand page, a readahead window or
    both), queued in ``fw.fill`` and inserted by one loop after one call of ``_make_room``:
    functions that receive the hooks are inlined, so each is called from as few places as
    possible to keep compilation short.
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
    if cfg[CFG_INITED] == 0:
        for k in range(fw.cap.shape[0]):
            a[A_CGROUP] = k
            res = init(ss, k, a)
            if res != 0 and cfg[CFG_INIT_RESULT] == 0:
                cfg[CFG_INIT_RESULT] = res
        cfg[CFG_INITED] = 1
    warmup = cfg[CFG_WARMUP]
    ra_max = fw.node[N_RA_MAX]
    cpu_ns = fw.f[F_CPU_NS]
    end = cfg[CFG_END]
    for t in range(cfg[CFG_START], end):
        p = page[t]
        tg = tag[t]
        cg = cgroup[t]
        o = op[t]
        is_anon = kind[t] == 1
        if fw.tag_dead[tg] != 0:
            out[C.OOM_SKIPPED] += 1
            continue
        a[A_TIME] = t
        a[A_PAGE] = p
        a[A_CGROUP] = cg
        a[A_TAG] = tg
        a[A_OP] = o
        a[A_KIND] = 1 if is_anon else 0
        a[A_SIZE] = 1
        a[A_READAHEAD] = 0
        a[A_REFAULT] = 0
        if o == 2:  # the owner frees the page: no shadow entry, swap slot released
            if s.resident[p] & ANON and fw.owner_tag[p] >= 0:
                fw.tag_anon[fw.owner_tag[p]] -= 1
            elif s.resident[p] == 0 and fw.swapped[p] != 0 and fw.owner_tag[p] >= 0:
                fw.tag_anon[fw.owner_tag[p]] -= 1
            if s.resident[p] != 0:
                _kremove(ss, fw, r, out, removed, p, REASON_FREED, t)
                out[C.PGFREE_BY_OWNER] += 1
            _release_swap(fw, p)
            fw.shadowed[p] = 0
            fw.owner_tag[p] = -1
            continue
        counted = t >= warmup
        if counted:
            out[C.REQUESTS] += 1
        else:
            out[C.WARMUP] += 1
        stall = 0.0
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
                v |= DIRTY
                if v & SWAPCACHE:
                    v &= FLAG_MASK ^ SWAPCACHE
                    _release_swap(fw, p)
            if is_anon:
                s.resident[p] = v | YOUNG
            else:
                s.resident[p] = v & (FLAG_MASK ^ RA_MARK)
                mark_accessed = True
                if v & RA_MARK:  # PG_readahead hit: the next window, asynchronously
                    size = _next_window(max(fw.tag_ra[tg, RA_SIZE], 1), ra_max)
                    fw.tag_ra[tg, RA_SIZE] = size
                    start = fw.tag_ra[tg, RA_END]
                    if start < 0:
                        start = fw.ra_next[p]
                    k = _plan_window(s, fw, tg, start, size, 0)
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
                    stall += _read_ns(fw, SWAP_DEV, p, 1)
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
                last = fw.tag_ra[tg, RA_LAST]
                size = 0
                if last >= 0 and fw.ra_next[last] == p:  # sequential: synchronous readahead
                    cur = fw.tag_ra[tg, RA_SIZE]
                    size = min(4 if cur <= 0 else _next_window(cur, ra_max), ra_max)
                fw.tag_ra[tg, RA_SIZE] = size
                if size > 1:
                    k = _plan_window(s, fw, tg, fw.ra_next[p], size - 1, 1)
                wait_read = k
                major = True
                mark_accessed = True
                fw.tag_ra[tg, RA_LAST] = p
        if k > 0:
            stall += _make_room(ss, fw, a, r, out, evict, removed, cg, k, False, t)
            if fw.tag_dead[tg] != 0:  # this task was the OOM killer's victim
                continue
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
                a[A_READAHEAD] = fw.fill_ra[i]
                a[A_REFAULT] = fw.shadowed[q]
                a[A_FREE] = _free_pages(fw)
                a[A_SWAP_FREE] = fw.node[N_SWAP_TOTAL] - fw.node[N_SWAP_USED] if fw.node[N_HAS_SWAP] else 0
                added(ss, cg, a)
                fw.shadowed[q] = 0
            if wait_read > 0:
                stall += _read_ns(fw, FILE_DEV, p, wait_read)
            a[A_PAGE] = p
            a[A_READAHEAD] = 0
            a[A_REFAULT] = 0
        if mark_accessed and s.resident[p] != 0:
            accessed(ss, s.cgroup_of[p], a)
        lat = cpu_ns + stall
        fw.tag_ns[tg] += lat
        fw.tag_ops[tg] += 1
        fw.f[F_TOTAL_NS] += lat
        if lat > fw.f[F_MAX_LAT]:
            fw.f[F_MAX_LAT] = lat
        if fault and stall > fw.f[F_MAX_FAULT]:
            fw.f[F_MAX_FAULT] = stall
        if major:
            fw.tag_majflt[tg] += 1
            if stall > fw.tag_maxwait[tg]:
                fw.tag_maxwait[tg] = stall
        b = 0
        x = int(lat)
        while x > 0 and b < N_LAT_BUCKETS - 1:
            x >>= 1
            b += 1
        fw.lat[b] += 1
        fw.f[F_LAST_LAT] = lat
        _make_room(ss, fw, a, r, out, evict, removed, cg, 0, True, t)
    done = cfg[CFG_END] - cfg[CFG_START]
    cfg[CFG_START] = cfg[CFG_END]
    return done
