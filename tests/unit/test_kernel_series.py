"""Kernel mode's time series: the last point counts the accesses run, not those skipped."""

from __future__ import annotations

from pagesim.engine.kernel import simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.linux_lru import LinuxLRU
from pagesim.workloads.kernel import make_kernel_workload


def test_last_point_under_stop_first_counts_accesses_run() -> None:
    """stress-vm stops when its first worker is done (stop=first): the rest are skipped, and
    the series' last point is at the accesses that ran (stress-vm only writes: each one is an
    op), not at the trace's length."""
    trace = make_kernel_workload("stress-vm", memory_pages=1024)
    r = simulate_kernel(trace, LinuxLRU(), KernelConfig(memory_pages=1024), sample_every=5000)
    skipped = r.counters["stopped_accesses"]
    assert skipped > 0
    assert r.series["access"][-1] == trace.n_requests - skipped == r.ops
    assert r.series["access"] == sorted(r.series["access"])
