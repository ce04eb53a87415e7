"""How a policy's named state could be reached from numba, and what each form costs.

Not a test: a benchmark to run by hand (see bench/README.md). One hot path in the shape of
S3-FIFO's (a per-page counter bumped on every access, a global hit/miss count, a per-page link
and a global head written on a miss) over a seeded Zipf(1.2) trace of ``--n`` accesses to
``--pages`` pages, written five ways:

- ``offsets``: ``pm[p, FREQ]`` and ``gi[G_HITS]`` with module-level int constants;
- ``layout``: ``pm[p, PM.freq]`` and ``gi[GI.hits]`` with ``pagesim.core.layout`` named tuples;
- ``arrays``: a named tuple with one array per field (scalars as 1-element arrays);
- ``jitclass``: a ``numba.experimental.jitclass`` with array and scalar members;
- ``structref``: a ``numba.experimental.structref`` with array and scalar members.

Each form runs in its own subprocess (cold: its own empty numba cache), printing the seconds
to define and compile it and the fastest of ``--repeat`` runs.

Usage::

    python bench/state_forms.py                 # 5M accesses, 200k pages, 5 runs
    python bench/state_forms.py --n 1000000 --forms offsets,layout
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

FORMS = ("offsets", "layout", "arrays", "jitclass", "structref")


def _child(form: str, n: int, pages: int, repeat: int) -> dict[str, float]:  # noqa: C901, PLR0915
    from collections import namedtuple

    import numpy as np
    from numba import int64, njit

    from pagesim.core.layout import Layout, field

    trace = (np.random.default_rng(1).zipf(1.2, n) % pages).astype(np.int64)
    t0 = time.perf_counter()
    if form in ("offsets", "layout"):
        if form == "offsets":
            freq, nxt, hits, miss, head = 0, 1, 4, 5, 6
        else:
            st = Layout(
                "demo",
                pm=(field("freq", "accesses", "hits"), field("nxt", "page id", "a link")),
                gi=tuple(field(x, "pages", "a global") for x in ("hits", "miss", "head")),
            )
            freq, nxt, hits, miss, head = st.pm.freq, st.pm.nxt, st.gi.hits, st.gi.miss, st.gi.head

        @njit
        def step(pm, gi, p):  # type: ignore[no-untyped-def]
            if pm[p, freq] > 0:
                gi[hits] += 1
            else:
                gi[miss] += 1
                pm[p, nxt] = gi[head]
                gi[head] = p
            if pm[p, freq] < 3:
                pm[p, freq] += 1

        @njit
        def run(pm, gi, tr):  # type: ignore[no-untyped-def]
            for p in tr:
                step(pm, gi, p)
            return gi[hits]

        args: tuple = (np.zeros((pages, 4), np.int64), np.zeros(8, np.int64), trace)
    elif form == "arrays":
        state = namedtuple("state", "freq nxt hits miss head")  # noqa: PYI024

        @njit
        def step(s, p):  # type: ignore[no-untyped-def]
            if s.freq[p] > 0:
                s.hits[0] += 1
            else:
                s.miss[0] += 1
                s.nxt[p] = s.head[0]
                s.head[0] = p
            if s.freq[p] < 3:
                s.freq[p] += 1

        @njit
        def run(s, tr):  # type: ignore[no-untyped-def]
            for p in tr:
                step(s, p)
            return s.hits[0]

        z, o = (lambda: np.zeros(pages, np.int64)), (lambda: np.zeros(1, np.int64))
        args = (state(z(), z(), o(), o(), o()), trace)
    else:
        if form == "jitclass":
            from numba.experimental import jitclass

            @jitclass(
                [("freq", int64[:]), ("nxt", int64[:]), ("hits", int64), ("miss", int64), ("head", int64)]
            )
            class Obj:
                def __init__(self, freq, nxt):  # type: ignore[no-untyped-def]
                    self.freq = freq
                    self.nxt = nxt
                    self.hits = 0
                    self.miss = 0
                    self.head = 0

            obj = Obj(np.zeros(pages, np.int64), np.zeros(pages, np.int64))
        else:
            from numba.core import types
            from numba.experimental import structref

            @structref.register
            class ObjType(types.StructRef):
                def preprocess_fields(self, fields):  # type: ignore[no-untyped-def]
                    return tuple((k, types.unliteral(t)) for k, t in fields)

            class ObjProxy(structref.StructRefProxy):
                pass

            structref.define_proxy(ObjProxy, ObjType, ["freq", "nxt", "hits", "miss", "head"])
            obj = ObjProxy(np.zeros(pages, np.int64), np.zeros(pages, np.int64), 0, 0, 0)

        @njit
        def step(s, p):  # type: ignore[no-untyped-def]
            if s.freq[p] > 0:
                s.hits += 1
            else:
                s.miss += 1
                s.nxt[p] = s.head
                s.head = p
            if s.freq[p] < 3:
                s.freq[p] += 1

        @njit
        def run(s, tr):  # type: ignore[no-untyped-def]
            for p in tr:
                step(s, p)
            return s.hits

        args = (obj, trace)
    t1 = time.perf_counter()
    run(*args)
    t2 = time.perf_counter()
    best = float("inf")
    for _ in range(repeat):
        a = time.perf_counter()
        run(*args)
        best = min(best, time.perf_counter() - a)
    return {"define": t1 - t0, "compile": t2 - t1, "run": best}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5_000_000, help="accesses (default 5M)")
    ap.add_argument("--pages", type=int, default=200_000, help="distinct pages (default 200k)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per form (the fastest is shown)")
    ap.add_argument("--forms", default=",".join(FORMS), help="comma-separated, of " + ", ".join(FORMS))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.n, args.pages, args.repeat)))
        return 0
    print(f"{'form':<10} {'define s':>9} {'compile s':>10} {'run ms':>8} {'M acc/s':>8}")
    for form in args.forms.split(","):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            cmd = [sys.executable, __file__, "--child", form, "--n", str(args.n), "--pages", str(args.pages)]
            out = subprocess.run(
                [*cmd, "--repeat", str(args.repeat)], env=env, capture_output=True, text=True
            )
        if out.returncode != 0:
            print(f"{form:<10} failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(out.stdout)
        rate = args.n / r["run"] / 1e6
        print(f"{form:<10} {r['define']:9.2f} {r['compile']:10.2f} {r['run'] * 1e3:8.1f} {rate:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
