"""zram's memory from each stored page's compressibility (pagesim.engine.zram), by hand.

A stored page compressed R:1 costs 1/R page of memory, a same-filled page none; zram holds
ceil(sum of the stored pages' costs) pages, summed exactly. The default (every page 3:1) is
ceil(stored / 3), pagesim's count before per-page costs.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from pagesim.engine.kernel import KernelRun
from pagesim.engine.kernel_loop import (
    N,
    _free_pages,
    _zram_pages,
    _zram_pages_of,
)
from pagesim.engine.memory import KernelConfig
from pagesim.engine.zram import compression_entries, ratio_fraction, same_filled_mask, zram_costs
from pagesim.policies.registry import make_policy
from pagesim.trace import KIND_ANON, KIND_FILE, OP_READ, OP_WRITE, Trace


def test_ratios_are_fractions_and_below_one_is_refused() -> None:
    assert ratio_fraction(3) == Fraction(3) and ratio_fraction(6.5) == Fraction(13, 2)
    assert ratio_fraction(2.7) == Fraction(27, 10)
    for bad in (0.5, 0.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="ratio"):
            ratio_fraction(bad)


def test_same_filled_pages_are_spread_evenly() -> None:
    """Page k is same-filled iff floor((k + 1) F) > floor(k F): F = 0.3 over 10 pages gives
    k = 3 (1.2), 6 (2.1), 9 (3.0); the first m pages hold floor(m F)."""
    assert np.flatnonzero(same_filled_mask(10, 0.3)).tolist() == [3, 6, 9]
    assert same_filled_mask(4, 1.0).all() and not same_filled_mask(4, 0.0).any()
    assert [int(same_filled_mask(m, 0.3).sum()) for m in (3, 4, 7, 10)] == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="same_filled"):
        same_filled_mask(3, 1.5)


def test_costs_of_a_mixed_population() -> None:
    """Node ratio 3; task 1's anon compresses 6.5:1 (13/2) with half its pages same-filled.
    Scale = lcm(3, 13) = 39: a 3:1 page costs 13, a 6.5:1 page 39 * 2 / 13 = 6, a same-filled
    page 0. Task 1 first touches pages 5, 6, 7, 8 (in that order): 6 and 8 are same-filled.
    Three 3:1 pages and the two others stored: 3/3 + 2/6.5 = 1.31 -> 2 pages (51 / 39 rounded up)."""
    # rows: task 0 writes anon 0, 1, 2; task 1 writes anon 5..8 and reads file page 9
    page = np.array([0, 1, 2, 5, 6, 7, 8, 9], np.int64)
    kind = np.array([KIND_ANON] * 7 + [KIND_FILE], np.uint8)
    tag = np.array([0, 0, 0, 1, 1, 1, 1, 1], np.int32)
    entries = compression_entries({"anon_compression": [{"tag": 1, "ratio": 6.5, "same_filled": 0.5}]})
    cost, scale = zram_costs(page, kind, tag, 10, 3.0, entries)
    assert scale == 39
    assert cost[[0, 1, 2]].tolist() == [13, 13, 13]
    assert cost[[5, 6, 7, 8]].tolist() == [6, 0, 6, 0]
    stored = cost[[0, 1, 2, 5, 6, 7, 8]].sum()
    assert stored == 51 and -(-stored // scale) == 2 == math.ceil(3 / 3 + 2 / 6.5)


def test_default_costs_are_one_third() -> None:
    """No statement: every page costs 1 in a scale of 3, so zram holds ceil(stored / 3)."""
    cost, scale = zram_costs(
        np.arange(4, dtype=np.int64), np.ones(4, np.uint8), np.zeros(4, np.int32), 4, 3.0
    )
    assert scale == 3 and cost.tolist() == [1, 1, 1, 1]


def test_statements_are_checked() -> None:
    assert compression_entries({}) == []
    for bad in (
        {"anon_compression": {"tag": 0}},
        {"anon_compression": [{"ratio": 4}]},
        {"anon_compression": [{"tag": 0, "colour": 1}]},
        {"anon_compression": [{"tag": 0, "ratio": 0.5}]},
        {"anon_compression": [{"tag": 0, "same_filled": 2}]},
        {"anon_compression": [{"tag": 0}, {"tag": 0}]},
    ):
        with pytest.raises(ValueError):
            compression_entries(bad)
    with pytest.raises(ValueError, match="zram_ratio"):
        KernelConfig(zram_ratio=0.9).validated()


def _two_tasks(n: int, cgroups: bool = False) -> Trace:
    """Task 0 writes anon pages 0..n-1 while task 1 writes anon 10,000..10,000+n-1, alternating;
    task 1's data compresses 8:1 and a quarter of its pages are same-filled."""
    ids = np.empty(2 * n, np.int64)
    ids[0::2], ids[1::2] = np.arange(n), 10_000 + np.arange(n)
    tag = np.tile(np.array([0, 1], np.int32), n)
    cols = {"cgroup": tag.astype(np.uint16)} if cgroups else {}
    return Trace.from_ids(
        ids,
        kind=np.full(2 * n, KIND_ANON, np.uint8),
        op=np.full(2 * n, OP_WRITE, np.uint8),
        tag=tag,
        source={"anon_compression": [{"tag": 1, "ratio": 8, "same_filled": 0.25}]},
        **cols,
    )


def _stored(run: KernelRun) -> tuple[int, int]:
    """Task 0's stored pages, and task 1's stored pages that are not same-filled (its k-th
    page, k = its id - 10,000, is same-filled iff k % 4 == 3)."""
    fw = run.framework
    orig = run.trace.original_id
    swapped = fw.swapped[: orig.size] != 0
    k = orig - 10_000
    return int((swapped & (orig < 10_000)).sum()), int((swapped & (orig >= 10_000) & (k % 4 != 3)).sum())


def test_zram_holds_each_stored_page_at_its_own_ratio() -> None:
    """800 pages of each task on a 1000-page node with 4000 pages of swap: task 0's pages at the
    node's 3:1, task 1's at 8:1 with every fourth page same-filled. After every access zram
    holds ceil(s0 / 3 + s1 / 8) pages (s0, s1: stored pages of each, the same-filled left
    out), and memory is conserved: resident + zram + free = 1000. With --zram-ratio 4 task 0's
    pages cost a quarter each."""
    for node_ratio, per_page in ((None, Fraction(1, 3)), (4.0, Fraction(1, 4))):
        run = KernelRun(
            _two_tasks(800),
            make_policy("lru"),
            KernelConfig(memory_pages=1000, swap_pages=4000, schedule="trace", zram_ratio=node_ratio),
        )
        seen = 0
        while run.done < run.n:
            run.advance(53)
            s0, s1 = _stored(run)
            zram = math.ceil(s0 * per_page + s1 * Fraction(1, 8))
            assert int(_zram_pages(run.framework)) == zram
            assert int(run.framework.node[N.resident]) + zram + int(_free_pages(run.framework)) == 1000
            seen = max(seen, s0 + s1)
        assert seen > 100  # reclaim did swap
        assert run.result().node["zram_pages"] == zram


def test_a_node_without_statements_counts_a_third() -> None:
    """The same trace without its statement: ceil(stored / 3), as before per-page costs."""
    tr = _two_tasks(800)
    tr = Trace.from_ids(tr.original_id[tr.page], kind=tr.kind, op=tr.op, tag=tr.tag)
    run = KernelRun(
        tr, make_policy("lru"), KernelConfig(memory_pages=1000, swap_pages=4000, schedule="trace")
    )
    run.advance()
    node = run.result().node
    assert node["zram_stored"] > 0 and node["zram_pages"] == -(-node["zram_stored"] // 3)


def test_each_cgroup_counts_the_zram_of_its_own_pages() -> None:
    """Two cgroups of memory.max 300 on a 1000-page node, task 0 in cgroup 0 (3:1), task 1 in
    cgroup 1 (8:1, every fourth page same-filled), 600 pages each: each cgroup's limit reclaim
    swaps its own pages out. What a cgroup's lruvec is told zram holds for it (``a[A_ZRAM_PAGES]``)
    is its own pages' cost, ceil(s0 / 3) and ceil(s1 / 8); the node's free memory counts the
    two summed and rounded up once."""
    run = KernelRun(
        _two_tasks(600, cgroups=True),
        make_policy("lru"),
        KernelConfig(memory_pages=1000, swap_pages=4000, schedule="trace"),
        cgroup_limits=[300, 300],
    )
    run.advance()
    s0, s1 = _stored(run)
    assert s0 >= 300 and s1 >= 200
    fw = run.framework
    assert int(_zram_pages_of(fw, 0)) == math.ceil(Fraction(s0, 3))
    assert int(_zram_pages_of(fw, 1)) == math.ceil(Fraction(s1, 8))
    assert int(_zram_pages(fw)) == math.ceil(Fraction(s0, 3) + Fraction(s1, 8))


def test_reads_of_a_file_leave_zram_empty() -> None:
    """File pages are never swapped: zram holds nothing whatever the statement."""
    tr = Trace.from_ids(
        np.arange(2000, dtype=np.int64),
        kind=np.full(2000, KIND_FILE, np.uint8),
        op=np.full(2000, OP_READ, np.uint8),
        source={"anon_compression": [{"tag": 0, "ratio": 8}]},
    )
    run = KernelRun(tr, make_policy("lru"), KernelConfig(memory_pages=1000, schedule="trace"))
    run.advance()
    assert run.result().node["zram_pages"] == 0


def test_a_node_swapping_to_an_ssd_reports_no_zram() -> None:
    """1500 anon pages written on a node of 1000: 500 swapped out (swap as large as memory, no
    OOM). Under --swap ssd the result has no zram figures (a zram_stored of 0 beside 500 swapped
    pages read as if zram held them in no memory); under zram it has them."""
    tr = Trace.from_ids(
        np.arange(1500, dtype=np.int64),
        kind=np.full(1500, KIND_ANON, np.uint8),
        op=np.full(1500, OP_WRITE, np.uint8),
    )
    nodes = {}
    for swap in ("ssd", "zram"):
        run = KernelRun(tr, make_policy("lru"), KernelConfig(memory_pages=1000, schedule="trace", swap=swap))
        run.advance()
        nodes[swap] = run.result().node
        assert nodes[swap]["swap_used"] > 0
    assert "zram_stored" not in nodes["ssd"] and "zram_pages" not in nodes["ssd"]
    assert nodes["zram"]["zram_stored"] == nodes["zram"]["swap_used"]


def test_zram_ratio_on_the_command_line() -> None:
    """``--zram-ratio 8``: the node's zram holds ceil(stored / 8) pages; the repeat line says it."""
    from typer.testing import CliRunner

    from pagesim.cli import app

    small = "stress-vm?memory_pages=400&passes=2&workers=2"
    result = CliRunner().invoke(app, ["run", small, "--policy", "lru", "--zram-ratio", "8", "--json"])
    assert result.exit_code == 0, result.output
    node = json.loads(result.stdout.splitlines()[0])["node"]
    assert node["zram_stored"] > 0 and node["zram_pages"] == -(-node["zram_stored"] // 8)
    table = CliRunner().invoke(app, ["run", small, "--policy", "lru", "--zram-ratio", "8"])
    assert "--zram-ratio 8" in table.stdout
    refused = CliRunner().invoke(app, ["run", small, "--policy", "lru", "--zram-ratio", "0.5"])
    assert refused.exit_code != 0 and "zram_ratio" in refused.output


def test_cast_in_each_cgroup_is_told_its_own_zram() -> None:
    """The two cgroups above, CAST in each: each lruvec's readout ``zram_pages`` (what it counts
    in anon's share) is its own pages' zram, ceil(s0 / 3) and ceil(s1 / 8), not the node's."""
    from pagesim.policies.cast.policy import CAST

    pols = [CAST(), CAST()]
    run = KernelRun(
        _two_tasks(600, cgroups=True),
        pols,
        KernelConfig(memory_pages=1000, swap_pages=4000, schedule="trace"),
        cgroup_limits=[300, 300],
    )
    run.advance()
    s0, s1 = _stored(run)
    own = [math.ceil(Fraction(s0, 3)), math.ceil(Fraction(s1, 8))]
    assert [p.readouts(st)["zram_pages"] for p, st in zip(pols, run.states)] == own
    assert int(_zram_pages(run.framework)) == math.ceil(Fraction(s0, 3) + Fraction(s1, 8)) > max(own)
