"""Hostile trace files: every field range-checked, every failure one clean error naming the file.

Each test reproduces a case of issue 25 ("Readers that wrap or read garbage") on a hand-written
file; the expected values are written out by hand in each test.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
from pathlib import Path

import numpy as np
import pytest
import zstandard
from typer.testing import CliRunner

from pagesim.cli import app
from pagesim.trace import OP_READ, OP_WRITE, Trace, TraceFormatError, read_trace, write_trace
from pagesim.trace.readers import lis


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------- .lis: no wrap, no garbage


@pytest.mark.parametrize(
    "line",
    [
        "0 9223372036854775808",  # count 2**63: was 5 garbage ids (uninitialised memory)
        "0 9223372036854775813",
        "0 1000000000000",  # was a MemoryError traceback
        "0 18446744073709551615",  # was "negative dimensions not allowed", no file or line
    ],
)
def test_lis_run_past_max_is_refused_with_file_and_line(tmp_path: Path, line: str) -> None:
    path = _write(tmp_path / "t.lis", f"5 2 0 0\n{line}\n".encode())
    with pytest.raises(TraceFormatError, match=r"t\.lis:2: expected a block count of at most 16,777,216"):
        read_trace(path)


def test_lis_extent_that_would_wrap_is_refused(tmp_path: Path) -> None:
    # 18446744073709551614 + 3 > 2**64 - 1: was read as ids -2, -1, 0, 1
    path = _write(tmp_path / "t.lis", b"18446744073709551614 4\n")
    with pytest.raises(TraceFormatError, match=r"t\.lis:1: expected an extent that ends at or before"):
        read_trace(path)
    # the last block that fits: 2**64 - 2 and 2**64 - 1, two accesses
    ok = read_trace(_write(tmp_path / "u.lis", b"18446744073709551614 2\n"))
    assert ok.original_id[ok.page].view(np.uint64).tolist() == [2**64 - 2, 2**64 - 1]


def test_lis_total_accesses_past_max_is_refused_at_its_line(tmp_path: Path) -> None:
    # 10 + 10 accesses > 15: the second line is the one that goes over
    path = _write(tmp_path / "t.lis", b"0 10\n\n100 10\n")
    with pytest.raises(TraceFormatError, match=r"t\.lis:3: expected at most 15 accesses"):
        lis.read(path, max_accesses=15)
    assert lis.read(path, max_accesses=20).n_requests == 20


def test_lis_bad_option_is_one_clean_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.lis", b"0 1\n")
    with pytest.raises(ValueError, match="max_run must be a positive integer"):
        read_trace(path, max_run=0)


# ---------------------------------------------------------------- csv and vscsi: no negative sizes/times


@pytest.mark.parametrize(
    ("row", "what"),
    [
        ("1,9223372036854775808,5", "an integer size in bytes, 0 to 2\\*\\*63 - 1, in column 2"),
        ("1,10,18446744073709551615", "a non-negative number \\(time\\) below 2\\*\\*63 in column 3"),
    ],
)
def test_csv_size_or_time_above_int64_is_refused(tmp_path: Path, row: str, what: str) -> None:
    path = _write(tmp_path / "t.csv", f"id,size,time\n1,10,5\n{row}\n".encode())
    with pytest.raises(TraceFormatError, match=rf"t\.csv:3: expected {what}"):
        read_trace(path)
    # the largest value that fits is read as itself
    top = read_trace(_write(tmp_path / "u.csv", b"id,size,time\n1,9223372036854775807,9223372036854775807\n"))
    assert top.size.tolist() == [2**63 - 1] and top.time.tolist() == [2**63 - 1]


def test_vscsi_time_above_int64_is_refused_with_byte_offset(tmp_path: Path) -> None:
    from pagesim.trace.readers.vscsi import RECORD_V2

    rec = np.zeros(2, dtype=RECORD_V2)
    rec["ver"] = 2 << 8
    rec["cmd"] = 0x28
    rec["lbn"] = [7, 8]
    rec["len"] = 4096
    rec["ts"] = [1, 2**63]  # the second was read as time -9223372036854775808
    path = _write(tmp_path / "t.vscsi", rec.tobytes())
    # record 1 starts at byte 40; ts is at offset 24 in a v2 record: byte 64
    with pytest.raises(TraceFormatError, match=r"t\.vscsi: byte 64: expected a time \(ts\) below 2\*\*63"):
        read_trace(path)


# ---------------------------------------------------------------- byte-order mark, commented header


def test_csv_with_byte_order_mark_keeps_its_header_and_first_row(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.csv", b"\xef\xbb\xbfid,size\n1,10\n2,20\n")
    t = read_trace(path)
    assert t.original_id[t.page].tolist() == [1, 2] and t.size.tolist() == [10, 20]


@pytest.mark.parametrize(
    ("name", "data", "ids"),
    [("t.txt", b"\xef\xbb\xbf7\n3\n", [7, 3]), ("t.lis", b"\xef\xbb\xbf7 2 0 0\n", [7, 8])],
)
def test_text_and_lis_skip_a_byte_order_mark(tmp_path: Path, name: str, data: bytes, ids: list[int]) -> None:
    t = read_trace(_write(tmp_path / name, gzip.compress(data)))  # after decompression too
    assert t.original_id[t.page].tolist() == ids


def test_csv_with_commented_header_line_is_read(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.csv", b"# timestamp, op, id, size\n1, r, 5, 10\n2, w, 6, 20\n3, r, 5, 10\n")
    t = read_trace(path)
    assert t.original_id[t.page].tolist() == [5, 6, 5]
    assert t.size.tolist() == [10, 20, 10] and t.time.tolist() == [1, 2, 3]
    assert t.op.tolist() == [OP_READ, OP_WRITE, OP_READ]
    assert t.source["header"] == ["timestamp", "op", "id", "size"]


# ---------------------------------------------------------------- trailing junk after any compression

_COMPRESS = {
    "gz": gzip.compress,
    "xz": lzma.compress,
    "bz2": bz2.compress,
    "zst": lambda b: zstandard.ZstdCompressor().compress(b),
}


@pytest.mark.parametrize("ext", sorted(_COMPRESS))
def test_trailing_junk_after_a_compressed_stream_is_refused(tmp_path: Path, ext: str) -> None:
    path = _write(tmp_path / f"t.txt.{ext}", _COMPRESS[ext](b"1\n2\n") + b"junk")
    with pytest.raises(TraceFormatError, match=rf"t\.txt\.{ext}: truncated or corrupt"):
        read_trace(path)


@pytest.mark.parametrize("ext", sorted(_COMPRESS))
def test_concatenated_streams_are_all_read(tmp_path: Path, ext: str) -> None:
    path = _write(tmp_path / f"t.txt.{ext}", _COMPRESS[ext](b"1\n2\n") + _COMPRESS[ext](b"3\n"))
    t = read_trace(path)
    assert t.original_id[t.page].tolist() == [1, 2, 3]


def test_xz_stream_padding_is_allowed_in_fours_only(tmp_path: Path) -> None:
    good = _write(tmp_path / "a.txt.xz", lzma.compress(b"4\n") + b"\0" * 8)
    assert read_trace(good).original_id.tolist() == [4]
    bad = _write(tmp_path / "b.txt.xz", lzma.compress(b"4\n") + b"\0" * 3)
    with pytest.raises(TraceFormatError, match=r"b\.txt\.xz: truncated or corrupt xz data"):
        read_trace(bad)


# ---------------------------------------------------------------- pagesim's writers: checksummed frames


def _frames_have_checksums(data: bytes) -> bool:
    return zstandard.get_frame_parameters(data).has_checksum


def test_pagesim_writers_write_checksummed_zstd_frames(tmp_path: Path) -> None:
    t = Trace.from_ids([5, 3, 5, 9], size=[1, 2, 3, 4], time=[0, 1, 2, 3])
    write_trace(t, tmp_path / "t.pgt")
    with zipfile.ZipFile(tmp_path / "t.pgt") as zf:
        members = [n for n in zf.namelist() if n.endswith(".zst")]
        assert members and all(_frames_have_checksums(zf.read(n)) for n in members)
    write_trace(t, tmp_path / "t.oracleGeneral.zst")
    assert _frames_have_checksums((tmp_path / "t.oracleGeneral.zst").read_bytes())
    write_trace(t, tmp_path / "t.txt.zst")
    assert _frames_have_checksums((tmp_path / "t.txt.zst").read_bytes())


def test_every_flipped_byte_of_a_pgt_is_an_error_naming_it_or_the_same_trace(tmp_path: Path) -> None:
    """Every other byte of a small .pgt XOR 0x55 in turn (the fuzz test does random ones): was
    OSError without the file name, BadZipFile, NotImplementedError."""
    t = Trace.from_ids([5, 3, 5, 9, 3], size=[1, 2, 3, 4, 2])
    write_trace(t, tmp_path / "orig.pgt")
    data = bytearray((tmp_path / "orig.pgt").read_bytes())
    path = tmp_path / "bad.pgt"
    accepted = 0
    for i in range(0, len(data), 2):
        flipped = bytearray(data)
        flipped[i] ^= 0x55
        path.write_bytes(bytes(flipped))
        try:
            u = read_trace(path, format="pagesim")
        except TraceFormatError as exc:
            assert str(exc).startswith(str(path)), str(exc)
            continue
        accepted += 1  # a byte that carries no column data (meta.json's source, zip's timestamps)
        for name in ("page", "original_id", "size", "kind", "op", "cgroup", "tag"):
            assert np.array_equal(getattr(u, name), getattr(t, name)), (i, name)
    assert accepted < len(data) // 2


# ---------------------------------------------------------------- --reader values


def test_reader_op_map_is_validated_with_its_form(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.csv", b"id,op\n1,frob\n2,r\n")
    bad = CliRunner().invoke(app, ["trace", "info", str(path), "--reader", "op_map=x"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert "op_map as name:op pairs, e.g. del:free,put:write" in bad.output
    ok = CliRunner().invoke(app, ["trace", "info", str(path), "--reader", "op_map=frob:write", "--json"])
    assert ok.exit_code == 0, ok.output
    assert read_trace(path, op_map="frob:write").op.tolist() == [OP_WRITE, OP_READ]


def test_unknown_reader_option_lists_the_known_ones(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.lis", b"0 1\n")
    bad = CliRunner().invoke(app, ["trace", "info", str(path), "--reader", "id_col=2"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert "block_bytes, chunk_bytes, max_accesses, max_run" in bad.output
    with pytest.raises(ValueError, match="its options: mmap"):
        read_trace(_write(tmp_path / "t.pgt", b"PK\x03\x04"), format="pagesim", x=1)


@pytest.mark.parametrize("row", ['1,"5"x,7', '1,"5,7'])
def test_csv_text_after_a_closing_quote_or_an_unclosed_quote_is_refused(tmp_path: Path, row: str) -> None:
    # '"5"x' was read as 5 (the x dropped), an unclosed quote as the rest of the line
    path = _write(tmp_path / "t.csv", f"id,size,time\n{row}\n".encode())
    with pytest.raises(
        TraceFormatError, match=r"t\.csv:2: expected quoted fields that end with their closing quote"
    ):
        read_trace(path)
    ok = read_trace(_write(tmp_path / "u.csv", b'id,size,time\n1, "5" ,7\n'))
    assert ok.size.tolist() == [5]


@pytest.mark.parametrize("value", ["0", "-5", "abc"])
def test_reader_chunk_bytes_must_be_positive(tmp_path: Path, value: str) -> None:
    # chunk_bytes=0 read a 2-line text trace as empty, silently
    path = _write(tmp_path / "t.txt", b"1\n2\n")
    bad = CliRunner().invoke(app, ["trace", "info", str(path), "--reader", f"chunk_bytes={value}"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert "chunk_bytes must be a positive integer" in bad.output


def test_content_without_newlines_is_refused_without_accumulating_it(tmp_path: Path) -> None:
    # 64 MiB of NUL bytes in 2 KiB of zstd: was gathered whole as one line (1 GiB took 3.3 GB, 50 s)
    cobj = zstandard.ZstdCompressor().compressobj()
    data = b"".join(cobj.compress(b"\0" * (1 << 22)) for _ in range(16)) + cobj.flush()
    path = _write(tmp_path / "t.txt.zst", data)
    with pytest.raises(TraceFormatError, match=r"t\.txt\.zst:1: expected lines of at most 1,048,576 bytes"):
        read_trace(path)
    # a line longer than a chunk but within the limit is read whole: chunks of 4 bytes here
    ok = read_trace(_write(tmp_path / "u.txt", b"12345678\n9\n"), chunk_bytes=4)
    assert ok.original_id[ok.page].tolist() == [12345678, 9]


def test_pgt_member_longer_than_its_npy_header_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    # a 3-value original_id column followed by 64 MiB of NULs in ~2 KiB of zstd: was read whole
    t = Trace.from_ids([5, 3, 5, 9, 3])
    write_trace(t, tmp_path / "orig.pgt")
    npy = io.BytesIO()
    np.lib.format.write_array(npy, t.original_id)
    cobj = zstandard.ZstdCompressor().compressobj()
    bomb = cobj.compress(npy.getvalue()) + b"".join(cobj.compress(b"\0" * (1 << 22)) for _ in range(16))
    bomb += cobj.flush()
    with zipfile.ZipFile(tmp_path / "orig.pgt") as src, zipfile.ZipFile(tmp_path / "bad.pgt", "w") as dst:
        for name in src.namelist():
            dst.writestr(name, bomb if name == "original_id.npy.zst" else src.read(name))
    with pytest.raises(
        TraceFormatError, match=r"bad\.pgt: expected 24 data bytes, found member 'original_id"
    ):
        read_trace(tmp_path / "bad.pgt")
