"""What the kernel workloads share: the scaled node's size, source ids of anon and file pages, and
the interleaving of tasks' accesses in slices.
"""

from __future__ import annotations

import numpy as np

SCALED_MEMORY_PAGES = 32768  #: 8 GiB / 64, in 4 KiB pages


def _anon_ids(task: int, pages: np.ndarray) -> np.ndarray:
    """Source ids of a task's anonymous pages: the task in the high bits, the page below."""
    return (np.int64(task + 1) << np.int64(40)) | pages.astype(np.int64)


def _file_ids(file_no: int, pages: np.ndarray) -> np.ndarray:
    """Source ids of a file's pages: consecutive, so readahead finds the next page."""
    return (np.int64(1) << np.int64(60)) + np.int64(file_no << 32) + pages.astype(np.int64)


def _interleave(
    streams: list[np.ndarray], slice_len: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Merge per-task access arrays in slices of ``slice_len``, tasks in random order each round.

    Returns the merged ids and the task of each access.
    """
    chunks: list[tuple[int, np.ndarray]] = []
    pos = [0] * len(streams)
    while True:
        live = [i for i, s in enumerate(streams) if pos[i] < s.size]
        if not live:
            break
        for i in rng.permutation(live):
            s = streams[i]
            chunks.append((int(i), s[pos[i] : pos[i] + slice_len]))
            pos[i] += slice_len
    ids = np.concatenate([c for _, c in chunks]) if chunks else np.zeros(0, np.int64)
    tags = (
        np.concatenate([np.full(c.size, t, np.int32) for t, c in chunks]) if chunks else np.zeros(0, np.int32)
    )
    return ids, tags
