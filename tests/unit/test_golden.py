"""Nothing a user can measure changes: counters against ``tests/data/golden.json``, exactly.

The golden file holds every built-in policy's counters on a fixed set of runs, recorded by
``bench/golden.py`` (which also checks the whole set: ``python bench/golden.py --check``). This
test checks the part the rest of the suite compiles anyway: cache mode, every registered policy
on LIRS's ``sprite`` trace at 1 %, 5 % and 20 % of its pages (tests/contract compiles every
cache-mode runner), and a few kernel-mode runs of policies that the kernel-mode tests compile.
A difference is a change of behaviour: find its cause, or, if the change is meant, record the
file again and say why in the commit.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pagesim.policies.registry import policy_names

REPO = Path(__file__).resolve().parents[2]

#: Kernel-mode entries checked here: (workload, policy); the rest are left to bench/golden.py.
KERNEL_SUBSET = (
    ("stress-vm", "linux-lru"),
    ("stress-vm", "mglru"),
    ("stress-vm", "cast"),
    ("stress-vm", "lru"),
    ("mix", "linux-lru"),
)


def _golden_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pagesim_bench_golden", REPO / "bench" / "golden.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


G = _golden_module()


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return json.loads(G.GOLDEN.read_text())  # type: ignore[no-any-return]


def _check(golden: dict[str, Any], key: str, value: Any) -> None:
    assert key in golden, f"{key} is not in {G.GOLDEN.name}: record it with python bench/golden.py"
    diff = G.differences(golden[key], G.normalise(value), key)
    assert not diff, "\n".join(diff[:20])


@pytest.mark.realtrace
def test_cache_mode_counters_match_the_golden_file(golden: dict[str, Any], shared_traces: Path) -> None:
    sprite = tuple(t for t in G.CACHE_TRACES if t[0] == "sprite")
    checked = 0
    for key, run in G.cache_runs(sprite, traces_dir=shared_traces):
        _check(golden, key, run())
        checked += 1
    assert checked == 3 * len(policy_names())


@pytest.mark.slow
@pytest.mark.parametrize(("workload", "policy"), KERNEL_SUBSET)
def test_kernel_mode_results_match_the_golden_file(
    golden: dict[str, Any], workload: str, policy: str
) -> None:
    params = G.KERNEL_WORKLOADS[workload]
    _check(golden, G.kernel_key(workload, policy), G.kernel_result(workload, params, policy))
