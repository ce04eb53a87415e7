"""What the cache_ext experiments compare and what they return: the default policy, each
experiment's policies, one run's figures (:class:`Measured`) and an experiment (:class:`Experiment`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

BASELINE = "linux-lru"  #: the paper's default (Linux 6.6.8's active/inactive LRU)


#: The file device of the experiments whose result is a tail latency (GET-SCAN, admission): the
#: paper's SATA SSD with its queue (8 channels, a 550 MB/s link; :mod:`pagesim.engine.memory`),
#: so that a scan's or a compaction's I/O delays the foreground's reads.
QUEUED_DEVICE = "sata-ssd"
SMALL_SCALE = 1 / 4096  #: experiments' default: seconds per run


#: The policies each experiment compares (cache_ext spec §5.2-5.7), the default first.
EXPERIMENT_POLICIES: dict[str, tuple[str, ...]] = {
    "ycsb": ("linux-lru", "mglru", "ce-mru", "ce-fifo", "ce-s3fifo", "ce-lhd", "ce-lfu"),
    "twitter": ("linux-lru", "mglru", "ce-s3fifo", "ce-lhd", "ce-lfu"),
    "file-search": ("linux-lru", "mglru", "ce-mru"),
    "get-scan": ("linux-lru", "mglru", "get-scan"),
    "isolation": ("linux-lru", "mglru", "ce-lfu", "ce-mru", "ce-lfu/ce-mru"),
    "admission": ("linux-lru", "mglru", "admit-compaction"),
    "overhead": ("linux-lru", "mglru", "ce-mglru"),
}
YCSB_WORKLOADS = ("A", "B", "C", "D", "E", "F", "uniform", "uniform-rw")


#: The paper's entry where a policy's run failed for lack of memory (mglru on twitter cluster 24).
OOM = "OOM"


@dataclass
class Measured:
    """One run: a policy (or one per cgroup) over one workload.

    Attributes
    ----------
    workload : str
        Row label (``ycsb-C``, ``file-search``...).
    policy : str
        The policy's name, or ``name/name`` with one per cgroup.
    throughput : dict of str to float
        Operations per second by thread group (and ``all``): each thread's operations after its
        own warm-up over its time since, summed.
    p99_ms, mean_ms : dict of str to float
        99th percentile and mean latency of the group's operations completed in the latency
        window, ms (NaN when none completed).
    runtime_s : dict of str to float
        The longest thread's model time for the whole run, by group, s.
    disk_read_pages, disk_write_pages : int
        ``pgpgin`` and ``pgpgout`` after the warm-up.
    hits, misses : int
        Page-cache hits and misses after the warm-up.
    counters : dict of str to int
        Every kernel counter of the whole run, and the device's queueing (``device_queue_ns``:
        the tasks' waits behind other requests, ``device_queued``: requests that waited).
    """

    workload: str
    policy: str
    throughput: dict[str, float]
    p99_ms: dict[str, float]
    mean_ms: dict[str, float]
    runtime_s: dict[str, float]
    disk_read_pages: int
    disk_write_pages: int
    hits: int
    misses: int
    counters: dict[str, int] = field(default_factory=dict, repr=False)

    def metric(self, name: str, group: str = "all") -> float:
        """``throughput``, ``p99_ms``, ``mean_ms``, ``runtime_s`` of a group, or ``disk_read_pages``."""
        value = getattr(self, name)
        return float(value[group]) if isinstance(value, dict) else float(value)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable record (without the full counters)."""
        return {
            "workload": self.workload,
            "policy": self.policy,
            "throughput": self.throughput,
            "p99_ms": self.p99_ms,
            "mean_ms": self.mean_ms,
            "runtime_s": self.runtime_s,
            "disk_read_pages": self.disk_read_pages,
            "disk_write_pages": self.disk_write_pages,
            "hits": self.hits,
            "misses": self.misses,
        }


@dataclass
class Experiment:
    """An experiment's runs and how to present them.

    Attributes
    ----------
    name : str
    runs : list of Measured
    metrics : list of (label, attribute, group)
        The columns of its table, each also shown relative to the default's row of the same
        workload.
    paper : dict
        The paper's ratios to the default, ``{workload: {policy: {label: ratio}}}`` (where
        cache_ext_results gives them); :data:`OOM` where the paper's run ran out of memory.
    params : dict
        Scale and other parameters, to repeat the run.
    notes : list of str
        What the reader must know beside the table (a baseline the paper ran that is not run
        here, and why; where a row's setup is an assumption).
    """

    name: str
    runs: list[Measured]
    metrics: list[tuple[str, str, str]]
    paper: dict[str, dict[str, dict[str, float | str]]] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def workloads(self) -> list[str]:
        """Row groups in run order."""
        return list(dict.fromkeys(r.workload for r in self.runs))

    def baseline(self, workload: str) -> Measured | None:
        """The default's run on ``workload`` (None if it was not run)."""
        for r in self.runs:
            if r.workload == workload and r.policy.split("/")[0] == BASELINE and "/" not in r.policy:
                return r
        for r in self.runs:
            if r.workload == workload and r.policy == f"{BASELINE}/{BASELINE}":
                return r
        return None

    def ratio(self, run: Measured, attribute: str, group: str) -> float:
        """``run``'s metric over the default's on the same workload (NaN without a default)."""
        base = self.baseline(run.workload)
        if base is None:
            return float("nan")
        b = base.metric(attribute, group)
        v = run.metric(attribute, group)
        return v / b if b and np.isfinite(b) and np.isfinite(v) else float("nan")

    def find(self, workload: str, policy: str) -> Measured:
        """The run of ``policy`` on ``workload``.

        Raises
        ------
        KeyError
            If there is none.
        """
        for r in self.runs:
            if r.workload == workload and r.policy == policy:
                return r
        raise KeyError(f"no run of {policy} on {workload}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable: runs with ratios to the default, metrics and the paper's ratios."""
        rows = []
        for r in self.runs:
            d = r.to_dict()
            d["relative"] = {label: self.ratio(r, attr, grp) for label, attr, grp in self.metrics}
            rows.append(d)
        return {"experiment": self.name, "params": self.params, "metrics": [m[0] for m in self.metrics],
                "runs": rows, "paper": self.paper, "notes": self.notes}  # fmt: skip
