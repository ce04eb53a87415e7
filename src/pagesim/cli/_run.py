"""``pagesim run``: the main job on a built-in default workload.

Modes: ``cache`` (demand paging, the default policies at 1%, 5% and 10% of the workload's
pages). Later modes (kernel) add an entry to :data:`MODES`.
"""

from __future__ import annotations

from collections.abc import Callable

import typer

from pagesim.cli._common import handled_errors, load_trace, run_comparison

DEFAULT_WORKLOAD = "zipf"
DEFAULT_SIZES = ("1%", "5%", "10%")


def _cache_mode(
    workload: str, sizes: list[str], policies: list[str] | None, warmup: str | None, as_json: bool
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
    )


#: mode name -> function(workload, sizes, policies, warmup, as_json).
MODES: dict[str, Callable[..., None]] = {"cache": _cache_mode}


def run_command(
    workload: str = typer.Argument(
        DEFAULT_WORKLOAD,
        help="A workload (pagesim workloads), optionally with parameters: zipf?alpha=1.0&n_pages=50000.",
    ),
    size: list[str] | None = typer.Option(
        None, "--size", "-s", help="Cache sizes (pages or % of the workload's pages). Default: 1%, 5%, 10%."
    ),
    policy: list[str] | None = typer.Option(
        None, "--policy", "-p", help="Policies, comma-separated. Default: lru,fifo,clock,mru,lfu,opt."
    ),
    warmup: str | None = typer.Option(None, "--warmup", help="Warm-up accesses: a count or a fraction."),
    mode: str = typer.Option("cache", "--mode", help=f"Simulation mode: {', '.join(MODES)}."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per (policy, size) per line."),
) -> None:
    """Run the default comparison on a generated workload (zipf: 1M accesses, 100k pages, alpha 0.9)."""
    with handled_errors():
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; known modes: {', '.join(MODES)}")
        MODES[mode](workload, list(size or DEFAULT_SIZES), policy, warmup, as_json)
