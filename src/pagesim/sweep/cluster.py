"""Execution on Dask distributed: a scheduler's address, a scheduler file, or a LocalCluster.

``--cluster tcp://host:8786`` (or ``host:8786``) connects to a running scheduler,
``--cluster path/scheduler.json`` reads a scheduler file (``dask scheduler --scheduler-file``,
dask-jobqueue on Slurm or PBS), and ``--cluster local:N`` starts a ``LocalCluster`` of N worker
processes with one thread each. Dask is optional: ``pip install 'pagesim[cluster]'``.

Workers map the sweep's ``.pgt`` copies when they can reach the database's folder (a shared file
system), and otherwise read each trace from its spec once per worker process. The time limit is
checked by each run between chunks of accesses; a task stuck inside compiled code cannot be
stopped on a cluster.

Ctrl-C stops a sweep on a ``local:N`` cluster quietly: its worker processes ignore SIGINT (the
sweep keeps the rows written, closes the cluster and says how to resume).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from pagesim.sweep.worker import Task, execute, prepare

__all__ = ["INSTALL_HINT", "ClusterUnavailable", "DaskExecutor"]

INSTALL_HINT = "dask is not installed: pip install 'pagesim[cluster]' (or pip install 'dask[distributed]')"


def _not_an_interrupted_wait(record: logging.LogRecord) -> bool:
    """False for the error distributed's ``sync`` logs through tornado when Ctrl-C interrupts a
    wait before its future exists (``NameError`` in ``sync.<locals>.cancel``): the interrupt
    itself is handled by the sweep, and the traceback would only alarm."""
    exc = record.exc_info[1] if record.exc_info else None
    return not (isinstance(exc, NameError) and "'future'" in str(exc))


class ClusterUnavailable(ImportError):
    """Dask distributed is not installed."""


def _distributed() -> Any:
    try:
        import dask.distributed as distributed
    except ImportError:
        raise ClusterUnavailable(INSTALL_HINT) from None
    return distributed


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while the block runs (in the main thread; elsewhere a no-op).

    Ctrl-C sends SIGINT to every process of the terminal's group; a ``LocalCluster``'s worker
    processes, started inside this block, inherit the ignored signal (across ``exec`` too, and
    Python and asyncio leave an ignored SIGINT ignored), so they do not each print a
    ``KeyboardInterrupt`` traceback: the sweep catches the interrupt and closes the cluster.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _prepare_pair(pair: tuple[str, str]) -> str:
    return prepare(*pair)


class DaskExecutor:
    """Run tasks on a Dask cluster (see the module docstring).

    Parameters
    ----------
    address : str
        ``local:N``, a scheduler address, or a scheduler file.

    Raises
    ------
    ClusterUnavailable
        If dask.distributed is not installed.
    ValueError
        For ``local:`` without a positive count.
    OSError
        If the scheduler cannot be reached.
    """

    def __init__(self, address: str) -> None:
        distributed = _distributed()
        self.cluster = None
        if address.startswith("local:"):
            text = address.removeprefix("local:")
            if not text.isdigit() or int(text) < 1:
                raise ValueError(f"--cluster local:N needs a worker count N >= 1, got {address!r}")
            with _sigint_ignored():  # the workers inherit it: Ctrl-C reaches the sweep only
                self.cluster = distributed.LocalCluster(
                    n_workers=int(text), threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.ERROR,
                )  # fmt: skip
            self.client = distributed.Client(self.cluster)
        elif os.path.isfile(address):
            self.client = distributed.Client(scheduler_file=address, timeout="30s")
        else:
            self.client = distributed.Client(address, timeout="30s")
        self.address = address
        self._distributed = distributed
        tornado_log = logging.getLogger("tornado.application")
        if _not_an_interrupted_wait not in tornado_log.filters:
            tornado_log.addFilter(_not_an_interrupted_wait)

    @property
    def description(self) -> str:
        """For the status line."""
        try:
            info = self.client.scheduler_info(n_workers=-1)  # every worker (newer distributed)
        except TypeError:
            info = self.client.scheduler_info()
        n = len(info.get("workers", {}))
        return f"Dask cluster {self.address} ({n} worker(s))"

    def prepare(self, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """Compile each (policy, mode) once on the workers; the errors met."""
        futures = self.client.map(_prepare_pair, list(pairs), pure=False)
        return [str(r) for r in self.client.gather(futures)]

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, list[dict[str, Any]] | BaseException]]:
        """``(task, rows)`` as tasks finish (rows, or the exception that lost the task)."""
        futures = {self.client.submit(execute, task, pure=False): task for task in tasks}
        for future in self._distributed.as_completed(futures):
            try:
                yield futures[future], future.result()
            except Exception as exc:  # noqa: BLE001 - a lost task becomes failed rows
                yield futures[future], exc

    def close(self) -> None:
        """Cancel what is left and disconnect (and stop a LocalCluster)."""
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()
