"""What a kernel-mode run returns: :class:`KernelResult` (counters, modelled times, the node's
state, per-task figures) and the latency summary of the loop's histogram.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class KernelResult:
    """Counters, times and the node's state at the end of a kernel-mode run.

    Attributes
    ----------
    policy : str
        The policy's label.
    counters : dict of str to int
        Cache-mode counters, /proc/vmstat-named kernel counters and the policy's own
        (``pgactivate``, ``workingset_activate_*``...), summed over cgroups.
    ops : int
        Accesses simulated (those of killed processes excluded).
    throughput_ops_per_s : float
        Modelled operations per second: each task runs on its own CPU, so the sum over tasks of
        (accesses / time), time being CPU per access plus every wait charged to the task.
    latency_ns : dict
        ``p50``, ``p99`` (upper edges of power-of-two buckets) and ``max`` of per-access time.
    longest_fault_ns : float
        The longest single wait of a fault or read miss.
    kswapd_ns, direct_reclaim_ns : float
        CPU time kswapd spent reclaiming, and time tasks spent in direct reclaim.
    node : dict
        Resident anon and file pages, swap used, zram's stored pages and the pages of memory
        it holds (``zram_pages``) at the end; OOM victim; with ``KernelConfig.cpus`` set, the
        tasks' and kswapd's waits for a CPU in all (``cpu_wait_ns``, ``kswapd_cpu_wait_ns``).
    series : dict of lists
        Sampled every ``sample_every`` accesses (empty if not asked for): ``access`` (index),
        ``time_ns`` (model time of the last access), ``resident_anon``, ``resident_file``,
        ``free``, ``swap_used``, ``pswpin``, ``pswpout``,
        and each policy readout (``Policy.readouts``) of cgroup 0's policy.
    readouts : dict of str to float
        Cgroup 0's policy's readouts at the end of the run (``Policy.readouts``; empty if it has
        none), whether or not a series was sampled.
    describe : str
        Cgroup 0's policy's text readout at the end (``Policy.describe``; CAST: the seed's
        ``estimate`` and ``tune``); "" if it has none.
    clairvoyant : bool
        True if cgroup 0's policy was told each page's next use in trace order (``opt``). In
        kernel mode such a policy is a reference, not a bound: reclaim takes batches of 32,
        readahead brings pages nobody asked for and tasks interleave by their clocks, so
        another policy may miss less (docs/kernel-mode.md). ``to_dict`` adds ``is_bound``,
        always False here, so that a JSON reader does not take its figures for the limit.
    tasks : dict of lists, one entry per task (tag)
        ``ops``, ``time_ns``, ``waits`` (swap-ins and file reads it waited for),
        ``longest_wait_ns`` (the longest wait of a swap-in or file read: the device and the
        reclaim and CPU waits inside it), ``longest_fault_ns`` (the longest fault of any kind --
        zero-fill, swap-in, file read miss -- as a fault's latency on Linux counts it: from the
        access's start to its end, its own CPU, its waits for a CPU, its direct or memcg reclaim,
        its device wait), ``killed`` (1 if the OOM killer took it).
    config : dict
        The node's parameters (:class:`KernelConfig`), so the run can be repeated.
    seconds : float
        Wall time of the simulation loop.
    """

    policy: str
    counters: dict[str, int]
    ops: int
    throughput_ops_per_s: float
    latency_ns: dict[str, float]
    longest_fault_ns: float
    kswapd_ns: float
    direct_reclaim_ns: float
    node: dict[str, int]
    tasks: dict[str, list[float]]
    config: dict[str, Any]
    seconds: float
    prepare_seconds: float
    mode: str
    params: dict[str, Any] = field(default_factory=dict)
    series: dict[str, list[float]] = field(default_factory=dict)
    readouts: dict[str, float] = field(default_factory=dict)
    describe: str = ""
    clairvoyant: bool = False

    def per_op(self, name: str) -> float:
        """``counters[name]`` per simulated access (0.0 if none)."""
        return self.counters[name] / self.ops if self.ops else 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of the whole result."""
        return {
            "policy": self.policy,
            **self.counters,
            "ops": self.ops,
            "throughput_ops_per_s": self.throughput_ops_per_s,
            "latency_ns": self.latency_ns,
            "longest_fault_ns": self.longest_fault_ns,
            "kswapd_ns": self.kswapd_ns,
            "direct_reclaim_ns": self.direct_reclaim_ns,
            "node": self.node,
            "tasks": self.tasks,
            "series": self.series,
            "readouts": self.readouts,
            "describe": self.describe,
            "clairvoyant": self.clairvoyant,
            "is_bound": False,
            "config": self.config,
            "seconds": self.seconds,
            "prepare_seconds": self.prepare_seconds,
            "mode": self.mode,
            "params": self.params,
        }


def _latency_summary(hist: np.ndarray, max_ns: float) -> dict[str, float]:
    """p50, p99 and max of the accesses' latencies (ns: CPU plus waits) from the loop's log2
    histogram: bucket ``b`` > 0 counts latencies in [2**(b-1), 2**b), bucket 0 those under 1 ns.

    A quantile is interpolated linearly within its bucket (the bucket's upper bound, which this
    once gave, overstated it by up to 2x) and never exceeds the largest latency seen.
    """
    total = int(hist.sum())
    if total == 0:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    cum = np.cumsum(hist)

    def quantile(q: float) -> float:
        rank = q * total
        b = int(np.searchsorted(cum, rank, side="left"))
        if b == 0:
            return 0.0
        below = float(cum[b - 1])
        low, high = float(2 ** (b - 1)), float(2**b)
        share = (rank - below) / float(hist[b])
        return float(min(low + share * (high - low), max_ns))

    return {"p50": quantile(0.5), "p99": quantile(0.99), "max": max_ns}
