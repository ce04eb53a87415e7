"""``pagesim run`` in kernel mode: the same numbers as the library, options parsed, bad input refused."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pagesim.cli import app
from pagesim.cli._kernel import parse_memory, split_workload
from pagesim.engine.kernel import simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.registry import make_policy
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
