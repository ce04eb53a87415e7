"""The simulated node's state for a run: kernel mode's arrays (:class:`KFramework`) built from a
:class:`KernelConfig` and a trace, and the node's slots a policy reads (swappiness, device
queues).
"""

from __future__ import annotations

import numpy as np

from pagesim.core.state import (
    GI_FILE_QUEUE,
    GI_SWAP_QUEUE,
    GI_SWAPPINESS,
    MAX_CANDIDATES,
    QUEUE_CPU,
    QUEUE_NONE,
    State,
)
from pagesim.engine.kernel.inputs import _first_access, device_addresses, file_successors, release_times
from pagesim.engine.kmode.framework import (
    FILE_DEV,
    N_LAT_BUCKETS,
    RA,
    SWAP_DEV,
    F,
    KFramework,
    N,
)
from pagesim.engine.memory import D_LEN, KernelConfig, watermarks
from pagesim.engine.zram import compression_entries, zram_costs
from pagesim.policies.base import Policy, kcompressd_depth
from pagesim.trace import FileAdvice, Trace

#: The block device number (bdi) of each device a node has, as the policies' queue slots name it.
SWAP_BDI = 1
FILE_BDI = 2


def _node_slots(st: State, config: KernelConfig) -> None:
    """The framework's slots a policy reads in kernel mode: vm.swappiness and where each device's
    waits queue (:data:`~pagesim.core.state.GI_SWAP_QUEUE`, ``GI_FILE_QUEUE``: the CPU for a
    synchronous device such as zram, else its bdi number, ``QUEUE_NONE`` without swap)."""
    st.gi[GI_SWAPPINESS] = config.swappiness
    devices = ((GI_SWAP_QUEUE, config.swap, SWAP_BDI), (GI_FILE_QUEUE, config.file_device, FILE_BDI))
    for slot, name, bdi in devices:
        dev = config.device(name)
        st.gi[slot] = QUEUE_NONE if dev is None else (QUEUE_CPU if dev.synchronous else bdi)


def make_kframework(
    config: KernelConfig,
    trace: Trace,
    columns: tuple[np.ndarray, np.ndarray, np.ndarray],
    classes: tuple[type[Policy], ...],
    first_policy: Policy,
    n_pages: int,
    n_tags: int,
    limits: np.ndarray,
    advice: FileAdvice | None = None,
) -> KFramework:
    """Kernel mode's arrays for a run of ``trace`` on the node ``config``.

    Parameters
    ----------
    config : KernelConfig
        The node (validated).
    trace : Trace
        The run's trace (release times, device addresses, readahead successors, next uses).
    columns : (page, kind, tag)
        The trace's columns as the loop reads them: int64, uint8, int32, shape (n_requests,).
    classes : tuple of Policy classes
        The policy class of each cgroup (batches, fallback, clairvoyance).
    first_policy : Policy
        Cgroup 0's policy: its kcompressd depth unless ``config.kcompressd`` sets one.
    n_pages, n_tags : int
        Pages (>= 1) and tasks of the trace.
    limits : numpy.ndarray of int64, shape (n_cgroups,)
        ``memory.max`` of each cgroup, pages.
    advice : FileAdvice, optional
        The tasks' fadvise calls (:func:`advice_arrays`).

    Returns
    -------
    KFramework
        Shapes and dtypes as its fields say (:mod:`pagesim.engine.kmode.framework`).
    """
    page, kind, tag = columns
    c = config
    wmin, wlow, whigh = watermarks(c.memory_pages)
    node = np.zeros(N.SIZE, dtype=np.int64)
    node[N.total] = c.memory_pages
    node[N.wmin], node[N.wlow], node[N.whigh] = wmin, wlow, whigh
    node[N.ra_max] = max(c.readahead_pages, 1)
    node[N.ctx_ra] = 1 if c.context_readahead else 0
    swap = c.device(c.swap)
    node[N.has_swap] = 0 if swap is None else 1
    node[N.swap_total] = c.swap_pages or 0
    node[N.last_oom_tag] = -1
    dev = np.zeros((2, D_LEN))
    if swap is not None:
        dev[SWAP_DEV] = swap.row()
    file_dev = c.device(c.file_device)
    if file_dev is not None:
        dev[FILE_DEV] = file_dev.row()
    f = np.zeros(F.SIZE)
    f[F.cpu_ns] = c.cpu_ns_per_access
    f[F.zero_ns] = c.zero_fill_ns
    f[F.scan_ns] = c.reclaim_ns_per_page
    f[F.rmap_ns] = c.rmap_ns_per_page
    f[F.pte_ns] = c.walk_ns_per_pte
    f[F.hint_ns] = c.hint_fault_ns
    node[N.timed] = 1 if c.schedule == "time" else 0
    node[N.cpus] = int(c.cpus or 0)
    stop = trace.source.get("stop", "all") if c.stop == "auto" else c.stop
    if stop not in ("all", "first"):
        raise ValueError(f"the trace's source['stop'] must be 'all' or 'first', got {stop!r}")
    node[N.stop] = 1 if stop == "first" else 0
    if any(cls.needs_next_access for cls in classes):
        node[N.has_next] = 1
        next_use = np.ascontiguousarray(trace.next_access(), dtype=np.int64)
        upcoming = _first_access(page, n_pages)
    else:
        next_use = np.zeros(0, dtype=np.int64)
        upcoming = np.zeros(0, dtype=np.int64)
    depth = c.kcompressd if c.kcompressd is not None else kcompressd_depth(first_policy)
    node[N.kc_depth] = max(int(depth), 0)
    if c.dirty_background_ratio > 0:
        node[N.dirty_bg] = max(int(c.memory_pages * c.dirty_background_ratio / 100), 1)
    tag_ra = np.full((n_tags, RA.SIZE), -1, dtype=np.int64)
    tag_ra[:, RA.size] = 0
    tag_ra[:, RA.async_size] = 0
    tag_ra[:, RA.byp_left] = 0
    tag_ra[:, RA.max] = node[N.ra_max]
    tag_ra[:, RA.mode] = 0
    tag_ra[:, RA.noretry] = 0
    channels = max([d.channels for d in (swap, file_dev) if d is not None] + [0])
    entries = compression_entries(trace.source)
    zram_cost, node[N.zram_scale] = zram_costs(page, kind, tag, n_pages, c.zram_ratio_of(swap), entries)
    order = np.argsort(tag, kind="stable").astype(np.int64)
    counts = np.bincount(tag, minlength=n_tags) if page.shape[0] else np.zeros(n_tags, np.int64)
    task_first = np.zeros(n_tags + 1, dtype=np.int64)
    np.cumsum(counts, out=task_first[1:])
    ra_next = file_successors(trace) if c.readahead_pages > 1 else np.full(n_pages, -1, np.int64)
    adv_row, adv_hint, adv_ptr, adv_pages, adv_first = advice_arrays(advice, trace, tag, n_tags)
    fill = 2 * c.readahead_pages + 1  # a window of a task whose files are hinted SEQUENTIAL
    return KFramework(
        used=np.zeros(limits.shape[0], dtype=np.int64),
        cap=limits.copy(),
        hand=np.zeros(limits.shape[0], dtype=np.int64),
        swapped=np.zeros(n_pages, dtype=np.uint8),
        shadowed=np.zeros(n_pages, dtype=np.uint8),
        owner_tag=np.full(n_pages, -1, dtype=np.int32),
        ra_next=ra_next,
        ra_prev=_predecessors(ra_next),
        tag_ns=np.zeros(n_tags),
        tag_ops=np.zeros(n_tags, dtype=np.int64),
        tag_majflt=np.zeros(n_tags, dtype=np.int64),
        tag_maxwait=np.zeros(n_tags),
        tag_maxfault=np.zeros(n_tags),
        tag_runq=np.zeros(n_tags),
        cpu_busy=np.zeros(max(int(c.cpus or 0), 1)),
        cpu_since=np.full(n_tags + 1, -1.0),
        tag_dead=np.zeros(n_tags, dtype=np.uint8),
        tag_anon=np.zeros(n_tags, dtype=np.int64),
        tag_ra=tag_ra,
        node=node,
        f=f,
        dev=dev,
        dev_last=np.full(2, -1, dtype=np.int64),
        dev_busy=np.zeros((2, 1 + channels)),
        addr=device_addresses(trace, n_pages),
        lat=np.zeros(N_LAT_BUCKETS, dtype=np.int64),
        victims=np.zeros(MAX_CANDIDATES, dtype=np.int64),
        one_by_one=np.array([0 if c.proposes_batches else 1 for c in classes], dtype=np.uint8),
        no_fallback=np.array([0 if c.uses_fallback else 1 for c in classes], dtype=np.uint8),
        fill=np.zeros(fill, dtype=np.int64),
        fill_flags=np.zeros(fill, dtype=np.uint8),
        fill_ra=np.zeros(fill, dtype=np.uint8),
        release=release_times(trace),
        order=order,
        task_first=task_first,
        task_pos=task_first[:-1].copy(),
        clock=np.zeros(n_tags + 1),
        tag_stall=np.zeros(n_tags),
        tag_prio=np.full(n_tags, 12, dtype=np.int64),
        tag_idle=np.zeros(n_tags, dtype=np.int64),
        tag_idle_scanned=np.zeros(n_tags, dtype=np.int64),
        tag_admit=np.full(n_tags, -1, dtype=np.int64),
        tag_stalled=np.zeros(n_tags, dtype=np.uint8),
        tag_reclaimer=np.full(n_tags, -1, dtype=np.int64),
        tag_reclaimed=np.zeros(n_tags, dtype=np.int64),
        heap=np.zeros(n_tags + 1, dtype=np.int64),
        heap_pos=np.full(n_tags + 1, -1, dtype=np.int64),
        dirty_ring=np.zeros(n_pages, dtype=np.int64),
        in_ring=np.zeros(n_pages, dtype=np.uint8),
        next_use=next_use,
        upcoming=upcoming,
        dirty_cg=np.zeros(limits.shape[0], dtype=np.int64),
        dirty_bg_cg=np.maximum(
            (np.minimum(limits, c.memory_pages) * c.dirty_background_ratio / 100).astype(np.int64), 1
        ),
        zram_cost=zram_cost,
        zram_cg=np.zeros(limits.shape[0], dtype=np.int64),
        swap_cg=np.full(n_pages, -1, dtype=np.int64),
        adv_row=adv_row,
        adv_hint=adv_hint,
        adv_ptr=adv_ptr,
        adv_pages=adv_pages,
        adv_first=adv_first,
        adv_pos=adv_first[:-1].copy(),
    )


def advice_arrays(
    advice: FileAdvice | None, trace: Trace, tag: np.ndarray, n_tags: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The fadvise calls as the loop reads them (:mod:`pagesim.engine.kmode.fadvise`).

    Returns
    -------
    (row, hint, ptr, pages, first) : numpy.ndarray of int64
        The calls grouped by the task of their row, each task's in row order (``row``, ``hint``:
        (k,)); call ``i``'s DONTNEED pages ``pages[ptr[i]:ptr[i + 1]]`` (dense ids); where each
        task's calls start (``first``: (n_tags + 1,)). Empty without calls.

    Raises
    ------
    ValueError
        If a call's row is not an access of the trace (:meth:`FileAdvice.check`).
    """
    if advice is None or len(advice) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(1, np.int64), empty, np.zeros(n_tags + 1, dtype=np.int64)
    advice.check(int(tag.shape[0]))
    who = tag[advice.row].astype(np.int64)
    order = np.lexsort((np.arange(len(advice)), advice.row, who))
    ptr, pages = advice.pages(trace.original_id)
    count = np.diff(ptr)[order]
    new_ptr = np.zeros(len(advice) + 1, dtype=np.int64)
    np.cumsum(count, out=new_ptr[1:])
    moved = [pages[ptr[i] : ptr[i + 1]] for i in order.tolist() if ptr[i + 1] > ptr[i]]
    first = np.zeros(n_tags + 1, dtype=np.int64)
    np.cumsum(np.bincount(who, minlength=n_tags), out=first[1:])
    return (
        np.ascontiguousarray(advice.row[order]),
        np.ascontiguousarray(advice.hint[order]),
        new_ptr,
        np.ascontiguousarray(np.concatenate(moved) if moved else pages[:0], dtype=np.int64),
        first,
    )


def _predecessors(nxt: np.ndarray) -> np.ndarray:
    """The inverse of ``ra_next``: each page's previous page of the same file, or -1 (int64)."""
    prev = np.full(nxt.shape[0], -1, dtype=np.int64)
    has = np.flatnonzero(nxt >= 0)
    prev[nxt[has]] = has
    return prev
