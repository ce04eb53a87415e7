"""Compiling policies' runners ahead of their runs, one process per core.

numba compiles each policy's runner on its first call (a few CPU seconds each; the engine's loop
is inlined into every runner, see :mod:`pagesim.engine.build`) and caches it on disk. A command
that runs several policies would compile them one after another; :func:`compile_ahead` instead
compiles the runners not yet cached in a pool of processes, each one policy at a time into the
shared on-disk cache, so the command itself then loads every runner in milliseconds.

A runner is compiled by a tiny run (400 accesses over 100 pages, one cgroup) with the argument
types of a real one; a runner whose compile fails in a worker (a policy numba cannot compile)
is left to the command, which then falls back as it always does (interpreted, with a notice).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

from pagesim.engine.build import _policy_class, _policy_source_file, is_compiled
from pagesim.policies.base import Policy

#: Environment variable: the number of compiling processes (default: one per core; 1: none).
JOBS_ENV = "PAGESIM_COMPILE_JOBS"

MODES = ("cache", "kernel")


def default_jobs() -> int:
    """``$PAGESIM_COMPILE_JOBS``, else the cores this process may use."""
    env = os.environ.get(JOBS_ENV, "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _spec(cls: type[Policy]) -> tuple[str, str, str]:
    return cls.__module__, cls.__qualname__, _policy_source_file(cls)


def compile_one(module: str, qualname: str, path: str, mode: str) -> str | None:
    """Compile one class's runner for ``mode`` by a tiny run; None on success, else the error.

    Runs in a worker process (or in this one); the compiled code lands in the on-disk cache.
    """
    from pagesim.engine.kernel import KernelRun
    from pagesim.engine.memory import KernelConfig
    from pagesim.engine.simulate import Run
    from pagesim.trace import Trace

    try:
        cls = _policy_class(module, qualname, path)
        trace = Trace.from_ids(np.arange(400, dtype=np.int64) % 100)
        if mode == "kernel":
            KernelRun(trace, cls(), KernelConfig(memory_pages=256))
        else:
            Run(trace, cls(), 64)
    except Exception as exc:  # reported, and left to the command's own start-up
        return f"{type(exc).__name__}: {exc}"
    return None


def pending(classes: Sequence[type[Policy]], mode: str = "cache") -> list[type[Policy]]:
    """The distinct classes among ``classes`` whose runner for ``mode`` is not compiled yet;
    ``auto`` stands for its default candidates (its own hooks never run)."""
    out: list[type[Policy]] = []
    for cls in dict.fromkeys(_expand_auto(classes, mode)):
        if not is_compiled((cls,), mode):
            out.append(cls)
    return out


def _expand_auto(classes: Sequence[type[Policy]], mode: str) -> list[type[Policy]]:
    """``classes`` with :class:`~pagesim.policies.auto.Auto` replaced by its default candidates."""
    from pagesim.policies.auto import Auto
    from pagesim.policies.registry import policy_class

    out: list[type[Policy]] = []
    for cls in classes:
        if issubclass(cls, Auto):
            out += [policy_class(n) for n in Auto().candidate_names(mode)]
        else:
            out.append(cls)
    return out


def compile_ahead(
    classes: Sequence[type[Policy]],
    mode: str = "cache",
    *,
    jobs: int | None = None,
    minimum: int = 2,
    on_done: Callable[[type[Policy], str | None], None] | None = None,
) -> dict[type[Policy], str | None]:
    """Compile the runners of ``classes`` (one cgroup each) that are not cached, in parallel.

    Parameters
    ----------
    classes : sequence of Policy subclasses
    mode : {"cache", "kernel"}
    jobs : int, optional
        Processes (default :func:`default_jobs`); 1 compiles here, one class after another.
    minimum : int
        Compile ahead only if at least this many runners are missing: a single one compiles as
        fast in the command itself, without a pool's start-up (about a second per process).
    on_done : callable ``(cls, error)``, optional
        Called as each runner is done; ``error`` is None on success.

    Returns
    -------
    dict
        Each class compiled -> None, or the error text of a failed compile.

    Raises
    ------
    ValueError
        For an unknown mode.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    todo = pending(classes, mode)
    if len(todo) < max(minimum, 1):
        return {}
    workers = min(jobs or default_jobs(), len(todo))
    results: dict[type[Policy], str | None] = {}
    if workers <= 1:
        for cls in todo:
            results[cls] = compile_one(*_spec(cls), mode)
            if on_done is not None:
                on_done(cls, results[cls])
        return results
    context = multiprocessing.get_context("spawn")  # no fork of a process holding LLVM and threads
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(compile_one, *_spec(cls), mode): cls for cls in todo}
        for future in as_completed(futures):
            cls = futures[future]
            try:
                results[cls] = future.result()
            except Exception as exc:  # a worker died: the command compiles it itself
                results[cls] = f"{type(exc).__name__}: {exc}"
            if on_done is not None:
                on_done(cls, results[cls])
    return results


__all__ = ["JOBS_ENV", "compile_ahead", "compile_one", "default_jobs", "pending"]
