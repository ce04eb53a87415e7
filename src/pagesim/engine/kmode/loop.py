"""The loop of kernel mode, :func:`run_kernel`: runs the actors in the scheduler's order; each
task's access is an anon or file hit, a fault (zero-fill, swap-in, hinting fault of a PROT_NONE
page), a file read with its readahead window, a write, or a free, after the task's fadvise
calls due before it (:func:`~pagesim.engine.kmode.fadvise._fadvise`). The module docstring of
:mod:`pagesim.engine.kmode` says what each does.
"""

from __future__ import annotations

from pagesim.core.jit import kernel_inline
from pagesim.core.state import (
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
    A_READAHEAD,
    A_REFAULT,
    A_SEQ,
    A_SIZE,
    A_SWAP_FREE,
    A_TAG,
    A_TIME,
    A_WAIT_NS,
    A_WMARK_HIGH,
    A_WMARK_LOW,
    A_ZRAM_PAGES,
    ANON,
    DIRTY,
    FLAG_MASK,
    MODE_KERNEL,
    PMD_SHIFT,
    PROT_NONE,
    RA_MARK,
    REASON_FREED,
    RECLAIM_DIRECT,
    REFERENCED,
    RESIDENT,
    SWAPCACHE,
    WORK_CPU_NS,
    YOUNG,
)
from pagesim.engine import counters as C
from pagesim.engine.kmode.devices import _occupy, _queued, _read_ns, _read_wait
from pagesim.engine.kmode.eviction import _kremove
from pagesim.engine.kmode.fadvise import _fadvise
from pagesim.engine.kmode.framework import (
    FILE_DEV,
    RA,
    SWAP_DEV,
    F,
    N,
    _free_pages,
    _zram_pages_of,
)
from pagesim.engine.kmode.readahead import (
    _async_plan,
    _bypassed_read,
    _commit,
    _noretry_fill,
    _page_at,
    _pages_needed,
    _plan_window,
    _sync_plan,
)
from pagesim.engine.kmode.reclaim import _reclaim_step, _room_needed, _wake_kswapd
from pagesim.engine.kmode.scheduler import (
    _cpu_wait,
    _finish_access,
    _next_task_access,
    _start_schedule,
    _stop_all,
)
from pagesim.engine.kmode.swapout import _release_swap
from pagesim.engine.kmode.writeback import _dirtied, _flush
from pagesim.engine.loop import CFG_END, CFG_HAS_ADMIT, CFG_INIT_RESULT, CFG_INITED, CFG_START, CFG_WARMUP
from pagesim.engine.memory import D_SYNC


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
    a[A_MEMORY] = fw.node[N.total]
    a[A_WMARK_LOW] = fw.node[N.wlow]
    a[A_WMARK_HIGH] = fw.node[N.whigh]
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
    cpu_ns = fw.f[F.cpu_ns]
    budget = cfg[CFG_END] - cfg[CFG_START]
    consumed = 0
    kswapd_id = fw.clock.shape[0] - 1
    has_admit = cfg[CFG_HAS_ADMIT] != 0
    while fw.node[N.heap_n] > 0:
        if fw.node[N.stop] == 2:
            consumed += _stop_all(fw, out)
            break
        x = fw.heap[0]
        if consumed >= budget and (fw.node[N.timed] != 0 or x != kswapd_id):
            break  # (in trace order kswapd finishes before the call returns, as it would)
        if fw.node[N.cpus] > 0 and (x == kswapd_id or op[fw.order[fw.task_pos[x]]] != 2):
            if _cpu_wait(fw, x):
                continue  # every CPU is busy: the actor waits for one (a free costs no CPU)
        tg = x
        t = 0
        reclaimer = -1
        fill_limit = -1  # pages the access may bring in (-1: its whole readahead window)
        cg = 0
        if x != kswapd_id:
            t = fw.order[fw.task_pos[tg]]
            cg = cgroup[t]
            p = page[t]
            if fw.adv_pos[tg] < fw.adv_first[tg + 1] and fw.adv_row[fw.adv_pos[tg]] <= t:
                _fadvise(ss, fw, r, out, removed, tg, t)  # calls made before this access
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
                k = _pages_needed(s, fw, p, tg, kind[t] == 1, op[t], fw.tag_ra[tg, RA.max])
                demand = 1 if s.resident[p] == 0 and op[t] != 2 else 0
                if k > demand and fw.tag_ra[tg, RA.noretry] != 0:
                    k = _noretry_fill(fw, cg, k, demand)
                    fill_limit = k
            reclaimer = _room_needed(fw, cg, k)
            if reclaimer < 0 and k > 0 and fw.tag_reclaimer[tg] >= 0:
                reclaimer = fw.tag_reclaimer[tg]  # an episode goes on until it has freed 32
            if reclaimer == RECLAIM_DIRECT:
                if fw.node[N.timed] != 0:  # (trace order keeps kswapd to its own wake-ups)
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
        fw.f[F.now] = fw.clock[tg]
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
        fw.tag_ra[tg, RA.noretry] = 0
        ra_max = fw.tag_ra[tg, RA.max]  # the task's files' readahead maximum (fadvise SEQUENTIAL)
        s.mm_seq[tg] = a[A_SEQ]  # a CPU ran the task's mm (lru_gen_use_mm)
        if is_anon:  # the access sets its page table's PMD accessed bit
            s.pmd_seq[p >> PMD_SHIFT] = a[A_SEQ]
        cpu0 = s.work[WORK_CPU_NS]
        has_next = fw.node[N.has_next] != 0
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
            _finish_access(fw, tg, cpu_ns, wait, 0.0, True, wait > 0.0)
            _next_task_access(fw, tg, release)
            continue
        fw.tag_admit[tg] = -1
        stall = 0.0  # waits for I/O and zero-fill of this access
        busy = 0.0  # the part of stall spent on the task's CPU (zero-fill, zram, hinting fault)
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
                    stall += fw.f[F.hint_ns]
                    busy += fw.f[F.hint_ns]
                    out[C.HINT_FAULTS] += 1
            elif o == 1:  # a buffered write: not marked accessed, no readahead, prev_pos kept
                s.resident[p] = v
            else:
                s.resident[p] = v & (FLAG_MASK ^ RA_MARK)
                mark_accessed = True
                if v & RA_MARK:  # PG_readahead hit: page_cache_async_ra, nobody waits for it
                    start, size, asz = _async_plan(s, fw, p, tg, ra_max)
                    if size > 0:
                        _commit(fw, tg, start, size, asz)
                        first = _page_at(fw, p, start - fw.addr[p])
                        k = _plan_window(s, fw, first, size, asz, -1, 0, fill_limit)
                    if k > 0 and _queued(fw, FILE_DEV):
                        _occupy(fw, FILE_DEV, fw.clock[tg], _read_ns(fw, FILE_DEV, fw.fill[0], k), k)
                fw.tag_ra[tg, RA.last] = p
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
                    if fw.dev[SWAP_DEV, D_SYNC] != 0.0:
                        busy += swap_wait  # zram decompresses on the faulting task's CPU
                    a[A_WAIT_NS] = int(swap_service)
                    flags = RESIDENT | ANON | YOUNG | REFERENCED | SWAPCACHE
                    if o == 1:
                        flags = (flags | DIRTY) & (FLAG_MASK ^ SWAPCACHE)
                else:
                    out[C.ZERO_FILL] += 1
                    if counted and fw.owner_tag[p] < 0 and fw.shadowed[p] == 0:
                        out[C.COMPULSORY] += 1
                    stall += fw.f[F.zero_ns]
                    busy += fw.f[F.zero_ns]
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
                    start, size, asz = _sync_plan(s, fw, p, tg, ra_max)
                    wait_read = 1
                    if size > 0:
                        _commit(fw, tg, start, size, asz)
                        first = _page_at(fw, p, start - fw.addr[p])
                        k = _plan_window(s, fw, first, size, asz, p, 1, fill_limit)
                        if first == p:
                            wait_read = k
                        elif k > 1 and _queued(fw, FILE_DEV):  # a window past p: nobody waits for it
                            ra_ns = _read_ns(fw, FILE_DEV, fw.fill[1], k - 1)
                            _occupy(fw, FILE_DEV, fw.clock[tg], ra_ns, k - 1)
                    major = True
                    fw.tag_ra[tg, RA.last] = p
                mark_accessed = o == 0
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
                    fw.node[N.res_anon] += 1
                    if fw.shadowed[q]:
                        out[C.WS_REFAULT_ANON] += 1
                    if (flags & SWAPCACHE) == 0:
                        _release_swap(fw, q)
                else:
                    fw.node[N.res_file] += 1
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
                fw.node[N.resident] += 1
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
                a[A_SWAP_FREE] = fw.node[N.swap_total] - fw.node[N.swap_used] if fw.node[N.has_swap] else 0
                added(ss, cg, a)
                fw.shadowed[q] = 0
            stall += read_ns
            if fw.dev[FILE_DEV, D_SYNC] != 0.0:
                busy += read_ns
            a[A_PAGE] = p
            if has_next:
                a[A_NEXT] = fw.upcoming[p]
            a[A_READAHEAD] = 0
            a[A_REFAULT] = 0
        # A clairvoyant policy is a reference, not a kernel policy: it is told every access
        # (a mapped hit too), so its next-use keys stay exact.
        if (mark_accessed or has_next) and s.resident[p] != 0:
            accessed(ss, s.cgroup_of[p], a)
        if o == 1 and not is_anon and fw.node[N.dirty_bg] > 0:
            if fw.node[N.dirty] > fw.node[N.dirty_bg] or fw.dirty_cg[cg] > fw.dirty_bg_cg[cg]:
                _flush(s, fw, out, cg)
        # the policy's own work in its hooks (CAST's walker, in added): the task's CPU
        _finish_access(fw, tg, cpu_ns + (s.work[WORK_CPU_NS] - cpu0), stall, busy, fault, major)
        _wake_kswapd(fw, out, fw.clock[tg])
        _next_task_access(fw, tg, release)
    cfg[CFG_START] = cfg[CFG_START] + consumed
    return consumed
