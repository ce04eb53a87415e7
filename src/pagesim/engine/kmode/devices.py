"""Devices' service and queueing: how long a read or a write of ``n`` pages takes on the swap or
the file device, and, for a device with ``channels`` or ``link_page_ns``, when its link and
channels are free again (``fw.dev_busy``, model time in ns).

Figures per device come from ``fw.dev`` (:mod:`pagesim.engine.memory`, ``D_*`` columns).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.engine.kmode.framework import (
    F,
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
    queueing in ``F.queue_ns``/``F.queued``."""
    work = _read_ns(fw, d, first_page, n)
    if work <= 0.0 or not _queued(fw, d):
        return work, work
    wait = _occupy(fw, d, now, work, n)
    service = _service_ns(fw, d, work, n)
    if wait > service:
        fw.f[F.queue_ns] += wait - service
        fw.f[F.queued] += 1.0
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
