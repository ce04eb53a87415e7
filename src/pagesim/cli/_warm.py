"""``pagesim warm``: compile policies' runners ahead, one process per core, into the cache."""

from __future__ import annotations

import time

import typer

from pagesim.analysis.compare import DEFAULT_POLICIES, resolve_policies
from pagesim.cli._common import handled_errors, stderr_line
from pagesim.cli._kernel import DEFAULT_KERNEL_POLICIES
from pagesim.engine.warm import JOBS_ENV, MODES, compile_ahead, default_jobs, pending
from pagesim.policies.base import Policy


def warm_command(
    policies: list[str] | None = typer.Argument(
        None,
        metavar="POLICY...",
        help=f"Policies (names, lists a,b, or path/to/file.py:Class). Default: the defaults of "
        f"cache mode ({', '.join(DEFAULT_POLICIES)}) and, with --mode kernel, of kernel mode "
        f"({', '.join(DEFAULT_KERNEL_POLICIES)}).",
    ),
    mode: str = typer.Option(
        "cache", "--mode", metavar="MODE", help=f"Which runners: {', '.join(MODES)} or both."
    ),
    jobs: int = typer.Option(
        0,
        "--jobs",
        "-j",
        metavar="N",
        help=f"Compiling processes (default: ${JOBS_ENV}, else one per core).",
    ),
) -> None:
    """Compile policies ahead (numba, a few seconds each on first use) so later runs start at once.

    Runners already in the cache (~/.cache/pagesim or $PAGESIM_CACHE_DIR) are skipped.
    """
    with handled_errors():
        modes = list(MODES) if mode == "both" else [mode]
        if any(m not in MODES for m in modes):
            raise ValueError(f"unknown mode {mode!r}; known modes: {', '.join(MODES)}, both")
        if jobs < 0:
            raise ValueError(f"--jobs must be a positive number of processes, got {jobs}")
        for m in modes:
            defaults = DEFAULT_KERNEL_POLICIES if m == "kernel" else DEFAULT_POLICIES
            classes = resolve_policies(policies or list(defaults))
            _warm(classes, m, jobs or default_jobs())


def _warm(classes: list[type[Policy]], mode: str, jobs: int) -> None:
    todo = pending(classes, mode)
    if not todo:
        stderr_line(f"pagesim: {mode} mode: every runner is compiled already")
        return
    workers = min(jobs, len(todo))
    stderr_line(f"pagesim: {mode} mode: compiling {len(todo)} runner(s) in {workers} process(es)…")
    start = time.perf_counter()

    def done(cls: type[Policy], error: str | None) -> None:
        took = time.perf_counter() - start
        status = "compiled" if error is None else f"not compiled ({error}; it will run as a run decides)"
        stderr_line(f"  {cls.policy_name()}: {status} ({took:.0f} s)")

    compile_ahead(todo, mode, jobs=jobs, minimum=1, on_done=done)
