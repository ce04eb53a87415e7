"""Streamed cache mode (pagesim.trace.stream): the same counters as the trace in memory, with
memory that does not grow with the trace's length."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from pagesim.cli import app
from pagesim.engine.simulate import simulate
from pagesim.policies.registry import policy_class
from pagesim.trace import OP_FREE, OP_WRITE, Trace, TraceFormatError, read_trace, remap, write_trace
from pagesim.trace.readers import oracle
from pagesim.trace.readers.native import write_columns
from pagesim.trace.remap import IdMap
from pagesim.trace.stream import MemoryStream, NextAccessFile, open_stream, should_stream

POLICIES = ("lru", "arc", "s3fifo", "opt", "opt-bypass")


def _run(trace, name, capacity, **kw):
    return simulate(trace, policy_class(name)(), capacity, **kw).counters


def _synthetic(n=20_000, n_pages=3_000, seed=1, cgroups=False, ops=False) -> Trace:
    rng = np.random.default_rng(seed)
    ids = rng.zipf(1.3, n) % n_pages * 11 + (1 << 40)
    cols = {"size": rng.integers(1, 5000, n)}
    if cgroups:
        cols["cgroup"] = rng.integers(0, 2, n)
    if ops:
        op = np.zeros(n, dtype=np.uint8)
        op[rng.random(n) < 0.05] = OP_FREE
        op[rng.random(n) < 0.1] = OP_WRITE
        cols["op"] = op
    return Trace.from_ids(ids, **cols)


# ------------------------------------------------------------------ incremental remapping


@pytest.mark.parametrize("split", [1, 7, 1000, 50_000])
def test_idmap_over_chunks_equals_remap(split):
    rng = np.random.default_rng(split)
    ids = rng.integers(-(1 << 62), 1 << 62, 30_000)[rng.integers(0, 30_000, 60_000)]
    ids[::5] = rng.integers(0, 100, ids[::5].shape[0])  # a few hot small ids too
    m = IdMap()
    dense = np.concatenate([m.map(ids[s : s + split]) for s in range(0, ids.size, split)])
    want, original = remap(ids)
    assert np.array_equal(dense, want)
    assert np.array_equal(m.original_ids(), original)
    again = np.concatenate([m.map(ids[s : s + 999]) for s in range(0, ids.size, 999)])
    assert np.array_equal(again, want)  # a second pass maps alike and adds nothing
    assert m.n_distinct == original.size


def test_idmap_takes_uint64_ids():
    ids = np.array([2**64 - 1, 5, 2**64 - 1, 2**63], dtype=np.uint64)
    assert IdMap().map(ids).tolist() == remap(ids)[0].tolist()


# ------------------------------------------------------------------ streamed == in memory


@pytest.mark.parametrize("chunk", [1, 333, 4096])
@pytest.mark.parametrize("name", POLICIES)
def test_memory_stream_equals_in_memory(name, chunk):
    t = _synthetic(n=6_000)
    for kw in ({"warmup": 0}, {"warmup": 1_500}, {"capacity_unit": "bytes", "warmup": 700}):
        cap = 300 if kw.get("capacity_unit") != "bytes" else 300 * 2500
        assert _run(MemoryStream(t, chunk), name, cap, **kw) == _run(t, name, cap, **kw), kw


@pytest.mark.parametrize("name", ["lru", "arc", "opt"])
def test_stream_with_cgroups_and_operations_equals_in_memory(name):
    t = _synthetic(cgroups=True, ops=True)
    for writes in ("access", "insert-only", "ignore"):
        for unit, cap in (("pages", 200), ("bytes", 200 * 2500)):
            got = _run(MemoryStream(t, 777), name, cap, capacity_unit=unit, writes=writes, warmup=900)
            assert got == _run(t, name, cap, capacity_unit=unit, writes=writes, warmup=900)


@pytest.mark.parametrize("compress", [True, False])
def test_pgt_stream_equals_in_memory_on_real_traces(shared_traces, tmp_path, compress):
    for rel in ("lirs/sprite.trace.gz", "libcachesim/cloudPhysicsIO.oracleGeneral.bin"):
        t = read_trace(shared_traces / rel)
        path = tmp_path / "t.pgt"
        write_trace(t, path, compress=compress)
        s = open_stream(path, chunk=5_001)
        assert (s.n_requests, s.n_pages, s.n_cgroups) == (t.n_requests, t.n_pages, 1)
        got = np.concatenate([c.page for c in s.chunks()])
        assert np.array_equal(got, t.page)
        for name in ("lru", "arc", "s3fifo", "opt"):
            assert _run(s, name, 800, warmup=10_000) == _run(t, name, 800, warmup=10_000), (rel, name)
        s.close()


def test_oracle_stream_equals_in_memory(shared_traces, tmp_path):
    path = shared_traces / "libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    t = read_trace(path)
    zst = tmp_path / "c.oracleGeneral.zst"
    oracle.write(t, zst)
    for src in (path, zst):
        s = open_stream(src, chunk_bytes=24 * 4_999)
        assert (s.n_requests, s.n_pages) == (t.n_requests, t.n_pages)
        for name in ("lru", "s3fifo", "opt"):
            for unit, cap in (("pages", 1_000), ("bytes", 1_000 * 4096)):
                assert _run(s, name, cap, capacity_unit=unit) == _run(t, name, cap, capacity_unit=unit)
        s.close()


def test_oracle_stream_refuses_what_the_reader_refuses(tmp_path):
    rec = np.zeros(4, dtype=oracle.RECORD)
    rec["obj_id"] = [1, 2, 1, 3]
    rec["obj_size"] = 10
    rec["time"] = [0, 1, 2, 1]  # time goes back at request 4 (the second chunk)
    rec["next_access_vtime"] = [3, -1, -1, -1]
    path = tmp_path / "bad.oracleGeneral"
    path.write_bytes(rec.tobytes())
    with pytest.raises(TraceFormatError, match="no earlier"):
        open_stream(path, chunk_bytes=48)
    rec["time"] = [0, 1, 2, 3]
    rec["next_access_vtime"] = [2, -1, -1, -1]  # names request 2, of another object
    path.write_bytes(rec.tobytes())
    with pytest.raises(TraceFormatError, match="same obj_id"):
        open_stream(path, chunk_bytes=48)


def test_write_columns_reads_back_as_write_trace(tmp_path):
    t = _synthetic(ops=True)
    path = tmp_path / "w.pgt"
    cols = {name: col for name, col in t.columns().items() if col is not None}
    assert "time" not in cols

    def chunks(col):
        return (col[s : s + 999] for s in range(0, t.n_requests, 999))

    write_columns(path, t.n_requests, t.original_id, {name: chunks(col) for name, col in cols.items()})
    back = read_trace(path)
    for name in ("page", "kind", "op", "cgroup", "tag", "size", "original_id"):
        assert np.array_equal(getattr(back, name), getattr(t, name)), name
    assert back.time is None


def test_write_columns_refuses_wrong_input(tmp_path):
    with pytest.raises(ValueError, match="dense"):
        write_columns(tmp_path / "a.pgt", 3, np.array([5, 6]), {"page": [np.array([1, 0, 1])]})
    with pytest.raises(ValueError, match="holds 2 values, expected 3"):
        write_columns(tmp_path / "b.pgt", 3, np.array([5, 6]), {"page": [np.array([0, 1])]})


def test_pgt_stream_refuses_a_corrupt_member(tmp_path):
    t = _synthetic(n=50_000)
    path = tmp_path / "c.pgt"
    write_trace(t, path)
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(TraceFormatError):
        s = open_stream(path, chunk=1_000)
        for _ in s.chunks():
            pass


# ------------------------------------------------------------------ OPT's next accesses on disk


@pytest.mark.parametrize("block", [1, 17, 1 << 16])
def test_next_access_file_equals_next_access(tmp_path, block):
    t = _synthetic(n=5_000)
    f = NextAccessFile(MemoryStream(t, 333), str(tmp_path), block)
    assert f.path.startswith(str(tmp_path))
    assert os.path.getsize(f.path) == 8 * t.n_requests  # 8 bytes per access
    assert np.array_equal(np.concatenate([f.window(s, min(s + 700, 5_000)) for s in range(0, 5_000, 700)]),
                          t.next_access())  # fmt: skip
    f.close()
    assert not os.path.exists(f.path)


def test_next_access_file_goes_to_tmpdir_and_is_deleted(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    with MemoryStream(_synthetic(n=3_000), 500) as s:
        _run(s, "opt", 100)
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith("pagesim-next-")]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("pagesim-next-")]


# ------------------------------------------------------------------ the command line


def test_compare_streams_large_files_with_the_same_results(shared_traces, tmp_path, monkeypatch):
    src = shared_traces / "libcachesim/cloudPhysicsIO.oracleGeneral.bin"
    pgt = tmp_path / "c.pgt"
    write_trace(read_trace(src), pgt)
    for path in (pgt, src):
        out = {}
        for mode in ("never", "always"):
            monkeypatch.setenv("PAGESIM_STREAM", mode)
            assert should_stream(path) is (mode == "always")
            args = ["compare", str(path), "-p", "lru,arc", "-s", "2%", "-s", "700", "--json"]
            r = CliRunner().invoke(app, args)
            assert r.exit_code == 0, r.output
            out[mode] = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
        assert len(out["always"]) == 4
        for a, b in zip(out["never"], out["always"]):
            assert (a["policy"], a["misses"], a["opt_misses"]) == (b["policy"], b["misses"], b["opt_misses"])
    monkeypatch.setenv("PAGESIM_STREAM", "sometimes")
    r = CliRunner().invoke(app, ["compare", str(pgt), "-p", "lru"])
    assert r.exit_code != 0 and "PAGESIM_STREAM" in r.output


# ------------------------------------------------------------------ bounded memory

_PEAK = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from pagesim.engine.simulate import simulate
    from pagesim.policies.registry import policy_class
    from pagesim.trace.readers.native import write_columns
    from pagesim.trace import Trace
    from pagesim.trace.stream import MemoryStream, open_stream

    path, n, n_pages, chunk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), 1 << 18
    def pages():  # a scan of every page, then a stride over them
        for s in range(0, n, chunk):
            i = np.arange(s, min(s + chunk, n))
            yield np.where(i < n_pages, i, i * 7 % n_pages)
    write_columns(path, n, np.arange(n_pages), {"page": pages()})
    warm = MemoryStream(Trace.from_ids(np.arange(2 * n_pages) % n_pages), chunk)  # load the runner
    simulate(warm, policy_class("lru")(), n_pages // 10)
    del warm
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = simulate(open_stream(path, chunk=chunk), policy_class("lru")(), n_pages // 10)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(result.counters["requests"], (after - before) * 1024)
    """
)


def test_streamed_run_memory_does_not_grow_with_the_trace(tmp_path):
    n = 20_000_000  # 160 MB of page ids alone; the in-memory columns take ~600 MB
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", _PEAK, str(tmp_path / "big.pgt"), str(n), "100000"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    requests, growth = map(int, out.stdout.split())
    assert requests == n
    assert growth < 40 << 20, f"peak RSS grew by {growth / 2**20:.0f} MiB"
