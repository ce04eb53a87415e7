"""Miss-ratio curves: exact, SHARDS and miniature simulation against full runs, side by side.

Not a test: a benchmark to run by hand (see bench/README.md). For a Zipf(1.0) trace of 10 M
accesses over 1 M pages (pagesim's ``workload:zipf``) and the real traces given, it prints:

1. exact LRU at 100 sizes (1 %..100 % of the unique pages) against libCacheSim simulating LRU
   at 20 of them and against 4 single-size pagesim LRU runs (wall time, runner loading
   included); the exact misses are checked against libCacheSim's at those 20 sizes;
2. exact OPT: the priority stack at the same 100 sizes against 4 single-size OPT runs (traces
   of up to 2 M requests: the stack carries hundreds of pages per access);
3. SHARDS, seeds 0..2: MAE against exact (mean over the seeds), speed-up (exact's best of 2
   over SHARDS' best of the 3), at rate 0.01 (fixed rate, adjusted) and at a fixed size of 8K
   pages; the target is judged on rate 0.01, or on the fixed size where the trace is small
   (rate 0.01 would keep fewer than 1,000 pages);
4. miniature simulation at rate 0.01 (fixed size, 10,000 pages, where the trace has fewer than
   500,000 pages; sizes whose miniature would be under 100 pages get a denser sample, see
   docs/mrc.md) for fifo, clock, arc, s3fifo, lirs, sieve, 2q, w-tinylfu: MAE against full
   simulation at 10 sizes and the speed-up over those 10 runs.

Each figure is printed with its target from issue 21 and whether it is met. On a trace of fewer
than 500,000 requests a speed-up is printed as "n/a: trace too small" with the reference's time
(exact LRU; a full run for minisim): such references take milliseconds, and the sampled
method's fixed costs (hashing every page, a call into each runner) are most of its time. Every
policy's runner is loaded (or compiled) on a short trace before anything is timed.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

TARGETS = {
    "exact_vs_lcs": 20.0,  # exact at 100 sizes at least 20x faster than libCacheSim at 20
    "exact_vs_runs": 1.0,  # no slower than 4 single-size runs
    "shards_mae": 0.005,
    "shards_speedup": 20.0,
    "minisim_mae": 0.01,
    "minisim_speedup": 5.0,
}
MINISIM_POLICIES = "fifo,clock,arc,s3fifo,lirs,sieve,2q,w-tinylfu"
DEFAULT_TRACES = "arc/OLTP.lis.zst,libcachesim/cloudPhysicsIO.oracleGeneral.bin"
SMALL_TRACE_PAGES = 500_000  # below: minisim samples a fixed number of pages
FIXED_SAMPLES = 10_000
FIXED_SHARDS = 8192  # the paper's fixed-size SHARDS budget
OPT_MAX_REQUESTS = 2_000_000  # the priority stack is timed on traces up to this length
SHARDS_RATE = 0.01
SHARDS_SMALL_PAGES = 1_000  # rate 0.01 keeping fewer pages than this: fixed size is judged
TOO_SMALL_REQUESTS = 500_000  # a trace shorter than this: speed-ups are not judged


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def speed_verdict(speed: float, target: float, n_requests: int, reference_seconds: float, what: str) -> str:
    """The speed-up against its target, or n/a on a trace too short to judge it."""
    if n_requests < TOO_SMALL_REQUESTS:
        return f"{speed:.1f}x (n/a: trace too small ({what} takes {reference_seconds * 1e3:.0f} ms))"
    return f"{speed:.1f}x (target >= {target:.0f}x: {verdict(speed >= target)})"


def timed(func, *args, **kwargs):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = func(*args, **kwargs)
    return out, time.perf_counter() - start


def bench_exact(trace, sizes, oracle, lcs) -> float:  # type: ignore[no-untyped-def]
    from pagesim.analysis.mrc import exact_misses
    from pagesim.engine import simulate
    from pagesim.policies import make_policy

    exact, t_exact = timed(exact_misses, trace, "lru", sizes)
    t_exact = min(t_exact, timed(exact_misses, trace, "lru", sizes)[1])  # best of 2 (shared machine)
    twenty = sizes[::5]
    t_lcs = 0.0
    agree = 0
    for size in twenty:
        reader = lcs.TraceReader(
            str(oracle), lcs.TraceType.ORACLE_GENERAL_TRACE, lcs.ReaderInitParam(ignore_obj_size=True)
        )
        cache = lcs.LRU(int(size))
        (ratio, _), dt = timed(cache.process_trace, reader)
        t_lcs += dt
        agree += round(ratio * trace.n_requests) == exact[sizes.index(size)]
    four = sizes[24::25][:4]
    t_runs = sum(timed(simulate, trace, make_policy("lru"), int(c))[1] for c in four)
    print(f"  exact LRU, 100 sizes: {t_exact:.2f} s")
    print(
        f"  libCacheSim LRU, 20 sizes: {t_lcs:.2f} s; misses equal at {agree}/20 sizes; "
        f"exact is {t_lcs / t_exact:.1f}x faster (target >= {TARGETS['exact_vs_lcs']:.0f}x: "
        f"{verdict(t_lcs / t_exact >= TARGETS['exact_vs_lcs'])})"
    )
    print(
        f"  pagesim LRU, 4 single-size runs: {t_runs:.2f} s; exact takes {t_exact / t_runs:.2f}x their "
        f"time (target <= 1: {verdict(t_exact <= t_runs)})"
    )
    return t_exact


def bench_opt(trace, sizes) -> None:  # type: ignore[no-untyped-def]
    from pagesim.analysis.mrc import exact_misses
    from pagesim.engine import simulate
    from pagesim.policies import make_policy

    _, t_stack = timed(exact_misses, trace, "opt", sizes, one_pass=True)
    four = sizes[24::25][:4]
    t_runs = sum(timed(simulate, trace, make_policy("opt"), int(c))[1] for c in four)
    print(
        f"  exact OPT, priority stack at 100 sizes: {t_stack:.2f} s; 4 single-size OPT runs {t_runs:.2f} s "
        f"(stack = {t_stack / t_runs * 4:.0f} runs' time; no target)"
    )


def bench_shards(trace, sizes, t_exact) -> None:  # type: ignore[no-untyped-def]
    from pagesim.analysis.mrc import exact_misses
    from pagesim.analysis.mrc.shards import shards_fixed_rate, shards_fixed_size

    exact = exact_misses(trace, "lru", sizes) / trace.n_requests
    variants = {
        f"rate {SHARDS_RATE}": lambda seed: shards_fixed_rate(trace, sizes, SHARDS_RATE, seed),
        f"fixed size {FIXED_SHARDS:,}": lambda seed: shards_fixed_size(trace, sizes, FIXED_SHARDS, seed),
    }
    small = trace.n_pages * SHARDS_RATE < SHARDS_SMALL_PAGES
    judged = f"fixed size {FIXED_SHARDS:,}" if small else f"rate {SHARDS_RATE}"
    for name, run in variants.items():
        maes, times = [], []
        for seed in range(3):
            est, dt = timed(run, seed)
            err = np.abs(est.miss_ratio - exact)
            maes.append(float(err.mean()))
            times.append(dt)
            print(
                f"  SHARDS {name} seed {seed}: MAE {maes[-1]:.4f}, max abs {err.max():.4f}, rate "
                f"{est.rate:.4f}, {est.sampled_requests:,} sampled requests, {dt:.3f} s"
            )
        mae, speed = float(np.mean(maes)), t_exact / min(times)
        if name != judged:
            print(f"  SHARDS {name} over seeds: mean MAE {mae:.4f}, speed-up {speed:.1f}x (not judged)")
            continue
        why = f" (small trace: rate {SHARDS_RATE} keeps < {SHARDS_SMALL_PAGES:,} pages)" if small else ""
        print(
            f"  SHARDS {name}{why} over seeds: mean MAE {mae:.4f} (target <= {TARGETS['shards_mae']}: "
            f"{verdict(mae <= TARGETS['shards_mae'])}), speed-up "
            f"{speed_verdict(speed, TARGETS['shards_speedup'], trace.n_requests, t_exact, 'exact LRU')}"
        )


def bench_minisim(trace, policies) -> None:  # type: ignore[no-untyped-def]
    from pagesim.analysis.mrc.minisim import minisim, sample_trace
    from pagesim.engine import simulate
    from pagesim.policies import make_policy
    from pagesim.policies.registry import policy_class

    ten = sorted({max(1, int(round(trace.n_pages * f))) for f in np.linspace(0.01, 1.0, 10)})
    if trace.n_pages < SMALL_TRACE_PAGES:
        how = f"fixed size, {FIXED_SAMPLES:,} pages"
        sample, t_sample = timed(sample_trace, trace, samples=min(FIXED_SAMPLES, trace.n_pages))
    else:
        how = "rate 0.01"
        sample, t_sample = timed(sample_trace, trace, rate=0.01)
    shown = f"rate {sample.rate:.4f}, {sample.trace.n_requests:,} sampled requests"
    print(f"  minisim ({how}: {shown}), 10 sizes")
    for name in policies:
        run, t_mini = timed(minisim, trace, sample, policy_class(name), ten)
        full, t_full = [], 0.0
        for size in ten:
            result, dt = timed(simulate, trace, make_policy(name), size)
            full.append(result.miss_ratio)
            t_full += dt
        err = np.abs(run.miss_ratio - np.array(full))
        speed = t_full / (t_mini + t_sample)
        denser = [i for i, r in enumerate(run.rate) if sample.rate < r < 1]
        n_full = run.method.count("full")
        note = "".join(
            f"; size {ten[i]:,} at rate {run.rate[i]:.4f} (error {err[i]:.4f})" for i in denser
        ) + (f"; {n_full} sizes run in full" if n_full else "")
        print(
            f"    {name:>9}: MAE {err.mean():.4f} ({verdict(err.mean() <= TARGETS['minisim_mae'])}), max abs "
            f"{err.max():.4f}, speed-up "
            f"{speed_verdict(speed, TARGETS['minisim_speedup'], trace.n_requests, t_full / 10, 'a full run')}"
            f"{note}"
        )


def warm_runners(policies) -> None:  # type: ignore[no-untyped-def]
    from pagesim.analysis.mrc import exact_misses
    from pagesim.analysis.mrc.shards import shards_fixed_rate
    from pagesim.engine import simulate
    from pagesim.policies import make_policy
    from pagesim.workloads import from_spec

    small = from_spec("zipf?n_requests=2000&n_pages=200")
    for name in ["lru", "opt", *policies]:
        simulate(small, make_policy(name), 20)
    exact_misses(small, "lru", [10])
    exact_misses(small, "opt", [10], one_pass=True)
    shards_fixed_rate(small, [10], 0.5)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="Zipf accesses")
    ap.add_argument("--pages", type=int, default=1_000_000, help="Zipf pages")
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--traces", default=DEFAULT_TRACES, help="comma-separated, under PAGESIM_TRACES")
    ap.add_argument("--policies", default=MINISIM_POLICIES, help="minisim policies")
    ap.add_argument("--no-opt", action="store_true", help="skip the OPT priority stack")
    args = ap.parse_args(argv)

    import libcachesim as lcs

    from pagesim.trace import read_trace, write_trace
    from pagesim.workloads import from_spec

    root = Path(os.environ.get("PAGESIM_TRACES") or Path(__file__).resolve().parents[2] / "shared" / "traces")
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    warm_runners(policies)
    spec = f"zipf?n_requests={args.n}&n_pages={args.pages}&alpha={args.alpha}&seed=0"
    traces = [(f"workload:{spec}", lambda: from_spec(spec))]
    for rel in [t for t in args.traces.split(",") if t.strip()]:
        traces.append((rel, lambda rel=rel: read_trace(str(root / rel.strip()))))
    for label, load in traces:
        trace = load()
        print(f"\n{label}: {trace.n_requests:,} requests, {trace.n_pages:,} pages")
        sizes = sorted({max(1, int(round(trace.n_pages * f))) for f in np.linspace(0.01, 1.0, 100)})
        with tempfile.TemporaryDirectory(prefix="pagesim-mrc-") as tmp:
            oracle = Path(tmp) / "trace.oracleGeneral.bin"
            write_trace(trace, oracle, format="oracle", compress=False)
            t_exact = bench_exact(trace, sizes, oracle, lcs)
        if args.no_opt or trace.n_requests > OPT_MAX_REQUESTS:
            print(f"  exact OPT priority stack: skipped (over {OPT_MAX_REQUESTS:,} requests or --no-opt)")
        else:
            bench_opt(trace, sizes)
        bench_shards(trace, sizes, t_exact)
        bench_minisim(trace, policies)
    print(f"\nload after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
