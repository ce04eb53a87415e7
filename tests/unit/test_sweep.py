"""pagesim sweep: grids, keys, the store, failures, resuming after SIGINT / SIGKILL, Dask, one pass."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest
from typer.testing import CliRunner

import pagesim
from pagesim.cli import app
from pagesim.engine import simulate
from pagesim.policies.registry import make_policy
from pagesim.sweep.driver import run_sweep
from pagesim.sweep.grid import expand_sizes, grid_from_options, grid_from_toml, parse_policies
from pagesim.sweep.keys import run_key, trace_digest
from pagesim.sweep.results import load_results
from pagesim.trace import Trace
from pagesim.workloads import from_spec

SRC = os.path.dirname(os.path.dirname(os.path.abspath(pagesim.__file__)))
SMALL = "workload:zipf?n_requests=4000&n_pages=400"
#: Columns that make a sweep's final table (timings, worker and dates left out).
TABLE = ["trace", "policy", "label", "size", "size_pages", "mode", "warmup", "seed", "requests", "hits",
         "misses", "miss_ratio", "status", "error", "method", "evictions"]  # fmt: skip


def table(db: str):  # type: ignore[no-untyped-def]
    frame = load_results(db)
    return frame[[c for c in TABLE if c in frame.columns]].astype(str).reset_index(drop=True)


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


# --------------------------------------------------------------------------------------- grid


def test_policy_parameter_lists_expand_and_commas_separate_policies() -> None:
    variants = parse_policies(["lru,s3fifo?small_ratio=0.05,0.1,0.2,arc"])
    assert [v.label() for v in variants] == [
        "lru", "s3fifo?small_ratio=0.05", "s3fifo?small_ratio=0.1", "s3fifo?small_ratio=0.2", "arc",
    ]  # fmt: skip
    two = parse_policies(["s3fifo?small_ratio=0.1,0.2&move_to_main_threshold=1,2"])
    assert len(two) == 4  # the product of 2 x 2 values
    assert dict(two[0].params) == {"move_to_main_threshold": 1, "small_ratio": 0.1}
    with pytest.raises(ValueError, match="no parameter 'nope'"):
        parse_policies(["lru?nope=1"])


def test_sizes_ranges_linear_log_and_bytes() -> None:
    # 1%..50% in 3 steps: 1, 25.5, 50; log: 1, sqrt(50) = 7.071, 50
    assert expand_sizes(["1%:50%:3"]) == ["1%", "25.5%", "50%"]
    assert expand_sizes(["1%:50%:3"], log=True) == ["1%", "7.071%", "50%"]
    assert expand_sizes(["100:300:3", "64MiB", "1g"]) == ["100", "200", "300", "16384", "262144"]
    with pytest.raises(ValueError, match="both ends"):
        expand_sizes(["1%:300:3"])


def test_toml_grid(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.trace").write_text("1\n2\n")
    (tmp_path / "b.trace").write_text("3\n")
    path = tmp_path / "grid.toml"
    path.write_text(
        'traces = ["*.trace", "workload:loop?n_pages=5"]\npolicies = ["lru", "s3fifo?small_ratio=0.05,0.2"]\n'
        'sizes = ["10:40:4"]\nwarmup = "10%"\nseeds = [1, 2]\ntimeout = 5\n'
    )
    grid = grid_from_toml(str(path))
    assert grid.traces == [str(tmp_path / "a.trace"), str(tmp_path / "b.trace"), "workload:loop?n_pages=5"]
    assert len(grid.policies) == 3 and grid.sizes == ["10", "20", "30", "40"]
    assert grid.warmups == ["10%"] and grid.seeds == [1, 2] and grid.timeout == 5.0
    path.write_text('traces = ["x"]\npolicy = ["lru"]\n')
    with pytest.raises(ValueError, match="unknown key"):
        grid_from_toml(str(path))


def test_uncompressed_pgt_is_mapped_not_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pagesim.trace import read_trace, write_trace

    t = from_spec("zipf?n_requests=5000&n_pages=300")
    path = str(tmp_path / "t.pgt")
    write_trace(t, path, compress=False)
    mapped = read_trace(path, mmap=True)
    for name in ("page", "original_id", "kind", "op", "cgroup", "tag"):
        assert np.array_equal(getattr(mapped, name), getattr(t, name))
        assert getattr(mapped, name).dtype == getattr(t, name).dtype
    base = mapped.page
    while not isinstance(base, np.memmap) and base.base is not None:
        base = base.base
    assert isinstance(base, np.memmap) and base.mode == "c"  # copy-on-write over the file
    assert simulate(mapped, make_policy("lru"), 30).misses == simulate(t, make_policy("lru"), 30).misses


def test_keys_name_content_and_defaults() -> None:
    t = from_spec("zipf?n_requests=100&n_pages=10")
    same = Trace(page=t.page.copy(), original_id=t.original_id.copy(), source={"other": 1})
    assert trace_digest(t) == trace_digest(same)  # the content, not the metadata
    assert trace_digest(t) != trace_digest(from_spec("zipf?n_requests=100&n_pages=10&seed=1"))
    defaults = make_policy("s3fifo").values
    assert run_key("d", "s3fifo", defaults, 10, "cache", 0, None) == run_key(
        "d", "s3fifo", {**defaults, "small_ratio": 0.1}, 10, "cache", 0, None
    )
    assert run_key("d", "s3fifo", defaults, 10, "cache", 0, None) != run_key(
        "d", "s3fifo", defaults, 11, "cache", 0, None
    )


# ------------------------------------------------------------------------------ running a grid


def test_rows_equal_direct_simulation_and_resume(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "r.db")
    grid = grid_from_options([SMALL], ["clock,fifo"], ["5%", "20%"])  # not stack policies: simulated
    said: list[str] = []
    summary = run_sweep(grid, db, workers=2, say=said.append)
    assert (summary.ok, summary.failed, summary.total) == (4, 0, 4)
    frame = load_results(db)
    trace = from_spec(SMALL.removeprefix("workload:"))
    for _, row in frame.iterrows():
        # 5% and 20% of the trace's unique pages, rounded (resolve_size)
        assert row["size_pages"] == round(trace.n_pages * float(row["size"].rstrip("%")) / 100)
        direct = simulate(trace, make_policy(row["policy"]), int(row["size_pages"]))
        assert (row["misses"], row["hits"], row["evictions"]) == (direct.misses, direct.hits,
                                                                   direct.counters["evictions"])  # fmt: skip
        assert row["status"] == "ok" and row["method"] == "simulate"
    bigger = grid_from_options([SMALL], ["clock,fifo,sieve"], ["5%", "20%"])
    said.clear()
    summary = run_sweep(bigger, db, workers=1, say=said.append)
    assert "resumed: 4 of 6 already done" in said and summary.ok == 2
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT count(*), count(DISTINCT key) FROM runs").fetchone() == (6, 6)


def test_failures_are_rows_and_the_rest_completes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    policy = tmp_path / "broken.py"
    policy.write_text(
        "from pagesim.policies import Policy\n"
        "class Broken(Policy):\n"
        "    def configure(self, s, capacity):\n"
        "        raise RuntimeError('broken on purpose')\n"
    )
    missing = str(tmp_path / "missing.trace")
    db = str(tmp_path / "f.db")
    result = invoke("sweep", SMALL, missing, "--policy", f"lru,{policy}:Broken", "--size", "10,20",
                    "-o", db, "--workers", "2")  # fmt: skip
    assert result.exit_code == 1
    assert "broken on purpose" in result.stderr and "missing.trace" in result.stderr
    frame = load_results(db)
    assert sorted(frame["status"]) == ["failed"] * 3 + ["ok"] * 2  # 2 broken runs, 1 unreadable trace
    unreadable = frame[frame["trace"] == missing]
    assert len(unreadable) == 1 and "trace file not found" in unreadable["error"].iloc[0]
    # a hook that raises reaches the row as the engine's PolicyError, with its access index
    from pagesim.engine import PolicyError
    from pagesim.sweep.worker import _failure

    error = PolicyError("mine", 30, ValueError("boom"), "Traceback ...")
    assert _failure(error) == "policy 'mine' raised ValueError: boom at access index 30"


def test_a_policy_that_raises_when_created_is_failed_rows_and_the_rest_runs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    policy = tmp_path / "boom.py"
    policy.write_text(
        "from pagesim.policies import Policy\n"
        "class Boom(Policy):\n"
        "    def __init__(self, **kw):\n"
        "        raise RuntimeError('boom')\n"
    )
    db = str(tmp_path / "b.db")
    args = ("sweep", SMALL, "--policy", f"lru,{policy}:Boom", "--size", "10,20", "-o", db)
    plan = invoke(*args, "--plan")
    assert plan.exit_code == 0
    assert "runs: 2 in the grid, 0 already done" in plan.stdout
    assert "cannot create boom (2 run(s) will be failed rows)" in plan.stdout
    result = invoke(*args, "--workers", "1")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "2 of 4 runs done, 2 failed" in result.stderr
    frame = load_results(db)
    failed = frame[frame["status"] == "failed"]
    assert sorted(failed["size_pages"]) == [10, 20] and set(failed["label"]) == {"boom"}
    # the line compare prints: the constructor's line is line 4 of the file
    assert all(
        "policy 'boom' (Boom) raised RuntimeError: boom while it was created" in e for e in failed["error"]
    )
    assert all("boom.py:4" in e for e in failed["error"])
    assert sorted(frame.loc[frame["status"] == "ok", "policy"]) == ["lru", "lru"]


def test_a_policy_file_that_does_not_import_is_refused_in_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    policy = tmp_path / "noimport.py"
    policy.write_text("import a_module_that_is_not_there\n")
    result = invoke(
        "sweep", SMALL, "--policy", f"lru,{policy}:X", "--size", "10", "-o", str(tmp_path / "n.db")
    )
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "ModuleNotFoundError" in lines[0] and "noimport.py:1" in lines[0]


def test_a_user_policy_row_has_its_spec_as_policy_and_its_short_name_as_label(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pagesim.sweep.plan import make_plan
    from pagesim.sweep.store import Store

    path = tmp_path / "mine.py"
    path.write_text("from pagesim.policies.fifo import FIFO\nclass DictLRU(FIFO):\n    name = 'dict-lru'\n")
    spec = f"{path}:DictLRU"
    grid = grid_from_options([SMALL], [spec], ["10"])
    with Store(str(tmp_path / "u.db")) as store:
        (task,) = make_plan(grid, store).tasks
    (run,) = task.runs
    assert (run.policy, run.label) == (spec, "dict-lru")  # as docs/sweep.md says


def test_timeout_fails_the_run_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "t.db")
    grid = grid_from_options(["workload:zipf?n_requests=400000&n_pages=4000"], ["fifo"], ["10"], timeout=1e-4)
    summary = run_sweep(grid, db, workers=1, say=lambda _: None)
    assert summary.failed == 1 and "timeout" in summary.failures[0]


def test_a_stuck_worker_is_killed_and_replaced(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from pagesim.sweep import local

    monkeypatch.setattr(local, "KILL_GRACE", 0.0)
    ex = local.LocalExecutor(1)
    try:
        out = dict(ex._map(time.sleep, [30.0, 0.0], lambda s: 0.2 if s else None))
    finally:
        ex.close()
    assert isinstance(out[0], local.WorkerLost) and "killed" in str(out[0]) and out[1] is None


def test_kernel_mode_rows_carry_the_vmstat_counters(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pagesim.engine.kernel import simulate_kernel
    from pagesim.engine.memory import KernelConfig

    spec = "workload:loop?n_pages=200&passes=3"
    db = str(tmp_path / "k.db")
    run_sweep(grid_from_options([spec], ["linux-lru"], ["100"], modes=["kernel"]), db, workers=1, say=print)
    (row,) = [r for _, r in load_results(db).iterrows()]
    direct = simulate_kernel(from_spec(spec.removeprefix("workload:")), make_policy("linux-lru"),
                             KernelConfig(memory_pages=100))  # fmt: skip
    for name in ("misses", "pgpgin", "pgscan_kswapd", "pgsteal_kswapd", "readahead_pages"):
        assert row[name] == direct.counters[name], name


def test_plan_and_results_export(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "p.db")
    plan = invoke("sweep", SMALL, "--policy", "lru,lru?", "--size", "1%:10%:3", "-o", db, "--plan")
    assert plan.exit_code == 0 and "runs: 3 in the grid" in plan.stdout
    assert not os.path.exists(db) and not os.path.exists(db + "-traces")  # only printed
    assert invoke("sweep", SMALL, "--policy", "lru,fifo", "--size", "10", "-o", db).exit_code == 0
    before = (open(db, "rb").read(), sorted(os.listdir(db + "-traces")))
    again = invoke("sweep", SMALL, "--policy", "lru,fifo", "--size", "10,20", "-o", db, "--plan")
    assert "runs: 4 in the grid, 2 already done, 2 to run" in again.stdout
    assert (open(db, "rb").read(), sorted(os.listdir(db + "-traces"))) == before
    out = invoke("results", db, "--where", "policy = 'fifo'")
    assert out.exit_code == 0 and "fifo" in out.stdout and " lru " not in out.stdout
    for name in ("x.csv", "x.parquet"):
        assert invoke("results", db, "--to", str(tmp_path / name)).exit_code == 0
    import pandas as pd

    back = pd.read_parquet(tmp_path / "x.parquet")
    assert list(back["misses"]) == list(load_results(db)["misses"])
    bad = invoke("results", db, "--where", "nonsense ===")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1


def test_absent_dask_is_one_clean_line(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    result = invoke("sweep", SMALL, "--policy", "lru", "--size", "10", "-o", str(tmp_path / "d.db"),
                    "--cluster", "local:2")  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "pagesim: error: dask is not installed: pip install 'pagesim[cluster]' "
        "(or pip install 'dask[distributed]')"
    ]


# ----------------------------------------------------------------------------- one pass (LRU, OPT)


def test_stack_policies_run_in_one_pass_and_equal_simulation(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "o.db")
    plan = invoke("sweep", SMALL, "--policy", "lru,fifo", "--size", "5,50", "-o", db, "--plan")
    assert "one pass per trace (stack policies lru): 1 pass(es) for 2 runs" in plan.stdout
    run_sweep(grid_from_options([SMALL], ["lru,fifo"], ["50", "5"]), db, workers=1, say=lambda _: None)
    frame = load_results(db)
    trace = from_spec(SMALL.removeprefix("workload:"))
    assert len(frame) == 4
    for _, row in frame.iterrows():
        assert row["method"] == ("one-pass" if row["policy"] == "lru" else "simulate")
        assert row["misses"] == simulate(trace, make_policy(row["policy"]), int(row["size_pages"])).misses


def test_one_pass_equals_simulation_with_warmup() -> None:
    from pagesim.sweep.onepass import one_pass_misses

    trace = from_spec("zipf?n_requests=3000&n_pages=300")
    for name in ("lru", "opt"):
        got = one_pass_misses(trace, name, [3, 30, 300], 100)
        want = [simulate(trace, make_policy(name), c, warmup=100).misses for c in (3, 30, 300)]
        assert list(got) == want


# -------------------------------------------------------------- interrupted sweeps and Dask (done when)

# LRU's one pass (2 rows at once) and two runs of tests/unit/_gated.py's interpreted LRU, of which
# the larger (8,000 pages) waits at a gate file while it is absent: a sweep started with the gate
# closed stores 3 rows and then holds, so an interrupt sent then lands mid-way by construction.
_GATED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_gated.py") + ":GatedLRU"
INTERRUPTED = ["workload:zipf?n_requests=30000&n_pages=20000", "--policy", f"lru,{_GATED}",
               "--size", "1%:40%:2"]  # fmt: skip
GATE_ENV = "PAGESIM_TEST_GATE"  #: _gated.GATE: the gate file's variable


@pytest.fixture(scope="module")
def reference(tmp_path_factory):  # type: ignore[no-untyped-def]
    """The uninterrupted sweep's final table (no gate: the runs go straight through)."""
    db = str(tmp_path_factory.mktemp("ref") / "ref.db")
    assert invoke("sweep", *INTERRUPTED, "-o", db, "--workers", "2").exit_code == 0
    return db


def _signal_state(pid: int) -> str:
    """The process's blocked, ignored and caught signal masks (/proc), for a failure's message."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return " ".join(line.split()[0] + line.split()[1] for line in f if line.startswith("Sig"))
    except OSError:
        return "gone"


def _interrupt(db: str, sig: int, *where: str) -> tuple[int, str]:
    """Start the sweep (on 2 local workers, or ``where``) with its gate closed, in a process
    group of its own; once it has stored the 3 rows the gate lets through, send ``sig`` to the
    whole group (as Ctrl-C does). Its exit code and stderr."""
    gate = db + ".gate"
    env = {**os.environ, "PYTHONPATH": SRC, GATE_ENV: gate}
    command = [sys.executable, "-c", "from pagesim.cli import app; app()", "sweep", *INTERRUPTED]
    proc = subprocess.Popen(
        [*command, "-o", db, *(where or ("--workers", "2"))], env=env, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    stored, state = 0, ""
    deadline = time.monotonic() + 180
    while proc.poll() is None and time.monotonic() < deadline and stored < 3:
        time.sleep(0.05)
        if os.path.exists(db):
            try:
                with contextlib.closing(sqlite3.connect(db, timeout=1.0)) as conn:
                    stored = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
            except sqlite3.OperationalError:
                stored = 0
    if stored == 3:
        state = _signal_state(proc.pid)
        os.killpg(proc.pid, sig)
    try:
        _, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        pytest.fail(f"the sweep did not stop on signal {sig} (its signal masks then: {state}): {err}")
    with contextlib.closing(sqlite3.connect(db)) as conn:
        left = conn.execute("SELECT count(*), count(DISTINCT key) FROM runs").fetchone()
    assert stored == 3, f"not 3 rows before the sweep ended ({left[0]} rows, exit {proc.returncode}): {err}"
    assert left == (3, 3), f"the gate should hold the sweep at 3 of 4 rows, got {left}: {err}"
    return proc.returncode, err


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["sigint", "sigkill"])
def test_interrupted_sweep_resumes_to_the_same_table(tmp_path, reference, sig) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "i.db")
    code, _ = _interrupt(db, sig)
    assert code == (130 if sig == signal.SIGINT else -signal.SIGKILL)
    again = invoke("sweep", *INTERRUPTED, "-o", db, "--workers", "2")
    assert again.exit_code == 0 and "resumed: " in again.stderr
    assert table(db).equals(table(reference))


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_table(tmp_path, reference) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("dask.distributed")
    db = str(tmp_path / "d.db")
    result = invoke("sweep", *INTERRUPTED, "-o", db, "--cluster", "local:2")
    assert result.exit_code == 0, result.stderr
    assert "Dask cluster local:2 (2 worker(s))" in result.stderr
    assert table(db).equals(table(reference))


@pytest.mark.slow
def test_ctrl_c_stops_a_dask_sweep_quietly(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("dask.distributed")
    code, err = _interrupt(str(tmp_path / "c.db"), signal.SIGINT, "--cluster", "local:2")
    assert code == 130
    assert "interrupted: run the same command again to resume" in err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


@pytest.mark.slow
def test_dask_scheduler_address(tmp_path) -> None:  # type: ignore[no-untyped-def]
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster:
        db = str(tmp_path / "a.db")
        result = invoke("sweep", SMALL, "--policy", "fifo", "--size", "10,40", "-o", db,
                        "--cluster", cluster.scheduler_address)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    trace = from_spec(SMALL.removeprefix("workload:"))
    assert list(load_results(db)["misses"]) == [
        simulate(trace, make_policy("fifo"), c).misses for c in (10, 40)
    ]


# ----------------------------------------------------------------------------------- the report


def test_report_html_and_figures(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "rep.db")
    run_sweep(grid_from_options([SMALL], ["lru,fifo,opt"], ["5", "40"]), db, workers=2, say=lambda _: None)
    out = tmp_path / "report.html"
    result = invoke("report", db, "-o", str(out), "--figures", str(tmp_path / "figs"))
    assert result.exit_code == 0
    page = out.read_text()
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    data = json.loads(page.split('id="sweep-data">')[1].split("</script>")[0])
    (section,) = data["sections"]
    frame = load_results(db)
    fifo = frame[(frame["policy"] == "fifo") & (frame["size_pages"] == 5)]["miss_ratio"].iloc[0]
    lru = frame[(frame["policy"] == "lru") & (frame["size_pages"] == 5)]["miss_ratio"].iloc[0]
    cell = section["table"][0]["cells"]["lru"]
    assert math.isclose(cell["vs_base"], 100 * (1 - lru / fifo))
    assert section["table"][0]["best"] == ["lru" if lru < fifo else "fifo"]
    stem = "00-workload_zipf_n_requests_4000_n_pages_400"
    assert sorted(os.listdir(tmp_path / "figs")) == [f"{stem}.png", f"{stem}.svg"]
