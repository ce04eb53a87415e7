"""Miniature simulation: any policy's miss-ratio curve from a spatially sampled trace.

Source: Waldspurger, Saemundsson, Ahmad, Park, "Cache modeling and optimization using
miniature simulations", USENIX ATC'17.

The pages with ``hash(page) < R * P`` (the hash of :mod:`pagesim.analysis.mrc.shards`) are
kept with every access to them, and the real engine (:func:`pagesim.engine.simulate`) runs the
policy on that trace with a cache of ``round(c * R)`` pages for each size c: a miniature of
the whole cache, whose miss ratio estimates the full one. Any policy works (built-in or a
user's file), in page units and one cgroup.

Adjustment
    As SHARDS_adj (Waldspurger et al., FAST'15): the sampled misses are divided by the expected
    number of sampled accesses, ``R * N``, not by the number sampled, which a few popular pages
    in or out of the sample push up or down; measured on OLTP (LRU against exact, rates 0.1
    and 0.05, three seeds) this lowered the MAE in five cases of six.

Minimum sampled capacity
    A miniature cache of a few pages does not behave like the full cache (a policy's queues of
    10 % of the cache round to nothing; the few most popular pages decide it, Carra and Neglia,
    ATC'20): on a Zipf(1.0) trace of 10 M accesses at rate 0.01, miniatures of 76 pages erred
    by 0.005-0.025 for the eight policies of bench/mrc.py, of 38 pages by 0.02-0.03. A size c
    whose miniature at rate R would hold fewer than :data:`MIN_SAMPLED_CAPACITY` (M) pages is,
    by default (``small="denser"``), run on a denser sample: rate ``R_c = M / c`` (the hash
    threshold raised, so the denser sample holds every page of the base one), a miniature of M
    pages. One sampled trace
    is drawn per distinct rate and the sizes sharing it run side by side; a size of M pages or
    fewer has ``R_c >= 1`` and is simulated in full (``method="full"``). ``small="full"``
    simulates every such size in full instead, ``small="refuse"`` refuses them.
W-TinyLFU
    Its miniatures under-estimate the miss ratio on OLTP (mean error -0.013 to -0.017 over 10
    seeds at R 0.054, -0.007 to -0.009 at R 0.21), although every parameter it derives from
    the capacity scales; neither the sketch's geometry (power-of-two width, collisions,
    correlated rows) nor its halving period's scaling explains it. It grows with the frequency
    the counters accumulate (a longer halving period, a lower saturation) and nearly vanishes
    with ``sketch="cbf"`` or W = 2 x capacity. Not corrected (docs/mrc.md,
    bench/mrc_wtinylfu.py).

Fixed size (``samples=S``)
    The S pages with the smallest hashes (R = S / pages), so a small trace keeps enough pages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from pagesim.analysis.compare import compare
from pagesim.analysis.mrc.shards import HASH_SPACE, page_hashes, threshold_for
from pagesim.policies.base import Policy
from pagesim.trace import Trace

__all__ = ["MIN_SAMPLED_CAPACITY", "SMALL_CHOICES", "MiniRun", "minisim", "sample_trace"]

#: Smallest miniature cache, in pages: below it a size gets a denser sample (or runs in full, or is refused).
MIN_SAMPLED_CAPACITY = 100
#: What ``minisim`` does with a size whose miniature would be below the minimum.
SMALL_CHOICES = ("denser", "full", "refuse")


class Sample(NamedTuple):
    """A spatially sampled trace: the trace, its rate R, its warm-up in sampled accesses, the
    warm-up of the full trace it was drawn with (accesses) and the hash seed."""

    trace: Trace
    rate: float
    warmup: int
    full_warmup: int
    seed: int = 0


def sample_trace(
    trace: Trace, *, rate: float | None = None, samples: int | None = None, seed: int = 0, warmup: int = 0
) -> Sample:
    """The accesses to the pages whose hash falls under the threshold, as a new Trace.

    Parameters
    ----------
    trace : Trace
    rate : float, optional
        R in (0, 1]: pages with ``hash < R * 2**32``.
    samples : int, optional
        Instead of ``rate``: the ``samples`` pages with the smallest hashes (all if fewer);
        R = samples / pages.
    seed : int
        Hash seed.
    warmup : int
        Warm-up of the full trace, in accesses; returned as the sampled accesses before it.

    Returns
    -------
    Sample

    Raises
    ------
    ValueError
        If neither or both of ``rate`` and ``samples`` are given, or either is out of range.
    """
    if (rate is None) == (samples is None):
        raise ValueError("give one of rate and samples")
    hashes = page_hashes(trace.n_pages, seed)
    if samples is not None:
        if samples < 1:
            raise ValueError(f"samples must be >= 1, got {samples}")
        if samples >= trace.n_pages:
            chosen = np.ones(trace.n_pages, dtype=bool)
            r = 1.0
        else:
            cut = np.partition(hashes, samples - 1)[samples - 1]
            chosen = hashes <= cut
            r = samples / trace.n_pages
    else:
        limit = threshold_for(float(rate))  # type: ignore[arg-type]
        chosen = hashes < limit
        r = limit / HASH_SPACE
    rows = np.flatnonzero(chosen[trace.page])
    sub = Trace.from_ids(trace.page[rows], source={"sampled_from": trace.source.get("path", ""), "rate": r})
    return Sample(sub, r, int(np.searchsorted(rows, warmup)), int(warmup), int(seed))


class MiniRun(NamedTuple):
    """Miss ratios of one policy per size: ``miss_ratio`` float64, ``method`` ("minisim" or
    "full") and ``rate`` float64 (the sampling rate used; 1.0 for a size run in full)."""

    miss_ratio: np.ndarray
    method: list[str]
    rate: np.ndarray


def minisim(
    trace: Trace,
    sample: Sample,
    policy: type[Policy] | Policy,
    capacities: Sequence[int],
    *,
    small: str = "denser",
    denser: dict[int, Sample] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> MiniRun:
    """Miss ratio of ``policy`` at every capacity, from the miniature runs of ``sample``.

    Parameters
    ----------
    trace : Trace
        The full trace (for denser samples and sizes simulated in full).
    sample : Sample
        From :func:`sample_trace` (which fixes the warm-up and the seed).
    policy : Policy subclass or instance
    capacities : sequence of int
        Full cache sizes in pages (>= 1).
    small : {"denser", "full", "refuse"}
        What to do with a size c whose miniature is below :data:`MIN_SAMPLED_CAPACITY` (M):
        run it on a denser sample at rate M / c (in full when that is >= 1), in full, or refuse.
    denser : dict, optional
        A cache of the denser samples, keyed by hash threshold; pass the same dict to calls
        for several policies on one trace to draw each denser sample once.
    progress : callable, optional
        ``(done, total)`` over the base sample's miniature runs' accesses.

    Returns
    -------
    MiniRun

    Raises
    ------
    ValueError
        For an unknown ``small``; with ``small="refuse"``, for a size below the minimum (the
        message names the smallest size allowed at this rate).
    pagesim.engine.PolicyError
        If a hook raises.
    """
    if small not in SMALL_CHOICES:
        raise ValueError(f"unknown choice for small sizes {small!r}; known: {', '.join(SMALL_CHOICES)}")
    caps = [int(c) for c in capacities]
    is_small = [sample.rate < 1 and round(c * sample.rate) < MIN_SAMPLED_CAPACITY for c in caps]
    if small == "refuse" and any(is_small):
        smallest = int(np.ceil(MIN_SAMPLED_CAPACITY / sample.rate))
        bad = [c for c, s in zip(caps, is_small) if s]
        raise ValueError(
            f"sizes {bad} fall below the smallest miniature cache ({MIN_SAMPLED_CAPACITY} pages at rate "
            f"{sample.rate:.4g}: sizes >= {smallest:,} pages); raise the rate or simulate them in full"
        )
    # each size's sample: the base one, a denser one (keyed by its hash threshold) or the full trace
    keys = [_sample_key(c, s, small, sample) for c, s in zip(caps, is_small)]
    cache = denser if denser is not None else {}
    ratios = np.zeros(len(caps), dtype=np.float64)
    rates = np.ones(len(caps), dtype=np.float64)
    methods = ["minisim"] * len(caps)
    for key in dict.fromkeys(keys):
        where = [i for i, k in enumerate(keys) if k == key]
        if key == FULL:
            by_size = _ratios(trace, policy, [caps[i] for i in where], sample.full_warmup, None)
            ratios[where] = [by_size[caps[i]] for i in where]
            for i in where:
                methods[i] = "full"
            continue
        if key == BASE:
            drawn = sample
        else:
            if key not in cache:
                cache[key] = sample_trace(
                    trace, rate=key / HASH_SPACE, seed=sample.seed, warmup=sample.full_warmup
                )
            drawn = cache[key]
        shown = progress if key == BASE else None
        ratios[where] = _miniature_ratios(trace, drawn, policy, [caps[i] for i in where], shown)
        rates[where] = drawn.rate
    return MiniRun(ratios, methods, rates)


BASE = -1  #: key of a size run on the base sample
FULL = -2  #: key of a size simulated in full


def _sample_key(capacity: int, is_small: bool, small: str, sample: Sample) -> int:
    """Which sample a size runs on: BASE, FULL or the hash threshold of its denser sample."""
    if not is_small:
        return BASE
    if small == "full" or capacity <= MIN_SAMPLED_CAPACITY:
        return FULL
    return threshold_for(MIN_SAMPLED_CAPACITY / capacity)


def _miniature_ratios(
    trace: Trace,
    sample: Sample,
    policy: type[Policy] | Policy,
    caps: list[int],
    progress: Callable[[int, int], None] | None,
) -> list[float]:
    """Adjusted miss ratios of miniature caches of ``round(c * R)`` pages for full sizes ``caps``."""
    mini = [max(1, int(round(c * sample.rate))) for c in caps]
    by_mini = _ratios(sample.trace, policy, sorted(set(mini)), sample.warmup, progress)
    # the adjustment of SHARDS_adj: misses over the expected sampled requests, R * N
    expected = sample.rate * max(trace.n_requests - sample.full_warmup, 0)
    scale = (sample.trace.n_requests - sample.warmup) / expected if expected > 0 else 1.0
    return [min(1.0, by_mini[m] * scale) for m in mini]


def _ratios(
    trace: Trace,
    policy: type[Policy] | Policy,
    sizes: list[int],
    warmup: int,
    progress: Callable[[int, int], None] | None,
) -> dict[int, Any]:
    if not sizes:
        return {}
    if warmup and warmup >= trace.n_requests:
        warmup = max(trace.n_requests - 1, 0)
    results = compare(trace, [policy], sizes, warmup=warmup, baseline=False, progress=progress)
    return {size: r.miss_ratio for size, r in zip(sizes, results)}
