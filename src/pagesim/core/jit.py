"""One place for the compiler options of every compiled kernel in pagesim.

Every kernel is decorated with :func:`kernel` so that caching, bounds checks and fast-math are
decided here and nowhere else (a test scans the tree for hard-coded options). Setting the
environment variable ``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python, which is how the
test suite checks that the compiled and interpreted paths agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])

#: Options shared by every compiled kernel.  ``fastmath`` stays off: policies compare scores and
#: a reordered floating-point sum could change which page is evicted.
JIT_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False, "boundscheck": False}


def kernel(func: F) -> F:
    """Compile ``func`` with pagesim's options (lazily, on first call).

    Parameters
    ----------
    func : callable
        A function in numba's nopython subset; arrays and scalars only.

    Returns
    -------
    numba.core.registry.CPUDispatcher
        The dispatcher; the original function stays reachable as ``.py_func``.
    """
    return numba.njit(**JIT_OPTIONS)(func)  # type: ignore[no-any-return]


def kernel_inline(func: F) -> F:
    """Compile ``func`` like :func:`kernel`, inlined into its callers at numba IR level.

    Functions that take another compiled function as an argument (list iteration with a verdict
    callback, the engine loop with a policy's hooks) must be inlined: a function value passed to
    a separately compiled function makes the caller impossible to cache on disk.
    """
    return numba.njit(inline="always", **JIT_OPTIONS)(func)  # type: ignore[no-any-return]


def runner(func: F) -> F:
    """Compile an engine runner: like :func:`kernel`, without numba's reference counting.

    A runner receives every array it uses and allocates none, so the runtime's atomic
    reference counts on arrays taken out of the state tuples are pure cost (measured here: about
    two thirds of the time of an LRU run was spent in them).
    """
    return numba.njit(_nrt=False, **JIT_OPTIONS)(func)  # type: ignore[no-any-return]


def kernel_nocache(func: F) -> F:
    """Compile ``func`` like :func:`kernel` but without the on-disk cache.

    Used for user-supplied hooks that live in files numba cannot cache beside (read-only
    folders) or that are rebuilt on every run.
    """
    opts = dict(JIT_OPTIONS)
    opts["cache"] = False
    return numba.njit(**opts)(func)  # type: ignore[no-any-return]
