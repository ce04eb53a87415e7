"""``posix_fadvise`` calls a trace's tasks make: :class:`FileAdvice`, kept beside a trace.

A call is made by the task of one access, just before that access runs (``row``); its range is
given in source ids (a file's pages have consecutive ids in pagesim's workloads). Kernel mode
carries the calls out as Linux 6.6's ``generic_fadvise`` (mm/fadvise.c) does
(:mod:`pagesim.engine.kmode.fadvise` says how each hint is modelled); cache mode has no fadvise.
The hint numbers are Linux's (include/uapi/linux/fadvise.h).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

POSIX_FADV_NORMAL = 0
POSIX_FADV_RANDOM = 1
POSIX_FADV_SEQUENTIAL = 2
POSIX_FADV_WILLNEED = 3
POSIX_FADV_DONTNEED = 4
POSIX_FADV_NOREUSE = 5

#: The hints kernel mode carries out, by name (WILLNEED, a forced readahead of the range, is not
#: modelled and is refused).
FADVISE_HINTS: dict[str, int] = {
    "NORMAL": POSIX_FADV_NORMAL,
    "RANDOM": POSIX_FADV_RANDOM,
    "SEQUENTIAL": POSIX_FADV_SEQUENTIAL,
    "DONTNEED": POSIX_FADV_DONTNEED,
    "NOREUSE": POSIX_FADV_NOREUSE,
}


def hint_code(name: str) -> int:
    """The Linux number of a hint given by name (``sequential``, ``POSIX_FADV_DONTNEED``...).

    Raises
    ------
    ValueError
        For an unknown hint or WILLNEED (not modelled).
    """
    key = str(name).strip().upper().removeprefix("POSIX_FADV_")
    if key not in FADVISE_HINTS:
        raise ValueError(f"unknown or unmodelled fadvise hint {name!r}; known: {', '.join(FADVISE_HINTS)}")
    return FADVISE_HINTS[key]


@dataclass(frozen=True)
class FileAdvice:
    """``posix_fadvise`` calls, each made by the task of access ``row`` just before it runs.

    Attributes
    ----------
    row : numpy.ndarray of int64, shape (k,)
        The trace row (access) each call precedes; the caller is that access's task (``tag``).
    hint : numpy.ndarray of int64, shape (k,)
        ``POSIX_FADV_*`` (Linux's numbers, :data:`FADVISE_HINTS`).
    first, last : numpy.ndarray of int64, shape (k,)
        The range, source ids of its first and last page (inclusive). Only DONTNEED reads it:
        NORMAL, RANDOM, SEQUENTIAL and NOREUSE set the calling file handle's mode.
    """

    row: np.ndarray
    hint: np.ndarray
    first: np.ndarray
    last: np.ndarray

    def __post_init__(self) -> None:
        for name in ("row", "hint", "first", "last"):
            object.__setattr__(self, name, np.ascontiguousarray(getattr(self, name), dtype=np.int64))
        k = self.row.shape
        if len(k) != 1 or any(getattr(self, n).shape != k for n in ("hint", "first", "last")):
            raise ValueError("FileAdvice: row, hint, first and last must be 1-d and of one length")
        bad = ~np.isin(self.hint, list(FADVISE_HINTS.values()))
        if bad.any():
            raise ValueError(
                f"FileAdvice: call {int(np.flatnonzero(bad)[0])} has hint {int(self.hint[bad][0])}; "
                f"known: {FADVISE_HINTS} (WILLNEED is not modelled)"
            )
        if (self.last < self.first).any():
            raise ValueError("FileAdvice: a range ends before it starts (last < first)")

    def __len__(self) -> int:
        return int(self.row.shape[0])

    def check(self, n_requests: int) -> None:
        """Raise ValueError if a call's row is not an access of a trace of ``n_requests``."""
        if len(self) and (self.row.min() < 0 or self.row.max() >= n_requests):
            raise ValueError(f"FileAdvice: rows must be accesses of the trace (0 .. {n_requests - 1})")

    def pages(self, original_id: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each call's range as dense page ids of a trace whose pages have ``original_id``.

        Returns
        -------
        (ptr, pages) : numpy.ndarray of int64, shapes (k + 1,) and (m,)
            Call ``i``'s pages are ``pages[ptr[i]:ptr[i + 1]]`` (empty but for DONTNEED), in id
            order: the pages of the trace whose source ids lie in ``[first, last]``.

        Raises
        ------
        ValueError
            If a DONTNEED range is given on a trace whose ids are not integers.
        """
        dont = self.hint == POSIX_FADV_DONTNEED
        ptr = np.zeros(len(self) + 1, dtype=np.int64)
        if not dont.any():
            return ptr, np.zeros(0, dtype=np.int64)
        ids = np.asarray(original_id)
        if not np.issubdtype(ids.dtype, np.integer):
            raise ValueError("FileAdvice: DONTNEED ranges need a trace with integer source ids")
        order = np.argsort(ids, kind="stable").astype(np.int64)
        sorted_ids = ids[order].astype(np.int64)
        lo = np.searchsorted(sorted_ids, self.first, "left")
        hi = np.searchsorted(sorted_ids, self.last, "right")
        count = np.where(dont, hi - lo, 0)
        np.cumsum(count, out=ptr[1:])
        pages = np.concatenate([order[a:b] for a, b, d in zip(lo, hi, dont) if d]) if ptr[-1] else order[:0]
        return ptr, np.ascontiguousarray(pages, dtype=np.int64)
