"""Run a policy over a trace in cache mode: the public entry point of the engine."""

from __future__ import annotations

import os
import re
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba.core.errors import NumbaError

from pagesim.core.state import ACC_LEN, make_state, state_sharing_lists
from pagesim.engine import auto as _auto
from pagesim.engine import counters as C
from pagesim.engine.build import compiling, hook_that_failed, interpreted_runner, mark_compiled, runner_for
from pagesim.engine.loop import (
    CFG_BASE,
    CFG_END,
    CFG_INIT_RESULT,
    CFG_START,
    CHECK_BROKEN,
    HOOK_BY_NUMBER,
    OP_FREE,
    WRITES_RULES,
    accounting_errors,
    make_framework,
    new_cfg,
)
from pagesim.engine.result import Result, counters_from_array
from pagesim.engine.streamed import ChunkFeed
from pagesim.engine.watchdog import PolicyTimeout, call_watched
from pagesim.policies.base import Policy
from pagesim.trace import Trace
from pagesim.trace.stream import TraceStream

#: Accesses per call of the compiled loop; progress is reported between chunks.
CHUNK = 2_000_000


class PolicyError(RuntimeError):
    """A policy's hook raised; carries the access index and the hook's own traceback text."""

    def __init__(
        self, policy: str, access_index: int, original: BaseException, tb: str, hook: str = ""
    ) -> None:
        where = f" in its {hook!r} hook" if hook else ""
        super().__init__(
            f"policy {policy!r} raised {type(original).__name__}: {original}{where} at access index "
            f"{access_index}"
        )
        self.policy = policy
        self.hook = hook
        self.access_index = access_index
        self.original = original
        self.traceback_text = tb


class PolicyCompileWarning(UserWarning):
    """A policy could not be compiled and runs interpreted."""


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PIPELINE = re.compile(r"^Failed in \w+ mode pipeline \(step: [^)]*\)$")
_AT = re.compile(r" at (\S+\.py) \((\d+)\)")


def numba_reason(text: str) -> str:
    """numba's nested compile error in one line: its innermost message, and the first place named
    outside pagesim and the generated runners (``file.py:LINE``), without the repeated
    "Failed in nopython mode pipeline" headers, colour codes or "During:" trail."""
    lines = [_ANSI.sub("", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not _PIPELINE.match(line)]
    message = next((line for line in lines if not line.startswith("During:")), "")
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for match in _AT.finditer("\n".join(lines)):
        path = match.group(1)
        if not os.path.abspath(path).startswith(package) and "pagesim_runner_" not in path:
            return f"{message} (at {path}:{match.group(2)})"
    return message


def _refuse_zero_sizes(trace: Any, size: np.ndarray, op: np.ndarray) -> None:
    """Refuse an object of size <= 0 that is not a delete: it would occupy nothing, so a
    4-byte cache could hold any number of them."""
    bad = size <= 0
    if op.shape[0]:
        bad &= op != OP_FREE
    if bad.any():
        i = int(np.argmax(bad))
        where = trace.source.get("path", "") if isinstance(getattr(trace, "source", None), dict) else ""
        raise ValueError(
            f"{where + ': ' if where else ''}access {i} (0-based) has object size {int(size[i])}: "
            "with --capacity-unit bytes every object must weigh at least 1 byte"
        )


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
    tg = getattr(trace, "tag", None)
    tag = np.zeros(n, dtype=np.int32) if tg is None else np.ascontiguousarray(tg, dtype=np.int32)
    o = getattr(trace, "op", None)
    op = np.zeros(0, dtype=np.uint8) if o is None else np.ascontiguousarray(o, dtype=np.uint8)
    if capacity_unit == "bytes":
        _refuse_zero_sizes(trace, size, op)
    return page, size, nxt, cgroup, tag, op


class Stepper:
    """What cache mode's :class:`Run` and kernel mode's ``KernelRun`` share: driving a runner.

    A subclass sets ``policies``, ``classes``, ``cfg``, ``a``, ``n`` and ``_mode_name``
    (``"cache"`` or ``"kernel"``) and implements :meth:`_arrays` (the runner's arguments after
    any hooks) and :meth:`_fresh_cfg`; then calls :meth:`_start_up`.
    """

    policies: list[Policy]
    classes: tuple[type[Policy], ...]
    cfg: np.ndarray
    a: np.ndarray
    r: np.ndarray
    n: int
    _mode_name: str = "cache"
    #: Seconds an access may take before the run is stopped (None: no watchdog), see
    #: :mod:`pagesim.engine.watchdog`.
    policy_timeout: float | None = None
    #: The ``auto`` policy's driver (:mod:`pagesim.engine.auto`), consulted between chunks.
    auto: Any = None

    def _arrays(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _fresh_cfg(self) -> np.ndarray:
        raise NotImplementedError

    def label(self) -> str:
        """The policy's label, or ``cg0=label,cg1=label`` when cgroups run different ones."""
        labels = [p.label() for p in self.policies]
        if len(set(labels)) == 1:
            return labels[0]
        return ",".join(f"cg{k}={lab}" for k, lab in enumerate(labels))

    def _call(self) -> None:
        try:
            self._run(*self._arrays())
        except Exception as exc:  # a hook raised (or numba could not compile): say where
            index = int(self.a[0]) if self.cfg[CFG_END] > 0 else -1
            hook = hook_that_failed(self.a, self.r)
            raise PolicyError(self.label(), index, exc, traceback.format_exc(), hook) from exc
        self._check_framework()

    def _check_framework(self) -> None:
        """Raise :class:`PolicyError` if a hook wrote what the framework owns (cache mode)."""

    def _call_watched(self, timeout: float) -> float:
        """:meth:`_call` under the watchdog; a timeout becomes a :class:`PolicyError` naming the
        access and, when known, the hook. Returns the loop's CPU seconds."""
        try:
            return call_watched(self._call, lambda: int(self.a[0]), timeout)
        except PolicyTimeout as exc:
            hook = hook_that_failed(self.a, self.r)
            raise PolicyError(self.label(), int(self.a[0]), exc, "", hook) from exc

    def _start_up(self, interpreted: bool) -> None:
        """Build the runner, compile or load it and run every cgroup's ``init`` (an empty call).

        A policy numba cannot compile falls back to the interpreted runner with a
        :class:`PolicyCompileWarning`.
        """
        self.mode = "interpreted" if interpreted else "compiled"
        kind = self._mode_name
        self._run = interpreted_runner(self.classes, kind) if interpreted else runner_for(self.classes, kind)
        self.done = 0
        self.loop_seconds = 0.0
        self.loop_cpu_seconds = 0.0
        self.cfg[CFG_START] = 0
        self.cfg[CFG_END] = 0
        try:
            with compiling(self.classes, kind, self._run):
                self._call()
        except PolicyError as err:
            if self.mode == "interpreted" or not isinstance(err.original, NumbaError):
                raise
            reason = numba_reason(str(err.original))
            warnings.warn(
                f"policy {self.label()!r} could not be compiled by numba; running it "
                f"interpreted, slowly. numba said: {reason}",
                PolicyCompileWarning,
                stacklevel=4,
            )
            self.mode = "interpreted"
            self._run = interpreted_runner(self.classes, kind)
            self.cfg[:] = self._fresh_cfg()
            self._call()
        if self.mode == "compiled" and len(self.classes) == 1:
            mark_compiled(self.classes, kind)
        if self.cfg[CFG_INIT_RESULT] != 0:
            code = int(self.cfg[CFG_INIT_RESULT])
            raise PolicyError(
                self.label(),
                -1,
                RuntimeError(f"init returned {code} (non-zero aborts the attach)"),
                "",
            )

    def advance(self, n_accesses: int | None = None) -> int:
        """Process the next ``n_accesses`` accesses (all that remain if None); return ``done``."""
        end = self.n if n_accesses is None else min(self.n, self.done + max(int(n_accesses), 0))
        if end <= self.done:
            return self.done
        if self.auto is not None:
            return int(self.auto.drive(end))
        return self._advance_to(end)

    def _advance_to(self, end: int) -> int:
        """One call of the compiled loop up to access ``end``; return ``done``."""
        self.cfg[CFG_START] = self.done
        self.cfg[CFG_END] = end
        t1 = time.perf_counter()
        if self.policy_timeout is None:
            c1 = time.thread_time()
            self._call()
            self.loop_cpu_seconds += time.thread_time() - c1
        else:
            self.loop_cpu_seconds += self._call_watched(self.policy_timeout)
        self.loop_seconds += time.perf_counter() - t1
        self.done = max(end, int(self.cfg[CFG_START]))  # kernel mode may skip a killed task's rest
        return self.done


class Run(Stepper):
    """One policy over one trace, advanced chunk by chunk; :func:`simulate` drives it to the end.

    Useful on its own to look at the state between accesses (which pages are resident, the
    policy's lists) or to check invariants after every step.

    Parameters
    ----------
    trace : pagesim.trace.Trace or pagesim.trace.stream.TraceStream
        The accesses; ``size`` is needed with ``capacity_unit="bytes"``. A stream is read chunk
        by chunk as the run advances (memory independent of its length; the counters are those
        of the same trace in memory).
    policy : Policy or sequence of Policy
        One policy for every cgroup (each cgroup gets its own instance with the same
        parameters), or one per cgroup: ``policy[k]`` runs cgroup ``k`` (cache_ext §3).
    capacity : int or sequence of int
        Capacity of every cgroup, or one per cgroup, in pages or bytes; each must be > 0.
    warmup : int
        Accesses that fill the cache without being counted (>= 0).
    capacity_unit : {"pages", "bytes"}
    interpreted : bool
        Use the plain-Python code path.
    writes, checked, policy_timeout
        As for :func:`simulate`.

    Attributes
    ----------
    states : tuple of State
        One per cgroup (:mod:`pagesim.core.state`), sharing the lists and residency arrays.
    state : State
        ``states[0]``.
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
        policy: Policy | Sequence[Policy],
        capacity: int | Sequence[int],
        *,
        warmup: int = 0,
        capacity_unit: str = "pages",
        interpreted: bool = False,
        writes: str = "access",
        checked: bool = False,
        policy_timeout: float | None = None,
    ) -> None:
        if policy_timeout is not None and not policy_timeout > 0:
            raise ValueError(f"policy timeout must be > 0 seconds, got {policy_timeout}")
        self.policy_timeout = policy_timeout
        if writes not in WRITES_RULES:
            raise ValueError(f"writes must be one of {', '.join(WRITES_RULES)}; got {writes!r}")
        self.writes = writes
        self.checked = checked
        if warmup < 0:
            raise ValueError(f"warmup must be >= 0, got {warmup}")
        if capacity_unit not in ("pages", "bytes"):
            raise ValueError(f"capacity unit must be 'pages' or 'bytes', got {capacity_unit!r}")
        t0 = time.perf_counter()
        self.trace = trace
        self.capacity_unit = capacity_unit
        self.warmup = warmup
        n_cgroups = _n_cgroups(trace)
        self.capacities = _capacities_per_cgroup(capacity, n_cgroups)
        self.policies = _policies_per_cgroup(policy, n_cgroups)
        autos = _auto.resolve_autos(self.policies, "cache")
        switching = [p.policy_name() for p in self.policies if p.switches()]
        if switching:
            raise ValueError(
                f"{switching[0]}: switching policies during a run (cast's enabled) needs kernel mode "
                "(simulate_kernel; pagesim run --mode kernel)"
            )
        self.policy = self.policies[0]
        self.capacity = int(self.capacities[0])
        self.classes = tuple(type(p) for p in self.policies)
        needs_next = any(c.needs_next_access for c in self.classes)
        self._feed: ChunkFeed | None = None
        if isinstance(trace, TraceStream):
            self._feed = ChunkFeed(trace, capacity_unit, needs_next)
            self.page, self.size, self.nxt, self.cgroup, self.tag, self.op = self._feed.empty()
            self.n = int(trace.n_requests)
            self._has_op = trace.has_op
        else:
            self.page, self.size, self.nxt, self.cgroup, self.tag, self.op = _columns(
                trace, capacity_unit, needs_next
            )
            self.n = int(self.page.shape[0])
            self._has_op = self.op.shape[0] > 0
        n_pages = int(trace.n_pages)
        first = make_state(n_pages, n_cgroups, **self.policies[0].state_shape())
        others = tuple(state_sharing_lists(first, **p.state_shape()) for p in self.policies[1:])
        self.states = (first, *others)
        self.state = first
        self.framework = make_framework(n_pages, self.capacities, checked)
        self._verified_at = 0
        for pol, st, cap in zip(self.policies, self.states, self.capacities):
            pol.configure(st, int(cap))
        self.cfg = self._fresh_cfg()
        self.a = np.zeros(ACC_LEN, dtype=np.int64)
        self.r = np.zeros(ACC_LEN, dtype=np.int64)
        self.out = np.zeros(2 * C.N_COUNTERS, dtype=np.int64)  # second half: warm-up's effects
        self._start_up(interpreted)
        self.auto = _auto.attach(self, autos, "cache")
        self.prepare_seconds = time.perf_counter() - t0

    def _arrays(self) -> tuple[Any, ...]:
        return (
            self.page, self.size, self.nxt, self.cgroup, self.tag, self.op, self.cfg,
            self.states, self.framework, self.a, self.r, self.out,
        )  # fmt: skip

    def _check_framework(self) -> None:
        """After a call of the loop: the resident pages the state shows, counted and weighed per
        cgroup, are what the framework accounted (O(pages): after the last access, and between
        chunks once at least 8 accesses per page have run since the last look, so that it costs
        at most 1/8 of a page visit per access); in checked mode the loop compared its own records
        after every hook and named the hook."""
        fw = self.framework
        hook = int(fw.check[CHECK_BROKEN])
        if hook == 0:
            # O(pages): at most once per 8 accesses per page, and after the last access
            done = max(int(self.cfg[CFG_START]), self.done)
            if done < self.n and done - self._verified_at < 8 * fw.res.shape[0]:
                return
            self._verified_at = done
            multi = fw.cap.shape[0] > 1
            if accounting_errors(self.state, fw, self.capacity_unit == "bytes", multi) == 0:
                return
        where = (
            f"after its {HOOK_BY_NUMBER[hook]!r} hook at access {int(self.a[0])}"
            if hook > 0
            else "in a hook (run with checked=True, --checked, to name it)"
        )
        message = (
            f"wrote s.resident or s.cgroup_of, which the framework owns (read-only for policies), {where}"
        )
        raise PolicyError(self.label(), int(self.a[0]), RuntimeError(message), "")

    def _fresh_cfg(self) -> np.ndarray:
        return new_cfg(
            self.warmup,
            any(c.has_admit() for c in self.classes),
            any(c.needs_next_access for c in self.classes),
            self.capacity_unit == "bytes",
            any(bool(c.int_fields) for c in self.classes),
            has_op=self._has_op,
            writes=WRITES_RULES.index(self.writes),
        )

    def advance(self, n_accesses: int | None = None) -> int:
        """Process the next ``n_accesses`` accesses (all that remain if None); return ``done``.

        A streamed trace's chunks are read as the accesses reach them, one held at a time.
        """
        if self._feed is None:
            return super().advance(n_accesses)
        end = self.n if n_accesses is None else min(self.n, self.done + max(int(n_accesses), 0))
        while self.done < end:
            if self.done >= self._feed.stop:
                self.page, self.size, self.nxt, self.cgroup, self.tag, self.op = self._feed.next()
                self.cfg[CFG_BASE] = self._feed.start
            super().advance(min(end, self._feed.stop) - self.done)
        return self.done

    @property
    def counters(self) -> dict[str, int]:
        """The counters so far, by name."""
        return counters_from_array(self.out)

    def result(self) -> Result:
        """The :class:`Result` of the accesses processed so far."""
        return Result(
            policy=self.label(),
            capacity=self.capacity,
            capacity_unit=self.capacity_unit,
            counters=self.counters,
            seconds=self.loop_seconds,
            prepare_seconds=self.prepare_seconds,
            cpu_seconds=self.loop_cpu_seconds,
            mode=self.mode,
            params={
                "policy": [repr(p) for p in self.policies],
                "capacities": [int(c) for c in self.capacities],
                "warmup": self.warmup,
                "writes": self.writes,
                "source": getattr(self.trace, "source", {}),
                **({"auto": self.auto.report()} if self.auto is not None else {}),
            },
        )


def _n_cgroups(trace: Any) -> int:
    if isinstance(trace, TraceStream):
        return int(trace.n_cgroups)
    cg = getattr(trace, "cgroup", None)
    return int(np.max(cg)) + 1 if cg is not None and len(cg) else 1


def _policies_per_cgroup(policy: Policy | Sequence[Policy], n_cgroups: int) -> list[Policy]:
    if isinstance(policy, Policy):
        return [policy] + [type(policy)(**policy.values) for _ in range(n_cgroups - 1)]
    policies = list(policy)
    if len(policies) != n_cgroups or not all(isinstance(p, Policy) for p in policies):
        raise ValueError(f"the trace has {n_cgroups} cgroups: give one Policy or {n_cgroups} of them")
    return policies


def _capacities_per_cgroup(capacity: int | Sequence[int], n_cgroups: int) -> np.ndarray:
    caps = np.atleast_1d(np.asarray(capacity, dtype=np.int64))
    if caps.ndim != 1:
        raise ValueError(f"capacity must be an int or a sequence of ints, got {capacity!r}")
    if caps.shape[0] == 1:
        caps = np.full(n_cgroups, caps[0], dtype=np.int64)
    if caps.shape[0] != n_cgroups:
        raise ValueError(f"the trace has {n_cgroups} cgroups: give one capacity or {n_cgroups}")
    if (caps <= 0).any():
        raise ValueError(f"capacity must be positive, got {capacity}")
    return caps


def simulate(
    trace: Any,
    policy: Policy | Sequence[Policy],
    capacity: int | Sequence[int],
    *,
    warmup: int = 0,
    capacity_unit: str = "pages",
    interpreted: bool = False,
    progress: Callable[[int, int], None] | None = None,
    chunk: int = CHUNK,
    writes: str = "access",
    checked: bool = False,
    policy_timeout: float | None = None,
) -> Result:
    """Simulate ``policy`` over ``trace`` with a cache of ``capacity`` units (cache mode).

    Parameters
    ----------
    trace : pagesim.trace.Trace or pagesim.trace.stream.TraceStream
        In memory, or streamed in chunks (:mod:`pagesim.trace.stream`). ``page`` (int64,
        shape (n,), dense ids), optionally ``size`` (int64 bytes) and
        ``cgroup`` (each cgroup gets ``capacity``); ``next_access()`` for clairvoyant policies.
    policy : Policy or sequence of Policy
        One policy for every cgroup (a separate instance each), or ``policy[k]`` for cgroup ``k``.
    capacity : int or sequence of int
        Capacity of every cgroup, or one per cgroup, in pages (``capacity_unit="pages"``) or
        bytes; must be > 0.
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
    writes : {"access", "insert-only", "ignore"}
        How a write (``trace.op == OP_WRITE``) is served: as an access like a read; as an
        insert that is no request (a page not resident is inserted, uncounted; a resident one
        only takes its new size); or not at all. Counted in ``writes_skipped`` unless "access".
        A free (``OP_FREE``) always removes a resident page (``removed`` with
        ``REASON_FREED``; ``frees``) and is otherwise ignored (``frees_not_resident``).
    checked : bool
        Compare the framework's residency and owner records with ``State.resident`` and
        ``State.cgroup_of`` after every hook, to name the hook that wrote them (O(pages) per
        hook: for tests and debugging). Unchecked runs compare once per chunk.
    policy_timeout : float or None
        Seconds an access may take (its hooks included) before the run is stopped with a
        :class:`PolicyError` naming the access and, for a user's policy or an interpreted run,
        the hook (:mod:`pagesim.engine.watchdog`: an interpreted hook is stopped; a compiled
        one cannot be, its thread is abandoned). None: no watchdog.

    Returns
    -------
    Result
        ``seconds`` is loop time only; compiling or loading the runner is ``prepare_seconds``.

    Raises
    ------
    TypeError
        If ``trace`` is not a :class:`pagesim.trace.Trace`.
    ValueError
        If ``capacity <= 0``, ``warmup < 0``, the unit is unknown, sizes are missing, an
        object that is not deleted has a size <= 0 in bytes mode (refused with its access
        index: it would take no room), or ``writes`` is unknown.
    PolicyError
        If a hook raises (the message names the access index), ``init`` fails, or a hook wrote
        ``State.resident`` / ``State.cgroup_of`` (named with ``checked=True``).
    """
    run = Run(
        trace,
        policy,
        capacity,
        warmup=warmup,
        capacity_unit=capacity_unit,
        interpreted=interpreted,
        writes=writes,
        checked=checked,
        policy_timeout=policy_timeout,
    )
    step = max(int(chunk), 1)
    while run.done < run.n:
        run.advance(step)
        if progress is not None:
            progress(run.done, run.n)
    return run.result()
