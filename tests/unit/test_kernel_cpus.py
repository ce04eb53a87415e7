"""Tasks sharing CPUs in kernel mode (``KernelConfig.cpus``; pagesim.engine.kmode.scheduler).

The hand-worked case: three tasks, each touching its own anon page ten times (a write first: a
zero-fill fault, 250 ns, plus 100 ns of CPU per access; then nine reads, 100 ns each), all ready
at model time 0. Each task's work is 250 + 10 * 100 = 1,250 ns of CPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.engine.kernel import simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.registry import make_policy
from pagesim.trace import KIND_ANON, OP_READ, OP_WRITE, Trace
from pagesim.workloads.kernel import make_kernel_workload

N_ACCESSES = 10


def _three_cpu_bound_tasks() -> Trace:
    """Rows interleaved task 0, 1, 2, 0, 1, 2...: task k touches page k only."""
    tags = np.tile(np.arange(3, dtype=np.int32), N_ACCESSES)
    ops = np.where(np.arange(tags.size) < 3, OP_WRITE, OP_READ).astype(np.uint8)
    return Trace.from_ids(
        tags.astype(np.int64), kind=np.full(tags.size, KIND_ANON, np.uint8), op=ops, tag=tags
    )


def _run(cpus: int | None):  # type: ignore[no-untyped-def]
    cfg = KernelConfig(memory_pages=1000, cpus=cpus)
    return simulate_kernel(_three_cpu_bound_tasks(), make_policy("lru"), cfg, interpreted=True)


def test_three_cpu_bound_tasks_on_one_cpu_take_three_times_as_long_as_on_three() -> None:
    """On 3 CPUs (or a CPU per task, the default) each task ends at 1,250 ns. On one CPU the
    bursts are served first come first served: 0-350 task 0, 350-700 task 1 (waiting since 0),
    700-1050 task 2, then 100 ns each in turn, so the last round ends at 3,450 + 100 (task 0),
    3,650 (task 1) and 3,750 (task 2) = 3 x 1,250: each task is always running or waiting, so its
    time is when its last burst ends."""
    for cpus in (None, 0, 3):
        r = _run(cpus)
        assert r.tasks["time_ns"] == [1250.0, 1250.0, 1250.0]
    one = _run(1)
    assert one.tasks["time_ns"] == [3550.0, 3650.0, 3750.0]
    assert max(one.tasks["time_ns"]) == 3 * max(_run(3).tasks["time_ns"])
    # the waits: every task's time less its 1,250 ns of work
    assert one.node["cpu_wait_ns"] == 3550 + 3650 + 3750 - 3 * 1250
    assert one.node["kswapd_cpu_wait_ns"] == 0


def test_a_faults_latency_counts_its_wait_for_a_cpu() -> None:
    """The zero-fill faults on one CPU: task 0's runs at once (350 ns), task 1's waits 350 ns
    for the CPU and task 2's 700 ns; on three CPUs each is 350 ns."""
    assert _run(1).tasks["longest_fault_ns"] == [350.0, 700.0, 1050.0]
    assert _run(3).tasks["longest_fault_ns"] == [350.0, 350.0, 350.0]


def test_cpus_beyond_the_runnable_actors_change_nothing() -> None:
    """stream-ws has two tasks and kswapd: on 3 or 8 CPUs nobody ever waits for one, and every
    counter and time is the run's with a CPU per task (reclaim, kswapd and OOM included)."""
    trace = make_kernel_workload("stream-ws", memory_pages=1024)
    base = simulate_kernel(trace, make_policy("linux-lru"), KernelConfig(memory_pages=1024), interpreted=True)
    assert base.counters["oom_kill"] == 1 and base.counters["pgsteal_kswapd"] > 0
    for cpus in (3, 8):
        cfg = KernelConfig(memory_pages=1024, cpus=cpus)
        r = simulate_kernel(trace, make_policy("linux-lru"), cfg, interpreted=True)
        assert r.counters == base.counters
        assert r.tasks == base.tasks
        assert r.node["cpu_wait_ns"] == 0 and r.node["kswapd_cpu_wait_ns"] == 0


def test_kswapd_is_one_more_actor_on_the_cpus() -> None:
    """With one CPU, stream-ws's two tasks and kswapd take turns: some of them wait, and kswapd's
    reclaim batches delay the tasks (their time only grows)."""
    trace = make_kernel_workload("stream-ws", memory_pages=1024)
    base = simulate_kernel(trace, make_policy("linux-lru"), KernelConfig(memory_pages=1024), interpreted=True)
    one = simulate_kernel(
        trace, make_policy("linux-lru"), KernelConfig(memory_pages=1024, cpus=1), interpreted=True
    )
    assert one.node["cpu_wait_ns"] > 0 and one.node["kswapd_cpu_wait_ns"] > 0
    assert sum(one.tasks["time_ns"]) > sum(base.tasks["time_ns"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"cpus": -1}, "cpus must be"),
        ({"cpus": 2.5}, "cpus must be"),
        ({"cpus": 2, "schedule": "trace"}, "time"),
    ],
)
def test_bad_cpus_are_refused(kwargs: dict, match: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=match):
        KernelConfig(**kwargs).validated()


def test_stream_ws_reports_the_working_sets_longest_fault_beside_the_seeds() -> None:
    """The table's row for a policy is the working set's (tag 0's) faults, its longest fault as
    ``tasks['longest_fault_ns']`` gives it (never shorter than its longest swap-in wait, which
    it contains) and the seed's two runs for that policy."""
    from rich.console import Console

    from pagesim.report.kernel import SEED_STREAM_WS, working_set_table

    trace = make_kernel_workload("stream-ws", memory_pages=1024)
    cfg = KernelConfig(memory_pages=1024, cpus=8)
    r = simulate_kernel(trace, make_policy("mglru"), cfg, interpreted=True)
    t = r.tasks
    assert t["longest_fault_ns"][0] >= t["longest_wait_ns"][0]
    table = working_set_table([r], trace.source)
    assert table is not None
    console = Console(width=200, record=True)
    console.print(table)
    text = console.export_text()
    assert "node of 0.00391 GiB" in text
    row = next(line for line in text.splitlines() if line.strip("│ ").startswith("mglru"))
    cells = [c.strip() for c in row.strip("│").split("│")]
    assert cells[1] == f"{t['waits'][0]:,}"
    assert cells[2] == f"{t['longest_fault_ns'][0] / 1e6:.3g}"
    assert cells[4] == "77,486 / 17" and cells[5] == "627 / 6.3"
    assert SEED_STREAM_WS["cast"][1] == (4.8, 5.5)
    assert working_set_table([r], {"groups": {"stream": [1]}}) is None


def test_the_repeat_line_carries_cpus() -> None:
    from pagesim.cli._kernel import repeat_command

    line = repeat_command("stream-ws", {}, "cast", None, "zram", "ssd", 60, "time", cpus=8)
    assert line.endswith("--cpus 8")
    assert "--cpus" not in repeat_command("stream-ws", {}, "cast", None, "zram", "ssd", 60, "time")
