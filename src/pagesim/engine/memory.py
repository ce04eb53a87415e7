"""The simulated node of kernel mode: memory size, watermarks, swap and file devices, costs.

Figures and rules
-----------------
* Watermarks (mm/page_alloc.c, ``__setup_per_zone_wmarks``; shared/reference/kernel_policies_spec.md
  §4.3): ``min_free_kbytes = 4 * sqrt(lowmem_kB)`` clamped to [128 KiB, 256 MiB];
  ``gap = max(min / 4, pages * watermark_scale_factor / 10000)`` with the factor 10;
  ``low = min + gap``, ``high = min + 2 * gap``. One node, one zone.
* Devices are service-time models. zram is synchronous: a swap-in costs the CPU its
  decompression and a swap-out its compression (CAST's estimate readout: swap-in 3.7 us of CPU,
  swap-out 2.4-2.7 us; lz4 pages compress about 3:1, so a page in zram still occupies a third of a
  page of memory; a workload may say its anon data compresses otherwise, or holds same-filled
  pages that zram keeps in no memory: :mod:`pagesim.engine.zram`). An NVMe SSD: about 80 us
  per 4 KiB read, 20 us per write (queued, the writer does not wait), a few us per further
  page of one request. An HDD: 8 ms seek plus
  27 us per 4 KiB (150 MB/s); a request that continues the previous one does not seek.
  Every figure is a default the user can change (``Device`` fields).
* Queueing (``Device.channels``, ``link_page_ns``; off by default, each request then timed
  alone): a device serves at most ``channels`` requests at once, first come first served in
  model time, and moves one request's data at a time over its host link; a request starts on
  the channel free first, and whoever waits for it waits for its queueing and its service.
  Readahead, write-back and swap-out occupy the device too (nobody waits for them).
  ``sata-ssd`` is the cache_ext paper's disk (a 480 GB SATA SSD, cache_ext_spec.md §5.1):
  8 channels -- the paper's fio run (4 KiB random reads, 8 jobs, buffered) gets 68,000-71,000
  IOPS at 31 us of CPU per I/O (cache_ext_results.md §9: 3,123 "uCPU per I/O" = 31.2 us), so
  each job waits about 8 / 70,000 s - 31 us = 83 us per read, the 80 us of one read alone: the
  device serves 8 reads at once without queueing (8 is a lower bound; NCQ allows 32) -- and a
  SATA III link of 550 MB/s, 7.45 us per 4 KiB page (6 Gb/s with 8b/10b coding, less protocol
  overhead).
* CPU: 100 ns of work per access, 250 ns to zero-fill a page, 50 ns per page reclaim looks at,
  400 ns more to test a mapped page's young bits through the reverse map (an rmap walk takes
  locks and visits each mapping: several hundred ns, which is why MGLRU walks page tables
  instead), 10 ns per PTE a page-table walker reads. Assumed figures, each changeable.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

PAGE_BYTES = 4096

# device array layout (float64, one row per device)
D_KIND = 0
D_READ_NS = 1  #: latency of one read request
D_READ_PAGE_NS = 2  #: each further page of a read request
D_WRITE_NS = 3  #: one write request, as the writer waits for it (0: queued, not waited for)
D_WRITE_PAGE_NS = 4
D_SEEK_NS = 5  #: added to a request that does not continue the previous one
D_CPU_READ_NS = 6  #: CPU of the reader per page (decompression)
D_CPU_WRITE_NS = 7  #: CPU of the writer per page (compression)
D_RATIO = 8  #: compression ratio; a stored page occupies 1/ratio page of memory (zram)
D_SYNC = 9  #: 1 if I/O completes on the caller's CPU (zram)
D_CHANNELS = 10  #: requests the device serves at once (0: unlimited, each request timed alone)
D_LINK_PAGE_NS = 11  #: each page's transfer over the host link, one transfer at a time (0: none)
D_BUSY_WRITE_NS = 12  #: a write request's work at the device (occupies a channel; nobody waits)
D_BUSY_WRITE_PAGE_NS = 13  #: each further page of it
D_LEN = 14

DEV_ZRAM = 0
DEV_SSD = 1
DEV_HDD = 2


@dataclass(frozen=True)
class Device:
    """A swap or file device as a service-time model; times in ns per 4 KiB page.

    ``read_ns + (n - 1) * read_page_ns`` (plus ``seek_ns`` unless sequential) is the work of an
    ``n``-page read request alone; ``write_ns``/``write_page_ns`` what a writer waits for (0:
    queued, not waited for). ``channels`` > 0 or ``link_page_ns`` > 0 queue requests (module
    docstring): a request holds one of ``channels`` channels for its work and the link for
    ``n * link_page_ns``, finishing when both are done; a write holds a channel for
    ``write_busy_ns + (n - 1) * write_busy_page_ns``. With both 0 (the default) every request
    is timed alone, as if the device had unlimited parallelism.
    """

    name: str
    kind: int
    read_ns: float
    read_page_ns: float
    write_ns: float
    write_page_ns: float
    seek_ns: float = 0.0
    cpu_read_ns: float = 0.0
    cpu_write_ns: float = 0.0
    compress_ratio: float = 1.0
    synchronous: bool = False
    channels: int = 0
    link_page_ns: float = 0.0
    write_busy_ns: float = 0.0
    write_busy_page_ns: float = 0.0

    @property
    def queued(self) -> bool:
        """True if requests queue (finite ``channels`` or a ``link_page_ns``)."""
        return self.kind != DEV_ZRAM and (self.channels > 0 or self.link_page_ns > 0)

    def row(self) -> np.ndarray:
        """This device as a float64 row of the engine's device array (``D_*`` columns)."""
        r = np.zeros(D_LEN)
        r[D_KIND] = self.kind
        r[D_READ_NS] = self.read_ns
        r[D_READ_PAGE_NS] = self.read_page_ns
        r[D_WRITE_NS] = self.write_ns
        r[D_WRITE_PAGE_NS] = self.write_page_ns
        r[D_SEEK_NS] = self.seek_ns
        r[D_CPU_READ_NS] = self.cpu_read_ns
        r[D_CPU_WRITE_NS] = self.cpu_write_ns
        r[D_RATIO] = self.compress_ratio
        r[D_SYNC] = 1.0 if self.synchronous else 0.0
        r[D_CHANNELS] = self.channels
        r[D_LINK_PAGE_NS] = self.link_page_ns
        r[D_BUSY_WRITE_NS] = self.write_busy_ns
        r[D_BUSY_WRITE_PAGE_NS] = self.write_busy_page_ns
        return r


DEVICES: dict[str, Device] = {
    "zram": Device(
        "zram",
        DEV_ZRAM,
        0.0,
        0.0,
        0.0,
        0.0,
        cpu_read_ns=3700.0,
        cpu_write_ns=2500.0,
        compress_ratio=3.0,
        synchronous=True,
    ),  # fmt: skip
    "ssd": Device(
        "ssd", DEV_SSD, 80_000.0, 4_000.0, 0.0, 0.0, write_busy_ns=20_000.0, write_busy_page_ns=4_000.0
    ),
    "sata-ssd": Device(
        "sata-ssd",
        DEV_SSD,
        80_000.0,
        4_000.0,
        0.0,
        0.0,
        channels=8,
        link_page_ns=7_450.0,
        write_busy_ns=20_000.0,
        write_busy_page_ns=4_000.0,
    ),  # fmt: skip
    "hdd": Device("hdd", DEV_HDD, 27_000.0, 27_000.0, 0.0, 0.0, seek_ns=8_000_000.0),
}


#: How tasks and reclaim are ordered (``KernelConfig.schedule``).
SCHEDULES = ("time", "trace")
STOPS = ("auto", "all", "first")


def watermarks(memory_pages: int) -> tuple[int, int, int]:
    """``(min, low, high)`` free-page watermarks of a node of ``memory_pages`` 4 KiB pages.

    Examples
    --------
    >>> watermarks(2 * 1024 * 1024)  # 8 GiB
    (2896, 4993, 7090)
    """
    kb = memory_pages * PAGE_BYTES // 1024
    min_kb = int(min(max(4 * math.sqrt(kb), 128), 262144))
    wmin = max(min_kb * 1024 // PAGE_BYTES, 1)
    gap = max(wmin // 4, memory_pages * 10 // 10000)
    return wmin, wmin + gap, wmin + 2 * gap


@dataclass
class KernelConfig:
    """Everything kernel mode needs besides the trace and the policy.

    Attributes
    ----------
    memory_pages : int
        Pages of memory of the node (8 GiB = 2,097,152).
    swap : str or Device
        Swap device (``zram``, ``ssd``, ``hdd`` or a Device); ``none`` for no swap.
    swap_pages : int
        Swap size in pages (default: as large as memory).
    file_device : str or Device
        Where file pages are read from and written to (``none`` is refused: a read would
        cost nothing).
    readahead_pages : int
        ``ra_pages``: the largest readahead window (default 32 = 128 KiB).
    context_readahead : bool
        Linux 6.6's ``try_context_readahead`` (mm/readahead.c, ``ondemand_readahead``; dropped
        in 6.10): a read miss that does not follow the task's last read still reads ahead when
        the pages just before it are in memory: with ``h`` > 1 of them (the request being one
        page), the window is ``min(h + 1, readahead_pages)`` pages from the missed one, its
        last page marked (``async_size`` 1). False (default): only sequential misses read
        ahead. Deviations: history pages count only if they occur in the trace (``ra_next``),
        and the window is not doubled when the history reaches the file's start.
    cpu_ns_per_access, zero_fill_ns, reclaim_ns_per_page : float
        CPU costs in ns: per access, per zero-filled page, per page reclaim isolates or looks at.
    rmap_ns_per_page : float
        Reclaim's test of a mapped page's young bits through the reverse map
        (``folio_referenced``: lock the anon_vma, walk the VMAs, read and clear the PTE), ns.
    walk_ns_per_pte : float
        A page-table walker's read of one PTE (MGLRU aging and look-around), ns.
    hint_fault_ns : float
        An access to a mapped page a policy made PROT_NONE (``PROT_NONE`` flag): the trap,
        the handler restoring the PTE and the return, ns (the order of a minor fault).
    swappiness : int
        ``vm.swappiness`` (0-200) handed to the policies that read it.
    schedule : str
        ``"time"`` (default): every task and kswapd has a clock in model time and the earliest
        runs next, each on its own CPU; a reclaim batch (32 pages) takes ``reclaim_ns_per_page``
        per page the policy looked at plus swap-out CPU, so kswapd and direct reclaim span many
        accesses of the other tasks, which keep reading (and setting young bits) meanwhile; a
        task whose access must wait for reclaim runs one batch and yields. ``"trace"``: accesses
        run in trace order and reclaim is instantaneous between two accesses (kswapd reclaims to
        high at once; the simpler model of pagesim before 0.2, kept for comparison).
    stop : str
        When the run ends. ``"all"``: when every task has done all its accesses. ``"first"``:
        when the first task has done all of its own, the others stopping wherever they are -- a
        benchmark run for a fixed time (``stress-ng --timeout 90``) stops every worker at once,
        so a worker that goes faster does more operations instead of finishing early and
        leaving its memory to the others. ``"auto"`` (default): the trace's ``source["stop"]``
        if it has one (``stress-vm`` says ``first``), else ``all``.
    dirty_background_ratio : float
        ``vm.dirty_background_ratio`` in % (default 10; cache_ext's LevelDB runs set 1): when
        the dirty file pages of the node, or of a cgroup against its ``memory.max``, exceed it,
        the flusher writes back the pages dirtied first until they are under it again; no task
        waits for it. 0: no flusher (dirty pages are written only when reclaim evicts them).
    kcompressd : int or None
        Queue depth of a per-node kcompressd thread (kcompressd-unofficial's ``vm.kcompressd``,
        default there 24): kswapd hands anon pages bound for swap to it and goes on, paying
        the write itself only when the queue is full. 0: none (a stock kernel). None
        (default): what the node's policy asks for (:func:`pagesim.policies.base.kcompressd_depth`; CAST's
        ``kcompressd`` knob, 24), else none.
    cpus : int or None
        CPUs of the node (the CAST seed's machine: 8). None or 0 (default): every task and
        kswapd has a CPU of its own. ``k`` >= 1 (``schedule = "time"`` only): each
        step of an actor -- an access's CPU (per access, zero-fill, zram's decompression, a
        hinting fault, the policy's own ``WORK_CPU_NS`` in its hooks) or one reclaim batch (of a
        task or of kswapd) -- is a CPU burst that needs one of the ``k`` CPUs; an actor ready
        while all are busy waits for the first to be free, first come first served per burst
        (docs/kernel-mode.md, "CPUs"). Waits for a device hold no CPU. kcompressd and the
        flusher are not on these CPUs.
    zram_ratio : float or None
        How many to one zram compresses the anon pages whose workload does not say
        (``source["anon_compression"]``, :mod:`pagesim.engine.zram`); >= 1. None (default):
        the swap device's ``compress_ratio`` (``zram``: 3.0). Only a zram swap device holds
        memory; with another device or none it is unused.
    """

    memory_pages: int = 65536
    swap: Any = "zram"
    swap_pages: int | None = None
    file_device: Any = "ssd"
    readahead_pages: int = 32
    context_readahead: bool = False
    cpu_ns_per_access: float = 100.0
    zero_fill_ns: float = 250.0
    reclaim_ns_per_page: float = 50.0
    rmap_ns_per_page: float = 400.0
    walk_ns_per_pte: float = 10.0
    hint_fault_ns: float = 1000.0
    swappiness: int = 60
    schedule: str = "time"
    stop: str = "auto"
    dirty_background_ratio: float = 10.0
    kcompressd: int | None = None
    zram_ratio: float | None = None
    cpus: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def device(self, which: Any) -> Device | None:
        """Resolve a device name or object."""
        if isinstance(which, Device):
            return which
        if which in (None, "none"):
            return None
        if which not in DEVICES:
            raise ValueError(f"unknown device {which!r}; known: {', '.join(DEVICES)}, none")
        return DEVICES[which]

    def zram_ratio_of(self, swap: Device | None) -> float:
        """The ratio zram compresses pages at unless their workload says: ``zram_ratio``, else
        ``swap``'s (1.0 for a device that is not zram, or none: it holds no memory)."""
        if swap is None or swap.kind != DEV_ZRAM:
            return 1.0
        if self.zram_ratio is not None:
            return float(self.zram_ratio)
        return swap.compress_ratio if swap.compress_ratio > 0 else 1.0

    def validated(self) -> KernelConfig:
        """A copy with defaults filled in; raises ValueError on impossible values."""
        if self.memory_pages < 64:
            raise ValueError(f"memory must be at least 64 pages, got {self.memory_pages}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"unknown schedule {self.schedule!r}; known: {', '.join(SCHEDULES)}")
        if not 0 <= self.dirty_background_ratio <= 100:
            raise ValueError(
                f"dirty_background_ratio must be within 0..100, got {self.dirty_background_ratio}"
            )
        if self.kcompressd is not None and not 0 <= self.kcompressd <= 256:
            raise ValueError(f"kcompressd must be within 0..256 (queue depth), got {self.kcompressd}")
        if self.zram_ratio is not None and not (math.isfinite(self.zram_ratio) and self.zram_ratio >= 1):
            raise ValueError(f"zram_ratio must be a finite number >= 1 (or None), got {self.zram_ratio}")
        if self.cpus is not None and (int(self.cpus) != self.cpus or self.cpus < 0):
            raise ValueError(f"cpus must be a whole number >= 0 (0, None: a CPU per task), got {self.cpus}")
        if self.cpus and self.schedule != "time":
            raise ValueError("cpus needs schedule='time': in trace order tasks have no clocks to share by")
        if self.stop not in STOPS:
            raise ValueError(f"unknown stop {self.stop!r}; known: {', '.join(STOPS)}")
        for name in (
            "cpu_ns_per_access",
            "zero_fill_ns",
            "reclaim_ns_per_page",
            "rmap_ns_per_page",
            "walk_ns_per_pte",
            "hint_fault_ns",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not 0 <= self.swappiness <= 200:
            raise ValueError(f"swappiness must be within 0..200, got {self.swappiness}")
        for which in (self.swap, self.file_device):
            dev = self.device(which)
            if dev is not None and (dev.channels < 0 or dev.link_page_ns < 0):
                raise ValueError(f"device {dev.name}: channels and link_page_ns must be >= 0")
        if self.device(self.file_device) is None:
            raise ValueError(f"file_device must be one of {', '.join(DEVICES)}: file pages are read from it")
        swap_pages = self.memory_pages if self.swap_pages is None else self.swap_pages
        return replace(self, swap_pages=0 if self.device(self.swap) is None else swap_pages)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable parameters (devices by their fields)."""
        d = asdict(self)
        for k in ("swap", "file_device"):
            dev = self.device(getattr(self, k))
            d[k] = None if dev is None else asdict(dev)
        return d
