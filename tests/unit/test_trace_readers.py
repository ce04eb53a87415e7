"""Readers on small hand-written files: exact arrays, compression variants, errors."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import numpy as np
import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from pagesim.trace import (
    FORMATS,
    OP_FREE,
    OP_READ,
    OP_WRITE,
    Trace,
    TraceFormatError,
    detect_format,
    read_trace,
    write_trace,
)
from pagesim.trace.readers import oracle, vscsi

COMPRESSORS = {
    "": lambda b: b,
    ".gz": gzip.compress,
    ".xz": lzma.compress,
    ".zst": lambda b: zstandard.ZstdCompressor().compress(b),
    ".bz2": bz2.compress,
}

LIRS_LIKE = b"7\n  3 \n*\n\n7\r\n9\n*\n3"  # markers, blanks, padding, CRLF, no final newline


def ids_of(t: Trace) -> list[int]:
    return t.original_id[t.page].tolist()


@pytest.mark.parametrize("suffix", list(COMPRESSORS))
def test_text_markers_blanks_crlf_and_compression(tmp_path, suffix):
    path = tmp_path / f"t.trace{suffix}"
    path.write_bytes(COMPRESSORS[suffix](LIRS_LIKE))
    assert detect_format(path) == "text"
    t = read_trace(path)
    assert t.page.tolist() == [0, 1, 0, 2, 1]
    assert t.original_id.tolist() == [7, 3, 9]
    assert t.size is None and t.time is None and t.op.tolist() == [OP_READ] * 5
    assert t.source["format"] == "text" and t.source["path"] == str(path)
    expected_comp = {"": None, ".gz": "gzip", ".xz": "xz", ".zst": "zstd", ".bz2": "bzip2"}[suffix]
    assert t.source["compression"] == expected_comp


def test_text_chunk_boundaries_do_not_split_lines(tmp_path):
    ids = np.arange(5000, dtype=np.int64) * 7919 % 1000
    path = tmp_path / "long.txt"
    path.write_text("\n".join(map(str, ids.tolist())) + "\n")
    for chunk in (7, 64, 1000, 1 << 20):
        assert ids_of(read_trace(path, chunk_bytes=chunk)) == ids.tolist()


def test_text_uint64_ids_keep_their_bits(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("18446744073709551615\n0\n18446744073709551615\n")
    t = read_trace(path)
    assert t.page.tolist() == [0, 1, 0]
    assert t.original_id.view(np.uint64).tolist() == [2**64 - 1, 0]


@pytest.mark.parametrize(
    ("content", "line", "found"),
    [
        (b"1\n2\nabc\n4\n", 3, "abc"),
        (b"1\r\n\r\n*\r\n12x\r\n", 4, "12x"),
        (b"1\n2 3\n", 2, "2 3"),
        (b"1\n-4\n", 2, "-4"),
        (b"* 5\n", 1, "* 5"),
    ],
)
def test_text_malformed_line_message(tmp_path, content, line, found):
    path = tmp_path / "trace.txt"
    path.write_bytes(content)
    with pytest.raises(TraceFormatError) as info:
        read_trace(path)
    assert str(info.value) == f"{path}:{line}: expected an integer page id, found {found!r}"
    assert info.value.line_no == line and info.value.found_text == found
    assert isinstance(info.value, ValueError)


def test_text_error_line_number_across_chunks(tmp_path):
    path = tmp_path / "trace.txt"
    path.write_bytes(b"1\n" * 1000 + b"oops\n")
    with pytest.raises(TraceFormatError, match=r"trace\.txt:1001: expected an integer page id, found 'oops'"):
        read_trace(path, chunk_bytes=100)


def test_missing_file_names_path(tmp_path):
    path = tmp_path / "nope.txt"
    for call in (
        lambda: read_trace(path),
        lambda: read_trace(path, format="csv"),
        lambda: detect_format(path),
    ):
        with pytest.raises(FileNotFoundError, match="nope.txt"):
            call()


@pytest.mark.parametrize("fmt", ["text", "lis", "csv", "oracle", "vscsi"])
def test_empty_file_gives_empty_trace(tmp_path, fmt):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    t = read_trace(path, format=fmt)
    assert t.n_requests == 0 and t.n_pages == 0 and t.page.dtype == np.int64


def test_lis_expands_extents(tmp_path):
    path = tmp_path / "t.lis"
    path.write_bytes(b"10 3 0 1\n5 1 0 2\n\n11 2 0 3\n7 0 0 4\r\n")
    t = read_trace(path)
    assert ids_of(t) == [10, 11, 12, 5, 11, 12]
    assert t.page.tolist() == [0, 1, 2, 3, 1, 2]
    assert t.source["format"] == "lis" and t.source["block_bytes"] == 512
    path.write_bytes(b"10 3 0 1\n10 x 0 2\n")
    with pytest.raises(TraceFormatError, match=r"t\.lis:2: expected 'start count"):
        read_trace(path)


def test_lis_zst(tmp_path):
    path = tmp_path / "t.lis.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(b"10 3 0 1\n"))
    assert detect_format(path) == "lis"
    assert ids_of(read_trace(path)) == [10, 11, 12]


CSV = b"version,time,op,size,lbn\n1,100,2a,512,42\n1,101.7,28,1024,43\n\n1,102,2A,512,42\r\n"


def test_csv_header_defaults_like_libcachesim_sample(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(CSV)
    t = read_trace(path)
    assert ids_of(t) == [42, 43, 42]
    assert t.size.tolist() == [512, 1024, 512] and t.time.tolist() == [100, 101, 102]
    assert t.op.tolist() == [OP_WRITE, OP_READ, OP_WRITE]
    assert t.source["options"] == {
        "id_col": 5,
        "size_col": 4,
        "time_col": 2,
        "op_col": 3,
        "delimiter": ",",
        "has_header": True,
        "id_type": "int",
    }


def test_csv_explicit_columns_no_header_and_names(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_bytes(b"5\tget\t0x10\n6\tset\t0x11\n7\tdelete\t0x10\n")
    t = read_trace(path, format="csv", id_col=3, op_col=2, has_header=False)
    assert ids_of(t) == [16, 17, 16] and t.op.tolist() == [OP_READ, OP_WRITE, OP_FREE]
    assert t.size is None and t.time is None and t.source["options"]["delimiter"] == "\t"
    path2 = tmp_path / "named.csv"
    path2.write_bytes(b'key|bytes|when\n"a"|1|5\nb|2|6\na|3|7\n')
    t2 = read_trace(path2, id_col="key", size_col="BYTES", time_col=3)
    assert t2.page.tolist() == [0, 1, 0] and t2.size.tolist() == [1, 2, 3] and t2.time.tolist() == [5, 6, 7]
    assert t2.source["options"]["id_type"] == "str" and t2.source["id_hash"] == "fnv1a64"
    # the FNV-1a 64 of b"a" (published test vector), quotes stripped
    assert t2.original_id.view(np.uint64)[0] == 0xAF63DC4C8601EC8C


def test_csv_errors(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"id,size\n1,10\n2,ten\n")
    with pytest.raises(TraceFormatError) as info:
        read_trace(path)
    what = "an integer size in bytes, 0 to 2**63 - 1, in column 2"
    assert str(info.value) == f"{path}:3: expected {what}, found '2,ten'"
    path.write_bytes(b"id,size\n1,10\n2\n")
    with pytest.raises(TraceFormatError, match=r":3: expected at least 2 fields, found '2'"):
        read_trace(path)
    path.write_bytes(b"id,op\n1,get\n2,frobnicate\n")
    with pytest.raises(TraceFormatError, match=r":3: expected an op .* found 'frobnicate'"):
        read_trace(path)
    assert read_trace(path, op_map={"FROBNICATE": "free"}).op.tolist() == [OP_READ, OP_FREE]
    path.write_bytes(b"a,b\n1,2\n")
    with pytest.raises(ValueError, match="pass id_col"):
        read_trace(path)
    with pytest.raises(ValueError, match="no column named 'c'"):
        read_trace(path, id_col="c")
    with pytest.raises(ValueError, match="does not accept"):
        read_trace(path, format="text", id_col=1)


def oracle_bytes(ids, sizes, times):
    rec = np.zeros(len(ids), dtype=oracle.RECORD)
    rec["obj_id"], rec["obj_size"], rec["time"] = ids, sizes, times
    rec["next_access_vtime"] = -1
    return rec.tobytes()


@pytest.mark.parametrize("suffix", ["", ".zst"])
def test_oracle_keeps_size_and_time(tmp_path, suffix):
    path = tmp_path / f"t.oracleGeneral.bin{suffix}"
    path.write_bytes(COMPRESSORS[suffix](oracle_bytes([7, 3, 7, 2**64 - 1], [10, 20, 30, 40], [1, 2, 3, 4])))
    t = read_trace(path)
    assert t.source["format"] == "oracle" and t.page.tolist() == [0, 1, 0, 2]
    assert t.original_id.view(np.uint64).tolist() == [7, 3, 2**64 - 1]
    assert t.size.tolist() == [10, 20, 30, 40] and t.time.tolist() == [1, 2, 3, 4]


def test_oracle_truncated_names_file_and_offset(tmp_path):
    path = tmp_path / "bad.oracleGeneral.bin"
    path.write_bytes(oracle_bytes([1, 2], [1, 1], [0, 0]) + b"\x00" * 5)
    with pytest.raises(TraceFormatError) as info:
        read_trace(path)
    assert str(path) in str(info.value) and "byte 48" in str(info.value)
    assert "5 trailing bytes" in str(info.value)
    zpath = tmp_path / "bad.oracleGeneral.zst"
    zpath.write_bytes(COMPRESSORS[".zst"](oracle_bytes([1, 2], [1, 1], [0, 0])[:30]))
    with pytest.raises(TraceFormatError, match="byte 24"):
        read_trace(zpath, chunk_bytes=24)


def vscsi_v1_bytes(lbns, cmds, lens, tss):
    rec = np.zeros(len(lbns), dtype=vscsi.RECORD_V1)
    rec["lbn"], rec["cmd"], rec["len"], rec["ts"], rec["ver"] = lbns, cmds, lens, tss, 0x0100
    return rec.tobytes()


def test_vscsi_v1_and_v2(tmp_path):
    path = tmp_path / "t.vscsi"
    path.write_bytes(vscsi_v1_bytes([42, 43, 42], [0x2A, 0x28, 0x12], [512, 4096, 512], [10, 20, 30]))
    t = read_trace(path)
    assert ids_of(t) == [42, 43, 42] and t.op.tolist() == [OP_WRITE, OP_READ, OP_READ]
    assert t.size.tolist() == [512, 4096, 512] and t.time.tolist() == [10, 20, 30]
    assert t.source["vscsi_version"] == 1 and t.source["n_other_cmd"] == 1
    rec = np.zeros(2, dtype=vscsi.RECORD_V2)
    rec["lbn"], rec["cmd"], rec["ver"], rec["len"] = [5, 6], [0x28, 0x8A], 0x0200, 8
    path2 = tmp_path / "t2.vscsi"
    path2.write_bytes(rec.tobytes())
    t2 = read_trace(path2)
    assert ids_of(t2) == [5, 6] and t2.op.tolist() == [OP_READ, OP_WRITE] and t2.source["vscsi_version"] == 2
    path2.write_bytes(b"\x00" * 80)
    with pytest.raises(TraceFormatError, match="version byte 1 or 2"):
        read_trace(path2, format="vscsi")


def test_detect_format_by_content_without_extension(tmp_path):
    cases = {
        "text": b"1\n2\n3\n",
        "lis": b"1 2 0 0\n5 1 0 1\n",
        "csv": b"a,b\n1,2\n",
        "vscsi": vscsi_v1_bytes([1, 2], [0x28, 0x28], [1, 1], [1, 2]),
        "oracle": oracle_bytes([1, 2, 3], [1, 1, 1], [0, 0, 0]),
    }
    for fmt, data in cases.items():
        path = tmp_path / f"noext_{fmt}"
        path.write_bytes(data)
        assert detect_format(path) == fmt, fmt
    # a known extension decides: lis content named .txt is read as text, and fails on line 1
    path = tmp_path / "misnamed.txt"
    path.write_bytes(cases["lis"])
    assert detect_format(path) == "text"
    with pytest.raises(TraceFormatError, match=r"misnamed\.txt:1: expected an integer page id"):
        read_trace(path)
    assert read_trace(path, format="lis").n_requests == 3
    path = tmp_path / "mystery"
    path.write_bytes(b"\x01\x02\x03")
    with pytest.raises(ValueError, match="cannot detect"):
        detect_format(path)


def test_formats_registry_describes_every_format():
    assert set(FORMATS) == {"text", "csv", "oracle", "lis", "vscsi", "pagesim"}
    for name, fmt in FORMATS.items():
        assert fmt.name == name and fmt.description and "\n" not in fmt.description
        assert callable(fmt.reader.read) and callable(fmt.reader.sniff)


@pytest.mark.parametrize(
    "name", ["out.txt", "out.txt.gz", "out.txt.zst", "out.oracleGeneral.bin", "out.oracleGeneral.zst"]
)
def test_lossy_writers_round_trip_ids(tmp_path, name):
    t = Trace.from_ids(np.array([5, 2**63 + 1, 5, 9], dtype=np.uint64), size=[1, 2, 3, 4], time=[0, 0, 1, 1])
    write_trace(t, tmp_path / name)
    back = read_trace(tmp_path / name)
    assert np.array_equal(back.page, t.page) and np.array_equal(back.original_id, t.original_id)
    if "oracle" in name:
        assert back.size.tolist() == [1, 2, 3, 4] and back.time.tolist() == [0, 0, 1, 1]
        rec = np.frombuffer(
            zstandard.ZstdDecompressor().stream_reader(open(tmp_path / name, "rb")).read()
            if name.endswith(".zst")
            else (tmp_path / name).read_bytes(),
            dtype=oracle.RECORD,
        )
        assert rec["next_access_vtime"].tolist() == [3, -1, -1, -1]


def test_write_unknown_format(tmp_path):
    with pytest.raises(ValueError, match="cannot write format 'csv'"):
        write_trace(Trace.from_ids([1]), tmp_path / "x", format="csv")


def test_reader_paths_may_be_str(tmp_path):
    path = tmp_path / "s.txt"
    path.write_bytes(b"1\n")
    assert read_trace(str(path)).source["path"] == str(path)
    assert isinstance(Path(read_trace(str(path)).source["path"]), Path)


def pad_to_records(data: bytes, record: int = 24) -> bytes:
    """`data` padded with newlines to a multiple of `record` bytes (as the reviewer's repro)."""
    return data + b"\n" * (-len(data) % record)


def test_known_extension_decides_even_when_content_fits_oracle(tmp_path):
    """A .csv with one bad line, 24-byte aligned, used to be read as oracleGeneral (exit 0)."""
    rows = [b"1,%d,2a,512,%d" % (100 + i, 4000 + i) for i in range(80)]
    rows[48] = b"garbage!!"  # line 50 counting the header
    data = pad_to_records(b"version,time,op,size,lbn\n" + b"\n".join(rows) + b"\n")
    assert len(data) % 24 == 0
    path = tmp_path / "cp_bad24.csv"
    path.write_bytes(data)
    assert detect_format(path) == "csv"
    with pytest.raises(TraceFormatError) as info:
        read_trace(path)
    assert str(info.value).startswith(f"{path}:50: ")
    assert info.value.line_no == 50 and info.value.found_text == "garbage!!"
    # compressed, the same: the extension under .gz decides
    gz = tmp_path / "cp_bad24.csv.gz"
    gz.write_bytes(gzip.compress(data))
    assert detect_format(gz) == "csv"
    with pytest.raises(TraceFormatError, match=r"cp_bad24\.csv\.gz:50: "):
        read_trace(gz)


def test_text_with_a_header_line_is_not_oracle(tmp_path):
    data = pad_to_records(b"obj_id\n" + b"".join(b"%d\n" % (i * 7 % 13) for i in range(200)))
    path = tmp_path / "with_header.txt"
    path.write_bytes(data)
    assert detect_format(path) == "text"
    with pytest.raises(
        TraceFormatError, match=r"with_header\.txt:1: expected an integer page id, found 'obj_id'"
    ):
        read_trace(path)


def test_text_without_extension_of_24_bytes_is_text(tmp_path):
    """Content sniffing tries oracle before text: a 24-byte text file used to be taken for oracle."""
    path = tmp_path / "ids"
    path.write_bytes(b"1\n" * 12)
    assert detect_format(path) == "text"
    assert read_trace(path).n_requests == 12


def test_detect_format_does_not_read_content_with_known_extension(tmp_path):
    path = tmp_path / "x.lis.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd")  # a zstd magic and nothing else: unreadable
    assert detect_format(path) == "lis"
    with pytest.raises(FileNotFoundError, match="missing.csv"):
        detect_format(tmp_path / "missing.csv")


@given(st.binary(min_size=24, max_size=600).filter(lambda b: b"\x00" not in b))
def test_oracle_sniffer_never_accepts_nul_free_bytes(data):
    """Text (no NUL byte) is never taken for oracleGeneral, whatever its length."""
    head = data[: len(data) // 24 * 24]
    assert not oracle.sniff(head, len(head))
    assert not oracle.sniff(head, None)
    assert not oracle.sniff(data, None)


def test_oracle_sniffer_rules():
    rec = np.zeros(4, dtype=oracle.RECORD)
    rec["obj_id"], rec["obj_size"] = [1, 2, 1, 2], 4096
    rec["next_access_vtime"] = [3, 4, -1, -1]
    good = rec.tobytes()
    assert oracle.sniff(good, len(good)) and oracle.sniff(good) and oracle.sniff(good[:50], 96)
    assert not oracle.sniff(good, len(good) + 1)  # content not a whole number of records
    assert not oracle.sniff(good, 48)  # next access beyond the last request (2 records)
    assert not oracle.sniff(b"", 0) and not oracle.sniff(good[:23])
    for field, value in (("obj_size", 0), ("next_access_vtime", 1), ("next_access_vtime", 0)):
        bad = rec.copy()
        bad[field][0] = value  # size 0; next access at or before itself
        assert not oracle.sniff(bad.tobytes(), len(good)), (field, value)
    far = rec.copy()
    far["next_access_vtime"][0] = 2**50
    assert not oracle.sniff(far.tobytes())  # beyond 2**48 without a known length
    assert oracle.sniff(far.tobytes(), 2**50 * 24)  # fine in a file that long
