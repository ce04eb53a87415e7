"""Real traces of ../shared/traces (see its PROVENANCE.md): counts and cross-format agreement.

Request and unique counts are those PROVENANCE.md records for each file; the four cloudPhysicsIO
files are one libCacheSim sample in four formats and must give the same id sequence.
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.analysis.reuse import trace_stats
from pagesim.trace import NEVER, Trace, TraceFormatError, detect_format, read_trace, write_trace
from pagesim.trace.readers import oracle

pytestmark = pytest.mark.realtrace

LIRS = {
    "lirs/2_pools": (100_000, 9_939),
    "lirs/cpp": (9_047, 1_223),
    "lirs/cs": (6_781, 1_409),
    "lirs/gli": (6_015, 2_529),
    "lirs/loop": (505_500, 1_011),
    "lirs/multi1": (15_858, 2_606),
    "lirs/multi2": (26_311, 5_684),
    "lirs/multi3": (30_241, 7_454),
    "lirs/ps": (10_448, 3_083),
    "lirs/sprite": (133_996, 7_075),
    "lirs2/backf": (9_000, 751),
    "lirs2/scan": (50_025, 2_001),
    "lirs2/zigzag": (52_001, 2_001),
}
CLOUD = {
    "cloudPhysicsIO.oracleGeneral.bin": "oracle",
    "cloudPhysicsIO.txt": "text",
    "cloudPhysicsIO.csv": "csv",
    "cloudPhysicsIO.vscsi": "vscsi",
}


@pytest.mark.parametrize(("name", "counts"), list(LIRS.items()))
def test_lirs_counts(shared_traces, name, counts):
    path = shared_traces / f"{name}.trace.gz"
    assert detect_format(path) == "text"
    t = read_trace(path)
    assert (t.n_requests, t.n_pages) == counts


def test_oltp_lis_counts(shared_traces):
    path = shared_traces / "arc" / "OLTP.lis.zst"
    assert detect_format(path) == "lis"
    t = read_trace(path)
    assert (t.n_requests, t.n_pages) == (914_145, 186_880)
    assert t.source["compression"] == "zstd"


@pytest.fixture(scope="module")
def cloud(shared_traces):
    return {fmt: read_trace(shared_traces / "libcachesim" / name) for name, fmt in CLOUD.items()}


def test_cloudphysics_formats_detected(shared_traces):
    for name, fmt in CLOUD.items():
        assert detect_format(shared_traces / "libcachesim" / name) == fmt


def test_cloudphysics_four_formats_agree(cloud):
    ref = cloud["text"]
    assert (ref.n_requests, ref.n_pages) == (113_872, 48_974)
    for fmt, t in cloud.items():
        assert (t.n_requests, t.n_pages) == (113_872, 48_974), fmt
        assert np.array_equal(t.page, ref.page), fmt
        assert np.array_equal(t.original_id, ref.original_id), fmt
    assert ref.original_id[:3].tolist() == [42932745, 42932746, 42932747]


def test_cloudphysics_ops_sizes_times_agree(cloud):
    """csv and vscsi carry the same SCSI ops, request sizes and times (csv in s, vscsi in us)."""
    csv, vs = cloud["csv"], cloud["vscsi"]
    assert np.array_equal(csv.op, vs.op)
    assert np.bincount(vs.op).tolist() == [46_974, 66_898]  # READ(10) 0x28, WRITE(10) 0x2a
    assert np.array_equal(csv.size, vs.size)
    assert np.array_equal(csv.time, vs.time // 1_000_000)
    assert np.array_equal(cloud["oracle"].time, csv.time)


def test_oracle_next_access_matches_file(shared_traces, cloud):
    """The file's next_access_vtime (1-based, -1 if none) equals our next_access + 1."""
    rec = np.fromfile(shared_traces / "libcachesim" / "cloudPhysicsIO.oracleGeneral.bin", dtype=oracle.RECORD)
    nxt = cloud["oracle"].next_access()
    assert np.array_equal(np.where(nxt == NEVER, -1, nxt + 1), rec["next_access_vtime"])


def test_native_round_trip_of_real_trace(tmp_path, cloud):
    for fmt in ("csv", "oracle"):
        t = cloud[fmt]
        write_trace(t, tmp_path / "t.pgt")
        back = read_trace(tmp_path / "t.pgt")
        assert back.source["format"] == "pagesim" and back.source["converted_from"] == t.source
        assert back.source["converted_from"]["format"] == fmt
        assert back.equals(Trace(page=t.page, original_id=t.original_id, source=back.source, **cols(t)))


def cols(t):
    return {k: v for k, v in t.columns().items() if k != "page"}


def test_csv_with_a_bad_line_24_byte_aligned_is_an_error(tmp_path, shared_traces):
    """The reviewer's repro: read as oracleGeneral (129,866 requests, exit 0) before the fix."""
    lines = (shared_traces / "libcachesim" / "cloudPhysicsIO.csv").read_bytes().split(b"\n")
    lines[49] = b"this line is garbage"
    data = b"\n".join(lines)
    data += b"\n" * (-len(data) % 24)
    path = tmp_path / "cp_bad24.csv"
    path.write_bytes(data)
    assert detect_format(path) == "csv"
    with pytest.raises(TraceFormatError) as info:
        read_trace(path)
    assert str(info.value).startswith(f"{path}:50: expected at least 5 fields")


def test_truncated_oltp_zst_is_an_error(tmp_path, shared_traces):
    """`head -c 1000000 OLTP.lis.zst` used to read 387,143 of 914,145 requests silently."""
    path = tmp_path / "t.lis.zst"
    path.write_bytes((shared_traces / "arc" / "OLTP.lis.zst").read_bytes()[:1_000_000])
    with pytest.raises(TraceFormatError, match=r"truncated or corrupt zstd data at compressed byte 1000000"):
        read_trace(path)


def test_oltp_footprint_counts_512_byte_blocks(shared_traces):
    s = trace_stats(read_trace(shared_traces / "arc" / "OLTP.lis.zst"))
    assert s["unique_pages"] == 186_880
    assert s["footprint_bytes"] == 186_880 * 512  # 91.25 MiB, not 730 MiB
    assert s["footprint_basis"] == "pages x 512 (block_bytes)"


def test_stats_of_real_trace(cloud):
    s = trace_stats(cloud["text"])
    assert s["requests"] == 113_872 and s["unique_pages"] == 48_974
    assert s["footprint_bytes"] == 48_974 * 4096
    assert s["reaccesses"] == 113_872 - 48_974
    assert 0 < s["one_hit_wonders"] < 48_974
    assert (
        0 <= s["reuse_distance"]["p50"] <= s["reuse_distance"]["p90"] <= s["reuse_distance"]["p99"] < 48_974
    )
