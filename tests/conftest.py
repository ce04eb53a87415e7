"""Shared test configuration: Hypothesis profile and the location of the real traces."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest
from hypothesis import settings

# pytest-xdist already runs one worker per core: a command's policies compile in the worker
# itself rather than in a further pool of compiling processes (pagesim.engine.warm).
os.environ.setdefault("PAGESIM_COMPILE_JOBS", "1")

# First calls compile numba kernels; a deadline would flake on them.
settings.register_profile("ci", deadline=None, max_examples=50)
settings.load_profile("ci")

#: Real traces live beside the repository, never inside it (see ../shared/traces/PROVENANCE.md);
#: a checkout elsewhere points to them with PAGESIM_TRACES.
SHARED_TRACES = Path(
    os.environ.get("PAGESIM_TRACES") or Path(__file__).resolve().parents[1].parent / "shared" / "traces"
)


@pytest.fixture(scope="session")
def shared_traces() -> Path:
    """The ../shared/traces folder; skips the test when it is absent."""
    if not SHARED_TRACES.is_dir():
        pytest.skip(f"real traces not found at {SHARED_TRACES} (see PROVENANCE.md)")
    return SHARED_TRACES


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Take Hypothesis' garbage-collection timer out of ``gc.callbacks`` once the tests are done.

    Hypothesis (CPython) times every collection with a callback in ``gc.callbacks``. An exception
    raised inside a gc callback cannot propagate: CPython prints it as "Exception ignored in" and
    pytest turns that into a PytestUnraisableExceptionWarning. A SIGINT that lands while the
    collections of pytest's teardown run the callback was reported that way, as a warning about
    KeyboardInterrupt, instead of stopping the run; without the callback it interrupts as usual.
    """
    for callback in list(gc.callbacks):
        if getattr(callback, "__module__", "").startswith("hypothesis."):
            gc.callbacks.remove(callback)
