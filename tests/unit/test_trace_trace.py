"""Trace, remap and next_access on hand-worked and random inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pagesim.trace import NEVER, Trace, remap
from pagesim.trace.remap import _remap_hash, _remap_range
from pagesim.trace.trace import _next_access


def py(kernel):
    """The plain-Python body of a compiled kernel (the kernel itself when the JIT is disabled)."""
    return getattr(kernel, "py_func", kernel)


def unique_reference(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique-based remap, inverse relabelled in first-occurrence order."""
    uniq, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # sorted-unique index -> rank of first occurrence
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inverse.ravel()], uniq[order]


def test_remap_hand_worked():
    for method in ("auto", "hash", "range"):
        dense, orig = remap(np.array([7, 3, 7, 9, 3]), method=method)
        assert dense.tolist() == [0, 1, 0, 2, 1]
        assert orig.tolist() == [7, 3, 9]
        assert dense.dtype == np.int64 and orig.dtype == np.int64


def test_remap_empty_and_extremes():
    d, o = remap(np.array([], dtype=np.int64))
    assert d.size == 0 and o.size == 0
    big = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, np.iinfo(np.int64).min])
    d, o = remap(big)  # the span overflows int64: must fall back to hashing
    assert d.tolist() == [0, 1, 0] and o.tolist() == big[:2].tolist()
    d, o = remap(np.array([2**64 - 1, 5], dtype=np.uint64))
    assert d.tolist() == [0, 1] and o.view(np.uint64).tolist() == [2**64 - 1, 5]


def test_remap_rejects_bad_input():
    with pytest.raises(ValueError, match="one-dimensional"):
        remap(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        remap(np.array([1.5]))
    with pytest.raises(ValueError, match="unknown method"):
        remap(np.array([1]), method="sort")


def test_remap_hash_grows_past_initial_table():
    ids = np.arange(100_000, dtype=np.int64)[::-1] * 1_000_003
    dense, orig = remap(ids, method="hash")
    assert np.array_equal(dense, np.arange(ids.size)) and np.array_equal(orig, ids)


@given(
    hnp.arrays(np.int64, st.integers(0, 300), elements=st.integers(-(2**63), 2**63 - 1) | st.integers(-5, 40))
)
def test_remap_matches_unique_reference(ids):
    ref_dense, ref_orig = unique_reference(ids)
    for dense, orig in (remap(ids, method="hash"), remap(ids)):
        assert np.array_equal(dense, ref_dense)
        assert np.array_equal(orig, ref_orig)


@given(hnp.arrays(np.int64, st.integers(0, 100), elements=st.integers(0, 20)))
def test_remap_kernels_run_as_plain_python(ids):
    ref = unique_reference(ids)
    with np.errstate(over="ignore"):  # uint64 hashing wraps by design; numpy scalars warn
        results = (py(_remap_hash)(ids), py(_remap_range)(ids, 0, 21))
    for got in results:
        assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1])


def test_next_access_hand_worked():
    t = Trace.from_ids([0, 1, 0, 2, 1])
    assert t.next_access().tolist() == [2, 4, NEVER, NEVER, NEVER]
    assert py(_next_access)(t.page, t.n_pages).tolist() == [2, 4, NEVER, NEVER, NEVER]
    assert Trace.from_ids([]).next_access().tolist() == []


@given(hnp.arrays(np.int64, st.integers(0, 80), elements=st.integers(0, 9)))
def test_next_access_matches_naive(ids):
    t = Trace.from_ids(ids)
    p = t.page.tolist()
    naive = [next((j for j in range(i + 1, len(p)) if p[j] == p[i]), NEVER) for i in range(len(p))]
    assert t.next_access().tolist() == naive


def test_from_ids_columns_and_defaults():
    t = Trace.from_ids([7, 3, 7], op=[1, 0, 2], size=[10, 20, 30], source={"path": "x"})
    assert t.n_requests == 3 and t.n_pages == 2 and len(t) == 3
    assert t.page.tolist() == [0, 1, 0] and t.original_id.tolist() == [7, 3]
    assert t.kind.dtype == np.uint8 and t.kind.tolist() == [0, 0, 0]
    assert t.op.dtype == np.uint8 and t.cgroup.dtype == np.uint16 and t.tag.dtype == np.int32
    assert t.size.dtype == np.int64 and t.time is None
    assert t.source == {"path": "x"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"page": [0, 2], "original_id": [1, 2]}, "not dense in first-occurrence order at row 1"),
        ({"page": [1, 0], "original_id": [1, 2]}, "not dense in first-occurrence order at row 0"),
        ({"page": [0, 1], "original_id": [5]}, "'original_id' has 1 entries"),
        ({"page": [0], "original_id": [5, 6]}, "'original_id' has 2 entries"),
        ({"page": [0, 0], "original_id": [5], "kind": [0]}, "column 'kind' has 1 rows, expected 2"),
        ({"page": [0, 0], "original_id": [5], "op": [0, 3]}, "column 'op' holds 3 at row 1"),
        ({"page": [0], "original_id": [5], "cgroup": [70000]}, "outside the range of uint16"),
        ({"page": [0.0], "original_id": [5]}, "must hold integers"),
        ({"page": [[0]], "original_id": [5]}, "one-dimensional"),
        ({"page": [0], "original_id": [5], "source": {"x": object()}}, "JSON-serialisable"),
    ],
)
def test_constructor_validates(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        Trace(**kwargs)


def test_slice_and_head_remap_and_record_provenance():
    t = Trace.from_ids([7, 3, 7, 9, 3], time=[1, 2, 3, 4, 5], source={"path": "p"})
    s = t.slice(2, 5)
    assert s.page.tolist() == [0, 1, 2] and s.original_id.tolist() == [7, 9, 3]
    assert s.time.tolist() == [3, 4, 5] and s.size is None
    assert s.source == {"path": "p", "slice": {"start": 2, "stop": 5}}
    ss = s.slice(1)
    assert ss.original_id.tolist() == [9, 3] and ss.source["slice"] == {"start": 3, "stop": 5}
    h = t.head(2)
    assert h.page.tolist() == [0, 1] and h.original_id.tolist() == [7, 3]
    assert t.head(100).n_requests == 5 and t.head(0).n_requests == 0
    with pytest.raises(ValueError):
        t.head(-1)


def test_equals():
    a = Trace.from_ids([1, 2, 1], size=[1, 1, 1])
    assert a.equals(Trace.from_ids([1, 2, 1], size=[1, 1, 1]))
    assert not a.equals(Trace.from_ids([1, 2, 1]))
    assert not a.equals(Trace.from_ids([1, 2, 2], size=[1, 1, 1]))
    assert not a.equals("a trace")
