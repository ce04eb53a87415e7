"""Run a policy over a trace in cache mode: the public entry point of the engine."""

from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numba.core.errors import NumbaError

from pagesim.core.state import ACC_LEN, make_state
from pagesim.engine import counters as C
from pagesim.engine.build import interpreted_runner, runner_for
from pagesim.engine.loop import CFG_END, CFG_INIT_RESULT, CFG_START, make_framework, new_cfg
from pagesim.engine.result import Result, counters_from_array
from pagesim.policies.base import Policy
from pagesim.trace import Trace

#: Accesses per call of the compiled loop; progress is reported between chunks.
CHUNK = 2_000_000


class PolicyError(RuntimeError):
    """A policy's hook raised; carries the access index and the hook's own traceback text."""

    def __init__(self, policy: str, access_index: int, original: BaseException, tb: str) -> None:
        super().__init__(
            f"policy {policy!r} raised {type(original).__name__}: {original} at access index {access_index}"
        )
        self.policy = policy
        self.access_index = access_index
        self.original = original
        self.traceback_text = tb


class PolicyCompileWarning(UserWarning):
    """A policy could not be compiled and runs interpreted."""


def _columns(trace: Any, capacity_unit: str, needs_next: bool) -> tuple[np.ndarray, ...]:
    if not isinstance(trace, Trace):
        raise TypeError(
            f"simulate needs a pagesim.trace.Trace (dense ids in first-occurrence order), got "
            f"{type(trace).__name__}; build one with Trace.from_ids(ids)"
        )
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


class Run:
    """One policy over one trace, advanced chunk by chunk; :func:`simulate` drives it to the end.

    Useful on its own to look at the state between accesses (which pages are resident, the
    policy's lists) or to check invariants after every step.

    Parameters
    ----------
    trace : pagesim.trace.Trace
        The accesses; ``size`` is needed with ``capacity_unit="bytes"``.
    policy : Policy
        A configured policy instance.
    capacity : int
        Capacity per cgroup, in pages or bytes; must be > 0.
    warmup : int
        Accesses that fill the cache without being counted (>= 0).
    capacity_unit : {"pages", "bytes"}
    interpreted : bool
        Use the plain-Python code path.

    Attributes
    ----------
    state : State
        The policy's state (:mod:`pagesim.core.state`).
    framework : Framework
        The framework's arrays (:class:`pagesim.engine.loop.Framework`).
    done : int
        Accesses processed so far.
    mode : str
        ``"compiled"`` or ``"interpreted"`` (after a compile failure it is the latter).

    Raises
    ------
    TypeError
        If ``trace`` is not a Trace.
    ValueError
        If ``capacity <= 0``, ``warmup < 0``, the unit is unknown, or bytes without sizes.
    PolicyError
        If ``init`` raises or returns non-zero (cache_ext: a failed init aborts the attach).
    """

    def __init__(
        self,
        trace: Any,
        policy: Policy,
        capacity: int,
        *,
        warmup: int = 0,
        capacity_unit: str = "pages",
        interpreted: bool = False,
    ) -> None:
        if capacity <= 0:
            raise ValueError(f"capacity must be positive, got {capacity}")
        if warmup < 0:
            raise ValueError(f"warmup must be >= 0, got {warmup}")
        if capacity_unit not in ("pages", "bytes"):
            raise ValueError(f"capacity unit must be 'pages' or 'bytes', got {capacity_unit!r}")
        t0 = time.perf_counter()
        cls = type(policy)
        self.trace = trace
        self.policy = policy
        self.capacity = int(capacity)
        self.capacity_unit = capacity_unit
        self.warmup = warmup
        self.page, self.size, self.nxt, self.cgroup = _columns(trace, capacity_unit, cls.needs_next_access)
        self.n = int(self.page.shape[0])
        n_pages = int(trace.n_pages)
        n_cgroups = int(self.cgroup.max()) + 1 if self.n else 1
        self.state = make_state(n_pages, n_cgroups, **policy.state_shape())
        self.framework = make_framework(n_pages, np.full(n_cgroups, capacity, dtype=np.int64))
        policy.configure(self.state, self.capacity)
        self.cfg = self._fresh_cfg()
        self.a = np.zeros(ACC_LEN, dtype=np.int64)
        self.r = np.zeros(ACC_LEN, dtype=np.int64)
        self.out = np.zeros(C.N_COUNTERS, dtype=np.int64)
        self.mode = "interpreted" if interpreted else "compiled"
        self._run = interpreted_runner(cls) if interpreted else runner_for(cls)
        self.done = 0
        self.loop_seconds = 0.0
        self._start_up()
        self.prepare_seconds = time.perf_counter() - t0

    def _fresh_cfg(self) -> np.ndarray:
        cls = type(self.policy)
        return new_cfg(
            self.warmup,
            cls.has_admit(),
            cls.needs_next_access,
            self.capacity_unit == "bytes",
            bool(cls.int_fields),
        )

    def _start_up(self) -> None:
        """Compile or load the runner and run ``init`` with an empty first call."""
        self.cfg[CFG_START] = 0
        self.cfg[CFG_END] = 0
        try:
            self._call()
        except PolicyError as err:
            if self.mode == "interpreted" or not isinstance(err.original, NumbaError):
                raise
            reason = " ".join(str(err.original).split())[:300]
            warnings.warn(
                f"policy {self.policy.label()!r} could not be compiled by numba; running it "
                f"interpreted, slowly. numba said: {reason}",
                PolicyCompileWarning,
                stacklevel=3,
            )
            self.mode = "interpreted"
            self._run = interpreted_runner(type(self.policy))
            self.cfg[:] = self._fresh_cfg()
            self._call()
        if self.cfg[CFG_INIT_RESULT] != 0:
            code = int(self.cfg[CFG_INIT_RESULT])
            raise PolicyError(
                self.policy.label(),
                -1,
                RuntimeError(f"init returned {code} (non-zero aborts the attach)"),
                "",
            )

    def _call(self) -> None:
        try:
            self._run(
                self.page, self.size, self.nxt, self.cgroup, self.cfg,
                self.state, self.framework, self.a, self.r, self.out,
            )  # fmt: skip
        except Exception as exc:  # a hook raised (or numba could not compile): say where
            index = int(self.a[0]) if self.cfg[CFG_END] > 0 else -1
            raise PolicyError(self.policy.label(), index, exc, traceback.format_exc()) from exc

    def advance(self, n_accesses: int | None = None) -> int:
        """Process the next ``n_accesses`` accesses (all that remain if None); return ``done``."""
        end = self.n if n_accesses is None else min(self.n, self.done + max(int(n_accesses), 0))
        if end <= self.done:
            return self.done
        self.cfg[CFG_START] = self.done
        self.cfg[CFG_END] = end
        t1 = time.perf_counter()
        self._call()
        self.loop_seconds += time.perf_counter() - t1
        self.done = end
        return self.done

    @property
    def counters(self) -> dict[str, int]:
        """The counters so far, by name."""
        return counters_from_array(self.out)

    def result(self) -> Result:
        """The :class:`Result` of the accesses processed so far."""
        return Result(
            policy=self.policy.label(),
            capacity=self.capacity,
            capacity_unit=self.capacity_unit,
            counters=self.counters,
            seconds=self.loop_seconds,
            prepare_seconds=self.prepare_seconds,
            mode=self.mode,
            params={
                "policy": repr(self.policy),
                "warmup": self.warmup,
                "source": getattr(self.trace, "source", {}),
            },
        )


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
    """Simulate ``policy`` over ``trace`` with a cache of ``capacity`` units (cache mode).

    Parameters
    ----------
    trace : pagesim.trace.Trace
        ``page`` (int64, shape (n,), dense ids), optionally ``size`` (int64 bytes) and
        ``cgroup`` (each cgroup gets ``capacity``); ``next_access()`` for clairvoyant policies.
    policy : Policy
        A configured policy instance.
    capacity : int
        Cache capacity, in pages (``capacity_unit="pages"``) or bytes; must be > 0.
    warmup : int
        Accesses that fill the cache without being counted (``0 <= warmup``).
    capacity_unit : {"pages", "bytes"}
        With ``bytes`` every access weighs its object size and an object larger than the
        cache is never inserted (a miss, counted as ``too_large``).
    interpreted : bool
        Run the plain-Python code path (slow; for debugging and cross-checks).
    progress : callable ``(done, total)``, optional
        Called after each chunk of ``chunk`` accesses.
    chunk : int
        Accesses per call of the compiled loop.

    Returns
    -------
    Result
        ``seconds`` is loop time only; compiling or loading the runner is ``prepare_seconds``.

    Raises
    ------
    TypeError
        If ``trace`` is not a :class:`pagesim.trace.Trace`.
    ValueError
        If ``capacity <= 0``, ``warmup < 0``, the unit is unknown or sizes are missing.
    PolicyError
        If a hook raises (the message names the access index) or ``init`` fails.
    """
    run = Run(trace, policy, capacity, warmup=warmup, capacity_unit=capacity_unit, interpreted=interpreted)
    step = max(int(chunk), 1)
    while run.done < run.n:
        run.advance(step)
        if progress is not None:
            progress(run.done, run.n)
    return run.result()
