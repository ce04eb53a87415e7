"""pagesim against libCacheSim 0.3.5 on one Zipf trace: miss counts must agree; who is faster.

Not a test: a benchmark to run by hand (see bench/README.md).

1. A Zipf(alpha) trace of ``--n`` accesses over ``--pages`` pages: numpy inverse CDF on seeded
   uniforms (``searchsorted`` on the cumulative weights ``k**-alpha``), ranks scattered over ids
   by a seeded permutation. The cache holds ``--cache-frac`` of the pages.
2. The trace is written once as libCacheSim oracleGeneral binary (``write_trace(...,
   format="oracle")``): it carries next-access times, so Belady works, and it is libCacheSim's
   fastest reader. libCacheSim reads it with ``ignore_obj_size=True`` (every object one unit).
3. For each policy: pagesim ``simulate`` (loop time only: ``Result.accesses_per_second``) and
   libCacheSim ``process_trace`` (timed alone; misses = round(miss ratio * requests)), the two
   alternating ``--repeat`` times; the table gives the ratio of the fastest runs and of the
   medians (on a shared machine both move: quote the load printed beneath), by wall time and by
   CPU time (pagesim: the simulating thread in its loop, ``Result.cpu_seconds``; libCacheSim: the
   whole process during ``process_trace``, so threads it might start are counted). CPU time does not count
   time spent waiting for a core, so its ratio moves less with the machine's load.
4. pagesim's cold start (fresh ``PAGESIM_CACHE_DIR`` and ``NUMBA_CACHE_DIR``, in a subprocess:
   import + read the oracle file and remap + compile + run) and warm start (a second subprocess
   with the same cache folders: everything loads from disk).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

#: pagesim name -> libcachesim class name
LCS_NAMES = {
    "lru": "LRU",
    "fifo": "FIFO",
    "clock": "Clock",
    "lfu": "LFU",
    "opt": "Belady",
    "ce-fifo": "FIFO",
    "ce-s3fifo": "S3FIFO",
    "ce-lhd": "LHD",
    "ce-lfu": "LFU",
    "s3fifo": "S3FIFO",
    "arc": "ARC",
    "2q": "TwoQ",
    "lirs": "LIRS",
    "sieve": "Sieve",
    "w-tinylfu": "WTinyLFU",
}
#: pairs whose rules differ (cache_ext's coded S3-FIFO and integer, windowed LHD against the
#: papers' versions in libCacheSim): their miss counts are shown, not expected to agree
DIFFERENT_RULES = {"ce-s3fifo", "ce-lhd", "ce-lfu", "w-tinylfu"}
#: why each pair of DIFFERENT_RULES differs (printed under the table)
RULES_NOTE = {
    "ce-s3fifo": "cache_ext's S3-FIFO as run (its queue counters and small-queue rule), libCacheSim's "
    "the paper's (s3fifo agrees exactly)",
    "ce-lhd": "cache_ext's integer LHD scoring 16 sampled pages, libCacheSim's the paper's LHD",
    "ce-lfu": "cache_ext's sampled LFU (least of each 20 pages at the list's head), libCacheSim's a "
    "global LFU (lfu agrees exactly)",
    "w-tinylfu": "the paper's count-min sketch by default; sketch='cbf' is libCacheSim's counting "
    "Bloom filter and agrees exactly (tests/crosscheck)",
}
#: the suite of issue 5: cache_ext's policies and the classics with a libCacheSim peer
SUITE = "ce-fifo,ce-s3fifo,ce-lhd,ce-lfu,fifo,lfu,s3fifo,arc,lirs,sieve,2q,w-tinylfu"


def zipf_ids(n: int, pages: int, alpha: float, seed: int) -> np.ndarray:
    """``n`` ids in ``[0, pages)``, rank k drawn with probability proportional to k**-alpha."""
    rng = np.random.default_rng(seed)
    weights = np.arange(1, pages + 1, dtype=np.float64) ** -alpha
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    ranks = np.searchsorted(cdf, rng.random(n), side="right")
    np.minimum(ranks, pages - 1, out=ranks)
    return rng.permutation(pages).astype(np.int64)[ranks]


_START_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
from pagesim.engine import simulate
from pagesim.policies.registry import make_policy
from pagesim.trace import read_trace
t1 = time.perf_counter()
trace = read_trace(sys.argv[1], format="oracle")
t2 = time.perf_counter()
r = simulate(trace, make_policy(sys.argv[2]), int(sys.argv[3]))
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load_remap": t2 - t1, "compile_or_load": r.prepare_seconds,
                  "run": r.seconds, "in_process": t3 - t0, "misses": r.misses}))
"""


def start_time(oracle: Path, policy: str, capacity: int, cache_root: Path) -> dict[str, float]:
    """Run one pagesim simulation in a fresh interpreter whose caches live under ``cache_root``."""
    env = dict(os.environ)
    env["PAGESIM_CACHE_DIR"] = str(cache_root / "pagesim")
    env["NUMBA_CACHE_DIR"] = str(cache_root / "numba")
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _START_SCRIPT, str(oracle), policy, str(capacity)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - t0
    out: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    out["wall"] = wall
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="accesses (default 10M)")
    ap.add_argument("--pages", type=int, default=1_000_000, help="distinct pages (default 1M)")
    ap.add_argument(
        "--policies",
        default="lru,fifo,clock,lfu,opt",
        help="comma-separated pagesim names; 'suite' = issue 5's list (cache_ext's and the classics)",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs per policy and simulator; 'ratio' is of the fastest, 'median ratio' of the medians",
    )
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--cache-frac", type=float, default=0.1, help="cache size as a fraction of --pages")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--start-policy", default="lru", help="policy for the cold/warm start runs")
    ap.add_argument("--no-start", action="store_true", help="skip the cold/warm start subprocesses")
    args = ap.parse_args(argv)

    import libcachesim as lcs

    from pagesim.engine import simulate
    from pagesim.policies.registry import make_policy, policy_names
    from pagesim.trace import Trace, write_trace

    console = Console(width=160)
    known = set(policy_names())
    names = SUITE if args.policies.strip().lower() == "suite" else args.policies
    wanted = [p.strip().lower() for p in names.split(",") if p.strip()]
    skipped = [p for p in wanted if p not in known or p not in LCS_NAMES]
    policies = [p for p in wanted if p not in skipped]
    capacity = max(1, int(args.pages * args.cache_frac))

    load_before = os.getloadavg()
    t0 = time.perf_counter()
    ids = zipf_ids(args.n, args.pages, args.alpha, args.seed)
    t1 = time.perf_counter()
    trace = Trace.from_ids(ids, source={"generator": "bench zipf", "alpha": args.alpha, "seed": args.seed})
    t2 = time.perf_counter()
    console.print(
        f"zipf alpha={args.alpha}: {trace.n_requests:,} accesses, {trace.n_pages:,} distinct pages "
        f"(of {args.pages:,}); cache {capacity:,} pages; generate {t1 - t0:.2f} s, remap {t2 - t1:.2f} s"
    )
    if skipped:
        console.print(f"skipped (not registered or no libCacheSim peer): {', '.join(skipped)}")

    with tempfile.TemporaryDirectory(prefix="pagesim-bench-") as tmp:
        oracle = Path(tmp) / "zipf.oracleGeneral.bin"
        t3 = time.perf_counter()
        write_trace(trace, oracle, format="oracle", compress=False)
        console.print(
            f"oracleGeneral written in {time.perf_counter() - t3:.2f} s "
            f"({oracle.stat().st_size / 1e6:.0f} MB)"
        )

        table = Table(
            title=f"pagesim vs libCacheSim {getattr(lcs, '__version__', '0.3.5')}: zipf {args.alpha}, "
            f"{args.n / 1e6:g}M accesses, {args.pages / 1e6:g}M pages, cache {capacity:,}"
        )
        for col in (
            "policy",
            "misses pagesim",
            "misses libCacheSim",
            "agree",
            "pagesim M acc/s",
            "libCacheSim M acc/s",
            "ratio",
            "median ratio",
            "CPU ratio",
            "median CPU ratio",
        ):
            table.add_column(col, justify="left" if col == "policy" else "right")
        for name in policies:
            simulate(trace.head(1000), make_policy(name), 10)  # compile or load the runner first
            ps_rates, lcs_rates, ps_cpu, lcs_cpu = [], [], [], []
            for _ in range(max(args.repeat, 1)):
                r = simulate(trace, make_policy(name), capacity)
                ps_rates.append(r.accesses_per_second / 1e6)
                ps_cpu.append(r.cpu_seconds)
                reader = lcs.TraceReader(
                    str(oracle), lcs.TraceType.ORACLE_GENERAL_TRACE, lcs.ReaderInitParam(ignore_obj_size=True)
                )
                cache = getattr(lcs, LCS_NAMES[name])(capacity)
                t4 = time.perf_counter()
                c4 = time.process_time()
                miss_ratio, _ = cache.process_trace(reader)
                lcs_cpu.append(time.process_time() - c4)
                lcs_seconds = time.perf_counter() - t4
                lcs_misses = round(miss_ratio * trace.n_requests)
                lcs_rates.append(trace.n_requests / lcs_seconds / 1e6)
            ps_rate, lcs_rate = max(ps_rates), max(lcs_rates)
            agree = "yes" if lcs_misses == r.misses else f"NO ({r.misses - lcs_misses:+,})"
            if name in DIFFERENT_RULES:
                agree = f"other rules ({r.misses - lcs_misses:+,})"
            table.add_row(
                name,
                f"{r.misses:,}",
                f"{lcs_misses:,}",
                agree,
                f"{ps_rate:.1f}",
                f"{lcs_rate:.1f}",
                f"{ps_rate / lcs_rate:.1f}x",
                f"{statistics.median(ps_rates) / statistics.median(lcs_rates):.1f}x",
                f"{min(lcs_cpu) / min(ps_cpu):.1f}x" if min(ps_cpu) > 0 else "-",
                f"{statistics.median(lcs_cpu) / statistics.median(ps_cpu):.1f}x" if min(ps_cpu) > 0 else "-",
            )
        console.print(table)
        differ = [p for p in policies if p in DIFFERENT_RULES]
        if differ:
            console.print(
                "other rules: " + "; ".join(f"{p}: {RULES_NOTE[p]}" for p in differ if p in RULES_NOTE),
                soft_wrap=True,
            )
        load_after = os.getloadavg()
        console.print(
            "load average (1, 5, 15 min): before "
            + ", ".join(f"{x:.2f}" for x in load_before)
            + "; after "
            + ", ".join(f"{x:.2f}" for x in load_after)
            + f" ({os.cpu_count()} CPUs; speeds are comparable only within one run)"
        )

        if not args.no_start:
            root = Path(tmp) / "caches"
            cold = start_time(oracle, args.start_policy, capacity, root)
            warm = start_time(oracle, args.start_policy, capacity, root)
            st = Table(title=f"pagesim start-up, {args.start_policy}, fresh interpreter (seconds)")
            for col in ("run", "import", "load + remap", "compile / load", "loop", "in process", "wall"):
                st.add_column(col, justify="left" if col == "run" else "right")
            for label, d in (("cold (empty caches)", cold), ("warm (second process)", warm)):
                st.add_row(
                    label,
                    f"{d['import']:.2f}",
                    f"{d['load_remap']:.2f}",
                    f"{d['compile_or_load']:.2f}",
                    f"{d['run']:.2f}",
                    f"{d['in_process']:.2f}",
                    f"{d['wall']:.2f}",
                )
            console.print(st)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
