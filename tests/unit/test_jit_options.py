"""Compiler options come from one module (STYLE.md: as stumpy's test script does for fastmath).

Every numba decorator or call under ``src/`` must take its ``cache``, ``fastmath`` and
``boundscheck`` options from :mod:`pagesim.core.jit` (``kernel``, ``runner``..., or
``**JIT_OPTIONS`` / the trace layer's ``**JIT`` copy of it). This test parses every source file
and lists each ``njit(...)`` / ``jit(...)`` (and the other numba compilers) that spells one of
those options out, directly or in an inline ``**{...}`` dict.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pagesim

SRC = Path(pagesim.__file__).resolve().parent
ALLOWED = {SRC / "core" / "jit.py"}
COMPILERS = {"njit", "jit", "vectorize", "guvectorize", "cfunc", "generated_jit", "stencil"}
OPTIONS = {"cache", "fastmath", "boundscheck"}


def _callee_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def hard_coded_options(source: str, filename: str = "<src>") -> list[tuple[int, str, str]]:
    """(line, compiler, option) for every numba compiler call naming an option literally."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        name = _callee_name(node.func)
        if name not in COMPILERS:
            continue
        for kw in node.keywords:
            if kw.arg in OPTIONS:
                found.append((node.lineno, name, kw.arg))
            elif kw.arg is None and isinstance(kw.value, ast.Dict):
                for key in kw.value.keys:
                    if isinstance(key, ast.Constant) and key.value in OPTIONS:
                        found.append((node.lineno, name, str(key.value)))
            elif kw.arg is None and isinstance(kw.value, ast.Call) and _callee_name(kw.value.func) == "dict":
                found.extend((node.lineno, name, k.arg) for k in kw.value.keywords if k.arg in OPTIONS)
    return found


def test_no_hard_coded_compiler_options_in_src() -> None:
    files = sorted(p for p in SRC.rglob("*.py") if p not in ALLOWED)
    assert len(files) > 20
    offenders = [
        f"{path.relative_to(SRC.parent)}:{line}: {name}(... {option}=...)"
        for path in files
        for line, name, option in hard_coded_options(path.read_text(), str(path))
    ]
    assert not offenders, (
        "compiler options must come from pagesim.core.jit (use @kernel or **JIT_OPTIONS):\n  "
        + "\n  ".join(offenders)
    )


@pytest.mark.parametrize(
    "snippet, expected",
    [
        ("@njit(cache=True)\ndef f(): pass", [(1, "njit", "cache")]),
        ("import numba\n@numba.njit(fastmath=True, nogil=True)\ndef f(): pass", [(2, "njit", "fastmath")]),
        ("@nb.jit(nopython=True, boundscheck=False)\ndef f(): pass", [(1, "jit", "boundscheck")]),
        ("g = numba.njit(cache=False)(f)", [(1, "njit", "cache")]),
        ("@njit(**{'fastmath': True})\ndef f(): pass", [(1, "njit", "fastmath")]),
        ("@njit(**dict(cache=True))\ndef f(): pass", [(1, "njit", "cache")]),
        ("@vectorize(['f8(f8)'], fastmath=True)\ndef f(x): return x", [(1, "vectorize", "fastmath")]),
        ("@njit(**JIT)\ndef f(): pass", []),
        ("@njit(_SIG, **JIT_OPTIONS)\ndef f(): pass", []),
        ("@njit\ndef f(): pass", []),
        ("@kernel\ndef f(): pass", []),
        ("x = dict(cache=True)", []),
    ],
)
def test_scanner_finds_hard_coded_options(snippet: str, expected: list[tuple[int, str, str]]) -> None:
    assert hard_coded_options(snippet) == expected
