"""Record the file pages a command reads and writes, from ``strace -f``, as a pagesim trace.

:func:`record` runs ``strace -f -ttt -qq -y -s 0 -o LOG -e trace=... -- COMMAND...`` and
:func:`parse_strace` turns the log into a :class:`~pagesim.trace.Trace`: one access per 4 KiB
page that a ``read``, ``readv``, ``pread64``, ``preadv``, ``preadv2`` (op read) or ``write``,
``writev``, ``pwrite64``, ``pwritev``, ``pwritev2`` (op write) of a regular file touched,
in the order the calls started (``-ttt`` times, ns), tagged with the thread id.

Offsets: ``pread``/``pwrite`` give theirs; ``read``/``write`` use the position of their open
file description, which the parser follows through ``open``/``openat``/``openat2``/``creat``
(position 0), ``lseek`` (its result), ``dup``/``dup2``/``dup3``/``fcntl(F_DUPFD)`` (shared),
``clone``/``fork`` (a child shares its parent's descriptions; a thread, ``CLONE_FILES``, its
table), ``close``/``close_range`` and ``execve`` (close-on-exec descriptors go). ``strace -y``
names the file behind every descriptor, so the path of each access is the kernel's, not a
guess. A file's identity is ``(st_dev, st_ino)`` as ``stat`` sees it when the recording ends
(its path when it no longer exists); ``/proc``, ``/sys``, ``/dev``, pipes, sockets and
memfds are left out.

What it cannot see is counted in ``source["not_seen"]``: accesses to ``mmap``\\ ed pages (only
the ``mmap`` call is seen, not the faults; ``mmap="touch"`` records each mapped page once at the
call instead), ``O_DIRECT`` I/O (it bypasses the page cache: counted, not recorded),
``sendfile``/``splice``/``copy_file_range``/``io_uring``/``aio`` (counted where strace shows the
call, never recorded), reads and writes at an offset the parser does not know (``O_APPEND``
writes, descriptors inherited already open, such as a redirected stdin), and the pages the kernel
reads ahead (a trace holds what the program asked for, not what the kernel did with it).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pagesim.trace import KIND_FILE, OP_READ, OP_WRITE, Trace

__all__ = ["RecordError", "RecordResult", "parse_strace", "record", "strace_argv"]

PAGE_BYTES = 4096

#: System calls strace is asked to trace.
SYSCALLS = (
    "open", "openat", "openat2", "creat", "close", "close_range", "dup", "dup2", "dup3", "fcntl",
    "read", "pread64", "readv", "preadv", "preadv2", "write", "pwrite64", "writev", "pwritev",
    "pwritev2", "lseek", "mmap", "sendfile", "splice", "copy_file_range", "io_uring_enter",
    "io_submit", "clone", "clone3", "fork", "vfork", "execve", "execveat",
)  # fmt: skip

#: Bits of an original id below the file index: a page offset (2**32 pages of 4 KiB per file).
FILE_SHIFT = 32

_EXCLUDED_PREFIXES = ("/proc/", "/sys/", "/dev/", "/memfd:")

#: Limits of the recording, copied into ``source["limits"]``.
LIMITS = (
    "accesses to mmap'ed file pages are not seen (only the mmap call; see not_seen.mmap)",
    "O_DIRECT reads and writes bypass the page cache: counted in not_seen.direct_io, not recorded",
    "sendfile, splice, copy_file_range, io_uring and aio move file data without read/write: counted",
    "O_APPEND writes and descriptors inherited already open have unknown offsets: counted",
    "the pages the kernel reads ahead are not in the trace (it holds what the program asked for)",
    "file identity is (st_dev, st_ino) at the end of the recording; deleted files keep their path",
)


class RecordError(RuntimeError):
    """strace is missing or failed; the message says why in one line."""


@dataclass
class _Desc:
    """An open file description: path, position (None: unknown) and flags."""

    path: str
    pos: int | None
    append: bool = False
    direct: bool = False


@dataclass
class _Stats:
    calls: int = 0
    bytes: int = 0

    def add(self, nbytes: int) -> None:
        self.calls += 1
        self.bytes += max(int(nbytes), 0)


@dataclass
class RecordResult:
    """What :func:`record` produced.

    Attributes
    ----------
    trace : Trace
        The accesses (see :func:`parse_strace`).
    returncode : int
        The command's exit status (strace's, which is the command's).
    interrupted : bool
        True if the recording was stopped by Ctrl-C.
    """

    trace: Trace
    returncode: int
    interrupted: bool = False


def strace_argv(log: str, command: Sequence[str]) -> list[str]:
    """The strace command line that records ``command`` into ``log``."""
    return [
        "strace", "-f", "-ttt", "-qq", "-y", "-s", "0", "-e", "signal=none",
        "-e", "trace=" + ",".join(SYSCALLS), "-o", log, "--", *command,
    ]  # fmt: skip


_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f", "\\": "\\", '"': '"'}


def _unescape(text: str) -> str:
    """strace's C-style escapes (``\\x3e``, ``\\76``, ``\\n``) in a path -> the characters."""
    if "\\" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if code[0] == "x":
            return chr(int(code[1:], 16))
        if code[0] in "01234567":
            return chr(int(code, 8))
        return _SIMPLE.get(code, code)

    raw = _ESCAPE.sub(one, text)
    try:  # strace escapes bytes; paths are UTF-8 most of the time
        return raw.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return raw


def _split_args(text: str) -> list[str]:
    """Top-level comma-separated arguments of a call (brackets, braces and quotes respected)."""
    out, depth, cur, quoted, angle, i = [], 0, [], False, False, 0
    while i < len(text):
        ch = text[i]
        if quoted or angle:  # inside "..." or a descriptor's <path>
            cur.append(ch)
            if ch == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif (ch == '"' and quoted) or (ch == ">" and angle):
                quoted = angle = False
        elif ch == '"':
            quoted = True
            cur.append(ch)
        elif ch == "<" and cur and cur[-1].isdigit():
            angle = True
            cur.append(ch)
        elif ch in "([{":
            depth += 1
            cur.append(ch)
        elif ch in ")]}":
            depth -= 1
            cur.append(ch)
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    if cur or out:
        out.append("".join(cur).strip())
    return out


_LINE = re.compile(r"^(\d+)\s+(\d+)\.(\d+)\s+(.*)$")
_CALL = re.compile(r"^([a-z_0-9]+)\((.*)\)\s+=\s+(.*)$", re.S)
_UNFINISHED = re.compile(r"^([a-z_0-9]+)\((.*?)\s*<unfinished \.\.\.>$", re.S)
_RESUMED = re.compile(r"^<\.\.\. ([a-z_0-9]+) resumed>\s?(.*)$", re.S)
_FD = re.compile(r"^(-?\d+)(?:<((?:[^>\\]|\\.)*)>)?")
_RET = re.compile(r"^(-?\d+|0x[0-9a-fA-F]+|\?)(?:<((?:[^>\\]|\\.)*)>)?")


def _fd(arg: str) -> tuple[int | None, str | None]:
    m = _FD.match(arg.strip())
    if not m:
        return None, None
    return int(m.group(1)), (None if m.group(2) is None else _unescape(m.group(2)))


def _int(arg: str) -> int | None:
    arg = arg.strip()
    m = re.match(r"^\[?(-?\d+|0x[0-9a-fA-F]+)", arg)
    if not m:
        return None
    return int(m.group(1), 0)


def _events(lines: Iterable[str]) -> Iterable[tuple[int, int, str, str, str]]:
    """Complete calls ``(tid, start time ns, name, args, result)``, in the order they ended."""
    pending: dict[int, tuple[int, str, str]] = {}
    for line in lines:
        m = _LINE.match(line.rstrip("\n"))
        if not m:
            continue
        tid = int(m.group(1))
        frac = (m.group(3) + "000000000")[:9]
        t_ns = int(m.group(2)) * 1_000_000_000 + int(frac)
        rest = m.group(4)
        if rest.startswith(("+++", "---")):
            continue
        r = _RESUMED.match(rest)
        if r:
            if tid not in pending:
                continue
            t0, name, head = pending.pop(tid)
            tail = r.group(2)
            joined = head + (", " if head and tail and not tail.startswith((",", ")")) else "") + tail
            c = _CALL.match(f"{name}({joined}")
            if c:
                yield tid, t0, c.group(1), c.group(2), c.group(3)
            continue
        u = _UNFINISHED.match(rest)
        if u:
            pending[tid] = (t_ns, u.group(1), u.group(2).rstrip(", ").rstrip(","))
            continue
        c = _CALL.match(rest)
        if c:
            yield tid, t_ns, c.group(1), c.group(2), c.group(3)


def _clone_parents(lines: Iterable[str]) -> dict[int, tuple[int, bool]]:
    """child tid -> (parent tid, shares the fd table) from every clone/fork in the log."""
    out: dict[int, tuple[int, bool]] = {}
    for tid, _, name, args, result in _events(lines):
        if name in ("clone", "clone3", "fork", "vfork"):
            child = _int(result)
            if child is not None and child > 0:
                out[child] = (tid, name in ("clone", "clone3") and "CLONE_FILES" in args)
    return out


@dataclass
class _Recorder:
    """The parser's state: fd tables, files, accesses and what it could not see."""

    parents: dict[int, tuple[int, bool]]
    mmap_touch: bool = False
    include: tuple[str, ...] = ()
    tables: dict[int, dict[int, tuple[_Desc, bool]]] = field(default_factory=dict)
    paths: dict[str, int] = field(default_factory=dict)
    acc_path: list[int] = field(default_factory=list)
    acc_page: list[int] = field(default_factory=list)
    acc_op: list[int] = field(default_factory=list)
    acc_tid: list[int] = field(default_factory=list)
    acc_time: list[int] = field(default_factory=list)
    not_seen: dict[str, _Stats] = field(default_factory=dict)

    def table(self, tid: int) -> dict[int, tuple[_Desc, bool]]:
        if tid not in self.tables:
            parent = self.parents.get(tid)
            if parent is not None and parent[0] != tid:
                ptable = self.table(parent[0])
                self.tables[tid] = ptable if parent[1] else dict(ptable)
            else:
                self.tables[tid] = {}
        return self.tables[tid]

    def unseen(self, what: str, nbytes: int = 0) -> None:
        self.not_seen.setdefault(what, _Stats()).add(nbytes)

    def desc(self, tid: int, fd: int | None, path: str | None) -> _Desc | None:
        if fd is None or path is None:
            return None
        table = self.table(tid)
        entry = table.get(fd)
        if entry is None or entry[0].path != path:
            entry = (_Desc(path, None), False)  # inherited already open: position unknown
            table[fd] = entry
        return entry[0]

    def wanted(self, path: str) -> bool:
        """A path the recording keeps: absolute, not /proc, /sys, /dev or a memfd, included."""
        if self.include and not path.startswith(self.include):
            return False
        return path.startswith("/") and not path.startswith(_EXCLUDED_PREFIXES)

    def touch(self, tid: int, t_ns: int, path: str, offset: int, nbytes: int, op: int) -> None:
        if nbytes <= 0 or not self.wanted(path):
            return
        idx = self.paths.setdefault(path, len(self.paths))
        first, last = offset // PAGE_BYTES, (offset + nbytes - 1) // PAGE_BYTES
        for page in range(first, last + 1):
            self.acc_path.append(idx)
            self.acc_page.append(page)
            self.acc_op.append(op)
            self.acc_tid.append(tid)
            self.acc_time.append(t_ns)

    def io(self, tid: int, t_ns: int, name: str, args: list[str], ret: int) -> None:
        fd, path = _fd(args[0]) if args else (None, None)
        d = self.desc(tid, fd, path)
        if d is None or path is None:
            return
        op = OP_READ if name.startswith(("read", "pread")) else OP_WRITE
        explicit = name.startswith(("pread", "pwrite"))
        offset: int | None
        if explicit:
            offset = _int(args[3]) if len(args) > 3 else None  # (fd, buf, count|iovcnt, offset, ...)
            if name in ("preadv2", "pwritev2") and offset == -1:
                explicit, offset = False, d.pos
        else:
            offset = d.pos
        if ret < 0:
            return
        if not self.wanted(path):
            pass
        elif d.direct:
            self.unseen("direct_io", ret)
        elif op == OP_WRITE and d.append and not explicit:
            self.unseen("append_writes", ret)
            offset = None
        elif offset is None:
            self.unseen("unknown_offset", ret)
        else:
            self.touch(tid, t_ns, path, offset, ret, op)
        if not explicit:
            d.pos = None if offset is None else offset + ret

    def call(self, tid: int, t_ns: int, name: str, argtext: str, result: str) -> None:
        m = _RET.match(result.strip())
        ret = None if m is None or m.group(1) == "?" else int(m.group(1), 0)
        ret_path = None if m is None or m.group(2) is None else _unescape(m.group(2))
        if ret is None:
            return
        args = _split_args(argtext)
        table = self.table(tid)
        if name in ("open", "openat", "openat2", "creat"):
            if ret >= 0 and ret_path is not None:
                flags = argtext
                table[ret] = (
                    _Desc(ret_path, 0, append="O_APPEND" in flags, direct="O_DIRECT" in flags),
                    "O_CLOEXEC" in flags,
                )
        elif name == "close":
            fd, _ = _fd(args[0]) if args else (None, None)
            if ret == 0 and fd is not None:
                table.pop(fd, None)
        elif name == "close_range" and ret == 0 and len(args) >= 2:
            lo, hi = _int(args[0]), _int(args[1])
            if lo is not None and hi is not None:
                for fd in [f for f in table if lo <= f <= hi]:
                    if "CLOSE_RANGE_CLOEXEC" in argtext:
                        table[fd] = (table[fd][0], True)
                    else:
                        del table[fd]
        elif name in ("dup", "dup2", "dup3") or (name == "fcntl" and "F_DUPFD" in argtext):
            fd, path = _fd(args[0]) if args else (None, None)
            src = self.desc(tid, fd, path)
            if ret >= 0 and src is not None:
                table[ret] = (src, "O_CLOEXEC" in argtext or "F_DUPFD_CLOEXEC" in argtext)
        elif name == "fcntl" and "F_SETFD" in argtext and ret == 0:
            fd, _ = _fd(args[0])
            if fd in table:
                table[fd] = (table[fd][0], "FD_CLOEXEC" in argtext)
        elif name == "fcntl" and "F_SETFL" in argtext and ret == 0:
            fd, path = _fd(args[0])
            d = self.desc(tid, fd, path)
            if d is not None:
                d.append, d.direct = "O_APPEND" in argtext, "O_DIRECT" in argtext
        elif name == "lseek":
            fd, path = _fd(args[0]) if args else (None, None)
            d = self.desc(tid, fd, path)
            if d is not None and ret >= 0:
                d.pos = ret
        elif name in ("read", "readv", "pread64", "preadv", "preadv2", "write", "writev", "pwrite64",
                      "pwritev", "pwritev2"):  # fmt: skip
            self.io(tid, t_ns, name, args, ret)
        elif name == "mmap" and len(args) >= 6 and ret != -1:
            fd, path = _fd(args[4])
            if fd is None or fd < 0 or path is None or not self.wanted(path):
                return
            length, offset = _int(args[1]) or 0, _int(args[5]) or 0
            self.unseen("mmap", length)
            if self.mmap_touch:
                self.touch(tid, t_ns, path, offset, length, OP_READ)
        elif name in ("sendfile", "splice", "copy_file_range", "io_uring_enter", "io_submit"):
            if ret >= 0:
                self.unseen(name, ret if name not in ("io_uring_enter", "io_submit") else 0)
        elif name in ("execve", "execveat") and ret == 0:
            self.tables[tid] = {fd: e for fd, e in table.items() if not e[1]}


def _identity(path: str) -> dict[str, Any]:
    info: dict[str, Any] = {"path": path}
    try:
        st = os.stat(path)
    except OSError:
        info["exists"] = False
        return info
    info.update(dev=f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}", ino=int(st.st_ino), size=int(st.st_size))
    info["regular"] = stat.S_ISREG(st.st_mode)
    return info


def parse_strace(
    lines: str | os.PathLike[str] | Iterable[str],
    *,
    mmap: str = "skip",
    include: Sequence[str] = (),
    source: dict[str, Any] | None = None,
) -> Trace:
    """A trace of the file pages in an ``strace -f -ttt -y`` log (see the module docstring).

    Parameters
    ----------
    lines : path or iterable of str
        The log, as written by :func:`strace_argv` (``PID SECONDS.MICROS call(...) = result``):
        its path (read twice, line by line) or its lines.
    mmap : {"skip", "touch"}
        ``skip``: mmap calls are only counted in ``source["not_seen"]["mmap"]``; ``touch``: every
        page of a mapping is recorded once, as a read, at the call.
    include : sequence of str
        Record only files whose path starts with one of these prefixes (all regular files if
        empty).
    source : dict, optional
        More metadata for ``Trace.source`` (the command...).

    Returns
    -------
    Trace
        ``kind`` file, ``op`` read or write, ``tag`` the thread id, ``time`` ns since the epoch
        (``source["time_unit"] = "ns"``); ``original_id`` is ``file_index * 2**32 + page``,
        ``source["files"]`` lists each file's index, path and identity (``dev``, ``ino``,
        ``size`` at the end), ``source["not_seen"]`` what the recording could not see (calls and
        bytes by kind), ``source["limits"]`` the limits in words.

    Raises
    ------
    ValueError
        If ``mmap`` is not ``skip`` or ``touch``.
    """
    if mmap not in ("skip", "touch"):
        raise ValueError(f"--mmap must be 'skip' or 'touch', got {mmap!r}")
    if isinstance(lines, (str, os.PathLike)):  # a log file: read twice, never held whole
        path = os.fspath(lines)

        def reread() -> Iterable[str]:
            with open(path, errors="replace") as fh:
                yield from fh

    else:
        held = list(lines)

        def reread() -> Iterable[str]:
            return held

    rec = _Recorder(_clone_parents(reread()), mmap_touch=mmap == "touch", include=tuple(include))
    for tid, t_ns, name, args, result in _events(reread()):
        rec.call(tid, t_ns, name, args, result)
    # keep regular files only (by stat at the end; a deleted file keeps its path)
    infos = {path: _identity(path) for path in rec.paths}
    # a path that no longer exists was a file that was deleted: kept
    keep_path = {p: bool(i.get("regular")) if i.get("exists", True) else True for p, i in infos.items()}
    # a file is identified by (dev, ino); two paths of one file (hard links) are one file
    file_of_key: dict[Any, int] = {}
    files: list[dict[str, Any]] = []
    path_file = np.full(max(len(rec.paths), 1), -1, dtype=np.int64)
    order = np.asarray(rec.acc_path, dtype=np.int64)
    for path, idx in sorted(rec.paths.items(), key=lambda kv: kv[1]):
        if not keep_path[path]:
            continue
        info = infos[path]
        key = (info["dev"], info["ino"]) if "ino" in info else path
        if key not in file_of_key:
            file_of_key[key] = len(files)
            files.append({"index": len(files), **info})
        path_file[idx] = file_of_key[key]
    file_idx = path_file[order] if order.size else np.zeros(0, dtype=np.int64)
    keep = file_idx >= 0
    pages = np.asarray(rec.acc_page, dtype=np.int64)[keep] if order.size else np.zeros(0, np.int64)
    ids = (file_idx[keep] << FILE_SHIFT) | pages
    times = np.asarray(rec.acc_time, dtype=np.int64)[keep] if order.size else np.zeros(0, np.int64)
    ops = np.asarray(rec.acc_op, dtype=np.uint8)[keep] if order.size else np.zeros(0, np.uint8)
    tids = np.asarray(rec.acc_tid, dtype=np.int64)[keep] if order.size else np.zeros(0, np.int64)
    sort = np.argsort(times, kind="stable")
    meta: dict[str, Any] = {
        "format": "strace-record",
        "page_bytes": PAGE_BYTES,
        "time_unit": "ns",
        "tag": "thread id",
        "id_layout": f"file_index * 2**{FILE_SHIFT} + page",
        "mmap": mmap,
        "include": list(include),
        "files": files,
        "not_seen": {k: {"calls": v.calls, "bytes": v.bytes} for k, v in sorted(rec.not_seen.items())},
        "limits": list(LIMITS),
        **(source or {}),
    }
    return Trace.from_ids(
        ids[sort],
        kind=np.full(ids.size, KIND_FILE, np.uint8),
        op=ops[sort],
        tag=tids[sort].astype(np.int32),
        time=times[sort],
        source=meta,
    )


def _strace_version() -> str:
    try:
        out = subprocess.run(["strace", "-V"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "?"
    first = out.splitlines()[0] if out else "?"
    return first.strip()


def record(
    command: Sequence[str], *, mmap: str = "skip", include: Sequence[str] = (), keep_log: str | None = None
) -> RecordResult:
    """Run ``command`` under strace and return the trace of the file pages it read and wrote.

    Parameters
    ----------
    command : sequence of str
        The program and its arguments; it inherits stdin, stdout and stderr.
    mmap, include
        As :func:`parse_strace`.
    keep_log : str, optional
        Also copy strace's log to this path.

    Returns
    -------
    RecordResult
        The trace (``source["command"]``, ``source["strace"]``, ``source["returncode"]`` set)
        and the command's exit status. Ctrl-C stops the command; what was recorded until then is
        returned, with ``interrupted`` set.

    Raises
    ------
    RecordError
        If strace is not installed, or fails before running the command (ptrace not permitted).
    ValueError
        For an empty command or a bad ``mmap``.
    """
    if not command:
        raise ValueError("give the command to record after --: pagesim record -- COMMAND ARGS...")
    if mmap not in ("skip", "touch"):
        raise ValueError(f"--mmap must be 'skip' or 'touch', got {mmap!r}")
    if shutil.which("strace") is None:
        raise RecordError("strace is not installed: install it (apt-get install strace, dnf install strace)")
    interrupted = False
    with tempfile.TemporaryDirectory(prefix="pagesim-record-") as tmp:
        log = os.path.join(tmp, "strace.log")
        proc = subprocess.Popen(strace_argv(log, list(command)))
        try:
            returncode = proc.wait()
        except KeyboardInterrupt:  # the command and strace got the SIGINT too
            interrupted = True
            returncode = proc.wait()
        if not os.path.exists(log) or os.path.getsize(log) == 0:
            raise RecordError(
                f"strace could not run {command[0]!r} (status {returncode}; its message is above)"
            )
        if keep_log:
            shutil.copyfile(log, keep_log)
        trace = parse_strace(
            log,
            mmap=mmap,
            include=include,
            source={
                "command": list(command),
                "strace": _strace_version(),
                "returncode": returncode,
                "interrupted": interrupted,
            },
        )
    return RecordResult(trace, returncode, interrupted)
