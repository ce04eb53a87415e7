"""pagesim alone on the bench trace: miss count and CPU time per access, for A/B comparisons.

Not a test: a benchmark to run by hand (see bench/README.md). Each spec is a policy name with
optional integer parameters, ``name?k=v&k=v``. Per spec, ``simulate`` runs ``--runs`` times on
the Zipf trace of ``vs_libcachesim.py`` (same generator and defaults) and the least CPU time of
the simulating thread (``Result.cpu_seconds``) is printed as ns per access: on a shared machine
the minimum of CPU time moves least. To compare two versions, alternate them (A B A B A B),
each checkout with its own ``PAGESIM_CACHE_DIR`` and ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vs_libcachesim import zipf_ids  # noqa: E402

from pagesim.engine import simulate  # noqa: E402
from pagesim.policies.registry import make_policy  # noqa: E402
from pagesim.trace import Trace  # noqa: E402


def parse_spec(spec: str) -> tuple[str, dict[str, int]]:
    """``"ce-lfu?sample_size=1"`` -> ``("ce-lfu", {"sample_size": 1})``."""
    name, _, query = spec.partition("?")
    params = {}
    for item in filter(None, query.split("&")):
        key, _, value = item.partition("=")
        params[key] = int(value)
    return name, params


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="+", help="policy names, with ?k=v&k=v integer parameters")
    ap.add_argument("--n", type=int, default=10_000_000, help="accesses")
    ap.add_argument("--pages", type=int, default=1_000_000, help="distinct pages drawn from")
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--cache", type=int, default=100_000, help="cache size in pages")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    trace = Trace.from_ids(zipf_ids(args.n, args.pages, args.alpha, args.seed))
    for spec in args.specs:
        name, params = parse_spec(spec)
        results = [simulate(trace, make_policy(name, **params), args.cache) for _ in range(args.runs)]
        best = min(r.cpu_seconds for r in results)
        print(
            f"{spec:28s} misses {results[0].misses:>10,}  cpu {best * 1e3:7.1f} ms  "
            f"{best / args.n * 1e9:6.1f} ns/access",
            flush=True,
        )


if __name__ == "__main__":
    main()
