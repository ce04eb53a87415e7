"""``pagesim run`` in kernel mode: a workload on a simulated Linux node, one row per policy."""

from __future__ import annotations

import json
import re
import shutil
import sys
import threading
from collections.abc import Sequence
from typing import Any

from rich.console import Console

from pagesim.analysis.compare import resolve_size, split_policy_names
from pagesim.cli._common import COMPILE_NOTICE_DELAY, load_policies, stderr_line
from pagesim.cli._params import parse_value
from pagesim.engine.kernel import KernelResult, KernelRun
from pagesim.engine.memory import DEVICES, KernelConfig
from pagesim.engine.warm import compile_ahead, pending
from pagesim.policies.base import Policy
from pagesim.policies.registry import instantiate, policy_names
from pagesim.report.kernel import (
    counter_table,
    kernel_record,
    kernel_table,
    readouts_text,
    reference_note,
    task_names,
    task_table,
    working_set_table,
)
from pagesim.trace import Trace
from pagesim.workloads.kernel import KERNEL_WORKLOADS, make_kernel_workload

#: Default policies of a kernel-mode run, those registered.
DEFAULT_KERNEL_POLICIES = ("linux-lru", "mglru", "cast", "lru")

_UNITS = {"": 4096, "b": 1, "k": 1024, "kib": 1024, "kb": 1000, "m": 1 << 20, "mib": 1 << 20, "mb": 10**6,
          "g": 1 << 30, "gib": 1 << 30, "gb": 10**9, "t": 1 << 40, "tib": 1 << 40}  # fmt: skip


def parse_memory(text: str) -> int:
    """``8GiB``, ``512MiB``, ``1g`` or a page count (``32768``) -> pages of 4 KiB.

    Raises
    ------
    ValueError
        If the text is not a positive size.
    """
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", str(text))
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError(
            f"cannot read memory size {text!r}: use pages (32768) or bytes with a unit (8GiB, 512MiB)"
        )
    unit = m.group(2).lower()
    value = float(m.group(1))
    pages = int(value) if unit == "" else int(value * _UNITS[unit] // 4096)
    if pages <= 0:
        raise ValueError(f"memory must be positive, got {text!r}")
    return pages


def split_workload(spec: str) -> tuple[str, dict[str, Any]]:
    """``stress-vm?passes=4&workers=2`` -> (``stress-vm``, {passes: 4, workers: 2}) typed by defaults."""
    name, _, query = spec.partition("?")
    name = name.removeprefix("workload:")
    if name not in KERNEL_WORKLOADS:
        raise ValueError(f"unknown kernel workload {name!r}; known: {', '.join(KERNEL_WORKLOADS)}")
    defaults = KERNEL_WORKLOADS[name].defaults
    params: dict[str, Any] = {}
    for item in filter(None, query.split("&")):
        key, eq, value = item.partition("=")
        if not eq or key not in defaults:
            raise ValueError(f"{name}: cannot use {item!r}; parameters: {', '.join(defaults)}")
        try:
            params[key] = parse_value(value, defaults[key])
        except ValueError:
            kind = "a number" if isinstance(defaults[key], (int, float)) else "text"
            if isinstance(defaults[key], int) and not isinstance(defaults[key], bool):
                kind = "an integer"
            raise ValueError(f"{name}: parameter {key} must be {kind}, got {value!r}") from None
    return name, params


def _run_with_notice(trace: Any, policy: Policy, config: KernelConfig, sample_every: int = 0) -> KernelResult:
    """Run one policy; if its start-up (compiling on first use) lasts over a second, say so."""
    label = policy.label()
    timer = threading.Timer(
        COMPILE_NOTICE_DELAY,
        stderr_line,
        args=(
            f"pagesim: notice: compiling {label} for kernel mode "
            "(first use: 1-4 minutes, CAST the longest; cached afterwards)…",
        ),
    )
    timer.start()
    try:
        run = KernelRun(trace, policy, config)
    finally:
        timer.cancel()
    if sample_every > 0:
        run.sample()
        while run.done < run.n:
            run.advance(sample_every)
            run.sample()
    else:
        run.advance()
    return run.result()


def _compile_kernel_runners(chosen: Sequence[type[Policy] | Policy], trace: Trace) -> None:
    """Compile the kernel-mode runners not cached yet in parallel, saying so (one cgroup only)."""
    if trace.cgroup is not None and trace.cgroup.any():
        return
    todo = pending([p if isinstance(p, type) else type(p) for p in chosen], "kernel")
    if len(todo) < 2:
        return
    names = ", ".join(c.policy_name() for c in todo)
    stderr_line(
        f"pagesim: notice: compiling {names} for kernel mode in parallel (first use; cached afterwards)…"
    )
    compile_ahead(todo, "kernel")


def _print_note(out: Console, results: Sequence[KernelResult]) -> None:
    """Under a table with ``opt``: it is no bound in kernel mode (:func:`reference_note`)."""
    note = reference_note(results)
    if note:
        out.print(note, markup=False, highlight=False, soft_wrap=True)


def _check_file_device(file_device: str) -> None:
    """Kernel mode reads file pages from a device: ``none`` would make every read free."""
    if file_device not in DEVICES:
        raise ValueError(f"unknown --file-device {file_device!r}; known: {', '.join(DEVICES)}")


def _kernel_policies(
    policies: Sequence[str] | None, sets: Sequence[str] | None
) -> tuple[str, list[type[Policy] | Policy]]:
    """``--policy`` as one comma-separated argument (the kernel defaults if none) and the loaded
    policies with ``--set`` applied."""
    if policies:
        policy_arg = ",".join(split_policy_names(policies) or ())
    else:
        known = set(policy_names())
        policy_arg = ",".join(p for p in DEFAULT_KERNEL_POLICIES if p in known)
    return policy_arg, load_policies([policy_arg], sets)


def kernel_run(
    workload: str,
    policies: Sequence[str] | None,
    sets: Sequence[str] | None,
    as_json: bool,
    memory: str | None,
    swap: str,
    file_device: str,
    swappiness: int,
    show_tasks: bool = False,
    schedule: str = "time",
    sample_every: int = 0,
    show_counters: bool = False,
    show_readouts: bool = False,
    zram_ratio: float | None = None,
    cpus: int = 0,
) -> None:
    """Generate ``workload``, run each policy on the node, print the table (or JSON lines)."""
    name, params = split_workload(workload)
    if memory is not None:
        params.setdefault("memory_pages", parse_memory(memory))
    trace = make_kernel_workload(name, **params)
    memory_pages = int(trace.source["memory_pages"])
    config = KernelConfig(
        memory_pages=memory_pages,
        swap=swap,
        file_device=file_device,
        swappiness=swappiness,
        schedule=schedule,
        zram_ratio=zram_ratio,
        cpus=cpus or None,
    )
    config.validated()
    _check_file_device(file_device)
    policy_arg, chosen = _kernel_policies(policies, sets)
    all_params = {**KERNEL_WORKLOADS[name].defaults, **params}
    _compile_kernel_runners(chosen, trace)
    results = []
    for pol in chosen:
        instance = pol if isinstance(pol, Policy) else instantiate(pol)
        results.append(_run_with_notice(trace, instance, config, sample_every))
    if as_json:
        for r in results:
            print(json.dumps(kernel_record(r, name, all_params)))
        return
    # the table has eleven columns: give it room even when stdout is not a terminal
    out = Console(
        file=sys.stdout, width=max(shutil.get_terminal_size().columns, 150), soft_wrap=False, emoji=False
    )
    gib = memory_pages * 4096 / (1 << 30)
    out.print(
        f"{name}: {trace.n_requests:,} accesses, {trace.n_pages:,} pages; node {memory_pages:,} pages "
        f"({gib:.3g} GiB), swap {swap}, file device {file_device}, swappiness {swappiness}"
    )
    out.print(kernel_table(results, f"{name} in kernel mode"))
    _print_note(out, results)
    if show_counters:
        out.print(counter_table(results, f"{name}: vmstat counters"))
    if name == "stream-ws":
        ws = working_set_table(results, trace.source)
        if ws is not None:
            out.print(ws)
    if show_tasks:
        for r in results:
            out.print(task_table(r, task_names(trace.source, len(r.tasks["ops"]))))
    if show_readouts:
        for r in results:
            # Readouts are the seed's text layout: lines are kept whole (a pipe is not a terminal).
            out.print(readouts_text(r), markup=False, highlight=False, soft_wrap=True)
    out.print(
        "repeat with: "
        + repeat_command(
            name, all_params, policy_arg, sets, swap, file_device, swappiness, schedule, zram_ratio, cpus
        ),
        soft_wrap=True,
    )


def kernel_compare(
    trace: Trace,
    trace_name: str,
    sizes: Sequence[str],
    policies: Sequence[str] | None,
    sets: Sequence[str] | None,
    as_json: bool,
    swap: str = "zram",
    file_device: str = "ssd",
    zram_ratio: float | None = None,
) -> None:
    """``pagesim compare TRACE --mode kernel``: each size is a node's memory; each policy runs
    the trace there in kernel mode (a trace without ``kind``/``op`` columns is file reads, each
    task its ``tag``, one if none) and one table per size is printed (or JSON lines).

    Raises
    ------
    ValueError
        For a size below 64 pages (a node needs its watermarks) or an unknown device.
    """
    _check_file_device(file_device)
    policy_arg, chosen = _kernel_policies(policies, sets)
    _compile_kernel_runners(chosen, trace)
    out = Console(
        file=sys.stdout, width=max(shutil.get_terminal_size().columns, 150), soft_wrap=False, emoji=False
    )
    for text in sizes:
        memory_pages = resolve_size(text, trace)
        if memory_pages < 64:
            raise ValueError(
                f"--size {text} is {memory_pages} pages; kernel mode needs a node of at least 64"
            )
        config = KernelConfig(
            memory_pages=memory_pages, swap=swap, file_device=file_device, zram_ratio=zram_ratio
        )
        config.validated()
        results = []
        for pol in chosen:
            instance = pol if isinstance(pol, Policy) else instantiate(pol)
            results.append(_run_with_notice(trace, instance, config))
        if as_json:
            for r in results:
                print(json.dumps(kernel_record(r, trace_name, {"memory_pages": memory_pages, "size": text})))
            continue
        share = 100.0 * memory_pages / max(trace.n_pages, 1)
        out.print(
            kernel_table(
                results, f"{trace_name}: node of {memory_pages:,} pages ({share:.3g} % of its pages)"
            )
        )
        _print_note(out, results)


def repeat_command(
    name: str,
    params: dict[str, Any],
    policy_arg: str,
    sets: Sequence[str] | None,
    swap: str,
    file_device: str,
    swappiness: int,
    schedule: str,
    zram_ratio: float | None = None,
    cpus: int = 0,
) -> str:
    """The ``pagesim run`` command line that repeats a kernel-mode run exactly."""
    query = "&".join(f"{k}={v}" for k, v in params.items() if v is not None)
    parts = [f"pagesim run '{name}?{query}'", f"--policy {policy_arg}"]
    parts += [f"--set '{item}'" for item in sets or ()]
    parts.append(f"--swap {swap} --file-device {file_device} --swappiness {swappiness}")
    if schedule != "time":
        parts.append(f"--schedule {schedule}")
    if zram_ratio is not None:
        parts.append(f"--zram-ratio {zram_ratio:g}")
    if cpus:
        parts.append(f"--cpus {cpus}")
    return " ".join(parts)


__all__ = ["DEVICES", "kernel_compare", "kernel_run", "parse_memory", "split_workload"]
