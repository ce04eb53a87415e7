"""W-TinyLFU's miniature-simulation bias on OLTP: each modelling candidate changed alone.

Not a test: a benchmark to run by hand (see bench/README.md and docs/mrc.md, "W-TinyLFU
deviates"). For each variant of ``w-tinylfu`` it runs the full trace at four sizes (12, 23, 34
and 45 % of the pages) and the miniature simulation (:func:`pagesim.analysis.mrc.minisim`) of a
fixed-size sample over several hash seeds, and prints the full miss ratios, the mean signed
error of the miniatures per size, its standard deviation over the seeds and the MAE.

A variant changes what ``WTinyLFU.configure`` sets (in both runs, or in the miniature only), a
policy parameter, the sample size, or, with ``--kernel-variants``, the policy's kernels (a
patched copy of the module in a temporary folder, compiled afresh: about 40 s CPU each):

- ``width=capacity``: a count-min row as wide as the cache, not the next power of two;
- ``width x4``: rows four times wider (fewer collisions);
- ``reset x n_s/(R N)`` (miniature only): the halving period, counted in sampled accesses, scaled
  by the sample's share of the accesses instead of its share of the pages;
- ``reset 2C`` .. ``no reset``: the halving period's weight (both runs);
- ``window=`` and ``sketch=cbf``: policy parameters (both runs);
- ``independent rows``: each row's cell from a mixed hash, not ``ha + r * hb`` (rows of the
  power-of-two sketch are then independent, so two pages share all four cells with
  probability ``width**-4``, not ``width**-2``);
- ``saturate at 7``: 3-bit counters instead of 4-bit;
- ``admit on ties``: the newcomer enters main when its estimate equals the victim's too.

    PYTHONPATH=src python bench/mrc_wtinylfu.py                      # 10 seeds, 10,000 pages
    PYTHONPATH=src python bench/mrc_wtinylfu.py --seeds 4 --kernel-variants
    PYTHONPATH=src python bench/mrc_wtinylfu.py --kernel-variants --only ties
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

FRACTIONS = (0.12, 0.23, 0.34, 0.45)

Hook = Callable[[Any, int, bool, float], None]  # (state, capacity, is_miniature, n_s / (R N))


@contextlib.contextmanager
def configured(cls: type, hook: Hook | None, n_pages: int, share: list[float]) -> Iterator[None]:
    """``cls.configure`` followed by ``hook`` while inside (a miniature: fewer pages)."""
    original = cls.configure
    if hook is None:
        yield
        return

    def patched(self, s, capacity):  # type: ignore[no-untyped-def]
        original(self, s, capacity)
        hook(s, capacity, s.pm.shape[0] < n_pages, share[0])

    cls.configure = patched
    try:
        yield
    finally:
        cls.configure = original


def errors(trace, module, params, hook, seeds, samples):  # type: ignore[no-untyped-def]
    """Full miss ratios at FRACTIONS and the miniatures' signed errors, shape (seeds, sizes)."""
    from pagesim.analysis.mrc.minisim import minisim, sample_trace
    from pagesim.engine import simulate

    cls = module.WTinyLFU
    caps = [round(trace.n_pages * f) for f in FRACTIONS]
    share = [1.0]
    with configured(cls, hook, trace.n_pages, share):
        full = np.array([simulate(trace, cls(**params), c).miss_ratio for c in caps])
        rows = []
        for seed in range(seeds):
            sample = sample_trace(trace, samples=samples, seed=seed)
            share[0] = sample.trace.n_requests / (sample.rate * trace.n_requests)
            rows.append(minisim(trace, sample, cls(**params), caps).miss_ratio - full)
    return full, np.array(rows)


def set_global(slot: str, value: Callable[[Any, int], int], miniature_only: bool = False) -> Hook:
    from pagesim.policies import wtinylfu as w

    def hook(s, capacity, is_mini, share):  # type: ignore[no-untyped-def]
        if miniature_only and not is_mini:
            return
        s.gi[getattr(w, slot)] = value(s, capacity * share if miniature_only else capacity)

    return hook


def patched_module(tmp: Path, name: str, replacements: list[tuple[str, str]]):  # type: ignore[no-untyped-def]
    """A copy of pagesim.policies.wtinylfu with ``replacements`` made, imported as ``name``."""
    from pagesim.policies import wtinylfu as w

    src = Path(w.__file__).read_text()
    for old, new in replacements + [('name = "w-tinylfu"', f'name = "w-tinylfu-{name}"')]:
        if old not in src:
            raise SystemExit(f"bench/mrc_wtinylfu.py: {old!r} not found in {w.__file__}")
        src = src.replace(old, new, 1)
    path = tmp / f"wtinylfu_{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"wtinylfu_{name}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = module  # type: ignore[union-attr]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def variants(kernel: bool, tmp: Path, samples: int):  # type: ignore[no-untyped-def]
    """(label, module, params, hook, samples) for every candidate."""
    from pagesim.policies import wtinylfu as w

    out = [
        ("as built", w, {}, None, samples),
        ("width=capacity", w, {}, set_global("G_CELLS", lambda s, c: max(int(c), 1)), samples),
        ("width x4", w, {}, set_global("G_CELLS", lambda s, c: 4 * int(s.gi[w.GI.cells])), samples),
        (
            "reset x n_s/(R N)",
            w,
            {},
            set_global("G_RESET_AT", lambda s, c: max(1, round(10 * c)), miniature_only=True),
            samples,
        ),
    ]
    for k in (2, 5, 40):
        out.append((f"reset {k}C", w, {}, set_global("G_RESET_AT", lambda s, c, k=k: k * int(c)), samples))
    out.append(("no reset", w, {}, set_global("G_RESET_AT", lambda s, c: 1 << 60), samples))
    out += [
        ("window=0.04", w, {"window": 0.04}, None, samples),
        ("window=0.1", w, {"window": 0.1}, None, samples),
        ("sketch=cbf", w, {"sketch": "cbf"}, None, samples),
        (f"samples {2 * samples:,}", w, {}, None, 2 * samples),
        (f"samples {4 * samples:,}", w, {}, None, 4 * samples),
    ]
    if kernel:
        mix = "    h = ((h ^ (h >> 16)) * 0x45D9F3B) & MASK32\n"
        row = "    h = (ha + i * hb) & MASK32\n"
        independent = patched_module(tmp, "mix", [(row, row + mix + mix + "    h = h ^ (h >> 16)\n")])
        sat = patched_module(tmp, "sat7", [("if n < CMS_MAX else 0", "if n < 7 else 0")])
        ties = patched_module(
            tmp, "ties", [("_estimate(s, v) > _estimate(s, m)", "_estimate(s, v) >= _estimate(s, m)")]
        )
        out += [
            ("independent rows", independent, {}, None, samples),
            ("saturate at 7", sat, {}, None, samples),
            ("admit on ties", ties, {}, None, samples),
        ]
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="arc/OLTP.lis.zst", help="under PAGESIM_TRACES")
    ap.add_argument("--seeds", type=int, default=10, help="hash seeds 0..N-1")
    ap.add_argument("--samples", type=int, default=10_000, help="pages in the base sample")
    ap.add_argument("--kernel-variants", action="store_true", help="also the three patched-kernel variants")
    ap.add_argument("--only", default="", help="run the variants whose label contains this")
    args = ap.parse_args(argv)

    from pagesim.trace import read_trace

    root = Path(os.environ.get("PAGESIM_TRACES") or Path(__file__).resolve().parents[2] / "shared" / "traces")
    trace = read_trace(str(root / args.trace))
    print(f"{args.trace}: {trace.n_requests:,} requests, {trace.n_pages:,} pages; sizes {FRACTIONS} of them")
    print(f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.seeds} seeds")
    print(f"{'variant':>20} | {'full miss ratio':>27} | {'mean error':>31} | {'sd':>27} | MAE")
    with tempfile.TemporaryDirectory(prefix="pagesim-wtlfu-") as tmp:
        for label, module, params, hook, samples in variants(args.kernel_variants, Path(tmp), args.samples):
            if args.only not in label:
                continue
            full, err = errors(trace, module, params, hook, args.seeds, samples)
            print(
                f"{label:>20} | {np.array2string(full, precision=4)} | "
                f"{np.array2string(err.mean(0), precision=4)} | "
                f"{np.array2string(err.std(0), precision=4)} | {np.abs(err).mean():.4f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
