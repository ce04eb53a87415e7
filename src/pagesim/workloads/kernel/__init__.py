"""Workloads for kernel mode: the seeds' experiments as seeded access generators.

Each generator returns a :class:`~pagesim.trace.Trace` with ``kind`` (anon/file), ``op``, ``tag``
(the task) and, in ``source``, the node it was designed for (``memory_pages``), so that
``pagesim run NAME`` simulates it on that node unless told otherwise. Defaults are the seeds'
setups scaled down 64 times (8 GiB -> 128 MiB = 32,768 pages) to run in seconds; the full sizes
are a parameter away (``memory_pages=2097152``).

* ``stress-vm`` -- ``stress-ng --vm 8 --vm-bytes 9000M --vm-keep --vm-method write64`` in 8 GB
  (CAST seed, Results): 8 workers each writing through its own anonymous region, 9000 MB in all,
  larger than memory. write64 writes every 64-bit word of the region in order, so at page
  granularity a pass writes each page once; workers run in parallel, modelled as slices of
  consecutive pages interleaved in a random order.
* ``stream-ws`` -- a 300 MB working set (of 8 GB) read every 100 ms while ``tail /dev/zero``
  buffers its input without end until the OOM killer takes it (CAST seed): task 0 reads its
  anonymous working set once per period; task 1 writes ``stream_pages_per_period`` new anonymous
  pages per period and never touches them again.
* ``mix`` -- cold anonymous memory beside a file working set larger than memory (CAST seed:
  anon's share should fall to its floor): task 0 allocates ``anon_share`` of memory once; task 1
  reads a file of ``file_factor`` times memory sequentially, ``passes`` times. With ``stages``
  the mix changes during the run (the split study's changing conditions).

Modules: :mod:`.common` (the scaled node, page ids, interleaving), :mod:`.stress_vm_workload`,
:mod:`.stream_ws_workload`, :mod:`.mix_workload`, :mod:`.study` (the split study's conditions); the
registry (:data:`KERNEL_WORKLOADS`, with the cache_ext workloads of
:mod:`pagesim.workloads.cache_ext`) and :func:`make_kernel_workload` are here.
"""

from __future__ import annotations

from typing import Any

from pagesim.trace import Trace
from pagesim.workloads.cache_ext import CACHE_EXT_WORKLOADS
from pagesim.workloads.kernel.common import SCALED_MEMORY_PAGES
from pagesim.workloads.kernel.mix_workload import MIX_ANON_PATTERNS, MIX_FILE_PATTERNS, mix
from pagesim.workloads.kernel.stream_ws_workload import stream_ws
from pagesim.workloads.kernel.stress_vm_workload import stress_vm
from pagesim.workloads.kernel.study import MIX_CHANGES, mix_study_conditions
from pagesim.workloads.synthetic import Workload

#: name -> Workload for kernel mode (``pagesim run NAME``).
KERNEL_WORKLOADS: dict[str, Workload] = {
    "stress-vm": Workload(
        stress_vm,
        {
            "workers": 8,
            "memory_pages": SCALED_MEMORY_PAGES,
            "vm_bytes_ratio": 9000 / 8192,
            "passes": 8,
            "slice_pages": 64,
            "seed": 0,
            "stop": "first",
        },  # fmt: skip
        "stress-ng --vm 8 --vm-bytes 9000M --vm-method write64 in 8 GB, scaled 1/64: anon > memory",
    ),
    "stream-ws": Workload(
        stream_ws,
        {
            "memory_pages": SCALED_MEMORY_PAGES,
            "ws_ratio": 300 / 8192,
            "stream_pages_per_period": None,
            "swap_ratio": 1.0,
            "extra_periods": 20,
            "period_ms": None,
            "seed": 0,
        },  # fmt: skip
        "a 300 MB working set read every period while `tail /dev/zero` grows until OOM (scaled 1/64)",
    ),
    "mix": Workload(
        mix,
        {
            "memory_pages": SCALED_MEMORY_PAGES,
            "anon_share": 0.65,
            "file_factor": 1.5,
            "passes": 4,
            "file_pattern": "zipf",
            "anon_pattern": "cold",
            "anon_accesses": 0.0,
            "alpha": 0.9,
            "accesses": None,
            "pace_ns": 0.0,
            "seed": 0,
            "stages": None,
            "anon_ratio": None,
            "anon_same_filled": 0.0,
        },  # fmt: skip
        "anon beside a file 1.5x memory; default: cold anon (65%), a zipf file working set "
        "(file_pattern loop|zipf|scan|phases|uniform, anon_pattern cold|zipf|loop|uniform)",
    ),
}


def make_kernel_workload(name: str, **params: Any) -> Trace:
    """Generate kernel workload ``name`` with parameter overrides.

    Raises
    ------
    ValueError
        If the name or a parameter is unknown.
    """
    if name not in KERNEL_WORKLOADS:
        raise ValueError(f"unknown kernel workload {name!r}; known: {', '.join(KERNEL_WORKLOADS)}")
    w = KERNEL_WORKLOADS[name]
    unknown = set(params) - set(w.defaults)
    if unknown:
        raise ValueError(
            f"{name} has no parameter {', '.join(sorted(unknown))}; known: {', '.join(w.defaults)}"
        )
    return w.function(**{**w.defaults, **params})


#: the cache_ext paper's workloads run in kernel mode too
KERNEL_WORKLOADS.update(CACHE_EXT_WORKLOADS)

__all__ = [
    "SCALED_MEMORY_PAGES",
    "stress_vm",
    "stream_ws",
    "MIX_ANON_PATTERNS",
    "MIX_FILE_PATTERNS",
    "mix",
    "MIX_CHANGES",
    "mix_study_conditions",
    "KERNEL_WORKLOADS",
    "make_kernel_workload",
]
