"""One place for the compiler options of every compiled kernel in pagesim.

Every kernel is decorated with :func:`kernel` so that caching, bounds checks (on for a user's
policy, off for pagesim's own code: :func:`options_for`) and fast-math are decided here and
nowhere else (a test scans the tree for hard-coded options). Setting the
environment variable ``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python, which is how the
test suite checks that the compiled and interpreted paths agree.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])

#: Folders whose compiled functions call one another across files.
_LINKED_SOURCES = ("core", "engine", "policies")


def _compiled_sources_digest() -> str:
    """A hash of every source file whose compiled code may be linked into another's."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for folder in _LINKED_SOURCES:
        for f in sorted((root / folder).rglob("*.py")):
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _use_versioned_numba_cache() -> None:
    """Keep numba's on-disk cache in a folder named after the sources' hash.

    numba re-validates a cached function against its own file only: a function that calls into
    another file (a policy calling ``core.lists``, a hook inlined into the engine) would load stale
    machine code after that other file changed. A folder per version of the linked sources
    makes any change start a fresh cache. ``NUMBA_CACHE_DIR`` set by the user is respected.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    env = os.environ.get("PAGESIM_CACHE_DIR")
    base = Path(env) if env else Path.home() / ".cache" / "pagesim"
    folder = base / "numba" / _compiled_sources_digest()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # numba falls back to __pycache__ beside the sources
    numba.config.CACHE_DIR = str(folder)


_use_versioned_numba_cache()

#: Options shared by every compiled kernel.  ``fastmath`` stays off: policies compare scores and
#: a reordered floating-point sum could change which page is evicted.
JIT_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False, "boundscheck": False}


def options_for(func: Callable[..., Any]) -> dict[str, Any]:
    """:data:`JIT_OPTIONS`, with numba's bounds checks on for code outside pagesim.

    A user's policy (any module but pagesim's own, :func:`is_pagesims`) is compiled with ``boundscheck=True``,
    so that ``s.cand[40]`` raises ``IndexError`` instead of writing past the buffer; pagesim's
    own kernels, which its tests cover, run without the checks.
    """
    opts = dict(JIT_OPTIONS)
    module = getattr(getattr(func, "py_func", func), "__module__", "") or ""
    if not is_pagesims(module):
        opts["boundscheck"] = True
    return opts


def is_pagesims(module: str) -> bool:
    """True for pagesim's own modules and its generated runners (``pagesim_runner_...``);
    False for a user's (a policy file loaded by the command line is ``pagesim_user_...``)."""
    return module == "pagesim" or module.startswith(("pagesim.", "pagesim_runner_"))


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
    return numba.njit(**options_for(func))(func)  # type: ignore[no-any-return]


def kernel_inline(func: F) -> F:
    """Compile ``func`` like :func:`kernel`, inlined into its callers at numba IR level.

    Functions that take another compiled function as an argument (list iteration with a verdict
    callback, the engine loop with a policy's hooks) must be inlined: a function value passed to
    a separately compiled function makes the caller impossible to cache on disk.
    """
    return numba.njit(inline="always", **options_for(func))(func)  # type: ignore[no-any-return]


def compiled(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` if it is compiled already, else ``func`` compiled with :func:`kernel`.

    The generated runners call this rather than deciding when they are written, so that one
    runner file serves a process with ``NUMBA_DISABLE_JIT=1`` and one without.

    Parameters
    ----------
    func : numba dispatcher or function
        A hook or helper in numba's nopython subset.

    Returns
    -------
    numba.core.registry.CPUDispatcher
        ``func`` itself when it is a dispatcher already, else a new one (cached on disk as
        :func:`kernel` caches); under ``NUMBA_DISABLE_JIT=1`` numba hands back the plain function.
    """
    if isinstance(func, numba.core.dispatcher.Dispatcher):
        return func
    return kernel(func)


def inlined_copy(func: Callable[..., Any]) -> Callable[..., Any]:
    """A second dispatcher of ``func``'s Python source, inlined into its callers at IR level.

    ``func`` may be compiled (its ``py_func`` is taken) or plain Python. The engine's generated
    runners use it for a policy's hooks (``SpeedHints.inline_hooks``): the original dispatcher stays
    as it is for every other caller. Under ``NUMBA_DISABLE_JIT=1`` the plain function comes back.

    Parameters
    ----------
    func : numba dispatcher or function
        A function in numba's nopython subset.

    Returns
    -------
    numba.core.registry.CPUDispatcher, or ``func``'s Python function when JIT is disabled.
    """
    py = getattr(func, "py_func", func)
    return kernel_inline(py)


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
    opts = options_for(func)
    opts["cache"] = False
    return numba.njit(**opts)(func)  # type: ignore[no-any-return]
