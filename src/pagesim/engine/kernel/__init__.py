"""Kernel mode's public entry point: run policies over a trace on a simulated Linux node.

The Python driver, one module per part: :mod:`.run` (:class:`KernelRun`, :func:`simulate_kernel`,
policy switches), :mod:`.result` (:class:`KernelResult`, the latency summary), :mod:`.node` (the
node's arrays from a :class:`KernelConfig`), :mod:`.inputs` (release times, device addresses,
readahead successors). Every public name is re-exported here.

See :mod:`pagesim.engine.kmode` for what each access does (the compiled loop, one module per
subsystem) and :mod:`pagesim.engine.memory` for the node, its devices and their default figures.
"""

from __future__ import annotations

from pagesim.engine.kernel.inputs import device_addresses, file_successors, release_times
from pagesim.engine.kernel.node import FILE_BDI, SWAP_BDI, make_kframework
from pagesim.engine.kernel.result import KernelResult, _latency_summary
from pagesim.engine.kernel.run import KernelRun, simulate_kernel
from pagesim.engine.memory import KernelConfig

__all__ = [
    "FILE_BDI",
    "SWAP_BDI",
    "KernelConfig",
    "KernelResult",
    "KernelRun",
    "_latency_summary",
    "device_addresses",
    "file_successors",
    "make_kframework",
    "release_times",
    "simulate_kernel",
]
