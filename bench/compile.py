"""Cold start: seconds to compile each policy's runner, and README's first command, from empty caches.

Each measurement runs in a fresh subprocess whose ``PAGESIM_CACHE_DIR`` and ``NUMBA_CACHE_DIR`` are
empty folders in a temporary directory, so nothing is loaded from an earlier run. Figures are CPU
seconds (user + sys of the subprocess and everything it waited for, from ``getrusage``) and wall
seconds; on a shared machine the CPU figure is the one to compare.

Per policy the child simulates 200 accesses in cache mode (or kernel mode with ``--mode kernel``),
which compiles the runner and nothing else; ``compile`` is the CPU time of that call alone,
``process`` adds Python's start-up and pagesim's imports. With ``--phases`` the child also sums
numba's compile events (``numba.core.event``) exclusive of nesting: type inference, lowering to
LLVM IR, the other passes, and the time spent holding the LLVM lock (optimisation and machine
code); a nested compile of a callee is counted under its own passes, not its caller's.

Usage::

    python bench/compile.py                          # six policies of `pagesim run`, then `pagesim run`
    python bench/compile.py --policies lru,arc --phases
    python bench/compile.py --no-readme              # the policies only
    python bench/compile.py --policies lru --twice --no-readme

``--twice`` also starts two processes per policy at the same moment on one empty cache, as test
workers or a sweep's workers do: the runner's compile lock (``pagesim.engine.build.compiling``)
lets one compile while the other waits and then loads it, so the pair costs about one compile
plus a process start-up, not two compiles.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

README_POLICIES = "lru,fifo,clock,mru,lfu,opt"
PAGESIM = "import sys; from pagesim.cli import app; sys.argv[0] = 'pagesim'; app()"  #: the command


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _phase_listener():  # type: ignore[no-untyped-def]
    """A numba event listener that sums each phase's time exclusive of the phases nested in it."""
    from numba.core import event

    totals: dict[str, float] = defaultdict(float)
    stack: list[list] = []  # [phase name, start, time spent in children]

    def phase_of(ev) -> str:  # type: ignore[no-untyped-def]
        if ev.kind == "numba:run_pass":
            name = ev.data["name"]
            if "type_inference" in name:
                return "typing"
            if "lowering" in name:
                return "lowering"
            return "other passes"
        return "llvm"

    class Listener(event.Listener):
        def on_start(self, ev):  # type: ignore[no-untyped-def]
            stack.append([phase_of(ev), time.process_time(), 0.0])

        def on_end(self, ev):  # type: ignore[no-untyped-def]
            name, start, nested = stack.pop()
            spent = time.process_time() - start
            totals[name] += spent - nested
            if stack:
                stack[-1][2] += spent

    listener = Listener()
    for kind in ("numba:run_pass", "numba:llvm_lock"):
        event.register(kind, listener)
    return totals


def child(policy: str, mode: str, phases: bool) -> None:
    """Compile ``policy``'s runner by a tiny run; print one JSON line of CPU seconds."""
    totals = _phase_listener() if phases else {}
    import numpy as np

    from pagesim.engine import simulate
    from pagesim.policies import make_policy
    from pagesim.trace import Trace

    ids = np.arange(200, dtype=np.int64) % 37
    trace = Trace.from_ids(ids)
    start = time.process_time()
    if mode == "kernel":
        from pagesim.engine.kernel import KernelConfig, simulate_kernel

        simulate_kernel(trace, make_policy(policy), KernelConfig(memory_pages=64))
    else:
        simulate(trace, make_policy(policy), 16)
    out = {"compile": time.process_time() - start, **{k: round(v, 2) for k, v in totals.items()}}
    print(json.dumps(out))


def cold_env(root: Path) -> dict[str, str]:
    """The environment with fresh, empty pagesim and numba caches under ``root``."""
    env = dict(os.environ)
    env["PAGESIM_CACHE_DIR"] = str(root / "pagesim")
    env["NUMBA_CACHE_DIR"] = str(root / "numba")
    return env


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, stdout) of running ``cmd`` to its end."""
    cpu0, wall0 = _child_cpu(), time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return _child_cpu() - cpu0, time.perf_counter() - wall0, done.stdout


def measure_together(cmd: list[str], env: dict[str, str], count: int) -> float:
    """CPU seconds of ``count`` copies of ``cmd`` started at once (sharing ``env``'s caches)."""
    cpu0 = _child_cpu()
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL) for _ in range(count)]
    if any(p.wait() != 0 for p in procs):
        sys.exit(f"{' '.join(cmd)} failed")
    return _child_cpu() - cpu0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--policies", default=README_POLICIES, help="comma-separated policy names")
    parser.add_argument("--mode", choices=("cache", "kernel"), default="cache")
    parser.add_argument("--phases", action="store_true", help="numba's compile phases per policy")
    parser.add_argument("--no-readme", action="store_true", help="skip README's `pagesim run`")
    parser.add_argument(
        "--twice", action="store_true", help="also start two processes per policy at once (one cache)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.mode, args.phases)
        return
    print(f"cold compile from empty caches, {os.cpu_count()} cores; CPU = user + sys")
    header = f"{'policy':<14} {'process CPU s':>13} {'compile CPU s':>13} {'wall s':>7}"
    if args.phases:
        header += "  phases (CPU s)"
    print(header)
    total = 0.0
    for name in [p for p in args.policies.split(",") if p]:
        with tempfile.TemporaryDirectory(prefix="pagesim-cold-") as tmp:
            cmd = [sys.executable, __file__, "--child", name, "--mode", args.mode]
            cmd += ["--phases"] if args.phases else []
            cpu, wall, out = measure(cmd, cold_env(Path(tmp)))
        figures = json.loads(out.strip().splitlines()[-1])
        total += cpu
        line = f"{name:<14} {cpu:>13.1f} {figures.pop('compile'):>13.1f} {wall:>7.1f}"
        if figures:
            line += "  " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(figures.items()))
        if args.twice:
            with tempfile.TemporaryDirectory(prefix="pagesim-cold-") as tmp:
                both = measure_together(cmd, cold_env(Path(tmp)), 2)
            line += f"  two at once: {both:.1f} CPU s"
        print(line, flush=True)
    print(f"{'sum':<14} {total:>13.1f}")
    if not args.no_readme:
        with tempfile.TemporaryDirectory(prefix="pagesim-cold-") as tmp:
            cpu, wall, _ = measure([sys.executable, "-c", PAGESIM, "run"], cold_env(Path(tmp)))
        print(f"README's `pagesim run`, cold: {cpu:.1f} CPU s, {wall:.1f} s wall")


if __name__ == "__main__":
    main()
