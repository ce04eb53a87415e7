"""CAST's split study (``pagesim experiment cast-split``): ways of splitting memory between anon
and file against the best fixed split in hindsight.

Source: the CAST seed (shared/seeds/000_ce948a5f47243f59.txt), "Swappiness": "In the simulator
the policy was designed in (90 workload conditions, 2 million accesses each), the anon/file
split chosen from miss-ratio curves cost on average 5.9% less than the best fixed split -- the
one that, in hindsight, was best for each condition -- and at worst 12.3% more. The other ways
of splitting tried, comparing pages' scores across the types or following the gradient of the
split, were at worst 39% to 19,000% worse."

The conditions are :func:`pagesim.workloads.kernel.mix_study_conditions` (docs/cast-results.md, "The
split study"): five file patterns x three anon patterns x six anon shares of the accesses, each
a ``mix`` workload a user can run alone (:func:`condition_workload` gives its ``pagesim run``
text). On each condition's one trace every method runs (:data:`METHODS`): CAST with the split
held at 1/10 .. 9/10 (``split_permille``), and CAST's three ``split_mode``\\ s -- ``curves`` (the
seed's controller), ``gradient`` and ``scores`` (the seed's two other ways). A run's cost is the
model time its tasks spent on their accesses (``node["total_ns"]``: CPU per access, the waits
for refaults and zero-fill, direct reclaim's stalls; not a paced task's sleep until its next
access is released), so a miss is weighed by what it cost. A method's figure on a condition is
``cost / min(cost of the nine fixed splits) - 1``.

The tasks are paced (``pace_ns``, default 50,000 ns between main-phase accesses), so that the
anon task and the file task progress together and the anon share of the accesses holds through
the run.
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pagesim.engine.kernel import simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.cast.policy import CAST
from pagesim.workloads.kernel import SCALED_MEMORY_PAGES, mix, mix_study_conditions

SEED_ACCESSES = 2_000_000  #: the seed's accesses per condition (``scale=1``)
SEED_MEAN = -5.9  #: the seed's controller against the best fixed split, mean, %
SEED_WORST = 12.3  #: ... and worst, %
SEED_OTHERS_WORST = (39.0, 19_000.0)  #: the seed's other ways of splitting, worst, % (range)
PACE_NS = 50_000.0  #: model time between two main-phase accesses, ns

FIXED = tuple(range(100, 1000, 100))  #: the fixed splits, anon's share in permille
ADAPTIVE = ("curves", "gradient", "scores")  #: CAST's ``split_mode``\s
#: every method, in the table's order: ``fixed-100`` .. ``fixed-900``, then the split modes
METHODS = tuple(f"fixed-{p}" for p in FIXED) + ADAPTIVE

Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[tuple[int, Any]]]


def method_params(method: str) -> dict[str, Any]:
    """CAST's parameters for a method: ``fixed-300`` -> ``{"split_permille": 300}``, ``scores`` ->
    ``{"split_mode": "scores"}``.

    Raises
    ------
    ValueError
        For a name not in :data:`METHODS`.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    if method.startswith("fixed-"):
        return {"split_permille": int(method.removeprefix("fixed-"))}
    return {"split_mode": method}


def condition_workload(cond: dict[str, Any], pace_ns: float = PACE_NS) -> str:
    """The condition as ``pagesim run`` text, e.g. ``mix?file_pattern=zipf&anon_pattern=loop&...``."""
    keys = ("file_pattern", "anon_pattern", "anon_accesses", "anon_share", "file_factor", "accesses", "seed")
    items = [f"{k}={cond[k]}" for k in keys] + [f"pace_ns={pace_ns:g}"]
    return "mix?" + "&".join(items)


def condition_label(cond: dict[str, Any]) -> str:
    """``file/anon/share``: e.g. ``zipf/loop/0.3``."""
    return f"{cond['file_pattern']}/{cond['anon_pattern']}/{cond['anon_accesses']}"


@functools.lru_cache(maxsize=2)
def _trace(items: tuple[tuple[str, Any], ...], memory: int, pace_ns: float) -> Any:
    """A condition's trace, kept for the next method of the same condition in this process."""
    return mix(memory_pages=memory, pace_ns=pace_ns, **dict(items))


def run_method(job: tuple[dict[str, Any], str, int, str, float]) -> float:
    """One run: ``(condition, method, memory pages, swap device, pace_ns)`` -> its cost, ns.

    The node is what ``pagesim run`` gives the workload (``KernelConfig`` defaults, swap as
    large as memory); CAST gets :func:`method_params`.
    """
    cond, method, memory, swap, pace_ns = job
    trace = _trace(tuple(sorted(cond.items())), memory, pace_ns)
    cfg = KernelConfig(memory_pages=memory, swap=swap)
    r = simulate_kernel(trace, CAST(**method_params(method)), cfg)
    return float(r.node["total_ns"])


def _serial(function: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
    for i, item in enumerate(items):
        yield i, function(item)


@dataclass
class SplitStudy:
    """Each method's cost on each condition.

    Attributes
    ----------
    conditions : list of dict
        :func:`mix_study_conditions` entries run, in order.
    index : list of int
        Each condition's number among the 90.
    costs : dict of str to list of float
        Method -> its cost (ns of the tasks' model time) per condition.
    params : dict
        ``accesses``, ``memory_pages``, ``swap``, ``pace_ns``: to repeat the run.
    """

    conditions: list[dict[str, Any]]
    index: list[int]
    costs: dict[str, list[float]]
    params: dict[str, Any] = field(default_factory=dict)

    def best_fixed(self, i: int) -> str:
        """The fixed split with the lowest cost on condition ``i`` (position in :attr:`conditions`)."""
        return min((m for m in METHODS if m.startswith("fixed-")), key=lambda m: self.costs[m][i])

    def relative(self, method: str) -> list[float]:
        """``cost / best fixed cost - 1`` per condition, %."""
        out = []
        for i in range(len(self.conditions)):
            best = self.costs[self.best_fixed(i)][i]
            out.append(100.0 * (self.costs[method][i] / best - 1.0) if best > 0 else 0.0)
        return out

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per method: ``mean``, ``worst`` and ``best`` (%), and the conditions (numbers) of the
        worst and best."""
        out: dict[str, dict[str, Any]] = {}
        for m in METHODS:
            rel = self.relative(m)
            worst = max(range(len(rel)), key=lambda i: rel[i])
            best = min(range(len(rel)), key=lambda i: rel[i])
            out[m] = {
                "mean": statistics.fmean(rel),
                "worst": rel[worst],
                "worst_at": self.index[worst],
                "best": rel[best],
                "best_at": self.index[best],
            }
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable: parameters, conditions (number, label, workload), costs, summary."""
        pace = float(self.params.get("pace_ns", PACE_NS))
        return {
            "params": self.params,
            "conditions": [
                {"index": k, "label": condition_label(c), "workload": condition_workload(c, pace)}
                for k, c in zip(self.index, self.conditions)
            ],
            "costs_ns": self.costs,
            "relative_pct": {m: self.relative(m) for m in METHODS},
            "summary": self.summary(),
            "seed": {"mean": SEED_MEAN, "worst": SEED_WORST, "others_worst": list(SEED_OTHERS_WORST)},
        }


def cast_split_experiment(
    scale: float = 1.0,
    conditions: slice | None = None,
    swap: str = "zram",
    pace_ns: float = PACE_NS,
    memory_pages: int = SCALED_MEMORY_PAGES,
    mapper: Mapper | None = None,
    progress: Callable[[str], None] | None = None,
) -> SplitStudy:
    """Run every method of :data:`METHODS` on each condition; see the module docstring.

    Parameters
    ----------
    scale : float
        Of the seed's 2,000,000 accesses per condition, in (0, 1].
    conditions : slice, optional
        Which of the 90 (default all), e.g. ``slice(0, 90, 10)``.
    swap : str
        The swap device (default ``zram``, the seed's).
    pace_ns : float
        Model time between two main-phase accesses, ns (> 0).
    memory_pages : int
        The node's memory (default the scaled 32,768-page node).
    mapper : callable, optional
        ``mapper(function, items)`` yielding ``(index, result)`` in any order (a process pool:
        ``pagesim.sweep.local.LocalExecutor.imap``); default one run after another here.
    progress : callable, optional
        Called with a line of text as each condition completes.

    Raises
    ------
    ValueError
        For a scale outside (0, 1], a pace not above 0, or no condition selected.
    """
    if not 0 < scale <= 1:
        raise ValueError(f"scale must be within (0, 1], got {scale}")
    if pace_ns <= 0:
        raise ValueError(f"pace_ns must be above 0, got {pace_ns}")
    accesses = max(1000, round(SEED_ACCESSES * scale))
    every = list(enumerate(mix_study_conditions(accesses=accesses)))
    chosen = every[conditions] if conditions is not None else every
    if not chosen:
        raise ValueError("no condition selected")
    jobs = [(c, m, memory_pages, swap, pace_ns) for _, c in chosen for m in METHODS]
    costs: dict[str, list[float]] = {m: [0.0] * len(chosen) for m in METHODS}
    left = [len(METHODS)] * len(chosen)
    for j, cost in (mapper or _serial)(run_method, jobs):
        if isinstance(cost, BaseException):
            where = chosen[j // len(METHODS)][0]
            raise RuntimeError(f"cast-split: {jobs[j][1]} on condition {where}") from cost
        i = j // len(METHODS)
        costs[METHODS[j % len(METHODS)]][i] = float(cost)
        left[i] -= 1
        if left[i] == 0 and progress is not None:
            progress(f"condition {chosen[i][0]} ({condition_label(chosen[i][1])}): {len(METHODS)} runs done")
    params = {"accesses": accesses, "memory_pages": memory_pages, "swap": swap, "pace_ns": pace_ns}
    return SplitStudy([c for _, c in chosen], [k for k, _ in chosen], costs, params)
