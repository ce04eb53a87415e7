"""Miss-ratio curves: exact in one pass (LRU, OPT), SHARDS (LRU) and miniature simulation (any policy).

``mrc(trace, policies, sizes, method=...)`` gives a tidy table (:mod:`.curve`); the methods live in
:mod:`.stack` (exact), :mod:`.shards` and :mod:`.minisim`. ``exact_misses`` and
``STACK_POLICIES`` serve callers that need exact miss counts at many sizes (sweeps).
"""

from __future__ import annotations

from pagesim.analysis.mrc.curve import COLUMNS, METHODS, check_mrc, mrc
from pagesim.analysis.mrc.minisim import MIN_SAMPLED_CAPACITY
from pagesim.analysis.mrc.stack import STACK_POLICIES, exact_misses

__all__ = ["COLUMNS", "METHODS", "MIN_SAMPLED_CAPACITY", "STACK_POLICIES", "check_mrc", "exact_misses", "mrc"]
