"""Twitter cache traces replayed on LevelDB (paper Fig. 8): the real CSV or the clusters' stand-ins."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pagesim.analysis.experiments.records import EXPERIMENT_POLICIES, OOM, SMALL_SCALE, Experiment, Measured
from pagesim.analysis.experiments.runs import _KV_METRICS, Progress, _each
from pagesim.workloads.cache_ext import (
    TWITTER_CLUSTERS,
    build_twitter,
)

_PAPER_TWITTER_OPS = {  # cache_ext_results: throughput relative to the default, by cluster
    17: (1.28, 0.96, 0.93, 0.97), 18: (1.33, 0.86, 0.91, 1.03), 24: (OOM, 0.90, 0.94, 0.97),
    34: (0.88, 1.00, 1.10, 1.06), 52: (0.84, 0.99, 1.07, 1.12),
}  # fmt: skip


#: The paper's twitter ratios, ``{"twitter-<cluster>": {policy: {"ops/s": ratio or OOM}}}``.
PAPER_TWITTER: dict[str, dict[str, dict[str, float | str]]] = {
    f"twitter-{c}": {p: {"ops/s": v} for p, v in zip(("mglru", "ce-s3fifo", "ce-lhd", "ce-lfu"), r)}
    for c, r in _PAPER_TWITTER_OPS.items()
}


def _twitter_sources(path: str | None, clusters: Sequence[int] | None) -> list[tuple[str, dict[str, Any]]]:
    """(row name, build_twitter keywords) per replay: the named clusters' stand-ins, or the CSV.

    A CSV named as one cluster is the row ``twitter-<cluster>``, beside the paper's column.
    """
    if path is None:
        unknown = [c for c in clusters or () if c not in TWITTER_CLUSTERS]
        if unknown:
            known = ", ".join(map(str, TWITTER_CLUSTERS))
            raise ValueError(f"no stand-in for Twitter cluster {unknown[0]}; known: {known} (or a --trace)")
        return [(f"twitter-{c}", {"cluster": c}) for c in (clusters or tuple(TWITTER_CLUSTERS))]
    if not clusters:
        return [("twitter", {"path": path})]
    if len(clusters) != 1:
        raise ValueError(f"a trace is one cluster; got {len(clusters)} clusters for {path}")
    return [(f"twitter-{clusters[0]}", {"path": path})]


def twitter_experiment(
    path: str | None = None,
    clusters: Sequence[int] | None = None,
    policies: Sequence[str] = EXPERIMENT_POLICIES["twitter"],
    scale: float = SMALL_SCALE * 16,
    ops: int | None = None,
    seed: int = 0,
    latency_window: int = 20_000,
    progress: Progress | None = None,
) -> Experiment:
    """Twitter cache traces replayed on LevelDB (paper Fig. 8).

    With ``path``, that CSV, its row named ``twitter-<c>`` when ``clusters`` is ``[c]`` (the
    paper's ratios for cluster ``c`` beside it) and ``twitter`` otherwise; without ``path``, the
    synthetic stand-in of each of ``clusters`` (default 17, 18, 24, 34, 52: the harness's key
    and value sizes and unique keys times ``scale``, the cluster's published operation mix,
    Zipf exponent and one-hit-wonder share; :func:`pagesim.workloads.cache_ext.synthetic_twitter`),
    which is not the real trace.

    Raises ValueError for an unknown stand-in cluster, or more than one cluster with ``path``.
    """
    runs: list[Measured] = []
    for row, kw in _twitter_sources(path, clusters):
        o = build_twitter(scale=scale, ops=ops, seed=seed, **kw)
        runs += _each(o, row, policies, progress, latency_window=latency_window)
    return Experiment(
        "twitter", runs,
        list(_KV_METRICS), dict(PAPER_TWITTER),
        {"scale": scale, "ops": ops, "seed": seed, "path": path,
         "clusters": list(clusters or ()), "policies": list(policies)},
    )  # fmt: skip
