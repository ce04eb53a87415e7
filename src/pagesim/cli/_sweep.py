"""``pagesim sweep``, ``pagesim results`` and ``pagesim report``: grids of runs and their report."""

from __future__ import annotations

import os
import sys
from typing import Any

import typer

from pagesim.cli._common import (
    EXIT_POLICY_FAILED,
    handled_errors,
    policy_load_error,
    stderr_line,
    user_location,
)
from pagesim.sweep.cluster import ClusterUnavailable
from pagesim.sweep.driver import run_sweep
from pagesim.sweep.grid import Grid, expand_sizes, grid_from_options, grid_from_toml, parse_policies
from pagesim.sweep.results import export_results, load_results

SWEEP_SIZE_HELP = (
    "Sizes: pages (5000), a percentage of each trace's unique pages (10%), bytes (64MiB), or a "
    "range FIRST:LAST:COUNT (1%:50%:12); comma-separated or repeated."
)
SWEEP_POLICY_HELP = (
    "Policies, comma-separated or repeated, with parameter lists: s3fifo?small_ratio=0.05,0.1,0.2 "
    "runs three variants."
)


def _grid(*options: Any) -> Grid:
    """The grid of a TOML file (options given override its keys) or of the options alone:
    :func:`_grid_of`'s arguments, with its errors.

    A policy file that does not import is refused in one line (PolicyLoadError): its parameters,
    and so its runs, cannot be listed.
    """
    try:
        return _grid_of(*options)
    except (ValueError, OSError):
        raise
    except Exception as exc:
        error = policy_load_error(_failing_file(exc), exc)
        if error is None:
            raise
        raise error from exc


def _failing_file(exc: BaseException) -> str:
    """The user file a policy import failed in, as the one-line error names the policy."""
    location = user_location(exc)
    return location.rpartition(":")[0] if location else "file"


def _grid_of(
    inputs: list[str],
    policy: list[str] | None,
    size: list[str] | None,
    mode: list[str] | None,
    warmup: list[str] | None,
    seed: list[int] | None,
    sets: list[str] | None,
    log: bool,
    timeout: float | None,
) -> Grid:
    if len(inputs) == 1 and inputs[0].lower().endswith(".toml"):
        grid = grid_from_toml(inputs[0])
        if policy:
            grid.policies = parse_policies(policy, sets)
        if size:
            grid.sizes = expand_sizes(size, log)
        grid.modes = list(mode) if mode else grid.modes
        grid.warmups = list(warmup) if warmup else grid.warmups
        grid.seeds = list(seed) if seed else grid.seeds
        grid.timeout = timeout if timeout is not None else grid.timeout
        return grid.validate()
    if not policy or not size:
        raise ValueError("give --policy and --size (or a GRID.toml)")
    return grid_from_options(
        inputs, policy, size, modes=mode or ["cache"], warmups=warmup or [None], seeds=seed or [None],
        sets=sets, log=log, timeout=timeout,
    )  # fmt: skip


def sweep_command(
    inputs: list[str] = typer.Argument(
        ...,
        metavar="GRID.toml | TRACES",
        help="A grid file, or trace files / globs / workload:NAME?... specs.",
    ),
    policy: list[str] | None = typer.Option(None, "--policy", "-p", metavar="POLICY", help=SWEEP_POLICY_HELP),
    size: list[str] | None = typer.Option(None, "--size", "-s", metavar="SIZE", help=SWEEP_SIZE_HELP),
    log: bool = typer.Option(False, "--log", help="Space range sizes geometrically."),
    mode: list[str] | None = typer.Option(
        None, "--mode", metavar="cache|kernel", help="Mode(s); default cache."
    ),
    warmup: list[str] | None = typer.Option(
        None, "--warmup", metavar="WARMUP", help="Warm-up(s): a count or a share (0.1, 10%)."
    ),
    seed: list[int] | None = typer.Option(
        None, "--seed", metavar="N", help="Seed(s) for workload generators and seeded policies; repeatable."
    ),
    sets: list[str] | None = typer.Option(
        None, "--set", metavar="NAME.PARAM=V[,V...]", help="Policy parameter value(s); repeatable."
    ),
    output: str = typer.Option(..., "--output", "-o", metavar="results.db", help="The SQLite results file."),
    plan: bool = typer.Option(
        False, "--plan", help="Print the runs, estimated time and memory; run nothing."
    ),
    cluster: str | None = typer.Option(
        None,
        "--cluster",
        metavar="ADDRESS|local:N",
        help="Run on Dask: a scheduler address or file, or local:N for a LocalCluster of N workers.",
    ),
    workers: int | None = typer.Option(
        None, "--workers", "-w", metavar="N", help="Local workers (default: all cores)."
    ),
    timeout: float | None = typer.Option(
        None, "--timeout", metavar="S", help="Seconds a run may take before it fails."
    ),
) -> None:
    """Run a grid of traces × policies × sizes into a resumable SQLite database."""
    with handled_errors():
        grid = _grid(inputs, policy, size, mode, warmup, seed, sets, log, timeout)
        try:
            summary = run_sweep(
                grid, output, workers=workers, cluster=cluster, plan_only=plan, say=stderr_line
            )
        except ClusterUnavailable as exc:
            stderr_line(f"pagesim: error: {exc}")
            raise typer.Exit(2) from None
        if plan:
            for line in summary.plan_lines:
                print(line)
            return
        for line in summary.lines():
            stderr_line(line)
        if summary.interrupted:
            raise typer.Exit(130)
        if summary.failed:
            raise typer.Exit(EXIT_POLICY_FAILED)


def results_command(
    database: str = typer.Argument(..., metavar="results.db", help="A sweep's results file."),
    where: str | None = typer.Option(
        None, "--where", metavar="SQL", help="A condition over the runs' columns: \"policy = 'lru'\"."
    ),
    to: str | None = typer.Option(None, "--to", metavar="FILE", help="Export to .parquet or .csv."),
    all_columns: bool = typer.Option(False, "--all", help="Print every column (counters too)."),
) -> None:
    """Query a sweep's results; print them or export them."""
    with handled_errors():
        frame = load_results(database, where)
        if to:
            export_results(frame, to)
            stderr_line(f"wrote {len(frame)} row(s) to {to}")
            return
        shown = frame if all_columns else frame[[c for c in _SHOWN if c in frame.columns]]
        shown = shown.assign(trace=[os.path.basename(str(t)) if not str(t).startswith("workload:") else t
                                    for t in shown.get("trace", [])])  # fmt: skip
        with _wide():
            sys.stdout.write(shown.to_string(index=False) + "\n")


_SHOWN = [
    "trace",
    "label",
    "size",
    "size_pages",
    "mode",
    "requests",
    "misses",
    "miss_ratio",
    "status",
    "error",
]


class _wide:
    def __enter__(self) -> None:
        import pandas as pd

        self.ctx = pd.option_context(
            "display.max_rows", None, "display.width", 250, "display.max_colwidth", 80
        )
        self.ctx.__enter__()

    def __exit__(self, *exc: object) -> None:
        self.ctx.__exit__(*exc)


def report_command(
    database: str = typer.Argument(..., metavar="results.db", help="A sweep's results file."),
    output: str = typer.Option(..., "--output", "-o", metavar="report.html", help="The HTML file to write."),
    baseline: str = typer.Option("fifo", "--baseline", metavar="POLICY", help="Reductions are against it."),
    figures: str | None = typer.Option(
        None, "--figures", metavar="DIR", help="Also write each figure as PNG and SVG (matplotlib) into DIR."
    ),
) -> None:
    """Write one self-contained HTML report of a sweep (curves, tables, best policies)."""
    from pagesim.report.html import write_report

    with handled_errors():
        frame = load_results(database)
        notes = write_report(frame, output, baseline=baseline, title=os.path.basename(database))
        for note in notes:
            stderr_line(f"pagesim: notice: {note}")
        stderr_line(f"wrote {output}")
        if figures:
            from pagesim.report.figures import write_figures

            written = write_figures(frame, figures, baseline=baseline)
            stderr_line(f"wrote {len(written)} figure file(s) to {figures}")
