"""``mrc``: miss-ratio curves of several policies on one trace, as a tidy table; their check.

Methods (see the modules for sources and errors):

``exact``
    One pass for a stack algorithm (:data:`~pagesim.analysis.mrc.stack.STACK_POLICIES`: LRU by
    stack distances, OPT by Mattson's priority stack); equal to per-size simulation.
``shards``
    LRU only: SHARDS on a hashed sample of the pages, fixed rate (``rate``) or fixed size
    (``samples``).
``minisim``
    Any policy: the real engine on a hashed sample of the pages with caches scaled by the rate.
``auto`` (default)
    ``exact`` for stack algorithms, ``minisim`` for the others.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pagesim.analysis.compare import compare, compile_in_parallel, resolve_size
from pagesim.analysis.mrc.minisim import MIN_SAMPLED_CAPACITY, SMALL_CHOICES, Sample, minisim, sample_trace
from pagesim.analysis.mrc.shards import shards_fixed_rate, shards_fixed_size
from pagesim.analysis.mrc.stack import STACK_POLICIES, exact_misses
from pagesim.policies.base import Policy
from pagesim.policies.registry import UnknownPolicyError, instantiate, policy_class
from pagesim.trace import Trace

__all__ = ["COLUMNS", "DEFAULT_RATE", "METHODS", "check_mrc", "method_for", "mrc", "stack_name"]

#: Methods ``mrc`` takes.
METHODS = ("auto", "exact", "shards", "minisim")
#: Sampling rate of ``shards`` when neither ``rate`` nor ``samples`` is given (and the lowest
#: rate ``minisim`` picks by itself).
DEFAULT_RATE = 0.01
#: Columns of the table ``mrc`` returns.
COLUMNS = ("trace", "policy", "params", "size_pages", "misses", "requests", "miss_ratio", "method", "rate")


def _instance(policy: str | type[Policy] | Policy) -> Policy:
    """A fresh instance; a constructor that raises in its own file is a PolicySetupError."""
    if isinstance(policy, Policy):
        return instantiate(type(policy), **policy.values)
    if isinstance(policy, type):
        return instantiate(policy)
    return instantiate(policy_class(policy))


def _pages(size: int | str, trace: Trace) -> int:
    """A size in pages: an integer as is, text as :func:`resolve_size` reads it (``"10%"``)."""
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        return int(size)
    return resolve_size(str(size), trace)


def stack_name(policy: Policy) -> str | None:
    """The registry name of ``policy`` if it is one of the stack algorithms with default parameters."""
    name = getattr(policy, "name", None)
    if name not in STACK_POLICIES or policy.values != policy.params:
        return None
    try:
        return name if policy_class(name) is type(policy) else None
    except UnknownPolicyError:
        return None


def method_for(policy: Policy, method: str) -> str:
    """The method ``policy`` runs with under ``method``; ValueError (one line) if it cannot."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known methods: {', '.join(METHODS)}")
    stack = stack_name(policy)
    label = policy.label()
    if method == "auto":
        return "exact" if stack else "minisim"
    if method == "exact" and stack is None:
        raise ValueError(
            f"{label} is not a stack algorithm, so it has no exact one-pass curve; exact works for "
            f"{', '.join(sorted(STACK_POLICIES))}; use --method minisim for {label}"
        )
    if method == "shards" and stack != "lru":
        raise ValueError(
            f"SHARDS models LRU only, not {label}; use --method minisim (any policy) or exact "
            f"({', '.join(sorted(STACK_POLICIES))})"
        )
    return method


def _minisim_sample(
    trace: Trace, sizes: Sequence[int], rate: float | None, samples: int | None, seed: int, warmup: int
) -> Sample:
    if rate is None and samples is None:
        # enough pages that the smallest size's miniature holds MIN_SAMPLED_CAPACITY pages
        rate = min(1.0, max(DEFAULT_RATE, MIN_SAMPLED_CAPACITY / max(min(sizes), 1)))
    return sample_trace(trace, rate=rate, samples=samples, seed=seed, warmup=warmup)


def mrc(
    trace: Trace,
    policies: Sequence[str | type[Policy] | Policy],
    sizes: Sequence[int | str],
    *,
    method: str = "auto",
    rate: float | None = None,
    samples: int | None = None,
    seed: int = 0,
    warmup: int = 0,
    small: str = "denser",
    progress: Callable[[int, int], None] | None = None,
    parallel_compile: bool = False,
    on_stage: Callable[[str, str], None] | None = None,
) -> pd.DataFrame:
    """Miss-ratio curves: every policy at every size, by one method.

    Parameters
    ----------
    trace : Trace
        One cgroup, page units.
    policies : sequence of str, Policy subclasses or instances
        Registry names, ``path/file.py:Class`` specs, classes or configured instances.
    sizes : sequence of int or str
        Cache sizes in pages, each >= 1: counts (``5000``, ``"5000"``) or percentages of the
        trace's unique pages (``"10%"``), as :func:`pagesim.analysis.compare.resolve_size`
        reads them (a percentage rounds to the nearest page, at least 1).
    method : {"auto", "exact", "shards", "minisim"}
    rate : float, optional
        Sampling rate in (0, 1] (shards, minisim). Default: shards 0.01; minisim the larger of
        0.01 and ``MIN_SAMPLED_CAPACITY / min(sizes)`` (capped at 1).
    samples : int, optional
        Instead of ``rate``: fixed-size sampling (shards: pages tracked at once; minisim: pages
        kept).
    seed : int
        Hash seed of the sample.
    warmup : int
        Accesses that fill the cache uncounted.
    small : {"denser", "full", "refuse"}
        minisim: a size c whose miniature is below ``MIN_SAMPLED_CAPACITY`` (M) pages runs on a
        denser sample at rate M / c (in full when c <= M), is simulated in full, or is refused.
    progress : callable ``(done, total)``, optional
        Over minisim's runs, per policy.
    parallel_compile : bool
        Compile the runners of the minisim policies not cached yet first, in parallel processes
        (:func:`pagesim.analysis.compare.compile_in_parallel`). Off by default, as in
        :func:`~pagesim.analysis.compare.compare` (spawned processes re-import the calling
        script); the ``pagesim`` command turns it on.
    on_stage : callable ``(stage, label)``, optional
        Called with ``("compile", "fifo, arc")`` before the runners compile in parallel.

    Returns
    -------
    pandas.DataFrame
        One row per (policy, size), policies in the order given, sizes ascending (repeats
        dropped), columns :data:`COLUMNS`: ``misses``
        (int64; an estimate rounded for sampled methods), ``requests`` (counted accesses of the
        full trace), ``miss_ratio`` (float64), ``method`` ("exact", "shards", "minisim" or
        "full" for a size minisim simulated in full), ``rate`` (the sampling rate of that size:
        minisim's may be above the curve's for small sizes; 1.0 when not sampled).
        ``attrs["runs"]`` maps each policy label to what its curve came from: ``method``,
        ``rate``, ``samples``, ``sampled_requests`` (of the base sample), ``seconds`` (and for
        minisim ``min_sampled_capacity`` and ``small``); ``attrs["seed"]``,
        ``attrs["warmup"]``.

    Raises
    ------
    ValueError
        For an unknown method, a method the policy cannot use (the message names what works),
        a size < 1 or that is neither a count nor a percentage, a bad rate or sample count, an
        unknown ``small``, minisim sizes below the minimum with ``small="refuse"``, and as
        :func:`~pagesim.analysis.mrc.stack.exact_misses`.
    UnknownPolicyError
        For an unknown policy name.
    pagesim.policies.registry.PolicySetupError
        If a policy's constructor raises (a ValueError naming the policy, file and line).
    """
    caps = sorted({_pages(s, trace) for s in sizes})
    if not caps or min(caps) < 1:
        raise ValueError(f"sizes must be >= 1 page, got {list(sizes)}")
    if rate is not None and samples is not None:
        raise ValueError("give a sampling rate or a sample size, not both")
    if rate is not None and not 0 < rate <= 1:
        raise ValueError(f"sampling rate must be in (0, 1], got {rate}")
    if samples is not None and samples < 1:
        raise ValueError(f"sample size must be >= 1, got {samples}")
    if small not in SMALL_CHOICES:
        raise ValueError(f"unknown choice for small sizes {small!r}; known: {', '.join(SMALL_CHOICES)}")
    if trace.cgroup is not None and trace.n_requests and int(trace.cgroup.max()) > 0:
        raise ValueError(
            "miss-ratio curves need a trace with one cgroup (each cgroup is its own cache); "
            "use pagesim compare for traces with cgroups"
        )
    insts = [_instance(p) for p in policies]
    chosen = [method_for(p, method) for p in insts]
    if parallel_compile:
        compile_in_parallel([type(p) for p, how in zip(insts, chosen) if how == "minisim"], on_stage)
    requests = max(trace.n_requests - warmup, 0)
    rows: list[dict[str, Any]] = []
    runs: dict[str, dict[str, Any]] = {}
    sample: Sample | None = None
    denser: dict[int, Sample] = {}  # minisim's denser samples for small sizes, shared by the policies
    for policy, how in zip(insts, chosen):
        label = policy.label()
        start = time.perf_counter()
        if how == "exact":
            exact = exact_misses(trace, stack_name(policy) or "", caps, warmup)
            ratios = exact / requests if requests else np.zeros(len(caps))
            methods, r, sampled = ["exact"] * len(caps), 1.0, requests
        elif how == "shards":
            if samples is not None:
                est = shards_fixed_size(trace, caps, samples, seed, warmup)
            else:
                est = shards_fixed_rate(trace, caps, rate or DEFAULT_RATE, seed, warmup)
            ratios, methods, r, sampled = (
                est.miss_ratio,
                ["shards"] * len(caps),
                est.rate,
                est.sampled_requests,
            )
        else:
            if sample is None:
                sample = _minisim_sample(trace, caps, rate, samples, seed, warmup)
            run = minisim(trace, sample, policy, caps, small=small, denser=denser, progress=progress)
            ratios, methods, r, size_rates = run.miss_ratio, run.method, sample.rate, run.rate
            sampled = sample.trace.n_requests - sample.warmup  # of the base sample
        if how != "minisim":
            size_rates = np.full(len(caps), r)
        runs[label] = {
            "method": how,
            "rate": r,
            "samples": samples,
            "sampled_requests": int(sampled),
            "seconds": time.perf_counter() - start,
        }
        if how == "minisim":
            runs[label]["min_sampled_capacity"] = MIN_SAMPLED_CAPACITY
            runs[label]["small"] = small
        for i, (size, ratio, m) in enumerate(zip(caps, ratios, methods)):
            rows.append(
                {
                    "trace": str(trace.source.get("path", "")),
                    "policy": label,
                    "params": json.dumps(policy.values, sort_keys=True, default=str),
                    "size_pages": size,
                    "misses": int(exact[i]) if how == "exact" else int(round(float(ratio) * requests)),
                    "requests": requests,
                    "miss_ratio": float(ratio),
                    "method": m,
                    "rate": float(size_rates[i]),
                }
            )
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    table["misses"] = table["misses"].astype(np.int64)
    table.attrs.update({"runs": runs, "seed": seed, "warmup": warmup})
    return table


def check_sizes(sizes: Sequence[int], count: int = 5) -> list[int]:
    """Up to ``count`` of ``sizes``, evenly spread from the smallest to the largest."""
    ordered = sorted(set(int(s) for s in sizes))
    if len(ordered) <= count:
        return ordered
    picks = np.linspace(0, len(ordered) - 1, count).round().astype(int)
    return [ordered[i] for i in sorted(set(picks.tolist()))]


def check_mrc(
    trace: Trace,
    curve: pd.DataFrame,
    policies: Sequence[str | type[Policy] | Policy],
    *,
    count: int = 5,
    warmup: int = 0,
) -> dict[str, dict[str, Any]]:
    """The error of each curve against exact results.

    A sampled curve of a stack algorithm is compared with its exact curve at every size; any
    other curve (an exact one included, to show it equals simulation) with full simulation by
    :func:`pagesim.analysis.compare.compare` at up to ``count`` sizes.

    Returns
    -------
    dict
        Per policy label: ``against`` ("exact" or "simulation"), ``sizes``, ``reference``
        (exact miss ratios there), ``mae`` and ``max_abs_error`` (of the miss ratio, a fraction).
    """
    out: dict[str, dict[str, Any]] = {}
    requests = max(trace.n_requests - warmup, 0)
    for given in policies:
        policy = _instance(given)
        label = policy.label()
        rows = curve[curve["policy"] == label]
        if rows.empty:
            continue
        stack = stack_name(policy)
        sampled = not (rows["method"] == "exact").all()
        if stack and sampled:
            sizes = [int(s) for s in rows["size_pages"]]
            ref = exact_misses(trace, stack, sizes, warmup) / max(requests, 1)
            against = "exact"
        else:
            sizes = check_sizes(rows["size_pages"], count)
            results = compare(trace, [policy], sizes, warmup=warmup, baseline=False)
            ref = np.array([r.miss_ratio for r in results])
            against = "simulation"
        est = rows.set_index("size_pages").loc[sizes, "miss_ratio"].to_numpy()
        err = np.abs(est - ref)
        out[label] = {
            "against": against,
            "sizes": sizes,
            "reference": ref.tolist(),
            "mae": float(err.mean()) if err.size else 0.0,
            "max_abs_error": float(err.max()) if err.size else 0.0,
        }
    return out
