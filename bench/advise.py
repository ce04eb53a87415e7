"""``advise`` against full simulation: does it pick a policy within 0.01 of the true best?

Not a test: a benchmark to run by hand (see bench/README.md). For every real trace in the
traces folder (``$PAGESIM_TRACES``, default ../shared/traces: the lirs, lirs2 and arc folders
and one format of each libcachesim trace) at 1 %, 5 % and 10 % of its unique pages, it runs
``advise(trace, size, "all", check=True)`` and prints one row per case: the trace, the size in
pages, how the advice was made (``minisim`` at rate R, or ``full`` where a miniature would be
too small or the samples would cost as much as the trace), the advised policy, its true miss
ratio, the true best and its miss ratio, the gap, whether the advice was clear, the seconds of
the advice and of simulating every candidate in full. The last line counts the cases within
0.01 of the best (issue 27's target: all of them).

Runners are loaded (or compiled) on a short trace before anything is timed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pagesim.analysis.advise import MIN_PAGES, TOLERANCE, advise, candidates
from pagesim.analysis.compare import resolve_size
from pagesim.engine import simulate
from pagesim.trace import Trace
from pagesim.trace.io import read_trace

FOLDERS = ("lirs", "lirs2", "arc")
LIBCACHESIM = "libcachesim/cloudPhysicsIO.oracleGeneral.bin"  # one format of the four
SIZES = ("1%", "5%", "10%")


def trace_files(root: Path) -> list[Path]:
    files = [f for folder in FOLDERS for f in sorted((root / folder).glob("*")) if f.is_file()]
    extra = root / LIBCACHESIM
    return files + ([extra] if extra.is_file() else [])


def warm_runners(policies: str) -> None:
    """Load every candidate's runner so that no timing below includes a compile."""
    tiny = Trace.from_ids([i % 7 for i in range(200)])
    for policy in candidates(policies):
        simulate(tiny, policy, 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=os.environ.get("PAGESIM_TRACES", "../shared/traces"))
    parser.add_argument("--policies", default="all")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--params", action="store_true", help="advise parameters too (PARAM_GRID)")
    parser.add_argument("--min-pages", type=int, default=MIN_PAGES, help="smallest miniature (pages)")
    args = parser.parse_args()
    root = Path(args.traces)
    files = trace_files(root)
    if not files:
        print(f"no traces under {root}", file=sys.stderr)
        return 2
    warm_runners(args.policies)
    header = (
        f"{'trace':<26} {'size':>7} {'how':<14} {'advised':<22} {'its true':>8} {'true best':<22} "
        f"{'best':>7} {'gap':>7} {'clear':>5} {'advise s':>8} {'full s':>7}"
    )
    print(header)
    within = total = sampled = 0
    for path in files:
        trace = read_trace(str(path))
        name = str(path.relative_to(root))
        for text in SIZES:
            size = resolve_size(text, trace)
            a = advise(
                trace,
                size,
                args.policies,
                params=args.params,
                seeds=args.seeds,
                check=True,
                min_pages=args.min_pages,
            )
            truth = dict(zip(a.table["policy"], a.table["true_miss_ratio"]))
            how = "full" if a.method == "full" else f"minisim {a.rate:.3g}"
            total += 1
            sampled += a.method == "minisim"
            within += bool(a.within)
            print(
                f"{name:<26} {size:>7,} {how:<14} {a.best:<22} {truth[a.best]:>8.4f} {a.true_best:<22} "
                f"{truth[a.true_best]:>7.4f} {a.gap:>7.4f} {'yes' if a.clear else 'no':>5} "
                f"{a.seconds:>8.2f} {a.full_seconds:>7.2f}",
                flush=True,
            )
    print(
        f"within {TOLERANCE} of the true best: {within} of {total} "
        f"({sampled} by miniatures, the rest in full)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
