"""The scheduler: actors (the tasks and kswapd), their clocks and the binary min-heap that picks
the next to run; moving a task to its next access, charging an access that ran
(:func:`_finish_access`), and ending the run early (:func:`_stop_all`).
"""

from __future__ import annotations

from pagesim.core.heap import sift_down, sift_up
from pagesim.core.jit import kernel, kernel_inline
from pagesim.engine import counters as C
from pagesim.engine.kmode.framework import (
    N_LAT_BUCKETS,
    F,
    N,
)

# Actors are the tasks (tags 0..n_tags-1) and kswapd (id n_tags). Each has a clock in model time
# (``fw.clock``, ns). The next to run is the one with the smallest key: (clock, trace row of its
# next access) with ``schedule = time``, the trace row alone with ``schedule = trace``; kswapd's
# row is -1, so in trace mode it runs to completion before the next access (instantaneous
# reclaim), and in time mode it goes first among equals. A binary min-heap of actors (``fw.heap``,
# positions in ``fw.heap_pos``; pagesim.core.heap's sifting) keeps the order; keys only grow, so a
# changed actor sifts down.


@kernel
def _actor_row(fw, x):  # type: ignore[no-untyped-def]
    if x >= fw.task_pos.shape[0]:
        return -1
    return fw.order[fw.task_pos[x]]


@kernel
def _before(fw, x, y):  # type: ignore[no-untyped-def]
    """True if actor ``x`` runs before actor ``y``."""
    if fw.node[N.timed] != 0:
        cx = fw.clock[x]
        cy = fw.clock[y]
        if cx != cy:
            return cx < cy
    return _actor_row(fw, x) < _actor_row(fw, y)


@kernel_inline
def _actor_at(fw, slot):  # type: ignore[no-untyped-def]
    return fw.heap[slot]


@kernel_inline
def _heap_set(fw, slot, x):  # type: ignore[no-untyped-def]
    fw.heap[slot] = x
    fw.heap_pos[x] = slot


@kernel
def _heap_up(fw, slot):  # type: ignore[no-untyped-def]
    sift_up(fw, slot, _before, _actor_at, _heap_set)


@kernel
def _heap_down(fw, slot):  # type: ignore[no-untyped-def]
    sift_down(fw, slot, fw.node[N.heap_n], _before, _actor_at, _heap_set)


@kernel
def _heap_push(fw, x):  # type: ignore[no-untyped-def]
    if fw.heap_pos[x] >= 0:
        return
    n = fw.node[N.heap_n]
    fw.node[N.heap_n] = n + 1
    _heap_set(fw, n, x)
    _heap_up(fw, n)


@kernel
def _heap_remove(fw, x):  # type: ignore[no-untyped-def]
    slot = fw.heap_pos[x]
    if slot < 0:
        return
    n = fw.node[N.heap_n] - 1
    fw.node[N.heap_n] = n
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
    fw.node[N.heap_n] = 0
    fw.node[N.kswapd_awake] = 0
    out[C.STOPPED] += rest
    return rest


@kernel
def _next_task_access(fw, tg, release):  # type: ignore[no-untyped-def]
    """Move task ``tg`` to its next access; returns False when it has none left."""
    fw.task_pos[tg] += 1
    if fw.task_pos[tg] >= fw.task_first[tg + 1]:
        fw.task_pos[tg] = fw.task_first[tg + 1] - 1
        _heap_remove(fw, tg)
        if fw.node[N.stop] == 1:
            fw.node[N.stop] = 2
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
    fw.f[F.total_ns] += lat
    if lat > fw.f[F.max_lat]:
        fw.f[F.max_lat] = lat
    if fault and wait > fw.f[F.max_fault]:
        fw.f[F.max_fault] = wait
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
