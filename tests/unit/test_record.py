"""``pagesim record``: strace's log parsed into page accesses, and a real recording of a script.

The real recordings need strace and permission to ptrace; they skip with the reason otherwise.
The parser's tests run everywhere on hand-written logs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pagesim.cli import app
from pagesim.record.strace import FILE_SHIFT, parse_strace
from pagesim.trace import OP_READ, OP_WRITE, Trace, read_trace

PAGE = 4096


def _strace_reason() -> str | None:
    if shutil.which("strace") is None:
        return "strace is not installed"
    try:
        done = subprocess.run(["strace", "-f", "-o", "/dev/null", "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"strace cannot run: {exc}"
    if done.returncode != 0:
        return f"strace cannot trace here: {done.stderr.decode(errors='replace').strip()[:200]}"
    return None


needs_strace = pytest.mark.skipif(_strace_reason() is not None, reason=str(_strace_reason()))


def _accesses(trace: Trace, path: str, files: list[dict]) -> list[tuple[int, int]]:
    """(page, op) of every access to ``path``, in trace order."""
    index = next(f["index"] for f in files if f["path"] == path)
    ids = trace.original_id[trace.page]
    mine = (ids >> FILE_SHIFT) == index
    pages = (ids[mine] & ((1 << FILE_SHIFT) - 1)).tolist()
    return list(zip(pages, trace.op[mine].tolist()))


# ---------------------------------------------------------------------------- the parser


def _log(tmp_path: Path, body: str) -> tuple[list[str], str]:
    data = tmp_path / "data.bin"
    data.write_bytes(b"x" * PAGE * 16)
    text = textwrap.dedent(body).strip().replace("DATA", str(data))
    return text.splitlines(), str(data)


def test_offsets_follow_descriptions_through_dup_fork_threads_and_exec(tmp_path: Path) -> None:
    lines, data = _log(
        tmp_path,
        """
        100 1.000001 openat(AT_FDCWD</x>, "DATA", O_RDONLY) = 3<DATA>
        100 1.000002 read(3<DATA>, ""..., 5000) = 5000
        100 1.000003 dup(3<DATA>) = 4<DATA>
        100 1.000004 read(4<DATA>, ""..., 4000) = 4000
        100 1.000005 clone3({flags=CLONE_VM|CLONE_FILES|CLONE_THREAD}, 88 <unfinished ...>
        101 1.000006 pread64(3<DATA>, ""..., 10, 40960) = 10
        100 1.000007 <... clone3 resumed>) = 101
        100 1.000008 clone(child_stack=NULL, flags=SIGCHLD) = 102
        102 1.000009 read(3<DATA>, ""..., 4096) = 4096
        100 1.000010 read(3<DATA>, ""..., 10) = 10
        100 1.000011 lseek(3<DATA>, 8192, SEEK_SET) = 8192
        100 1.000012 readv(3<DATA>, [...], 2) = 8192
        100 1.000013 preadv2(3<DATA>, [...], 1, -1, 0) = 100
        100 1.000014 fcntl(3<DATA>, F_SETFD, FD_CLOEXEC) = 0
        100 1.000015 execve("/bin/true", ["true"], 0x7ffc /* 1 var */) = 0
        100 1.000016 read(4<DATA>, ""..., 10) = 10
        100 1.000017 read(3<DATA>, ""..., 10) = 10
        100 1.000018 pwrite64(4<DATA>, ""..., 4097, 61439) = 4097
        """,
    )
    t = parse_strace(lines)
    files = t.source["files"]
    got = _accesses(t, data, files)
    r, w = OP_READ, OP_WRITE
    assert got == [
        (0, r), (1, r),  # read 5000 from 0
        (1, r), (2, r),  # dup shares the position: 5000..8999
        (10, r),  # the thread's pread at 40960
        (2, r), (3, r),  # the forked child shares the description: 9000..13095
        (3, r),  # 13096..13105
        (2, r), (3, r),  # lseek 8192, readv 8192 bytes
        (4, r),  # preadv2 at -1: the current position (16384)
        (4, r),  # after exec fd 4 survives (no CLOEXEC) at 16484; fd 3 closed on exec: unknown
        (14, w), (15, w),  # pwrite 61439..65535
    ]  # fmt: skip
    assert t.source["not_seen"]["unknown_offset"] == {"calls": 1, "bytes": 10}
    assert t.tag.tolist()[4] == 101 and t.tag.tolist()[5:7] == [102, 102]
    assert t.time.tolist()[0] == 1_000_002_000  # the first read
    assert t.source["time_unit"] == "ns" and t.source["page_bytes"] == PAGE
    assert files[0]["ino"] == Path(data).stat().st_ino


def test_unseen_io_is_counted_not_recorded(tmp_path: Path) -> None:
    lines, data = _log(
        tmp_path,
        """
        7 2.5 openat(AT_FDCWD, "DATA", O_RDONLY|O_DIRECT) = 3<DATA>
        7 2.6 read(3<DATA>, ""..., 8192) = 8192
        7 2.7 openat(AT_FDCWD, "DATA", O_WRONLY|O_APPEND) = 5<DATA>
        7 2.8 write(5<DATA>, ""..., 100) = 100
        7 2.9 openat(AT_FDCWD, "DATA", O_RDONLY) = 6<DATA>
        7 3.0 sendfile(1<pipe:[77]>, 6<DATA>, NULL, 4096) = 4096
        7 3.1 mmap(NULL, 8192, PROT_READ, MAP_SHARED, 6<DATA>, 4096) = 0x7f0000000000
        7 3.2 read(0<pipe:[78]>, ""..., 10) = 10
        7 3.3 openat(AT_FDCWD, "/proc/self/stat", O_RDONLY) = 8</proc/1/stat>
        7 3.4 read(8</proc/1/stat>, ""..., 100) = 100
        7 3.5 read(6<DATA>, ""..., 10) = -1 EINTR (Interrupted system call)
        7 3.6 read(6<DATA>, ""..., 10) = 10
        """,
    )
    t = parse_strace(lines)
    assert _accesses(t, data, t.source["files"]) == [(0, OP_READ)]
    assert [f["path"] for f in t.source["files"]] == [data]
    seen = t.source["not_seen"]
    assert seen["direct_io"] == {"calls": 1, "bytes": 8192}
    assert seen["append_writes"] == {"calls": 1, "bytes": 100}
    assert seen["sendfile"] == {"calls": 1, "bytes": 4096}
    assert seen["mmap"] == {"calls": 1, "bytes": 8192}
    assert any("mmap" in text for text in t.source["limits"])
    touched = parse_strace(lines, mmap="touch")
    assert _accesses(touched, data, touched.source["files"]) == [(1, OP_READ), (2, OP_READ), (0, OP_READ)]


def test_paths_are_unescaped_and_include_filters(tmp_path: Path) -> None:
    odd = tmp_path / "a>b c.bin"
    odd.write_bytes(b"y" * PAGE)
    other = tmp_path / "other.bin"
    other.write_bytes(b"y" * PAGE)
    shown = str(odd).replace(">", "\\x3e")
    lines = [
        f'9 1.0 openat(AT_FDCWD, "x", O_RDONLY) = 3<{shown}>',
        f'9 1.1 read(3<{shown}>, ""..., 10) = 10',
        f'9 1.2 openat(AT_FDCWD, "x", O_RDONLY) = 4<{other}>',
        f'9 1.3 read(4<{other}>, ""..., 10) = 10',
    ]
    t = parse_strace(lines)
    assert [f["path"] for f in t.source["files"]] == [str(odd), str(other)]
    only = parse_strace(lines, include=[str(other)])
    assert [f["path"] for f in only.source["files"]] == [str(other)]
    with pytest.raises(ValueError, match="mmap"):
        parse_strace(lines, mmap="all")


def test_record_refuses_without_a_command() -> None:
    result = CliRunner().invoke(app, ["record"])
    assert result.exit_code == 2


# ---------------------------------------------------------------------------- real recordings

SCRIPT = textwrap.dedent(
    """
    import os, sys, threading
    path = sys.argv[1]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b"z" * (8 * 4096))
    os.close(fd)
    fd = os.open(path, os.O_RDONLY)
    for page in (3, 0, 5, 5, 7):
        os.pread(fd, 4096, page * 4096)
    os.lseek(fd, 4096 + 10, os.SEEK_SET)
    os.read(fd, 8192)
    os.readv(fd, [bytearray(100)])
    t = threading.Thread(target=lambda: os.pread(fd, 1, 6 * 4096))
    t.start(); t.join()
    os.close(fd)
    """
)


@needs_strace
def test_record_a_script_yields_exactly_its_page_accesses(tmp_path: Path) -> None:
    data = tmp_path / "made.bin"
    out = tmp_path / "script.pgt"
    done = subprocess.run(
        [sys.executable, "-c", "from pagesim.cli import app; app()", "record", "-o", str(out), "--",
         sys.executable, "-c", SCRIPT, str(data)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "pagesim: recorded" in done.stderr
    t = read_trace(out)
    meta = t.source["converted_from"]
    got = _accesses(t, str(data), meta["files"])
    w, r = OP_WRITE, OP_READ
    assert got == [
        *[(p, w) for p in range(8)],
        (3, r), (0, r), (5, r), (5, r), (7, r),
        (1, r), (2, r), (3, r),  # read 8192 from 4106
        (3, r),  # readv 100 from 12298
        (6, r),  # the thread's pread
    ]  # fmt: skip
    index = next(f["index"] for f in meta["files"] if f["path"] == str(data))
    mine = (t.original_id[t.page] >> FILE_SHIFT) == index
    tags = np.unique(t.tag[mine])
    assert tags.size == 2  # the main thread and the reading thread
    assert np.all(np.diff(t.time) >= 0)
    assert meta["command"][0] == sys.executable and meta["returncode"] == 0


@needs_strace
def test_trace_info_and_compare_work_on_a_recording(tmp_path: Path) -> None:
    data = tmp_path / "made.bin"
    out = tmp_path / "r.pgt"
    runner = CliRunner()
    result = runner.invoke(app, ["record", "-o", str(out), "--", sys.executable, "-c", SCRIPT, str(data)])
    assert result.exit_code == 0, result.output
    info = runner.invoke(app, ["trace", "info", str(out), "--json"])
    assert info.exit_code == 0, info.output
    compared = runner.invoke(app, ["compare", str(out), "--size", "50%", "--policy", "fifo", "--json"])
    assert compared.exit_code == 0, compared.output


@needs_strace
def test_record_reports_a_command_that_cannot_run(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["record", "-o", str(tmp_path / "x.pgt"), "--", "/nonexistent/cmd"])
    assert result.exit_code == 3
    assert "strace could not run" in result.output
