"""The ``auto`` policy's controller: shadow runs of the candidates, a sequential test, switches.

:class:`pagesim.policies.auto.Auto` names the candidates and the parameters; this module runs
them, beside a cache-mode :class:`~pagesim.engine.simulate.Run` or a kernel-mode ``KernelRun``:

1. **Resolve** (:func:`resolve_autos`): before the run builds its states, each cgroup whose
   policy is ``auto`` gets its start candidate in its place, so the run's compiled runner is
   that candidate's, and the run is, access for access, a run of that candidate until a switch.
2. **Shadows** (:class:`AutoCgroup`): the cgroup's accesses to the pages whose hash falls under
   R x 2^32 (the splitmix64 finaliser of :mod:`pagesim.analysis.mrc.shards`, SHARDS' spatial
   sample) form a sub-trace; each candidate runs on it in cache mode with c x R pages (c the
   cgroup's capacity): a miniature simulation (Waldspurger et al., ATC'17) of that candidate
   as the cgroup's policy. The shadows start with the run and never stop, so each is warm.
3. **Epochs** (:class:`AutoDriver`): the run advances ``epoch`` accesses at a time; between two
   calls of the compiled loop, each shadow catches up with the run in blocks of ``block``
   sampled accesses and the misses of each block are kept, for the last ``window`` epochs.
4. **Test**: the candidate with the fewest misses over the window is the challenger; with d
   the live candidate's misses less the challenger's per block, z = sum(d) / sqrt(sum(d^2)).
   With one access per block d is +1, -1 or 0 and z is CAST's sign-test statistic (plus -
   minus) / sqrt(plus + minus) on the accesses where the two disagree; longer blocks keep the
   statistic's scale when misses come in bursts (a block's difference is one observation).
5. **Switch** with hysteresis: once z >= ``threshold`` with sum(d^2) >= ``min_disagree`` at
   ``lead`` epoch ends in a row for one challenger, and ``lead`` epochs after the last switch,
   the cgroup's resident pages pass to a fresh instance of the challenger: in kernel mode by
   ``KernelRun._switch`` (:mod:`pagesim.engine.switch`), in cache mode by
   :func:`pagesim.engine.cache_switch.switch_cache`.

The shadows' CPU time is added to the run's loop time (``Result.cpu_seconds``) and reported
apart, with their memory, in the readouts (:meth:`AutoCgroup.report`).
"""

from __future__ import annotations

import math
import time
from collections import deque
from typing import Any

import numpy as np

from pagesim.engine import counters as C
from pagesim.policies.auto import Auto
from pagesim.policies.base import Policy
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace

HASH_SPACE = 1 << 32


def page_hashes(n_pages: int, seed: int) -> np.ndarray:
    """Hash of every dense page id in [0, 2^32): the splitmix64 finaliser's upper 32 bits.

    The same function as :func:`pagesim.analysis.mrc.shards.page_hashes` (which the engine,
    a lower layer, cannot import); int64, shape (n_pages,).
    """
    with np.errstate(over="ignore"):
        s = np.uint64(int(seed) % (1 << 64)) * np.uint64(0xD1B54A32D192ED03)
        z = np.arange(n_pages, dtype=np.uint64) ^ s
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(32)).astype(np.int64)


def resolve_autos(policies: list[Policy], mode: str) -> dict[int, Auto]:
    """Put each ``auto``'s start candidate in its place in ``policies`` (in place).

    Returns
    -------
    dict of int to Auto
        cgroup -> its Auto, for :func:`attach`; empty when no cgroup runs auto.
    """
    autos = {cg: p for cg, p in enumerate(policies) if isinstance(p, Auto)}
    for cg, auto in autos.items():
        policies[cg] = make_policy(auto.start_name(mode))
    return autos


def attach(run: Any, autos: dict[int, Auto], mode: str) -> AutoDriver | None:
    """Build the shadows of each auto cgroup of ``run`` and put the Autos back in ``run.policies``
    (its label and parameters name ``auto``); None when there are none.

    Raises
    ------
    ValueError
        In cache mode with ``capacity_unit="bytes"`` (switching weighs no objects).
    """
    if not autos:
        return None
    if getattr(run, "capacity_unit", "pages") != "pages":
        raise ValueError("auto runs in pages, not bytes (its switch hands over pages)")
    cgroups = []
    for cg, auto in autos.items():
        capacity = int(run.framework.cap[cg])
        cgroups.append(AutoCgroup(auto, cg, mode, run, capacity))
        run.policies[cg] = auto
    if mode == "cache":
        run.policy = run.policies[0]
    return AutoDriver(run, cgroups, mode)


class AutoDriver:
    """Advances a run epoch by epoch and lets each auto cgroup catch up, test and switch."""

    def __init__(self, run: Any, cgroups: list[AutoCgroup], mode: str) -> None:
        self.run = run
        self.cgroups = cgroups
        self.mode = mode

    def drive(self, end: int) -> int:
        """Run up to access ``end``, stopping at each epoch's end; returns ``run.done``."""
        run = self.run
        while run.done < end:
            stop = min(end, *(c.next_epoch for c in self.cgroups))
            before = run.done
            run._advance_to(stop)
            for c in self.cgroups:
                if run.done >= c.next_epoch or run.done >= run.n:
                    self._epoch_end(c)
            if run.done <= before:  # nothing ran (kernel mode: every task killed)
                break
        return run.done

    def report(self) -> dict[str, Any]:
        """The auto cgroup's :meth:`AutoCgroup.report`, or ``{"cgroups": [...]}`` for several."""
        if len(self.cgroups) == 1:
            return self.cgroups[0].report()
        return {"cgroups": [c.report() for c in self.cgroups]}

    def _epoch_end(self, c: AutoCgroup) -> None:
        run = self.run
        seconds = c.catch_up(run.done)
        run.loop_seconds += seconds[0]
        run.loop_cpu_seconds += seconds[1]
        target = c.decide(run.done)
        while c.next_epoch <= run.done:
            c.next_epoch += c.epoch
        if target is None:
            return
        new = make_policy(c.names[target])
        if self.mode == "kernel":
            run._switch(c.cg, new)
        else:
            from pagesim.engine.cache_switch import switch_cache

            switch_cache(run, c.cg, new)
        c.switched(target, run.done)


class AutoCgroup:
    """One cgroup's candidates, shadows, evidence and switch log.

    Parameters
    ----------
    auto : Auto
        The policy and its parameters.
    cg : int
        The cgroup.
    mode : {"cache", "kernel"}
    run : Run or KernelRun
        The live run (its trace columns ``page``, ``cgroup``, ``op`` and ``mode``).
    capacity : int
        The cgroup's capacity (cache mode) or ``memory.max`` (kernel mode), pages.
    """

    def __init__(self, auto: Auto, cg: int, mode: str, run: Any, capacity: int) -> None:
        v = auto.values
        self.auto, self.cg, self.mode = auto, cg, mode
        self.names = auto.candidate_names(mode)
        self.live = self.names.index(auto.start_name(mode))
        self.epoch = int(v["epoch"]) or max(capacity, 1)
        self.next_epoch = self.epoch
        self.block = int(v["block"])
        self.threshold = float(v["threshold"])
        self.min_disagree = int(v["min_disagree"])
        self.lead = int(v["lead"])
        self.rate = min(1.0, max(float(v["rate"]), int(v["min_pages"]) / max(capacity, 1)))
        self.shadow_capacity = max(1, round(capacity * self.rate))
        self.window: deque[np.ndarray] = deque(maxlen=int(v["window"]))
        self.short = min(int(v["short_window"]), int(v["window"]))
        self.epochs_since_switch = 0
        self.challenger = -1
        self.streak = 0
        self.timeline: list[tuple[int, str]] = [(0, self.names[self.live])]
        self.switches: list[dict[str, Any]] = []
        self.last_test: dict[str, float] = {"z": 0.0, "sum_d": 0.0, "sum_d2": 0.0}
        self.shadow_seconds = 0.0
        self.shadow_cpu_seconds = 0.0
        auto.controller = self
        self._build_shadows(run, int(v["seed"]), bool(run.mode == "interpreted"))

    def _build_shadows(self, run: Any, seed: int, interpreted: bool) -> None:
        """The sampled sub-trace and one cache-mode Run per candidate (none for one candidate)."""
        from pagesim.engine.simulate import Run

        page = run.page
        mine = np.ones(page.shape[0], dtype=bool) if run.cgroup is None else run.cgroup == self.cg
        n_pages = int(page.max()) + 1 if page.shape[0] else 1
        limit = int(self.rate * HASH_SPACE)
        chosen = page_hashes(n_pages, seed) < limit if self.rate < 1.0 else np.ones(n_pages, dtype=bool)
        self.rows = np.flatnonzero(mine & chosen[page]).astype(np.int64)
        self.sampled_pages = int(np.unique(page[self.rows]).shape[0]) if self.rows.size else 0
        self.shadows: list[Any] = []
        self.done = 0  # sampled accesses the shadows have run
        if len(self.names) < 2 or self.rows.size == 0:
            return
        op = getattr(run, "op", None)
        columns = {"op": op[self.rows]} if op is not None and op.shape[0] else {}
        sub = Trace.from_ids(page[self.rows], source={"auto_sample_of_cgroup": self.cg}, **columns)
        t0, c0 = time.perf_counter(), time.thread_time()
        cap = self.shadow_capacity
        self.shadows = [Run(sub, make_policy(n), cap, interpreted=interpreted) for n in self.names]
        self.shadow_seconds += time.perf_counter() - t0
        self.shadow_cpu_seconds += time.thread_time() - c0

    def catch_up(self, done: int) -> tuple[float, float]:
        """Run the shadows over the sampled accesses before ``done``, block by block; keep the
        epoch's (blocks, candidates) miss matrix. Returns (wall, CPU) seconds spent."""
        target = int(np.searchsorted(self.rows, done)) if self.shadows else 0
        t0, c0 = time.perf_counter(), time.thread_time()
        rows = []
        while self.done < target:
            step = min(self.block, target - self.done)
            before = np.array([int(s.out[C.MISSES]) for s in self.shadows])
            for s in self.shadows:
                s.advance(step)
            rows.append(np.array([int(s.out[C.MISSES]) for s in self.shadows]) - before)
            self.done += step
        k = len(self.names)
        self.window.append(np.array(rows, dtype=np.int64).reshape(-1, k))
        wall, cpu = time.perf_counter() - t0, time.thread_time() - c0
        self.shadow_seconds += wall
        self.shadow_cpu_seconds += cpu
        return wall, cpu

    def _test(self, epochs: int) -> tuple[int, float, float, float, np.ndarray]:
        """Over the last ``epochs`` epochs: the challenger (fewest misses; the live one on a
        tie), z, sum(d), sum(d^2) and every candidate's misses."""
        blocks = np.concatenate(list(self.window)[-epochs:], axis=0)
        totals = blocks.sum(axis=0)
        best = int(np.argmin(totals))
        if totals[self.live] <= totals[best]:
            best = self.live
        d = (blocks[:, self.live] - blocks[:, best]).astype(np.float64)
        sum_d, sum_d2 = float(d.sum()), float((d * d).sum())
        z = sum_d / math.sqrt(sum_d2) if sum_d2 > 0 else 0.0
        return best, z, sum_d, sum_d2, totals

    def _z_of(self, epochs: int, k: int) -> float:
        """z of candidate ``k`` against the live one over the last ``epochs`` epochs."""
        blocks = np.concatenate(list(self.window)[-epochs:], axis=0)
        d = (blocks[:, self.live] - blocks[:, k]).astype(np.float64)
        q = float((d * d).sum())
        return float(d.sum()) / math.sqrt(q) if q > 0 else 0.0

    def decide(self, done: int) -> int | None:
        """The candidate to switch to at this epoch's end, or None (see the module docstring)."""
        self.epochs_since_switch += 1
        if not self.shadows:
            return None
        passed = None
        for epochs, other in ((self.window.maxlen or 1, self.short), (self.short, self.window.maxlen or 1)):
            best, z, sum_d, sum_d2, totals = self._test(epochs)
            if epochs == self.window.maxlen:
                self.last_test = {"z": z, "sum_d": sum_d, "sum_d2": sum_d2}
            ok = best != self.live and sum_d2 >= self.min_disagree and z >= self.threshold
            if ok and self._z_of(other, best) > 0:
                passed = (best, z, sum_d, sum_d2, totals, epochs)
                break
        if passed is None:
            self.challenger, self.streak = -1, 0
            return None
        best, z, sum_d, sum_d2, totals, epochs = passed
        self.streak = self.streak + 1 if best == self.challenger else 1
        self.challenger = best
        if self.streak < self.lead or self.epochs_since_switch < self.lead:
            return None
        self.switches.append(
            {
                "access": int(done),
                "from": self.names[self.live],
                "to": self.names[best],
                "z": z,
                "sum_d": sum_d,
                "sum_d2": sum_d2,
                "window_epochs": int(epochs),
                "window_misses": {n: int(m) for n, m in zip(self.names, totals)},
            }
        )
        return best

    def switched(self, target: int, done: int) -> None:
        """Record that the cgroup now runs candidate ``target``."""
        self.live = target
        self.epochs_since_switch = 0
        self.challenger, self.streak = -1, 0
        self.timeline.append((int(done), self.names[target]))

    def shadow_misses(self) -> dict[str, int]:
        """Each shadow's misses so far (over every sampled access it has run)."""
        return {n: int(s.out[C.MISSES]) for n, s in zip(self.names, self.shadows)}

    def shadow_bytes(self) -> int:
        """Memory of the shadows' states and framework arrays, bytes."""
        total = 0
        for s in self.shadows:
            for part in (*s.states[0], *s.framework):
                total += part.nbytes if isinstance(part, np.ndarray) else 0
        return total

    def readouts(self) -> dict[str, float]:
        """Floats for kernel mode's series: the live candidate's index, switches, the last z,
        each shadow's misses, the sampled pages and the shadows' CPU seconds."""
        out = {
            "auto_live": float(self.live),
            "auto_switches": float(len(self.switches)),
            "auto_z": float(self.last_test["z"]),
            "auto_sampled_pages": float(self.sampled_pages),
            "auto_shadow_cpu_seconds": float(self.shadow_cpu_seconds),
        }
        out.update({f"auto_misses_{n}": float(m) for n, m in self.shadow_misses().items()})
        return out

    def report(self) -> dict[str, Any]:
        """Every readout as JSON-ready values (``Result.params["auto"]`` in cache mode)."""
        return {
            "cgroup": self.cg,
            "candidates": list(self.names),
            "live": self.names[self.live],
            "timeline": [list(t) for t in self.timeline],
            "switches": list(self.switches),
            "shadow_misses": self.shadow_misses(),
            "sampled_accesses": int(self.rows.size),
            "sampled_pages": self.sampled_pages,
            "rate": self.rate,
            "shadow_capacity": self.shadow_capacity,
            "epoch": self.epoch,
            "shadow_bytes": self.shadow_bytes(),
            "shadow_seconds": self.shadow_seconds,
            "shadow_cpu_seconds": self.shadow_cpu_seconds,
        }

    def describe(self) -> str:
        """The timeline and each switch's evidence, one line each."""
        lines = [f"auto (cgroup {self.cg}): {self.names[self.live]} now; candidates {', '.join(self.names)}"]
        for sw in self.switches:
            lines.append(
                f"  at {sw['access']}: {sw['from']} -> {sw['to']} (z {sw['z']:.2f}, "
                f"sum d {sw['sum_d']:.0f}, sum d^2 {sw['sum_d2']:.0f})"
            )
        return "\n".join(lines)
