"""A sweep's traces: read or generated once, stored as an uncompressed ``.pgt``, mapped by workers.

The parent reads each trace once (a file in any format, or a ``workload:`` generator with its
seed), takes its content digest and writes it as an uncompressed ``.pgt`` named by that digest
into the sweep's trace folder (``results.db-traces/`` beside the database). Workers map that file
(:func:`pagesim.trace.read_trace` with ``mmap=True``): every worker on a machine shares the same
pages of the page cache, and a worker keeps a trace mapped for all its runs on it, never one copy
per run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from pagesim.sweep.grid import WORKLOAD_PREFIX, _typed
from pagesim.sweep.keys import trace_digest
from pagesim.trace import Trace, read_trace, write_trace
from pagesim.workloads import WORKLOADS, make_workload
from pagesim.workloads.kernel import KERNEL_WORKLOADS, make_kernel_workload

__all__ = ["TraceRef", "load_spec", "open_mapped", "seeded_spec", "takes_seed"]


@dataclass(frozen=True)
class TraceRef:
    """Where a worker finds a trace.

    Attributes
    ----------
    spec : str
        The trace as the grid names it (file path or ``workload:`` spec with its seed).
    digest : str
        Content digest (:func:`pagesim.sweep.keys.trace_digest`).
    pgt : str
        The uncompressed ``.pgt`` copy to map.
    n_requests, n_pages : int
    """

    spec: str
    digest: str
    pgt: str
    n_requests: int
    n_pages: int


def _workload(spec: str) -> tuple[str, dict[str, str]]:
    name, _, query = spec.removeprefix(WORKLOAD_PREFIX).partition("?")
    return name.strip(), dict(parse_qsl(query, keep_blank_values=True))


def takes_seed(spec: str) -> bool:
    """True if ``spec`` is a generator that takes a seed and does not set one itself."""
    if not spec.startswith(WORKLOAD_PREFIX):
        return False
    name, params = _workload(spec)
    known = WORKLOADS.get(name) or KERNEL_WORKLOADS.get(name)
    return known is not None and "seed" in known.defaults and "seed" not in params


def seeded_spec(spec: str, seed: int | None) -> str:
    """``spec`` with ``seed=`` added when it takes one (see :func:`takes_seed`)."""
    if seed is None or not takes_seed(spec):
        return spec
    return f"{spec}{'&' if '?' in spec else '?'}seed={seed}"


def load_spec(spec: str) -> Trace:
    """Read a trace file or generate a ``workload:NAME?key=value&...`` trace.

    Cache-mode generators (``pagesim workloads``) and kernel-mode ones (``stress-vm``, ``mix``,
    the cache_ext workloads) are both accepted; their parameters are typed by their defaults.

    Raises
    ------
    FileNotFoundError, ValueError, TraceFormatError
        As :func:`pagesim.trace.read_trace` and the generators.
    """
    if not spec.startswith(WORKLOAD_PREFIX):
        if os.path.isdir(spec):
            raise ValueError(f"{spec} is a directory, not a trace file")
        return read_trace(spec)
    name, params = _workload(spec)
    if name in WORKLOADS:
        return make_workload(name, **params)
    if name in KERNEL_WORKLOADS:
        defaults = KERNEL_WORKLOADS[name].defaults
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise ValueError(
                f"workload {name}: unknown parameter(s) {', '.join(unknown)}; known: {', '.join(defaults)}"
            )
        typed = {k: _typed(v, defaults[k], f"workload {name}, parameter {k}") for k, v in params.items()}
        return make_kernel_workload(name, **typed)
    known = ", ".join([*WORKLOADS, *(k for k in KERNEL_WORKLOADS if k not in WORKLOADS)])
    raise ValueError(f"unknown workload {name!r}; known: {known}")


def store_trace(spec: str, folder: str) -> TraceRef:
    """Load ``spec``, write its ``.pgt`` (if not there yet) into ``folder``; its reference."""
    trace = load_spec(spec)
    digest = trace_digest(trace)
    os.makedirs(folder, exist_ok=True)
    pgt = os.path.join(folder, f"{digest}.pgt")
    if not os.path.exists(pgt):
        partial = f"{pgt}.{os.getpid()}.part"
        write_trace(trace, partial, format="pagesim", compress=False)
        os.replace(partial, pgt)  # atomic: a killed sweep never leaves half a trace
    return TraceRef(spec, digest, os.path.abspath(pgt), trace.n_requests, trace.n_pages)


_MAPPED: dict[str, Trace] = {}


def open_mapped(ref: TraceRef) -> Trace:
    """The trace of ``ref`` in this process: mapped once, then kept for later runs.

    Falls back to reading ``ref.spec`` when the ``.pgt`` is not reachable (a cluster worker
    without the sweep's folder), and checks the digest then.

    Raises
    ------
    ValueError
        If the trace read from its spec no longer has the sweep's digest (the file changed).
    """
    trace = _MAPPED.get(ref.digest)
    if trace is not None:
        return trace
    if os.path.exists(ref.pgt):
        trace = read_trace(ref.pgt, format="pagesim", mmap=True)
    else:
        trace = load_spec(ref.spec)
        if trace_digest(trace) != ref.digest:
            raise ValueError(f"{ref.spec} changed since the sweep was planned (content digest differs)")
    _MAPPED[ref.digest] = trace
    return trace


def forget_traces(keep: Any = ()) -> None:
    """Unmap every trace but those whose digest is in ``keep``."""
    for digest in list(_MAPPED):
        if digest not in keep:
            del _MAPPED[digest]
