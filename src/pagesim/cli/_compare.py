"""``pagesim compare``: every policy at every size on one trace."""

from __future__ import annotations

import typer

from pagesim.analysis.compare import DEFAULT_POLICIES, DEFAULT_SIZES, parse_size
from pagesim.cli._common import (
    FORMAT_NAMES,
    READER_HELP,
    handled_errors,
    load_trace,
    reader_options,
    run_comparison,
)
from pagesim.cli._kernel import DEFAULT_KERNEL_POLICIES, kernel_compare
from pagesim.engine.loop import WRITES_RULES
from pagesim.trace import Trace
from pagesim.trace.stream import TraceStream

SIZE_HELP = (
    "Cache size: pages (5000), or a percentage of the unique pages the trace touches (10%); "
    "with --capacity-unit bytes, bytes or a percentage of the footprint. Repeatable. "
    f"Default: {', '.join(DEFAULT_SIZES)}."
)
POLICY_HELP = (
    "Policies, comma-separated or repeated: registry names (pagesim policies) or "
    f"path/to/file.py:ClassName. Default: {', '.join(DEFAULT_POLICIES)} "
    f"(kernel mode: {', '.join(DEFAULT_KERNEL_POLICIES)})."
)
WARMUP_HELP = (
    "Accesses that fill the cache uncounted: a count (5000), or a share of the trace written "
    "with a decimal point or % (0.1, 10%)."
)
SET_HELP = "A policy parameter, NAME.PARAM=VALUE (slru.protected=0.5); repeatable."
FORMAT_HELP = f"Trace format, one of: {FORMAT_NAMES}. Detected from name and content by default."
WRITES_HELP = (
    "Cache mode, traces with an op column: a write is an access like a read (access), an insert "
    "that is no request (insert-only), or skipped (ignore). Deletes always free the page."
)
CHECKED_HELP = (
    "Cache mode: verify after every hook that the policy left residency and owners alone, and "
    "name the hook that did not (slow: for debugging a policy)."
)
#: Seconds an access may take before ``pagesim compare`` gives up on that policy.
DEFAULT_POLICY_TIMEOUT = 60.0
TIMEOUT_HELP = (
    "Cache mode: a run in which no access completes for this many seconds is stopped with the "
    "hook named (user policies), the others go on. An interpreted hook is stopped; compiled "
    "code cannot be interrupted and is left running until pagesim exits."
)


def compare_command(
    trace: str = typer.Argument(
        ...,
        metavar="TRACE",
        help="Trace file, or workload:NAME[?key=value&...] for a generated one (pagesim workloads).",
    ),
    size: list[str] | None = typer.Option(None, "--size", "-s", metavar="SIZE", help=SIZE_HELP),
    policy: list[str] | None = typer.Option(None, "--policy", "-p", metavar="POLICY", help=POLICY_HELP),
    sets: list[str] | None = typer.Option(None, "--set", metavar="NAME.PARAM=VALUE", help=SET_HELP),
    fmt: str | None = typer.Option(None, "--format", "-f", metavar="FORMAT", help=FORMAT_HELP),
    reader: list[str] | None = typer.Option(None, "--reader", metavar="KEY=VALUE", help=READER_HELP),
    warmup: str | None = typer.Option(None, "--warmup", metavar="WARMUP", help=WARMUP_HELP),
    capacity_unit: str = typer.Option(
        "pages",
        "--capacity-unit",
        metavar="pages|bytes",
        help="pages, or bytes (traces with object sizes; --size then in bytes).",
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per (policy, size) per line."),
    opt: bool = typer.Option(
        True,
        "--opt/--no-opt",
        show_default=False,
        help="Run Belady's OPT for the 'over OPT' column (the default), or not.",
    ),
    interpreted: bool = typer.Option(
        False, "--interpreted", help="Run policies as plain Python (slow; debugging)."
    ),
    mode: str = typer.Option(
        "cache",
        "--mode",
        metavar="cache|kernel",
        help="cache: one eviction per miss (the default); kernel: each size is a node's memory, "
        "with watermarks, kswapd, readahead and the time model (pagesim run --help; default "
        f"policies {', '.join(DEFAULT_KERNEL_POLICIES)}). A trace without kind/op columns is file reads.",
    ),
    swap: str = typer.Option("zram", "--swap", metavar="DEVICE", help="Kernel mode: swap device."),
    file_device: str = typer.Option(
        "ssd", "--file-device", metavar="DEVICE", help="Kernel mode: file device."
    ),
    zram_ratio: float | None = typer.Option(
        None, "--zram-ratio", metavar="R", help="Kernel mode: zram compresses anon pages R:1 (default 3)."
    ),
    writes: str = typer.Option("access", "--writes", metavar="|".join(WRITES_RULES), help=WRITES_HELP),
    checked: bool = typer.Option(False, "--checked", help=CHECKED_HELP),
    policy_timeout: float = typer.Option(
        DEFAULT_POLICY_TIMEOUT, "--policy-timeout", metavar="SECONDS", help=TIMEOUT_HELP
    ),
) -> None:
    """Compare policies on a trace at one or more cache sizes."""
    with handled_errors():
        if mode not in ("cache", "kernel"):
            raise ValueError(f"unknown mode {mode!r}; known modes: cache, kernel")
        sizes = list(size or DEFAULT_SIZES)
        for text in sizes:
            parse_size(text)  # fail on a bad size before reading a large trace
        t = load_trace(trace, fmt, reader_options(reader), stream=mode == "cache")
        if isinstance(t, TraceStream):
            with t:  # its next-access file, if OPT made one, is deleted at the end
                _cache_compare(t, trace, sizes, policy, sets, warmup, capacity_unit, as_json, opt,
                               interpreted, writes, checked, policy_timeout)  # fmt: skip
            return
        if mode == "kernel":
            kernel_compare(t, trace, sizes, policy, sets, as_json, swap, file_device, zram_ratio)
            return
        _cache_compare(t, trace, sizes, policy, sets, warmup, capacity_unit, as_json, opt,
                       interpreted, writes, checked, policy_timeout)  # fmt: skip


def _cache_compare(
    t: Trace | TraceStream, label: str, sizes: list[str], policy: list[str] | None,
    sets: list[str] | None, warmup: str | None, capacity_unit: str, as_json: bool, opt: bool,
    interpreted: bool, writes: str, checked: bool, policy_timeout: float,
) -> None:  # fmt: skip
    run_comparison(
        t,
        label,
        sizes=sizes,
        policies=policy,
        warmup=warmup,
        capacity_unit=capacity_unit,
        as_json=as_json,
        opt=opt,
        interpreted=interpreted,
        sets=sets,
        writes=writes,
        checked=checked,
        policy_timeout=policy_timeout,
    )
