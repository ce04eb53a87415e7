"""``pagesim run`` in kernel mode: the same numbers as the library, options parsed, bad input refused."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from pagesim.cli import app
from pagesim.cli._kernel import parse_memory, split_workload
from pagesim.engine.kernel import KernelResult, _latency_summary, simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.registry import make_policy
from pagesim.report.kernel import ops_caption, reference_note, task_names
from pagesim.trace import Trace
from pagesim.workloads.kernel import make_kernel_workload

SMALL = "stress-vm?memory_pages=400&passes=2&workers=2"


def test_memory_sizes() -> None:
    assert parse_memory("8GiB") == 2 * 1024 * 1024
    assert parse_memory("128MiB") == 32768
    assert parse_memory("32768") == 32768
    with pytest.raises(ValueError, match="memory"):
        parse_memory("lots")


def test_workload_parameters_are_typed_by_their_defaults() -> None:
    assert split_workload(SMALL) == ("stress-vm", {"memory_pages": 400, "passes": 2, "workers": 2})
    with pytest.raises(ValueError, match="parameters"):
        split_workload("stress-vm?bogus=1")


def test_kernel_run_json_matches_the_library() -> None:
    result = CliRunner().invoke(app, ["run", SMALL, "--policy", "lru", "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout.strip().splitlines()[0])
    trace = make_kernel_workload("stress-vm", memory_pages=400, passes=2, workers=2)
    direct = simulate_kernel(trace, make_policy("lru"), KernelConfig(memory_pages=400))
    assert record["workload"] == "stress-vm"
    for key in ("pswpin", "pswpout", "misses", "oom_kill"):
        assert record[key] == direct.counters[key]
    assert record["config"]["memory_pages"] == 400


def test_kernel_run_table_and_repeat_line() -> None:
    result = CliRunner().invoke(app, ["run", SMALL, "--policy", "lru", "--swap", "ssd", "--tasks"])
    assert result.exit_code == 0, result.output
    assert "swap-in/op" in result.stdout and "lru: tasks" in result.stdout
    assert "repeat with: pagesim run 'stress-vm?" in result.stdout and "--swap ssd" in result.stdout
    as_json = CliRunner().invoke(app, ["run", SMALL, "--policy", "lru", "--swap", "ssd", "--json"])
    ops = json.loads(as_json.stdout.splitlines()[0])["ops"]
    row = next(line for line in result.stdout.splitlines() if line.startswith("│ lru "))
    assert f" {ops:,} " in row  # the ops each policy ran (stop=first: compare per op)


def test_the_tasks_table_names_each_task_as_the_workload_does() -> None:
    """stream-ws's tag 0 is the working set and tag 1 the stream; stress-vm's tags are its
    workers; mix's tag 0 the anon task and 1 the file reader; a cache_ext workload's its thread
    roles (get-scan: tag 0 the scan, 1-3 the gets)."""
    result = CliRunner().invoke(
        app, ["run", "stream-ws?memory_pages=800&extra_periods=2", "--policy", "lru", "--tasks"]
    )
    assert result.exit_code == 0, result.output
    rows = [line.split("│") for line in result.stdout.splitlines() if line.startswith("│ ")]
    named = {cells[1].strip(): cells[2].strip() for cells in rows if len(cells) > 3}
    assert named["0"] == "working set" and named["1"] == "stream"
    assert task_names(make_kernel_workload("stress-vm", workers=3).source, 3) == ["worker"] * 3
    assert task_names(make_kernel_workload("mix", memory_pages=400, accesses=100).source, 2) == [
        "anon",
        "file reader",
    ]
    gs = make_kernel_workload("get-scan", scale=1 / 8192, gets=200).source
    assert task_names(gs, 5) == ["scan", "get", "get", "get", ""]  # tag 4: none
    assert task_names({}, 2) == ["", ""]


def test_unknown_device_is_refused() -> None:
    result = CliRunner().invoke(app, ["run", SMALL, "--swap", "floppy"])
    assert result.exit_code == 2
    assert "unknown device 'floppy'" in result.output


def test_a_slow_start_up_prints_a_compile_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    """When a policy's start-up outlasts the notice delay, one line on stderr says it compiles."""
    import time

    import pagesim.cli._kernel as K

    class SlowRun(K.KernelRun):  # a start-up as slow as a first compile
        def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            time.sleep(0.3)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(K, "KernelRun", SlowRun)
    monkeypatch.setattr(K, "COMPILE_NOTICE_DELAY", 0.05)
    result = CliRunner().invoke(app, ["run", SMALL, "--policy", "lru"])
    assert result.exit_code == 0, result.output
    assert "pagesim: notice: compiling lru for kernel mode" in result.stderr


def test_the_repeat_line_reproduces_the_run_exactly() -> None:
    """The printed command, run again, gives the same JSON records: policies and --set included."""
    args = ["run", SMALL, "--policy", "lru,linux-lru", "--set", "linux-lru.swappiness_override=100"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    line = next(x for x in first.stdout.splitlines() if x.startswith("repeat with: "))
    assert "--policy lru,linux-lru" in line and "--set 'linux-lru.swappiness_override=100'" in line
    import shlex

    again = shlex.split(line.removeprefix("repeat with: pagesim "))
    a = CliRunner().invoke(app, [*args, "--json"])
    b = CliRunner().invoke(app, [*again, "--json"])
    assert a.exit_code == b.exit_code == 0, b.output
    ra = [json.loads(x) for x in a.stdout.splitlines()]
    rb = [json.loads(x) for x in b.stdout.splitlines()]
    keys = ("policy", "pswpin", "pswpout", "misses", "workingset_refault_anon")
    assert [[r[k] for k in keys] for r in ra] == [[r[k] for k in keys] for r in rb]


def test_bad_workloads_and_parameters_are_one_line() -> None:
    result = CliRunner().invoke(app, ["run", "nosuch"])
    assert result.exit_code == 2
    assert "zipf" in result.output and "stress-vm" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(app, ["run", "stress-vm?workers=abc"])
    assert result.exit_code == 2
    assert "parameter workers must be an integer, got 'abc'" in result.output


def test_sample_every_puts_the_time_series_in_json() -> None:
    result = CliRunner().invoke(app, ["run", SMALL, "--policy", "lru", "--sample-every", "400", "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout.splitlines()[0])
    series = record["series"]
    n = 2 * 2 * 220  # workers x passes x region (400 * 9000/8192 / 2 = 220 pages)
    run = n - record["stopped_accesses"]  # stop=first: the last point is what ran
    assert series["access"] == [float(x) for x in range(0, n, 400)] + [float(run)]
    assert len(series["free"]) == len(series["access"]) and series["pswpout"][-1] >= series["pswpout"][0]


def test_compare_in_kernel_mode_runs_a_trace_file_on_a_node_of_each_size(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``pagesim compare TRACE --mode kernel``: each --size is the node's memory, the trace is
    file reads; the JSON records are the library's results for that node."""
    path = tmp_path / "loop.txt"
    ids = [i % 300 for i in range(2000)]
    path.write_text("\n".join(map(str, ids)) + "\n")
    result = CliRunner().invoke(
        app,
        ["compare", str(path), "--mode", "kernel", "--size", "200", "--size", "50%", "-p", "lru", "--json"],
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.strip().splitlines()]
    assert [r["workload_params"]["memory_pages"] for r in records] == [200, 150]
    trace = Trace.from_ids(ids)
    for rec in records:
        direct = simulate_kernel(
            trace, make_policy("lru"), KernelConfig(memory_pages=rec["workload_params"]["memory_pages"])
        )
        assert rec["pgpgin"] == direct.counters["pgpgin"] and rec["misses"] == direct.counters["misses"]
    assert records[0]["pgpgin"] > 300  # a 300-page loop through 200 pages of memory refaults
    small = CliRunner().invoke(app, ["compare", str(path), "--mode", "kernel", "--size", "10"])
    assert small.exit_code != 0 and "at least 64" in small.output
    bad = CliRunner().invoke(app, ["compare", str(path), "--mode", "kernal", "--size", "100"])
    assert bad.exit_code != 0 and "cache, kernel" in bad.output


def test_counters_table_shows_the_raw_vmstat_counters_of_each_policy() -> None:
    """``--counters``: every counter that is not zero for some policy, with the library's value."""
    result = CliRunner().invoke(app, ["run", SMALL, "--policy", "lru", "--counters"])
    assert result.exit_code == 0, result.output
    trace = make_kernel_workload("stress-vm", memory_pages=400, passes=2, workers=2)
    direct = simulate_kernel(trace, make_policy("lru"), KernelConfig(memory_pages=400))
    for name in ("pswpin", "pswpout", "pgsteal_direct", "allocstall", "zero_fill"):
        assert direct.counters[name] > 0
        assert re.search(rf"{name}\s+\S\s+{direct.counters[name]:,}\s", result.stdout), name
    assert "latency p50 us" in result.stdout


def test_a_node_without_a_file_device_is_refused() -> None:
    """File pages are read from a device; ``none`` would make every read free."""
    with pytest.raises(ValueError, match="file_device"):
        KernelConfig(file_device="none").validated()
    KernelConfig(swap="none").validated()  # no swap is a real configuration


def test_readouts_at_the_end_in_json_and_text() -> None:
    """A run's JSON carries cgroup 0's policy's readouts at the end without ``--sample-every``
    (the same values the last series point has), and ``--readouts`` prints CAST's estimate and
    tune text; a policy without readouts says so."""
    plain = CliRunner().invoke(app, ["run", SMALL, "--policy", "cast", "--json"])
    sampled = CliRunner().invoke(app, ["run", SMALL, "--policy", "cast", "--json", "--sample-every", "400"])
    assert plain.exit_code == 0 and sampled.exit_code == 0, plain.output + sampled.output
    rec, rec_s = json.loads(plain.stdout.splitlines()[0]), json.loads(sampled.stdout.splitlines()[0])
    assert rec["series"] == {} and rec["readouts"]["split_permille"] == rec_s["series"]["split_permille"][-1]
    assert rec["describe"].startswith("estimate:") and "tune:" in rec["describe"]
    text = CliRunner().invoke(app, ["run", SMALL, "--policy", "cast,lru", "--readouts"])
    assert text.exit_code == 0, text.output
    assert "cast: readouts at the end\n  estimate:\n    share " in text.stdout
    assert "\n  tune:\n    decay_auto 1\n    anon decay " in text.stdout
    assert "lru: readouts at the end: none" in text.stdout
    # Piped output is not wrapped: every line of the readout text arrives whole, even the
    # longest (the tune lines run past 148 columns on a node with several decay sims).
    printed = [line.strip() for line in text.stdout.splitlines()]
    assert all(line in printed for line in rec["describe"].rstrip().splitlines())


def test_labels_name_the_parameters_they_change() -> None:
    """Two runs of one policy with different parameters get different, readable labels."""
    assert make_policy("cast", walker=False).label() == "cast-walker=0"
    assert make_policy("cast", decay_auto=False).label() == "cast-decay_auto=0"
    assert make_policy("cast", kcompressd=0).label() == "cast-kcompressd=0"
    assert make_policy("cast").label() == "cast"


def _row(policy: str, ops: int, pswpin: int, pgpgin: int, clairvoyant: bool) -> KernelResult:
    """A kernel-mode result with only what :func:`reference_note` reads."""
    return KernelResult(
        policy=policy, counters={"pswpin": pswpin, "pgpgin": pgpgin}, ops=ops, throughput_ops_per_s=0.0,
        latency_ns={}, longest_fault_ns=0.0, kswapd_ns=0.0, direct_reclaim_ns=0.0, node={}, tasks={},
        config={}, seconds=0.0, prepare_seconds=0.0, mode="compiled", clairvoyant=clairvoyant,
    )  # fmt: skip


def test_the_note_under_a_table_with_opt_says_it_is_no_bound() -> None:
    """opt reads in (72 + 8) / 1000 = 0.080 pages per op; cast 67 / 1000 = 0.067 is below it,
    mglru (150 + 0) / 1000 = 0.150 is not; a table without opt has no note."""
    rows = [
        _row("cast", 1000, 67, 0, False),
        _row("mglru", 1000, 150, 0, False),
        _row("opt", 1000, 72, 8, True),
    ]
    note = reference_note(rows)
    first, second = note.split("\n")
    assert first.startswith("note: opt evicts by next use in trace order") and "not a bound" in first
    assert second.endswith("read in fewer pages per op (swap-in + file in) than opt: cast")
    assert reference_note(rows[1:]).endswith("than opt: none")
    assert reference_note(rows[:2]) == ""


def test_opt_in_kernel_mode_is_flagged_in_the_table_and_in_json() -> None:
    """``pagesim run`` prints the note under the table and each JSON record says whether the
    policy was clairvoyant; ``is_bound`` is False for every kernel-mode record."""
    text = CliRunner().invoke(app, ["run", SMALL, "--policy", "lru,opt"])
    assert text.exit_code == 0, text.output
    assert "note: opt evicts by next use in trace order, which in kernel mode is not a bound" in text.stdout
    assert "read in fewer pages per op (swap-in + file in) than opt: " in text.stdout
    as_json = CliRunner().invoke(app, ["run", SMALL, "--policy", "lru,opt", "--json"])
    records = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [(r["policy"], r["clairvoyant"], r["is_bound"]) for r in records] == [
        ("lru", False, False),
        ("opt", True, False),
    ]
    plain = CliRunner().invoke(app, ["run", SMALL, "--policy", "lru"])
    assert "note:" not in plain.stdout


def test_a_table_whose_ops_differ_says_why() -> None:
    """stress-vm stops at its first task's end (stop=first in the workload's source): a caption
    says so; equal ops need none; unequal ops without stop=first come from OOM kills."""
    rows = [_row("lru", 1000, 0, 0, False), _row("mglru", 1200, 0, 0, False)]
    for r in rows:
        r.config["stop"] = "auto"
        r.params["source"] = {"stop": "first"}
    assert "stop=first" in (ops_caption(rows) or "")
    assert ops_caption(rows[:1]) is None
    for r in rows:
        r.params["source"] = {}
    assert "OOM-killed" in (ops_caption(rows) or "")


def test_p99_is_interpolated_within_its_bucket_and_capped_by_the_maximum() -> None:
    """100 latencies in bucket 3 ([4, 8) ns): p50 at rank 50 is 4 + 0.50 * 4 = 6 ns; p99 at rank
    99 would be 4 + 0.99 * 4 = 7.96 ns but the largest latency seen is 7 ns. The old figure, the
    bucket's upper bound 8 ns, was above every latency."""
    hist = np.zeros(8, dtype=np.int64)
    hist[3] = 100
    assert _latency_summary(hist, 7.0) == {"p50": 6.0, "p99": 7.0, "max": 7.0}
    hist[5] = 100  # 100 more in [16, 32): p99 at rank 198 is 16 + 0.98 * 16 = 31.68
    assert _latency_summary(hist, 40.0)["p99"] == pytest.approx(31.68)
