"""Each structure once: the engine reaches ``core`` through public names only, the base
``Policy`` carries no policy's capability, the engine's config carries no policy's columns."""

from __future__ import annotations

import ast
from pathlib import Path

import pagesim
from pagesim.policies.base import AsksKcompressd, Policy, SpeedHints
from pagesim.policies.registry import make_policy, policy_names

SRC = Path(pagesim.__file__).parent


def _private_core_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pagesim.core"):
            bad += [f"{path.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return bad


def test_the_engine_imports_no_private_name_of_core() -> None:
    bad = [b for f in sorted((SRC / "engine").rglob("*.py")) for b in _private_core_imports(f)]
    assert bad == []


def test_the_base_policy_carries_no_capability() -> None:
    for attr in (
        "kcompressd_depth",
        "kcompressd_while_off",
        "inline_hooks",
        "prefetch_links",
        "link_columns",
    ):
        assert not hasattr(Policy, attr), attr


def test_capabilities_are_declared_by_the_policies_that_use_them() -> None:
    for name in policy_names():
        p = make_policy(name)
        cls = type(p)
        if "kcompressd_depth" in vars(cls):
            assert isinstance(p, AsksKcompressd), name
        if "inline_hooks" in vars(cls) or "prefetch_links" in vars(cls):
            assert issubclass(cls, SpeedHints), name


def test_one_heap_sifts_for_every_heap() -> None:
    """The scheduler's and CAST's sims' heaps sift with core.heap's functions, not their own."""
    for rel in ("engine/kmode/scheduler.py", "policies/cast/sims.py"):
        text = (SRC / rel).read_text()
        assert "from pagesim.core.heap import sift_down, sift_up" in text, rel
        assert "(slot - 1) >> 1" not in text and "(i - 1) // 2" not in text, rel


def test_mglru_lists_are_core_shadow_lists() -> None:
    text = (SRC / "policies/mglru/lists.py").read_text()
    assert "from pagesim.core.shadow import shadow_append, shadow_push, shadow_unlink" in text
    assert "s.pm[p, NXT] = " not in text and "s.pm[v, NXT] = " not in text
