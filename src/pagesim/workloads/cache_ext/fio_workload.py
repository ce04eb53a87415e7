"""fio ``randread`` as cache_ext's CPU-overhead test ran it (cache_ext spec §5.8, paper Table 4).

8 jobs of buffered 4 KiB random reads over one file (``ensure_random_file``: 10 GiB) in a cgroup
of 5, 10 or 30 GiB, all scaled by ``scale``.
"""

from __future__ import annotations

import numpy as np

from pagesim.workloads.cache_ext.ops import _R_MAIN, GIB_PAGES, OP_FILE, OpTrace, _finish, _ids, _scaled


def build_fio(
    cgroup_gib: float = 10.0,
    scale: float = 1 / 1024,
    file_gib: float = 10.0,
    jobs: int = 8,
    reads_per_page: float = 1.6,
    seed: int = 0,
) -> OpTrace:
    """fio randread, 4 KiB, buffered, ``jobs`` jobs over one file (paper Table 4).

    Parameters
    ----------
    cgroup_gib, file_gib : float
        The cgroup's ``memory.max`` and the file's size, GiB of the paper's setup (times
        ``scale``).
    scale : float
        Of the paper's setup.
    jobs : int
        fio jobs (threads); read ``i`` is job ``i % jobs``'s.
    reads_per_page : float
        Reads in all, per page of the file: the paper's runs last 60 s at about 70,000 reads/s
        (cache_ext_results §9), 4.2 M reads over the 2.6 M pages of 10 GiB.
    seed : int

    Returns
    -------
    OpTrace
        One operation (``OP_FILE``) per 4 KiB read; groups ``{"fio": tags}``.

    Raises
    ------
    ValueError
        For a non-positive size, scale, job count or read count.
    """
    if min(cgroup_gib, file_gib, scale, jobs, reads_per_page) <= 0:
        raise ValueError("cgroup_gib, file_gib, scale, jobs and reads_per_page must be positive")
    file_pages = _scaled(file_gib * GIB_PAGES, scale, 64)
    limit = _scaled(cgroup_gib * GIB_PAGES, scale, 32)
    n = int(round(file_pages * reads_per_page))
    rng = np.random.default_rng(seed)
    ids = _ids(_R_MAIN, 0, rng.integers(0, file_pages, n))
    params = {"cgroup_gib": cgroup_gib, "scale": scale, "file_gib": file_gib, "jobs": jobs,
              "reads_per_page": reads_per_page, "seed": seed}  # fmt: skip
    return _finish(
        np.arange(n, dtype=np.int64), ids, np.zeros(n, np.uint8), np.full(n, OP_FILE, np.uint8),
        (np.arange(n) % jobs).astype(np.int32),
        name="fio", params=params, cgroup_pages=[limit], groups={"fio": list(range(jobs))},
        extra={"file_pages": file_pages},
    )  # fmt: skip
