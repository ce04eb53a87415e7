"""What every command shares: error reporting, trace loading, progress, printing comparisons.

Errors a user can cause (bad trace lines, unknown policies, bad sizes, missing files) are
printed as one line on stderr and exit with status 2; a policy that raises exits with status 1
after printing its own traceback. Set ``PAGESIM_DEBUG=1`` to get Python's traceback instead.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from pagesim.analysis.compare import compare, resolve_policies, resolve_size, resolve_warmup
from pagesim.engine import PolicyCompileWarning, PolicyError
from pagesim.report.compare import comparison_record, comparison_tables
from pagesim.trace import Trace, read_trace
from pagesim.workloads import from_spec

#: Exit status for input the user can fix (usage, files, traces, names, sizes).
EXIT_BAD_INPUT = 2
#: Exit status when a policy fails while running.
EXIT_POLICY_FAILED = 1

#: Runs shorter than this show no progress bar (seconds).
PROGRESS_DELAY = 2.0

WORKLOAD_PREFIX = "workload:"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def stdout() -> Console:
    """A console on the current stdout (looked up at call time, so test runners capture it)."""
    return Console(file=sys.stdout, soft_wrap=False)


def stderr_line(text: str) -> None:
    """Print one line on stderr, without rich's wrapping."""
    sys.stderr.write(text.rstrip("\n") + "\n")
    sys.stderr.flush()


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print ``pagesim: error: message`` on one line and return the Exit to raise."""
    stderr_line("pagesim: error: " + " ".join(str(message).splitlines()))
    return typer.Exit(code)


@contextmanager
def handled_errors() -> Iterator[None]:
    """Turn the exceptions of bad input into one-line messages and exit statuses.

    Raises
    ------
    typer.Exit
        Status 2 for bad input (trace format, unknown policy or format, bad size, missing or
        unreadable file), 1 for a policy that raised (after its traceback), 130 on Ctrl-C.
    """
    if os.environ.get("PAGESIM_DEBUG"):
        yield
        return
    try:
        yield
    except PolicyError as exc:
        sys.stderr.write(exc.traceback_text.rstrip("\n") + "\n")
        where = f"at access index {exc.access_index}" if exc.access_index >= 0 else "in init"
        raise fail(
            f"policy {exc.policy!r} raised {type(exc.original).__name__}: {exc.original} {where}",
            EXIT_POLICY_FAILED,
        ) from None
    except KeyboardInterrupt:
        stderr_line("pagesim: interrupted")
        raise typer.Exit(130) from None
    except (ValueError, OSError) as exc:
        # TraceFormatError and UnknownPolicyError are ValueErrors; missing files OSErrors.
        raise fail(str(exc)) from None
    except (SyntaxError, ImportError) as exc:  # a user's policy file that does not import
        raise fail(f"cannot load {exc.__class__.__name__}: {exc}") from None


def load_trace(spec: str, fmt: str | None = None) -> Trace:
    """Read a trace file, or generate ``workload:NAME[?key=value&...]``.

    Raises
    ------
    FileNotFoundError, ValueError, TraceFormatError
        As :func:`pagesim.trace.read_trace` and :func:`pagesim.workloads.from_spec`.
    """
    if spec.startswith(WORKLOAD_PREFIX):
        if fmt is not None:
            raise ValueError("--format applies to trace files, not to workload: traces")
        return from_spec(spec[len(WORKLOAD_PREFIX) :])
    if os.path.isdir(spec):
        raise ValueError(f"{spec} is a directory, not a trace file")
    return read_trace(spec, format=fmt)


class DelayedProgress:
    """A rich progress bar on stderr that appears only once a run has lasted a few seconds.

    Shown only when stderr is a terminal; disappears when done (transient). Call the instance
    as ``progress(done, total)``; use it as a context manager.
    """

    def __init__(self, description: str, delay: float = PROGRESS_DELAY) -> None:
        self.description = description
        self.delay = delay
        self.console = Console(stderr=True)
        self.enabled = self.console.is_terminal
        self.start = time.perf_counter()
        self.bar: Progress | None = None
        self.task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.start < self.delay or done >= total:
                return
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.description, total=total)
        self.bar.update(self.task, completed=done, total=total)

    def __enter__(self) -> DelayedProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


@contextmanager
def compile_notices() -> Iterator[None]:
    """Print each distinct :class:`PolicyCompileWarning` once, as a notice on stderr, at once."""
    seen: set[str] = set()
    previous = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if issubclass(category, PolicyCompileWarning):
            text = " ".join(_ANSI.sub("", str(message)).split())
            if text not in seen:
                seen.add(text)
                stderr_line(f"pagesim: notice: {text}")
            return
        previous(message, category, *args, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("always", PolicyCompileWarning)
        warnings.showwarning = show
        try:
            yield
        finally:
            warnings.showwarning = previous


def run_comparison(
    trace: Trace,
    label: str,
    *,
    sizes: Sequence[str],
    policies: Sequence[str] | None,
    warmup: str | None,
    capacity_unit: str,
    as_json: bool,
    opt: bool = True,
    interpreted: bool = False,
) -> None:
    """Resolve the options, run :func:`pagesim.analysis.compare.compare` and print the result.

    Raises
    ------
    ValueError, UnknownPolicyError, PolicyError
        For bad sizes, warm-up, unit or policy names, or a failing policy.
    """
    if capacity_unit not in ("pages", "bytes"):
        raise ValueError(f"--capacity-unit must be 'pages' or 'bytes', got {capacity_unit!r}")
    if not sizes:
        raise ValueError("give at least one --size (a count like 5000 or a percentage like 10%)")
    classes = resolve_policies(policies)
    capacities = [resolve_size(text, trace, capacity_unit) for text in sizes]
    n_warmup = resolve_warmup(warmup, trace.n_requests)
    with compile_notices(), DelayedProgress("simulating") as progress:
        results = compare(
            trace,
            classes,
            capacities,
            warmup=n_warmup,
            capacity_unit=capacity_unit,
            baseline=opt,
            progress=progress,
            interpreted=interpreted,
        )
    if as_json:
        per_size = len(classes)
        for i, result in enumerate(results):
            record = comparison_record(result, label, str(sizes[i // per_size]))
            sys.stdout.write(json.dumps(record, allow_nan=False, default=str) + "\n")
        return
    whole: int | None = trace.n_pages
    if capacity_unit == "bytes":
        whole = resolve_size("100%", trace, "bytes") if trace.n_requests else None
    console = stdout()
    shown = label if label.startswith(WORKLOAD_PREFIX) else os.path.basename(label)
    for table in comparison_tables(results, shown, whole=whole):
        console.print(table)
