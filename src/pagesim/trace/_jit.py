"""Compiler options for every numba kernel of the trace layer, in one place.

Kernels use ``njit(**JIT)`` (or with an explicit signature) so that caching, bounds checking and
fastmath are set here and nowhere else; every kernel stays callable as plain Python through
``kernel.py_func``. When ``pagesim.core`` grows a project-wide options module this one should
re-export it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["JIT"]

#: Options passed to ``numba.njit`` by every trace kernel. ``cache=True`` stores the machine code
#: next to the module so later processes load it instead of compiling; integer kernels gain nothing
#: from fastmath, so it stays off.
JIT: dict[str, Any] = {"cache": True, "nogil": True, "boundscheck": False, "fastmath": False}
