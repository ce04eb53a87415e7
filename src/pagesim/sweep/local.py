"""Local execution: a pool of worker processes, one per core by default.

Each worker is a spawned process that imports pagesim once, ignores SIGINT (the parent handles
Ctrl-C and stops them) and dies with its parent (Linux ``PR_SET_PDEATHSIG``), so a sweep killed
with SIGKILL leaves no worker behind. The parent hands one task at a time to each idle worker
and writes the rows it gets back. A task that outlives its time limit (the worker's own check
between chunks of accesses failed to stop it, e.g. a hook stuck in a loop) has its worker
killed and replaced; its runs become failed rows. A worker that dies (a crash in compiled code)
costs the rows of its task only.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from pagesim.sweep.worker import Task, execute, prepare

__all__ = ["LocalExecutor", "default_workers"]

#: Extra seconds past a task's time limit before its worker is killed.
KILL_GRACE = 5.0


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _serve(conn: Connection) -> None:
    """A worker's loop: receive ``(job, function, argument)``, send back ``(job, result)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        job, function, argument = message
        try:
            result: Any = function(argument)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent as the result
            result = exc
        try:
            conn.send((job, result))
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, ctx: Any) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), daemon=True)
        # Ctrl-C reaches the whole process group: a worker ignores it from its first instruction
        # (a spawned Python keeps an inherited SIG_IGN), and the parent stops the workers itself.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self.proc.start()
        finally:
            signal.signal(signal.SIGINT, previous)
        child.close()
        self.job: int | None = None
        self.started = 0.0
        self.limit: float | None = None

    def give(self, job: int, function: Callable[[Any], Any], argument: Any, limit: float | None) -> None:
        self.conn.send((job, function, argument))
        self.job, self.started, self.limit = job, time.perf_counter(), limit

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()


class WorkerLost(RuntimeError):
    """A worker was killed (time limit) or died while running a task."""


class LocalExecutor:
    """Run tasks on ``workers`` local processes.

    Parameters
    ----------
    workers : int, optional
        Processes (default: every core, :func:`default_workers`).
    """

    def __init__(self, workers: int | None = None) -> None:
        self.n = int(workers or default_workers())
        if self.n < 1:
            raise ValueError(f"--workers must be >= 1, got {workers}")
        self.ctx = multiprocessing.get_context("spawn")
        self.workers = [_Worker(self.ctx) for _ in range(self.n)]

    @property
    def description(self) -> str:
        """For the status line."""
        return f"{self.n} local worker(s)"

    def _map(
        self, function: Callable[[Any], Any], items: Sequence[Any], limit: Callable[[Any], float | None]
    ) -> Iterator[tuple[int, Any]]:
        """``(index, result)`` as they finish; a lost task's result is a :class:`WorkerLost`."""
        queue = list(range(len(items)))[::-1]
        busy: dict[int, _Worker] = {}
        while queue or busy:
            for w in self.workers:
                if w.job is None and queue:
                    i = queue.pop()
                    w.give(i, function, items[i], limit(items[i]))
                    busy[i] = w
            ready = wait(
                [w.conn for w in busy.values()] + [w.proc.sentinel for w in busy.values()], timeout=0.5
            )
            for w in list(busy.values()):
                job = w.job
                assert job is not None
                if w.conn in ready:
                    try:
                        _, result = w.conn.recv()
                    except (EOFError, OSError):
                        result = WorkerLost(f"worker {w.proc.pid} died (exit status {w.proc.exitcode})")
                        self._replace(w)
                    else:
                        w.job = None
                    busy.pop(job)
                    yield job, result
                elif w.proc.sentinel in ready or not w.proc.is_alive():
                    busy.pop(job)
                    self._replace(w)
                    yield job, WorkerLost(f"worker {w.proc.pid} died (exit status {w.proc.exitcode})")
                elif w.limit is not None and time.perf_counter() - w.started > w.limit + KILL_GRACE:
                    busy.pop(job)
                    self._replace(w)
                    yield job, WorkerLost(f"timeout: over {w.limit:g} s; the worker was killed")

    def imap(self, function: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """``(index, function(items[index]))`` as they finish, in any order; a task lost with its
        worker gives a :class:`WorkerLost` as its result. ``function`` must be importable by name
        (a module-level function)."""
        yield from self._map(function, items, lambda _: None)

    def _replace(self, worker: _Worker) -> None:
        worker.kill()
        self.workers[self.workers.index(worker)] = _Worker(self.ctx)

    def prepare(self, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """Compile each (policy, mode) once, spread over the workers; the errors met."""
        out = [""] * len(pairs)
        for i, result in self._map(_prepare_pair, list(pairs), lambda _: None):
            out[i] = result if isinstance(result, str) else str(result)
        return out

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, list[dict[str, Any]] | BaseException]]:
        """``(task, rows)`` as tasks finish (rows, or the exception that lost the task)."""
        for i, result in self._map(execute, tasks, lambda t: t.timeout):
            yield tasks[i], result

    def close(self) -> None:
        """Stop every worker (those busy are killed)."""
        for w in self.workers:
            if w.job is None and w.proc.is_alive():
                try:
                    w.conn.send(None)
                except (BrokenPipeError, OSError):
                    pass
        deadline = time.perf_counter() + 2.0
        for w in self.workers:
            if w.job is None:
                w.proc.join(timeout=max(0.0, deadline - time.perf_counter()))
            w.kill()


def _prepare_pair(pair: tuple[str, str]) -> str:
    return prepare(*pair)
