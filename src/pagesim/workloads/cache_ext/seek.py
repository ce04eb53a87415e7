"""LevelDB's seek compactions on the leveled layout (``build_ycsb(compactions="seek")``).

Source: LevelDB ``db/version_set.cc`` and ``db/version_edit.h`` (``allowed_seeks``).
:class:`SeekCompactions` decides them in issue order (its docstring gives the rule, the scaling
and the simplifications); :func:`pace_compactions` releases each compaction at its trigger's time
for a given client rate.
"""

from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass

import numpy as np

from pagesim.workloads.cache_ext.keys import LRUSet
from pagesim.workloads.cache_ext.leveldb import LevelDBLayout
from pagesim.workloads.cache_ext.ops import _R_LEVEL, _R_SEEK, PAGE, OpTrace, _ids


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
