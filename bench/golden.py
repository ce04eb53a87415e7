"""Golden counters: every built-in policy on a fixed set of runs, recorded or checked exactly.

A refactoring must not change what a user can measure. This script runs a fixed set of
simulations and writes every counter (and, in kernel mode, every modelled figure: throughput,
latencies, per-task times, readouts) to ``tests/data/golden.json``; ``--check`` runs them again
and lists every value that differs. Wall-clock figures (``seconds``, ``prepare_seconds``) are left
out: they are the only outputs allowed to change.

The runs:

* cache mode: every registered policy (``pagesim policies``) on two real traces of
  ``$PAGESIM_TRACES`` (default ``../shared/traces``, see PROVENANCE.md there), each at three
  sizes (1 %, 5 % and 20 % of the pages it touches): LIRS's ``sprite`` (134 k accesses) and ARC's
  ``OLTP`` (914 k);
* kernel mode: each kernel workload (``pagesim workloads``) at a small scale under each kernel
  policy (``linux-lru``, ``mglru``, ``cast``, ``lru``: ``pagesim run``'s defaults), on the node
  ``pagesim run`` builds (zram swap, SSD file device, swappiness 60, ``schedule="time"``);
* the cache_ext experiments at the small scales of ``tests/unit/test_experiments.py``, with every
  policy of each experiment's default list.

``tests/unit/test_golden.py`` checks the part of this set that the rest of the test suite compiles
anyway (cache mode, and a few kernel-mode runs); this script checks all of it.

Usage::

    python bench/golden.py            # record (overwrites tests/data/golden.json)
    python bench/golden.py --check    # compare; exit status 1 on any difference
    python bench/golden.py --check --only cache   # one part: cache, kernel or experiments
    python bench/golden.py --check --match /cast  # only the entries whose key contains /cast

Cold (nothing compiled), recording takes about half an hour on two cores, most of it compiling
kernel-mode runners; warm, a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "data" / "golden.json"
TRACES = Path(os.environ.get("PAGESIM_TRACES") or REPO.parent / "shared" / "traces")
TWITTER_SAMPLE = REPO / "tests" / "data" / "twitter_sample.csv"

#: (name, path under TRACES); every policy runs on each at each share of its pages.
CACHE_TRACES = (("sprite", "lirs/sprite.trace.gz"), ("OLTP", "arc/OLTP.lis.zst"))
CACHE_SHARES = (0.01, 0.05, 0.20)

#: ``pagesim run``'s kernel policies.
KERNEL_POLICIES = ("linux-lru", "mglru", "cast", "lru")

#: Each kernel workload at a small scale (parameters as ``pagesim run WORKLOAD?k=v`` takes them).
KERNEL_WORKLOADS: dict[str, dict[str, Any]] = {
    "stress-vm": {"memory_pages": 400, "workers": 2, "passes": 2},
    "stream-ws": {"memory_pages": 2048, "extra_periods": 5},
    "mix": {"memory_pages": 2000},
    "ycsb": {"scale": 1 / 4096, "ops": 6000},
    "twitter": {"path": str(TWITTER_SAMPLE), "scale": 1 / 4096},
    "file-search": {"scale": 1 / 1024, "passes": 3},
    "get-scan": {"scale": 1 / 4096},
    "compaction": {"scale": 1 / 4096},
}

#: Fields of a result that are wall-clock measurements, not model outputs.
TIMING_FIELDS = frozenset({"seconds", "prepare_seconds", "cpu_seconds", "accesses_per_second"})


def cache_key(trace: str, share: float, policy: str) -> str:
    """The golden entry of one cache-mode run."""
    return f"cache/{trace}/{share:g}/{policy}"


def kernel_key(workload: str, policy: str) -> str:
    """The golden entry of one kernel-mode run."""
    return f"kernel/{workload}/{policy}"


def _capacity(n_pages: int, share: float) -> int:
    return max(1, round(n_pages * share))


def cache_runs(
    traces: tuple[tuple[str, str], ...] = CACHE_TRACES, traces_dir: Path = TRACES
) -> Iterator[tuple[str, Callable[[], Any]]]:
    """(key, run) for every cache-mode entry; ``run()`` returns the counters (dict of str to int)."""
    from pagesim.engine import simulate
    from pagesim.policies.registry import make_policy, policy_names
    from pagesim.trace import read_trace

    for name, rel in traces:
        path = traces_dir / rel
        if not path.is_file():
            raise SystemExit(f"golden: trace not found: {path} (set PAGESIM_TRACES)")
        trace = read_trace(path)
        for share in CACHE_SHARES:
            capacity = _capacity(trace.n_pages, share)
            for policy in policy_names():

                def run(policy: str = policy, capacity: int = capacity, trace: Any = trace) -> Any:
                    return {"capacity": capacity, **simulate(trace, make_policy(policy), capacity).counters}

                yield cache_key(name, share, policy), run


def kernel_result(workload: str, params: dict[str, Any], policy: str) -> dict[str, Any]:
    """``pagesim run WORKLOAD --policy POLICY`` on its default node; the result without timings."""
    from pagesim.engine.kernel import KernelRun
    from pagesim.engine.memory import KernelConfig
    from pagesim.policies.registry import make_policy
    from pagesim.workloads.kernel import make_kernel_workload

    trace = make_kernel_workload(workload, **params)
    config = KernelConfig(memory_pages=int(trace.source["memory_pages"]))
    config.validated()
    run = KernelRun(trace, make_policy(policy), config)
    run.advance()
    return {k: v for k, v in run.result().to_dict().items() if k not in TIMING_FIELDS}


def kernel_runs(
    workloads: dict[str, dict[str, Any]] = KERNEL_WORKLOADS, policies: tuple[str, ...] = KERNEL_POLICIES
) -> Iterator[tuple[str, Callable[[], Any]]]:
    """(key, run) for every kernel-mode entry."""
    for workload, params in workloads.items():
        for policy in policies:
            yield kernel_key(workload, policy), lambda w=workload, p=params, q=policy: kernel_result(w, p, q)


def _experiment_rows(exp: Any) -> dict[str, Any]:
    import dataclasses

    return {f"{m.workload}/{m.policy}": dataclasses.asdict(m) for m in exp.runs}


def experiment_runs() -> Iterator[tuple[str, Callable[[], Any]]]:
    """(key, run) for each cache_ext experiment at a small scale, every default policy."""
    from pagesim.analysis import experiments as E

    scale = 1 / 4096
    calls: dict[str, Callable[[], Any]] = {
        "ycsb": lambda: E.ycsb_experiment(workloads=["C"], scale=scale, latency_window=5000),
        "twitter": lambda: E.twitter_experiment(path=str(TWITTER_SAMPLE), scale=scale),
        "file-search": lambda: E.file_search_experiment(scale=scale * 4, passes=3),
        "get-scan": lambda: E.get_scan_experiment(scale=scale, fadvise=()),
        "get-scan-fadvise": lambda: E.get_scan_experiment(scale=scale, policies=("linux-lru",)),
        "isolation": lambda: E.isolation_experiment(scale=scale),
        "admission": lambda: E.admission_experiment(scale=scale, latency_window=5000),
    }
    for name, call in calls.items():
        yield f"experiment/{name}", lambda call=call: _experiment_rows(call())


PARTS: dict[str, Callable[[], Iterator[tuple[str, Callable[[], Any]]]]] = {
    "cache": cache_runs,
    "kernel": kernel_runs,
    "experiments": experiment_runs,
}


def normalise(value: Any) -> Any:
    """The value as JSON would give it back (tuples as lists, numpy scalars as Python numbers),
    with the checkout's own path written ``<repo>`` so that a file recorded in one checkout
    checks in another."""
    text = json.dumps(value, default=_json_default).replace(json.dumps(str(REPO))[1:-1], "<repo>")
    return json.loads(text)


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "tolist"):
        return obj.tolist()
    raise TypeError(f"cannot store {type(obj).__name__} in the golden file")


def differences(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Each path at which ``actual`` differs from ``expected`` (exact comparison), as text."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[str] = []
        for key in sorted(set(expected) | set(actual), key=str):
            if key not in actual:
                out.append(f"{where}/{key}: missing (expected {expected[key]!r})")
            elif key not in expected:
                out.append(f"{where}/{key}: new field ({actual[key]!r})")
            else:
                out.extend(differences(expected[key], actual[key], f"{where}/{key}"))
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [
            d for i, (e, a) in enumerate(zip(expected, actual)) for d in differences(e, a, f"{where}[{i}]")
        ]
    return [] if expected == actual else [f"{where}: expected {expected!r}, got {actual!r}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with the golden file instead of writing it"
    )
    parser.add_argument("--only", choices=sorted(PARTS), action="append", help="one part (repeatable)")
    parser.add_argument(
        "--match", action="append", help="only entries whose key contains this text (repeatable: any)"
    )
    args = parser.parse_args(argv)
    parts = args.only or list(PARTS)
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.is_file() else {}
    if args.check and not golden:
        print(f"golden: {GOLDEN} not found; record it first (python bench/golden.py)", file=sys.stderr)
        return 2
    recorded = dict(golden)
    failures: list[str] = []
    start = time.perf_counter()
    for part in parts:
        for key, run in PARTS[part]():
            if args.match and not any(m in key for m in args.match):
                continue
            t0 = time.perf_counter()
            value = normalise(run())
            note = f"{time.perf_counter() - t0:6.1f} s  {key}"
            if args.check:
                if key not in golden:
                    failures.append(f"{key}: not in the golden file")
                    print(f"NEW   {note}", flush=True)
                    continue
                diff = differences(golden[key], value, key)
                failures.extend(diff)
                print(f"{'DIFF' if diff else 'ok  '}  {note}", flush=True)
            else:
                recorded[key] = value
                print(f"rec   {note}", flush=True)
    if not args.check:
        GOLDEN.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        print(f"golden: {len(recorded)} entries written to {GOLDEN} in {time.perf_counter() - start:.0f} s")
        return 0
    for line in failures[:50]:
        print(line)
    print(f"golden: {len(failures)} difference(s) in {time.perf_counter() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
