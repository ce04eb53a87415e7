"""LevelDB's seek compactions in the YCSB workload (build_ycsb(compactions="seek")), by hand."""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.trace import OP_FREE, OP_READ, OP_WRITE
from pagesim.workloads import cache_ext as ce
from pagesim.workloads.cache_ext.ops import _R_LEVEL, _R_SEEK, _ids

# A tiny leveled layout: 180 keys, 18 per page -> 10 data pages; level 1 holds 2, level 2 the
# other 8. At scale 1/512 a unit (a 2 MiB table scaled) is one page and allowed_seeks =
# 4096 / 16384 * 512 = 128 per page. Level 1's units cover keys [0, 90) and [90, 180); level
# 2's, keys [0, 23), [23, 45), [45, 68), [68, 90), [90, 113)...
LAYOUT = ce.LevelDBLayout(180, level_pages=(2,), table_cache=990, scale=1 / 512)


def _level(level: int, file_no: int, page: int) -> int:
    return int(_ids(_R_LEVEL + level, file_no, page))


def _key_in_level_2_below(limit: int) -> int:
    keys = np.arange(limit)
    return int(keys[LAYOUT.level_of(keys) == 2][0])


def test_units_and_allowed_seeks_by_hand() -> None:
    seek = ce.SeekCompactions(LAYOUT, 1 / 512)
    assert seek.unit == 1
    assert [(t.a, t.b, t.pages, t.allowed) for t in seek.levels[0]] == [(0, 90, 1, 128), (90, 180, 1, 128)]
    assert [(t.a, t.b) for t in seek.levels[1]][:4] == [(0, 23), (23, 45), (45, 68), (68, 90)]
    # 2 MiB at scale 1: 512 pages x 4 KiB / 16 KiB = 128; a small table gets LevelDB's 100
    assert ce.SeekCompactions(LAYOUT, 1.0).allowed(512) == 128
    assert ce.SeekCompactions(LAYOUT, 1.0).allowed(8) == 100


def test_get_charges_the_first_table_and_compacts_at_zero() -> None:
    seek = ce.SeekCompactions(LAYOUT, 1 / 512)
    p = _key_in_level_2_below(90)  # level 1's first unit, then level 2
    first, _ = seek.get(p, 2)  # opens both tables: footer and index (4 pages), then the data page
    meta = LAYOUT._meta_ids(np.array([1, 2]), np.array([0, 0])).tolist()
    assert first == meta[0] + [_level(1, 0, 0)] + meta[1] + [_level(2, 0, p * 8 // 180)]
    unit = seek.levels[0][0]
    assert unit.allowed == 127  # the first table read is charged
    for _ in range(126):
        pages, due = seek.get(p, 2)
        assert pages == [_level(1, 0, 0), _level(2, 0, p * 8 // 180)] and due is None
    assert seek.levels[1][0].allowed == 128  # the second table is never charged
    _, due = seek.get(p, 2)  # the 128th charge
    assert due == (1, unit)
    read, written, freed = seek.compact(*due)
    # inputs: level 1's page 0 and level 2's pages 0-3 (keys 0-89); outputs: 5 new one-page tables
    assert read.tolist() == [_level(1, 0, 0)] + [_level(2, 0, k) for k in range(4)]
    assert written.tolist() == [int(_ids(_R_SEEK, f, 0)) for f in range(5)]
    assert freed.tolist() == read.tolist()
    assert [(t.a, t.b) for t in seek.levels[0]] == [(90, 180)]
    assert [(t.a, t.b, t.file) for t in seek.levels[1]][:6] == [
        (0, 18, 0), (18, 36, 1), (36, 54, 2), (54, 72, 3), (72, 90, 4), (90, 113, -1)
    ]  # fmt: skip
    # after it, the key is read from the new table alone, and nothing is charged
    pages, due = seek.get(p, 2)
    assert pages == [int(_ids(_R_SEEK, p // 18, 0))] and due is None
    # a level-1 key of the compacted range now lives in level 2
    keys = np.arange(90)
    q = int(keys[LAYOUT.level_of(keys) == 1][0])
    assert seek.get(q, 1)[0] == [int(_ids(_R_SEEK, q // 18, 0))]


def test_single_table_get_is_not_charged() -> None:
    seek = ce.SeekCompactions(LAYOUT, 1 / 512)
    keys = np.arange(180)
    p = int(keys[LAYOUT.level_of(keys) == 1][0])
    seek.get(p, 1)
    assert all(t.allowed == 128 for t in seek.levels[0])


@pytest.mark.parametrize("letter", ["C", "F"])
def test_before_any_compaction_the_accesses_are_the_default_ones(letter: str) -> None:
    # 300 operations: level 1's two units (256 charges each at 1/1024) never reach 0
    plain = ce.build_ycsb(letter, ops=300)
    seek = ce.build_ycsb(letter, ops=300, compactions="seek")
    assert seek.trace.source["compactions"] == 0
    assert np.array_equal(plain.trace.page, seek.trace.page)
    assert np.array_equal(plain.trace.op, seek.trace.op)
    assert np.array_equal(plain.trace.tag, seek.trace.tag)
    assert np.array_equal(plain.op_of, seek.op_of)


def test_default_trace_has_no_compaction_and_the_option_is_checked() -> None:
    plain = ce.build_ycsb("C", ops=300)
    assert "compactions" not in plain.trace.source["params"] and plain.groups == {"client": list(range(8))}
    with pytest.raises(ValueError, match="unknown compactions"):
        ce.build_ycsb("C", ops=10, compactions="size")
    with pytest.raises(ValueError, match="no scans"):
        ce.build_ycsb("E", ops=10, compactions="seek")
    with pytest.raises(ValueError, match="leveled layout"):
        ce.build_ycsb("C", ops=10, levels=0, compactions="seek")


def test_compaction_ops_on_the_background_tag_after_their_trigger() -> None:
    o = ce.build_ycsb("uniform", ops=1200, compactions="seek", compaction_ops_s=1e5)
    src = o.trace.source
    assert src["compactions"] >= 2  # level 1's two units: 256 charges each
    triggers = np.asarray(src["compaction_triggers"])
    comp = np.flatnonzero(o.op_kind == ce.OP_COMPACT)
    assert comp.tolist() == (triggers + np.arange(triggers.shape[0]) + 1).tolist()
    mine = np.isin(o.op_of, comp)
    assert set(o.trace.tag[mine].tolist()) == {8} and o.groups["compaction"] == [8]
    # each compaction: read, write alternately, then free what it read
    first = o.op_of == comp[0]
    ops = o.trace.op[first]
    k = int((ops == OP_READ).sum())
    assert ops.tolist() == [OP_READ, OP_WRITE] * k + [OP_FREE] * k
    pages = o.trace.page[first]
    assert pages[0 : 2 * k : 2].tolist() == pages[2 * k :].tolist()
    # released at its trigger's time at 1e5 client ops/s; clients at 0
    assert o.trace.time[first][0] == triggers[0] * 10_000
    assert (o.trace.time[~mine] == 0).all()
    paced = ce.pace_compactions(o, 2e5)
    assert paced.trace.time[first][0] == triggers[0] * 5_000
    # the compacted pages are never read by a client again
    freed = set(o.trace.page[first & (o.trace.op == OP_FREE)].tolist())
    after = np.flatnonzero(first)[-1]
    assert not freed & set(o.trace.page[after:][~mine[after:]].tolist())
