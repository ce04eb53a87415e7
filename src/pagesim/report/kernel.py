"""Tables of kernel-mode results: vmstat counters per operation, throughput, latency."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table

from pagesim.core.state import STAT_NAMES
from pagesim.engine.counters import KERNEL_COUNTERS
from pagesim.engine.kernel import KernelResult


def _us(ns: float) -> str:
    return f"{ns / 1e3:,.1f}"


def kernel_table(results: Sequence[KernelResult], title: str) -> Table:
    """One row per policy: swap traffic per operation, refaults, reclaim, OOM, time model.

    Columns are the seeds' measures (pswpin and pswpout per operation, throughput, the longest
    fault), file pages read per operation (pgpgin: demand and readahead) and the vmstat counters
    that explain them. ``ops`` is the operations each policy ran: under ``stop=first`` (stress-vm)
    every policy runs its own number, so the raw counts (refaults, reclaim) compare only per op;
    the table's caption says so when the rows' ops differ. ``p99 access us`` is over every
    access (CPU and waits, from a log2 histogram, interpolated); ``max fault wait us`` is the
    longest wait of one fault alone, so the first can exceed the second.
    """
    table = Table(title=title, title_justify="left")
    columns = [
        ("policy", "left"),
        ("ops", "right"),
        ("swap-in/op", "right"),
        ("swap-out/op", "right"),
        ("file in/op", "right"),
        ("refaults", "right"),
        ("reclaim k/d", "right"),
        ("oom", "right"),
        ("ops/s", "right"),
        ("p99 access us", "right"),
        ("max fault wait us", "right"),
        ("Macc/s", "right"),
    ]
    for name, justify in columns:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for r in results:
        c = r.counters
        speed = (c["requests"] + c["warmup_accesses"]) / r.seconds / 1e6 if r.seconds > 0 else 0.0
        table.add_row(
            r.policy,
            f"{r.ops:,}",
            f"{r.per_op('pswpin'):.3f}",
            f"{r.per_op('pswpout'):.3f}",
            f"{r.per_op('pgpgin'):.3f}",
            f"{c['workingset_refault_anon'] + c['workingset_refault_file']:,}",
            f"{c['pgsteal_kswapd']:,}/{c['pgsteal_direct']:,}",
            str(c["oom_kill"]),
            f"{r.throughput_ops_per_s:,.0f}",
            f"{r.latency_ns['p99'] / 1e3:,.1f}",
            _us(r.longest_fault_ns),
            f"{speed:.1f}",
        )
    table.caption = ops_caption(results)
    table.caption_justify = "left"
    return table


def ops_caption(results: Sequence[KernelResult]) -> str | None:
    """Why the rows ran different numbers of operations, or None when they ran the same."""
    if len({r.ops for r in results}) <= 1:
        return None
    stops = {str(r.config.get("stop")) for r in results} | {
        str(r.params.get("source", {}).get("stop")) for r in results if r.config.get("stop") == "auto"
    }
    if "first" in stops:
        return (
            "ops differ: the run ends when its first task has done all its accesses (stop=first, "
            "a benchmark run for a fixed time), the others stopping where they are; compare per op"
        )
    return "ops differ: tasks were OOM-killed (oom column) before they finished; compare per op"


def reference_note(results: Sequence[KernelResult]) -> str:
    """The two lines to print under a kernel-mode table that has a clairvoyant policy (``opt``).

    In kernel mode ``opt`` evicts the page whose next use in trace order is furthest, but reclaim
    takes batches of 32, readahead brings pages nobody asked for and tasks interleave by their
    clocks: it is a reference, not a limit, and another policy can read in fewer pages.

    Parameters
    ----------
    results : sequence of KernelResult
        The table's rows.

    Returns
    -------
    str
        "" when no row is clairvoyant; else two lines: what the clairvoyant rows evict by and
        that it is no bound here, then the rows that read in fewer pages per operation
        (swap-in/op plus file in/op) than the best clairvoyant row ("none" if none).
    """
    refs = [r for r in results if r.clairvoyant]
    if not refs:
        return ""

    def read_in(r: KernelResult) -> float:
        return r.per_op("pswpin") + r.per_op("pgpgin")

    best = min(refs, key=read_in)
    below = [r.policy for r in results if not r.clairvoyant and read_in(r) < read_in(best)]
    names = ", ".join(r.policy for r in refs)
    fewer = ", ".join(below) or "none"
    return (
        f"note: {names} evicts by next use in trace order, which in kernel mode is not a bound: tasks "
        "run by their clocks, reclaim takes 32 pages at a time and readahead reads pages unasked, "
        "so a policy can read in fewer pages (docs/kernel-mode.md)\n"
        f"      read in fewer pages per op (swap-in + file in) than {best.policy}: {fewer}"
    )


def counter_table(results: Sequence[KernelResult], title: str) -> Table:
    """Every /proc/vmstat-named counter that is not zero for some policy (the engine's and those
    the policies report: pgactivate, pgrefill...), one column per policy, then the latency
    percentiles (us): the raw figures behind :func:`kernel_table`."""
    table = Table(title=title, title_justify="left")
    table.add_column("counter", justify="left")
    for r in results:
        table.add_column(r.policy, justify="right")
    for name in (*KERNEL_COUNTERS, *STAT_NAMES, "rmap_walks", "ptes_walked"):
        values = [r.counters.get(name, 0) for r in results]
        if any(values):
            table.add_row(name, *(f"{v:,}" for v in values))
    for q in ("p50", "p99", "max"):
        table.add_row(f"latency {q} us", *(_us(r.latency_ns[q]) for r in results))
    return table


def task_names(source: Mapping[str, Any], n_tags: int) -> list[str]:
    """Each task's name as the workload gives it: its group in ``source["groups"]``.

    Parameters
    ----------
    source : mapping
        A trace's ``source``; ``groups`` maps a role to its tags (``{"working set": [0],
        "stream": [1]}``, ``{"scan": [0], "get": [1, 2, 3]}``).
    n_tags : int
        Tasks to name (tags ``0 .. n_tags - 1``).

    Returns
    -------
    list of str
        ``n_tags`` names; ``""`` for a tag no group names (or every tag, without ``groups``).
    """
    names = [""] * n_tags
    for group, tags in dict(source.get("groups") or {}).items():
        for tag in tags:
            if 0 <= int(tag) < n_tags:
                names[int(tag)] = str(group)
    return names


def task_table(result: KernelResult, names: Sequence[str] = ()) -> Table:
    """Per task (tag): its name (``names``, see :func:`task_names`), operations, waits for I/O,
    the longest such wait, the longest fault of any kind (its whole latency: CPU, waits for a CPU,
    reclaim, device; ``KernelResult.tasks``), killed or not."""
    table = Table(title=f"{result.policy}: tasks", title_justify="left")
    table.add_column("task", justify="right")
    table.add_column("name", justify="left")
    for name in ("ops", "waits", "longest wait us", "longest fault us", "killed"):
        table.add_column(name, justify="right")
    t = result.tasks
    for tag, ops in enumerate(t["ops"]):
        table.add_row(
            str(tag),
            names[tag] if tag < len(names) else "",
            f"{ops:,}",
            f"{t['waits'][tag]:,}",
            _us(t["longest_wait_ns"][tag]),
            _us(t["longest_fault_ns"][tag]),
            "yes" if t["killed"][tag] else "",
        )
    return table


#: The CAST seed's stream-ws results, two runs each: faults on the working set and its longest
#: fault, ms (QEMU, 8 vCPUs, 8 GB, zram swap; Linux 6.12).
SEED_STREAM_WS: dict[str, tuple[tuple[int, int], tuple[float, float]]] = {
    "cast": ((7, 2), (4.8, 5.5)),
    "mglru": ((77_486, 17), (627.0, 6.3)),
    "linux-lru": ((15, 16), (3.6, 3.3)),
}


def working_set_table(results: Sequence[KernelResult], source: Mapping[str, Any]) -> Table | None:
    """stream-ws's measure: per policy, the working set's faults that waited for a swap-in
    (``waits``), its longest fault (its whole latency: CPU, waits for a CPU, direct reclaim,
    swap-in) and its longest swap-in wait, beside the CAST seed's two runs
    (:data:`SEED_STREAM_WS`); the seed's counts are at 8 GiB, so the node's size is in the title.
    A policy with no swap-in fault shows its longest fault of any kind (the first touch).

    Parameters
    ----------
    results : sequence of KernelResult
        The rows; a policy the seed did not run gets ``-`` in the seed's columns.
    source : mapping
        The trace's ``source``: its ``groups`` must name a ``working set`` (stream-ws).

    Returns
    -------
    rich.table.Table or None
        None when the workload has no working set group.
    """
    tags = list(dict(source.get("groups") or {}).get("working set") or [])
    if not tags:
        return None
    pages = int(source.get("memory_pages") or 0)
    size = "the seed's 8 GiB" if pages == 2097152 else f"{pages * 4096 / (1 << 30):.3g} GiB"
    table = Table(title=f"the working set's faults (node of {size})", title_justify="left")
    for name in ("policy", "swap-in faults", "longest fault ms", "longest swap-in wait ms", "seed: faults",
                 "seed: longest fault ms"):  # fmt: skip
        table.add_column(name, justify="left" if name == "policy" else "right")
    for r in results:
        t = r.tasks
        faults = sum(int(t["waits"][k]) for k in tags if k < len(t["waits"]))
        longest = max((float(t["longest_fault_ns"][k]) for k in tags if k < len(t["ops"])), default=0.0)
        wait = max((float(t["longest_wait_ns"][k]) for k in tags if k < len(t["ops"])), default=0.0)
        seed = SEED_STREAM_WS.get(r.policy.split("(")[0].strip())
        seed_faults = " / ".join(f"{v:,}" for v in seed[0]) if seed else "-"
        seed_ms = " / ".join(f"{v:g}" for v in seed[1]) if seed else "-"
        ms = (f"{longest / 1e6:.3g}", f"{wait / 1e6:.3g}")
        table.add_row(r.policy, f"{faults:,}", *ms, seed_faults, seed_ms)
    return table


def readouts_text(result: KernelResult) -> str:
    """One policy's readouts at the end of a run, for a terminal: its ``describe`` text (CAST:
    the seed's ``estimate`` and ``tune`` layout) or else ``name value`` lines; a policy with
    neither says so.

    Parameters
    ----------
    result : KernelResult
        A finished kernel-mode run; its ``describe`` and ``readouts`` (cgroup 0's policy).

    Returns
    -------
    str
        ``"<label>: readouts at the end"`` then the text, one item a line indented by two
        spaces (a ``describe`` line ending in ``:`` heads the lines after it, indented by four;
        units as the policy names them: ``cost_anon_ns`` in ns, ``*_permille`` in 1/1000).
    """
    head = f"{result.policy}: readouts at the end"
    if result.describe:
        # a line ending in ':' names a readout file (CAST: estimate, tune); its lines go under it
        lines = result.describe.rstrip().splitlines()
        nested = any(line.endswith(":") for line in lines)
        return head + "".join(
            f"\n  {line}" if line.endswith(":") or not nested else f"\n    {line}" for line in lines
        )
    if result.readouts:
        return head + "".join(f"\n  {k} {v:g}" for k, v in result.readouts.items())
    return f"{head}: none (the policy has no readouts)"


def kernel_record(result: KernelResult, workload: str, params: dict[str, Any]) -> dict[str, Any]:
    """The JSON object of one kernel-mode run."""
    return {"workload": workload, "workload_params": params, **result.to_dict()}
