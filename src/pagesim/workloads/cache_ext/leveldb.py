"""The LevelDB model the key-value workloads run on: its layouts, table cache and operations' pages.

:class:`LevelDBLayout` places records, index blocks and footers; :func:`_kv_ops` turns GETs,
scans, updates and inserts into page accesses on it.

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

import math
from dataclasses import dataclass

import numpy as np

from pagesim.trace import OP_FREE
from pagesim.workloads.cache_ext.keys import fnv1a64, lru_hits
from pagesim.workloads.cache_ext.ops import (
    _R_L0,
    _R_LEVEL,
    _R_LOG,
    _R_MAIN,
    _R_UPPER,
    OP_GET,
    OP_INSERT,
    OP_RMW,
    OP_SCAN,
    OP_UPDATE,
    PAGE,
    _Builder,
    _ids,
)


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
