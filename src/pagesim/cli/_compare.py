"""``pagesim compare``: every policy at every size on one trace."""

from __future__ import annotations

import typer

from pagesim.analysis.compare import parse_size
from pagesim.cli._common import handled_errors, load_trace, run_comparison

SIZE_HELP = "Cache size: pages (5000), or a percentage of unique pages (10%); repeatable."
POLICY_HELP = (
    "Policies, comma-separated or repeated: registry names (pagesim policies) or "
    "path/to/file.py:ClassName. Default: lru,fifo,clock,mru,lfu,opt."
)


def compare_command(
    trace: str = typer.Argument(
        ..., help="Trace file, or workload:NAME[?key=value&...] for a generated one (pagesim workloads)."
    ),
    size: list[str] = typer.Option(..., "--size", "-s", help=SIZE_HELP),
    policy: list[str] | None = typer.Option(None, "--policy", "-p", help=POLICY_HELP),
    fmt: str | None = typer.Option(None, "--format", "-f", help="Trace format; detected by default."),
    warmup: str | None = typer.Option(
        None, "--warmup", help="Accesses that fill the cache uncounted: a count, or a fraction like 0.1."
    ),
    capacity_unit: str = typer.Option(
        "pages", "--capacity-unit", help="pages, or bytes (traces with object sizes; --size then in bytes)."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per (policy, size) per line."),
    opt: bool = typer.Option(True, "--opt/--no-opt", help="Run Belady's OPT for the 'over OPT' column."),
    interpreted: bool = typer.Option(
        False, "--interpreted", help="Run policies as plain Python (slow; debugging)."
    ),
) -> None:
    """Compare policies on a trace at one or more cache sizes."""
    with handled_errors():
        for text in size:
            parse_size(text)  # fail on a bad size before reading a large trace
        t = load_trace(trace, fmt)
        run_comparison(
            t,
            trace,
            sizes=size,
            policies=policy,
            warmup=warmup,
            capacity_unit=capacity_unit,
            as_json=as_json,
            opt=opt,
            interpreted=interpreted,
        )
