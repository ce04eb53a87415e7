"""cache_ext's overheads (paper §6.3, Tables 4 and 5): registry memory, a no-op policy's CPU per
I/O, and the MGLRU port against the kernel's MGLRU.

* Registry memory (paper §6.3.1, cache_ext spec §1.4): the valid-folio registry has one hash
  bucket per 4 KiB page of the cgroup (16 bytes: the list head and its spinlock) and one entry
  per cached folio (32 bytes: ``struct valid_folio``, an ``hlist_node``, the folio pointer and
  the list-node pointer). Its share of the cgroup is computed for an empty registry and for the
  resident pages of the fio run at the end.
* No-op CPU per I/O (Table 4): fio randread (:func:`pagesim.workloads.cache_ext.build_fio`)
  under the kernel's default policy, as cache_ext's run loads no policy (spec §5.8): what the
  registry adds is one insertion per page read in and one deletion per page removed. pagesim's
  time model has no CPU figure for a ``read()`` system call, so the added share is
  ``(insertions + deletions) per read x registry_op_ns / read_cpu_ns``, both figures assumed
  (parameters); the run measures the registry operations per read.
* The port (Table 5): ``ce-mglru``'s YCSB throughput over ``mglru``'s, per workload, and their
  harmonic mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pagesim.analysis.experiments.records import SMALL_SCALE, YCSB_WORKLOADS, Experiment, Measured
from pagesim.analysis.experiments.runs import _KV_METRICS, Progress, _each
from pagesim.workloads.cache_ext import build_fio, build_ycsb

BUCKET_BYTES = 16  #: per page of the cgroup (paper §6.3.1)
ENTRY_BYTES = 32  #: per cached folio: struct valid_folio (paper §6.3.1)
PAGE_BYTES = 4096

#: The paper's figures (cache_ext_results §9, §10, §12).
PAPER_OVERHEAD: dict[str, Any] = {
    "registry_share": (0.004, 0.012),
    "cpu_per_io": {5: 0.0072, 10: 0.0166, 30: 0.0017},
    "port": {"A": 0.97, "B": 0.99, "C": 0.96, "D": 0.98, "E": 0.98, "F": 0.99, "uniform": 1.06,
             "uniform-rw": 1.05, "harmonic mean": 0.99},
}  # fmt: skip


def registry_share(cgroup_pages: int, cached_pages: int) -> float:
    """The registry's bytes over the cgroup's: ``(16 x cgroup_pages + 32 x cached) / (4096 x
    cgroup_pages)``.

    Raises
    ------
    ValueError
        For a cgroup of no pages or a negative count.
    """
    if cgroup_pages <= 0 or cached_pages < 0:
        raise ValueError(f"need cgroup_pages > 0 and cached_pages >= 0, got {cgroup_pages}, {cached_pages}")
    return (BUCKET_BYTES * cgroup_pages + ENTRY_BYTES * cached_pages) / (PAGE_BYTES * cgroup_pages)


def harmonic_mean(values: Sequence[float]) -> float:
    """Harmonic mean of positive values (Table 5's summary)."""
    if not values or min(values) <= 0:
        raise ValueError(f"harmonic mean of positive values only, got {list(values)}")
    return len(values) / sum(1.0 / v for v in values)


def overhead_experiment(
    workloads: Sequence[str] = YCSB_WORKLOADS,
    scale: float = SMALL_SCALE,
    cgroups_gib: Sequence[float] = (5.0, 10.0, 30.0),
    registry_op_ns: float = 100.0,
    read_cpu_ns: float = 10_000.0,
    seed: int = 0,
    latency_window: int = 2_000,
    progress: Progress | None = None,
    policies: Sequence[str] = ("linux-lru", "mglru", "ce-mglru"),
) -> Experiment:
    """cache_ext's overheads (paper §6.3, Tables 4 and 5); the module docstring gives the rules.

    Parameters
    ----------
    workloads : sequence of str
        YCSB workloads for the port's comparison.
    scale : float
        Of the paper's setup.
    cgroups_gib : sequence of float
        fio's cgroups, GiB of the paper's setup.
    registry_op_ns, read_cpu_ns : float
        Assumed CPU of one registry insertion or deletion (a hash, a bucket spinlock, a small
        slab allocation or free) and of one buffered 4 KiB read, ns.
    policies : sequence of str
        Run on each YCSB workload; ``mglru`` and ``ce-mglru`` among them for the port's ratio.

    Returns
    -------
    Experiment
        Rows ``fio-<N>GiB`` (linux-lru) and ``ycsb-<w>``; ``params["overhead"]`` holds the
        summary (:func:`overhead_summary` lays it beside the paper's figures).

    Raises
    ------
    ValueError
        For non-positive costs, or ``policies`` without ``mglru`` and ``ce-mglru``.
    """
    if registry_op_ns <= 0 or read_cpu_ns <= 0:
        raise ValueError("registry_op_ns and read_cpu_ns must be positive")
    if "mglru" not in policies or "ce-mglru" not in policies:
        raise ValueError("the overhead experiment compares ce-mglru with mglru: include both")
    runs: list[Measured] = []
    keys = ("registry_share", "cpu_per_io", "registry_ops_per_read", "port")
    summary: dict[str, Any] = {k: {} for k in keys}
    for gib in cgroups_gib:
        o = build_fio(cgroup_gib=gib, scale=scale, seed=seed)
        row = f"fio-{gib:g}GiB"
        (r,) = _each(o, row, ["linux-lru"], progress, latency_window=latency_window)
        runs.append(r)
        limit = int(o.trace.source["cgroup_pages"][0])
        c = r.counters
        ops = (c["pgpgin"] + c["evictions"]) / max(c["hits"] + c["misses"], 1)
        summary["registry_ops_per_read"][gib] = ops
        summary["cpu_per_io"][gib] = ops * registry_op_ns / read_cpu_ns
        cached = min(limit, c["pgpgin"] - c["evictions"])
        summary["registry_share"][gib] = (registry_share(limit, 0), registry_share(limit, max(cached, 0)))
    for w in workloads:
        o = build_ycsb(workload=w, scale=scale, seed=seed)
        got = _each(o, f"ycsb-{w}", policies, progress, latency_window=latency_window)
        runs += got
        by = {r.policy: r.throughput["all"] for r in got}
        summary["port"][w] = by["ce-mglru"] / by["mglru"] if by["mglru"] > 0 else float("nan")
    ratios = [v for v in summary["port"].values() if v == v and v > 0]
    summary["port"]["harmonic mean"] = harmonic_mean(ratios) if ratios else float("nan")
    return Experiment(
        "overhead", runs, list(_KV_METRICS), {},
        {"scale": scale, "cgroups_gib": list(cgroups_gib), "registry_op_ns": registry_op_ns,
         "read_cpu_ns": read_cpu_ns, "seed": seed, "policies": list(policies), "overhead": summary},
    )  # fmt: skip


def overhead_summary(exp: Experiment) -> list[tuple[str, str, str]]:
    """(quantity, pagesim, paper) rows of an overhead experiment's summary."""
    s = exp.params["overhead"]
    rows = []
    lo, hi = PAPER_OVERHEAD["registry_share"]
    for gib, (empty, full) in s["registry_share"].items():
        rows.append((f"registry memory, {gib:g} GiB cgroup (empty / full)", f"{empty:.2%} / {full:.2%}",
                     f"{lo:.1%} / {hi:.1%}"))  # fmt: skip
    for gib, share in s["cpu_per_io"].items():
        paper = PAPER_OVERHEAD["cpu_per_io"].get(int(gib))
        ops = s["registry_ops_per_read"][gib]
        rows.append((f"no-op CPU per I/O, {gib:g} GiB ({ops:.2f} registry ops/read)", f"+{share:.2%}",
                     f"+{paper:.2%}" if paper is not None else ""))  # fmt: skip
    for w, ratio in s["port"].items():
        paper = PAPER_OVERHEAD["port"].get(w)
        rows.append((f"ce-mglru / mglru, {w}", f"{ratio:.2f}x", f"{paper:.2f}x" if paper is not None else ""))
    return rows
