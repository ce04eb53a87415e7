"""The native .pgt format writes and reads back every trace identically."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pagesim.trace import Trace, TraceFormatError, detect_format, read_trace, write_trace


@st.composite
def traces(draw):
    n = draw(st.integers(0, 60))
    ids = draw(hnp.arrays(np.int64, n, elements=st.integers(-(2**63), 2**63 - 1) | st.integers(0, 10)))
    cols = {
        "kind": draw(hnp.arrays(np.uint8, n, elements=st.integers(0, 1))),
        "op": draw(hnp.arrays(np.uint8, n, elements=st.integers(0, 2))),
        "cgroup": draw(hnp.arrays(np.uint16, n)),
        "tag": draw(hnp.arrays(np.int32, n)),
    }
    if draw(st.booleans()):
        cols["size"] = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2**40)))
    if draw(st.booleans()):
        cols["time"] = draw(hnp.arrays(np.int64, n))
    source = draw(
        st.dictionaries(
            st.text(max_size=5),
            st.none()
            | st.integers(-(2**53), 2**53)
            | st.text(max_size=8)
            | st.lists(st.integers(0, 9), max_size=3),
            max_size=4,
        )
    )
    return Trace.from_ids(ids, source=source, **cols)


@given(traces(), st.booleans())
def test_native_round_trip(tmp_path_factory, trace, compress):
    path = tmp_path_factory.mktemp("pgt") / "t.pgt"
    write_trace(trace, path, compress=compress)
    back = read_trace(path)
    assert back.equals(trace)
    for name in ("page", "kind", "op", "cgroup", "tag", "size", "time", "original_id"):
        a, b = getattr(trace, name), getattr(back, name)
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype and np.array_equal(a, b)
    assert back.source == trace.source


def test_native_layout_and_detection(tmp_path):
    t = Trace.from_ids([4, 4, 5], time=[1, 2, 3], source={"path": "x.txt", "format": "text"})
    path = tmp_path / "t.pgt"
    write_trace(t, path)
    assert detect_format(path) == "pagesim"
    with zipfile.ZipFile(path) as zf:
        meta = json.loads(zf.read("meta.json"))
        assert zf.namelist()[0] == "meta.json"
        assert {"page.npy.zst", "time.npy.zst", "original_id.npy.zst"} <= set(zf.namelist())
        assert "size.npy.zst" not in zf.namelist()
    assert meta["format"] == "pagesim-trace" and meta["version"] == 1
    assert meta["columns"]["size"] is None and meta["columns"]["page"] == "<i8"
    assert meta["source"] == {"path": "x.txt", "format": "text"}
    assert meta["n_requests"] == 3 and meta["n_pages"] == 2
    # renamed without extension: still found by content
    other = tmp_path / "renamed"
    path.rename(other)
    assert detect_format(other) == "pagesim" and read_trace(other).equals(t)


def test_native_refuses_newer_version_and_non_zip(tmp_path):
    path = tmp_path / "t.pgt"
    write_trace(Trace.from_ids([1]), path, compress=False)
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    meta = json.loads(members["meta.json"])
    meta["version"] = 99
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, json.dumps(meta) if name == "meta.json" else data)
    with pytest.raises(TraceFormatError, match="version <= 1"):
        read_trace(path)
    path.write_bytes(b"not a zip")
    with pytest.raises(TraceFormatError, match="zip"):
        read_trace(path, format="pagesim")
