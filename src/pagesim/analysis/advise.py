"""``advise``: which policy (and parameters) to run on this trace at this cache size.

Method
    Every candidate policy is run by the engine on a spatially sampled trace with a cache of
    ``c * R`` pages (miniature simulation: Waldspurger, Saemundsson, Ahmad, Park, USENIX ATC'17;
    :mod:`pagesim.analysis.mrc.minisim`), once per hash seed ``0 .. K-1``. Each candidate's
    expected miss ratio is the mean over the K samples, its spread their standard deviation.
    The candidate with the lowest mean is advised.
Confidence
    The samples are paired: on each seed every candidate sees the same sampled pages. For the
    best and each other candidate, the per-seed differences ``d_k = other_k - best_k`` get a
    paired two-sided t-test (K - 1 degrees of freedom; Student's t distribution by the closed
    forms of Abramowitz and Stegun 26.7.3-4). A candidate with ``p >= alpha`` (0.05) is tied
    with the best; if any is, there is no clear winner and the tied set is listed. The share of
    seeds on which the best beats the runner-up is reported beside it. Differences that are 0 on
    every seed (two policies that are the same rule) are a tie; differences of one sign and
    no spread are not.
Rate
    By default ``R = max(0.01, min_pages / c)`` with ``min_pages`` = :data:`MIN_PAGES` (400),
    four times :data:`~pagesim.analysis.mrc.MIN_SAMPLED_CAPACITY` (100): choosing between
    policies a few thousandths apart needs less error than a curve. A size of at most 100
    pages, or one whose K samples would together hold at least as many accesses as the trace
    (``K * R >= 1``), is simulated in full instead: exact, once, no seeds (``method="full"``).
    A given ``rate`` or ``samples`` whose miniature would be under 100 pages is refused.
Time-scaled parameters
    A parameter counted in accesses (LRFU's decay ``lam`` per access, ``half_life``) is scaled
    for the miniature, whose trace holds about R times the accesses: ``lam / R``,
    ``half_life * R`` (:data:`ACCESS_TIME_PARAMS`).
Limits
    A miniature's bias is not a seed's noise: the test sees only the latter. W-TinyLFU's
    miniatures under-estimate its miss ratio on OLTP by about 0.015 at R 0.05 (docs/mrc.md), so
    it can be advised where it is not best; CAST's do not track its full runs at all (see
    :data:`NOT_CANDIDATES`). Candidates within about 0.01 of each other may swap places.
Measured
    bench/advise.py: on every real trace of ../shared/traces at 1 %, 5 % and 10 % of its
    pages (45 cases), the advice is within 0.01 of the true best in all 45 (docs/auto.md).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pagesim.analysis.compare import compare, compile_in_parallel
from pagesim.analysis.mrc import MIN_SAMPLED_CAPACITY
from pagesim.analysis.mrc.minisim import Sample, minisim, sample_trace
from pagesim.engine import PolicyError
from pagesim.policies.base import Policy
from pagesim.policies.registry import BUILTIN, instantiate, policy_class
from pagesim.trace import Trace

__all__ = [
    "ACCESS_TIME_PARAMS",
    "ALPHA",
    "DEFAULT_SEEDS",
    "MIN_PAGES",
    "NOT_CANDIDATES",
    "PARAM_GRID",
    "TOLERANCE",
    "Advice",
    "advise",
    "all_candidates",
    "candidates",
    "paired_t_pvalue",
]

#: Parameter values tried with ``params=True``: policy name -> {parameter: values}. The
#: policy's default is always among them; policies not named here run with their defaults.
PARAM_GRID: dict[str, dict[str, list[Any]]] = {
    "s3fifo": {"small_ratio": [0.01, 0.05, 0.1, 0.2, 0.3]},
    "2q": {"kin": [0.1, 0.25, 0.5]},
    "w-tinylfu": {"window": [0.01, 0.1, 0.2]},
    "lirs": {"hir_share": [0.01, 0.05, 0.1]},
    "lrfu": {"lam": [0.0001, 0.001, 0.01, 0.1]},
    "slru": {"protected": [0.5, 0.8, 0.9]},
}
#: Parameters counted in accesses: name -> {parameter: power of R it is multiplied by in a
#: miniature} (its trace has about R times the accesses).
ACCESS_TIME_PARAMS: dict[str, dict[str, int]] = {"lrfu": {"lam": -1, "half_life": 1}}
#: Built-in policies ``"all"`` leaves out besides the clairvoyant ones (``needs_next_access``:
#: ``opt``, ``opt-bypass``, bounds rather than choices): the kernel's reclaim models (``pagesim
#: compare --mode kernel``'s defaults), whose cache-mode runs are a reduction of their
#: kernel-mode model. CAST's miniatures do not track its full runs either: on OLTP at 5 % of
#: the pages (full 0.403) its miniatures gave 0.369-0.419 at rates 0.02-0.4 (three seeds
#: each), with no trend toward the full value as the rate grows. Name them to advise among
#: them anyway. ``auto`` is left out too: it chooses among the others at run time.
NOT_CANDIDATES = ("linux-lru", "mglru", "cast", "auto")
#: Seeds of the spatial sample by default.
DEFAULT_SEEDS = 5
#: Significance level of the paired test below which the best is a clear winner.
ALPHA = 0.05
#: The accuracy the advice is judged by: within this much (miss ratio) of the true best.
TOLERANCE = 0.01
#: Lowest default sampling rate.
DEFAULT_RATE = 0.01
#: Smallest miniature cache by default, in pages (above minisim's minimum: see the module docstring).
MIN_PAGES = 400


@dataclass
class Advice:
    """What :func:`advise` found.

    ``table`` has one row per candidate, best first: ``policy`` (label), ``name`` (registry
    name), ``params`` (JSON of its values), ``miss_ratio`` (mean over the seeds, float64),
    ``std`` (over the seeds; 0 in full), ``per_seed`` (list of float), ``p_value`` (paired test
    against the best; NaN for the best and in full), ``tied`` (bool: not distinguishable from
    the best), ``seconds`` (its miniature runs, wall time) and, after a check,
    ``true_miss_ratio`` and ``full_seconds``.
    """

    trace: str
    size_pages: int
    method: str  #: "minisim" or "full"
    rate: float  #: sampling rate (1.0 in full)
    seeds: list[int]
    table: pd.DataFrame
    best: str
    runner_up: str | None
    margin: float  #: runner-up's mean minus the best's (miss ratio)
    win_share: float  #: share of seeds on which the best beat the runner-up (1.0 in full if margin > 0)
    p_value: float  #: paired test best vs runner-up (NaN in full)
    clear: bool
    tied: list[str]  #: the best and every candidate tied with it
    seconds: float  #: wall time of the advice (samples and miniatures, compile included)
    full_seconds_estimate: float  #: every candidate simulated in full, extrapolated from the miniatures
    note: str = ""
    skipped: dict[str, str] = field(default_factory=dict)
    full_seconds: float | None = None  #: measured by ``check``
    true_best: str | None = None
    gap: float | None = None  #: advised policy's true miss ratio minus the true best's
    within: bool | None = None  #: gap <= TOLERANCE

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the fields, ``table`` as a list of rows."""
        out = {k: v for k, v in self.__dict__.items() if k != "table"}
        out["table"] = json.loads(self.table.to_json(orient="records"))
        return out


def all_candidates() -> list[str]:
    """Built-in policy names ``"all"`` stands for: every one that does not need the future
    (``needs_next_access``) and is not in :data:`NOT_CANDIDATES`, in registry order."""
    return [n for n in BUILTIN if n not in NOT_CANDIDATES and not policy_class(n).needs_next_access]


def candidates(policies: str | Sequence[str | Policy], params: bool = False) -> list[Policy]:
    """Policy instances to advise among.

    Parameters
    ----------
    policies : "all" or sequence of str or Policy
        ``"all"``: :func:`all_candidates`. Else registry names,
        ``path/file.py:Class`` specs or configured instances.
    params : bool
        Expand each policy named in :data:`PARAM_GRID` over its grid (instances keep their
        other values).

    Returns
    -------
    list of Policy
        Distinct labels, in the order given (grid values in order).

    Raises
    ------
    UnknownPolicyError
        For an unknown name (the message lists the known ones).
    ValueError
        For an empty list.
    pagesim.policies.registry.PolicySetupError
        If a policy's constructor raises (a ValueError naming the policy, file and line).
    """
    if isinstance(policies, str):
        names: list[str | Policy] = (
            all_candidates()
            if policies.strip().lower() == "all"
            else [p.strip() for p in policies.split(",") if p.strip()]
        )
    else:
        names = list(policies)
    if not names:
        raise ValueError("no policy to advise among: name at least one, or 'all'")
    out: dict[str, Policy] = {}
    for given in names:
        base = given if isinstance(given, Policy) else instantiate(policy_class(given))
        for inst in _grid(base) if params else [base]:
            out.setdefault(inst.label(), inst)
    return list(out.values())


def _grid(policy: Policy) -> list[Policy]:
    grid = PARAM_GRID.get(policy.policy_name(), {})
    combos: list[dict[str, Any]] = [{}]
    for key, values in grid.items():
        combos = [{**c, key: v} for c in combos for v in values]
    return [type(policy)(**{**policy.values, **c}) for c in combos]


def paired_t_pvalue(diffs: Sequence[float]) -> float:
    """Two-sided p-value of a paired t-test that the mean of ``diffs`` is 0.

    ``t = mean / (sd / sqrt(K))`` with K - 1 degrees of freedom (sd with ddof 1); the tail of
    Student's t by the finite series of Abramowitz and Stegun 26.7.3 (odd) and 26.7.4 (even
    degrees of freedom). All zero: 1.0. No spread but a non-zero mean: 0.0.

    Raises
    ------
    ValueError
        With fewer than 2 differences.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.size < 2:
        raise ValueError("a paired test needs at least 2 seeds")
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd <= 1e-15 * max(1.0, abs(mean)):
        return 1.0 if abs(mean) <= 1e-15 else 0.0
    t = abs(mean) / (sd / math.sqrt(d.size))
    return 1.0 - _t_central(t, d.size - 1)


def _t_central(t: float, nu: int) -> float:
    """P(|T| < t) for Student's t with ``nu`` degrees of freedom (A&S 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(nu))
    s, c = math.sin(theta), math.cos(theta)
    if nu % 2 == 1:
        series, term = 0.0, c
        for k in range(1, (nu - 1) // 2 + 1):
            if k > 1:
                term *= c * c * (2 * k - 2) / (2 * k - 1)
            series += term
        return 2.0 / math.pi * (theta + s * series) if nu > 1 else 2.0 * theta / math.pi
    series, term = 1.0, 1.0
    for k in range(1, nu // 2):
        term *= c * c * (2 * k - 1) / (2 * k)
        series += term
    return s * series


def _miniature_policy(policy: Policy, rate: float) -> Policy:
    """``policy`` with its access-counted parameters scaled to a trace R times as long."""
    scaled = ACCESS_TIME_PARAMS.get(policy.policy_name(), {})
    values = dict(policy.values)
    for key, power in scaled.items():
        if values.get(key) is not None:
            values[key] = float(values[key]) * rate**power
    return type(policy)(**values)


def _plan(
    trace: Trace, size: int, seeds: int, rate: float | None, samples: int | None, min_pages: int
) -> tuple[str, float | None, str]:
    """("minisim", rate or None for samples, note) or ("full", None, why)."""
    if rate is not None and samples is not None:
        raise ValueError("give a sampling rate or a sample size, not both")
    if rate is not None and not 0 < rate <= 1:
        raise ValueError(f"sampling rate must be in (0, 1], got {rate}")
    if samples is not None and samples < 1:
        raise ValueError(f"sample size must be >= 1, got {samples}")
    if size <= MIN_SAMPLED_CAPACITY:
        why = f"size {size:,} <= {MIN_SAMPLED_CAPACITY} pages, the smallest miniature: simulated in full"
        return "full", None, why
    given = rate if rate is not None else (samples / trace.n_pages if samples is not None else None)
    if given is not None:
        if given < 1 and round(size * given) < MIN_SAMPLED_CAPACITY:
            raise ValueError(
                f"a miniature of size {size:,} at rate {given:.4g} holds {round(size * given)} pages, under "
                f"the minimum of {MIN_SAMPLED_CAPACITY}: use a rate >= {MIN_SAMPLED_CAPACITY / size:.4g} "
                f"(or --samples >= {math.ceil(MIN_SAMPLED_CAPACITY / size * trace.n_pages):,})"
            )
        if given >= 1:
            return "full", None, "the sample holds every page: simulated in full"
        return "minisim", rate, ""
    chosen = max(DEFAULT_RATE, min_pages / size)
    if chosen >= 1:
        return "full", None, f"a {min_pages}-page miniature needs every page at this size: simulated in full"
    if chosen * seeds >= 1:
        return (
            "full",
            None,
            f"{seeds} samples at rate {chosen:.3g} (a {min_pages}-page miniature) would hold "
            f"as many accesses as the trace: simulated in full",
        )
    return "minisim", chosen, ""


def advise(
    trace: Trace,
    size: int,
    policies: str | Sequence[str | Policy] = "all",
    *,
    params: bool = False,
    seeds: int = DEFAULT_SEEDS,
    rate: float | None = None,
    samples: int | None = None,
    warmup: int = 0,
    check: bool = False,
    alpha: float = ALPHA,
    min_pages: int = MIN_PAGES,
    progress: Callable[[int, int], None] | None = None,
    parallel_compile: bool = False,
    on_stage: Callable[[str, str], None] | None = None,
) -> Advice:
    """Advise a policy for ``trace`` at a cache of ``size`` pages (see the module docstring).

    Parameters
    ----------
    trace : Trace
        One cgroup, page units.
    size : int
        Cache size in pages, >= 1.
    policies : "all" or sequence
        As :func:`candidates`; with ``"all"`` a policy whose cache-mode run is refused
        (ValueError or PolicyError) is skipped and named in ``skipped``.
    params : bool
        Try each policy of :data:`PARAM_GRID` at every grid point.
    seeds : int
        K >= 2 hash seeds (0 .. K-1) of the spatial sample.
    rate, samples : optional
        The sample: a share of the pages, or a number of pages (not both). Default: see the
        module docstring.
    warmup : int
        Accesses of the full trace that fill the cache uncounted.
    check : bool
        Also simulate every candidate in full: ``true_miss_ratio``, ``full_seconds``,
        ``true_best``, ``gap``, ``within``.
    alpha : float
        Level of the paired test.
    min_pages : int
        Smallest miniature (pages) of the default rate, >= ``MIN_SAMPLED_CAPACITY``.
    progress : callable ``(done, total)``, optional
        Over the runs (one per candidate and seed).
    parallel_compile : bool
        Compile the candidates' runners not cached yet first, in parallel processes
        (:func:`pagesim.analysis.compare.compile_in_parallel`). Off by default, as in
        :func:`~pagesim.analysis.compare.compare` (spawned processes re-import the calling
        script); the ``pagesim`` command turns it on.
    on_stage : callable ``(stage, label)``, optional
        Called with ``("compile", "fifo, arc")`` before the runners compile in parallel.

    Returns
    -------
    Advice

    Raises
    ------
    ValueError
        For a size < 1, seeds < 2, a bad rate or sample size, a miniature under the minimum
        for a given rate, a trace with several cgroups, an empty trace or candidate list.
    UnknownPolicyError
        For an unknown policy name.
    pagesim.engine.PolicyError
        If a named candidate's hook raises.
    """
    start = time.perf_counter()
    size = int(size)
    if size < 1:
        raise ValueError(f"size must be >= 1 page, got {size}")
    if min_pages < MIN_SAMPLED_CAPACITY:
        raise ValueError(f"min_pages must be >= {MIN_SAMPLED_CAPACITY}, got {min_pages}")
    if seeds < 2:
        raise ValueError(f"seeds must be >= 2 (the confidence compares samples), got {seeds}")
    if trace.n_requests == 0:
        raise ValueError("empty trace: nothing to advise on")
    if trace.cgroup is not None and int(trace.cgroup.max()) > 0:
        raise ValueError("advise needs a trace with one cgroup (each cgroup is its own cache)")
    insts = candidates(policies, params)
    skip_refused = isinstance(policies, str) and policies.strip().lower() == "all"
    method, chosen_rate, note = _plan(trace, size, seeds, rate, samples, min_pages)
    if parallel_compile:
        compile_in_parallel([type(p) for p in insts], on_stage)
    skipped: dict[str, str] = {}
    if method == "full":
        per_seed, secs, full_est = _full_runs(trace, insts, size, warmup, skip_refused, skipped, progress)
        used_seeds: list[int] = []
        used_rate = 1.0
    else:
        per_seed, secs, full_est, used_rate = _miniature_runs(
            trace, insts, size, seeds, chosen_rate, samples, warmup, skip_refused, skipped, progress
        )
        used_seeds = list(range(seeds))
    kept = [p for p in insts if p.label() in per_seed]
    if not kept:
        raise ValueError(f"every candidate was refused: {skipped}")
    table = _table(kept, per_seed, secs, method, alpha)
    advice = _advice(trace, size, method, used_rate, used_seeds, table, alpha)
    advice.note, advice.skipped = note, skipped
    advice.full_seconds_estimate = full_est
    advice.seconds = time.perf_counter() - start
    if check:
        _check(advice, trace, kept, warmup, per_seed if method == "full" else None)
    return advice


def _refused(exc: Exception, label: str, skip: bool, skipped: dict[str, str]) -> None:
    if not skip:
        raise exc
    skipped[label] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def _full_runs(
    trace: Trace,
    insts: list[Policy],
    size: int,
    warmup: int,
    skip: bool,
    skipped: dict[str, str],
    progress: Callable[[int, int], None] | None,
) -> tuple[dict[str, list[float]], dict[str, float], float]:
    per_seed: dict[str, list[float]] = {}
    secs: dict[str, float] = {}
    for i, policy in enumerate(insts):
        label = policy.label()
        t0 = time.perf_counter()
        try:
            (result,) = compare(trace, [policy], [size], warmup=warmup, baseline=False)
        except (ValueError, PolicyError) as exc:
            _refused(exc, label, skip, skipped)
            continue
        secs[label] = time.perf_counter() - t0
        per_seed[label] = [float(result.miss_ratio)]
        if progress:
            progress(i + 1, len(insts))
    return per_seed, secs, float(sum(secs.values()))


def _miniature_runs(
    trace: Trace,
    insts: list[Policy],
    size: int,
    seeds: int,
    rate: float | None,
    samples: int | None,
    warmup: int,
    skip: bool,
    skipped: dict[str, str],
    progress: Callable[[int, int], None] | None,
) -> tuple[dict[str, list[float]], dict[str, float], float, float]:
    per_seed: dict[str, list[float]] = {p.label(): [] for p in insts}
    secs: dict[str, float] = dict.fromkeys(per_seed, 0.0)
    per_access: dict[str, list[float]] = {k: [] for k in per_seed}
    total, done, used_rate = seeds * len(insts), 0, 1.0
    for seed in range(seeds):
        sample: Sample = sample_trace(trace, rate=rate, samples=samples, seed=seed, warmup=warmup)
        used_rate = sample.rate
        for policy in insts:
            label = policy.label()
            done += 1
            if label in skipped:
                continue
            t0 = time.perf_counter()
            try:
                run = minisim(trace, sample, _miniature_policy(policy, sample.rate), [size], small="refuse")
            except (ValueError, PolicyError) as exc:
                _refused(exc, label, skip, skipped)
                continue
            spent = time.perf_counter() - t0
            secs[label] += spent
            per_seed[label].append(float(run.miss_ratio[0]))
            per_access[label].append(spent / max(sample.trace.n_requests, 1))
            if progress:
                progress(done, total)
    for label in skipped:
        per_seed.pop(label, None)
        secs.pop(label, None)
        per_access.pop(label, None)
    # the median leaves out the first seed's compile (and load) time when K >= 3
    full_est = float(sum(np.median(v) * trace.n_requests for v in per_access.values() if v))
    return per_seed, secs, full_est, used_rate


def _table(
    insts: list[Policy], per_seed: dict[str, list[float]], secs: dict[str, float], method: str, alpha: float
) -> pd.DataFrame:
    rows = []
    for p in insts:
        label = p.label()
        values = np.array(per_seed[label])
        rows.append(
            {
                "policy": label,
                "name": p.policy_name(),
                "params": json.dumps(p.values, sort_keys=True, default=str),
                "miss_ratio": float(values.mean()),
                "std": float(values.std(ddof=1)) if values.size > 1 else 0.0,
                "per_seed": values.tolist(),
                "seconds": secs[label],
            }
        )
    table = pd.DataFrame(rows).sort_values("miss_ratio", kind="stable").reset_index(drop=True)
    best = np.array(table.loc[0, "per_seed"])
    pvals, tied = [], []
    for i, row in table.iterrows():
        if i == 0:
            pvals.append(float("nan"))
            tied.append(True)
            continue
        other = np.array(row["per_seed"])
        if method == "full":
            pvals.append(float("nan"))
            tied.append(bool(other[0] == best[0]))
        else:
            p = paired_t_pvalue(other - best)
            pvals.append(p)
            tied.append(p >= alpha)
    table["p_value"] = pvals
    table["tied"] = tied
    return table


def _advice(
    trace: Trace, size: int, method: str, rate: float, seeds: list[int], table: pd.DataFrame, alpha: float
) -> Advice:
    best = str(table.loc[0, "policy"])
    runner = str(table.loc[1, "policy"]) if len(table) > 1 else None
    if runner is None:
        margin, share, p = float("nan"), 1.0, float("nan")
    else:
        b, r = np.array(table.loc[0, "per_seed"]), np.array(table.loc[1, "per_seed"])
        margin = float(r.mean() - b.mean())
        share = float(np.mean(b < r))
        p = float(table.loc[1, "p_value"])
    tied = [str(x) for x in table.loc[table["tied"], "policy"]]
    return Advice(
        trace=str(trace.source.get("path", "")),
        size_pages=size,
        method=method,
        rate=rate,
        seeds=seeds,
        table=table,
        best=best,
        runner_up=runner,
        margin=margin,
        win_share=share,
        p_value=p,
        clear=len(tied) == 1,
        tied=tied,
        seconds=0.0,
        full_seconds_estimate=0.0,
    )


def _check(
    advice: Advice,
    trace: Trace,
    insts: list[Policy],
    warmup: int,
    exact: dict[str, list[float]] | None,
) -> None:
    """Full simulation of every candidate (reused when the advice already was one)."""
    table = advice.table
    if exact is not None:
        truth = {k: v[0] for k, v in exact.items()}
        full_secs = dict(zip(table["policy"], table["seconds"]))
    else:
        truth, full_secs = {}, {}
        for policy in insts:
            t0 = time.perf_counter()
            (result,) = compare(trace, [policy], [advice.size_pages], warmup=warmup, baseline=False)
            full_secs[policy.label()] = time.perf_counter() - t0
            truth[policy.label()] = float(result.miss_ratio)
    table["true_miss_ratio"] = [truth[p] for p in table["policy"]]
    table["full_seconds"] = [full_secs[p] for p in table["policy"]]
    advice.full_seconds = float(sum(full_secs.values()))
    advice.true_best = min(truth, key=lambda k: truth[k])
    advice.gap = truth[advice.best] - truth[advice.true_best]
    advice.within = advice.gap <= TOLERANCE
