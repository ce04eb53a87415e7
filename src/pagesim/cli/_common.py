"""What every command shares: error reporting, trace loading, progress, printing comparisons.

Errors a user can cause (bad trace lines, unknown policies, bad sizes, missing files, a policy
file that does not import) are printed as one line on stderr and exit with status 2; a policy
that raises while running exits with status 1 after printing its own traceback and the results
that finished. Set ``PAGESIM_DEBUG=1`` to get Python's traceback instead.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

import pagesim
from pagesim.analysis.compare import (
    compare,
    resolve_policies,
    resolve_size,
    resolve_warmup,
    split_policy_names,
)
from pagesim.cli._params import configure_policies, parse_sets
from pagesim.cli._traces import missing_trace_message
from pagesim.engine import PolicyCompileWarning, PolicyError, Result
from pagesim.policies.base import Policy
from pagesim.policies.registry import UnknownPolicyError, policy_class
from pagesim.report.compare import comparison_record, comparison_tables
from pagesim.trace import FORMATS, Trace, read_trace
from pagesim.trace.stream import TraceStream, open_stream, should_stream
from pagesim.workloads import WORKLOADS, from_spec
from pagesim.workloads.kernel import KERNEL_WORKLOADS

#: Exit status for input the user can fix (usage, files, traces, names, sizes).
EXIT_BAD_INPUT = 2
#: Exit status when a policy fails while running.
EXIT_POLICY_FAILED = 1

#: Runs shorter than this show no progress bar (seconds).
PROGRESS_DELAY = 2.0

#: A policy whose start-up (compile or load, then ``init``) lasts longer than this gets a
#: "compiling" notice on stderr (seconds). Loading a cached runner takes milliseconds.
COMPILE_NOTICE_DELAY = 1.0

#: The formats ``--format`` accepts, for help texts.
FORMAT_NAMES = ", ".join(FORMATS)

WORKLOAD_PREFIX = "workload:"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def stdout() -> Console:
    """A console on the current stdout (looked up at call time, so test runners capture it)."""
    return Console(file=sys.stdout, soft_wrap=False, emoji=False)


def stderr_line(text: str) -> None:
    """Print one line on stderr, without rich's wrapping."""
    sys.stderr.write(text.rstrip("\n") + "\n")
    sys.stderr.flush()


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print ``pagesim: error: message`` on one line and return the Exit to raise."""
    stderr_line("pagesim: error: " + " ".join(str(message).splitlines()))
    return typer.Exit(code)


class PolicyLoadError(ValueError):
    """A user's policy file raised while it was imported (exit status 2, one line)."""


_PACKAGE_DIR = os.path.dirname(os.path.abspath(pagesim.__file__))


def _is_user_file(filename: str) -> bool:
    if not filename or filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    base = os.path.basename(path)
    if path.startswith(_PACKAGE_DIR + os.sep) or base.startswith("pagesim_runner_"):
        return False
    parts = path.split(os.sep)
    return not any(part in ("importlib", "numba", "site-packages") for part in parts)


def _shown_path(filename: str) -> str:
    rel = os.path.relpath(os.path.abspath(filename))
    return filename if rel.startswith("..") else rel


def user_location(exc: BaseException) -> str | None:
    """``file.py:LINE`` of the innermost frame of ``exc`` in a user's file, if there is one.

    For a SyntaxError, the place of the error; otherwise the innermost traceback frame outside
    pagesim, numba, the standard importer and the generated runners.
    """
    if isinstance(exc, SyntaxError) and exc.filename and _is_user_file(exc.filename):
        return f"{_shown_path(exc.filename)}:{exc.lineno}"
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if _is_user_file(frame.filename):
            return f"{_shown_path(frame.filename)}:{frame.lineno}"
    return None


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _policy_failure_line(exc: PolicyError) -> str:
    original = exc.original
    where = f"at access index {exc.access_index}" if exc.access_index >= 0 else "in init (access index -1)"
    hook = getattr(exc, "hook", "")
    in_hook = f" in its {hook!r} hook" if hook else ""
    text = f"policy {exc.policy!r} raised {type(original).__name__}: {original}{in_hook} {where}"
    location = user_location(original)
    if location is None:
        found = [m for m in _FRAME.finditer(exc.traceback_text or "") if _is_user_file(m.group(1))]
        if found:
            location = f"{_shown_path(found[-1].group(1))}:{found[-1].group(2)}"
    return f"{text}, in {location}" if location else text


@contextmanager
def handled_errors() -> Iterator[None]:
    """Turn the exceptions of bad input into one-line messages and exit statuses.

    Raises
    ------
    typer.Exit
        Status 2 for bad input (trace format, unknown policy or format, bad size, missing or
        unreadable file, a policy file that does not import), 1 for a policy that raised
        while running (after its traceback), 130 on Ctrl-C.
    """
    if os.environ.get("PAGESIM_DEBUG"):
        yield
        return
    try:
        yield
    except PolicyError as exc:
        if exc.traceback_text:
            sys.stderr.write(exc.traceback_text.rstrip("\n") + "\n")
        raise fail(_policy_failure_line(exc), EXIT_POLICY_FAILED) from None
    except KeyboardInterrupt:
        stderr_line("pagesim: interrupted")
        raise typer.Exit(130) from None
    except (ValueError, OSError) as exc:
        # TraceFormatError and UnknownPolicyError are ValueErrors; missing files OSErrors.
        raise fail(str(exc)) from None


def policy_load_error(name: str, exc: Exception) -> PolicyLoadError | None:
    """What a user's policy file raised on import, as a one-line PolicyLoadError naming its file
    and line; None for an exception that is not from a user's file (the registry's own)."""
    location = user_location(exc)
    if location is None and not isinstance(exc, (SyntaxError, ImportError)):
        return None
    detail = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    where = f" at {location}" if location else ""
    return PolicyLoadError(f"cannot load policy {name}: {type(exc).__name__}: {detail}{where}")


def _load_one(name: str) -> None:
    """Import a policy by name, turning what a user's file raises into a PolicyLoadError."""
    try:
        policy_class(name)
    except UnknownPolicyError:
        raise
    except Exception as exc:
        error = policy_load_error(name, exc)
        if error is None:
            raise  # the registry's own message (file not found, no such class)
        raise error from exc


def load_policies(
    names: Sequence[str] | None, sets: Sequence[str] | None = None
) -> list[type[Policy] | Policy]:
    """The policies of ``--policy`` (or the defaults), with the parameters of ``--set``.

    Raises
    ------
    UnknownPolicyError, FileNotFoundError, ValueError
        As :func:`pagesim.analysis.compare.resolve_policies`, and for a bad ``--set``.
    PolicyLoadError
        If a user's policy file raises on import (the message names its file and line).
    """
    wanted = split_policy_names(names)
    for name in wanted or ():
        _load_one(name)
    return configure_policies(resolve_policies(wanted), parse_sets(sets))


READER_HELP = (
    "A reader option, KEY=VALUE, repeatable: for csv id_col, size_col, time_col, op_col "
    "(1-based index or header name), delimiter, has_header, id_type (int|str), op_map "
    "(name:op pairs, del:free,put:write); for lis block_bytes, max_run, max_accesses. "
    "An option the format does not take is refused with the ones it takes."
)


def reader_options(items: Sequence[str] | None) -> dict[str, Any]:
    """``["id_col=2", "has_header=false"]`` -> ``{"id_col": 2, "has_header": False}``.

    Values read as int, bool (true/false) or text. Raises ValueError on an item without ``=``.
    """
    out: dict[str, Any] = {}
    for item in items or ():
        key, eq, value = str(item).partition("=")
        if not eq or not key.strip():
            raise ValueError(f"cannot read --reader {item!r}: use KEY=VALUE (id_col=2)")
        text = value.strip()
        if text.lower() in ("true", "false"):
            out[key.strip()] = text.lower() == "true"
        elif re.fullmatch(r"-?[0-9]+", text):
            out[key.strip()] = int(text)
        else:
            out[key.strip()] = value
    return out


def is_kernel_only_workload(name: str) -> bool:
    """True if ``name`` is a kernel-mode workload (``pagesim run``'s) that cache mode cannot generate."""
    return name in KERNEL_WORKLOADS and name not in WORKLOADS


def refuse_kernel_only_workload(name: str, remedy: str) -> None:
    """Say that workload ``name`` exists in kernel mode only, and ``remedy``, if it does.

    Raises
    ------
    ValueError
        If :func:`is_kernel_only_workload`.
    """
    if is_kernel_only_workload(name):
        raise ValueError(
            f"workload {name!r} runs in kernel mode only ({remedy}); "
            f"cache-mode workloads: {', '.join(WORKLOADS)}"
        )


def load_trace(
    spec: str, fmt: str | None = None, options: dict[str, Any] | None = None, *, stream: bool = False
) -> Trace | TraceStream:
    """Read a trace file (with reader ``options``), or generate ``workload:NAME[?key=value&...]``.

    With `stream` (cache mode), a ``.pgt`` or oracleGeneral file that
    :func:`pagesim.trace.stream.should_stream` picks (a large one) is opened as a
    :class:`~pagesim.trace.stream.TraceStream` instead, read chunk by chunk by each run.

    Raises
    ------
    FileNotFoundError, ValueError, TraceFormatError
        As :func:`pagesim.trace.read_trace` and :func:`pagesim.workloads.from_spec`; a
        ValueError also for one of ``pagesim run``'s kernel-mode workloads. A file that does not
        exist says where traces come from (:func:`pagesim.cli._traces.missing_trace_message`).
    """
    if spec.startswith(WORKLOAD_PREFIX):
        if fmt is not None:
            raise ValueError("--format applies to trace files, not to workload: traces")
        name = spec[len(WORKLOAD_PREFIX) :].partition("?")[0]
        if is_kernel_only_workload(name):
            raise ValueError(
                f"workload {name!r} is one of pagesim run's kernel-mode workloads (its own threads "
                f"and memory size), which compare cannot take in either mode; use: pagesim run {name}"
                f" (compare takes trace files and the workloads {', '.join(WORKLOADS)})"
            )
        return from_spec(spec[len(WORKLOAD_PREFIX) :])
    if os.path.isdir(spec):
        raise ValueError(f"{spec} is a directory, not a trace file")
    if not os.path.exists(spec):
        raise FileNotFoundError(missing_trace_message(spec))
    try:
        if stream and set(options or {}) <= {"chunk_bytes"} and should_stream(spec, fmt):
            return open_stream(spec, fmt, **(options or {}))
        return read_trace(spec, format=fmt, **(options or {}))
    except TypeError as exc:  # an option the reader does not take
        raise ValueError(f"--reader: {exc}") from None
    except ValueError as exc:
        # the library's wording ("pass format= one of [...]") in the command line's terms
        text = re.sub(
            r"pass format= one of \[([^\]]*)\]",
            lambda m: "use --format with one of: " + m.group(1).replace("'", ""),
            str(exc),
        )
        text = re.sub(r"pass (id_col|size_col|time_col|op_col)\b", r"use --reader \1=N", text)
        text = re.sub(r"pass id_type='str'", "use --reader id_type=str", text)
        if text == str(exc):
            raise
        raise ValueError(text) from None


class DelayedProgress:
    """Progress on stderr: a bar once a run has lasted a few seconds, and compile notices.

    The bar (a rich progress bar, transient) is shown only when stderr is a terminal. Call the
    instance as ``progress(done, total)``; pass :meth:`stage` as ``on_stage`` of
    :func:`pagesim.analysis.compare.compare`: while a policy starts up (numba compiles it on
    first use, 15–40 s) the bar says "compiling" instead of a percentage, and if the start-up
    lasts longer than ``notice_delay`` a one-line notice is printed on stderr (on any stderr).
    Use it as a context manager.
    """

    def __init__(
        self, description: str, delay: float = PROGRESS_DELAY, notice_delay: float | None = None
    ) -> None:
        self.description = description
        self.delay = delay
        self.notice_delay = COMPILE_NOTICE_DELAY if notice_delay is None else notice_delay
        self.console = Console(stderr=True)
        self.enabled = self.console.is_terminal
        self.start = time.perf_counter()
        self.bar: Progress | None = None
        self.task: Any = None
        self.compiling: str | None = None
        self.timer: threading.Timer | None = None
        self.noticed: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.start < self.delay or done >= total:
                return
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[status]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.description, total=total, status="")
        pct = f"{100.0 * done / total:>3.0f}%" if total else ""
        self.bar.update(self.task, completed=done, total=total, status=pct)

    def stage(self, stage: str, label: str) -> None:
        """``("compile", labels)`` before runners compile in parallel, ``("prepare", label)`` when a
        policy starts up, ``("simulate", label)`` when it runs."""
        self._cancel()
        if stage == "compile":
            self.noticed.update(label.split(", "))
            text = f"pagesim: notice: compiling {label} in parallel (first use; cached afterwards)…"
            if self.bar is not None:
                self.bar.console.print(text, markup=False, highlight=False)
            else:
                stderr_line(text)
        elif stage == "prepare":
            self.compiling = label
            if self.bar is not None:
                self.bar.update(self.task, description=f"compiling {label}", status="compiling")
            if label not in self.noticed:
                self.timer = threading.Timer(self.notice_delay, self._notice, args=(label,))
                self.timer.daemon = True
                self.timer.start()
        else:
            self.compiling = None
            if self.bar is not None:
                self.bar.update(self.task, description=self.description)

    def _notice(self, label: str) -> None:
        with self.lock:
            if self.compiling != label or label in self.noticed:
                return
            self.noticed.add(label)
            text = f"pagesim: notice: compiling {label} (first use; cached afterwards)…"
            if self.bar is not None:
                self.bar.console.print(text, markup=False, highlight=False)
            else:
                stderr_line(text)

    def _cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def __enter__(self) -> DelayedProgress:
        return self

    def close(self) -> None:
        """Stop the bar and any pending notice (idempotent)."""
        self._cancel()
        self.compiling = None
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __exit__(self, *exc: object) -> None:
        self.close()


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


def _print_results(
    results: Sequence[Result],
    trace: Trace | TraceStream,
    label: str,
    sizes: Sequence[str],
    per_size: int,
    capacity_unit: str,
    as_json: bool,
) -> None:
    if as_json:
        for i, result in enumerate(results):
            record = comparison_record(result, label, str(sizes[i // per_size]))
            sys.stdout.write(json.dumps(record, allow_nan=False, default=str) + "\n")
        sys.stdout.flush()
        return
    whole: int | None = trace.n_pages
    if capacity_unit == "bytes":
        whole = resolve_size("100%", trace, "bytes") if trace.n_requests else None
    console = stdout()
    for table in comparison_tables(results, shown_label(label), whole=whole):
        console.print(table)


def shown_label(label: str) -> str:
    """A trace as titles show it: ``workload:...`` as given, a file by its base name."""
    return label if label.startswith(WORKLOAD_PREFIX) else os.path.basename(label)


def run_comparison(
    trace: Trace | TraceStream,
    label: str,
    *,
    sizes: Sequence[str],
    policies: Sequence[str] | None,
    warmup: str | None,
    capacity_unit: str,
    as_json: bool,
    opt: bool = True,
    interpreted: bool = False,
    sets: Sequence[str] | None = None,
    writes: str = "access",
    checked: bool = False,
    policy_timeout: float | None = None,
) -> None:
    """Resolve the options, run :func:`pagesim.analysis.compare.compare` and print the result.

    An empty trace prints a one-line notice instead of tables (JSON still gets its records).
    A policy that fails does not stop the others: every run that finished is printed (or
    emitted as JSON), then the failures are reported (:func:`report_failures`).

    Raises
    ------
    ValueError, UnknownPolicyError, PolicyError
        For bad sizes, warm-up, unit, ``--set`` or policy names, or a failing policy.
    """
    if capacity_unit not in ("pages", "bytes"):
        raise ValueError(f"--capacity-unit must be 'pages' or 'bytes', got {capacity_unit!r}")
    if not sizes:
        raise ValueError("give at least one --size (a count like 5000 or a percentage like 10%)")
    configured = load_policies(policies, sets)
    capacities = [resolve_size(text, trace, capacity_unit) for text in sizes]
    n_warmup = resolve_warmup(warmup, trace.n_requests)
    if trace.n_requests == 0 and not as_json:
        stderr_line(f"pagesim: notice: {shown_label(label)}: empty trace: 0 requests, nothing to compare")
        return
    failures: list[PolicyError] = []
    with compile_notices(), DelayedProgress("simulating") as progress:
        try:
            results = compare(
                trace,
                configured,
                capacities,
                warmup=n_warmup,
                capacity_unit=capacity_unit,
                baseline=opt,
                progress=progress,
                interpreted=interpreted,
                on_stage=None if interpreted else progress.stage,
                failures=failures,
                parallel_compile=True,
                writes=writes,
                checked=checked,
                policy_timeout=policy_timeout,
            )
        except PolicyError as err:
            finished: list[Result] = getattr(err, "results", [])
            if finished:
                progress.close()
                _print_results(finished, trace, label, sizes, len(configured), capacity_unit, as_json)
            raise
    _print_results(results, trace, label, sizes, len(configured), capacity_unit, as_json)
    report_failures(failures)


def report_failures(failures: Sequence[PolicyError]) -> None:
    """After the results of the others: each failed run on stderr, the last one raised.

    Every failure but the last is printed as :func:`handled_errors` prints one (the hook's
    traceback, then ``pagesim: error: policy 'x' raised ...``) with the capacity it ran at;
    the last is raised for :func:`handled_errors` to print and to exit with status 1.

    Raises
    ------
    PolicyError
        The last of `failures`, if any.
    """
    for err in failures[:-1]:
        if err.traceback_text:
            sys.stderr.write(err.traceback_text.rstrip("\n") + "\n")
        stderr_line(f"pagesim: error: {_policy_failure_line(err)}{_at_capacity(err)}")
    if failures:
        raise failures[-1]


def _at_capacity(err: PolicyError) -> str:
    capacity = getattr(err, "capacity", None)
    return f" (cache of {capacity:,})" if isinstance(capacity, int) else ""
