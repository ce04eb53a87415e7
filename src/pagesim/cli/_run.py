"""``pagesim run``: the main job on a built-in default workload.

Modes: ``cache`` (demand paging, the default policies at 1%, 5% and 10% of the workload's
pages) and ``kernel`` (a simulated Linux node: ``stress-vm``, ``stream-ws``, ``mix`` and the
cache_ext workloads), chosen by the workload or by ``--mode``; a kernel-mode workload is refused
in cache mode with a message that says so.
"""

from __future__ import annotations

from collections.abc import Callable

import typer

from pagesim.analysis.compare import DEFAULT_SIZES
from pagesim.cli._common import handled_errors, load_trace, refuse_kernel_only_workload, run_comparison
from pagesim.cli._compare import POLICY_HELP, SET_HELP, WARMUP_HELP
from pagesim.cli._kernel import kernel_run
from pagesim.engine.memory import DEVICES
from pagesim.workloads import WORKLOADS
from pagesim.workloads.kernel import KERNEL_WORKLOADS

DEFAULT_WORKLOAD = "zipf"


def _cache_mode(
    workload: str,
    sizes: list[str],
    policies: list[str] | None,
    warmup: str | None,
    as_json: bool,
    sets: list[str] | None = None,
) -> None:
    spec = workload if workload.startswith("workload:") else f"workload:{workload}"
    trace = load_trace(spec)
    run_comparison(
        trace,
        spec,
        sizes=sizes,
        policies=policies,
        warmup=warmup,
        capacity_unit="pages",
        as_json=as_json,
        sets=sets,
    )


#: mode name -> function(workload, sizes, policies, warmup, as_json, sets).
MODES: dict[str, Callable[..., None]] = {"cache": _cache_mode, "kernel": lambda *a: None}


def _is_kernel_workload(workload: str) -> bool:
    return workload.removeprefix("workload:").partition("?")[0] in KERNEL_WORKLOADS


def run_command(
    workload: str = typer.Argument(
        DEFAULT_WORKLOAD,
        metavar="WORKLOAD",
        help="A workload (pagesim workloads), optionally with parameters: zipf?alpha=1.0&n_pages=50000.",
    ),
    size: list[str] | None = typer.Option(
        None,
        "--size",
        "-s",
        metavar="SIZE",
        help="Cache sizes: pages, or % of the pages the workload actually touches (zipf's default "
        f"touches 91,424 of its 100,000). Default: {', '.join(DEFAULT_SIZES)}.",
    ),
    policy: list[str] | None = typer.Option(None, "--policy", "-p", metavar="POLICY", help=POLICY_HELP),
    sets: list[str] | None = typer.Option(None, "--set", metavar="NAME.PARAM=VALUE", help=SET_HELP),
    warmup: str | None = typer.Option(None, "--warmup", metavar="WARMUP", help=WARMUP_HELP),
    mode: str = typer.Option(
        "auto",
        "--mode",
        metavar="MODE",
        help=f"Simulation mode: {', '.join(MODES)}; by default kernel for "
        f"{', '.join(KERNEL_WORKLOADS)}, else cache.",
    ),
    memory: str | None = typer.Option(
        None, "--memory", metavar="SIZE", help="Kernel mode: the node's memory (8GiB, 512MiB or pages)."
    ),
    swap: str = typer.Option(
        "zram", "--swap", metavar="DEVICE", help=f"Kernel mode: swap device: {', '.join(DEVICES)}, none."
    ),
    file_device: str = typer.Option(
        "ssd",
        "--file-device",
        metavar="DEVICE",
        help=f"Kernel mode: device of file pages: {', '.join(DEVICES)}.",
    ),
    swappiness: int = typer.Option(60, "--swappiness", metavar="0-200", help="Kernel mode: vm.swappiness."),
    zram_ratio: float | None = typer.Option(
        None,
        "--zram-ratio",
        metavar="R",
        help="Kernel mode: zram compresses anon pages R:1 (>= 1; default 3), those whose workload "
        "states no ratio of its own (mix?anon_ratio=...).",
    ),
    cpus: int = typer.Option(
        0,
        "--cpus",
        metavar="N",
        help="Kernel mode: the node's CPUs, shared by the tasks and kswapd (first come first served "
        "per CPU burst); 0 (default): a CPU per task.",
    ),
    tasks: bool = typer.Option(
        False, "--tasks", help="Kernel mode: a table per policy of each task's waits."
    ),
    counters: bool = typer.Option(
        False, "--counters", help="Kernel mode: every non-zero vmstat counter and p50/p99/max latency."
    ),
    readouts: bool = typer.Option(
        False,
        "--readouts",
        help="Kernel mode: each policy's own readouts at the end (CAST: the seed's estimate and tune).",
    ),
    schedule: str = typer.Option(
        "time",
        "--schedule",
        metavar="time|trace",
        help="Kernel mode: tasks and reclaim in model-time order (time), or in trace order with "
        "instantaneous reclaim (trace).",
    ),
    sample_every: int = typer.Option(
        0,
        "--sample-every",
        metavar="N",
        help='Kernel mode: a time-series point every N accesses (in --json\'s "series").',
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per (policy, size) per line."),
) -> None:
    """Run the default comparison on a generated workload (zipf: 1M accesses, 100k pages, alpha 0.9).

    Sizes in % are of the pages the workload actually touches (91,424 for the default zipf).
    """
    with handled_errors():
        if sample_every < 0:
            raise ValueError(
                f"--sample-every must be 0 (off) or a positive number of accesses, got {sample_every}"
            )
        if mode not in (*MODES, "auto"):
            raise ValueError(f"unknown mode {mode!r}; known modes: {', '.join(MODES)}")
        if mode == "kernel" or (mode == "auto" and _is_kernel_workload(workload)):
            kernel_run(
                workload, policy, sets, as_json, memory, swap, file_device, swappiness, tasks, schedule,
                sample_every, counters, readouts, zram_ratio, cpus,
            )  # fmt: skip
            return
        name = workload.removeprefix("workload:").partition("?")[0]
        refuse_kernel_only_workload(name, "drop --mode cache or use --mode kernel")
        if name not in WORKLOADS and name not in KERNEL_WORKLOADS:
            raise ValueError(
                f"unknown workload {name!r}; known: {', '.join(WORKLOADS)} (cache mode), "
                f"{', '.join(KERNEL_WORKLOADS)} (kernel mode); for a trace file: "
                f"pagesim compare {workload} --size 10%"
            )
        MODES["cache"](workload, list(size or DEFAULT_SIZES), policy, warmup, as_json, sets)
