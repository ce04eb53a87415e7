"""``auto`` beside every fixed candidate: misses relative to the best fixed policy in hindsight.

Three groups of workloads, each run with every candidate of ``auto`` (default the cache_ext
suite and the kernel's default) and with ``auto`` itself:

* ``kernel``: the cache_ext workloads in kernel mode (:mod:`pagesim.workloads.cache_ext`): YCSB
  A-F and uniform, the Twitter clusters' stand-ins, file search and GET-SCAN, at the scales of
  ``pagesim experiment ycsb`` etc. (times ``scale / SMALL_SCALE``), measured by
  :func:`pagesim.analysis.experiments.runs.measure` (page-cache misses after the warm-up);
  every policy at its registry defaults (auto builds its candidates so), the kernel default
  ``linux-lru``.
* ``phases``: cache-mode traces whose best policy changes mid-run, from
  :mod:`pagesim.workloads.synthetic` phases, with a cache of ``c`` pages: Zipf, then a scan
  larger than memory, then a loop larger than memory; a loop then Zipf; Zipf then Zipf over a
  moved hot set.
* ``traces``: the real traces of ``$PAGESIM_TRACES`` in cache mode at 10 % of their unique
  pages (at most ``max_accesses`` accesses of each).

The figure of merit is a workload's misses over the fewest misses of a fixed candidate on it
(1.0 = the best fixed policy in hindsight); "stable" workloads are those where no phase change
was built in (every ``kernel`` and ``traces`` row).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pagesim.analysis.experiments.records import SMALL_SCALE, YCSB_WORKLOADS
from pagesim.analysis.experiments.runs import measure, node_for
from pagesim.engine.simulate import simulate
from pagesim.policies.auto import CACHE_EXT_SUITE, KERNEL_DEFAULT
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace
from pagesim.trace.io import read_trace
from pagesim.workloads import synthetic as syn
from pagesim.workloads.cache_ext import (
    TWITTER_CLUSTERS,
    build_file_search,
    build_get_scan,
    build_twitter,
    build_ycsb,
)

PARTS = ("kernel", "phases", "traces")
#: Real traces run in cache mode (paths under $PAGESIM_TRACES).
TRACE_FILES = (
    "lirs/2_pools.trace.gz", "lirs/cpp.trace.gz", "lirs/cs.trace.gz", "lirs/gli.trace.gz",
    "lirs/loop.trace.gz", "lirs/multi1.trace.gz", "lirs/multi2.trace.gz", "lirs/multi3.trace.gz",
    "lirs/ps.trace.gz", "lirs/sprite.trace.gz", "lirs2/backf.trace.gz", "lirs2/scan.trace.gz",
    "lirs2/zigzag.trace.gz", "arc/OLTP.lis.zst", "libcachesim/cloudPhysicsIO.txt",
)  # fmt: skip
AUTO = "auto"


@dataclass
class AutoRow:
    """One run: ``misses`` (after the warm-up), ``requests``, and for auto its switches."""

    workload: str
    group: str
    policy: str
    misses: int
    requests: int
    switches: list[dict[str, Any]] = field(default_factory=list)
    shadow_cpu_seconds: float = 0.0
    sampled_pages: int = 0


@dataclass
class AutoExperiment:
    """Every run, and each workload's policies relative to its best fixed policy."""

    rows: list[AutoRow]
    params: dict[str, Any]

    def workloads(self) -> list[str]:
        """Workloads in run order."""
        return list(dict.fromkeys(r.workload for r in self.rows))

    def relative(self) -> dict[str, dict[str, float]]:
        """``{workload: {policy: misses / fewest misses of a fixed policy}}`` (1.0 when both are 0)."""
        out: dict[str, dict[str, float]] = {}
        for w in self.workloads():
            mine = [r for r in self.rows if r.workload == w]
            best = min(r.misses for r in mine if r.policy != AUTO)
            out[w] = {r.policy: (r.misses / best if best else (1.0 if r.misses == 0 else float("inf")))
                      for r in mine}  # fmt: skip
        return out

    def best_fixed(self, workload: str) -> str:
        """The fixed policy with the fewest misses on ``workload``."""
        mine = [r for r in self.rows if r.workload == workload and r.policy != AUTO]
        return min(mine, key=lambda r: r.misses).policy

    def means(self) -> dict[str, float]:
        """Each policy's mean relative misses over the workloads it ran on."""
        rel = self.relative()
        policies = list(dict.fromkeys(r.policy for r in self.rows))
        return {p: float(np.mean([v[p] for v in rel.values() if p in v])) for p in policies}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: rows, relative misses, means, params."""
        return {
            "experiment": "auto",
            "params": self.params,
            "rows": [r.__dict__ for r in self.rows],
            "relative": self.relative(),
            "means": self.means(),
        }


Progress = Callable[[str], None]


def phase_traces(capacity: int, length: int, seed: int = 0) -> Iterator[tuple[str, Trace]]:
    """The phase-change traces for a cache of ``capacity`` pages, ``length`` accesses a phase.

    ``zipf-scan-loop``: Zipf(0.9) over 8c pages, a scan of ``length`` new pages, a loop over
    2c pages; ``loop-zipf``: the loop, then the Zipf; ``zipf-shift``: the Zipf, then a Zipf
    over 8c other pages.
    """
    c = int(capacity)
    hot = syn.zipf(length, 8 * c, 0.9, seed=seed)
    passes = max(length // (2 * c), 1)
    lp = syn.loop(2 * c, passes=passes)
    sc = syn.scan(length)
    yield "zipf-scan-loop", syn.phases([hot, sc, lp], disjoint=True)
    yield "loop-zipf", syn.phases([lp, hot], disjoint=True)
    yield "zipf-shift", syn.phases([hot, syn.zipf(length, 8 * c, 0.9, seed=seed + 1)], disjoint=True)


def _cache_rows(
    name: str, group: str, trace: Trace, capacity: int, policies: Sequence[str], auto: dict[str, Any]
) -> list[AutoRow]:
    rows = []
    for p in policies:
        pol = make_policy(p, **auto) if p == AUTO else make_policy(p)
        r = simulate(trace, pol, capacity)
        a = r.params.get("auto", {})
        rows.append(AutoRow(name, group, p, r.misses, r.requests, a.get("switches", []),
                            a.get("shadow_cpu_seconds", 0.0), a.get("sampled_pages", 0)))  # fmt: skip
    return rows


def _kernel_workloads(scale: float) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(row, OpTrace, measure keywords) of each cache_ext workload, at its experiment's scale."""
    f = scale / SMALL_SCALE
    for w in YCSB_WORKLOADS:
        if w != "uniform-rw":
            yield f"ycsb-{w}", build_ycsb(workload=w, scale=SMALL_SCALE * f), {}
    for c in TWITTER_CLUSTERS:
        yield f"twitter-{c}", build_twitter(cluster=c, scale=SMALL_SCALE * 16 * f), {}
    fs = build_file_search(scale=SMALL_SCALE * 16 * f)
    yield "file-search", fs, {"warmup_share": 0.0}
    gs = build_get_scan(scale=SMALL_SCALE * 4 * f)
    yield "get-scan", gs, {"config": node_for(gs.trace, stop="first")}


def _kernel_rows(
    name: str, ops: Any, kw: dict[str, Any], policies: Sequence[str], auto: dict[str, Any]
) -> list[AutoRow]:
    rows = []
    for p in policies:
        pol = make_policy(p, **auto) if p == AUTO else make_policy(p)
        m = measure(ops, pol, label=p, workload=name, latency_window=0, **kw)
        c = pol.controller if p == AUTO else None
        rows.append(AutoRow(name, "kernel", p, m.misses, m.hits + m.misses,
                            list(c.switches) if c else [], c.shadow_cpu_seconds if c else 0.0,
                            c.sampled_pages if c else 0))  # fmt: skip
    return rows


def auto_experiment(
    scale: float = SMALL_SCALE,
    parts: Sequence[str] = PARTS,
    candidates: Sequence[str] | None = None,
    traces: str | None = None,
    max_accesses: int = 1_000_000,
    progress: Progress | None = None,
    **auto: Any,
) -> AutoExperiment:
    """Run ``auto`` and every fixed candidate on the workloads of ``parts``.

    Parameters
    ----------
    scale : float
        Of the cache_ext setup for ``kernel``; ``phases`` get a cache of 2,000 x scale /
        SMALL_SCALE pages (at least 500) and 40 caches' worth of accesses a phase;
        ``traces`` run at most ``max_accesses x scale / SMALL_SCALE`` accesses.
    parts : sequence of {"kernel", "phases", "traces"}
    candidates : sequence of str, optional
        The fixed policies and auto's candidates (default: the cache_ext suite and the
        kernel's default of each mode).
    traces : str, optional
        The real traces' folder (default ``$PAGESIM_TRACES``, else ../shared/traces); a
        missing file is skipped.
    max_accesses : int
    progress : callable, optional
        Called with ``"workload: policy"`` texts... per workload.
    **auto
        Parameters of the ``auto`` policy (``threshold=``, ``epoch=``...).

    Raises
    ------
    ValueError
        For an unknown part.
    """
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise ValueError(f"unknown part {unknown[0]!r}; known: {', '.join(PARTS)}")
    f = scale / SMALL_SCALE
    rows: list[AutoRow] = []

    def names(mode: str) -> list[str]:
        fixed = list(candidates) if candidates else [*CACHE_EXT_SUITE, KERNEL_DEFAULT[mode]]
        return [*fixed, AUTO]

    opts = {**auto, **({"candidates": ",".join(candidates)} if candidates else {})}
    if "kernel" in parts:
        for name, ops, kw in _kernel_workloads(scale):
            if progress:
                progress(name)
            rows += _kernel_rows(name, ops, kw, names("kernel"), opts)
    if "phases" in parts:
        cap = max(int(2000 * f), 500)
        for name, trace in phase_traces(cap, 40 * cap):
            if progress:
                progress(name)
            rows += _cache_rows(name, "phases", trace, cap, names("cache"), opts)
    if "traces" in parts:
        root = Path(traces or os.environ.get("PAGESIM_TRACES", "../shared/traces"))
        for rel in TRACE_FILES:
            path = root / rel
            if not path.exists():
                continue
            if progress:
                progress(rel)
            t = read_trace(str(path))
            limit = int(max_accesses * f)
            if t.n_requests > limit:
                t = Trace.from_ids(t.original_id[t.page[:limit]])
            cap = max(t.n_pages // 10, 10)
            rows += _cache_rows(rel, "traces", t, cap, names("cache"), opts)
    params = {"scale": scale, "parts": list(parts), "candidates": list(candidates or ()),
              "max_accesses": max_accesses, "auto": auto}  # fmt: skip
    return AutoExperiment(rows, params)
