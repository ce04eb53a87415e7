"""The ``pagesim`` command: results equal the library's, options resolve, bad input fails cleanly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pagesim.analysis.compare import DEFAULT_POLICIES, resolve_policies
from pagesim.cli import app
from pagesim.engine import simulate
from pagesim.policies import BUILTIN, make_policy, policy_names
from pagesim.workloads import from_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SMALL = "workload:zipf?n_requests=20000&n_pages=2000&alpha=0.9&seed=3"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def records(result) -> list[dict]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def assert_one_line_error(result, code: int, *needles: str) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0]
    return lines[0]


def test_help_lists_every_command():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("run", "compare", "trace", "policies", "workloads"):
        assert command in result.stdout
    trace_help = invoke("trace", "--help")
    assert "info" in trace_help.stdout and "convert" in trace_help.stdout


def test_compare_gives_the_misses_of_simulate():
    result = invoke("compare", SMALL, "--size", "100", "--size", "400", "--policy", "lru,fifo,mru", "--json")
    assert result.exit_code == 0, result.output
    trace = from_spec(SMALL)
    got = {(r["policy"], r["capacity"]): r["misses"] for r in records(result)}
    assert len(got) == 6
    for (name, capacity), misses in got.items():
        assert misses == simulate(trace, make_policy(name), capacity).misses


def test_percentage_size_is_of_unique_pages():
    trace = from_spec(SMALL)
    result = invoke("compare", SMALL, "--size", "10%", "--policy", "lru", "--json")
    (rec,) = records(result)
    assert rec["capacity"] == round(trace.n_pages * 0.1)
    assert rec["size"] == "10%"
    assert rec["trace"] == SMALL


def test_json_lines_carry_result_fields_and_opt_baseline():
    result = invoke("compare", SMALL, "--size", "200", "--policy", "lru", "--policy", "fifo", "--json")
    recs = records(result)
    assert [r["policy"] for r in recs] == ["lru", "fifo"]
    for r in recs:
        assert r["requests"] == 20000 and r["hits"] + r["misses"] == r["requests"]
        assert r["miss_ratio"] == pytest.approx(r["misses"] / r["requests"])
        if "opt" in policy_names():
            assert r["misses_above_opt"] == r["misses"] - r["opt_misses"] >= 0


def test_table_output_names_every_policy_and_opt():
    result = invoke("compare", SMALL, "--size", "5%", "--policy", "lru,mru")
    assert result.exit_code == 0, result.output
    assert "lru" in result.stdout and "mru" in result.stdout
    assert "OPT" in result.stdout


def test_warmup_fraction_is_not_counted():
    result = invoke("compare", SMALL, "--size", "100", "--policy", "lru", "--warmup", "0.25", "--json")
    (rec,) = records(result)
    assert rec["warmup_accesses"] == 5000 and rec["requests"] == 15000


def test_default_policies_skip_unregistered_but_explicit_unknown_fails(monkeypatch):
    monkeypatch.delitem(BUILTIN, "mru")
    names = [c.policy_name() for c in resolve_policies(None)]
    assert "mru" not in names
    assert names == [n for n in DEFAULT_POLICIES if n in BUILTIN]
    result = invoke("compare", SMALL, "--size", "10", "--policy", "lru,mru")
    line = assert_one_line_error(result, 2, "unknown policy 'mru'", "lru")
    assert "known policies" in line


def test_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "broken.txt"
    path.write_text("1\n2\n3\n4x\n5\n")
    result = invoke("compare", str(path), "--size", "2", "--policy", "lru")
    assert_one_line_error(result, 2, "broken.txt:4", "4x")


@pytest.mark.parametrize("size", ["0", "-5", "abc", "0%", "2.5"])
def test_bad_size_is_one_line_exit_2(size):
    result = invoke("compare", SMALL, "--size", size, "--policy", "lru")
    assert_one_line_error(result, 2, "size")


def test_missing_trace_file_is_one_line_exit_2(tmp_path):
    result = invoke("compare", str(tmp_path / "nope.txt"), "--size", "10")
    assert_one_line_error(result, 2, "nope.txt")


def test_unknown_format_and_workload_are_exit_2(tmp_path):
    assert_one_line_error(invoke("compare", SMALL, "--size", "5", "--format", "pgt"), 2, "format")
    assert_one_line_error(invoke("compare", "workload:nosuch", "--size", "5"), 2, "zipf")


def test_empty_trace_reports_zero_requests_never_nan(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("")
    result = invoke("compare", str(path), "--size", "10%", "--policy", "lru,fifo", "--json")
    assert result.exit_code == 0, result.output
    for rec in records(result):
        assert rec["requests"] == 0 and rec["misses"] == 0 and rec["miss_ratio"] == 0.0
    table = invoke("compare", str(path), "--size", "4", "--policy", "lru")
    assert table.exit_code == 0 and "nan" not in table.stdout.lower()


def test_user_policy_that_raises_shows_its_traceback_and_access_index(tmp_path, monkeypatch):
    monkeypatch.setenv("PAGESIM_CACHE_DIR", str(tmp_path / "cache"))  # a throw-away runner
    path = tmp_path / "raising.py"
    path.write_text(
        "from pagesim.core.state import A_TIME\n"
        "from pagesim.policies import Policy\n"
        "def accessed(s, a):\n"
        "    if a[A_TIME] >= 30:\n"
        "        raise ValueError('boom')\n"
        "    return 0\n"
        "class Raising(Policy):\n"
        "    accessed = staticmethod(accessed)\n"
    )
    result = invoke(
        "compare", "workload:loop?n_pages=10&passes=10", "--size", "20", "--policy", f"{path}:Raising"
    )
    assert result.exit_code == 1
    assert "raising.py" in result.stderr and "boom" in result.stderr  # the policy's own frame
    assert "access index 30" in result.stderr.strip().splitlines()[-1]


def test_example_user_lru_equals_builtin_lru():
    spec = f"{EXAMPLES / 'my_lru.py'}:MyLRU"
    result = invoke(
        "compare", SMALL, "--size", "50", "--size", "300", "--policy", f"lru,{spec}", "--json", "--no-opt"
    )
    assert result.exit_code == 0, result.output
    recs = records(result)
    by = {(r["policy"], r["capacity"]): r for r in recs}
    for cap in (50, 300):
        assert by[("my-lru", cap)]["misses"] == by[("lru", cap)]["misses"]
        assert by[("my-lru", cap)]["mode"] == "compiled"


def test_python_only_example_runs_interpreted_with_a_notice():
    spec = f"{EXAMPLES / 'python_only.py'}:DictLRU"
    small = "workload:zipf?n_requests=3000&n_pages=500"
    result = invoke("compare", small, "--size", "40", "--policy", f"lru,{spec}", "--json", "--no-opt")
    assert result.exit_code == 0, result.output
    assert "notice" in result.stderr and "interpreted" in result.stderr
    by = {r["policy"]: r for r in records(result)}
    assert by["dict-lru"]["mode"] == "interpreted"
    assert by["dict-lru"]["misses"] == by["lru"]["misses"]


def test_run_is_the_main_job_on_the_default_workload():
    result = invoke("run", "--json")
    assert result.exit_code == 0, result.output
    recs = records(result)
    expected = [n for n in DEFAULT_POLICIES if n in policy_names()]
    assert len(recs) == 3 * len(expected)
    assert {r["size"] for r in recs} == {"1%", "5%", "10%"}
    assert all(r["requests"] == 1_000_000 for r in recs)
    table = invoke("run", "zipf?n_requests=10000&n_pages=1000", "--policy", "lru")
    assert table.exit_code == 0 and "lru" in table.stdout


def test_trace_info_and_convert_round_trip(tmp_path):
    out = tmp_path / "small.pgt"
    conv = invoke("trace", "convert", SMALL, str(out))
    assert conv.exit_code == 0, conv.output
    info = invoke("trace", "info", str(out), "--json")
    assert info.exit_code == 0, info.output
    stats = json.loads(info.stdout)
    trace = from_spec(SMALL)
    assert stats["requests"] == trace.n_requests and stats["unique_pages"] == trace.n_pages
    text = tmp_path / "small.txt"
    assert invoke("trace", "convert", str(out), str(text), "--to", "text").exit_code == 0
    assert len(text.read_text().split()) == trace.n_requests
    table = invoke("trace", "info", str(text))
    assert table.exit_code == 0 and "unique pages" in table.stdout
    assert_one_line_error(invoke("trace", "convert", str(out), str(text), "--to", "bogus"), 2, "bogus")


def test_policies_and_workloads_are_listed():
    pol = invoke("policies")
    assert pol.exit_code == 0
    for name in policy_names():
        assert name in pol.stdout
    wl = invoke("workloads")
    assert wl.exit_code == 0
    for name in ("zipf", "uniform", "loop", "scan", "phases", "alpha"):
        assert name in wl.stdout


def test_docs_examples_run_compiled_and_iterate_clock_equals_clock():
    slru = f"{EXAMPLES / 'slru.py'}:SLRU"
    it = f"{EXAMPLES / 'clock_iterate.py'}:IterClock"
    result = invoke(
        "compare",
        SMALL,
        "--size",
        "60",
        "--size",
        "400",
        "--policy",
        f"lru,clock,{slru},{it}",
        "--json",
        "--no-opt",
    )
    assert result.exit_code == 0, result.output
    by = {(r["policy"], r["capacity"]): r for r in records(result)}
    for cap in (60, 400):
        assert by[("iter-clock", cap)]["misses"] == by[("clock", cap)]["misses"]
        assert by[("slru", cap)]["mode"] == "compiled"
        assert by[("slru", cap)]["misses"] < by[("lru", cap)]["misses"]  # Zipf: frequency pays
        assert by[("slru", cap)]["fallback_evictions"] == 0


def test_capacity_in_bytes_resolves_percent_of_footprint(tmp_path):
    import numpy as np

    from pagesim.trace import Trace, read_trace, write_trace

    ids = np.array([1, 2, 3, 1, 2, 4, 1, 5, 3, 1], dtype=np.int64)
    sizes = np.array([100, 200, 300, 100, 200, 400, 100, 500, 300, 100], dtype=np.int64)
    path = tmp_path / "sized.oracleGeneral"
    write_trace(Trace.from_ids(ids, size=sizes), path, format="oracle")
    trace = read_trace(path)
    result = invoke(
        "compare", str(path), "--capacity-unit", "bytes", "--size", "50%", "--policy", "lru", "--json"
    )
    (rec,) = records(result)
    assert rec["capacity"] == 750 and rec["capacity_unit"] == "bytes"  # half of 100+200+300+400+500
    assert rec["misses"] == simulate(trace, make_policy("lru"), 750, capacity_unit="bytes").misses
    no_sizes = invoke("compare", SMALL, "--capacity-unit", "bytes", "--size", "10", "--policy", "lru")
    assert_one_line_error(no_sizes, 2, "object sizes")
    bad_unit = invoke("compare", SMALL, "--capacity-unit", "kb", "--size", "10", "--policy", "lru")
    assert_one_line_error(bad_unit, 2, "capacity-unit")


def test_run_on_a_trace_file_points_to_compare(tmp_path: Path) -> None:
    """``run`` takes generated workloads; given a trace file it says which command reads one."""
    trace = tmp_path / "t.txt"
    trace.write_text("1\n2\n1\n")
    r = CliRunner().invoke(app, ["run", str(trace), "--policy", "lru"])
    assert r.exit_code == 2
    assert f"unknown workload '{trace}'" in r.output
    assert f"pagesim compare {trace} --size 10%" in r.output


def test_a_kernel_only_workload_in_cache_mode_says_it_runs_in_kernel_mode() -> None:
    """``run ycsb --mode cache`` names the mode the workload needs instead of calling it unknown;
    ``compare workload:get-scan`` (in either mode) points to ``pagesim run``."""
    cache_modes = "cache-mode workloads: zipf, uniform, loop, scan, phases"
    run = invoke("run", "ycsb?workload=A", "--mode", "cache", "--policy", "lru")
    line = assert_one_line_error(run, 2, "workload 'ycsb' runs in kernel mode only", cache_modes)
    assert "drop --mode cache or use --mode kernel" in line and "unknown" not in line
    for mode in ("cache", "kernel"):  # compare takes neither: no contradiction with --mode kernel
        compare = invoke("compare", "workload:get-scan", "--size", "10%", "--policy", "lru", "--mode", mode)
        line = assert_one_line_error(
            compare, 2, "'get-scan' is one of pagesim run's kernel-mode", "pagesim run get-scan"
        )
        assert "runs in kernel mode only" not in line
