"""Hypothesis settings for the property tests, and access to the contract harness.

Property tests are slower than unit tests and the first example of each compiles numba code, so
the profile has no deadline. Tests apply it with ``@settings(parent=settings.get_profile(
"properties-ci"))`` rather than loading it, so other suites keep their own profile;
``PAGESIM_PROPERTY_EXAMPLES`` raises the example count for a longer local run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile(
    "properties-ci",
    deadline=None,
    max_examples=int(os.environ.get("PAGESIM_PROPERTY_EXAMPLES", "100")),
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CI") is not None,
)

# the naive references and the state-keeping runner live with the contract tests
_CONTRACT = str(Path(__file__).resolve().parents[1] / "contract")
if _CONTRACT not in sys.path:
    sys.path.insert(0, _CONTRACT)
