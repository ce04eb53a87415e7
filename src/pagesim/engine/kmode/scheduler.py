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
#
# CPUs (``N.cpus`` > 0): each step of an actor (an access, or one reclaim batch) is a CPU burst
# on one of ``N.cpus`` CPUs (``fw.cpu_busy``: when each is free). An actor whose turn comes while
# every CPU is busy waits: its clock moves to when the first is free and it goes back into the
# heap (:func:`_cpu_wait`), the wait charged to its pending access (``fw.tag_runq``). Among
# actors with equal clocks the one that began waiting first goes first (``fw.cpu_since``), so the
# CPUs serve bursts first come first served. A step that got a CPU holds it for its CPU work
# alone (:func:`_cpu_done`); its waits for devices hold none.


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
        if fw.node[N.cpus] > 0:  # first come first served: who began waiting for a CPU first
            sx = fw.cpu_since[x] if fw.cpu_since[x] >= 0.0 else cx
            sy = fw.cpu_since[y] if fw.cpu_since[y] >= 0.0 else cy
            if sx != sy:
                return sx < sy
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
def _cpu_wait(fw, x):  # type: ignore[no-untyped-def]
    """Actor ``x``'s turn with ``N.cpus`` CPUs: True if every CPU is busy past its clock (its
    clock then moves to when the first is free, the wait counted, and it goes back into the heap);
    False if it may run now, on the CPU free first (``N.cpu_cur``)."""
    best = 0
    for c in range(1, fw.cpu_busy.shape[0]):
        if fw.cpu_busy[c] < fw.cpu_busy[best]:
            best = c
    now = fw.clock[x]
    free_at = fw.cpu_busy[best]
    if free_at > now:
        if fw.cpu_since[x] < 0.0:
            fw.cpu_since[x] = now
        wait = free_at - now
        fw.clock[x] = free_at
        if x < fw.tag_runq.shape[0]:
            fw.tag_runq[x] += wait
            fw.f[F.runq_ns] += wait
        else:
            fw.f[F.kswapd_runq_ns] += wait
        _heap_fix(fw, x)
        return True
    fw.cpu_since[x] = -1.0
    fw.node[N.cpu_cur] = best
    return False


@kernel
def _cpu_done(fw, end):  # type: ignore[no-untyped-def]
    """The running step's CPU work ends at model time ``end``: its CPU is free from then on."""
    if fw.node[N.cpus] > 0:
        c = fw.node[N.cpu_cur]
        fw.cpu_busy[c] = max(fw.cpu_busy[c], end)


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
def _finish_access(fw, tg, cpu_ns, stall, busy, fault, major):  # type: ignore[no-untyped-def]
    """Charge an access that ran: its CPU, its waits (``stall``, plus the reclaim batches its
    task ran for it and its waits for a CPU), the latency histogram, the longest fault
    (``fault``), the task's longest fault (its whole latency) and longest wait for I/O
    (``major``); reset the task's reclaim state. Its CPU burst, ``cpu_ns`` plus the part
    ``busy`` of ``stall`` spent on the CPU (zero-fill, zram, a hinting fault), holds its CPU from
    the access's start."""
    wait = stall + fw.tag_stall[tg] + fw.tag_runq[tg]
    lat = cpu_ns + wait
    _cpu_done(fw, fw.clock[tg] + cpu_ns + busy)
    fw.tag_runq[tg] = 0.0
    if fault and lat > fw.tag_maxfault[tg]:
        fw.tag_maxfault[tg] = lat
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
