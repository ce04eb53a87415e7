"""The native .pgt format writes and reads back every trace identically."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pagesim.trace import Trace, TraceFormatError, detect_format, read_trace, write_trace
from pagesim.trace.errors import CompressedDataError


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
    for name in ("page", "kind", "op", "cgroup", "tag", "size", "time", "original_id"):
        a, b = getattr(trace, name), getattr(back, name)
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype and np.array_equal(a, b)
    assert back.source["format"] == "pagesim" and back.source["path"] == str(path)
    assert back.source["converted_from"] == trace.source
    assert back.source["compression"] == ("zstd" if compress else None)
    assert same_columns(back, trace)


def same_columns(a: Trace, b: Trace) -> bool:
    """Identical columns (values, dtypes, None-ness), whatever the sources."""
    return a.equals(Trace(page=b.page, original_id=b.original_id, source=a.source, **cols_of(b)))


def cols_of(t: Trace) -> dict:
    return {k: v for k, v in t.columns().items() if k != "page"}


def test_pgt_source_names_the_pgt_and_keeps_the_original(tmp_path):
    """`trace info x.pgt` used to show the original format: the source now says pagesim."""
    original = {
        "path": "OLTP.lis.zst",
        "format": "lis",
        "options": {"block_bytes": 512},
        "compression": "zstd",
        "block_bytes": 512,
    }
    t = Trace.from_ids([10, 11, 10], source=original)
    first = tmp_path / "a.pgt"
    write_trace(t, first)
    a = read_trace(first)
    assert a.source == {
        "path": str(first),
        "format": "pagesim",
        "options": {},
        "compression": "zstd",
        "block_bytes": 512,  # describes the values: kept at the top level
        "converted_from": original,
    }
    assert same_columns(a, t)
    # a .pgt read and written again still names the first source, not a chain of .pgt files
    second = tmp_path / "b.pgt"
    write_trace(a, second, compress=False)
    b = read_trace(second)
    assert b.source["path"] == str(second) and b.source["compression"] is None
    assert b.source["converted_from"] == original and b.equals(read_trace(second))
    # a trace made in memory has an empty original source
    write_trace(Trace.from_ids([1, 2]), first)
    assert read_trace(first).source["converted_from"] == {}


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
    assert detect_format(other) == "pagesim" and same_columns(read_trace(other), t)


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


def rewrite_member(path, member: str, data: bytes) -> None:
    """Replace one member of a .pgt archive, with a valid CRC (corruption zip cannot see)."""
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members[member] = data
    with zipfile.ZipFile(path, "w") as zf:
        for name, content in members.items():
            zf.writestr(name, content)


@pytest.fixture
def pgt(tmp_path):
    t = Trace.from_ids(np.arange(20_000) * 7 % 3001, time=np.arange(20_000))
    path = tmp_path / "t.pgt"
    write_trace(t, path)
    return path


def test_truncated_pgt_is_a_format_error(pgt):
    data = pgt.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 40):
        pgt.write_bytes(data[:cut])
        with pytest.raises(CompressedDataError, match=rf"^{pgt}: truncated or corrupt zip data"):
            read_trace(pgt)


def test_corrupt_pgt_member_is_a_format_error(pgt):
    """A corrupt zstd member used to give a ZstdError traceback."""
    with zipfile.ZipFile(pgt) as zf:
        page = zf.read("page.npy.zst")
    # zip sees the bytes changed (CRC-32)
    good = pgt.read_bytes()
    data = bytearray(good)
    start = data.index(page)
    data[start + len(page) // 2] ^= 0xFF
    pgt.write_bytes(bytes(data))
    with pytest.raises(
        CompressedDataError, match=r"truncated or corrupt zip data: Bad CRC-32 .*page\.npy\.zst"
    ):
        read_trace(pgt)
    pgt.write_bytes(good)
    # zip cannot see it: zstd does
    rewrite_member(pgt, "page.npy.zst", b"\x28\xb5\x2f\xfd" + b"\xff" * 40)
    with pytest.raises(
        CompressedDataError, match=r"truncated or corrupt zstd data: .* of member 'page\.npy\.zst'"
    ):
        read_trace(pgt)
    rewrite_member(pgt, "page.npy.zst", page[: len(page) // 2])
    with pytest.raises(
        CompressedDataError, match=r"truncated or corrupt zstd data: file ends inside a zstd frame"
    ):
        read_trace(pgt)
    # the zstd data is fine but the array in it is not
    rewrite_member(pgt, "page.npy.zst", zstandard.ZstdCompressor().compress(b"\x93NUMPY nonsense"))
    with pytest.raises(TraceFormatError, match=r"expected a \.npy array"):
        read_trace(pgt)


def test_pgt_with_bad_meta_or_inconsistent_columns(pgt):
    with zipfile.ZipFile(pgt) as zf:
        meta = json.loads(zf.read("meta.json"))
        time = zf.read("time.npy.zst")
    rewrite_member(pgt, "meta.json", b"{not json")
    with pytest.raises(TraceFormatError, match="a JSON object in meta.json"):
        read_trace(pgt)
    rewrite_member(pgt, "meta.json", json.dumps({**meta, "n_requests": 5}).encode())
    # refused at the first column whose .npy header disagrees, before its data are read
    with pytest.raises(
        TraceFormatError, match=r"expected 5 values \(as meta.json says\), found member 'page"
    ):
        read_trace(pgt)
    short = zstandard.ZstdCompressor().compress(_npy(np.arange(3, dtype=np.int64)))
    rewrite_member(pgt, "meta.json", json.dumps(meta).encode())
    rewrite_member(pgt, "time.npy.zst", short)
    with pytest.raises(
        TraceFormatError, match=r"expected 20000 values .*found member 'time.npy.zst': 3 values"
    ):
        read_trace(pgt)
    rewrite_member(pgt, "time.npy.zst", time)
    assert read_trace(pgt).n_requests == 20_000


def _npy(arr: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr)
    return buf.getvalue()
