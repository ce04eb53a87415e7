"""Kernel mode's speed: simulated accesses per second of each policy on the seeds' workloads.

Not a test: run by hand (see bench/README.md). For each workload (``stress-vm``, ``stream-ws``
at their scaled defaults, or ``--scale`` times larger) and each policy, runs
:func:`pagesim.engine.kernel.simulate_kernel` once to compile or load the runner, then times the
loop alone (best of ``--repeat``), and prints a table with the vmstat counters per operation so
that the speed is read beside what was simulated. Targets (issue 3): linux-lru >= 5 M
accesses/s, mglru >= 3 M.
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from pagesim.engine.kernel import simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.registry import make_policy, policy_names
from pagesim.workloads.kernel import make_kernel_workload


def _accesses_run(result) -> int:  # type: ignore[no-untyped-def]
    """Accesses the loop ran: not the trace's length, since stress-vm stops when its first
    worker is done (stop=first) and a killed task's accesses are skipped."""
    c = result.counters
    return int(c["requests"] + c["warmup_accesses"] + c["pgfree_by_owner"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", default="linux-lru,mglru,lru,clock")
    parser.add_argument("--workloads", default="stress-vm,stream-ws")
    parser.add_argument("--scale", type=int, default=1, help="memory x SCALE (1 = 128 MiB, 64 = 8 GiB)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    known = set(policy_names())
    policies = [p for p in args.policies.split(",") if p in known]
    console = Console()
    table = Table(title="kernel mode: loop speed per policy and workload (best of repeats)")
    for col in (
        "workload",
        "policy",
        "accesses",
        "M acc/s",
        "pswpin/op",
        "pswpout/op",
        "ops/s (model)",
        "compile s",
    ):
        table.add_column(col, justify="right" if col not in ("workload", "policy") else "left")
    for name in args.workloads.split(","):
        memory = 32768 * args.scale
        trace = make_kernel_workload(name, memory_pages=memory)
        cfg = KernelConfig(memory_pages=memory)
        for pol in policies:
            first = simulate_kernel(trace, make_policy(pol), cfg)
            best = max(
                (simulate_kernel(trace, make_policy(pol), cfg) for _ in range(args.repeat)),
                key=lambda r: _accesses_run(r) / max(r.seconds, 1e-12),
            )
            table.add_row(
                name,
                pol,
                f"{_accesses_run(best):,}",
                f"{_accesses_run(best) / max(best.seconds, 1e-12) / 1e6:.1f}",
                f"{best.per_op('pswpin'):.3f}",
                f"{best.per_op('pswpout'):.3f}",
                f"{best.throughput_ops_per_s:,.0f}",
                f"{first.prepare_seconds:.1f}",
            )
    console.print(table)


if __name__ == "__main__":
    main()
