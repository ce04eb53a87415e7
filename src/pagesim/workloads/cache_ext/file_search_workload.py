"""ripgrep over a source tree, ``passes`` times (cache_ext spec §5.4, paper Fig. 9).

The paper's setup is a 1 GiB cgroup and a Linux 6.6 tree of about 1.4 GiB, scaled by ``scale``
(:func:`build_file_search`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.trace import Trace
from pagesim.workloads.cache_ext.ops import _R_TREE, GIB_PAGES, OP_FILE, PAGE, OpTrace, _finish, _ids, _scaled


def _tree_files(tree_pages: int, rng: np.random.Generator) -> np.ndarray:
    """File sizes in pages of a source tree of about ``tree_pages`` (log-normal, median 8 KiB)."""
    sizes: list[np.ndarray] = []
    total = 0
    while total < tree_pages:
        draw = np.ceil(rng.lognormal(np.log(8192), 1.1, 4096) / PAGE).astype(np.int64)
        draw = np.clip(draw, 1, 256)
        sizes.append(draw)
        total += int(draw.sum())
    all_sizes = np.concatenate(sizes)
    keep = int(np.searchsorted(np.cumsum(all_sizes), tree_pages)) + 1
    return all_sizes[:keep]


def build_file_search(
    scale: float = 1 / 64,
    passes: int = 10,
    threads: int = 1,
    tree_ratio: float = 1.4,
    cgroup: int = 0,
    tag_base: int = 0,
    seed: int = 0,
) -> OpTrace:
    """ripgrep over a source tree, ``passes`` times (cache_ext spec §5.4, paper Fig. 9).

    Parameters
    ----------
    scale : float
        Of the paper's setup: a 1 GiB cgroup and a Linux 6.6 tree of ~1.4 GiB (default 1/64:
        16 MiB = 4,096 pages and a tree of about 5,700).
    passes : int
        Searches of the whole tree, each file read from start to end in the same order.
    threads : int
        Search threads; file ``i`` of each pass on tag ``tag_base + i % threads``.
    tree_ratio : float
        The tree's size over the cgroup's (the paper: about 1/0.7).
    cgroup, tag_base : int
        Where the search runs (to combine it with another workload).
    seed : int

    Returns
    -------
    OpTrace
        One operation per file read (``OP_FILE``); groups ``{"search": tags}``.
    """
    if passes <= 0 or threads <= 0 or scale <= 0:
        raise ValueError("passes, threads and scale must be positive")
    limit = _scaled(GIB_PAGES, scale, 64)
    rng = np.random.default_rng(seed)
    sizes = _tree_files(int(limit * tree_ratio), rng)
    n_files = sizes.shape[0]
    file_of = np.repeat(np.arange(n_files, dtype=np.int64), sizes)
    starts = np.cumsum(sizes) - sizes
    page_in = np.arange(file_of.shape[0], dtype=np.int64) - starts[file_of]
    one_pass = _ids(_R_TREE, file_of, page_in)
    ids = np.tile(one_pass, passes)
    op_of = np.repeat(np.arange(passes, dtype=np.int64) * n_files, one_pass.shape[0]) + np.tile(
        file_of, passes
    )
    kinds = np.full(passes * n_files, OP_FILE, np.uint8)
    tags = (tag_base + np.arange(passes * n_files) % n_files % threads).astype(np.int32)
    params = {"scale": scale, "passes": passes, "threads": threads, "tree_ratio": tree_ratio,
              "cgroup": cgroup, "tag_base": tag_base, "seed": seed}  # fmt: skip
    limits = [limit] if cgroup == 0 else [1] * cgroup + [limit]
    return _finish(
        op_of, ids, np.zeros(ids.shape[0], np.uint8), kinds, tags,
        name="file-search", params=params, cgroup_pages=limits,
        groups={"search": list(range(tag_base, tag_base + threads))},
        op_cgroup=np.full(kinds.shape[0], cgroup, np.int64),
        extra={"tree_pages": int(sizes.sum()), "files": int(n_files), "passes": passes},
    )  # fmt: skip


def file_search(**params: Any) -> Trace:
    """:func:`build_file_search`'s trace."""
    return build_file_search(**params).trace
