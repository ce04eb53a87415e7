"""``stress-vm``: ``stress-ng --vm 8 --vm-bytes 9000M --vm-keep --vm-method write64`` in 8 GB.

Source: the CAST seed, Results. 8 workers each write through their own anonymous region, 9000 MB
in all, larger than memory. write64 writes every 64-bit word of the region in order, so at page
granularity a pass writes each page once; workers run in parallel, modelled as slices of
consecutive pages interleaved in a random order.
"""

from __future__ import annotations

import numpy as np

from pagesim.trace import KIND_ANON, OP_WRITE, Trace
from pagesim.workloads.kernel.common import SCALED_MEMORY_PAGES, _anon_ids, _interleave


def stress_vm(
    workers: int = 8,
    memory_pages: int = SCALED_MEMORY_PAGES,
    vm_bytes_ratio: float = 9000 / 8192,
    passes: int = 8,
    slice_pages: int = 64,
    seed: int = 0,
    stop: str = "first",
) -> Trace:
    """stress-ng --vm: ``workers`` tasks writing through private regions larger than memory together.

    Parameters
    ----------
    workers : int
        Number of vm workers (stress-ng ``--vm``).
    memory_pages : int
        Pages of the node the workload is sized for.
    vm_bytes_ratio : float
        All regions together, as a multiple of memory (``--vm-bytes 9000M`` in 8 GiB).
    passes : int
        Passes each worker makes over its region.
    slice_pages : int
        Pages a worker writes before another may run (the interleaving grain).
    seed : int
    stop : str
        ``"first"`` (default): the run ends when the first worker has made its ``passes``, as
        stress-ng's ``--timeout`` stops every worker at once (a worker whose region stays
        resident makes more passes meanwhile rather than finishing early and leaving its memory
        to the others); ``"all"``: every worker makes all its passes. Kernel mode reads it from
        ``source["stop"]`` (:class:`pagesim.engine.memory.KernelConfig`).

    Returns
    -------
    Trace
        ``workers * passes * region`` anon writes; tag = worker. One access is one page
        written: stress-ng's write64 counts a bogo op per 256 bytes and reports the count
        shifted right by 12 (``VM_BOGO_SHIFT``, stress-vm.c), so its bogo op is 1 MiB written,
        256 of these accesses (bogo ops/s = ops/s / 256; every ratio is the same).
    """
    if workers <= 0 or passes <= 0 or memory_pages <= 0 or slice_pages <= 0:
        raise ValueError("workers, passes, memory_pages and slice_pages must be positive")
    if stop not in ("first", "all"):
        raise ValueError(f"stop must be 'first' or 'all', got {stop!r}")
    region = max(int(round(memory_pages * vm_bytes_ratio / workers)), 1)
    rng = np.random.default_rng(seed)
    streams = [np.tile(_anon_ids(w, np.arange(region)), passes) for w in range(workers)]
    ids, tags = _interleave(streams, slice_pages, rng)
    n = ids.size
    return Trace.from_ids(
        ids,
        kind=np.full(n, KIND_ANON, np.uint8),
        op=np.full(n, OP_WRITE, np.uint8),
        tag=tags,
        source={
            "format": "workload",
            "workload": "stress-vm",
            "params": {
                "workers": workers,
                "memory_pages": memory_pages,
                "vm_bytes_ratio": vm_bytes_ratio,
                "passes": passes,
                "slice_pages": slice_pages,
                "seed": seed,
                "stop": stop,
            },
            "memory_pages": memory_pages,
            "region_pages": region,
            "stop": stop,
            "groups": {"worker": list(range(workers))},
        },
    )
