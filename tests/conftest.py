"""Shared test configuration: Hypothesis profile and the location of the real traces."""

from __future__ import annotations

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
