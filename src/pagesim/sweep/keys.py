"""Identities: a trace's content digest and a run's key.

A run's key is the SHA-256 of the canonical JSON of everything that decides its counters: the
trace's content digest, the policy name, every parameter value (defaults included, so that
``s3fifo`` and ``s3fifo?small_ratio=0.1`` at the default share a key), the size in pages, the
mode, the warm-up in accesses, the seed and pagesim's version. Two runs with one key give the
same counters; a sweep skips a run whose key is already stored as done.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

import pagesim
from pagesim.trace import Trace

__all__ = ["run_key", "trace_digest"]

_COLUMNS = ("page", "kind", "op", "cgroup", "tag", "size", "time", "original_id")


def trace_digest(trace: Trace) -> str:
    """BLAKE2b-128 hex digest of a trace's columns (names, dtypes, shapes and bytes).

    Two traces with equal columns have one digest whatever file or generator they came from;
    ``source`` metadata is not part of it.
    """
    h = hashlib.blake2b(digest_size=16)
    for name in _COLUMNS:
        arr = getattr(trace, name)
        if arr is None:
            h.update(f"{name}:none;".encode())
            continue
        arr = np.ascontiguousarray(arr)
        h.update(f"{name}:{arr.dtype.str}:{arr.shape[0]};".encode())
        h.update(memoryview(arr).cast("B"))
    return h.hexdigest()


def run_key(
    digest: str,
    policy: str,
    values: dict[str, Any],
    size_pages: int,
    mode: str,
    warmup: int,
    seed: int | None,
    version: str | None = None,
) -> str:
    """The run's key: SHA-256 hex (first 32 digits) of its identity (see the module docstring).

    Parameters
    ----------
    digest : str
        :func:`trace_digest` of the trace.
    policy : str
        Policy name as given (registry name or file spec).
    values : dict
        Every parameter value of the configured policy (``Policy.values``).
    size_pages : int
        Cache size (cache mode) or node memory (kernel mode), pages.
    mode : str
    warmup : int
        Warm-up accesses.
    seed : int or None
    version : str, optional
        pagesim's version (default: the running one).
    """
    identity = {
        "trace": digest,
        "policy": policy,
        "params": {k: _plain(v) for k, v in sorted(values.items())},
        "size_pages": int(size_pages),
        "mode": mode,
        "warmup": int(warmup),
        "seed": seed,
        "version": version or pagesim.__version__,
    }
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
