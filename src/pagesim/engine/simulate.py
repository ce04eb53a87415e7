"""Run a policy over a trace in cache mode: the public entry point of the engine."""

from __future__ import annotations

import time
import traceback
import warnings
from typing import Any, Callable

import numpy as np
from numba.core.errors import NumbaError

from pagesim.core.state import ACC_LEN, NEVER, make_state
from pagesim.engine import counters as C
from pagesim.engine.build import interpreted_runner, runner_for
from pagesim.engine.loop import (
    CFG_BYTES,
    CFG_PREFETCH_PM,
    CFG_END,
    CFG_HAS_ADMIT,
    CFG_HAS_NEXT,
    CFG_INIT_RESULT,
    CFG_LEN,
    CFG_START,
    CFG_WARMUP,
    make_framework,
)
from pagesim.engine.result import Result, counters_from_array
from pagesim.policies.base import Policy

#: Accesses per call of the compiled loop; progress is reported between chunks.
CHUNK = 2_000_000


class PolicyError(RuntimeError):
    """A policy's hook raised; carries the access index and the hook's own traceback text."""

    def __init__(self, policy: str, access_index: int, original: BaseException, tb: str) -> None:
        super().__init__(
            f"policy {policy!r} raised {type(original).__name__}: {original} "
            f"at access index {access_index}"
        )
        self.policy = policy
        self.access_index = access_index
        self.original = original
        self.traceback_text = tb


class PolicyCompileWarning(UserWarning):
    """A policy could not be compiled and runs interpreted."""


def _columns(trace: Any, capacity_unit: str, needs_next: bool) -> tuple[np.ndarray, ...]:
    page = np.ascontiguousarray(trace.page, dtype=np.int64)
    n = page.shape[0]
    if capacity_unit == "bytes":
        if getattr(trace, "size", None) is None:
            raise ValueError("--capacity-unit bytes needs a trace with object sizes")
        size = np.ascontiguousarray(trace.size, dtype=np.int64)
    else:
        size = np.ones(n, dtype=np.int64)
    cg = getattr(trace, "cgroup", None)
    cgroup = np.zeros(n, dtype=np.int64) if cg is None else np.ascontiguousarray(cg, dtype=np.int64)
    nxt = np.ascontiguousarray(trace.next_access(), dtype=np.int64) if needs_next else np.zeros(0, np.int64)
    return page, size, nxt, cgroup


def simulate(
    trace: Any,
    policy: Policy,
    capacity: int,
    *,
    warmup: int = 0,
    capacity_unit: str = "pages",
    interpreted: bool = False,
    progress: Callable[[int, int], None] | None = None,
    chunk: int = CHUNK,
) -> Result:
    """Simulate ``policy`` over ``trace`` with a cache of ``capacity`` units.

    Parameters
    ----------
    trace : pagesim.trace.Trace
        Needs ``page`` (int64, shape (n,), dense ids), optionally ``size`` (int64 bytes),
        ``cgroup`` and ``next_access()``; ``n_pages``.
    policy : Policy
        A configured policy instance.
    capacity : int
        Cache capacity, in pages (``capacity_unit="pages"``) or bytes; must be > 0.
    warmup : int
        Accesses that fill the cache without being counted (``0 <= warmup``).
    capacity_unit : {"pages", "bytes"}
        With ``bytes`` every access weighs its object size and an object larger than the
        cache is never inserted.
    interpreted : bool
        Run the plain-Python code path (slow; for debugging and cross-checks).
    progress : callable ``(done, total)``, optional
        Called after each chunk of ``chunk`` accesses.

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        If ``capacity <= 0``, ``warmup < 0`` or the unit is unknown.
    PolicyError
        If a hook raises; the message names the access index.
    """
    if capacity <= 0:
        raise ValueError(f"capacity must be positive, got {capacity}")
    if warmup < 0:
        raise ValueError(f"warmup must be >= 0, got {warmup}")
    if capacity_unit not in ("pages", "bytes"):
        raise ValueError(f"capacity unit must be 'pages' or 'bytes', got {capacity_unit!r}")
    t0 = time.perf_counter()
    cls = type(policy)
    page, size, nxt, cgroup = _columns(trace, capacity_unit, cls.needs_next_access)
    n = page.shape[0]
    n_pages = int(trace.n_pages) if hasattr(trace, "n_pages") else (int(page.max()) + 1 if n else 0)
    n_cgroups = int(cgroup.max()) + 1 if n else 1
    s = make_state(n_pages, n_cgroups, **policy.state_shape())
    fw = make_framework(n_pages, np.full(n_cgroups, capacity, dtype=np.int64))
    policy.configure(s, capacity)
    cfg = np.zeros(CFG_LEN, dtype=np.int64)
    cfg[CFG_WARMUP] = warmup
    cfg[CFG_HAS_ADMIT] = 1 if cls.has_admit() else 0
    cfg[CFG_HAS_NEXT] = 1 if cls.needs_next_access else 0
    cfg[CFG_BYTES] = 1 if capacity_unit == "bytes" else 0
    cfg[CFG_PREFETCH_PM] = 1 if cls.int_fields else 0
    a = np.zeros(ACC_LEN, dtype=np.int64)
    r = np.zeros(ACC_LEN, dtype=np.int64)
    out = np.zeros(C.N_COUNTERS, dtype=np.int64)
    mode = "interpreted" if interpreted else "compiled"
    run = interpreted_runner(cls) if interpreted else runner_for(cls)
    # An empty first call compiles (or loads) the runner and runs ``init``, so that the loop
    # time below is simulation alone.
    cfg[CFG_START] = 0
    cfg[CFG_END] = 0
    try:
        run(page, size, nxt, cgroup, cfg, s, fw, a, r, out)
    except NumbaError as exc:
        if interpreted:
            raise
        warnings.warn(
            f"policy {policy.label()!r} could not be compiled by numba; running it "
            f"interpreted, slowly. numba said: {' '.join(str(exc).split())[:300]}",
            PolicyCompileWarning,
            stacklevel=2,
        )
        mode = "interpreted"
        run = interpreted_runner(cls)
        cfg[:] = 0
        cfg[CFG_WARMUP] = warmup
        cfg[CFG_HAS_ADMIT] = 1 if cls.has_admit() else 0
        cfg[CFG_HAS_NEXT] = 1 if cls.needs_next_access else 0
        cfg[CFG_BYTES] = 1 if capacity_unit == "bytes" else 0
        cfg[CFG_PREFETCH_PM] = 1 if cls.int_fields else 0
        _call(run, policy, a, page, size, nxt, cgroup, cfg, s, fw, r, out)
    except Exception as exc:
        raise PolicyError(policy.label(), -1, exc, traceback.format_exc()) from exc
    if cfg[CFG_INIT_RESULT] != 0:
        raise PolicyError(
            policy.label(),
            -1,
            RuntimeError(f"init returned {int(cfg[CFG_INIT_RESULT])} (non-zero aborts the attach)"),
            "",
        )
    prepare = time.perf_counter() - t0
    loop_seconds = 0.0
    start = 0
    while start < n:
        end = min(n, start + chunk)
        cfg[CFG_START] = start
        cfg[CFG_END] = end
        t1 = time.perf_counter()
        _call(run, policy, a, page, size, nxt, cgroup, cfg, s, fw, r, out)
        loop_seconds += time.perf_counter() - t1
        if progress is not None:
            progress(end, n)
        start = end
    counters = counters_from_array(out)
    return Result(
        policy=policy.label(),
        capacity=int(capacity),
        capacity_unit=capacity_unit,
        counters=counters,
        seconds=loop_seconds,
        prepare_seconds=prepare,
        mode=mode,
        params={"policy": repr(policy), "warmup": warmup, "source": getattr(trace, "source", {})},
    )


def _call(run, policy, a, page, size, nxt, cgroup, cfg, s, fw, r, out):  # type: ignore[no-untyped-def]
    try:
        run(page, size, nxt, cgroup, cfg, s, fw, a, r, out)
    except Exception as exc:  # a hook raised: say where
        raise PolicyError(policy.label(), int(a[0]), exc, traceback.format_exc()) from exc
