"""``pagesim kernel-check`` and ``pagesim record``: the model against this machine's kernel.

Both need things a plain user or a container may lack (root and a memory cgroup controller;
strace): when they are missing the command prints why on one line and exits with status 3.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import typer
from rich.console import Console
from rich.table import Table

from pagesim.cli._common import READER_HELP, fail, handled_errors, load_trace, reader_options, stderr_line
from pagesim.cli._kernel import parse_memory
from pagesim.engine.memory import PAGE_BYTES
from pagesim.record import (
    PATTERNS,
    CheckResult,
    CheckUnavailable,
    RecordError,
    kernel_check,
    make_pattern,
    record,
)
from pagesim.record.patterns import DEFAULT_ACCESSES
from pagesim.trace import OP_READ, OP_WRITE, write_trace

#: Exit status when this machine cannot run the command (not root, no memory cgroup, no strace).
EXIT_UNAVAILABLE = 3

_LABELS = {
    "pages_read_in": "pages read in (misses)",
    "workingset_refault_file": "workingset_refault_file",
    "activations": "activations (pgactivate)",
    "workingset_activate_file": "workingset_activate_file",
    "resident_file_pages": "resident file pages at the end",
    "active_file_pages": "active_file pages at the end",
    "inactive_file_pages": "inactive_file pages at the end",
}


def _num(value: int | None) -> str:
    return "n/a" if value is None else f"{value:,}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100.0 * value:+.1f}%"


def check_table(result: CheckResult) -> Table:
    """The kernel beside the model, one row per measure, with ``(model - kernel) / kernel``."""
    table = Table(title=f"{result.label}: the kernel beside linux-lru", title_justify="left")
    table.add_column("measure")
    table.add_column(f"kernel {result.kernel_release}", justify="right")
    table.add_column("linux-lru model", justify="right")
    table.add_column("difference", justify="right")
    for m in result.metrics:
        table.add_row(_LABELS.get(m.name, m.name), _num(m.kernel), _num(m.model), _pct(m.difference))
    return table


def _mib(pages: int) -> str:
    return f"{pages * PAGE_BYTES / (1 << 20):,.1f} MiB"


def kernel_check_command(
    trace: str | None = typer.Argument(
        None, metavar="TRACE", help="Trace file (or workload:NAME) to replay; or give --pattern."
    ),
    pattern: str | None = typer.Option(
        None,
        "--pattern",
        metavar="PATTERN",
        help="A built-in pattern instead of a trace: "
        + "; ".join(f"{p.name} ({p.description})" for p in PATTERNS.values())
        + ".",
    ),
    memory: str = typer.Option(
        "64MiB", "--memory", metavar="SIZE", help="The cgroup's limit and the model's: 64MiB, 1GiB or pages."
    ),
    readahead: str = typer.Option(
        "off",
        "--readahead",
        metavar="on|off",
        help="off: POSIX_FADV_RANDOM, one page per miss (model window 1); on: the disk's "
        "read_ahead_kb (the model's window too).",
    ),
    accesses: int = typer.Option(
        DEFAULT_ACCESSES, "--accesses", metavar="N", help="Accesses of a --pattern."
    ),
    seed: int = typer.Option(1, "--seed", metavar="N", help="Seed of a --pattern's random draws."),
    directory: str | None = typer.Option(
        None,
        "--dir",
        metavar="DIR",
        help="Directory (on a disk, not tmpfs) for the backing file; default /var/tmp, then $TMPDIR.",
    ),
    fmt: str | None = typer.Option(None, "--format", "-f", metavar="FORMAT", help="Format of TRACE."),
    reader: list[str] | None = typer.Option(None, "--reader", metavar="KEY=VALUE", help=READER_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
) -> None:
    """Replay a trace as page reads in a memory cgroup of this machine; compare with linux-lru.

    Needs root and a memory cgroup controller (cgroup v2 memory.max or v1 memory.limit_in_bytes).

    The cgroup and the backing file are removed on every exit path, Ctrl-C and SIGTERM included.
    """
    with handled_errors():
        if (trace is None) == (pattern is None):
            raise ValueError("give either a TRACE or --pattern (one of: " + ", ".join(PATTERNS) + ")")
        if readahead not in ("on", "off"):
            raise ValueError(f"--readahead must be 'on' or 'off', got {readahead!r}")
        memory_pages = parse_memory(memory)
        if pattern is not None:
            t = make_pattern(pattern, memory_pages, accesses, seed)
            label = f"pattern:{pattern}"
        else:
            assert trace is not None
            t = load_trace(trace, fmt, reader_options(reader))
            label = os.path.basename(trace)
        try:
            result = kernel_check(
                t,
                memory_pages,
                readahead=readahead == "on",
                directory=directory,
                label=label,
                say=lambda text: stderr_line(f"pagesim: {text}"),
            )
        except CheckUnavailable as exc:
            raise fail(f"kernel-check cannot run here: {exc}", EXIT_UNAVAILABLE) from None
        if as_json:
            sys.stdout.write(json.dumps(result.to_dict(), allow_nan=False) + "\n")
            return
        # labels like pattern:loop are text, not emoji codes; the table needs 100 columns
        width = max(shutil.get_terminal_size().columns, 100)
        out = Console(
            file=sys.stdout, width=width, soft_wrap=False, emoji=False, markup=False, highlight=False
        )
        out.print(
            f"{label}: {result.accesses:,} accesses over {result.file_pages:,} pages "
            f"({_mib(result.file_pages)}); memory {result.memory_pages:,} pages "
            f"({_mib(result.memory_pages)}, cgroup v{result.cgroup_version}); readahead {readahead}"
            + (f" ({result.readahead_pages} pages)" if readahead == "on" else ""),
            soft_wrap=True,
        )
        out.print(check_table(result))
        for note in result.notes:
            out.print(f"note: {note}", soft_wrap=True)
        out.print(
            f"replay {result.replay_seconds:.1f} s, model {result.model_seconds:.1f} s; "
            f"difference = (model - kernel) / kernel",
            soft_wrap=True,
        )


def record_command(
    command: list[str] = typer.Argument(..., metavar="COMMAND", help="The command to record, after --."),
    output: str = typer.Option(
        "record.pgt", "--output", "-o", metavar="FILE", help="The trace to write (pagesim format, .pgt)."
    ),
    mmap: str = typer.Option(
        "skip",
        "--mmap",
        metavar="skip|touch",
        help="skip: mmap'ed pages are only counted in the metadata; touch: each mapped page is "
        "recorded once, as a read, at the mmap call.",
    ),
    include: list[str] | None = typer.Option(
        None, "--include", metavar="PREFIX", help="Record only files under this path prefix (repeatable)."
    ),
    strace_log: str | None = typer.Option(
        None, "--strace-log", metavar="FILE", help="Keep strace's log in FILE too."
    ),
) -> None:
    """Run a command under strace -f and write the file pages it reads and writes as a trace.

    One access per 4 KiB page of a regular file that a read, readv, pread, preadv (or write...) touched.

    Tag: the thread id; time: ns. What strace cannot show is counted in the trace's metadata.
    """
    with handled_errors():
        try:
            res = record(command, mmap=mmap, include=tuple(include or ()), keep_log=strace_log)
        except RecordError as exc:
            raise fail(str(exc), EXIT_UNAVAILABLE) from None
        t = res.trace
        write_trace(t, output, format="pagesim")
        reads = int((t.op == OP_READ).sum())
        writes = int((t.op == OP_WRITE).sum())
        files = len(t.source.get("files", []))
        # on stderr: stdout is the command's
        stderr_line(
            f"pagesim: recorded {t.n_requests:,} page accesses ({reads:,} reads, {writes:,} writes) "
            f"over {t.n_pages:,} pages of {files:,} files to {output}"
        )
        for what, seen in t.source.get("not_seen", {}).items():
            stderr_line(f"pagesim: not seen: {what}: {seen['calls']:,} calls, {seen['bytes']:,} bytes")
        if res.interrupted:
            stderr_line("pagesim: interrupted: the trace holds what was recorded until then")
            raise typer.Exit(130)
        if res.returncode != 0:
            stderr_line(f"pagesim: notice: the command exited with status {res.returncode}")
            raise typer.Exit(res.returncode)
