"""The cache_ext paper's workloads for kernel mode: YCSB, Twitter, file search, GET-SCAN, compaction.

Source: cache_ext spec §5 (``shared/reference/cache_ext_spec.md``; Zussman et al., "cache_ext:
Customizing the Page Cache with eBPF", SOSP 2025, §6, Figs. 6-11, §6.1.5). Each generator returns
an :class:`OpTrace`: the page accesses as a :class:`~pagesim.trace.Trace` (``kind`` file, read
through ``read()``; ``tag`` = thread; ``cgroup``) and, per access, the application operation it
belongs to, so that experiments can report operations per second and per-operation latency. The
registered functions (:data:`CACHE_EXT_WORKLOADS`, merged into ``KERNEL_WORKLOADS``) return the
trace alone.

Sizes are the paper's times ``scale`` (default 1/1024: the 10 GiB cgroup of LevelDB becomes
10 MiB = 2,560 pages, the 100 GiB database about 114 MiB); ``scale=1`` is the full size. The trace's
``source`` carries ``memory_pages`` (the node), ``cgroup_pages`` (``memory.max`` per cgroup),
``groups`` (thread roles -> tags) and ``ops``.

Modules: :mod:`.ops` (the operation trace and its assembly, sizes, operation kinds), :mod:`.keys`
(YCSB's key generators, LevelDB's table cache as an LRU set), :mod:`.leveldb` (the LevelDB model:
layouts, the table cache, a GET's, a scan's and a write's pages), and one module per workload:
:mod:`.ycsb_workload`, :mod:`.seek` (LevelDB's seek compactions), :mod:`.twitter_workload`,
:mod:`.file_search_workload`, :mod:`.get_scan_workload`, :mod:`.compaction_workload`. Every public
name is re-exported here.
"""

from __future__ import annotations

from pagesim.workloads.cache_ext.compaction_workload import (
    build_compaction,
    compaction,
)
from pagesim.workloads.cache_ext.file_search_workload import (
    build_file_search,
    file_search,
)
from pagesim.workloads.cache_ext.fio_workload import build_fio
from pagesim.workloads.cache_ext.get_scan_workload import (
    build_get_scan,
    get_scan,
    scan_fadvise,
)
from pagesim.workloads.cache_ext.keys import (
    LRUSet,
    fnv1a64,
    lru_hits,
    scrambled_zipfian,
    ycsb_zipfian,
)
from pagesim.workloads.cache_ext.leveldb import (
    LevelDBLayout,
)
from pagesim.workloads.cache_ext.ops import (
    DEFAULT_SCALE,
    GIB_PAGES,
    LEVEL1_PAGES,
    OP_COMPACT,
    OP_FILE,
    OP_GET,
    OP_INSERT,
    OP_NAMES,
    OP_RMW,
    OP_SCAN,
    OP_UPDATE,
    PAGE,
    OpTrace,
)
from pagesim.workloads.cache_ext.seek import (
    SeekCompactions,
    pace_compactions,
)
from pagesim.workloads.cache_ext.twitter_workload import (
    TWITTER_CLUSTERS,
    TWITTER_STATS,
    ClusterStats,
    TwitterOps,
    build_twitter,
    read_twitter_csv,
    synthetic_twitter,
    twitter,
    write_twitter_csv,
)
from pagesim.workloads.cache_ext.ycsb_workload import (
    YCSB_MIXES,
    build_ycsb,
    ycsb,
)
from pagesim.workloads.synthetic import Workload

#: Builders by workload name (the experiments use these to keep the operations).
BUILDERS = {
    "ycsb": build_ycsb,
    "twitter": build_twitter,
    "file-search": build_file_search,
    "get-scan": build_get_scan,
    "compaction": build_compaction,
}


#: name -> Workload, merged into ``pagesim.workloads.kernel.KERNEL_WORKLOADS``.
CACHE_EXT_WORKLOADS: dict[str, Workload] = {
    "ycsb": Workload(
        ycsb,
        {
            "workload": "C",
            "scale": DEFAULT_SCALE,
            "ops": None,
            "threads": 8,
            "theta": 0.99,
            "scan_length": 100,
            "seed": 0,
            "levels": 5,
            "table_cache": 990,
            "filters": False,
            "compactions": None,
            "compaction_ops_s": None,
        },  # fmt: skip
        "YCSB A-F, uniform, uniform-rw on LevelDB's leveled layout (levels 0: two-level), 8 threads, "
        "cgroup 10 GiB x scale (cache_ext Fig. 6)",
    ),
    "twitter": Workload(
        twitter,
        {
            "path": None,
            "cluster": 52,
            "scale": 1 / 64,
            "ops": None,
            "threads": 8,
            "cgroup_percent": 10.0,
            "seed": 0,
        },  # fmt: skip
        "a twitter/cache-trace CSV (path=...; default a synthetic cluster) replayed on LevelDB, "
        "cgroup 10% of the DB + 20 MiB (cache_ext Fig. 8)",
    ),
    "file-search": Workload(
        file_search,
        {
            "scale": 1 / 64,
            "passes": 10,
            "threads": 1,
            "tree_ratio": 1.4,
            "cgroup": 0,
            "tag_base": 0,
            "seed": 0,
        },  # fmt: skip
        "ripgrep-like: 10 passes over a tree 1.4x its 1 GiB cgroup, scaled (cache_ext Fig. 9)",
    ),
    "get-scan": Workload(
        get_scan,
        {
            "scale": DEFAULT_SCALE,
            "gets": None,
            "scans": None,
            "get_threads": 3,
            "scan_length": 10_000,
            "scan_keys_per_get": 40.0,
            "theta": 0.99,
            "seed": 0,
        },  # fmt: skip
        "LevelDB: 3 GET threads (tags 1-3) and 1 SCAN thread (tag 0) of 10,000-key scans (cache_ext Fig. 10)",
    ),
    "compaction": Workload(
        compaction,
        {
            "scale": DEFAULT_SCALE,
            "ops": None,
            "threads": 4,
            "compaction_threads": 1,
            "compaction_mb_s": 100.0,
            "chunk": 16,
            "seed": 0,
        },  # fmt: skip
        "RocksDB-like uniform read/write (tags 0-3) and a compaction thread (tag 4) reading and "
        "writing SST pages (cache_ext §6.1.5)",
    ),
}

__all__ = [
    "PAGE",
    "DEFAULT_SCALE",
    "GIB_PAGES",
    "LEVEL1_PAGES",
    "OP_GET",
    "OP_UPDATE",
    "OP_INSERT",
    "OP_SCAN",
    "OP_RMW",
    "OP_FILE",
    "OP_COMPACT",
    "OP_NAMES",
    "OpTrace",
    "fnv1a64",
    "ycsb_zipfian",
    "scan_fadvise",
    "scrambled_zipfian",
    "LRUSet",
    "lru_hits",
    "LevelDBLayout",
    "YCSB_MIXES",
    "build_ycsb",
    "ycsb",
    "SeekCompactions",
    "pace_compactions",
    "build_get_scan",
    "get_scan",
    "build_fio",
    "TWITTER_CLUSTERS",
    "TWITTER_STATS",
    "ClusterStats",
    "TwitterOps",
    "read_twitter_csv",
    "synthetic_twitter",
    "write_twitter_csv",
    "build_twitter",
    "twitter",
    "build_file_search",
    "file_search",
    "build_compaction",
    "compaction",
    "BUILDERS",
    "CACHE_EXT_WORKLOADS",
]
