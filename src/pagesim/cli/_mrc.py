"""``pagesim mrc``: miss-ratio curves (exact, SHARDS, miniature simulation) with their error."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import typer

from pagesim.analysis.compare import parse_size, resolve_size, resolve_warmup
from pagesim.analysis.mrc import METHODS, MIN_SAMPLED_CAPACITY, check_mrc, mrc
from pagesim.analysis.mrc.minisim import SMALL_CHOICES
from pagesim.cli._common import (
    DelayedProgress,
    compile_notices,
    handled_errors,
    load_policies,
    load_trace,
    reader_options,
    shown_label,
    stderr_line,
    stdout,
)
from pagesim.cli._compare import FORMAT_HELP, SET_HELP, WARMUP_HELP
from pagesim.report.mrc import mrc_document, mrc_tables, plot_mrc
from pagesim.trace import Trace

SIZE_HELP = (
    "Cache size: pages (5000) or a percentage of the unique pages (10%; at most 100%), or a range "
    "FROM:TO:COUNT (1%:100%:40, 1000:15000:15), evenly spaced (log-spaced with --log). Repeatable."
)
POLICY_HELP = (
    "Policies, comma-separated or repeated: registry names (pagesim policies) or "
    "path/to/file.py:ClassName. Default: lru,opt (lru with --method shards)."
)
METHOD_HELP = (
    "exact (one pass; stack algorithms: lru, opt), shards (LRU only, sampled), minisim (any policy, "
    "sampled trace run by the engine), or auto: exact where it exists, minisim elsewhere."
)


_FLAT = "from there on a cache holds every page and the curve is flat (first accesses only)"


def _curve_size(text: str) -> None:
    """Check a size of a curve: :func:`parse_size`'s syntax, and at most 100 %.

    Raises
    ------
    ValueError
        For a malformed size, or a percentage over 100 % of the unique pages (refused, not
        clamped: a range up to 200 % would put half its points on the flat part).
    """
    value, percent = parse_size(text)
    if percent and value > 100:
        raise ValueError(
            f"size {text.strip()!r} is over 100% of the trace's unique pages: {_FLAT}; give at most 100%"
        )


def split_range(text: str) -> tuple[str, str, int] | None:
    """``"1%:100%:40"`` -> ``("1%", "100%", 40)``; None for a single size.

    Raises
    ------
    ValueError
        If malformed, or a size is over 100 % (:func:`_curve_size`).
    """
    if ":" not in text:
        _curve_size(text)
        return None
    parts = text.split(":")
    if len(parts) != 3:
        raise ValueError(f"a size range is FROM:TO:COUNT (1%:100%:40), got {text!r}")
    lo, hi, count = parts
    _curve_size(lo)
    _curve_size(hi)
    if not count.strip().isdigit() or int(count) < 1:
        raise ValueError(f"the count of a size range must be a whole number >= 1, got {text!r}")
    return lo, hi, int(count)


def expand_sizes(texts: Sequence[str], trace: Trace, log: bool) -> list[int]:
    """Capacities in pages for ``--size`` values, ranges expanded, sorted, repeats dropped.

    Raises
    ------
    ValueError
        For a malformed size or range, a range whose end is below its start, or a percentage
        over 100 % (refused, not clamped; a count of pages is a cache's size and may exceed the
        trace's unique pages, as in ``compare``).
    """
    out: set[int] = set()
    for text in texts:
        spec = split_range(text)
        if spec is None:
            out.add(resolve_size(text, trace))
            continue
        lo, hi = resolve_size(spec[0], trace), resolve_size(spec[1], trace)
        if hi < lo:
            raise ValueError(f"size range {text!r} ends below its start ({hi:,} < {lo:,} pages)")
        points = np.geomspace(lo, hi, spec[2]) if log else np.linspace(lo, hi, spec[2])
        out.update(max(1, int(round(p))) for p in points)
    return sorted(out)


def mrc_command(
    trace: str = typer.Argument(
        ...,
        metavar="TRACE",
        help="Trace file, or workload:NAME[?key=value&...] for a generated one (pagesim workloads).",
    ),
    size: list[str] = typer.Option(..., "--size", "-s", metavar="SIZE", help=SIZE_HELP),
    policy: list[str] | None = typer.Option(None, "--policy", "-p", metavar="POLICY", help=POLICY_HELP),
    method: str = typer.Option("auto", "--method", "-m", metavar="|".join(METHODS), help=METHOD_HELP),
    rate: float | None = typer.Option(
        None, "--rate", metavar="R", help="Sampling rate of shards/minisim, 0 < R <= 1 (shards: 0.01)."
    ),
    samples: int | None = typer.Option(
        None,
        "--samples",
        metavar="N",
        help="Fixed-size sampling instead of a rate: shards tracks at most N pages; minisim keeps N.",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the sampling hash."),
    small: str = typer.Option(
        "denser",
        "--small",
        metavar="|".join(SMALL_CHOICES),
        help=f"minisim, a size c whose miniature would be under {MIN_SAMPLED_CAPACITY} pages: sample it "
        f"at rate {MIN_SAMPLED_CAPACITY}/c (denser), simulate it in full, or refuse it.",
    ),
    warmup: str | None = typer.Option(None, "--warmup", metavar="WARMUP", help=WARMUP_HELP),
    check: bool = typer.Option(
        False,
        "--check",
        help="Measure the error: sampled LRU/OPT against exact at every size, the others (and exact "
        "curves) against full simulation at up to 5 sizes; prints MAE and max abs error.",
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    figure: str | None = typer.Option(
        None, "--figure", metavar="FILE", help="Save a figure (.png, .svg, .pdf)."
    ),
    log: bool = typer.Option(False, "--log", help="Log-spaced size ranges and a log size axis."),
    sets: list[str] | None = typer.Option(None, "--set", metavar="NAME.PARAM=VALUE", help=SET_HELP),
    fmt: str | None = typer.Option(None, "--format", "-f", metavar="FORMAT", help=FORMAT_HELP),
    reader: list[str] | None = typer.Option(None, "--reader", metavar="KEY=VALUE", help="As for compare."),
    capacity_unit: str = typer.Option(
        "pages", "--capacity-unit", metavar="pages", help="pages (the only unit miss-ratio curves take)."
    ),
) -> None:
    """Miss-ratio curves of policies on a trace: every size at once, with the error shown."""
    with handled_errors():
        if capacity_unit != "pages":
            raise ValueError(
                "pagesim mrc works in pages: with object sizes LRU is not a stack algorithm in pagesim "
                "(objects larger than the cache bypass it, a resident object keeps its first size); "
                "use pagesim compare --capacity-unit bytes at each size"
            )
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; known methods: {', '.join(METHODS)}")
        if rate is not None and samples is not None:
            raise ValueError("give --rate or --samples, not both")
        if small not in SMALL_CHOICES:
            raise ValueError(f"unknown --small {small!r}; known: {', '.join(SMALL_CHOICES)}")
        for text in size:
            split_range(text)  # fail on a bad size before reading a large trace
        configured = load_policies(policy or (["lru"] if method == "shards" else ["lru,opt"]), sets)
        t = load_trace(trace, fmt, reader_options(reader))
        n_warmup = resolve_warmup(warmup, t.n_requests)
        if t.n_requests == 0:
            stderr_line(f"pagesim: notice: {shown_label(trace)}: empty trace: 0 requests, no curve")
            return
        sizes = expand_sizes(size, t, log)
        with compile_notices(), DelayedProgress("miniature runs") as progress:
            curve = mrc(
                t,
                configured,
                sizes,
                method=method,
                rate=rate,
                samples=samples,
                seed=seed,
                warmup=n_warmup,
                small=small,
                progress=progress,
                parallel_compile=True,
                on_stage=progress.stage,
            )
            checks = check_mrc(t, curve, configured, warmup=n_warmup) if check else None
        _print(curve, trace, checks, as_json)
        if figure:
            title = (
                f"{shown_label(trace)}: miss-ratio curves ({t.n_requests:,} requests, {t.n_pages:,} pages)"
            )
            plot_mrc(curve, figure, title, log=log)
            if not as_json:
                stdout().print(f"figure: {figure}", highlight=False)


def _print(curve: pd.DataFrame, trace: str, checks: dict[str, dict[str, Any]] | None, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(mrc_document(curve, trace, checks), allow_nan=False) + "\n")
        return
    console = stdout()
    for table in mrc_tables(curve, shown_label(trace), checks):
        console.print(table)
    for label, run in curve.attrs.get("runs", {}).items():
        rows = curve[curve["policy"] == label]
        note = ""
        if run["method"] == "minisim":
            note = _small_sizes_note(rows, run)
        elif run["method"] == "shards":
            note = _shards_small_note(rows, run["rate"])
        if note:
            console.print(f"note {label}: {note}", highlight=False)
    if checks:
        for label, c in checks.items():
            console.print(
                f"check {label}: against {c['against']} at {len(c['sizes'])} sizes: "
                f"MAE {c['mae']:.4f}, max abs error {c['max_abs_error']:.4f}",
                highlight=False,
            )


def _small_sizes_note(rows: pd.DataFrame, run: dict[str, Any]) -> str:
    """What minisim did with the sizes whose miniature at the curve's rate is under the minimum."""
    full = rows[rows["method"] == "full"]
    denser = rows[(rows["method"] == "minisim") & (rows["rate"] > run["rate"])]
    if full.empty and denser.empty:
        return ""
    small = pd.concat([full, denser])
    parts = [
        f"sizes up to {int(small['size_pages'].max()):,} pages ({len(small)} of {len(rows)}) would make "
        f"miniatures under {run['min_sampled_capacity']} pages at rate {run['rate']:.4g}"
    ]
    if not denser.empty:
        lo, hi = float(denser["rate"].min()), float(denser["rate"].max())
        shown = f"{lo:.4g}" if lo == hi else f"{lo:.4g}-{hi:.4g}"
        parts.append(f"{len(denser)} sampled at rate {shown} ({run['min_sampled_capacity']}-page miniatures)")
    if not full.empty:
        parts.append(f"{len(full)} simulated in full (marked 'full')")
    return ": ".join(parts[:1]) + ": " + "; ".join(parts[1:])


def _named_sizes(sizes: Sequence[int], shown: int = 6) -> str:
    """``1,000, 4,500 and 8,000`` or, past ``shown`` sizes, ``1,000 ... 8,000``."""
    texts = [f"{size:,}" for size in sizes]
    if len(texts) > shown:
        return f"{texts[0]} ... {texts[-1]}"
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]


def _shards_small_note(rows: pd.DataFrame, rate: float) -> str:
    """The sizes whose expected sampled cache (size x R) is under minisim's minimum, if any.

    SHARDS estimates such a size from a handful of sampled pages: whether a few popular pages
    are in the sample decides it. The estimates are left as they are; the note says where.
    """
    sizes = [int(s) for s in rows["size_pages"] if int(s) * rate < MIN_SAMPLED_CAPACITY]
    if not sizes:
        return ""
    needed = min(1.0, MIN_SAMPLED_CAPACITY / min(sizes))
    return (
        f"{'size' if len(sizes) == 1 else 'sizes'} {_named_sizes(sizes)} pages ({len(sizes)} of {len(rows)}) "
        f"{'has an expected sampled cache' if len(sizes) == 1 else 'have expected sampled caches'} "
        f"(size x R) under {MIN_SAMPLED_CAPACITY} pages at rate {rate:.4g}, where SHARDS is least "
        f"accurate; use a higher --rate (>= {needed:.4g} for these sizes) or --samples N"
    )
