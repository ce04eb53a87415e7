"""How much a policy's cache-mode runner gives numba and LLVM to compile: counts, not seconds.

Cold compile times on a shared machine move by 5-15 % between runs; the amount of work handed
to each compiler stage does not move at all. For one policy this script compiles the runner from
empty caches (a 200-access run, as ``bench/compile.py``) and prints, for the runner only:

* ``inlines``: functions numba inlined at IR level (``inline="always"``: the loop, the hook
  dispatchers, the hooks a class inlines, their helpers), counting each nested inline;
* ``inlined_stmts``: numba IR statements of those callees when inlined (each is run through
  numba's front end and deep-copied twice);
* ``blocks_x_vars``: per inlined callee, its blocks times the variables of its scope, summed.
  numba's inliner deep-copies a callee block by block, and each block's copy copies the whole
  scope, so this product, not the statements, grows the inlining pass's time, and most of it is
  the loop (``run_cache``, with the engine's helpers already inlined) inlined into the runner;
* ``numba_stmts``: statements of the runner's numba IR when it is lowered (typing and lowering);
* ``llvm_raw``: LLVM instructions numba emits for the runner before any optimisation (LLVM's
  function passes run over these), and ``llvm_linked``/``llvm_opt`` after the function passes
  and after the module passes;
* ``other_functions``/``other_llvm_raw``: functions compiled beside the runner in the same call
  (helpers numba compiles on their own) and their raw LLVM instructions.

Usage::

    PYTHONPATH=src python bench/compile_size.py --policies arc,fifo
    PYTHONPATH=src python bench/compile_size.py --policies arc --detail   # per inlined function

Each policy runs in a fresh subprocess with empty ``PAGESIM_CACHE_DIR`` and ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from typing import Any


def _instructions(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("  ") and not line.lstrip().startswith(";"))


def child(policy: str, detail: bool) -> None:
    """Compile ``policy``'s runner with numba's stages instrumented; print one JSON line."""
    from numba.core import codegen, inline_closurecall, typed_passes

    raw: collections.Counter[str] = collections.Counter()
    linked: dict[str, int] = {}
    optimised: dict[str, int] = {}
    inlines: collections.Counter[str] = collections.Counter()
    inlined: collections.Counter[str] = collections.Counter()
    squared: collections.Counter[str] = collections.Counter()
    lowered: dict[str, int] = {}

    add_ir_module = codegen.CPUCodeLibrary.add_ir_module
    optimise = codegen.CPUCodeLibrary._optimize_final_module
    inline_ir = inline_closurecall.InlineWorker.inline_ir
    lower = typed_passes.NativeLowering.run_pass

    def add_ir_module_counted(self, module):  # type: ignore[no-untyped-def]
        raw[self.name] += _instructions(str(module))
        return add_ir_module(self, module)

    def optimise_counted(self):  # type: ignore[no-untyped-def]
        linked[self.name] = _instructions(str(self._final_module))
        optimise(self)
        optimised[self.name] = _instructions(str(self._final_module))

    def inline_ir_counted(self, caller_ir, block, i, callee_ir, *args, **kw):  # type: ignore[no-untyped-def]
        name = callee_ir.func_id.func_qualname
        inlines[name] += 1
        inlined[name] += sum(len(b.body) for b in callee_ir.blocks.values())
        scope = next(iter(callee_ir.blocks.values())).scope
        squared[name] += len(callee_ir.blocks) * len(scope.localvars._con)
        return inline_ir(self, caller_ir, block, i, callee_ir, *args, **kw)

    def lower_counted(self, state):  # type: ignore[no-untyped-def]
        lowered[state.func_id.func_qualname] = sum(len(b.body) for b in state.func_ir.blocks.values())
        return lower(self, state)

    codegen.CPUCodeLibrary.add_ir_module = add_ir_module_counted
    codegen.CPUCodeLibrary._optimize_final_module = optimise_counted
    inline_closurecall.InlineWorker.inline_ir = inline_ir_counted
    typed_passes.NativeLowering.run_pass = lower_counted

    import numpy as np

    from pagesim.engine import simulate
    from pagesim.policies import make_policy
    from pagesim.trace import Trace

    simulate(Trace.from_ids(np.arange(200, dtype=np.int64) % 37), make_policy(policy), 16)
    out: dict[str, Any] = {
        "inlines": sum(inlines.values()),
        "inlined_stmts": sum(inlined.values()),
        "blocks_x_vars": sum(squared.values()),
        "numba_stmts": lowered.get("run", 0),
        "llvm_raw": raw["run"],
        "llvm_linked": linked.get("run", 0),
        "llvm_opt": optimised.get("run", 0),
        "other_functions": len(lowered) - ("run" in lowered),
        "other_llvm_raw": sum(v for k, v in raw.items() if k != "run"),
    }
    if detail:
        per = {k: [inlines[k], inlined[k], squared[k]] for k, _ in squared.most_common()}
        out["per_inlined_function"] = per
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policies", default="arc,fifo", help="comma-separated policy names")
    ap.add_argument(
        "--detail", action="store_true", help="per inlined function: [times, statements, blocks x vars]"
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.detail)
        return
    for policy in args.policies.split(","):
        with tempfile.TemporaryDirectory() as root:
            env = dict(os.environ, PAGESIM_CACHE_DIR=f"{root}/pagesim", NUMBA_CACHE_DIR=f"{root}/numba")
            cmd = [sys.executable, __file__, "--child", policy] + ["--detail"] * args.detail
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                sys.exit(f"{policy}: {done.stderr}")
            print(policy, done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
