"""The result of one simulation run: counters, timing and the run's full parameters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pagesim.engine.counters import COUNTERS


@dataclass
class Result:
    """Counters and timing of one (policy, capacity) run over one trace.

    Attributes
    ----------
    policy : str
        The policy's label (name plus changed parameters).
    capacity : int
        Capacity in ``capacity_unit``.
    capacity_unit : str
        ``"pages"`` or ``"bytes"``.
    counters : dict of str to int
        Every counter of :data:`pagesim.engine.counters.COUNTERS`.
    seconds : float
        Wall time of the simulation loop alone (not loading or compiling).
    prepare_seconds : float
        Time to build or load the compiled runner and allocate state.
    mode : str
        ``"compiled"`` or ``"interpreted"``.
    params : dict
        Everything needed to repeat the run (trace source, policy parameters, warm-up).
    cpu_seconds : float
        CPU time of the simulating thread during the loop (``time.thread_time``): steadier than
        ``seconds`` on a loaded machine, since time spent waiting for a core is not counted.
    """

    policy: str
    capacity: int
    capacity_unit: str
    counters: dict[str, int]
    seconds: float
    prepare_seconds: float
    mode: str
    params: dict[str, Any] = field(default_factory=dict)
    cpu_seconds: float = 0.0

    @property
    def requests(self) -> int:
        """Accesses counted (after warm-up)."""
        return self.counters["requests"]

    @property
    def misses(self) -> int:
        """Counted misses."""
        return self.counters["misses"]

    @property
    def hits(self) -> int:
        """Counted hits."""
        return self.counters["hits"]

    @property
    def miss_ratio(self) -> float:
        """misses / requests; 0.0 for an empty trace (never NaN)."""
        return self.misses / self.requests if self.requests else 0.0

    @property
    def accesses_per_second(self) -> float:
        """Simulated accesses (warm-up included) per second of loop time; 0.0 if unmeasurable."""
        total = self.requests + self.counters["warmup_accesses"]
        return total / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of the whole result."""
        return {
            "policy": self.policy,
            "capacity": self.capacity,
            "capacity_unit": self.capacity_unit,
            "miss_ratio": self.miss_ratio,
            **self.counters,
            "seconds": self.seconds,
            "prepare_seconds": self.prepare_seconds,
            "cpu_seconds": self.cpu_seconds,
            "accesses_per_second": self.accesses_per_second,
            "mode": self.mode,
            "params": self.params,
        }


def counters_from_array(out: Any) -> dict[str, int]:
    """Name the slots of the engine's counter array."""
    return {name: int(out[slot]) for name, (slot, _) in COUNTERS.items()}
