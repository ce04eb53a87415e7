"""CAST's walker: what each of its skips saves, on stress-vm and stream-ws (and mix), kernel mode.

Each workload runs under CAST with the walker reading every mapped page id (``none``), with
each skip alone (``mm``: an mm no CPU ran since the last walk; ``pmd``: a page table whose PMD
accessed bit is clear; ``bloom``: a table not in the Bloom filter, read as the seed's fallback
where there is no PMD accessed bit), as the seed has it (``seed``, the default: the mm and PMD
skips), with MGLRU's use of the filter besides the PMD bit (``seed+bloom``:
``walker_bloom=always``), without SIMD (``seed-scalar``), and reading every page id at no
cost (``none-free``: the walker before its costs were modelled). Per run: the walks,
PTEs and PMD entries the walker read, tables skipped by each rule, the walker's and the
look-around's modelled CPU (costs.walk_cost_ns), young bits taken by the walker and by reclaim,
swap-ins (``pswpin``) and anon refaults, and modelled throughput.

Usage::

    python bench/cast_walker.py                      # stress-vm and stream-ws, the scales below
    python bench/cast_walker.py --workload stress-vm --scale 4
    python bench/cast_walker.py --workload mix --config none --config seed
    python bench/cast_walker.py --json

``--scale N`` divides the node's memory (and so every region) by N; the default, 1, is
``pagesim run 'stress-vm?seed=0'`` and ``pagesim run stream-ws`` (the 32,768-page node).
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
    "none": {"walker_mm": False, "walker_pmd": False, "walker_bloom": "off"},
    "mm": {"walker_mm": True, "walker_pmd": False, "walker_bloom": "off"},
    "pmd": {"walker_mm": False, "walker_pmd": True, "walker_bloom": "off"},
    "bloom": {"walker_mm": False, "walker_pmd": False, "walker_bloom": "fallback"},
    "seed": {},
    "seed+bloom": {"walker_bloom": "always"},
    "seed-scalar": {"walker_simd": False},
    "none-free": {
        "walker_mm": False,
        "walker_pmd": False,
        "walker_bloom": "off",
        "walk_pte_ns": 0,
        "walk_pmd_ns": 0,
    },
}

WORKLOADS = ("stress-vm", "stream-ws", "mix")  #: mix: cold anon of a task that reads a file

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


def workload_params(name: str, scale: int, seed: int = 0) -> dict[str, Any]:
    """The workload's parameters on 1/``scale`` of pagesim's scaled node (1: ``pagesim run``'s)."""
    if name not in WORKLOADS:
        raise ValueError(f"no walker measurement for {name!r}: one of {', '.join(WORKLOADS)}")
    params: dict[str, Any] = {"memory_pages": SCALED_MEMORY_PAGES // scale}
    if name == "stress-vm":
        params["seed"] = seed
    return params


def run_one(
    name: str, params: dict[str, Any], overrides: dict[str, Any], schedule: str = "time"
) -> dict[str, float]:
    """One CAST run; the walker's readouts, refaults and throughput."""
    trace = make_kernel_workload(name, **params)
    config = KernelConfig(memory_pages=int(trace.source["memory_pages"]), schedule=schedule)
    run = KernelRun(trace, make_policy("cast", **overrides), config)
    run.advance()
    res = run.result()
    r = res.readouts
    out = {key: float(r[key]) for _, key in COLUMNS}
    c = res.counters
    out["pswpin"] = float(c["pswpin"])
    out["refault_anon"] = float(c["workingset_refault_anon"])
    out["ops"] = float(res.ops)
    out["ops_per_s"] = float(res.throughput_ops_per_s)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workload", action="append", choices=WORKLOADS)
    ap.add_argument("--scale", type=int, default=1, help="divide the scaled node's memory by this")
    ap.add_argument("--config", action="append", choices=tuple(CONFIGS))
    ap.add_argument("--seed", type=int, default=0, help="stress-vm's seed")
    ap.add_argument(
        "--schedule",
        choices=("time", "trace"),
        default="time",
        help="tasks ordered by model time (pagesim run's) or in trace order (CPU costs move no access)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for name in args.workload or ("stress-vm", "stream-ws"):
        params = workload_params(name, args.scale, args.seed)
        rows[name] = {c: run_one(name, params, CONFIGS[c], args.schedule) for c in args.config or CONFIGS}
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    head = ["config", *(h for h, _ in COLUMNS), "pswpin", "per op", "refault anon", "M ops/s"]
    for name, by_config in rows.items():
        seed = f", seed {args.seed}" if name == "stress-vm" else ""
        print(f"{name} (scale 1/{args.scale}{seed}, schedule {args.schedule})")
        print(" | ".join(head))
        for c, v in by_config.items():
            cells = [c]
            for h, key in COLUMNS:
                cells.append(f"{v[key] / 1e6:,.2f}" if h.endswith("ms") else f"{v[key]:,.0f}")
            per_op = v["pswpin"] / max(v["ops"], 1.0)
            cells += [
                f"{v['pswpin']:,.0f}",
                f"{per_op:.3f}",
                f"{v['refault_anon']:,.0f}",
                f"{v['ops_per_s'] / 1e6:.3f}",
            ]
            print(" | ".join(cells))
        print()


if __name__ == "__main__":
    main()
