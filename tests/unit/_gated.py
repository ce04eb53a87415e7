"""A test policy whose large runs wait at a gate: ``examples/python_only.py``'s LRU in a Python
dict (interpreted), whose ``configure`` waits, for a cache of more than ``GATE_ABOVE`` pages,
while the file named by ``PAGESIM_TEST_GATE`` is absent. An interrupted sweep's test holds one
run there while the others finish, so the interrupt lands mid-way by construction, whatever the
machine's load. Smaller runs (the sweep's compile check has 4 pages) and any process without
the variable pass straight through.
"""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path
from typing import Any

GATE = "PAGESIM_TEST_GATE"  #: environment variable naming the gate file
GATE_ABOVE = 1000  #: pages: larger caches wait at the gate

_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python_only.py"
_spec = importlib.util.spec_from_file_location("pagesim_example_python_only", _EXAMPLE)
assert _spec is not None and _spec.loader is not None, _EXAMPLE
_example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_example)


class GatedLRU(_example.DictLRU):  # type: ignore[misc,name-defined]
    """LRU (same misses as ``lru``) whose runs above ``GATE_ABOVE`` pages wait for the gate file."""

    name = "gated-lru"
    description = "LRU in a Python dict that waits for $PAGESIM_TEST_GATE (tests only)"

    def configure(self, s: Any, capacity: int) -> None:
        """Wait while the gate file is absent (runs of more than ``GATE_ABOVE`` pages only)."""
        gate = os.environ.get(GATE)
        while gate and capacity > GATE_ABOVE and not os.path.exists(gate):
            time.sleep(0.02)
