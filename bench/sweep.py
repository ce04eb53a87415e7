"""Sweep benchmarks: local speed-up, Dask's per-run overhead, peak memory per worker.

    python bench/sweep.py                       # all three, sized for a shared 2-core machine
    python bench/sweep.py --part rss --accesses 10000000 --rss-policies 10 --rss-sizes 20

1. speed-up: a 40-run grid (2 traces x 4 policies x 5 sizes) on 1 then 2 local workers; the time
   from handing out the first task to the last row (worker start-up and compiling excluded).
2. overhead: 120 tiny runs (1,000 accesses) on the local pool and on a 2-worker Dask
   LocalCluster; the difference in wall time per run.
3. rss: three traces x policies x sizes on 2 local workers; each worker's peak RSS (from the
   rows) against one trace's arrays (16 bytes per access: page, kind, op, cgroup, tag) and
   against the worker's RSS before its first trace.

Figures depend on the machine's load: quote it (printed) beside them.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from pagesim.sweep.grid import grid_from_options
from pagesim.sweep.plan import make_plan, planned_policies
from pagesim.sweep.store import Store

TRACE_BYTES_PER_ACCESS = 16


def _tasks(grid, db):  # type: ignore[no-untyped-def]
    with Store(db) as store:
        plan = make_plan(grid, store)
    return plan


def _timed_run(executor, plan) -> float:  # type: ignore[no-untyped-def]
    executor.prepare(planned_policies(plan))
    t0 = time.perf_counter()
    rows = [r for _, result in executor.run(plan.tasks) for r in result]
    seconds = time.perf_counter() - t0
    bad = [r["error"] for r in rows if r["status"] != "ok"]
    assert not bad, bad[:3]
    # loop CPU time over loop wall time: the share of a core each worker's loop got
    share = sum(r["cpu_seconds"] for r in rows) / max(sum(r["seconds"] for r in rows), 1e-9)
    _timed_run.cpu_share = share  # type: ignore[attr-defined]
    return seconds


def speedup(folder: str, accesses: int) -> None:
    from pagesim.sweep.local import LocalExecutor

    traces = [f"workload:zipf?n_requests={accesses}&n_pages={accesses // 10}&seed={s}" for s in (1, 2)]
    grid = grid_from_options(traces, ["arc,lirs,s3fifo,sieve"], ["1%:20%:5"])
    plan = _tasks(grid, os.path.join(folder, "speed.db"))
    assert plan.pending == 40, plan.pending
    times, shares = {}, {}
    for n in (1, 2):
        ex = LocalExecutor(n)
        try:
            times[n] = _timed_run(ex, plan)
            shares[n] = _timed_run.cpu_share  # type: ignore[attr-defined]
        finally:
            ex.close()
    print(f"speed-up: 40 runs of {accesses:,} accesses: 1 worker {times[1]:.2f} s, 2 workers "
          f"{times[2]:.2f} s, {times[1] / times[2]:.2f}x (target >= 1.8x); each worker's simulating "
          f"thread got {100 * shares[1]:.0f} % of a core with 1 worker, {100 * shares[2]:.0f} % with 2 "
          "(a share that halves means the machine is busy, or, with sched_autogroup_enabled=1, that "
          "other sessions take the rest)")  # fmt: skip


def overhead(folder: str) -> None:
    from pagesim.sweep.cluster import DaskExecutor
    from pagesim.sweep.local import LocalExecutor

    grid = grid_from_options([f"workload:zipf?n_requests=1000&n_pages=200&seed={s}" for s in range(4)],
                             ["lru,fifo,clock"], ["1:100:10"])  # fmt: skip
    plan = _tasks(grid, os.path.join(folder, "overhead.db"))
    n = plan.pending
    local = LocalExecutor(2)
    try:
        _timed_run(local, plan)  # warm: every worker has mapped its traces and loaded its runners
        t_local = _timed_run(local, plan)
    finally:
        local.close()
    dask = DaskExecutor("local:2")
    try:
        _timed_run(dask, plan)
        t_dask = _timed_run(dask, plan)
    finally:
        dask.close()
    per = 1e3 * (t_dask - t_local) / n
    print(f"overhead: {n} tiny runs on 2 workers: local {1e3 * t_local / n:.2f} ms per run, Dask "
          f"{1e3 * t_dask / n:.2f} ms per run; Dask adds {per:.2f} ms per run (target < 50 ms)")  # fmt: skip


def rss(folder: str, accesses: int, n_policies: int, n_sizes: int) -> None:
    from pagesim.sweep.local import LocalExecutor

    policies = ["opt", "lru", "arc", "s3fifo", "lirs", "sieve", "fifo", "clock", "2q", "car"][:n_policies]
    traces = [f"workload:zipf?n_requests={accesses}&n_pages={accesses // 10}&seed={s}" for s in (1, 2, 3)]
    plan = _tasks(grid_from_options(traces, [",".join(policies)], [f"1%:50%:{n_sizes}"]), f"{folder}/rss.db")
    tiny = _tasks(
        grid_from_options(["workload:loop?n_pages=10"], [",".join(policies)], ["5"]), f"{folder}/t.db"
    )
    ex = LocalExecutor(2)
    try:
        ex.prepare(planned_policies(plan))
        # every worker loads every runner on a 20-access trace: its peak before any big trace
        base = {
            r["worker"]: r["peak_rss_bytes"] for _ in range(2) for _, rows in ex.run(tiny.tasks) for r in rows
        }
        t0 = time.perf_counter()
        rows = [r for _, result in ex.run(plan.tasks) for r in result]
        seconds = time.perf_counter() - t0
    finally:
        ex.close()
    failed = sum(r["status"] != "ok" for r in rows)
    trace_mib = accesses * TRACE_BYTES_PER_ACCESS / 2**20
    print(f"rss: 3 traces x {len(policies)} policies x {n_sizes} sizes = {len(rows)} runs, {failed} failed, "
          f"{seconds:.1f} s; one trace's arrays {trace_mib:.1f} MiB ({accesses:,} accesses)")  # fmt: skip
    for worker in sorted(base):
        before = base[worker] / 2**20
        peak = max(r["peak_rss_bytes"] for r in rows if r["worker"] == worker) / 2**20
        print(
            f"  worker {worker}: peak RSS {peak:.0f} MiB, {before:.0f} MiB before its first trace; the "
            f"grid added {peak - before:.0f} MiB = {(peak - before) / trace_mib:.2f}x one trace's arrays"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=["all", "speedup", "overhead", "rss"], default="all")
    parser.add_argument("--speed-accesses", type=int, default=2_000_000)
    parser.add_argument("--accesses", type=int, default=1_000_000, help="accesses per trace of the rss part")
    parser.add_argument("--rss-policies", type=int, default=10)
    parser.add_argument("--rss-sizes", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        if args.part in ("all", "speedup"):
            speedup(folder, args.speed_accesses)
        if args.part in ("all", "overhead"):
            overhead(folder)
        if args.part in ("all", "rss"):
            rss(folder, args.accesses, args.rss_policies, args.rss_sizes)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
