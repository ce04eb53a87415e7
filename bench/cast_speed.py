"""CAST's speed in kernel mode beside linux-lru's, on the same run (issue 4).

Not a test: run by hand, ``python bench/cast_speed.py [--repeat N] [--workload 'stress-vm?seed=1']
[--set name=value]``. Builds the workload once (``stress-vm`` at its
scaled default unless ``--workload`` says otherwise), runs each policy once to compile or load its
runner, then runs CAST (every controller on: its defaults) and linux-lru in turn, ``--repeat``
times each, interleaved so that both see the same load, and prints each one's simulated accesses
per second (loop time only, as ``pagesim run`` prints them: best and median of the repeats), the
ratio CAST / linux-lru of the bests and of each pair's, and the machine's load average. Target
(issue 4): CAST >= 2 M accesses/s.

``stop=first`` (stress-vm's default) ends a run when its first worker is done, so the two
policies simulate different numbers of accesses; the speed is per access simulated.
"""

from __future__ import annotations

import argparse
import os
import statistics

from pagesim.engine.kernel import KernelResult, simulate_kernel
from pagesim.engine.memory import KernelConfig
from pagesim.policies.registry import make_policy
from pagesim.workloads.kernel import make_kernel_workload


def _speed(r: KernelResult) -> float:
    """M accesses per second of the loop, as ``pagesim run`` reports it."""
    c = r.counters
    return (c["requests"] + c["warmup_accesses"]) / max(r.seconds, 1e-12) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="stress-vm", help="a kernel workload, e.g. 'stress-vm?seed=1'")
    parser.add_argument("--policy", default="cast", help="the policy timed (with --set values)")
    parser.add_argument("--baseline", default="linux-lru")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--memory", type=int, default=32768, help="node memory, pages")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    name, _, query = args.workload.partition("?")
    params: dict[str, object] = {"memory_pages": args.memory}
    for item in filter(None, query.split("&")):
        k, _, v = item.partition("=")
        params[k] = float(v) if "." in v else int(v)
    trace = make_kernel_workload(name, **params)
    cfg = KernelConfig(memory_pages=args.memory)

    def make(pol: str):  # type: ignore[no-untyped-def]
        p = make_policy(pol)
        if pol == args.policy:
            for item in args.set:
                k, _, v = item.partition("=")
                old = p.values[k]
                p.values[k] = bool(int(v)) if isinstance(old, bool) else type(old)(v)
        return p

    pols = (args.policy, args.baseline)
    first = {pol: simulate_kernel(trace, make(pol), cfg) for pol in pols}  # compile or load
    speeds: dict[str, list[float]] = {pol: [] for pol in pols}
    for _ in range(args.repeat):
        for pol in pols:
            speeds[pol].append(_speed(simulate_kernel(trace, make(pol), cfg)))
    load = os.getloadavg()
    print(f"{args.workload}: {trace.n_requests:,} accesses in the trace, node {args.memory:,} pages")
    print(f"{'policy':<12} {'accesses':>10} {'best M acc/s':>13} {'median':>8} {'pswpin/op':>10}")
    for pol in pols:
        r = first[pol]
        acc = r.counters["requests"] + r.counters["warmup_accesses"]
        print(
            f"{pol:<12} {acc:>10,} {max(speeds[pol]):>13.2f} {statistics.median(speeds[pol]):>8.2f} "
            f"{r.per_op('pswpin'):>10.3f}"
        )
    a, b = speeds[args.policy], speeds[args.baseline]
    pairs = sorted(x / y for x, y in zip(a, b))
    print(
        f"{args.policy} / {args.baseline}: best {max(a) / max(b):.2f}x, pairwise median "
        f"{statistics.median(pairs):.2f}x (min {pairs[0]:.2f}, max {pairs[-1]:.2f}) over {args.repeat} pairs"
    )
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
