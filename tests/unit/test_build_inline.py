"""Hooks inlined into cache mode's runner (``SpeedHints.inline_hooks``): same results, every path.

The policies here are the examples' (a user's LRU in numba's subset, a dict-based LRU numba
cannot compile), with ``inline_hooks`` set. The trace ``1 2 3 1 4 1 2`` with 2 pages under LRU:
1 2 miss (cold), 3 misses and evicts 1, 1 misses and evicts 2, 4 misses and evicts 3,
1 hits, 2 misses and evicts 4: 6 misses, 1 hit.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from pagesim.engine import simulate
from pagesim.engine.build import _runner_source, runner_for
from pagesim.engine.simulate import PolicyCompileWarning
from pagesim.policies.base import HOOK_NAMES, Policy, SpeedHints
from pagesim.trace import Trace

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TRACE = Trace.from_ids(np.array([1, 2, 3, 1, 4, 1, 2], dtype=np.int64))


def _example(file: str, cls: str) -> type[Policy]:
    name = f"_pagesim_test_{Path(file).stem}"
    mod = sys.modules.get(name)
    if mod is None:
        spec = importlib.util.spec_from_file_location(name, EXAMPLES / file)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return getattr(mod, cls)  # type: ignore[no-any-return]


MyLRU = _example("my_lru.py", "MyLRU")
DictLRU = _example("python_only.py", "DictLRU")


class InlinedLRU(SpeedHints, MyLRU):  # type: ignore[misc, valid-type]
    """The user's plain-function LRU with its hooks inlined into the runner."""

    name = "test-inlined-lru"
    inline_hooks = HOOK_NAMES


class InlinedDictLRU(SpeedHints, DictLRU):  # type: ignore[misc, valid-type]
    """A dict-based LRU numba cannot compile, asking for inlining anyway."""

    name = "test-inlined-dict-lru"
    inline_hooks = HOOK_NAMES


def test_runner_source_inlines_only_the_classes_that_ask() -> None:
    plain = _runner_source((MyLRU,), "k")
    for name in HOOK_NAMES:  # cache mode's dispatcher is inlined, the hook it calls is not
        assert f"@_kernel_inline\ndef _cache_{name}(ss, cg, a):" in plain
        # a user's hook is called through a wrapper that records which hook runs (errors name it)
        assert f"return _as_int(_P0_{name}_named(ss[0], a))" in plain
    assert "_inlined_copy(" not in plain
    inlined = _runner_source((InlinedLRU, MyLRU), "k")
    for name in HOOK_NAMES:
        assert f"_P0_{name}_inline = _inlined_copy(_P0.{name})" in inlined
        assert f"_P1_{name}_inline" not in inlined
        assert f"@_kernel_inline\ndef _cache_{name}(ss, cg, a):" in inlined
    assert "return _as_int(_P0_accessed_inline_named(ss[0], a))" in inlined
    assert "return _as_int(_P1_accessed_named(ss[1], a))" in inlined


class Switched(SpeedHints, MyLRU):  # type: ignore[misc, valid-type]
    """A user's LRU whose ``inline_hooks`` a test sets after the class was written."""

    name = "test-switched-lru"


def test_inline_hooks_must_name_hooks() -> None:
    class Typo(SpeedHints, MyLRU):  # type: ignore[misc, valid-type]
        inline_hooks = ("accessed", "acessed")

    with pytest.raises(ValueError, match="acessed"):
        _runner_source((Typo,), "k")


def _runner_module(cls: type[Policy]) -> str:
    run = runner_for(cls)
    return getattr(run, "py_func", run).__module__  # a plain function under NUMBA_DISABLE_JIT


def test_runner_key_follows_inline_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGESIM_CACHE_DIR", str(tmp_path))
    before = _runner_module(Switched)
    monkeypatch.setattr(Switched, "inline_hooks", ("accessed",))
    after = _runner_module(Switched)
    assert before != after
    assert "_cache_accessed(ss, cg, a)" in (tmp_path / "runners" / f"{after}.py").read_text()


@pytest.mark.parametrize("interpreted", [False, True], ids=["compiled", "interpreted"])
def test_inlined_user_hooks_give_lru_misses(interpreted: bool) -> None:
    r = simulate(TRACE, InlinedLRU(), 2, interpreted=interpreted)
    assert (r.misses, r.hits) == (6, 1)
    assert r.mode == ("interpreted" if interpreted else "compiled")


def test_one_runner_file_with_and_without_jit() -> None:
    """What the file says does not depend on ``NUMBA_DISABLE_JIT`` (one cache serves both)."""
    assert "_P0_admit = _compiled(_P0.admit)" in _runner_source((MyLRU,), "k")


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing is compiled, so nothing can fail to")
def test_inlined_hooks_numba_cannot_compile_fall_back_to_interpreted() -> None:
    with pytest.warns(PolicyCompileWarning):
        r = simulate(TRACE, InlinedDictLRU(), 2)
    assert (r.misses, r.hits, r.mode) == (6, 1, "interpreted")
