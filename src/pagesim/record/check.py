"""Replay a trace as real file reads in a memory cgroup and put the kernel beside ``linux-lru``.

:func:`kernel_check` does, in order:

1. runs ``linux-lru`` in kernel mode on the trace's accesses (every access a read of one file
   page; the node as large as this machine's memory, the group's memory as ``cgroup_limits``,
   ``readahead_pages`` 1 when readahead is off, no swap);
2. creates a backing file of ``n_pages * 4096`` bytes in a directory on a disk (tmpfs and ramfs
   are refused: their pages are not page cache on the file LRU), writes it, ``fsync``\\ s it and
   drops its pages (``POSIX_FADV_DONTNEED``);
3. creates a memory cgroup limited to the memory (:class:`pagesim.record.cgroup.Cgroup`) and
   starts a small Python process (``python -S``, standard library only) that loads the page
   offsets, opens the file, writes its own pid to the group's ``cgroup.procs``, reads
   ``memory.stat``, replays every access as ``preadv`` of one page (after
   ``POSIX_FADV_RANDOM`` when readahead is off), and reads ``memory.stat`` again; it also
   reads its ``read_bytes`` in ``/proc/self/io`` before and after the reads: what it made the
   kernel fetch from the disk, readahead included (the kernel's "pages read in"; cgroup v1's
   ``pgpgin`` counts charge events, one per folio, so it counts pages only without readahead);
4. counts the file's resident pages (``mincore`` on a mapping of the file);
5. removes the group, the file and its directory, on every exit path: errors, Ctrl-C (SIGINT),
   SIGTERM and SIGHUP (turned into KeyboardInterrupt while the check runs). A check killed with
   SIGKILL leaves its group and directory behind; the next check removes them (their names carry the
   dead process's pid).

Page ``p`` of the trace is page ``rank(original_id[p])`` of the file, so pages with consecutive
ids are consecutive in the file (a sequential stream for readahead).
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from pagesim.engine.kernel import KernelRun
from pagesim.engine.memory import PAGE_BYTES, KernelConfig
from pagesim.policies import make_policy
from pagesim.record.cgroup import (
    PREFIX,
    Cgroup,
    CheckUnavailable,
    MemoryController,
    find_memory_controller,
    parse_stat,
    remove_stale,
)
from pagesim.trace import KIND_FILE, OP_READ, Trace

__all__ = [
    "CheckResult",
    "Metric",
    "kernel_check",
    "model_run",
    "remove_stale_directories",
    "replay_offsets",
    "resident_pages",
]

#: File systems whose pages are not page cache on the file LRU lists.
_NOT_DISK = ("tmpfs", "ramfs", "devtmpfs", "hugetlbfs", "proc", "sysfs")

#: The replayer: a child process that joins the cgroup, then reads one page per access.
_REPLAYER = r"""
import array, json, os, sys, time
procs, stat, path, offsets, random = sys.argv[1:6]
try:
    import ctypes
    ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG: SIGKILL when the parent dies
except Exception:
    pass
pages = array.array("q")
with open(offsets, "rb") as fh:
    pages.frombytes(fh.read())
fd = os.open(path, os.O_RDONLY)
buf = [bytearray(4096)]
preadv = os.preadv
def io():
    try:
        with open("/proc/self/io") as fh:
            return fh.read()
    except OSError:
        return ""
with open(procs, "w") as fh:
    fh.write(str(os.getpid()))
with open(stat) as fh:
    before = fh.read()
io_before = io()
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM if random == "1" else os.POSIX_FADV_NORMAL)
start = time.perf_counter()
for p in pages:
    preadv(fd, buf, p << 12)
seconds = time.perf_counter() - start
io_after = io()
with open(stat) as fh:
    after = fh.read()
report = {"before": before, "after": after, "io_before": io_before, "io_after": io_after}
sys.stdout.write(json.dumps({**report, "seconds": seconds}))
"""


@dataclass
class Metric:
    """One row of the comparison: the kernel's value, the model's and ``(model - kernel) / kernel``.

    ``kernel`` is None where the kernel does not report the counter (cgroup v1 has no
    ``pgactivate``); ``difference`` is None then, or when the kernel's value is 0 and the
    model's is not.
    """

    name: str
    kernel: int | None
    model: int | None
    difference: float | None


@dataclass
class CheckResult:
    """What :func:`kernel_check` measured and what the model predicted.

    Attributes
    ----------
    label : str
        The trace (file name or ``pattern:NAME``).
    memory_pages : int
        The cgroup's limit and the model's, pages of 4 KiB.
    readahead : bool
        Readahead on (the device's window) or off (``POSIX_FADV_RANDOM``; model window 1 page).
    readahead_pages : int
        The model's ``ra_pages`` (1 when off; the device's ``read_ahead_kb / 4`` when on).
    accesses, file_pages : int
        Accesses replayed and the backing file's size in pages.
    metrics : list of Metric
        ``pages_read_in``, ``workingset_refault_file``, ``activations``,
        ``workingset_activate_file``, ``resident_file_pages``, ``active_file_pages``,
        ``inactive_file_pages``.
    kernel_stat : dict
        The differences of the group's ``memory.stat`` counters over the replay (bytes for
        sizes, as the kernel reports them), and its sizes at the end.
    cgroup_version : int
    kernel_release : str
    replay_seconds, model_seconds : float
        Wall time of the replay (reads only) and of the model's run.
    notes : list of str
        What to know when reading the numbers.
    """

    label: str
    memory_pages: int
    readahead: bool
    readahead_pages: int
    accesses: int
    file_pages: int
    metrics: list[Metric]
    kernel_stat: dict[str, int]
    cgroup_version: int
    kernel_release: str
    replay_seconds: float
    model_seconds: float
    notes: list[str] = field(default_factory=list)

    def metric(self, name: str) -> Metric:
        """The row called ``name``; raises KeyError if there is none."""
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of the whole result."""
        return asdict(self)


def _difference(kernel: int | None, model: int | None) -> float | None:
    if kernel is None or model is None:
        return None
    if kernel == 0:
        return 0.0 if model == 0 else None
    return (model - kernel) / kernel


def replay_offsets(trace: Trace) -> np.ndarray:
    """The file page each access reads: ``rank(original_id)`` of its page, int64, shape (n_requests,)."""
    ranks = np.argsort(np.argsort(trace.original_id, kind="stable"), kind="stable")
    return ranks.astype(np.int64)[trace.page]


def _memory_total_pages() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024 // PAGE_BYTES
    except (OSError, ValueError, IndexError):
        pass
    return 1 << 22


def _device_readahead_pages(path: str) -> int:
    """``read_ahead_kb / 4`` of the block device holding ``path`` (32 if it cannot be found)."""
    try:
        dev = os.stat(path).st_dev
        sysdir = f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}"
        for candidate in (sysdir, os.path.join(sysdir, "..")):
            ra = os.path.join(candidate, "queue", "read_ahead_kb")
            if os.path.exists(ra):
                with open(ra) as fh:
                    return max(int(fh.read().strip()) // 4, 1)
    except (OSError, ValueError):
        pass
    return 32


def model_run(
    offsets: np.ndarray, memory_pages: int, readahead_pages: int
) -> tuple[dict[str, int], dict[str, float], dict[str, int], float]:
    """Run ``linux-lru`` in kernel mode over reads of the file pages ``offsets``.

    Parameters
    ----------
    offsets : numpy.ndarray of int64, shape (accesses,)
        The file page of each access.
    memory_pages : int
        The cgroup limit (``cgroup_limits``), pages.
    readahead_pages : int
        ``KernelConfig.readahead_pages`` (1: no readahead).

    Returns
    -------
    (counters, readouts, node, seconds)
        The run's counters, the policy's list sizes at the end (``active_file``...), the
        node's state at the end (``resident_file``...) and the wall time.

    Raises
    ------
    ValueError
        For a memory below 64 pages.
    """
    n = offsets.size
    trace = Trace.from_ids(
        offsets,
        kind=np.full(n, KIND_FILE, np.uint8),
        op=np.full(n, OP_READ, np.uint8),
        source={"format": "kernel-check"},
    )
    node = max(_memory_total_pages(), 2 * memory_pages, trace.n_pages + memory_pages)
    config = KernelConfig(memory_pages=node, swap="none", readahead_pages=max(int(readahead_pages), 1))
    config.validated()
    start = time.perf_counter()
    run = KernelRun(trace, make_policy("linux-lru"), config, cgroup_limits=[int(memory_pages)])
    run.advance()
    result = run.result()
    readouts = run.policies[0].readouts(run.states[0])
    return dict(result.counters), readouts, dict(result.node), time.perf_counter() - start


def _mount_type(path: str) -> str:
    """The file system type of the mount holding ``path`` (longest mount-point prefix)."""
    path = os.path.realpath(path)
    best, fstype = "", "?"
    try:
        with open("/proc/self/mounts") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) < 3:
                    continue
                mp = parts[1].replace("\\040", " ")
                inside = path == mp or path.startswith(mp.rstrip("/") + "/")
                if inside and len(mp) >= len(best):
                    best, fstype = mp, parts[2]
    except OSError:
        pass
    return fstype


def _choose_directory(directory: str | None, needed_bytes: int) -> str:
    candidates = [directory] if directory else ["/var/tmp", tempfile.gettempdir(), os.getcwd()]
    reasons = []
    for cand in candidates:
        if cand is None or not os.path.isdir(cand):
            reasons.append(f"{cand}: not a directory")
            continue
        fstype = _mount_type(cand)
        if fstype in _NOT_DISK:
            reasons.append(f"{cand} is on {fstype}, not a disk")
            continue
        free = shutil.disk_usage(cand).free
        if free < needed_bytes + (64 << 20):
            reasons.append(f"{cand}: {free >> 20} MiB free, {needed_bytes >> 20} MiB needed")
            continue
        return cand
    raise CheckUnavailable("no directory for the backing file: " + "; ".join(reasons))


def remove_stale_directories(directory: str) -> None:
    """Remove the ``pagesim-check-<pid>-*`` directories in ``directory`` whose process is gone."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        m = re.fullmatch(re.escape(PREFIX) + r"([0-9]+)-.*", name)
        if not m:
            continue
        try:
            os.kill(int(m.group(1)), 0)
            continue  # its process is alive
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        shutil.rmtree(os.path.join(directory, name), ignore_errors=True)


def resident_pages(path: str) -> int:
    """Pages of ``path`` in the page cache now (``mincore`` on a shared read-only mapping).

    Raises
    ------
    OSError
        If the file cannot be opened or mapped.
    """
    size = os.path.getsize(path)
    if size == 0:
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    n = (size + PAGE_BYTES - 1) // PAGE_BYTES
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
        if addr is None or addr == ctypes.c_void_p(-1).value:
            err = ctypes.get_errno()
            raise OSError(err, f"mmap of {path} failed: {os.strerror(err)}")
        try:
            vec = (ctypes.c_ubyte * n)()
            if libc.mincore(addr, size, vec) != 0:
                err = ctypes.get_errno()
                raise OSError(err, f"mincore of {path} failed: {os.strerror(err)}")
            return int((np.frombuffer(vec, dtype=np.uint8) & 1).sum())
        finally:
            libc.munmap(addr, size)
    finally:
        os.close(fd)


def _write_backing(path: str, pages: int) -> None:
    block = bytes(range(1, 256)) * ((1 << 20) // 255) + b"\x01" * ((1 << 20) % 255)
    remaining = pages * PAGE_BYTES
    with open(path, "wb") as fh:
        while remaining > 0:
            chunk = block[: min(remaining, len(block))]
            fh.write(chunk)
            remaining -= len(chunk)
        fh.flush()
        os.fsync(fh.fileno())
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _parse_io(text: str) -> dict[str, int]:
    """``/proc/PID/io`` (``read_bytes: 4096`` lines) -> ``{name: value}``."""
    return parse_stat(text.replace(":", " "))


#: The signals that stop a check (and are held while it cleans up).
_INTERRUPTS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt meanwhile (so ``finally`` blocks run).

    SIGINT too, since a process started in the background may have inherited it ignored.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in _INTERRUPTS}
    for sig in previous:
        signal.signal(sig, _raise_interrupt)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _replay(
    controller: MemoryController,
    offsets: np.ndarray,
    file_pages: int,
    memory_pages: int,
    readahead: bool,
    directory: str,
    say: Callable[[str], None],
) -> tuple[dict[str, int], dict[str, int], float, int, int]:
    """The kernel's side; returns (stat before, stat after, seconds, resident pages, initially resident)."""
    workdir = cgroup = child = None
    try:
        workdir = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=directory)
        backing = os.path.join(workdir, "backing")
        say(f"writing a {file_pages * PAGE_BYTES / (1 << 20):.1f} MiB backing file in {workdir}")
        _write_backing(backing, file_pages)
        initially = resident_pages(backing)
        offsets_file = os.path.join(workdir, "offsets")
        offsets.astype(np.int64).tofile(offsets_file)
        cgroup = Cgroup(controller, memory_pages * PAGE_BYTES)
        say(f"replaying {offsets.size:,} reads in {cgroup.path}")
        child = subprocess.Popen(
            [sys.executable, "-S", "-c", _REPLAYER, cgroup.procs_file, cgroup.stat_file, backing,
             offsets_file, "0" if readahead else "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )  # fmt: skip
        out, err = child.communicate()
        if child.returncode != 0:
            raise OSError(f"the replaying process failed (status {child.returncode}): {err.strip()[-500:]}")
        report = json.loads(out)
        resident = resident_pages(backing)
        before, after = parse_stat(report["before"]), parse_stat(report["after"])
        io_before, io_after = _parse_io(report["io_before"]), _parse_io(report["io_after"])
        if "read_bytes" in io_before and "read_bytes" in io_after:
            after["replayer_read_bytes"] = io_after["read_bytes"] - io_before["read_bytes"]
        return before, after, float(report["seconds"]), resident, initially
    finally:
        # a second Ctrl-C or SIGTERM must not cut the cleanup short: held until it is done
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
        try:
            if child is not None and child.poll() is None:
                child.kill()
                child.wait()
            if workdir is not None:
                shutil.rmtree(workdir, ignore_errors=True)
            if cgroup is not None:
                cgroup.remove()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


def kernel_check(
    trace: Trace,
    memory_pages: int,
    *,
    readahead: bool = False,
    directory: str | None = None,
    label: str = "trace",
    say: Callable[[str], None] | None = None,
) -> CheckResult:
    """Replay ``trace`` as file reads in a memory cgroup and compare with ``linux-lru``'s model.

    Parameters
    ----------
    trace : Trace
        Every access is replayed as a read of one 4 KiB page (``kind`` and ``op`` are not used).
    memory_pages : int
        The cgroup's limit, 4 KiB pages (at least 64).
    readahead : bool
        False: ``POSIX_FADV_RANDOM`` (one page per miss), model window 1; True: the kernel's
        default readahead, model window ``read_ahead_kb / 4`` of the disk holding the file.
    directory : str, optional
        Where the backing file goes (a temporary directory is made inside); by default
        ``/var/tmp``, then the system's temporary directory, then the current one, the first
        on a disk with room.
    label : str
        The trace's name in the result.
    say : callable, optional
        Called with a line of progress (``pagesim`` prints them on stderr).

    Returns
    -------
    CheckResult

    Raises
    ------
    CheckUnavailable
        Not root, no memory controller, the cgroup cannot be created, no disk directory.
    ValueError
        For an empty trace or a memory below 64 pages.
    OSError
        If the backing file cannot be written or the replaying process fails.
    KeyboardInterrupt
        On Ctrl-C, SIGTERM or SIGHUP (after cleaning up).
    """
    say = say or (lambda text: None)
    if trace.n_requests == 0:
        raise ValueError(f"{label}: empty trace, nothing to replay")
    if memory_pages < 64:
        raise ValueError(f"memory must be at least 64 pages (256 KiB), got {memory_pages}")
    controller = find_memory_controller()
    with _signals_interrupt():
        remove_stale(controller)
        file_pages = trace.n_pages
        chosen = _choose_directory(directory, file_pages * PAGE_BYTES)
        remove_stale_directories(chosen)
        offsets = replay_offsets(trace)
        ra_pages = _device_readahead_pages(chosen) if readahead else 1
        say(f"running linux-lru in kernel mode ({offsets.size:,} accesses, limit {memory_pages:,} pages)")
        counters, readouts, node, model_seconds = model_run(offsets, memory_pages, ra_pages)
        before, after, replay_seconds, resident, initially = _replay(
            controller, offsets, file_pages, memory_pages, readahead, chosen, say
        )
    delta = {k: after[k] - before.get(k, 0) for k in after}  # replayer_read_bytes: a difference already
    notes = []
    if "replayer_read_bytes" in delta:
        pages_in: int | None = delta["replayer_read_bytes"] // PAGE_BYTES
        notes.append(
            "kernel pages read in: read_bytes of the replaying process (/proc/PID/io: what it "
            "fetched from the disk, readahead included)"
        )
    elif controller.version == 1:
        # one charge event per folio: pages only while readahead is off (order-0 folios)
        pages_in = delta.get("pgpgin")
        notes.append(
            "kernel pages read in: pgpgin of the group (v1 counts charge events, one per folio: "
            "pages only with readahead off; the replayer's few anon pages included)"
        )
    else:
        stolen = delta.get("pgsteal_file", delta.get("pgsteal"))
        pages_in = None if stolen is None else stolen + delta.get("file", 0) // PAGE_BYTES
        notes.append("kernel pages read in: file pages charged (pgsteal_file + growth of file)")
    if initially:
        notes.append(f"{initially} pages of the backing file were still cached before the replay")
    if "pgactivate" not in after:
        notes.append(f"cgroup v{controller.version} does not report pgactivate")
    kernel_vals: dict[str, int | None] = {
        "pages_read_in": pages_in,
        "workingset_refault_file": delta.get("workingset_refault_file"),
        "activations": delta.get("pgactivate"),
        "workingset_activate_file": delta.get("workingset_activate_file"),
        "resident_file_pages": resident,
        "active_file_pages": None if "active_file" not in after else after["active_file"] // PAGE_BYTES,
        "inactive_file_pages": None if "inactive_file" not in after else after["inactive_file"] // PAGE_BYTES,
    }
    model_vals: dict[str, int | None] = {
        "pages_read_in": int(counters.get("pgpgin", counters["misses"])),
        "workingset_refault_file": int(counters.get("workingset_refault_file", 0)),
        "activations": int(counters.get("pgactivate", 0)),
        "workingset_activate_file": int(counters.get("workingset_activate_file", 0)),
        "resident_file_pages": int(node.get("resident_file", 0)),
        "active_file_pages": int(readouts.get("active_file", 0)),
        "inactive_file_pages": int(readouts.get("inactive_file", 0)),
    }
    metrics = [
        Metric(k, kernel_vals[k], model_vals[k], _difference(kernel_vals[k], model_vals[k]))
        for k in kernel_vals
    ]
    sizes = ("cache", "rss", "file", "anon", "active_file", "inactive_file")
    stat = {k: v for k, v in delta.items() if k not in sizes}
    stat.update({f"{k}_at_end": after[k] for k in sizes if k in after})
    return CheckResult(
        label=label,
        memory_pages=int(memory_pages),
        readahead=bool(readahead),
        readahead_pages=int(ra_pages),
        accesses=int(trace.n_requests),
        file_pages=int(file_pages),
        metrics=metrics,
        kernel_stat=stat,
        cgroup_version=controller.version,
        kernel_release=platform.release(),
        replay_seconds=replay_seconds,
        model_seconds=model_seconds,
        notes=notes,
    )
