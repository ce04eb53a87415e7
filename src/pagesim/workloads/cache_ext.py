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

The LevelDB-like layout (:class:`LevelDBLayout`; two levels: GET-SCAN, Twitter, ``ycsb`` with ``levels=0``)
-------------------------------------------------------------------------------------------------------------
Records (16 B keys, 200 B values and 8 B of block overhead: 18 per 4 KiB page) sorted by key in
SST files of 512 data pages (LevelDB's 2 MiB tables), each followed by its index block (one entry
of key + 8 B handle per data page: 3 pages) and a footer page. A YCSB key number goes to its place
in key order through a fixed bijection (YCSB's keys are hashed strings, so key order is unrelated
to key numbers). A GET reads the index page that covers the key, then its data page. A smaller
upper level (10 % of the data, the same key range, so each of its pages covers ten times as many
keys) holds recent versions: a quarter of the keys (fixed by a hash) are looked up there first
(index and data page) before the lower level, as LevelDB searches level by level: those GETs
read two data pages, the bimodal latency of the paper (cache_ext_results §2d). Updates and inserts
append their record to the write-ahead log (a ``write`` of the log's current page; when the log
reaches the memtable's 4 MiB, scaled, a new one starts and the old one's pages are freed, as LevelDB
deletes it after the flush); inserted keys
are flushed to new level-0 pages (written as 18 records fill one), where later reads find them.
Index pages are read by every GET of their file: they are the hot metadata.

LevelDB's leveled layout (``level_pages``; what ``ycsb`` runs, ``levels=5``)
----------------------------------------------------------------------------
The paper's LevelDB is opened with LevelDB's default options (the harness's
``LevelDBFactory``, xrp-project/My-YCSB ``leveldb/leveldb_client.cpp``, passes none but
``create_if_missing``; its ``cache_size`` setting is not used): no Bloom filter
(``filter_policy`` null), ``max_open_files`` 1,000, an 8 MiB block cache, 2 MiB tables, and
levels whose targets are 10 MiB x 10**(L - 1) (``MaxBytesForLevel``). Tables are read with
``pread`` (the fork's mmap is off: cache_ext's ``bench_leveldb.py`` sets ``enable_mmap`` false
and never ``LEVELDB_MAX_MMAPS``), so a random read brings no read-around. 100 GiB fill levels
1-4 (10 MiB, 100 MiB, 1 GiB, 10 GiB) and leave the rest (~90 %) to level 5. Keys were loaded
in random order, so each level spans the whole key range and a key lives in a level with a
probability proportional to the level's size (a hash of its position picks it). A GET
(``Version::Get``) probes levels 1, 2, ... until the one holding the key; without filters each
probe reads the data page covering the key (the block its index points to), so a GET reads one
data page per level above its key's level, too. A probe goes through the table cache
(``max_open_files`` - 10 = 990 tables, an LRU over the real database's ~58,000 tables,
simulated in issue order): a table not in it is re-opened (``Table::Open``): its footer, then
its index block (3 pages), read through the page cache. Scans merge every level: per level the
table of the first key (opened if closed) and the data pages from the first key's to the last
key's. The model's frequency skew is structural: even with uniform keys a page of level 4 is
read about ten times as often as one of level 5, and the tables' metadata more often still.
Not modelled: LevelDB's 8 MiB block cache (8 KiB at 1/1024, two pages), data blocks straddling
two pages, and compaction, unless ``build_ycsb(compactions="seek")``: LevelDB's seek-triggered
compactions (``allowed_seeks``; :class:`SeekCompactions`), not its size-triggered ones. Deviations:
the table cache is simulated in the trace's issue order (kernel mode interleaves the threads by
their speed), GETs' and scans' table caches separately; a key's level comes from a hash, not
from a load's history.

One log per client thread (a deviation): LevelDB has one log, appended in the order the writes
happen. A trace fixes the order of its accesses per thread only: kernel mode runs each thread at
its own speed (``schedule="time"``), so a thread that waits for more reads runs its writes later
than their place in the trace. With one shared log, the thread that rotates the log frees pages
that lagging threads then write again: each such write creates a fresh dirty page that nothing
frees any more (at 1/1024 on YCSB A, 2,392 of the cgroup's 2,560 pages under ce-fifo by the end
of the run). So each thread appends to a log of its own, ``log_file_pages / threads`` pages per
file (at least one), rotated and freed by that thread: the same log pages written per operation
and about the same log footprint, and a freed page is never written again.
"""

from __future__ import annotations

import bisect
import csv
import dataclasses
import io
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pagesim.trace import KIND_FILE, OP_FREE, OP_READ, OP_WRITE, Trace
from pagesim.trace.errors import TraceFormatError
from pagesim.workloads.synthetic import Workload

PAGE = 4096
DEFAULT_SCALE = 1 / 1024  #: of the paper's sizes: LevelDB's 10 GiB cgroup -> 2,560 pages
GIB_PAGES = (1 << 30) // PAGE
LEVEL1_PAGES = (10 << 20) // PAGE  #: LevelDB's level-1 target (10 MiB; x 10 per level below)

#: Operation kinds (``OpTrace.op_kind``).
OP_GET = 0
OP_UPDATE = 1
OP_INSERT = 2
OP_SCAN = 3
OP_RMW = 4
OP_FILE = 5  #: one file read by the search
OP_COMPACT = 6  #: one compaction step (read a page of the input, write a page of the output)
OP_NAMES = ("get", "update", "insert", "scan", "rmw", "file", "compact")

# source ids: region in the high bits, then the file, then the page in the file
_R_MAIN, _R_UPPER, _R_L0, _R_LOG, _R_TREE, _R_OUT = 1, 2, 3, 4, 5, 6
_R_SEEK = 7  #: tables written by seek compactions (``build_ycsb(compactions="seek")``)
_R_LEVEL = 16  #: level L of the leveled layout is region 16 + L

#: YCSB core workloads (cache_ext spec §5.2): read/update/insert/scan/read-modify-write shares
#: and the key distribution.
YCSB_MIXES: dict[str, tuple[tuple[float, float, float, float, float], str]] = {
    "A": ((0.5, 0.5, 0.0, 0.0, 0.0), "zipfian"),
    "B": ((0.95, 0.05, 0.0, 0.0, 0.0), "zipfian"),
    "C": ((1.0, 0.0, 0.0, 0.0, 0.0), "zipfian"),
    "D": ((0.95, 0.0, 0.05, 0.0, 0.0), "latest"),
    "E": ((0.0, 0.0, 0.05, 0.95, 0.0), "zipfian"),
    "F": ((0.5, 0.0, 0.0, 0.0, 0.5), "zipfian"),
    "uniform": ((1.0, 0.0, 0.0, 0.0, 0.0), "uniform"),
    "uniform-rw": ((0.5, 0.0, 0.5, 0.0, 0.0), "uniform"),
}


@dataclass
class OpTrace:
    """Page accesses plus the application operation of each.

    Attributes
    ----------
    trace : Trace
        The accesses (``kind`` file, ``op`` read/write, ``tag`` thread, ``cgroup``).
    op_of : numpy.ndarray of int64, shape (n_requests,)
        The operation each access belongs to (0 .. n_ops - 1, in issue order).
    op_kind : numpy.ndarray of uint8, shape (n_ops,)
        ``OP_GET``, ``OP_UPDATE``... of each operation.
    groups : dict of str to list of int
        Thread roles and their tags (``{"get": [1, 2, 3], "scan": [0]}``).
    """

    trace: Trace
    op_of: np.ndarray
    op_kind: np.ndarray
    groups: dict[str, list[int]] = field(default_factory=dict)

    @property
    def n_ops(self) -> int:
        """Number of operations."""
        return int(self.op_kind.shape[0])


# ----------------------------------------------------------------------------- key choice


def fnv1a64(values: np.ndarray) -> np.ndarray:
    """YCSB's ``Utils.fnvhash64`` of each value (FNV-1a over its 8 little-endian bytes), >= 0.

    Returns
    -------
    numpy.ndarray of int64, same shape
    """
    v = np.asarray(values, dtype=np.int64).astype(np.uint64)
    h = np.full(v.shape, 0xCBF29CE484222325, dtype=np.uint64)
    prime = np.uint64(1099511628211)
    with np.errstate(over="ignore"):
        for _ in range(8):
            h ^= v & np.uint64(0xFF)
            h *= prime
            v >>= np.uint64(8)
    signed = h.view(np.int64)
    with np.errstate(over="ignore"):
        out = np.abs(signed)  # YCSB's Math.abs
    return np.where(out < 0, np.int64(2**63 - 1), out)  # (Long.MIN_VALUE stays negative in Java)


def _zeta(n: int, theta: float) -> float:
    """sum_{k=1..n} k**-theta; exact up to 2**22 terms, Euler-Maclaurin beyond."""
    m = min(n, 1 << 22)
    total = 0.0
    for start in range(1, m + 1, 1 << 20):
        k = np.arange(start, min(start + (1 << 20), m + 1), dtype=np.float64)
        total += float((k**-theta).sum())
    if n > m:
        a, b = m + 0.5, n + 0.5
        total += (b ** (1 - theta) - a ** (1 - theta)) / (1 - theta)
    return total


def ycsb_zipfian(rng: np.random.Generator, n_items: int, size: int, theta: float = 0.99) -> np.ndarray:
    """Ranks 0 .. n_items - 1 drawn as YCSB's ``ZipfianGenerator`` draws them (Gray et al. 1994).

    Returns
    -------
    numpy.ndarray of int64, shape (size,); rank 0 is the most popular.
    """
    if n_items <= 0:
        raise ValueError("n_items must be positive")
    if n_items == 1 or size == 0:
        return np.zeros(size, dtype=np.int64)
    zetan = _zeta(n_items, theta)
    zeta2 = 1.0 + 0.5**theta
    alpha = 1.0 / (1.0 - theta)
    eta = (1.0 - (2.0 / n_items) ** (1.0 - theta)) / (1.0 - zeta2 / zetan)
    u = rng.random(size)
    uz = u * zetan
    ranks = (n_items * np.power(eta * u - eta + 1.0, alpha)).astype(np.int64)
    ranks[uz < 1.0 + 0.5**theta] = 1
    ranks[uz < 1.0] = 0
    return np.minimum(ranks, n_items - 1)


def scrambled_zipfian(rng: np.random.Generator, n_items: int, size: int, theta: float = 0.99) -> np.ndarray:
    """YCSB's ``ScrambledZipfianGenerator``: a zipfian rank hashed (FNV-1a 64) onto the key space."""
    return fnv1a64(ycsb_zipfian(rng, n_items, size, theta)) % n_items


# ----------------------------------------------------------------------------- the layout


class LRUSet:
    """An LRU set of ``capacity`` int keys (LevelDB's table cache): :meth:`touch` references one.

    Parameters
    ----------
    capacity : int
        Entries kept; 0 keeps none (every reference misses).
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._keys: OrderedDict[int, None] = OrderedDict()

    def touch(self, key: int) -> bool:
        """Reference ``key``: True if it was in the set (now the most recent), else False (added,
        the least recent leaving when over capacity)."""
        if key in self._keys:
            self._keys.move_to_end(key)
            return True
        if self.capacity > 0:
            self._keys[key] = None
            if len(self._keys) > self.capacity:
                self._keys.popitem(last=False)
        return False


def lru_hits(keys: np.ndarray, capacity: int) -> np.ndarray:
    """Whether each reference of ``keys`` (in order) hits an LRU cache of ``capacity`` entries.

    Returns
    -------
    numpy.ndarray of bool, same shape as ``keys``
    """
    cache = LRUSet(capacity)
    hits = np.zeros(np.shape(keys), dtype=bool)
    for i, k in enumerate(np.asarray(keys).tolist()):
        hits[i] = cache.touch(k)
    return hits


def _ids(region: int, file_no: np.ndarray | int, page: np.ndarray | int) -> np.ndarray:
    """Source id of page ``page`` of file ``file_no`` of ``region`` (consecutive within a file)."""
    f = np.asarray(file_no, dtype=np.int64)
    p = np.asarray(page, dtype=np.int64)
    return (np.int64(region) << np.int64(52)) | (f << np.int64(26)) | p


@dataclass(frozen=True)
class LevelDBLayout:
    """Where a LevelDB database's records, index blocks and log live, page by page.

    Parameters
    ----------
    n_keys : int
        Records loaded (YCSB ``recordcount``).
    key_bytes, value_bytes : int
        Record sizes (YCSB: 16 and 200; Twitter: the cluster's means).
    file_data_pages : int
        Data pages per SST file (LevelDB's 2 MiB tables: 512).
    upper_share : float
        Size of the upper level as a share of the lower one.
    upper_lookup_share : float
        Share of the keys whose GETs search the upper level first.
    seed : int
        Chooses the bijection from key numbers to key order.
    level_pages : tuple of int
        LevelDB's leveled layout (module docstring): the data pages of levels 1 .. n - 1; the
        last level holds the rest. Empty (the default): the two-level layout (a lower level and
        ``upper_share``).
    table_cache : int, optional
        Tables LevelDB keeps open (its table cache, ``max_open_files`` - 10 = 990), counted in
        tables of the real database (``scale``). A probe of a table not in it re-opens the table:
        reads its footer and index block (and filter block with ``filters``) through the page
        cache. None: no table cache; every probe reads the index page covering its key (the
        two-level layout's rule).
    filters : bool
        Tables carry a Bloom filter (10 bits per key): a probe of a level that does not hold the
        key reads no data page (1 % false positives); opening a table also reads the filter.
    scale : float
        This layout's share of the real database; only the table cache uses it (tables are
        2 MiB at every scale, so a scaled level has fewer of them than LevelDB's table cache
        sees: it counts ``files / scale`` tables per level).
    """

    n_keys: int
    key_bytes: int = 16
    value_bytes: int = 200
    file_data_pages: int = 512
    upper_share: float = 0.1
    upper_lookup_share: float = 0.25
    log_file_pages: int = 1024
    seed: int = 0
    level_pages: tuple[int, ...] = ()
    table_cache: int | None = None
    filters: bool = False
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.level_pages and sum(self.level_pages) >= self.data_pages:
            raise ValueError(
                f"levels 1..{len(self.level_pages)} ({sum(self.level_pages)} pages) leave nothing for the "
                f"last level ({self.data_pages} data pages)"
            )
        if self.table_cache is not None and self.table_cache < 0:
            raise ValueError("table_cache must be >= 0")
        if not 0 < self.scale <= 1:
            raise ValueError("scale must be in (0, 1]")

    @property
    def record_bytes(self) -> int:
        """Bytes per record in a data block (key, value, 8 B of block overhead)."""
        return self.key_bytes + self.value_bytes + 8

    @property
    def records_per_page(self) -> int:
        """Records per 4 KiB data page (at least 1)."""
        return max(PAGE // self.record_bytes, 1)

    @property
    def data_pages(self) -> int:
        """Data pages of the lower level."""
        return -(-self.n_keys // self.records_per_page)

    @property
    def index_pages(self) -> int:
        """Index pages per SST file (a key and an 8 B handle per data page)."""
        return max(-(-self.file_data_pages * (self.key_bytes + 8) // PAGE), 1)

    @property
    def upper_pages(self) -> int:
        """Data pages of the upper level."""
        return max(int(self.data_pages * self.upper_share), 1)

    @property
    def db_pages(self) -> int:
        """Every page of every level's files: data, index, footer (and filter)."""
        per = self.file_data_pages
        sizes = self.level_sizes.tolist() if self.level_pages else [self.data_pages, self.upper_pages]
        total = 0
        for pages in sizes:
            files = -(-pages // per)
            total += pages + files * self.meta_pages
        return total

    @property
    def filter_pages(self) -> int:
        """Pages of a table's filter block (10 bits per key of its 512 data pages), 0 without filters."""
        if not self.filters:
            return 0
        return -(-self.file_data_pages * self.records_per_page * 10 // (8 * PAGE))

    @property
    def meta_pages(self) -> int:
        """Pages a table open reads: the footer, the index block and the filter block."""
        return 1 + self.index_pages + self.filter_pages

    @property
    def level_sizes(self) -> np.ndarray:
        """Data pages of levels 1 .. n of the leveled layout (the last holds the rest), int64."""
        upper = np.asarray(self.level_pages, np.int64)
        return np.append(upper, self.data_pages - upper.sum())

    @property
    def level_tables(self) -> np.ndarray:
        """Tables of 2 MiB per level in the real database (at least 1), int64: what the table cache counts."""
        tables = np.rint(self.level_sizes / self.file_data_pages / self.scale).astype(np.int64)
        return np.maximum(tables, 1)

    def level_of(self, positions: np.ndarray) -> np.ndarray:
        """The level (1 .. n) holding each key's record, int64.

        Keys were loaded in random order, so a key lies in a level with a probability
        proportional to the level's size: a hash of its position picks it.
        """
        pos = np.asarray(positions, dtype=np.int64)
        u = fnv1a64(pos + np.int64(self.n_keys)) % np.int64(self.data_pages)
        return np.searchsorted(np.cumsum(self.level_sizes), u, side="right").astype(np.int64) + 1

    def position(self, keys: np.ndarray) -> np.ndarray:
        """Place of each key number in key order (a fixed bijection of ``0 .. n_keys - 1``)."""
        n = self.n_keys
        mult = int(n * 0.6180339887) | 1
        while math.gcd(mult, n) != 1:
            mult += 2
        offset = (self.seed * 7919) % n
        return (np.asarray(keys, dtype=np.int64) * mult + offset) % n

    def _pair(self, region: int, data_page: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f, j = np.divmod(data_page, self.file_data_pages)
        index = self.file_data_pages + (j * self.index_pages) // self.file_data_pages
        return _ids(region, f, index), _ids(region, f, j)

    def get_pages(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pages each GET reads, in order: (op number, source id) pairs, op-major.

        Keys flagged by the hash read the upper level's index and data page first. With
        ``level_pages``, :meth:`leveled_get_pages`.
        """
        if self.level_pages:
            return self.leveled_get_pages(positions)
        pos = np.asarray(positions, dtype=np.int64)
        n = pos.shape[0]
        upper = (fnv1a64(pos) % 1000) < int(self.upper_lookup_share * 1000)
        u_idx, u_data = self._pair(_R_UPPER, (pos * self.upper_pages) // self.n_keys)
        idx, data = self._pair(_R_MAIN, pos // self.records_per_page)
        ops = np.arange(n, dtype=np.int64)
        op_parts = [ops[upper], ops[upper], ops, ops]
        id_parts = [u_idx[upper], u_data[upper], idx, data]
        slot_parts = [np.full(int(upper.sum()), s) for s in (0, 1)] + [np.full(n, s) for s in (2, 3)]
        op = np.concatenate(op_parts)
        order = np.lexsort((np.concatenate(slot_parts), op))
        return op[order], np.concatenate(id_parts)[order]

    def scan_pages(self, starts: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
        """Pages scans of ``length`` keys from each position in ``starts`` read, in order.

        A scan reads the index page of its first data page, then the data pages in key order,
        and the index page of each further file it enters. Returns (scan number, source id)
        pairs, scan-major. With ``level_pages``, :meth:`leveled_scan_pages`.
        """
        if self.level_pages:
            return self.leveled_scan_pages(starts, length)
        starts = np.asarray(starts, dtype=np.int64)
        first = starts // self.records_per_page
        last = np.minimum(starts + max(length, 1) - 1, self.n_keys - 1) // self.records_per_page
        count = last - first + 1
        scan = np.repeat(np.arange(starts.shape[0], dtype=np.int64), count)
        within = np.arange(scan.shape[0], dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
        dp = first[scan] + within
        f, j = np.divmod(dp, self.file_data_pages)
        needs_index = (within == 0) | (j == 0)
        index = _ids(_R_MAIN, f, self.file_data_pages + (j * self.index_pages) // self.file_data_pages)
        ops = np.concatenate([scan[needs_index], scan])
        ids = np.concatenate([index[needs_index], _ids(_R_MAIN, f, j)])
        slot = np.concatenate([2 * within[needs_index], 2 * within + 1])
        order = np.lexsort((slot, ops))
        return ops[order], ids[order]

    def _meta_ids(self, level: np.ndarray, file_no: np.ndarray) -> np.ndarray:
        """Pages a table open reads, in order, per open: footer, index block, filter block.

        Returns int64 of shape (n, meta_pages). The footer is the file's last page.
        """
        idx = self.file_data_pages
        offsets = [idx + self.index_pages] + [idx + k for k in range(self.index_pages)]
        offsets += [idx + self.index_pages + 1 + k for k in range(self.filter_pages)]
        region = (_R_LEVEL + level)[:, None]
        return (region << np.int64(52)) | (file_no[:, None] << np.int64(26)) | np.asarray(offsets, np.int64)

    def _level_page(self, level: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(file, data page in level) where ``positions`` fall in ``level``: each level spans every key."""
        sizes = self.level_sizes[level - 1]
        dp = positions * sizes // self.n_keys
        return dp // self.file_data_pages, dp

    def _opens(self, level: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Whether each probe (in issue order) finds its table closed and re-opens it."""
        if self.table_cache is None:
            return np.ones(level.shape[0], dtype=bool)
        table = positions * self.level_tables[level - 1] // self.n_keys
        return ~lru_hits((level << np.int64(40)) | table, self.table_cache)

    def leveled_get_pages(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pages GETs read in the leveled layout, in order: (op number, source id) pairs, op-major.

        A GET probes levels 1, 2, ... up to the one holding its key (:meth:`level_of`), as
        LevelDB's ``Version::Get`` does. A probe whose table is not open reads the table's
        metadata first (:meth:`_meta_ids`); then it reads the data page covering the key, unless
        a filter rules the level out (``filters``; 1 % false positives, by hash). Without a
        table cache, a probe reads only the index page covering its key before the data page.
        """
        pos = np.asarray(positions, dtype=np.int64)
        home = self.level_of(pos)
        levels = np.arange(1, self.level_sizes.shape[0] + 1, dtype=np.int64)
        probe_op, probe_level = np.nonzero(home[:, None] >= levels[None, :])
        probe_level = probe_level.astype(np.int64) + 1
        probe_op = probe_op.astype(np.int64)
        p = pos[probe_op]
        f, dp = self._level_page(probe_level, p)
        data = _ids(_R_LEVEL, 0, 0) + (probe_level << np.int64(52)) + _ids(0, f, dp % self.file_data_pages)
        read = np.ones(probe_op.shape[0], dtype=bool)
        if self.filters:
            false_positive = (fnv1a64(p * np.int64(8) + probe_level) % 100) == 0
            read = (probe_level == home[probe_op]) | false_positive
        if self.table_cache is None:
            j = dp % self.file_data_pages
            meta = (data - j + self.file_data_pages + (j * self.index_pages) // self.file_data_pages)[:, None]
            opened = np.ones(probe_op.shape[0], dtype=bool)
        else:
            meta = self._meta_ids(probe_level, f)
            opened = self._opens(probe_level, p)
        m = meta.shape[1]
        # slots: probe k of an op uses 2 * m * k .. ; metadata before data
        rank = probe_level * (m + 1)
        ops = [np.repeat(probe_op[opened], m), probe_op[read]]
        ids = [meta[opened].ravel(), data[read]]
        slots = [(rank[opened][:, None] + np.arange(m)[None, :]).ravel(), rank[read] + m]
        op = np.concatenate(ops)
        order = np.lexsort((np.concatenate(slots), op))
        return op[order], np.concatenate(ids)[order]

    def leveled_scan_pages(self, starts: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
        """Pages scans read in the leveled layout: (scan number, source id) pairs, scan-major.

        LevelDB's iterator merges every level: per level, the table of the first key (opened if
        closed), then the data pages from the first key's to the last key's.
        """
        starts = np.asarray(starts, dtype=np.int64)
        n_levels = self.level_sizes.shape[0]
        ends = np.minimum(starts + max(length, 1) - 1, self.n_keys - 1)
        scan = np.repeat(np.arange(starts.shape[0], dtype=np.int64), n_levels)
        level = np.tile(np.arange(1, n_levels + 1, dtype=np.int64), starts.shape[0])
        first_f, first = self._level_page(level, starts[scan])
        _, last = self._level_page(level, ends[scan])
        opened = self._opens(level, starts[scan])
        meta = self._meta_ids(level, first_f)
        m = meta.shape[1]
        count = last - first + 1
        rep = np.repeat(np.arange(scan.shape[0]), count)
        within = np.arange(rep.shape[0], dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
        dp = first[rep] + within
        data = (np.int64(_R_LEVEL) + level[rep]) << np.int64(52)
        data = data | _ids(0, dp // self.file_data_pages, dp % self.file_data_pages)
        base = level * (m + 1 + int(count.max(initial=1)))
        ops = [np.repeat(scan[opened], m), scan[rep]]
        ids = [meta[opened].ravel(), data]
        slots = [(base[opened][:, None] + np.arange(m)[None, :]).ravel(), base[rep] + m + within]
        op = np.concatenate(ops)
        order = np.lexsort((np.concatenate(slots), op))
        return op[order], np.concatenate(ids)[order]

    def l0_page(self, inserted: np.ndarray) -> np.ndarray:
        """The level-0 data page where the ``inserted``-th key inserted in the run is flushed."""
        dp = np.asarray(inserted, dtype=np.int64) // self.records_per_page
        f, j = np.divmod(dp, self.file_data_pages)
        return _ids(_R_L0, f, j)

    def log_pages(
        self, nth_write: np.ndarray, stream: int = 0, streams: int = 1, file_pages: int | None = None
    ) -> np.ndarray:
        """The log page the ``nth_write``-th record appended to log ``stream`` lands in.

        Log ``stream`` of ``streams`` owns the file numbers ``stream``, ``stream + streams``...;
        each file holds ``file_pages`` pages (default ``log_file_pages``).
        """
        per = self.log_file_pages if file_pages is None else max(int(file_pages), 1)
        page = (np.asarray(nth_write, dtype=np.int64) * self.record_bytes) // PAGE
        f, j = np.divmod(page, per)
        return _ids(_R_LOG, f * streams + stream, j)

    def log_rotations(
        self, nth_write: np.ndarray, stream: int = 0, streams: int = 1, file_pages: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Where log ``stream`` is rotated: (index into ``nth_write``, source ids of the old file's pages).

        LevelDB starts a new log when the memtable is flushed (``write_buffer_size``, 4 MiB =
        ``log_file_pages``) and deletes the old one: its pages leave the page cache (``free``).
        """
        per = self.log_file_pages if file_pages is None else max(int(file_pages), 1)
        page = (np.asarray(nth_write, dtype=np.int64) * self.record_bytes) // PAGE
        f, j = np.divmod(page, per)
        start = (j == 0) & (f >= 1) & (np.diff(page, prepend=-1) != 0)
        where = np.flatnonzero(start)
        at = np.repeat(where, per)
        old_file = np.repeat((f[where] - 1) * streams + stream, per)
        pages = np.tile(np.arange(per, dtype=np.int64), where.shape[0])
        return at, _ids(_R_LOG, old_file, pages)


# ----------------------------------------------------------------------------- assembling


class _Builder:
    """Accumulates (op, id, rw) access chunks; op numbers are global and in issue order."""

    def __init__(self) -> None:
        self.ops: list[np.ndarray] = []
        self.ids: list[np.ndarray] = []
        self.rw: list[np.ndarray] = []
        self.slot: list[np.ndarray] = []

    def add(self, op: np.ndarray, ids: np.ndarray, rw: int | np.ndarray, slot: int) -> None:
        op = np.asarray(op, dtype=np.int64)
        self.ops.append(op)
        self.ids.append(np.asarray(ids, dtype=np.int64))
        self.rw.append(np.broadcast_to(np.asarray(rw, dtype=np.uint8), op.shape).copy())
        self.slot.append(np.full(op.shape, slot, dtype=np.int64))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        op = np.concatenate(self.ops) if self.ops else np.zeros(0, np.int64)
        order = np.lexsort((np.concatenate(self.slot), op)) if self.ops else np.zeros(0, np.int64)
        return op[order], np.concatenate(self.ids)[order], np.concatenate(self.rw)[order]


def _finish(
    op_of: np.ndarray,
    ids: np.ndarray,
    rw: np.ndarray,
    op_kind: np.ndarray,
    op_tag: np.ndarray,
    *,
    name: str,
    params: dict[str, Any],
    cgroup_pages: Sequence[int],
    groups: dict[str, list[int]],
    op_cgroup: np.ndarray | None = None,
    op_release: np.ndarray | None = None,
    extra: dict[str, Any] | None = None,
) -> OpTrace:
    n = ids.shape[0]
    cg = np.zeros(n, np.int64) if op_cgroup is None else np.asarray(op_cgroup, np.int64)[op_of]
    limits = [int(x) for x in cgroup_pages]
    source = {
        "format": "workload",
        "workload": name,
        "params": params,
        "memory_pages": int(sum(limits) * 2 + 1024),
        "cgroup_pages": limits,
        "groups": groups,
        "ops": int(op_kind.shape[0]),
        **(extra or {}),
    }
    timing: dict[str, Any] = {}
    if op_release is not None:
        timing["time"] = np.asarray(op_release, np.int64)[op_of]
        source.update(time_unit="ns", time_is_release=True)
    trace = Trace.from_ids(
        ids,
        kind=np.full(n, KIND_FILE, np.uint8),
        op=np.where(rw == OP_FREE, OP_FREE, np.where(rw != 0, OP_WRITE, OP_READ)).astype(np.uint8),
        tag=np.asarray(op_tag, np.int32)[op_of],
        cgroup=cg,
        source=source,
        **timing,
    )
    return OpTrace(trace, op_of, np.asarray(op_kind, np.uint8), groups)


def _scaled(value: float, scale: float, minimum: int = 1) -> int:
    return max(int(round(value * scale)), minimum)


def _kv_ops(
    layout: LevelDBLayout,
    kinds: np.ndarray,
    read_pos: np.ndarray,
    rng: np.random.Generator,
    scan_length: int = 100,
    latest: bool = False,
    theta: float = 0.99,
    writer: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accesses of a sequence of key-value operations on ``layout`` (op-major order).

    ``read_pos`` holds, per operation, the key position its GET, RMW or SCAN starts at (ignored
    for updates and inserts, which append to the log; an update's key is not needed since its
    pages are the log's). With ``latest``, GETs of keys inserted in this run (``read_pos`` <
    0: -1 is the newest) read their level-0 page. ``writer`` (per operation, e.g. its thread)
    gives each writer a log of its own, ``log_file_pages / writers`` pages per file (at least
    one): see the module docstring (one log per client thread).
    """
    b = _Builder()
    n = kinds.shape[0]
    ops = np.arange(n, dtype=np.int64)
    reads = (kinds == OP_GET) | (kinds == OP_RMW)
    if latest:
        fresh = reads & (read_pos < 0)
        reads = reads & (read_pos >= 0)
        inserted_before = np.cumsum(kinds == OP_INSERT) - (kinds == OP_INSERT)
        which = np.maximum(inserted_before[fresh] + read_pos[fresh], 0)
        b.add(ops[fresh], layout.l0_page(which), 0, 0)
    g_op, g_ids = layout.get_pages(read_pos[reads])
    b.add(ops[reads][g_op], g_ids, 0, 0)
    writes = (kinds == OP_UPDATE) | (kinds == OP_INSERT) | (kinds == OP_RMW)
    w_ops = ops[writes]
    who = np.zeros(n, np.int64) if writer is None else np.asarray(writer, np.int64)
    streams = int(who.max()) + 1 if n else 1
    per_file = max(layout.log_file_pages // streams, 1)
    for stream in np.unique(who[writes]).tolist():
        mine = w_ops[who[writes] == stream]
        nth = np.arange(mine.shape[0], dtype=np.int64)
        b.add(mine, layout.log_pages(nth, stream, streams, per_file), 1, 10)
        at, freed = layout.log_rotations(nth, stream, streams, per_file)
        b.add(mine[at], freed, OP_FREE, 12)
    ins = kinds == OP_INSERT
    k_ins = np.cumsum(ins)  # inserts so far, this one included
    flush = ins & (k_ins % layout.records_per_page == 0)  # a level-0 page fills: written out
    b.add(ops[flush], layout.l0_page(k_ins[flush] - 1), 1, 11)
    scans = np.flatnonzero(kinds == OP_SCAN)
    s_op, s_ids = layout.scan_pages(read_pos[scans], scan_length)
    b.add(scans[s_op], s_ids, 0, 0)
    return b.arrays()


# ----------------------------------------------------------------------------- YCSB


def build_ycsb(
    workload: str = "C",
    scale: float = DEFAULT_SCALE,
    ops: int | None = None,
    threads: int = 8,
    theta: float = 0.99,
    scan_length: int = 100,
    seed: int = 0,
    levels: int = 5,
    table_cache: int | None = 990,
    filters: bool = False,
    compactions: str | None = None,
    compaction_ops_s: float | None = None,
) -> OpTrace:
    """YCSB on LevelDB (cache_ext spec §5.2, paper Fig. 6): 8 client threads, one cgroup.

    Parameters
    ----------
    workload : str
        ``A`` .. ``F``, ``uniform`` or ``uniform-rw`` (:data:`YCSB_MIXES`).
    scale : float
        Of the paper's setup: 2**29 records of 16 + 200 B in a 10 GiB cgroup.
    ops : int, optional
        Operations (default 40 per page of the cgroup: long enough for the cache to turn over).
    threads : int
        Client threads; operation ``i`` runs on tag ``i % threads``.
    theta : float
        Zipfian constant (YCSB: 0.99).
    scan_length : int
        Keys per scan (YCSB E: 100).
    seed : int
    levels : int
        Levels of LevelDB's leveled layout (module docstring): levels 1 .. ``levels`` - 1 at
        LevelDB's targets (10 MiB x 10**(L - 1), scaled), the last one the rest; 5 for the
        paper's 100 GiB. 0: the two-level layout (a lower level and an upper one of 10 %).
    table_cache : int, optional
        LevelDB's table cache in tables (``max_open_files`` 1,000 - 10); None: none modelled
        (every probe reads the index page covering its key).
    filters : bool
        Bloom filters in the tables (the paper's LevelDB has none: the harness opens the
        database with LevelDB's default options, ``filter_policy`` null).
    compactions : str, optional
        ``"seek"``: LevelDB's seek compactions (:class:`SeekCompactions`; leveled layout, no
        scans, no filters) on a background thread (tag ``threads``, group ``"compaction"``).
        None or ``"none"`` (the default): no compaction; the trace is the same as before the
        option. From the command line: ``pagesim run 'ycsb?compactions=seek'``.
    compaction_ops_s : float, optional
        With ``compactions``: each compaction is released (the trace's ``time`` column) when the
        client operation that triggered it would run at this many client operations per second
        of model time; None: the background thread runs its compactions as soon as it can.

    Returns
    -------
    OpTrace
        Groups: ``{"client": [0 .. threads - 1]}`` (and ``"compaction": [threads]``);
        ``source["cgroup_pages"]`` = the scaled 10 GiB, smaller than the database (``source["db_pages"]``).

    Raises
    ------
    ValueError
        For an unknown workload or non-positive sizes.
    """
    if workload not in YCSB_MIXES:
        raise ValueError(f"unknown YCSB workload {workload!r}; known: {', '.join(YCSB_MIXES)}")
    if scale <= 0 or threads <= 0:
        raise ValueError("scale and threads must be positive")
    if levels < 0 or levels == 1:
        raise ValueError("levels must be 0 (two-level layout) or at least 2")
    compactions = None if compactions in ("none", "") else compactions
    if compactions not in (None, "seek"):
        raise ValueError(f"unknown compactions {compactions!r}; known: seek")
    if compactions and (not levels or filters or YCSB_MIXES[workload][0][3] > 0):
        raise ValueError("compactions='seek' needs the leveled layout (levels >= 2), no filters and no scans")
    layout = LevelDBLayout(
        _scaled(2**29, scale, 1000), log_file_pages=_scaled(1024, scale, 4), seed=seed,
        level_pages=tuple(_scaled(LEVEL1_PAGES * 10**i, scale) for i in range(max(levels - 1, 0))),
        table_cache=table_cache if levels else None, filters=filters, scale=min(scale, 1.0),
    )  # fmt: skip
    limit = _scaled(10 * GIB_PAGES, scale, 64)
    n_ops = int(ops) if ops is not None else 40 * limit
    rng = np.random.default_rng(seed)
    shares, dist = YCSB_MIXES[workload]
    kinds = rng.choice(5, size=n_ops, p=np.asarray(shares) / sum(shares)).astype(np.uint8)
    kinds = np.array([OP_GET, OP_UPDATE, OP_INSERT, OP_SCAN, OP_RMW], np.uint8)[kinds]
    if dist == "uniform":
        keys = rng.integers(0, layout.n_keys, n_ops)
        pos = layout.position(keys)
    elif dist == "latest":
        back = ycsb_zipfian(rng, layout.n_keys, n_ops, theta)  # 0 = the newest key
        inserted_before = np.cumsum(kinds == OP_INSERT) - (kinds == OP_INSERT)
        fresh = back < inserted_before
        pos = layout.position(layout.n_keys - 1 - np.maximum(back - inserted_before, 0))
        pos[fresh] = -1 - back[fresh]
    else:
        pos = layout.position(scrambled_zipfian(rng, layout.n_keys, n_ops, theta))
    tags = (np.arange(n_ops) % threads).astype(np.int32)
    params = {"workload": workload, "scale": scale, "ops": ops, "threads": threads, "theta": theta,
              "scan_length": scan_length, "seed": seed, "levels": levels, "table_cache": table_cache,
              "filters": filters}  # fmt: skip
    extra = {"db_pages": layout.db_pages, "records": layout.n_keys,
             **({"level_pages": layout.level_sizes.tolist()} if levels else {})}  # fmt: skip
    if compactions:
        params.update(compactions=compactions, compaction_ops_s=compaction_ops_s)
        return _ycsb_seek(layout, kinds, pos, rng, tags, threads, limit, params, extra, compaction_ops_s)
    op_of, ids, rw = _kv_ops(
        layout, kinds, pos, rng, scan_length, latest=dist == "latest", theta=theta, writer=tags
    )
    return _finish(
        op_of, ids, rw, kinds, tags,
        name="ycsb", params=params, cgroup_pages=[limit],
        groups={"client": list(range(threads))}, extra=extra,
    )  # fmt: skip


def ycsb(**params: Any) -> Trace:
    """:func:`build_ycsb`'s trace."""
    return build_ycsb(**params).trace


# ----------------------------------------------------------------------------- seek compactions


@dataclass
class _Table:
    """A table of the versioned layout: keys ``a`` .. ``b`` - 1 in ``pages`` data pages.

    ``file`` < 0: a unit of the static layout (its data pages keep the layout's ids, from
    ``first``); otherwise a table written by a compaction (``_R_SEEK`` file ``file``).
    """

    a: int
    b: int
    pages: int
    allowed: int
    file: int = -1
    first: int = 0


class SeekCompactions:
    """LevelDB's seek compactions on the leveled layout, decided in issue order.

    Source: LevelDB ``db/version_set.cc`` (``Version::Get``, ``Version::UpdateStats``,
    ``VersionSet::PickCompaction``, ``SetupOtherInputs``) and ``db/version_edit.h``
    (``allowed_seeks``). Rule: a table may be searched ``allowed_seeks`` = file size / 16 KiB
    (at least 100) times; a GET that reads more than one table charges the first table it
    read; at 0 that table is compacted with the overlapping tables of the next level: their
    pages are read, new tables are written with the merged keys, and the inputs are deleted.

    Scaling: tables are units of ``round(512 * scale)`` data pages (at least 1: a 2 MiB table
    scaled) over a contiguous key range; a unit's charges are those of the real tables it
    stands for, so ``allowed`` = pages x 4 KiB / 16 KiB / ``scale`` (at least 100): at 1/1024
    a page of level 2 is compacted after 256 charges, as LevelDB's 2 tables of that key range
    would be after 128 each. A level with no table covering a key is not probed; a key lives in
    the first level at or below its layout level (:meth:`LevelDBLayout.level_of`) that covers it.

    Simplifications (see docs/experiments.md, "Seek compactions"): no size
    compactions (levels below grow past their targets, none is emptied by size), no level 0;
    the last level is never compacted; a compaction is installed at the GET that triggers it
    (the next GETs read its output) while its I/O runs on the background thread; metadata
    pages (footer, index) keep the layout's ids (a scaled file's footer stands for 1,024 real
    tables'), so compactions read, write and free data pages only; the output has as many
    pages as the inputs (a read-only run overwrites nothing).

    Parameters
    ----------
    layout : LevelDBLayout
        With ``level_pages`` (the leveled layout) and no filters.
    scale : float
        The layout's share of the paper's database.
    """

    def __init__(self, layout: LevelDBLayout, scale: float) -> None:
        self.layout = layout
        self.unit = max(int(round(layout.file_data_pages * scale)), 1)
        self.scale = scale
        self.sizes = layout.level_sizes.tolist()
        self.n_levels = len(self.sizes)
        self.files = 0
        n = layout.n_keys
        self.levels: list[list[_Table]] = []
        self.starts: list[list[int]] = []
        for size in self.sizes:
            tables = []
            for k in range(-(-size // self.unit)):
                lo, hi = k * self.unit, min((k + 1) * self.unit, size)
                a, b = -(-lo * n // size), -(-hi * n // size)
                if b > a:
                    tables.append(_Table(a, b, hi - lo, self.allowed(hi - lo), -1, lo))
            self.levels.append(tables)
            self.starts.append([t.a for t in tables])
        self.table_cache = LRUSet(layout.table_cache or 0)

    def allowed(self, pages: int) -> int:
        """``allowed_seeks`` of a unit of ``pages`` data pages (module scaling rule)."""
        return max(int(round(pages * PAGE / 16384 / self.scale)), 100)

    def find(self, level: int, p: int) -> _Table | None:
        """The table of ``level`` (1-based) whose key range holds position ``p``, or None."""
        i = bisect.bisect_right(self.starts[level - 1], p) - 1
        if i >= 0:
            t = self.levels[level - 1][i]
            if p < t.b:
                return t
        return None

    def page_id(self, level: int, t: _Table, p: int) -> int:
        """Source id of the data page of table ``t`` (in ``level``) covering position ``p``."""
        if t.file < 0:
            dp = p * self.sizes[level - 1] // self.layout.n_keys
            f, j = divmod(dp, self.layout.file_data_pages)
            return int(_ids(_R_LEVEL + level, f, j))
        return int(_ids(_R_SEEK, t.file, (p - t.a) * t.pages // (t.b - t.a)))

    def page_ids(self, level: int, t: _Table) -> np.ndarray:
        """Every data page of table ``t``, in key order, int64."""
        if t.file < 0:
            dp = np.arange(t.first, t.first + t.pages, dtype=np.int64)
            return _ids(_R_LEVEL + level, dp // self.layout.file_data_pages, dp % self.layout.file_data_pages)
        return _ids(_R_SEEK, t.file, np.arange(t.pages, dtype=np.int64))

    def meta(self, level: int, p: int) -> list[int]:
        """Metadata pages a probe of ``level`` for ``p`` reads (table cache as the layout's)."""
        lay = self.layout
        dp = p * self.sizes[level - 1] // lay.n_keys
        f, j = divmod(dp, lay.file_data_pages)
        if lay.table_cache is None:
            per = lay.file_data_pages
            return [int(_ids(_R_LEVEL + level, f, per + j * lay.index_pages // per))]
        key = (level << 40) | (p * int(lay.level_tables[level - 1]) // lay.n_keys)
        if self.table_cache.touch(key):
            return []
        return lay._meta_ids(np.array([level], np.int64), np.array([f], np.int64))[0].tolist()

    def get(self, p: int, home: int) -> tuple[list[int], tuple[int, _Table] | None]:
        """Pages a GET of position ``p`` reads, and the table to compact after it (or None).

        ``home`` is the key's level in the layout; the key is in the first level at or below
        it that has a table covering ``p``.
        """
        pages: list[int] = []
        first: tuple[int, _Table] | None = None
        probes = 0
        for level in range(1, self.n_levels + 1):
            t = self.find(level, p)
            if t is None:
                continue
            probes += 1
            if first is None:
                first = (level, t)
            pages += self.meta(level, p)
            pages.append(self.page_id(level, t, p))
            if level >= home:
                break
        if probes > 1 and first is not None:
            level, t = first
            t.allowed -= 1
            if t.allowed <= 0 and level < self.n_levels:
                return pages, first
        return pages, None

    def compact(self, level: int, t: _Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Compact ``t`` of ``level`` into ``level + 1``; install the new version.

        Returns (pages read, pages written, pages freed), int64 arrays; reads and writes are
        equally long (the output has the inputs' pages).
        """
        below, starts = self.levels[level], self.starts[level]
        i0 = bisect.bisect_right(starts, t.a) - 1
        if i0 < 0 or below[i0].b <= t.a:
            i0 += 1
        i1 = bisect.bisect_left(starts, t.b)
        over = below[i0:i1]
        inputs = [self.page_ids(level, t)] + [self.page_ids(level + 1, o) for o in over]
        read = np.concatenate(inputs)
        c = min([t.a] + [o.a for o in over])
        d = max([t.b] + [o.b for o in over])
        total = int(read.shape[0])
        cuts = [c + (d - c) * min(j * self.unit, total) // total for j in range(-(-total // self.unit) + 1)]
        cuts[-1] = d
        out: list[_Table] = []
        written = []
        prev_pages = 0
        for j in range(len(cuts) - 1):
            pages_j = min((j + 1) * self.unit, total) - prev_pages
            if cuts[j + 1] <= cuts[j]:
                continue
            prev_pages += pages_j
            new = _Table(cuts[j], cuts[j + 1], pages_j, self.allowed(pages_j), self.files)
            self.files += 1
            out.append(new)
            written.append(self.page_ids(level + 1, new))
        if prev_pages < total:  # pages of empty key ranges go to the last output
            last = out[-1]
            last.pages += total - prev_pages
            written[-1] = self.page_ids(level + 1, last)
        below[i0:i1] = out
        starts[i0:i1] = [o.a for o in out]
        k = self.levels[level - 1].index(t)
        del self.levels[level - 1][k]
        del self.starts[level - 1][k]
        return read, np.concatenate(written), read.copy()


def _compaction_op_numbers(triggers: np.ndarray) -> np.ndarray:
    """Op numbers of the compactions, each right after its trigger (client op numbers, sorted)."""
    return triggers + np.arange(triggers.shape[0], dtype=np.int64) + 1


def _compaction_release(triggers: np.ndarray, n_ops: int, ops_s: float) -> np.ndarray:
    """Release times (ns, int64, shape (n_ops,)): each compaction at its trigger's ``i / ops_s``
    seconds, every client op at 0."""
    release = np.zeros(n_ops, np.int64)
    release[_compaction_op_numbers(triggers)] = (triggers * (1e9 / ops_s)).astype(np.int64)
    return release


def pace_compactions(ops: OpTrace, ops_s: float) -> OpTrace:
    """``ops`` (``build_ycsb(compactions="seek")``) with each compaction released at its trigger's time.

    The compaction triggered by client operation ``i`` is released at ``i / ops_s`` seconds of
    model time; client operations are released at 0 (they run as fast as they can).

    Parameters
    ----------
    ops : OpTrace
        A trace built with ``compactions="seek"``.
    ops_s : float
        Client operations per second of model time (e.g. the policy's rate without compactions).

    Returns
    -------
    OpTrace
        The same accesses with a new ``time`` column (ns).

    Raises
    ------
    ValueError
        If ``ops`` has no compactions' triggers or ``ops_s`` is not positive.
    """
    if "compaction_triggers" not in ops.trace.source or not ops_s > 0:
        raise ValueError("pace_compactions needs a trace built with compactions='seek' and ops_s > 0")
    t = np.asarray(ops.trace.source["compaction_triggers"], np.int64)
    release = _compaction_release(t, ops.n_ops, ops_s)
    source = {**ops.trace.source, "time_unit": "ns", "time_is_release": True}
    source["params"] = {**source["params"], "compaction_ops_s": ops_s}
    trace = dataclasses.replace(ops.trace, time=release[ops.op_of], source=source)
    return OpTrace(trace, ops.op_of, ops.op_kind, ops.groups)


def _ycsb_seek(
    layout: LevelDBLayout,
    kinds: np.ndarray,
    pos: np.ndarray,
    rng: np.random.Generator,
    tags: np.ndarray,
    threads: int,
    limit: int,
    params: dict[str, Any],
    extra: dict[str, Any],
    ops_s: float | None,
) -> OpTrace:
    """:func:`build_ycsb` with seek compactions (:class:`SeekCompactions`) on tag ``threads``.

    GETs and RMWs read through the versioned layout in issue order; a compaction becomes an
    operation of kind ``OP_COMPACT`` right after the GET that triggered it: read input page i,
    write output page i, ..., then free the inputs.
    """
    n = kinds.shape[0]
    seek = SeekCompactions(layout, params["scale"])
    # the log and level-0 accesses as without compactions (GETs become no-ops, RMWs updates)
    rest = np.where(kinds == OP_GET, OP_FILE, np.where(kinds == OP_RMW, OP_UPDATE, kinds)).astype(np.uint8)
    w_op, w_ids, w_rw = _kv_ops(layout, rest, pos, rng, writer=tags)
    reads = np.flatnonzero((kinds == OP_GET) | (kinds == OP_RMW))
    home = np.zeros(n, np.int64)
    ok = pos[reads] >= 0
    home[reads[ok]] = layout.level_of(pos[reads[ok]])
    inserted_before = np.cumsum(kinds == OP_INSERT) - (kinds == OP_INSERT)
    g_op: list[int] = []
    g_ids: list[int] = []
    trig: list[int] = []
    c_read: list[np.ndarray] = []
    c_write: list[np.ndarray] = []
    c_free: list[np.ndarray] = []
    for i in reads.tolist():
        p = int(pos[i])
        if p < 0:  # workload D: a key inserted in this run, on its level-0 page
            pages = [int(layout.l0_page(np.int64(max(inserted_before[i] + p, 0))))]
            due = None
        else:
            pages, due = seek.get(p, int(home[i]))
        g_op += [i] * len(pages)
        g_ids += pages
        if due is not None:
            r, w, f = seek.compact(*due)
            trig.append(i)
            c_read.append(r)
            c_write.append(w)
            c_free.append(f)
    t = np.asarray(trig, np.int64)
    n_c = t.shape[0]
    # renumber: each compaction right after its trigger
    client_no = np.arange(n, dtype=np.int64) + np.searchsorted(t, np.arange(n), side="left")
    comp_no = _compaction_op_numbers(t)
    b = _Builder()
    b.add(client_no[np.asarray(g_op, np.int64)], np.asarray(g_ids, np.int64), 0, 0)
    b.add(client_no[w_op], w_ids, w_rw, 1)
    b.slot[-1] = b.slot[-1] + np.arange(w_op.shape[0])  # keep the log's order within an op
    for j in range(n_c):
        k = c_read[j].shape[0]
        steps = np.arange(2 * k, dtype=np.int64)
        ids = np.empty(2 * k, np.int64)
        ids[0::2], ids[1::2] = c_read[j], c_write[j]
        rw = (steps % 2).astype(np.uint8)
        b.add(np.full(2 * k, comp_no[j]), ids, rw, 0)
        b.slot[-1] = steps
        b.add(np.full(c_free[j].shape[0], comp_no[j]), c_free[j], OP_FREE, 2 * k)
    op_of, ids, rw = b.arrays()
    total = n + n_c
    is_c = np.zeros(total, bool)
    is_c[comp_no] = True
    all_kinds = np.full(total, OP_COMPACT, np.uint8)
    all_kinds[client_no] = kinds
    all_tags = np.full(total, threads, np.int32)
    all_tags[client_no] = tags
    release = None if ops_s is None else _compaction_release(t, total, ops_s)
    read_pages = int(sum(r.shape[0] for r in c_read))
    extra = {**extra, "compactions": n_c, "compaction_pages": read_pages,
             "compaction_triggers": t.tolist()}  # fmt: skip
    return _finish(
        op_of, ids, rw, all_kinds, all_tags,
        name="ycsb", params=params, cgroup_pages=[limit],
        groups={"client": list(range(threads)), "compaction": [threads]},
        op_release=release, extra=extra,
    )  # fmt: skip


# ----------------------------------------------------------------------------- GET-SCAN


def build_get_scan(
    scale: float = DEFAULT_SCALE,
    gets: int | None = None,
    scans: int | None = None,
    get_threads: int = 3,
    scan_length: int = 10_000,
    scan_keys_per_get: float = 40.0,
    theta: float = 0.99,
    seed: int = 0,
) -> OpTrace:
    """GET-SCAN on LevelDB (cache_ext spec §5.5, paper Fig. 10): thread 0 scans, threads 1-3 GET.

    Parameters
    ----------
    scale : float
        Of the paper's setup (the YCSB database and 10 GiB cgroup).
    gets : int, optional
        GET operations, dealt to the GET threads (default 40 per cgroup page).
    scans : int, optional
        Scans from a zipfian start (default: ``gets * scan_keys_per_get / scan_length``).
    get_threads : int
    scan_length : int
        Keys per scan (10,000; below ``scale`` 1/64 shortened in proportion, at least 300 keys,
        so that one scan stays a small share of the cgroup).
    scan_keys_per_get : float
        Keys scanned per GET. The paper's measured mix is 279 (47 scans of 10,000 keys per
        1,685 GETs, under the default policy); pagesim charges a scanned page less than LevelDB
        does (no CPU per record), so 40 keeps the scan thread running about as long as the GET
        threads under linux-lru (measured at 1/4096), as in the paper's fixed-time runs.
    theta : float
    seed : int

    Returns
    -------
    OpTrace
        Groups ``{"scan": [0], "get": [1 .. get_threads]}``.
    """
    layout = LevelDBLayout(_scaled(2**29, scale, 1000), seed=seed)
    limit = _scaled(10 * GIB_PAGES, scale, 64)
    n_get = int(gets) if gets is not None else 40 * limit
    length = scan_length if scale >= 1 / 64 else max(int(scan_length * scale * 64), 300)
    n_scan = int(scans) if scans is not None else max(int(round(n_get * scan_keys_per_get / length)), 1)
    rng = np.random.default_rng(seed)
    kinds = np.concatenate([np.full(n_get, OP_GET, np.uint8), np.full(n_scan, OP_SCAN, np.uint8)])
    perm = rng.permutation(kinds.shape[0])
    kinds = kinds[perm]
    pos = layout.position(scrambled_zipfian(rng, layout.n_keys, kinds.shape[0], theta))
    op_of, ids, rw = _kv_ops(layout, kinds, pos, rng, length)
    get_no = np.cumsum(kinds == OP_GET) - 1
    tags = np.where(kinds == OP_SCAN, 0, 1 + get_no % get_threads).astype(np.int32)
    params = {"scale": scale, "gets": gets, "scans": scans, "get_threads": get_threads,
              "scan_length": scan_length, "scan_keys_per_get": scan_keys_per_get, "theta": theta,
              "seed": seed}  # fmt: skip
    return _finish(
        op_of, ids, rw, kinds, tags,
        name="get-scan", params=params, cgroup_pages=[limit],
        groups={"scan": [0], "get": list(range(1, get_threads + 1))},
        extra={"db_pages": layout.db_pages, "scan_keys": length, "scan_quota_pages": _scaled(5000, scale)},
    )  # fmt: skip


def get_scan(**params: Any) -> Trace:
    """:func:`build_get_scan`'s trace."""
    return build_get_scan(**params).trace


# ----------------------------------------------------------------------------- Twitter

#: Twitter cluster configurations (cache_ext spec §5.3): key bytes, value bytes, unique keys.
TWITTER_CLUSTERS: dict[int, tuple[int, int, int]] = {
    17: (16, 408, 995_136),
    18: (16, 35, 1_896_120),
    24: (33, 674, 658_146),
    34: (33, 536, 7_377_763),
    52: (22, 195, 2_767_367),
}
_TWITTER_READS = frozenset({"get", "gets"})


@dataclass
class TwitterOps:
    """A Twitter cache trace, as the paper's conversion sees it (cache_ext spec §5.3).

    Attributes
    ----------
    keys : numpy.ndarray of int64, shape (n,)
        Dense key ids in first-occurrence order.
    kinds : numpy.ndarray of uint8, shape (n,)
        ``OP_GET`` (get, gets), ``OP_UPDATE`` (cas) or ``OP_INSERT`` (anything else).
    key_bytes, value_bytes : int
        Mean key and value sizes (the conversion pads every record to them).
    """

    keys: np.ndarray
    kinds: np.ndarray
    key_bytes: int
    value_bytes: int

    @property
    def n_keys(self) -> int:
        """Distinct keys."""
        return int(self.keys.max()) + 1 if self.keys.size else 0


def read_twitter_csv(path: str | Path, max_rows: int | None = None) -> TwitterOps:
    """Read a twitter/cache-trace CSV file (plain or ``.zst``).

    Each line is ``timestamp,key,key_size,value_size,client_id,operation,TTL`` (the format of
    ``twemcacheWorkload/open_source/clusterN.sort.zst``).

    Raises
    ------
    TraceFormatError
        ``<path>:<line>: expected ...`` for a line with another number of fields, a non-integer
        size or an empty operation.
    OSError
        If the file cannot be read.
    """
    path = Path(path)
    raw = path.open("rb")
    try:
        if path.suffix == ".zst":
            import zstandard

            stream: Any = io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(raw), encoding="utf-8")
        else:
            stream = io.TextIOWrapper(raw, encoding="utf-8")
        ids: dict[str, int] = {}
        keys: list[int] = []
        kinds: list[int] = []
        ksum = vsum = 0
        for line_no, row in enumerate(csv.reader(stream), start=1):
            if max_rows is not None and len(keys) >= max_rows:
                break
            if not row:
                continue
            text = ",".join(row)
            if len(row) != 7:
                raise TraceFormatError(path, line_no, text, "7 comma-separated fields "
                                       "(timestamp,key,key_size,value_size,client_id,op,ttl)")  # fmt: skip
            try:
                ksize, vsize = int(row[2]), int(row[3])
            except ValueError:
                raise TraceFormatError(path, line_no, text, "integer key and value sizes") from None
            op = row[5].strip().lower()
            if not op or not row[1]:
                raise TraceFormatError(path, line_no, text, "a key and an operation")
            keys.append(ids.setdefault(row[1], len(ids)))
            kinds.append(OP_GET if op in _TWITTER_READS else OP_UPDATE if op == "cas" else OP_INSERT)
            ksum += ksize
            vsum += vsize
    finally:
        raw.close()
    n = max(len(keys), 1)
    return TwitterOps(
        np.asarray(keys, np.int64),
        np.asarray(kinds, np.uint8),
        max(int(round(ksum / n)), 1),
        max(int(round(vsum / n)), 1),
    )


def synthetic_twitter(
    cluster: int = 52, scale: float = DEFAULT_SCALE, ops: int | None = None, alpha: float = 1.0,
    get_share: float = 0.9, seed: int = 0,
) -> TwitterOps:  # fmt: skip
    """A stand-in for a Twitter cluster: its key and value sizes, its unique keys times ``scale``.

    Keys follow Zipf(``alpha``), ``get_share`` of the operations are GETs, the rest SETs
    (INSERT). Not the real trace: use :func:`read_twitter_csv` with the real files for that.
    """
    if cluster not in TWITTER_CLUSTERS:
        raise ValueError(f"unknown Twitter cluster {cluster}; known: {', '.join(map(str, TWITTER_CLUSTERS))}")
    kb, vb, unique = TWITTER_CLUSTERS[cluster]
    n_keys = _scaled(unique, scale, 100)
    n_ops = int(ops) if ops is not None else 4 * n_keys
    rng = np.random.default_rng(seed)
    w = np.arange(1, n_keys + 1, dtype=np.float64) ** -alpha
    ranks = rng.choice(n_keys, size=n_ops, p=w / w.sum())
    keys = rng.permutation(n_keys)[ranks]
    _, dense = np.unique(keys, return_inverse=True)
    first = np.full(n_keys, -1, np.int64)
    order = np.arange(n_ops - 1, -1, -1)
    first[dense[order]] = order
    rank_of = np.argsort(np.argsort(first[first >= 0]))
    remap = np.full(n_keys, -1, np.int64)
    remap[np.flatnonzero(first >= 0)] = rank_of
    kinds = np.where(rng.random(n_ops) < get_share, OP_GET, OP_INSERT).astype(np.uint8)
    return TwitterOps(remap[dense], kinds, kb, vb)


def write_twitter_csv(ops: TwitterOps, path: str | Path, seed: int = 0) -> None:
    """Write ``ops`` in the twitter/cache-trace CSV format (for samples and tests)."""
    rng = np.random.default_rng(seed)
    names = {0: "get", 1: "cas", 2: "set"}
    with Path(path).open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        for i, (k, kind) in enumerate(zip(ops.keys.tolist(), ops.kinds.tolist())):
            key = f"k{k:x}".ljust(ops.key_bytes, "0")
            value = max(int(ops.value_bytes + rng.integers(-8, 9)), 1)
            w.writerow([i // 100, key, len(key), value, 1 + k % 4, names[kind], 0])


def build_twitter(
    path: str | None = None,
    cluster: int = 52,
    scale: float = 1 / 64,
    ops: int | None = None,
    threads: int = 8,
    cgroup_percent: float = 10.0,
    seed: int = 0,
) -> OpTrace:
    """A Twitter cache trace replayed on LevelDB (cache_ext spec §5.3, paper Fig. 8).

    Parameters
    ----------
    path : str, optional
        A twitter/cache-trace CSV (``.zst`` too). None: a synthetic stand-in for ``cluster``
        (:func:`synthetic_twitter`).
    cluster : int
        Cluster of the stand-in (17, 18, 24, 34, 52).
    scale : float
        Scales the stand-in's unique keys and the cgroup's fixed terms (default 1/64: cluster
        52's 2.77 M keys -> 43,240).
    ops : int, optional
        Operations replayed (the file's first rows; default all).
    threads : int
        Replay threads: operation ``i`` (trace order) on tag ``i % threads``.
    cgroup_percent : float
        ``memory.max`` = this share of the database + 20 MiB, at least 70 MiB (both scaled).
    seed : int

    Returns
    -------
    OpTrace
        Every unique key is loaded into the database in random order; GETs read index and data
        pages; cas (UPDATE) and the other writes (INSERT) append to the log.

    Raises
    ------
    TraceFormatError
        For a malformed line of ``path`` (file and line named).
    """
    tw = read_twitter_csv(path, ops) if path else synthetic_twitter(cluster, scale, ops, seed=seed)
    layout = LevelDBLayout(
        max(tw.n_keys, 1), tw.key_bytes, tw.value_bytes, log_file_pages=_scaled(1024, scale, 4), seed=seed
    )
    rng = np.random.default_rng(seed)
    order = rng.permutation(layout.n_keys)  # the init file: unique keys in random order
    pos = layout.position(order[tw.keys])
    kinds = tw.kinds.copy()
    kinds[kinds == OP_INSERT] = OP_UPDATE  # every key exists: a write appends to the log
    tags = (np.arange(kinds.shape[0]) % threads).astype(np.int32)
    op_of, ids, rw = _kv_ops(layout, kinds, pos, rng, writer=tags)
    limit = max(int(layout.db_pages * cgroup_percent / 100) + _scaled(5120, scale), _scaled(17920, scale))
    params = {"path": path, "cluster": cluster, "scale": scale, "ops": ops, "threads": threads,
              "cgroup_percent": cgroup_percent, "seed": seed}  # fmt: skip
    return _finish(
        op_of, ids, rw, tw.kinds, tags,
        name="twitter", params=params, cgroup_pages=[limit],
        groups={"client": list(range(threads))},
        extra={"db_pages": layout.db_pages, "keys": layout.n_keys, "key_bytes": tw.key_bytes,
               "value_bytes": tw.value_bytes},
    )  # fmt: skip


def twitter(**params: Any) -> Trace:
    """:func:`build_twitter`'s trace."""
    return build_twitter(**params).trace


# ----------------------------------------------------------------------------- file search


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


# ----------------------------------------------------------------------------- compaction


def build_compaction(
    scale: float = DEFAULT_SCALE,
    ops: int | None = None,
    threads: int = 4,
    compaction_threads: int = 1,
    compaction_mb_s: float = 100.0,
    chunk: int = 16,
    seed: int = 0,
) -> OpTrace:
    """RocksDB-like uniform read/write with background compaction (cache_ext spec §5.6, §4.8).

    Foreground threads (tags ``0 .. threads - 1``) run uniform GETs and PUTs half and half on a
    LevelDB-like layout (PUTs append to the log); compaction threads (the next tags) merge SST
    files: each step reads the next ``chunk`` pages of its input (sequential, so readahead
    applies) and writes ``chunk`` pages of its output.

    Parameters
    ----------
    scale : float
        Of a 100 GiB database in a 10 GiB cgroup (the YCSB setup; the paper gives no size).
    ops : int, optional
        Foreground operations (default 40 per cgroup page).
    threads, compaction_threads : int
    compaction_mb_s : float
        Compaction's pace: its steps are released (the trace's ``time`` column) at this rate
        over the foreground's nominal duration, ``ops`` / 44,618 ops/s (the paper's RocksDB
        uniform baseline, Table 1), so compaction runs beside the foreground throughout.
    chunk : int
        Pages read, then written, per compaction step.
    seed : int

    Returns
    -------
    OpTrace
        Groups ``{"foreground": [...], "compaction": [...]}``.
    """
    layout = LevelDBLayout(_scaled(2**29, scale, 1000), log_file_pages=_scaled(1024, scale, 4), seed=seed)
    limit = _scaled(10 * GIB_PAGES, scale, 64)
    n_fg = int(ops) if ops is not None else 40 * limit
    duration_ns = n_fg / 44_618 * 1e9
    n_cp = max(int(duration_ns * 1e-9 * compaction_mb_s * 1e6 / (PAGE * chunk)), 1)
    rng = np.random.default_rng(seed)
    fg_kinds = np.where(rng.random(n_fg) < 0.5, OP_GET, OP_UPDATE).astype(np.uint8)
    pos = layout.position(rng.integers(0, layout.n_keys, n_fg))
    f_op, f_ids, f_rw = _kv_ops(layout, fg_kinds, pos, rng, writer=np.arange(n_fg) % threads)
    # compaction: each step reads the next `chunk` pages of its input files (in file order from a
    # random file) and writes as many pages of its output files
    per = layout.file_data_pages + layout.index_pages + 1
    n_files = -(-layout.data_pages // layout.file_data_pages)
    start = int(rng.integers(0, n_files))
    page_no = np.arange(n_cp * chunk, dtype=np.int64)
    c_op = page_no // chunk
    c_read = _ids(_R_MAIN, (start + page_no // per) % n_files, page_no % per)
    c_write = _ids(_R_OUT, page_no // per, page_no % per)
    # interleave: compaction operations spread evenly among the foreground ones
    total = n_fg + n_cp
    is_cp = np.zeros(total, bool)
    is_cp[np.linspace(0, total - 1, n_cp).astype(np.int64) if n_cp else []] = True
    new_no = np.empty(total, np.int64)
    new_no[~is_cp] = np.arange(n_fg)
    new_no[is_cp] = np.arange(n_cp)
    fg_global = np.flatnonzero(~is_cp)
    cp_global = np.flatnonzero(is_cp)
    b = _Builder()
    b.add(fg_global[f_op], f_ids, f_rw, 0)
    b.slot[-1] = np.arange(f_op.shape[0], dtype=np.int64) - np.searchsorted(f_op, f_op)
    b.add(cp_global[c_op], c_read, 0, 0)
    b.add(cp_global[c_op], c_write, 1, 1)
    op_of, ids, rw = b.arrays()
    kinds = np.where(is_cp, OP_COMPACT, 0).astype(np.uint8)
    kinds[~is_cp] = fg_kinds
    fg_tag = np.arange(n_fg) % threads
    cp_tag = threads + np.arange(n_cp) % compaction_threads
    tags = np.empty(total, np.int32)
    tags[~is_cp] = fg_tag
    tags[is_cp] = cp_tag
    release = np.zeros(total, np.int64)
    release[is_cp] = (np.arange(n_cp) * (duration_ns / n_cp)).astype(np.int64)
    params = {"scale": scale, "ops": ops, "threads": threads, "compaction_threads": compaction_threads,
              "compaction_mb_s": compaction_mb_s, "chunk": chunk, "seed": seed}  # fmt: skip
    return _finish(
        op_of, ids, rw, kinds, tags,
        name="compaction", params=params, cgroup_pages=[limit],
        groups={"foreground": list(range(threads)),
                "compaction": list(range(threads, threads + compaction_threads))},
        op_release=release, extra={"db_pages": layout.db_pages},
    )  # fmt: skip


def compaction(**params: Any) -> Trace:
    """:func:`build_compaction`'s trace."""
    return build_compaction(**params).trace


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
