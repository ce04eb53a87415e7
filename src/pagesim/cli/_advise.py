"""``pagesim advise``: which policy to run on a trace at a cache size, from miniature simulations."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import typer
from rich.table import Table

from pagesim.analysis.advise import ALPHA, DEFAULT_SEEDS, TOLERANCE, Advice, advise
from pagesim.analysis.compare import parse_size, resolve_size, resolve_warmup, split_policy_names
from pagesim.cli._common import (
    DelayedProgress,
    compile_notices,
    handled_errors,
    load_policies,
    load_trace,
    reader_options,
    shown_label,
    stdout,
)
from pagesim.cli._compare import FORMAT_HELP, SET_HELP, WARMUP_HELP
from pagesim.policies.base import Policy
from pagesim.policies.registry import instantiate

POLICIES_HELP = (
    "Candidates: all (every built-in policy but the clairvoyant opt and opt-bypass and the kernel "
    "reclaim models linux-lru, mglru, cast), or names comma-separated or repeated (pagesim "
    "policies; path/to/file.py:ClassName). --policies is the same option."
)


def advise_command(
    trace: str = typer.Argument(
        ...,
        metavar="TRACE",
        help="Trace file, or workload:NAME[?key=value&...] for a generated one (pagesim workloads).",
    ),
    size: str = typer.Option(
        ...,
        "--size",
        "-s",
        metavar="SIZE",
        help="Cache size: pages (5000) or a share of the unique pages (10%).",
    ),
    policies: list[str] | None = typer.Option(
        None, "--policy", "--policies", "-p", metavar="all|LIST", help=POLICIES_HELP
    ),
    params: bool = typer.Option(
        False, "--params", help="Also choose parameters, from a small grid per policy (docs/auto.md)."
    ),
    seeds: int = typer.Option(DEFAULT_SEEDS, "--seeds", metavar="K", help="Hash seeds of the sample (>= 2)."),
    rate: float | None = typer.Option(None, "--rate", metavar="R", help="Sampling rate, 0 < R <= 1."),
    samples: int | None = typer.Option(
        None, "--samples", metavar="N", help="Sample N pages instead of a rate (small traces)."
    ),
    warmup: str | None = typer.Option(None, "--warmup", metavar="WARMUP", help=WARMUP_HELP),
    check: bool = typer.Option(
        False, "--check", help="Also simulate every candidate in full: true miss ratios, measured time."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    sets: list[str] | None = typer.Option(None, "--set", metavar="NAME.PARAM=VALUE", help=SET_HELP),
    fmt: str | None = typer.Option(None, "--format", "-f", metavar="FORMAT", help=FORMAT_HELP),
    reader: list[str] | None = typer.Option(None, "--reader", metavar="KEY=VALUE", help="As for compare."),
) -> None:
    """Advise a policy for a trace at a cache size, with its margin and confidence."""
    with handled_errors():
        parse_size(size)  # fail on a bad size before reading a large trace
        if seeds < 2:
            raise ValueError(f"--seeds must be >= 2 (the confidence compares samples), got {seeds}")
        if rate is not None and samples is not None:
            raise ValueError("give --rate or --samples, not both")
        chosen = _candidates(policies, sets)
        t = load_trace(trace, fmt, reader_options(reader))
        n_warmup = resolve_warmup(warmup, t.n_requests)
        capacity = resolve_size(size, t)
        with compile_notices(), DelayedProgress("miniature runs") as progress:
            advice = advise(
                t,
                capacity,
                chosen,
                params=params,
                seeds=seeds,
                rate=rate,
                samples=samples,
                warmup=n_warmup,
                check=check,
                progress=progress,
                parallel_compile=True,
                on_stage=progress.stage,
            )
        if as_json:
            sys.stdout.write(json.dumps(_clean(advice.to_dict()), allow_nan=False, default=str) + "\n")
            return
        _print(advice, shown_label(trace))


def _candidates(policies: list[str] | None, sets: list[str] | None) -> str | list[Policy]:
    wanted = split_policy_names(policies)
    if wanted is None or [w.lower() for w in wanted] == ["all"]:
        if sets:
            raise ValueError("--set needs --policy naming the policies it configures")
        return "all"
    if any(w.lower() == "all" for w in wanted):
        raise ValueError("'all' stands alone: give --policy all, or a list of policies")
    return [p if isinstance(p, Policy) else instantiate(p) for p in load_policies(wanted, sets)]


def _clean(value: Any) -> Any:
    """NaN -> None, recursively (JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _print(a: Advice, label: str) -> None:
    console = stdout()
    how = (
        f"miniature simulation, {len(a.seeds)} seeds at rate {a.rate:.4g}"
        if a.method == "minisim"
        else "simulated in full"
    )
    table = Table(title=f"{label}: advice at {a.size_pages:,} pages ({how})")
    table.add_column("policy")
    table.add_column("miss ratio", justify="right")
    if a.method == "minisim":
        table.add_column("spread (sd)", justify="right")
        table.add_column("p vs best", justify="right")
    table.add_column("tied", justify="center")
    checked = "true_miss_ratio" in a.table
    if checked:
        table.add_column("true miss ratio", justify="right")
    for _, row in a.table.iterrows():
        cells = [str(row["policy"]), f"{row['miss_ratio']:.4f}"]
        if a.method == "minisim":
            p = row["p_value"]
            cells += [f"{row['std']:.4f}", "-" if math.isnan(p) else f"{p:.3g}"]
        cells.append("yes" if row["tied"] else "")
        if checked:
            cells.append(f"{row['true_miss_ratio']:.4f}")
        table.add_row(*cells)
    console.print(table)
    for line in _summary(a):
        console.print(line, highlight=False)


def _summary(a: Advice) -> list[str]:
    lines = []
    if a.note:
        lines.append(f"note: {a.note}")
    for name, why in a.skipped.items():
        lines.append(f"skipped {name}: refused in cache mode ({why})")
    if a.runner_up is None:
        lines.append(f"advice: {a.best} (the only candidate)")
    elif a.clear:
        evidence = (
            f"won on {round(a.win_share * len(a.seeds))} of {len(a.seeds)} seeds, paired t-test "
            f"p = {a.p_value:.3g} < {ALPHA}"
            if a.method == "minisim"
            else "exact"
        )
        lines.append(f"advice: {a.best}, margin {a.margin:.4f} over {a.runner_up} ({evidence})")
    else:
        reason = (
            f"the margin {a.margin:.4f} over {a.runner_up} is inside the noise (p >= {ALPHA})"
            if a.method == "minisim"
            else "equal miss ratios"
        )
        lines.append(f"no clear winner: tied {', '.join(a.tied)}; {reason}; lowest: {a.best}")
    if a.method == "full":
        full = f"{a.full_seconds_estimate:.2f} s measured (the advice's own runs)"
    elif a.full_seconds is None:
        full = f"~{a.full_seconds_estimate:.2f} s estimated"
    else:
        full = f"{a.full_seconds:.2f} s measured"
    n = len(a.table)
    lines.append(f"time: {a.seconds:.2f} s; simulating the {n} candidates in full: {full}")
    if a.full_seconds is not None and a.true_best is not None and a.gap is not None:
        verdict = "within" if a.within else "NOT within"
        lines.append(
            f"check: true best {a.true_best}; advised {a.best} is {a.gap:.4f} above it "
            f"({verdict} {TOLERANCE})"
        )
    return lines
