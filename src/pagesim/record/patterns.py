"""Built-in replay patterns of ``pagesim kernel-check --pattern``: traces sized by the memory.

Each pattern is a trace of file-page reads over one file whose pages are numbered from 0 (the
page's offset in the file, so consecutive ids are consecutive pages and readahead sees them as a
sequential stream). Sizes are relative to the memory limit ``M`` (pages):

``loop``
    A sequential loop over ``1.5 M`` pages, repeated: every access misses under LRU-like
    policies; checks the basic charge/reclaim arithmetic.
``zipf-scan``
    Zipf-distributed reads (alpha 1.0, ranks shuffled over the file) over ``2 M`` pages, and in
    the middle one sequential scan of the whole file: does the scan wash the hot pages out?
``hot-stream``
    A hot set of ``0.4 M`` pages read round-robin, every other access, between the reads of a
    stream that loops over ``1.5 M`` other pages: do the hot pages stay while the stream
    passes? (A hot page is read again after ``0.8 M`` distinct pages: within the memory, but not
    at its edge; at ``0.5 M`` the reuse distance would be the limit itself and the kernel's own
    charges, a few dozen pages of page-cache tree nodes, decide.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pagesim.trace import KIND_FILE, OP_READ, Trace

__all__ = ["PATTERNS", "Pattern", "make_pattern"]

#: Accesses of a pattern when not given.
DEFAULT_ACCESSES = 200_000


def _loop(memory_pages: int, accesses: int, rng: np.random.Generator) -> np.ndarray:
    footprint = max(memory_pages * 3 // 2, 1)
    return np.arange(accesses, dtype=np.int64) % footprint


def _zipf_scan(memory_pages: int, accesses: int, rng: np.random.Generator) -> np.ndarray:
    footprint = max(memory_pages * 2, 2)
    ranks = np.arange(1, footprint + 1, dtype=np.float64)
    weights = ranks**-1.0
    cdf = np.cumsum(weights / weights.sum())
    scan = min(footprint, max(accesses // 4, 1))
    zipf_n = accesses - scan
    draws = np.searchsorted(cdf, rng.random(zipf_n), side="right")
    draws = np.minimum(draws, footprint - 1)
    perm = rng.permutation(footprint)
    zipf = perm[draws].astype(np.int64)
    half = zipf_n // 2
    return np.concatenate([zipf[:half], np.arange(scan, dtype=np.int64), zipf[half:]])


def _hot_stream(memory_pages: int, accesses: int, rng: np.random.Generator) -> np.ndarray:
    hot = max(memory_pages * 2 // 5, 1)
    stream = max(memory_pages * 3 // 2, 1)
    i = np.arange(accesses, dtype=np.int64)
    out = np.empty(accesses, dtype=np.int64)
    is_hot = i % 2 == 1
    n_hot = int(is_hot.sum())
    out[is_hot] = np.arange(n_hot, dtype=np.int64) % hot
    out[~is_hot] = hot + np.arange(accesses - n_hot, dtype=np.int64) % stream
    return out


@dataclass(frozen=True)
class Pattern:
    """A named pattern: ``generate(memory_pages, accesses, rng)`` -> page offsets (int64)."""

    name: str
    description: str
    generate: Callable[[int, int, np.random.Generator], np.ndarray]


PATTERNS: dict[str, Pattern] = {
    "loop": Pattern("loop", "sequential loop over 1.5x memory", _loop),
    "zipf-scan": Pattern("zipf-scan", "zipf (alpha 1) over 2x memory, one full scan midway", _zipf_scan),
    "hot-stream": Pattern("hot-stream", "hot set of 0.4x memory beside a stream over 1.5x", _hot_stream),
}


def make_pattern(name: str, memory_pages: int, accesses: int = DEFAULT_ACCESSES, seed: int = 1) -> Trace:
    """The trace of pattern ``name`` for a memory limit of ``memory_pages`` pages.

    Parameters
    ----------
    name : str
        A key of :data:`PATTERNS`.
    memory_pages : int
        The memory (cgroup limit) the pattern is sized for, in 4 KiB pages (at least 64).
    accesses : int
        Number of accesses (at least 1).
    seed : int
        Seed of the random draws (zipf-scan).

    Returns
    -------
    Trace
        File-page reads, one task (tag 0); ``original_id`` is the page's offset in the file;
        ``source`` names the pattern, its parameters and ``page_bytes`` (4096).

    Raises
    ------
    ValueError
        For an unknown name, fewer than 64 pages or no accesses.
    """
    if name not in PATTERNS:
        raise ValueError(f"unknown pattern {name!r}; known: {', '.join(PATTERNS)}")
    if memory_pages < 64:
        raise ValueError(f"a pattern needs a memory of at least 64 pages, got {memory_pages}")
    if accesses < 1:
        raise ValueError(f"a pattern needs at least one access, got {accesses}")
    ids = PATTERNS[name].generate(int(memory_pages), int(accesses), np.random.default_rng(seed))
    n = ids.size
    return Trace.from_ids(
        ids,
        kind=np.full(n, KIND_FILE, np.uint8),
        op=np.full(n, OP_READ, np.uint8),
        source={
            "format": "pattern",
            "pattern": name,
            "memory_pages": int(memory_pages),
            "accesses": int(accesses),
            "seed": int(seed),
            "page_bytes": 4096,
        },
    )
