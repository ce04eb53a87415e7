"""What a worker does: run one task (one run, or one pass over several sizes) into rows.

A task never raises: a policy that raises, a trace that cannot be mapped or a run that passes
its time limit each become rows with ``status = "failed"`` and the error, so that one failure
costs one row and the rest of the sweep goes on.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import sys
import time
from dataclasses import dataclass
from typing import Any

from pagesim.engine import PolicyError
from pagesim.engine.kernel import KernelRun
from pagesim.engine.memory import KernelConfig
from pagesim.engine.simulate import Run
from pagesim.policies.registry import policy_class
from pagesim.sweep.onepass import one_pass_misses
from pagesim.sweep.traces import TraceRef, forget_traces, open_mapped
from pagesim.trace import Trace

__all__ = ["RunSpec", "RunTimeout", "Task", "execute", "prepare"]

#: Accesses between two checks of the time limit.
CHECK_EVERY = 1 << 16

#: Smallest node kernel mode accepts (pages): the watermarks need room.
KERNEL_MIN_PAGES = 64


class RunTimeout(RuntimeError):
    """A run lasted longer than the sweep's ``--timeout``."""


@dataclass(frozen=True)
class RunSpec:
    """One run of the grid, fully resolved (what its row records besides the results).

    Attributes
    ----------
    key : str
        :func:`pagesim.sweep.keys.run_key`.
    trace : str
        The trace's spec (path or ``workload:`` spec).
    digest : str
    policy : str
        Policy name as given.
    params : str
        JSON of the parameters set explicitly (``{}`` for the defaults).
    label : str
        The policy's label (``s3fifo-small_ratio=0.05``).
    size : str
        The size as the grid gives it (``10%``, ``5000``).
    size_pages : int
    mode : str
    warmup : int
    seed : int or None
    """

    key: str
    trace: str
    digest: str
    policy: str
    params: str
    label: str
    size: str
    size_pages: int
    mode: str
    warmup: int
    seed: int | None

    def row(self) -> dict[str, Any]:
        """The identity columns of this run's row."""
        return {
            "key": self.key, "trace": self.trace, "trace_digest": self.digest, "policy": self.policy,
            "params": self.params, "label": self.label, "size": self.size, "size_pages": self.size_pages,
            "mode": self.mode, "warmup": self.warmup, "seed": self.seed,
        }  # fmt: skip


@dataclass(frozen=True)
class Task:
    """Runs a worker does together: one run, or one pass of a stack policy over many sizes.

    Attributes
    ----------
    ref : TraceRef
    runs : tuple of RunSpec
        One, or (``one_pass``) the sizes of one (policy, warm-up) in increasing order.
    one_pass : bool
    timeout : float or None
        Seconds the task may take (each run, or the pass).
    """

    ref: TraceRef
    runs: tuple[RunSpec, ...]
    one_pass: bool = False
    timeout: float | None = None


def _peak_rss() -> int:
    """Peak resident set of this process, bytes.

    Linux: ``VmHWM`` of ``/proc/self/status`` (this process's own address space; ``ru_maxrss``
    would carry the parent's peak over fork and exec). Elsewhere ``ru_maxrss``.
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) * (1 if sys.platform == "darwin" else 1024)


def _instance(spec: RunSpec) -> Any:
    cls = policy_class(spec.policy)
    values = json.loads(spec.params)
    if spec.seed is not None and "seed" in cls.params:
        values.setdefault("seed", spec.seed)
    return cls(**values)


def _drive(run: Any, deadline: float | None, timeout: float | None) -> None:
    """Advance ``run`` to its end, in steps when there is a deadline."""
    if deadline is None:
        run.advance()
        return
    while run.done < run.n:
        run.advance(CHECK_EVERY)
        if time.perf_counter() > deadline and run.done < run.n:
            raise RunTimeout(f"timeout: over {timeout:g} s (stopped at access {run.done:,} of {run.n:,})")


def _simulate(trace: Trace, spec: RunSpec, deadline: float | None, timeout: float | None) -> dict[str, Any]:
    policy = _instance(spec)
    if spec.mode == "kernel":
        if spec.size_pages < KERNEL_MIN_PAGES:
            raise ValueError(
                f"kernel mode needs a node of at least {KERNEL_MIN_PAGES} pages, got {spec.size_pages}"
            )
        run: Any = KernelRun(trace, policy, KernelConfig(memory_pages=spec.size_pages), warmup=spec.warmup)
    else:
        run = Run(trace, policy, spec.size_pages, warmup=spec.warmup)
    _drive(run, deadline, timeout)
    result = run.result()
    counters = {k: int(v) for k, v in result.counters.items()}
    return {
        "method": "simulate",
        "counters": counters,
        "seconds": float(result.seconds),
        "prepare_seconds": float(result.prepare_seconds),
        "cpu_seconds": float(getattr(result, "cpu_seconds", 0.0)),
    }


def _failure(exc: BaseException) -> str:
    if isinstance(exc, PolicyError):
        return " ".join(str(exc).split())
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _finish(spec: RunSpec, outcome: dict[str, Any] | None, error: str | None, wall: float) -> dict[str, Any]:
    row = spec.row()
    row.update(status="failed" if error else "ok", error=error, wall_seconds=wall,
               peak_rss_bytes=_peak_rss(), worker=f"{socket.gethostname()}:{os.getpid()}")  # fmt: skip
    if outcome:
        counters = outcome["counters"]
        requests, misses = counters.get("requests", 0), counters.get("misses", 0)
        row.update(outcome, requests=requests, hits=counters.get("hits", requests - misses), misses=misses,
                   miss_ratio=misses / requests if requests else 0.0)  # fmt: skip
    return row


def _one_pass(trace: Trace, task: Task) -> list[dict[str, Any]]:
    first = task.runs[0]
    t0 = time.perf_counter()
    c0 = time.thread_time()
    misses = one_pass_misses(trace, first.policy, [r.size_pages for r in task.runs], first.warmup)
    seconds, cpu = time.perf_counter() - t0, time.thread_time() - c0
    if task.timeout is not None and seconds > task.timeout:
        raise RunTimeout(f"timeout: the one pass took {seconds:.3g} s, over {task.timeout:g} s")
    requests = trace.n_requests - first.warmup
    share = 1.0 / len(task.runs)
    rows = []
    for spec, miss in zip(task.runs, misses):
        counters = {"requests": requests, "hits": requests - int(miss), "misses": int(miss)}
        outcome = {"method": "one-pass", "counters": counters, "seconds": seconds * share,
                   "prepare_seconds": 0.0, "cpu_seconds": cpu * share}  # fmt: skip
        rows.append(_finish(spec, outcome, None, seconds * share))
    return rows


def execute(task: Task) -> list[dict[str, Any]]:
    """Run ``task``; one row per run (status ``ok`` or ``failed`` with ``error``). Never raises."""
    start = time.perf_counter()
    forget_traces(keep={task.ref.digest})  # one trace mapped at a time: tasks come trace by trace
    try:
        trace = open_mapped(task.ref)
    except Exception as exc:  # noqa: BLE001 - a failure is a row
        return [_finish(spec, None, f"cannot open trace: {_failure(exc)}", 0.0) for spec in task.runs]
    if task.one_pass:
        try:
            return _one_pass(trace, task)
        except Exception as exc:  # noqa: BLE001
            wall = time.perf_counter() - start
            return [_finish(spec, None, _failure(exc), wall) for spec in task.runs]
    rows = []
    for spec in task.runs:
        t0 = time.perf_counter()
        deadline = None if task.timeout is None else t0 + task.timeout
        try:
            outcome, error = _simulate(trace, spec, deadline, task.timeout), None
        except Exception as exc:  # noqa: BLE001
            outcome, error = None, _failure(exc)
        rows.append(_finish(spec, outcome, error, time.perf_counter() - t0))
    return rows


def prepare(policy: str, mode: str) -> str:
    """Compile (or load) ``policy``'s runner for ``mode`` on a tiny trace; "" or the error.

    Run once per policy before the grid, so that workers do not compile the same policy at the
    same time and no compile counts against a run's time limit.
    """
    try:
        trace = Trace.from_ids(list(range(80)) * 2)
        policy_obj = policy_class(policy)()
        if mode == "kernel":
            KernelRun(trace, policy_obj, KernelConfig(memory_pages=KERNEL_MIN_PAGES)).advance()
        else:
            Run(trace, policy_obj, 4).advance()
    except Exception as exc:  # noqa: BLE001 - the grid's runs will record it
        return _failure(exc)
    return ""
