"""The cache_ext paper's workload generators: shapes, tags, kinds, footprint, determinism, the reader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pagesim.trace import KIND_FILE, OP_FREE, OP_READ, OP_WRITE
from pagesim.trace.errors import TraceFormatError
from pagesim.workloads import cache_ext as ce
from pagesim.workloads.kernel import KERNEL_WORKLOADS, make_kernel_workload

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "twitter_sample.csv"
TINY = 1 / 8192


def test_registered_in_kernel_workloads() -> None:
    for name in ("ycsb", "twitter", "file-search", "get-scan", "compaction"):
        assert name in KERNEL_WORKLOADS
    trace = make_kernel_workload("ycsb", workload="B", scale=TINY, ops=2000)
    assert trace.source["workload"] == "ycsb" and trace.n_requests > 2000


@pytest.mark.parametrize("letter", list(ce.YCSB_MIXES))
def test_ycsb_shape(letter: str) -> None:
    o = ce.build_ycsb(workload=letter, scale=TINY, ops=4000)
    t = o.trace
    assert o.n_ops == 4000 and o.op_of.shape == (t.n_requests,)
    assert np.all(np.diff(o.op_of) >= 0)  # accesses in operation order
    assert sorted(set(t.tag.tolist())) == list(range(8)) and o.groups == {"client": list(range(8))}
    assert np.all(t.kind == KIND_FILE)
    limit = t.source["cgroup_pages"][0]
    assert limit < t.source["db_pages"]  # the database does not fit
    shares, _ = ce.YCSB_MIXES[letter]
    writes = shares[1] + shares[2] + shares[4]
    has_write = bool((t.op == OP_WRITE).any())
    assert has_write == (writes > 0)
    if letter == "C":
        assert np.all(t.op == OP_READ)
        counts = np.bincount(o.op_of)
        data = (t.original_id[t.page] & ((1 << 26) - 1)) < 512  # data pages come first in a file
        data_per_op = np.bincount(o.op_of, weights=data).astype(np.int64)
        assert set(data_per_op.tolist()) <= {1, 2, 3, 4, 5}  # one per level probed (5 levels)
        assert data_per_op.mean() > 4  # ~90 % of the keys live in the last level
        assert np.all((counts - data_per_op) % 4 == 0)  # table opens: footer + 3 index pages
    if letter == "E":
        assert (o.op_kind == ce.OP_SCAN).mean() > 0.9


def test_ycsb_d_reads_only_the_runs_inserts_and_fits_in_memory() -> None:
    # My-YCSB's LatestWorkload reads keys its thread inserted in this run (none yet: the
    # operation is an insert), so D's reads land on level-0 pages written in the run.
    o = ce.build_ycsb(workload="D", scale=1 / 4096)
    t = o.trace
    first = np.array([np.flatnonzero(np.arange(o.n_ops) % 8 == k)[0] for k in range(8)])
    assert np.all(o.op_kind[first] == ce.OP_INSERT)
    region = t.original_id[t.page] >> 52
    gets = o.op_kind[o.op_of] == ce.OP_GET
    assert gets.any() and np.all(region[gets] == 3)  # _R_L0
    written = set(t.page[(t.op == OP_WRITE) & (region == 3)].tolist())
    read = t.page[gets]
    assert np.isin(read, list(written)).mean() > 0.9  # the rest: pages still being filled
    assert np.unique(t.page).shape[0] < t.source["cgroup_pages"][0] / 2


def test_ycsb_index_pages_are_hot() -> None:
    o = ce.build_ycsb(workload="C", scale=TINY, ops=20000)
    t = o.trace
    counts = np.bincount(t.page, minlength=t.n_pages)
    index_ids = (t.original_id & ((1 << 26) - 1)) >= 512  # pages after the data pages of a file
    assert counts[index_ids].mean() > 20 * counts[~index_ids].mean()


def test_ycsb_deterministic_with_seed() -> None:
    a = ce.build_ycsb(workload="A", scale=TINY, ops=3000, seed=7).trace
    b = ce.build_ycsb(workload="A", scale=TINY, ops=3000, seed=7).trace
    c = ce.build_ycsb(workload="A", scale=TINY, ops=3000, seed=8).trace
    assert np.array_equal(a.original_id[a.page], b.original_id[b.page]) and np.array_equal(a.tag, b.tag)
    assert not np.array_equal(a.original_id[a.page][:500], c.original_id[c.page][:500])


def test_ycsb_zipfian_is_skewed_and_full_scale_sizes() -> None:
    rng = np.random.default_rng(0)
    ranks = ce.ycsb_zipfian(rng, 1_000_000, 200_000)
    assert ranks.min() >= 0 and ranks.max() < 1_000_000
    assert np.mean(ranks == 0) > 0.05 and np.mean(ranks < 1000) > 0.4
    full = ce.LevelDBLayout(2**29)
    assert full.records_per_page == 18 and 100 < full.db_pages * 4096 / 2**30 < 130  # "100 GiB DB"
    keys = np.arange(0, 2**29, 2**20)
    assert np.unique(full.position(keys)).size == keys.size


def test_lru_hits_by_hand() -> None:
    # capacity 2: 1 2 | 1 hit (2 1) | 3 evicts 2 (1 3) | 2 evicts 1 (3 2) | 1 misses
    assert ce.lru_hits(np.array([1, 2, 1, 3, 2, 1]), 2).tolist() == [False, False, True, False, False, False]
    assert not ce.lru_hits(np.array([1, 1, 1]), 0).any()


def test_lru_set_touch_by_hand() -> None:
    """The online table cache the seek compactions use: capacity 2, references 1 2 1 3 2 1.
    1, 2 miss; 1 hits (now most recent); 3 misses and pushes out 2; 2 misses and pushes out 1;
    1 misses: the same answers as lru_hits, one reference at a time."""
    cache = ce.LRUSet(2)
    assert [cache.touch(k) for k in (1, 2, 1, 3, 2, 1)] == [False, False, True, False, False, False]
    assert [ce.LRUSet(0).touch(k) for k in (5, 5)] == [False, False]


def _leveled(**kw: object) -> ce.LevelDBLayout:
    # 18 records per page: 1,000 data pages; levels of 10, 100 and the rest (890) pages
    return ce.LevelDBLayout(n_keys=18_000, level_pages=(10, 100), **kw)  # type: ignore[arg-type]


def test_leveled_layout_sizes_by_hand() -> None:
    lay = _leveled(table_cache=0)
    assert lay.level_sizes.tolist() == [10, 100, 890] and lay.meta_pages == 4  # footer + 3 index
    assert lay.level_tables.tolist() == [1, 1, 2]  # 10/512, 100/512 -> at least 1; 890/512 -> 2
    assert _leveled(scale=1 / 1024).level_tables.tolist() == [20, 200, 1780]
    assert lay.db_pages == 1000 + 3 * 4 + 4  # level 3 has two files (890 pages)
    level = lay.level_of(np.arange(18_000))
    share = np.bincount(level, minlength=4)[1:] / 18_000
    assert np.allclose(share, [0.01, 0.10, 0.89], atol=0.01)  # proportional to the level's size
    full = ce.LevelDBLayout(2**29, level_pages=(2560, 25600, 256_000, 2_560_000))
    assert full.level_tables.tolist() == [5, 50, 500, 5000, 52_699]  # 10 MiB .. 10 GiB, the rest
    with pytest.raises(ValueError, match="leave nothing"):
        ce.LevelDBLayout(n_keys=18_000, level_pages=(500, 500))


def _region_file_page(ids: np.ndarray) -> list[tuple[int, int, int]]:
    r, f, j = _split(ids)
    return list(zip((r - 16).tolist(), f.tolist(), j.tolist()))


def _key_in_level(lay: ce.LevelDBLayout, level: int) -> int:
    pos = np.arange(9000, 18_000)
    return int(pos[lay.level_of(pos) == level][0])


def test_leveled_get_probes_each_level_down_to_the_key() -> None:
    lay = _leveled(table_cache=0)  # every probe re-opens its table
    p = _key_in_level(lay, 3)
    op, ids = lay.get_pages(np.array([p]))
    meta = [515, 512, 513, 514]  # footer (the file's last page), then the index block
    want = []
    for level, size in ((1, 10), (2, 100), (3, 890)):
        dp = p * size // 18_000  # each level spans every key: the page covering p
        want += [(level, 0, j) for j in meta] + [(level, dp // 512, dp % 512)]
    want[10:14] = [(3, (p * 890 // 18_000) // 512, j) for j in meta]  # level 3's table of p
    assert not op.any() and _region_file_page(ids) == want


def test_leveled_table_cache_and_filters() -> None:
    lay = _leveled(table_cache=990)
    p = _key_in_level(lay, 3)
    op, ids = lay.get_pages(np.array([p, p]))
    assert (op == 0).sum() == 15 and (op == 1).sum() == 3  # the second GET finds its 3 tables open
    assert all(j < 512 for _, _, j in _region_file_page(ids[op == 1]))  # data pages only
    lay = _leveled(table_cache=990, filters=True)
    assert lay.filter_pages == 3 and lay.meta_pages == 7  # 512 x 18 keys x 10 bits = 2.8 pages
    q = np.arange(9000, 18_000)
    no_false_positive = (ce.fnv1a64(q * 8 + 1) % 100 != 0) & (ce.fnv1a64(q * 8 + 2) % 100 != 0)
    p = int(q[(lay.level_of(q) == 3) & no_false_positive][0])
    op, ids = lay.get_pages(np.array([p]))
    data = [t for t in _region_file_page(ids) if t[2] < 512]
    assert len(ids) == 3 * 7 + 1 and [t[0] for t in data] == [3]  # filters rule out levels 1 and 2


def test_leveled_scan_reads_every_level() -> None:
    lay = _leveled(table_cache=0)
    op, ids = lay.scan_pages(np.array([0]), 36)
    # keys 0-35: level 1 page 0 (35 x 10 // 18,000 = 0), level 2 page 0, level 3 pages 0-1
    meta = [515, 512, 513, 514]
    want = [(1, 0, j) for j in [*meta, 0]] + [(2, 0, j) for j in [*meta, 0]]
    want += [(3, 0, j) for j in [*meta, 0, 1]]
    assert not op.any() and _region_file_page(ids) == want


def test_ycsb_uniform_level_4_pages_read_ten_times_as_often_as_level_5() -> None:
    # a GET probes every level down to its key's: all but the keys of levels 1-3 (35 of 3,641
    # data pages) read a page of level 4 (312 pages), those of level 5 (3,294 pages) one of level 5
    o = ce.build_ycsb(workload="uniform", scale=TINY, ops=20_000)
    t = o.trace
    ids = t.original_id[t.page]
    data = (ids & ((1 << 26) - 1)) < 512
    per_page = [((ids >> 52 == 16 + level) & data).sum() / size for level, size in ((4, 312), (5, 3294))]
    expected = ((3641 - 35) / 3641 / 312) / (3294 / 3641 / 3294)  # 11.6
    assert per_page[0] / per_page[1] == pytest.approx(expected, rel=0.05)


def test_ycsb_levels_option() -> None:
    lev = ce.build_ycsb(workload="C", scale=TINY, ops=2000)
    assert lev.trace.source["level_pages"] == [1, 3, 31, 312, 3294]  # 10 MiB x 10**i / 8192, the rest
    two = ce.build_ycsb(workload="C", scale=TINY, ops=2000, levels=0)
    assert "level_pages" not in two.trace.source and set(np.bincount(two.op_of).tolist()) <= {2, 4}
    with pytest.raises(ValueError, match="levels"):
        ce.build_ycsb(workload="C", scale=TINY, ops=100, levels=1)


def test_unknown_ycsb_workload() -> None:
    with pytest.raises(ValueError, match="unknown YCSB workload 'G'"):
        ce.build_ycsb(workload="G")


def _split(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(region, file, page in file) of source ids."""
    return ids >> 52, (ids >> 26) & ((1 << 26) - 1), ids & ((1 << 26) - 1)


def test_log_streams_by_hand() -> None:
    lay = ce.LevelDBLayout(n_keys=1000, log_file_pages=4)
    assert lay.record_bytes == 224  # 16 + 200 + 8: records 0-18 start on page 0 (18 x 224 = 4032)
    nth = np.arange(40)
    # one log (the default): 4 pages per file; record 73 starts at 16,352 (page 3), 74 at 16,576
    region, f, j = _split(lay.log_pages(np.arange(80)))
    assert np.all(region == 4) and np.all(f[:74] == 0) and np.all(f[74:] == 1)
    assert j[18] == 0 and j[19] == 1 and j[73] == 3 and j[74] == 0
    at, freed = lay.log_rotations(np.arange(80))
    assert at.tolist() == [74] * 4 and [x.tolist() for x in _split(freed)] == [[4] * 4, [0] * 4, [0, 1, 2, 3]]
    # stream 3 of 8 with one-page files: pages 0, 1, 2 of its log are files 3, 11, 19
    _, f, j = _split(lay.log_pages(nth, stream=3, streams=8, file_pages=1))
    assert f.tolist() == [3] * 19 + [11] * 18 + [19] * 3 and not j.any()
    at, freed = lay.log_rotations(nth, stream=3, streams=8, file_pages=1)
    assert at.tolist() == [19, 37]  # the first record of page 1, of page 2: the old file goes
    assert _split(freed)[1].tolist() == [3, 11] and not _split(freed)[2].any()


@pytest.mark.parametrize("letter", ["A", "F", "uniform-rw"])
def test_ycsb_log_pages_belong_to_one_thread(letter: str) -> None:
    # each thread appends to a log of its own and frees it itself, after its last write there:
    # however kernel mode's scheduler interleaves the threads, no freed page is written again
    t = ce.build_ycsb(workload=letter, scale=TINY, ops=6000).trace
    ids = t.original_id[t.page]
    writer: dict[int, int] = {}
    live: dict[int, set[int]] = {}  # per thread: log pages written and not freed yet
    freed: set[int] = set()
    for i in np.flatnonzero((ids >> 52) == 4).tolist():
        page, tag = int(ids[i]), int(t.tag[i])
        assert writer.setdefault(page, tag) == tag  # one thread writes and frees a page
        if t.op[i] == OP_WRITE:
            assert page not in freed  # never written once freed
            live.setdefault(tag, set()).add(page)
        else:
            assert t.op[i] == OP_FREE
            live[tag].remove(page)
            freed.add(page)
        # one-page files here (4 log pages // 8 threads, at least 1): the page being written,
        # and its predecessor between the first write of a page and the free of the old one
        assert len(live[tag]) <= 2
    assert len(freed) > 8 and all(len(pages) <= 1 for pages in live.values())


def test_get_scan_threads_and_tags() -> None:
    o = ce.build_get_scan(scale=TINY, gets=3000)
    t = o.trace
    assert o.groups == {"scan": [0], "get": [1, 2, 3]}
    scan_ops = o.op_kind == ce.OP_SCAN
    op_tag = np.zeros(o.n_ops, np.int64)
    op_tag[o.op_of] = t.tag
    assert np.all(op_tag[scan_ops] == 0) and np.all(op_tag[~scan_ops] >= 1)
    lengths = np.bincount(o.op_of)
    assert np.median(lengths[scan_ops]) > 4 * lengths[~scan_ops].max()  # scans read many pages
    keys_per_get = scan_ops.sum() * t.source["scan_keys"] / (~scan_ops).sum()
    assert keys_per_get == pytest.approx(40, rel=0.05)  # scan_keys_per_get
    assert t.source["cgroup_pages"][0] < t.source["db_pages"]


def test_file_search_shape() -> None:
    o = ce.build_file_search(scale=1 / 512, passes=3)
    t = o.trace
    limit = t.source["cgroup_pages"][0]
    assert limit == (1 << 30) // 4096 // 512  # 1 GiB / 512
    assert 1.3 * limit < t.n_pages < 1.5 * limit  # the tree is larger than the cgroup
    assert t.n_requests == 3 * t.n_pages and np.all(t.op == OP_READ)
    one = t.n_requests // 3
    assert np.array_equal(t.page[:one], t.page[one : 2 * one])  # every pass in the same order
    assert o.n_ops == 3 * t.source["files"]
    two = ce.build_file_search(scale=1 / 512, passes=3, threads=2, cgroup=1, tag_base=8)
    assert set(two.trace.tag.tolist()) == {8, 9} and np.all(two.trace.cgroup == 1)


def test_compaction_tags_and_ops() -> None:
    o = ce.build_compaction(scale=TINY, ops=4000)
    t = o.trace
    assert o.groups == {"foreground": [0, 1, 2, 3], "compaction": [4]}
    cp = t.tag == 4
    assert np.any(t.op[cp] == OP_READ) and np.any(t.op[cp] == OP_WRITE)
    assert np.all(t.kind == KIND_FILE)
    reads = t.original_id[t.page[cp & (t.op == OP_READ)]]
    assert np.mean(np.diff(reads) == 1) > 0.9  # compaction reads its inputs sequentially
    fg = ~cp
    assert np.any(t.op[fg] == OP_WRITE) and np.any(t.op[fg] == OP_READ)


def test_twitter_reader_on_the_sample() -> None:
    tw = ce.read_twitter_csv(SAMPLE)
    assert tw.keys.shape == (4000,) and tw.n_keys == 1164
    assert (tw.key_bytes, tw.value_bytes) == (33, 674)  # cluster 24's sizes
    assert 0.85 < np.mean(tw.kinds == ce.OP_GET) < 0.95
    assert tw.keys[0] == 0 and np.all(np.diff(np.maximum.accumulate(tw.keys)) <= 1)
    head = ce.read_twitter_csv(SAMPLE, max_rows=10)
    assert head.keys.shape == (10,)


def test_twitter_replay_on_the_sample() -> None:
    o = ce.build_twitter(path=str(SAMPLE), scale=1 / 4096)
    t = o.trace
    assert o.n_ops == 4000 and sorted(set(t.tag.tolist())) == list(range(8))
    assert t.source["cgroup_pages"][0] < t.source["db_pages"]
    writes = np.isin(o.op_kind, [ce.OP_UPDATE, ce.OP_INSERT])
    op_write = np.zeros(o.n_ops, bool)
    op_write[o.op_of[t.op == OP_WRITE]] = True
    assert np.array_equal(writes, op_write)  # sets append to the log, gets only read


@pytest.mark.parametrize("cluster", sorted(ce.TWITTER_STATS))
def test_twitter_stand_in_has_its_clusters_published_statistics(cluster: int) -> None:
    stats = ce.TWITTER_STATS[cluster]
    tw = ce.synthetic_twitter(cluster, scale=1 / 1024)
    kb, vb, unique = ce.TWITTER_CLUSTERS[cluster]
    assert (tw.key_bytes, tw.value_bytes) == (kb, vb)  # the harness pads to its own means
    counts = np.bincount(tw.keys)
    assert counts.min() >= 1 and tw.keys[0] == 0  # every key requested, ids by first request
    assert abs(np.mean(counts == 1) - stats.one_hit_wonder) < 0.01
    assert abs(tw.keys.shape[0] / tw.n_keys - stats.trace_rows / unique) < 0.5
    get, update, insert = stats.shares()
    assert abs(np.mean(tw.kinds == ce.OP_GET) - get) < 0.02
    assert abs(np.mean(tw.kinds == ce.OP_UPDATE) - update) < 0.02
    assert abs(np.mean(tw.kinds == ce.OP_INSERT) - insert) < 0.02


def test_twitter_stand_in_skew_follows_alpha_and_checks_its_input() -> None:
    def top_share(alpha: float) -> float:
        counts = np.bincount(ce.synthetic_twitter(52, scale=1 / 1024, alpha=alpha).keys)
        return float(np.sort(counts)[-10:].sum() / counts.sum())

    assert top_share(0.0) < top_share(ce.TWITTER_STATS[52].zipf_alpha) < top_share(2.0)
    tw = ce.synthetic_twitter(34, scale=1 / 1024, get_share=0.5)
    assert abs(np.mean(tw.kinds == ce.OP_GET) - 0.5) < 0.03
    with pytest.raises(ValueError, match="unknown Twitter cluster 7"):
        ce.synthetic_twitter(7)
    with pytest.raises(ValueError, match="get_share must be within"):
        ce.synthetic_twitter(52, scale=1 / 1024, get_share=1.5)
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        ce.synthetic_twitter(52, scale=1 / 1024, alpha=-1.0)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("0,key1,10,20,1,get", "7 comma-separated fields"),
        ("0,key1,ten,20,1,get,0", "integer key and value sizes"),
        ("0,key1,10,20,1,,0", "a key and an operation"),
    ],
)
def test_twitter_malformed_line_names_file_and_line(tmp_path: Path, line: str, expected: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("0,key0,10,20,1,get,0\n1,key0,10,20,1,set,0\n" + line + "\n")
    with pytest.raises(TraceFormatError, match=expected) as info:
        ce.read_twitter_csv(path)
    assert info.value.line_no == 3 and str(path) in str(info.value) and ":3:" in str(info.value)


def test_fnv_matches_ycsb() -> None:
    # YCSB's Utils.fnvhash64(0) and (1), computed by hand from FNV-1a over 8 little-endian bytes
    def ref(v: int) -> int:
        h = 0xCBF29CE484222325
        for _ in range(8):
            h ^= v & 0xFF
            h = (h * 1099511628211) & (2**64 - 1)
            v >>= 8
        s = h - 2**64 if h >= 2**63 else h
        return abs(s) if s != -(2**63) else 2**63 - 1

    values = np.array([0, 1, 12345, 2**40 + 3])
    assert ce.fnv1a64(values).tolist() == [min(ref(int(v)), 2**63 - 1) for v in values]
