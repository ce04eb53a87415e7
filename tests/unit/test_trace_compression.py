"""Truncated or corrupt compressed traces raise a one-line TraceFormatError, never read short."""

from __future__ import annotations

import bz2
import gzip
import lzma
import pickle

import numpy as np
import pytest
import zstandard
from typer.testing import CliRunner

from pagesim.cli import app
from pagesim.trace import TraceFormatError, detect_format, read_trace
from pagesim.trace._stream import ZstdStream, open_bytes
from pagesim.trace.errors import CompressedDataError

IDS = (np.arange(60_000, dtype=np.int64) * 7919) % 5003
CONTENT = ("\n".join(map(str, IDS.tolist())) + "\n").encode()


def zstd(data: bytes, **kw) -> bytes:
    return zstandard.ZstdCompressor(**kw).compress(data)


#: suffix -> (compress, name in messages)
COMPRESSIONS = {
    ".gz": (gzip.compress, "gzip"),
    ".xz": (lzma.compress, "xz"),
    ".zst": (zstd, "zstd"),
    ".bz2": (bz2.compress, "bz2"),
}


@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
@pytest.mark.parametrize("keep", [0.5, 0.9, -1])
def test_truncated_compressed_trace_is_an_error(tmp_path, suffix, keep):
    compress, label = COMPRESSIONS[suffix]
    whole = compress(CONTENT)
    cut = len(whole) - 1 if keep == -1 else int(len(whole) * keep)
    path = tmp_path / f"t.txt{suffix}"
    path.write_bytes(whole[:cut])
    with pytest.raises(TraceFormatError) as info:
        read_trace(path)
    err = info.value
    assert isinstance(err, CompressedDataError) and isinstance(err, ValueError)
    msg = str(err)
    assert msg.startswith(f"{path}: truncated or corrupt {label} data")
    assert "\n" not in msg and err.compression == label
    if suffix == ".zst":  # end of input inside a frame: exact offset
        assert f"at compressed byte {cut}:" in msg and "file ends inside a zstd frame" in msg
    # the whole file reads back
    path.write_bytes(whole)
    assert read_trace(path).original_id[read_trace(path).page].tolist() == IDS.tolist()


@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
def test_corrupt_compressed_trace_is_an_error(tmp_path, suffix):
    compress, label = COMPRESSIONS[suffix]
    whole = bytearray(zstd(CONTENT, write_checksum=True) if suffix == ".zst" else compress(CONTENT))
    mid = len(whole) // 2
    whole[mid : mid + 64] = bytes(b ^ 0xA5 for b in whole[mid : mid + 64])
    path = tmp_path / f"t.txt{suffix}"
    path.write_bytes(bytes(whole))
    with pytest.raises(CompressedDataError, match=rf"^{path}: truncated or corrupt {label} data"):
        read_trace(path)


def test_zstd_frames_skippable_frames_and_boundaries(tmp_path):
    first, second = CONTENT[:100_001], CONTENT[100_001:]
    skippable = b"\x50\x2a\x4d\x18" + (5).to_bytes(4, "little") + b"hello"
    data = zstd(first) + skippable + zstd(second, write_checksum=True)
    path = tmp_path / "multi.txt.zst"
    path.write_bytes(data)
    for chunk in (7, 4096, 1 << 20):
        t = read_trace(path, chunk_bytes=chunk)
        assert t.original_id[t.page].tolist() == IDS.tolist()
    # a cut right after a complete frame is indistinguishable from a shorter file
    end_first = len(zstd(first))
    path.write_bytes(data[:end_first])
    assert read_trace(path).n_requests == len(first.split())
    # a cut inside the second frame (or its header, or just the magic) is not
    for cut in (end_first + len(skippable) + 2, end_first + len(skippable) + 30, len(data) - 3):
        path.write_bytes(data[:cut])
        with pytest.raises(CompressedDataError, match=rf"at compressed byte {cut}: file ends inside"):
            read_trace(path)
    path.write_bytes(data + b"garbage!")  # trailing bytes that are no frame
    with pytest.raises(CompressedDataError, match="truncated or corrupt zstd data"):
        read_trace(path)


def test_zstd_stream_reads_like_the_library(tmp_path):
    data = zstd(CONTENT) + zstd(b"tail\n")
    path = tmp_path / "x.zst"
    path.write_bytes(data)
    with open(path, "rb") as fh, ZstdStream(fh, closefd=False) as zs:
        parts = []
        while chunk := zs.read(12_345):
            assert len(chunk) <= 12_345
            parts.append(chunk)
        assert b"".join(parts) == CONTENT + b"tail\n"
        assert zs.read(10) == b"" and zs.tell() == len(CONTENT) + 5
        assert not fh.closed
    with open_bytes(path) as fh:
        assert fh.read() == CONTENT + b"tail\n"


def test_detection_of_a_short_truncated_file_names_it(tmp_path):
    path = tmp_path / "noext"  # no known extension: content is sniffed, and cannot be
    path.write_bytes(gzip.compress(b"1\n2\n3\n")[:-6])
    with pytest.raises(CompressedDataError, match=r"noext: truncated or corrupt gzip data"):
        detect_format(path)
    path.write_bytes(b"\x28\xb5\x2f\xfd")  # a zstd magic number and nothing else
    with pytest.raises(CompressedDataError, match=r"at compressed byte 4: file ends inside a zstd frame"):
        read_trace(path)


def test_compressed_data_error_is_picklable_and_describes_itself(tmp_path):
    err = CompressedDataError(tmp_path / "a.gz", "gzip", "boom\nbang", compressed_offset=10, offset=99)
    expected = f"{tmp_path / 'a.gz'}: truncated or corrupt gzip data at compressed byte 10: boom bang"
    assert str(err) == expected + " (after 99 decompressed bytes)"
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is CompressedDataError and str(back) == str(err)
    near = CompressedDataError("b.zst", "zstd", "bad", compressed_offset=4096, exact=False)
    assert str(near) == "b.zst: truncated or corrupt zstd data near compressed byte 4096: bad"
    assert near.line_no is None and near.expected == "complete zstd data"


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_cli_reports_truncation_on_one_line_with_status_2(tmp_path, suffix):
    compress, label = COMPRESSIONS[suffix]
    path = tmp_path / f"t.txt{suffix}"
    path.write_bytes(compress(CONTENT)[:-20])
    result = CliRunner().invoke(app, ["trace", "info", str(path)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output and "Aborted" not in result.output
    assert str(path) in lines[0] and f"truncated or corrupt {label} data" in lines[0]
