"""From a grid to the runs of a sweep: read the traces, resolve sizes, key and group the runs.

:func:`make_plan` reads each trace once (or reuses what an earlier sweep stored about an
unchanged file), resolves sizes and warm-ups against it, gives each run its key, drops duplicate
keys, groups the sizes of a stack policy into one pass when :func:`pagesim.sweep.onepass.one_pass`
can, and leaves out the runs already done. :func:`describe_plan` is what ``--plan`` prints: the
number of runs, the one-pass groups, and estimates of time and memory.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from pagesim.analysis.compare import resolve_size, resolve_warmup
from pagesim.policies.registry import instantiate, policy_class
from pagesim.sweep.grid import Grid, PolicyVariant
from pagesim.sweep.keys import run_key
from pagesim.sweep.onepass import one_pass
from pagesim.sweep.store import Store
from pagesim.sweep.traces import TraceRef, seeded_spec, store_trace, takes_seed
from pagesim.sweep.worker import RunSpec, Task

__all__ = ["Plan", "describe_plan", "make_plan"]

#: Assumed cost of simulating one access (ns) and of starting one run (s), for estimates;
#: replaced by the median of the runs already stored when there are some.
NS_PER_ACCESS = 60.0
SECONDS_PER_RUN = 0.02
#: Bytes per access of a trace's columns in memory (page 8, kind 1, op 1, cgroup 2, tag 4).
TRACE_BYTES_PER_ACCESS = 16
#: Bytes per access a run allocates besides the trace (size and cgroup as int64; next use for OPT).
RUN_BYTES_PER_ACCESS = 24
#: Bytes per page of a policy's state (lists, fields, residency), an upper estimate.
STATE_BYTES_PER_PAGE = 160


@dataclass
class Plan:
    """The runs of a sweep.

    Attributes
    ----------
    tasks : list of Task
        What remains to run, grouped by trace.
    total : int
        Runs in the grid (distinct keys), done ones included.
    done : int
        Runs of the grid already stored as done.
    failed_traces : list of dict
        Rows for traces that could not be read (one failed row each).
    failed_runs : list of dict
        Failed rows, one per run, of policies whose constructor raised (they cannot run).
    refs : list of TraceRef
    """

    tasks: list[Task] = field(default_factory=list)
    total: int = 0
    done: int = 0
    failed_traces: list[dict[str, Any]] = field(default_factory=list)
    failed_runs: list[dict[str, Any]] = field(default_factory=list)
    refs: list[TraceRef] = field(default_factory=list)
    one_pass_policies: set[str] = field(default_factory=set)

    @property
    def pending(self) -> int:
        """Runs left to do."""
        return sum(len(t.runs) for t in self.tasks)

    def policies(self) -> set[tuple[str, str]]:
        """(policy, mode) pairs the remaining simulated runs use."""
        return {(r.policy, r.mode) for t in self.tasks if not t.one_pass for r in t.runs}


def _trace_ref(spec: str, store: Store) -> TraceRef:
    facts = store.known_trace(spec)
    if facts is not None:
        return TraceRef(spec, facts["digest"], facts["pgt"], facts["n_requests"], facts["n_pages"])
    ref = store_trace(spec, store.trace_folder)
    store.remember_trace(spec, ref.digest, ref.n_requests, ref.n_pages, ref.pgt)
    return ref


def _unreadable_key(spec: str) -> str:
    return run_key("unreadable:" + spec, "", {}, 0, "", 0, None)


def _unreadable_row(spec: str, error: BaseException) -> dict[str, Any]:
    message = " ".join(str(error).split()) or type(error).__name__
    key = _unreadable_key(spec)
    return {"key": key, "status": "failed", "error": f"cannot read trace: {message}", "trace": spec,
            "policy": "", "params": "{}", "label": "", "method": "read"}  # fmt: skip


def _failed_row(run: RunSpec, error: str) -> dict[str, Any]:
    return {**run.row(), "status": "failed", "error": error, "method": "create"}


def _seeds_for(spec: str, variant: PolicyVariant, seeds: list[int | None]) -> list[int | None]:
    takes = takes_seed(spec) or "seed" in policy_class(variant.name).params
    wanted = [s for s in seeds if s is not None]
    return wanted if takes and wanted else [None]


def _created_label(cls: type[Any], values: dict[str, Any], variant: PolicyVariant) -> tuple[str, str]:
    """(the policy's label, "") or, if its constructor raises, (its name and parameters, the error)."""
    try:
        return instantiate(cls, **values).label(), ""
    except Exception as exc:  # noqa: BLE001 - a policy that cannot be created is failed rows
        label = PolicyVariant(cls.policy_name(), variant.params).label()
        return label, " ".join(str(exc).split()) or type(exc).__name__


def _runs(
    ref: TraceRef, grid: Grid, seed_spec: str, seed: int | None, errors: dict[str, str] | None = None
) -> list[RunSpec]:
    """Every run of the grid on one (trace, seed); ``errors`` gains key -> error of the runs whose
    policy raised when it was created."""
    stub = SimpleNamespace(n_pages=ref.n_pages, size=None)
    out = []
    for variant in grid.policies:
        if seed not in _seeds_for(seed_spec, variant, grid.seeds):
            continue
        cls = policy_class(variant.name)
        values = {**cls.params, **dict(variant.params)}
        if seed is not None and "seed" in cls.params:
            values["seed"] = seed
        label, error = _created_label(cls, values, variant)
        for mode in grid.modes:
            for warm_text in grid.warmups:
                warmup = resolve_warmup(warm_text, ref.n_requests) if ref.n_requests else 0
                for size in grid.sizes:
                    pages = resolve_size(size, stub)  # type: ignore[arg-type]
                    key = run_key(ref.digest, variant.name, values, pages, mode, warmup, seed)
                    if error and errors is not None:
                        errors[key] = error
                    params = json.dumps(dict(variant.params), sort_keys=True)
                    out.append(RunSpec(key, ref.spec, ref.digest, variant.name, params, label, size, pages,
                                       mode, warmup, seed))  # fmt: skip
    return out


def _group(runs: list[RunSpec], ref: TraceRef, timeout: float | None, stack: frozenset[str]) -> list[Task]:
    """One task per run, but one per (policy, mode, warm-up, seed) for the stack policies."""
    tasks: list[Task] = []
    groups: dict[tuple[Any, ...], list[RunSpec]] = {}
    for run in runs:
        if run.mode == "cache" and run.policy.lower() in stack and run.params == "{}":
            groups.setdefault((run.policy, run.warmup, run.seed), []).append(run)
        else:
            tasks.append(Task(ref, (run,), False, timeout))
    for group in groups.values():
        group.sort(key=lambda r: r.size_pages)
        tasks.append(Task(ref, tuple(group), True, timeout))
    return tasks


def make_plan(grid: Grid, store: Store, *, on_trace: Any = None) -> Plan:
    """Read the grid's traces and list the runs not yet done (see the module docstring).

    Parameters
    ----------
    grid : Grid
    store : Store
        Where done runs are looked up and trace facts kept.
    on_trace : callable ``(spec)``, optional
        Called before each trace is read (for a status line).

    Returns
    -------
    Plan
        A trace that cannot be read gives one failed row in ``failed_traces``, a policy whose
        constructor raises one failed row per run in ``failed_runs``; neither is an error.
    """
    _, stack = one_pass()
    done_keys = store.done_keys()
    plan = Plan()
    seen: set[str] = set()
    for spec in grid.traces:
        for seed in dict.fromkeys(grid.seeds if takes_seed(spec) else [None, *grid.seeds]):
            concrete = seeded_spec(spec, seed) if takes_seed(spec) else spec
            if on_trace is not None:
                on_trace(concrete)
            try:
                ref = _trace_ref(concrete, store)
            except Exception as exc:  # noqa: BLE001 - an unreadable trace is one failed row
                if concrete not in {r["trace"] for r in plan.failed_traces}:
                    plan.failed_traces.append(_unreadable_row(concrete, exc))
                continue
            if ref not in plan.refs:
                plan.refs.append(ref)
                store.forget(_unreadable_key(concrete))  # it reads now: drop an earlier failure
            errors: dict[str, str] = {}
            runs = [r for r in _runs(ref, grid, spec, seed, errors) if r.key not in seen]
            seen.update(r.key for r in runs)
            plan.failed_runs += [_failed_row(r, errors[r.key]) for r in runs if r.key in errors]
            runs = [r for r in runs if r.key not in errors]
            plan.total += len(runs)
            todo = [r for r in runs if r.key not in done_keys]
            plan.done += len(runs) - len(todo)
            plan.tasks.extend(_group(todo, ref, grid.timeout, stack))
    plan.one_pass_policies = {r.policy for t in plan.tasks if t.one_pass for r in t.runs}
    return plan


def _rates(store: Store) -> tuple[float, float]:
    """(ns per access, seconds per run) from the runs stored, or the defaults."""
    rows = store.conn.execute(
        "SELECT seconds, wall_seconds, requests + warmup FROM runs"
        " WHERE status = 'ok' AND method = 'simulate' AND requests > 0 ORDER BY rowid DESC LIMIT 500"
    ).fetchall()
    if len(rows) < 5:
        return NS_PER_ACCESS, SECONDS_PER_RUN
    per_access = sorted(1e9 * s / n for s, _, n in rows)
    overhead = sorted(max(w - s, 0.0) for s, w, _ in rows)
    return per_access[len(rows) // 2], overhead[len(rows) // 2]


def describe_plan(plan: Plan, store: Store, workers: int) -> list[str]:
    """Lines of ``--plan``: runs, one-pass groups, estimated time and memory per worker."""
    ns, per_run = _rates(store)
    by_digest = {r.digest: r for r in plan.refs}
    work = 0.0
    for task in plan.tasks:
        n = by_digest[task.ref.digest].n_requests
        work += (n * ns * 1e-9 + per_run) * (1 if task.one_pass else len(task.runs))
    memory = max(
        (r.n_requests * (TRACE_BYTES_PER_ACCESS + RUN_BYTES_PER_ACCESS) + r.n_pages * STATE_BYTES_PER_PAGE
         for r in plan.refs), default=0,
    )  # fmt: skip
    simulated = sum(len(t.runs) for t in plan.tasks if not t.one_pass)
    passes = [t for t in plan.tasks if t.one_pass]
    lines = [
        f"runs: {plan.total} in the grid, {plan.done} already done, {plan.pending} to run "
        f"({len(plan.refs)} trace(s); {len(plan.failed_traces)} unreadable)",
        *_creation_failures(plan),
        f"simulated one by one: {simulated}",
    ]
    _, stack = one_pass()
    if passes:
        names = ", ".join(sorted(plan.one_pass_policies))
        sizes = sum(len(t.runs) for t in passes)
        lines.append(f"one pass per trace (stack policies {names}): {len(passes)} pass(es) for {sizes} runs")
    else:
        lines.append(f"one pass: available for {', '.join(sorted(stack))}; none in this grid")
    lines.append(
        f"estimate: {work:.3g} s of work, about {work / max(workers, 1):.3g} s on {workers} worker(s) "
        f"({ns:.3g} ns per access, {per_run * 1e3:.3g} ms per run; a policy compiled for the first time "
        "adds 15-40 s)"
    )
    lines.append(
        f"memory: about {memory / 2**20:.3g} MiB per worker above its start "
        f"(largest trace mapped + one run's arrays and state)"
    )
    return lines


def _creation_failures(plan: Plan) -> list[str]:
    """One line per policy whose constructor raised: its runs fail without running."""
    by_label: dict[str, list[dict[str, Any]]] = {}
    for row in plan.failed_runs:
        by_label.setdefault(row["label"], []).append(row)
    return [
        f"cannot create {label} ({len(rows)} run(s) will be failed rows): {rows[0]['error']}"
        for label, rows in by_label.items()
    ]


def planned_policies(plan: Plan) -> list[tuple[str, str]]:
    """(policy, mode) pairs to compile before the grid, in a stable order."""
    return sorted(plan.policies())


def trace_label(spec: str) -> str:
    """A trace as tables show it: ``workload:`` specs whole, files by their base name."""
    return spec if spec.startswith("workload:") else os.path.basename(spec)
