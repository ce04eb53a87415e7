"""CAST's split study: the anon/file split chosen from miss-ratio curves against the best fixed split.

Not a test: run by hand. The seed's study: "In the simulator the policy was designed in (90
workload conditions, 2 million accesses each), the anon/file split chosen from miss-ratio
curves cost on average 5.9% less than the best fixed split -- the one that, in hindsight, was
best for each condition -- and at worst 12.3% more."

For each of the 90 conditions of :func:`pagesim.workloads.kernel.mix_study_conditions` (listed in
the output) CAST runs in kernel mode with its split controller off at the fixed splits 10 %,
20 %, ..., 90 % (``split_permille=100..900``: reclaim presses both types toward that share of
anon) and once with the controller on. A run's cost is the model time its tasks spent on their
accesses (``node["total_ns"]``: CPU per access, the waits for refaults and zero-fill, direct
reclaim's stalls; not the time a paced task sleeps until its next access is released), so a
miss is weighed by what it actually cost. The difference of a condition is
``cost(chosen) / min over fixed splits of cost(fixed) - 1``. Printed: each condition's row, then
the mean, the worst and the best difference beside the seed's -5.9 % / +12.3 %.

The tasks are paced (``--pace-ns``, default 50,000 ns): ``mix(pace_ns=...)`` releases main-phase
access j at j * pace, so under ``schedule="time"`` the anon task and the file task progress
together and the anon share of the accesses holds through the run (unpaced, ``--pace-ns 0``, the
fast anon task is done within ~8 ms of a run of seconds). At 50 us every task of the 90 keeps up
at every split (end/paced 1.00 on all 90 at 200,000 and 2,000,000 accesses; the slowest task
measured, the file of uniform/uniform/0.1 at 50 %, is busy 91 % of the run); a row's
``end/paced`` is the latest model end over its ten runs divided by ``accesses * pace``: above
1.00 a task fell behind its releases. ``--schedule trace`` runs accesses in trace order instead
(reclaim instantaneous between accesses).

    python bench/cast_split_study.py                       # 200,000 accesses per condition
    python bench/cast_split_study.py --accesses 2000000    # the seed's size (~1 h on 2 cores)
    python bench/cast_split_study.py --conditions 0:90:10  # every tenth condition
    python bench/cast_split_study.py --jobs 2              # two conditions at a time
    python bench/cast_split_study.py --pace-ns 0           # unpaced (the anon task is done within ~8 ms)

``--changing`` runs the 20 changing conditions of ``mix_study_conditions(changing=True)``
instead (``mix(stages=...)``: each alternates between two stages whose best splits differ, once
or twice in the run; docs/cast-results.md, "Figures against the seed", has the figures). Each
row also prints the chosen split by tenths of the main phase (``9666611111``: 90 % at the first
tenth, 60 % at the next four, 10 % from the sixth on; ``-`` before its first decision).
``--seed S`` draws every condition with ``mix_study_conditions(seed=S)``.

    python bench/cast_split_study.py --changing --accesses 2000000 --jobs 2

With ``--jobs N`` the conditions run in N processes (one condition per task; each process
compiles or loads the numba cache once); rows are printed in condition order.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from typing import Any

from pagesim.engine.kernel import simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.cast.policy import CAST
from pagesim.workloads.kernel import SCALED_MEMORY_PAGES, mix, mix_study_conditions

SEED_MEAN = -5.9
SEED_WORST = 12.3
FIXED = tuple(range(100, 1000, 100))


def _stage_label(c: dict[str, Any]) -> str:
    """``file/anon/share``; a working set other than all of it as ``(ws 0.3)`` after its side."""
    file_ws = f"(ws {c['file_ws']})" if c.get("file_ws", 1.0) != 1.0 else ""
    anon_ws = f"(ws {c['anon_ws']})" if c.get("anon_ws", 1.0) != 1.0 else ""
    return f"{c['file_pattern']}{file_ws}/{c['anon_pattern']}{anon_ws}/{c['anon_accesses']}"


def _label(c: dict[str, Any]) -> str:
    """A condition's label: its stages' labels in order, a repeated cycle once with ``x<stages>``."""
    if not c.get("stages"):
        return _stage_label(c)
    stages = [_stage_label({**c, **st}) for st in c["stages"]]
    cycle = list(dict.fromkeys(stages))
    if stages == cycle * (len(stages) // len(cycle)):
        return " > ".join(cycle) + f" x{len(stages)}"
    return " > ".join(stages)


def _trajectory(series: dict[str, Any], main_start: int, main: int) -> str:
    """The chosen split (tens of %) at each tenth of the main phase (``-`` before its first decision)."""
    access = list(series["access"])
    split = list(series["split_permille"])
    out = []
    for k in range(1, 11):
        at = main_start + k * main // 10
        i = min(range(len(access)), key=lambda j: abs(access[j] - at))
        out.append("-" if split[i] < 0 else f"{round(split[i] / 100):d}")
    return "".join(out)


def run_condition(
    cond: dict[str, object], memory: int, swap: str, pace_ns: float = 0.0, schedule: str = "time"
) -> dict[str, Any]:
    """Cost of each fixed split and of the chosen one for one condition.

    Also ``end_ratio``: the latest model time at the end of the ten runs over ``accesses *
    pace_ns`` (0 unpaced; above 1 a task fell behind its releases), and ``trajectory``: the
    chosen split in tens of % at each tenth of the main phase (:func:`_trajectory`).
    """
    trace = mix(memory_pages=memory, pace_ns=pace_ns, **cond)  # type: ignore[arg-type]
    cfg = KernelConfig(memory_pages=memory, swap=swap, swap_pages=2 * memory, schedule=schedule)
    main = int(cond["accesses"])  # type: ignore[call-overload]
    every = max(1, main // 20)  # sampling reads, it does not change a run
    out: dict[str, Any] = {}
    ends: list[float] = []
    for split in FIXED:
        r = simulate_kernel(trace, CAST(split_permille=split), cfg, sample_every=every)
        out[f"fixed_{split}"] = float(r.node["total_ns"])
        ends.append(r.series["time_ns"][-1])
    r = simulate_kernel(trace, CAST(), cfg, sample_every=every)
    ends.append(r.series["time_ns"][-1])
    out["chosen"] = float(r.node["total_ns"])
    out["final_split"] = float(r.series["split_permille"][-1])
    out["final_share"] = float(r.series["anon_share_permille"][-1])
    out["trajectory"] = _trajectory(r.series, trace.n_requests - main, main)  # type: ignore[assignment]
    paced_end = float(cond["accesses"]) * pace_ns  # type: ignore[arg-type]
    out["end_ratio"] = max(ends) / paced_end if paced_end > 0 and schedule == "time" else 0.0
    return out


def _task(job: tuple[dict[str, Any], int, str, float, str]) -> dict[str, Any]:
    return run_condition(*job)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accesses", type=int, default=200_000, help="per condition (seed: 2000000)")
    parser.add_argument("--memory", type=int, default=SCALED_MEMORY_PAGES, help="node pages")
    parser.add_argument("--swap", default="zram")
    parser.add_argument("--conditions", default="0:90:1", help="start:stop:step over the 90")
    parser.add_argument("--jobs", type=int, default=1, help="processes, one condition per task")
    parser.add_argument(
        "--pace-ns", type=float, default=50_000.0, help="ns between main-phase accesses (0: unpaced)"
    )
    parser.add_argument("--schedule", default="time", choices=("time", "trace"), help="KernelConfig.schedule")
    parser.add_argument(
        "--changing", action="store_true", help="the 20 changing conditions instead of the 90 (mix stages)"
    )
    parser.add_argument("--seed", type=int, default=0, help="mix_study_conditions(seed=...): other draws")
    args = parser.parse_args()
    start, stop, step = (int(x) for x in args.conditions.split(":"))
    conds = mix_study_conditions(accesses=args.accesses, seed=args.seed, changing=args.changing)[
        start:stop:step
    ]
    t0 = time.time()
    diffs: list[float] = []
    pacing = (
        f"tasks paced: main-phase access j released at j * {args.pace_ns:,.0f} ns"
        if args.pace_ns > 0
        else "tasks unpaced (each runs at its own speed)"
    )
    print(
        f"CAST split study: {len(conds)} conditions (seed {args.seed}), {args.accesses:,} accesses each, "
        f"node {args.memory:,} pages, swap {args.swap}; schedule={args.schedule}, {pacing}; "
        f"cost = the tasks' model time on their accesses (node total_ns)"
    )
    width = max([34] + [len(_label(c)) for c in conds])
    print(
        f"{'#':>3} {'condition (file/anon/anon share of accesses)':<{width}} "
        f"{'best fixed':>10} {'chosen':>8} {'diff':>8} {'end/paced':>9} {'split by tenths':>15}"
    )
    jobs = [(c, args.memory, args.swap, args.pace_ns, args.schedule) for c in conds]
    if args.jobs > 1:
        pool = multiprocessing.get_context("spawn").Pool(args.jobs)
        results = pool.imap(_task, jobs)
    else:
        pool = None
        results = map(_task, jobs)
    for i, (cond, res) in enumerate(zip(conds, results)):
        fixed = {s: res[f"fixed_{s}"] for s in FIXED}
        best = min(fixed, key=lambda s: fixed[s])
        d = 100.0 * (res["chosen"] / fixed[best] - 1.0)
        diffs.append(d)
        print(
            f"{start + i * step:>3} {_label(cond):<{width}} {best / 10:>9.0f}% "
            f"{res['final_split'] / 10:>7.0f}% {d:>+7.1f}% {res['end_ratio']:>9.2f} "
            f"{res['trajectory']:>15}   (anon share at the end {res['final_share'] / 10:.0f}%)",
            flush=True,
        )
    if pool is not None:
        pool.close()
        pool.join()
    mean = statistics.fmean(diffs)
    worst = max(diffs)
    print()
    kind = "changing" if args.changing else "stationary"
    print(f"split chosen from MRCs vs the best fixed split in hindsight ({len(diffs)} {kind} conditions):")
    print(f"  mean  {mean:+.1f}%   (seed {SEED_MEAN:+.1f}%)")
    print(f"  worst {worst:+.1f}%   (seed {SEED_WORST:+.1f}%)")
    print(f"  best  {min(diffs):+.1f}%")
    print(f"  ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
