"""CAST's walker: what each of its skips saves, on stress-vm and stream-ws (kernel mode).

Each workload runs under CAST with the walker reading every mapped page id (``none``), then with
the seed's skips added one at a time (``mm``: an mm no CPU ran since the last walk; ``pmd``: a
page table whose PMD accessed bit is clear; ``bloom``: a table not in the Bloom filter), all
three (``all``, the default), and all three without SIMD (``all-scalar``). Per run: the walks,
PTEs and PMD entries the walker read, tables skipped by each rule, the walker's and the
look-around's modelled CPU (costs.walk_cost_ns), young bits taken by the walker and by reclaim,
swap-ins (``pswpin``) and anon refaults, and modelled throughput.

Usage::

    python bench/cast_walker.py                      # stress-vm and stream-ws, the scales below
    python bench/cast_walker.py --workload stress-vm --scale 4
    python bench/cast_walker.py --json

``--scale N`` divides the node's memory (and so every region) by N: the default ``8`` runs
stress-vm on a 4,096-page node (2 passes) and stream-ws on 8,192 pages in a minute or two
once compiled.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pagesim.engine.kernel import KernelRun
from pagesim.engine.memory import KernelConfig
from pagesim.policies.registry import make_policy
from pagesim.workloads.kernel import make_kernel_workload
from pagesim.workloads.kernel.common import SCALED_MEMORY_PAGES

#: The walker's configurations: name -> CAST parameters.
CONFIGS: dict[str, dict[str, Any]] = {
    "none": {"walker_mm": False, "walker_pmd": False, "walker_bloom": False},
    "mm": {"walker_mm": True, "walker_pmd": False, "walker_bloom": False},
    "pmd": {"walker_mm": False, "walker_pmd": True, "walker_bloom": False},
    "bloom": {"walker_mm": False, "walker_pmd": False, "walker_bloom": True},
    "all": {},
    "all-scalar": {"walker_simd": False},
}

COLUMNS = (
    ("walks", "walker_walks"),
    ("PTEs", "walker_ptes"),
    ("PMDs", "walker_pmds"),
    ("skip mm", "walker_skip_mm"),
    ("skip pmd", "walker_skip_pmd"),
    ("skip bloom", "walker_skip_bloom"),
    ("walker ms", "walker_cpu_ns"),
    ("look PTEs", "lookaround_ptes"),
    ("look ms", "lookaround_cpu_ns"),
    ("young walk", "walker_young"),
    ("young reclaim", "lookaround_young"),
)


def workload_params(name: str, scale: int) -> dict[str, Any]:
    """The workload's parameters at 1/``scale`` of pagesim's scaled node."""
    memory = SCALED_MEMORY_PAGES // scale
    if name == "stress-vm":
        return {"memory_pages": memory, "passes": 2, "seed": 0}
    if name == "stream-ws":
        return {"memory_pages": 2 * memory}
    raise ValueError(f"no walker measurement for {name!r}: stress-vm or stream-ws")


def run_one(name: str, params: dict[str, Any], overrides: dict[str, Any]) -> dict[str, float]:
    """One CAST run; the walker's readouts, refaults and throughput."""
    trace = make_kernel_workload(name, **params)
    config = KernelConfig(memory_pages=int(trace.source["memory_pages"]))
    run = KernelRun(trace, make_policy("cast", **overrides), config)
    run.advance()
    res = run.result()
    r = res.readouts
    out = {key: float(r[key]) for _, key in COLUMNS}
    c = res.counters
    out["pswpin"] = float(c["pswpin"])
    out["refault_anon"] = float(c["workingset_refault_anon"])
    out["ops_per_s"] = float(res.throughput_ops_per_s)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workload", action="append", choices=("stress-vm", "stream-ws"))
    ap.add_argument("--scale", type=int, default=8, help="divide the scaled node's memory by this")
    ap.add_argument("--config", action="append", choices=tuple(CONFIGS))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for name in args.workload or ("stress-vm", "stream-ws"):
        params = workload_params(name, args.scale)
        rows[name] = {c: run_one(name, params, CONFIGS[c]) for c in args.config or CONFIGS}
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    head = ["config", *(h for h, _ in COLUMNS), "pswpin", "refault anon", "M ops/s"]
    for name, by_config in rows.items():
        print(f"{name} (scale 1/{args.scale})")
        print(" | ".join(head))
        for c, v in by_config.items():
            cells = [c]
            for h, key in COLUMNS:
                cells.append(f"{v[key] / 1e6:,.2f}" if h.endswith("ms") else f"{v[key]:,.0f}")
            cells += [f"{v['pswpin']:,.0f}", f"{v['refault_anon']:,.0f}", f"{v['ops_per_s'] / 1e6:.3f}"]
            print(" | ".join(cells))
        print()


if __name__ == "__main__":
    main()
