"""Per-access and per-page inputs kernel mode derives from a trace: release times (ns of model
time), each page's device address, and each file page's readahead successor.
"""

from __future__ import annotations

import numpy as np

from pagesim.trace import Trace


def release_times(trace: Trace) -> np.ndarray:
    """Each access's earliest start in model time (ns), or an empty array if it has none.

    A trace says its ``time`` column holds release times by ``source["time_is_release"]``
    (kernel workloads set it, in ns: a task that reads every 100 ms sleeps in between). Other
    timestamps (a recorded trace's wall clock, in its own unit) are not used.

    Returns
    -------
    numpy.ndarray of int64, shape (n_requests,) or (0,)

    Raises
    ------
    ValueError
        If the trace says its times are release times but not in ns.
    """
    if trace.time is None or not trace.source.get("time_is_release"):
        return np.zeros(0, dtype=np.int64)
    if trace.source.get("time_unit", "ns") != "ns":
        raise ValueError("release times must be in ns (source['time_unit'] == 'ns')")
    return np.ascontiguousarray(trace.time, dtype=np.int64)


def _first_access(page: np.ndarray, n_pages: int) -> np.ndarray:
    """Each page's first access (row), NEVER for a page the trace never reads."""
    first = np.full(n_pages, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, page, np.arange(page.shape[0], dtype=np.int64))
    return first


def device_addresses(trace: Trace, n_pages: int) -> np.ndarray:
    """Each page's address on its device, to tell sequential requests from seeks.

    A file page's address is its source id (workload generators and readers number a file's
    blocks consecutively); an anon page's is replaced by its swap slot when it is swapped out.

    Returns
    -------
    numpy.ndarray of int64, shape (n_pages,)
    """
    addr = np.zeros(n_pages, dtype=np.int64)
    ids = np.asarray(trace.original_id)
    if ids.size and np.issubdtype(ids.dtype, np.integer):
        addr[: ids.size] = ids.astype(np.int64, copy=False)
    else:
        addr[: ids.size] = np.arange(ids.size, dtype=np.int64) * 2  # unknown: every read seeks
    return addr


def file_successors(trace: Trace) -> np.ndarray:
    """For every page, the page holding the next block of the same file, or -1.

    A file page's successor is the file page whose source id is one higher (workload
    generators give each file a contiguous range of ids). Anon pages have none.

    Returns
    -------
    numpy.ndarray of int64, shape (n_pages,)
    """
    n = trace.n_pages
    nxt = np.full(max(n, 1), -1, dtype=np.int64)
    if n == 0:
        return nxt
    first = np.full(n, -1, dtype=np.int64)
    idx = np.arange(trace.n_requests - 1, -1, -1)
    first[trace.page[idx]] = idx  # the earliest access wins (written last)
    is_file = trace.kind[first] == 0
    pages = np.flatnonzero(is_file)
    if pages.size < 2:
        return nxt
    orig = trace.original_id[pages]
    order = np.argsort(orig, kind="stable")
    sp, so = pages[order], orig[order]
    follows = so[1:] == so[:-1] + 1
    nxt[sp[:-1][follows]] = sp[1:][follows]
    return nxt
