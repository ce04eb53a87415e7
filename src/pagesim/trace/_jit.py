"""Compiler options for the trace layer's kernels: the project-wide ones of :mod:`pagesim.core.jit`.

Kernels use ``njit(**JIT)`` (or with an explicit signature); every kernel stays callable as
plain Python through ``kernel.py_func``.
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import JIT_OPTIONS

__all__ = ["JIT"]

#: Options passed to ``numba.njit`` by every trace kernel (one source: ``pagesim.core.jit``).
JIT: dict[str, Any] = dict(JIT_OPTIONS)
