"""Reuse distances against a naive reference, and trace_stats on hand-worked traces."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pagesim.analysis.reuse import _reuse_distances, reuse_distances, trace_stats
from pagesim.trace import Trace, read_trace, write_trace


def naive_reuse_distances(pages):
    """O(n^2): distinct other pages strictly between the previous access and this one."""
    out = []
    for i, p in enumerate(pages):
        prev = next((j for j in range(i - 1, -1, -1) if pages[j] == p), None)
        out.append(-1 if prev is None else len(set(pages[prev + 1 : i])))
    return out


def test_hand_worked():
    assert reuse_distances(np.array([0, 1, 0, 2, 1])).tolist() == [-1, -1, 1, -1, 2]
    assert reuse_distances([0, 0, 0]).tolist() == [-1, 0, 0]
    assert reuse_distances(np.array([], dtype=np.int64)).tolist() == []


@given(hnp.arrays(np.int64, st.integers(0, 120), elements=st.integers(0, 12)))
def test_matches_naive(pages):
    expected = naive_reuse_distances(pages.tolist())
    assert reuse_distances(pages).tolist() == expected
    n_pages = int(pages.max()) + 1 if pages.size else 0
    assert getattr(_reuse_distances, "py_func", _reuse_distances)(pages, n_pages).tolist() == expected


@given(hnp.arrays(np.int64, st.integers(1, 150), elements=st.integers(0, 15)), st.integers(1, 16))
def test_lru_hits_iff_distance_below_capacity(pages, capacity):
    """Mattson: an LRU cache of `capacity` pages hits exactly the accesses with d < capacity."""
    stack: list[int] = []
    hits = []
    for p in pages.tolist():
        hit = p in stack
        if hit:
            stack.remove(p)
        elif len(stack) == capacity:
            stack.pop()
        stack.insert(0, p)
        hits.append(hit)
    d = reuse_distances(pages)
    assert hits == ((d >= 0) & (d < capacity)).tolist()


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="non-negative"):
        reuse_distances([0, -1])
    with pytest.raises(ValueError, match="one-dimensional"):
        reuse_distances([[0]])
    with pytest.raises(ValueError, match="integers"):
        reuse_distances([0.5])


def test_trace_stats_hand_worked():
    t = Trace.from_ids([10, 11, 10, 12, 11, 13, 10], op=[0, 1, 0, 2, 0, 0, 1])
    s = trace_stats(t)
    assert s["requests"] == 7 and s["unique_pages"] == 4
    assert s["footprint_bytes"] == 4 * 4096 and s["footprint_basis"] == "pages x 4096"
    assert s["one_hit_wonders"] == 2 and s["one_hit_wonder_fraction"] == 0.5
    # distances of the re-accesses: 10 -> 1, 11 -> 2, 10 -> 3  => p50 2, p90 3, p99 3
    assert s["reaccesses"] == 3
    assert s["reuse_distance"] == {"p50": 2, "p90": 3, "p99": 3}
    assert s["writes"] == 2 and s["frees"] == 1
    json.dumps(s, allow_nan=False)


def test_trace_stats_sizes_and_empty():
    t = Trace.from_ids([1, 2, 1], size=[100, 50, 300])
    s = trace_stats(t)
    assert s["footprint_bytes"] == 350 and s["footprint_basis"] == "object sizes"
    e = trace_stats(Trace.from_ids([]))
    assert e["requests"] == 0 and e["unique_pages"] == 0 and e["footprint_bytes"] == 0
    assert e["one_hit_wonder_fraction"] == 0.0
    assert e["reuse_distance"] == {"p50": None, "p90": None, "p99": None}
    json.dumps(e, allow_nan=False)


def test_footprint_uses_the_block_size_of_the_source(tmp_path):
    """ARC .lis blocks are 512 bytes: the footprint used to be pages x 4096 regardless."""
    path = tmp_path / "t.lis"
    path.write_bytes(b"10 3 0 1\n5 1 0 2\n11 2 0 3\n")
    s = trace_stats(read_trace(path))
    assert s["unique_pages"] == 4 and s["footprint_bytes"] == 4 * 512
    assert s["footprint_basis"] == "pages x 512 (block_bytes)"
    s = trace_stats(read_trace(path, block_bytes=4096 * 4))
    assert s["footprint_bytes"] == 4 * 16384 and s["footprint_basis"] == "pages x 16384 (block_bytes)"
    # kept through the lossless format, whose source names the .pgt
    write_trace(read_trace(path), tmp_path / "t.pgt")
    s = trace_stats(read_trace(tmp_path / "t.pgt"))
    assert s["footprint_bytes"] == 4 * 512 and s["source"]["format"] == "pagesim"
    # object sizes, when present, win; a missing or nonsensical block size means 4096
    sized = Trace.from_ids([1, 2, 1], size=[100, 50, 300], source={"block_bytes": 512})
    assert trace_stats(sized)["footprint_basis"] == "object sizes"
    for bad in (0, -512, "512", True, None, 512.0):
        s = trace_stats(Trace.from_ids([1, 2], source={"block_bytes": bad}))
        assert s["footprint_bytes"] == 2 * 4096 and s["footprint_basis"] == "pages x 4096", bad
