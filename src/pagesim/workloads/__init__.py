"""Workload generators: seeded synthetic traces (see :mod:`pagesim.workloads.synthetic`)."""

from pagesim.workloads.synthetic import (
    WORKLOADS,
    Workload,
    from_spec,
    loop,
    make_workload,
    phases,
    scan,
    uniform,
    zipf,
    zipf_probabilities,
)

__all__ = [
    "WORKLOADS",
    "Workload",
    "from_spec",
    "loop",
    "make_workload",
    "phases",
    "scan",
    "uniform",
    "zipf",
    "zipf_probabilities",
]
