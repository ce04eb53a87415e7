"""Peak memory and time of cache mode as the trace grows: 10 M, 100 M, 1 B accesses.

    python bench/scale.py                                  # 10M and 100M, lru arc s3fifo
    python bench/scale.py --sizes 10M,100M,1G --policies lru,arc,s3fifo,opt
    python bench/scale.py --sizes 10M --mode never         # the in-memory path, for comparison

Each trace is generated once into ``--dir`` (default: ``$TMPDIR`` or /tmp, never the project) as a
``.pgt`` file written chunk by chunk (`pagesim.trace.readers.native.write_columns`): a scan of
every page in turn (so the ids are dense in first-occurrence order without remapping), then a
mix of Zipf(``--alpha``) over the pages in a random order (share 1 - ``--uniform``) and uniform
draws. Pages: ``--pages`` (default 1/64 of the accesses, at most 16 M). Kept for the next
invocation; ``--clean`` deletes it afterwards.

Per size and policy, ``pagesim compare FILE -p POLICY --size 10% --no-opt --json`` runs in a
child process (``PAGESIM_STREAM`` = ``--mode``: ``always`` streams, ``never`` reads into memory);
its peak RSS comes from ``os.wait4`` (the child alone), its wall time from the clock, its loop
time from the JSON. A further child reads the trace's chunks without simulating: pagesim's own
reading speed. The table ends with how RSS and time grow from one size to the next.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import numpy as np

from pagesim.trace.readers.native import write_columns
from pagesim.workloads.synthetic import _inverse_cdf, zipf_probabilities

CHUNK = 1 << 21


def parse_count(text: str) -> int:
    """``10M`` -> 10_000_000; ``1G`` or ``1B`` -> 10**9."""
    text = text.strip().upper()
    mult = {"K": 10**3, "M": 10**6, "G": 10**9, "B": 10**9}.get(text[-1:], 1)
    return int(float(text.rstrip("KMGB")) * mult)


def _pages(n: int, n_pages: int, alpha: float, uniform: float, seed: int) -> Iterator[np.ndarray]:
    """The page column in chunks: a scan of all pages, then the Zipf/uniform mix."""
    for s in range(0, min(n, n_pages), CHUNK):
        yield np.arange(s, min(s + CHUNK, n, n_pages), dtype=np.int64)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n_pages).astype(np.int64)
    cdf = np.cumsum(zipf_probabilities(n_pages, alpha))
    guide = np.searchsorted(cdf, np.arange(n_pages) * (cdf[-1] / n_pages), side="right")
    for s in range(n_pages, n, CHUNK):
        m = min(CHUNK, n - s)
        page = order[_inverse_cdf(cdf, guide, rng.random(m) * cdf[-1])]
        flat = rng.random(m) < uniform
        page[flat] = rng.integers(0, n_pages, int(flat.sum()))
        yield page


def generate(path: str, n: int, n_pages: int, alpha: float, uniform: float, seed: int) -> None:
    """Write the bench trace of `n` accesses over `n_pages` pages to `path` (.pgt, zstd)."""
    source = {
        "format": "bench-scale",
        "n": n,
        "n_pages": n_pages,
        "alpha": alpha,
        "uniform": uniform,
        "seed": seed,
    }
    tmp = path + ".part"
    original = np.arange(n_pages, dtype=np.int64) * 7919 + 13  # any distinct ids
    write_columns(tmp, n, original, {"page": _pages(n, n_pages, alpha, uniform, seed)}, source=source)
    os.replace(tmp, path)


def measured(argv: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """(wall seconds, peak RSS bytes of the child alone via ``os.wait4``, stdout) of `argv`."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {err.read().strip()[-2000:]}")
        return wall, usage.ru_maxrss * 1024, out.read()


READ_ONLY = (
    "import sys,time\n"
    "from pagesim.trace.stream import open_stream\n"
    "t=time.perf_counter();s=open_stream(sys.argv[1]);n=0\n"
    "for c in s.chunks(): n+=c.page.shape[0]\n"
    "print(n, time.perf_counter()-t)\n"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10M,100M", help="accesses per trace, comma-separated (10M,100M,1G)")
    ap.add_argument("--policies", default="lru,arc,s3fifo")
    ap.add_argument("--pages", type=int, default=0, help="distinct pages (default: n/64, at most 16M)")
    ap.add_argument("--alpha", type=float, default=0.9)
    ap.add_argument("--uniform", type=float, default=0.2, help="share of uniform draws")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", default="10%", help="cache size given to pagesim compare")
    ap.add_argument("--mode", default="always", choices=("always", "never", "auto"), help="PAGESIM_STREAM")
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--clean", action="store_true", help="delete each trace after its runs")
    ap.add_argument("--no-read", action="store_true", help="skip the reading-speed row")
    args = ap.parse_args()
    env = {**os.environ, "PAGESIM_STREAM": args.mode}
    pagesim = [sys.executable, "-c", "from pagesim.cli import app; app()"]
    rows = []
    print(
        f"{'accesses':>13} {'pages':>11} {'policy':>8} {'wall s':>8} {'loop s':>8} {'ns/acc':>7} "
        f"{'peak RSS MB':>12}"
    )
    for text in args.sizes.split(","):
        n = parse_count(text)
        n_pages = args.pages or max(1, min(n // 64, 1 << 24))
        path = os.path.join(args.dir, f"pagesim-scale-{n}-{n_pages}-{args.seed}.pgt")
        if not os.path.exists(path):
            t0 = time.perf_counter()
            generate(path, n, n_pages, args.alpha, args.uniform, args.seed)
            print(
                f"# generated {path} ({os.path.getsize(path) / 1e9:.2f} GB) "
                f"in {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
        if not args.no_read:
            wall, rss, out = measured([sys.executable, "-c", READ_ONLY, path], env)
            count, seconds = out.split()
            print(f"{n:>13,} {n_pages:>11,} {'(read)':>8} {wall:>8.1f} {float(seconds):>8.1f} "
                  f"{1e9 * float(seconds) / n:>7.1f} {rss / 2**20:>12,.0f}", flush=True)  # fmt: skip
        for policy in args.policies.split(","):
            argv = [*pagesim, "compare", path, "-p", policy, "--size", args.size, "--no-opt", "--json"]
            wall, rss, out = measured(argv, env)
            record = json.loads(out.splitlines()[0])
            loop = float(record["seconds"])
            rows.append((n, policy, wall, rss))
            print(f"{n:>13,} {n_pages:>11,} {policy:>8} {wall:>8.1f} {loop:>8.1f} {1e9 * loop / n:>7.1f} "
                  f"{rss / 2**20:>12,.0f}", flush=True)  # fmt: skip
        if args.clean:
            os.unlink(path)
    print("\ngrowth from one size to the next (accesses x, RSS x, wall x):")
    for policy in args.policies.split(","):
        mine = [r for r in rows if r[1] == policy]
        for a, b in zip(mine, mine[1:]):
            print(f"  {policy:>8} {a[0]:,} -> {b[0]:,}: accesses x{b[0] / a[0]:.0f}, RSS x{b[3] / a[3]:.2f}, "
                  f"wall x{b[2] / a[2]:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
