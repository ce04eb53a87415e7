"""A whole sweep: plan, resume, run on local workers or Dask, store, summarise.

:func:`run_sweep` is what ``pagesim sweep`` calls. Rows are written by this (the parent) process
as tasks finish, each task's rows in one transaction (:class:`pagesim.sweep.store.Store`); a
sweep interrupted at any point resumes, when run again, with the runs not yet stored.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from pagesim.sweep.grid import Grid
from pagesim.sweep.plan import Plan, describe_plan, make_plan, planned_policies, trace_label
from pagesim.sweep.store import Store
from pagesim.sweep.worker import Task

__all__ = ["Summary", "run_sweep"]

#: Failures listed one by one in the summary; the rest are counted.
SHOWN_FAILURES = 20


@dataclass
class Summary:
    """How a sweep went.

    Attributes
    ----------
    total : int
        Runs in the grid.
    already_done : int
        Runs found done in the database at the start.
    ok, failed : int
        Runs this sweep stored as done and as failed (unreadable traces count one each).
    failures : list of str
        ``what: error`` lines of the failed runs.
    interrupted : bool
        Stopped by Ctrl-C before the end.
    plan_lines : list of str
        ``--plan``'s lines (empty otherwise).
    """

    total: int = 0
    already_done: int = 0
    ok: int = 0
    failed: int = 0
    failures: list[str] = field(default_factory=list)
    interrupted: bool = False
    plan_lines: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The closing summary."""
        done = self.already_done + self.ok
        head = f"{done} of {self.total} runs done"
        if self.failed:
            head += f", {self.failed} failed"
        if self.interrupted:
            head += f"; interrupted: run the same command again to resume ({self.total - done} left)"
        out = [head]
        out += [f"  failed: {line}" for line in self.failures[:SHOWN_FAILURES]]
        if len(self.failures) > SHOWN_FAILURES:
            out.append(
                f"  … and {len(self.failures) - SHOWN_FAILURES} more "
                "(pagesim results DB --where \"status='failed'\")"
            )
        return out


def _what(row: dict[str, Any]) -> str:
    if not row.get("policy"):
        return trace_label(str(row.get("trace", "")))
    where = f"{trace_label(str(row['trace']))} at {row.get('size')} ({row.get('size_pages')} pages)"
    return f"{row.get('label') or row.get('policy')} on {where}, {row.get('mode')} mode"


def _lost_rows(task: Task, exc: BaseException) -> list[dict[str, Any]]:
    """Failed rows for a task whose worker was lost or whose result never came."""
    error = " ".join(str(exc).split()) or type(exc).__name__
    return [{**spec.row(), "status": "failed", "error": error} for spec in task.runs]


def _executor(workers: int | None, cluster: str | None) -> Any:
    if cluster:
        from pagesim.sweep.cluster import DaskExecutor

        return DaskExecutor(cluster)
    from pagesim.sweep.local import LocalExecutor

    return LocalExecutor(workers)


def _progress(console: Console, total: int) -> Progress:
    return Progress(
        TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("failed {task.fields[failed]}"),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        console=console, transient=False, disable=not console.is_terminal,
    )  # fmt: skip


def run_sweep(
    grid: Grid,
    database: str,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    plan_only: bool = False,
    say: Callable[[str], None] = print,
    console: Console | None = None,
) -> Summary:
    """Run every run of ``grid`` not yet in ``database``.

    Parameters
    ----------
    grid : Grid
    database : str
        The SQLite results file (created if absent).
    workers : int, optional
        Local worker processes (default: one per core); ignored with ``cluster``.
    cluster : str, optional
        ``local:N``, a Dask scheduler address or scheduler file (:mod:`pagesim.sweep.cluster`).
    plan_only : bool
        Read the traces, make the plan (:func:`pagesim.sweep.plan.describe_plan`) and stop,
        leaving ``database`` as it is (not created if absent; the plan works on a copy).
    say : callable
        Where status lines go.
    console : rich Console, optional
        For the progress bar (default: stderr).

    Returns
    -------
    Summary
        ``interrupted`` is set when Ctrl-C stopped it (the rows written stay).

    Raises
    ------
    ValueError, UnknownPolicyError
        For a grid that names unknown policies or bad sizes / warm-ups.
    ClusterUnavailable
        For ``cluster`` without dask installed.
    """
    console = console or Console(stderr=True)
    if plan_only:
        with tempfile.TemporaryDirectory(prefix="pagesim-plan-") as scratch:
            with Store.scratch_copy(database, scratch) as store:
                plan = make_plan(grid, store)
                summary = _summary(plan)
                summary.plan_lines = describe_plan(plan, store, workers or _guess_workers(cluster))
        return summary
    with Store(database) as store:
        plan = make_plan(grid, store)
        summary = _summary(plan)
        if plan.done:
            say(f"resumed: {plan.done} of {summary.total} already done")
        if plan.failed_traces or plan.failed_runs:
            for row in plan.failed_traces + plan.failed_runs:
                store.put([row])
                summary.failed += 1
                summary.failures.append(f"{_what(row)}: {row['error']}")
        if plan.tasks:
            _execute(plan, store, summary, workers, cluster, say, console)
    return summary


def _summary(plan: Plan) -> Summary:
    return Summary(total=plan.total + len(plan.failed_traces) + len(plan.failed_runs), already_done=plan.done)


def _guess_workers(cluster: str | None) -> int:
    if cluster and cluster.startswith("local:") and cluster[6:].isdigit():
        return int(cluster[6:])
    from pagesim.sweep.local import default_workers

    return default_workers()


def _execute(
    plan: Plan,
    store: Store,
    summary: Summary,
    workers: int | None,
    cluster: str | None,
    say: Callable[[str], None],
    console: Console,
) -> None:
    executor = _executor(workers, cluster)
    try:
        say(f"running {plan.pending} run(s) on {executor.description}")
        executor.prepare(planned_policies(plan))
        with _progress(console, plan.pending) as bar:
            job = bar.add_task("sweep", total=plan.pending, failed=0)
            for task, result in executor.run(plan.tasks):
                rows = _lost_rows(task, result) if isinstance(result, BaseException) else result
                store.put(rows)
                for row in rows:
                    if row["status"] == "ok":
                        summary.ok += 1
                    else:
                        summary.failed += 1
                        summary.failures.append(f"{_what(row)}: {row['error']}")
                bar.update(job, advance=len(rows), failed=summary.failed)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        executor.close()
