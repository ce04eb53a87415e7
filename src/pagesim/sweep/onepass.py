"""Stack policies in one pass: the miss-ratio curve of LRU or OPT over every size at once.

LRU and Belady's OPT are stack policies (Mattson et al., 1970): the content of a smaller cache is
always inside a larger one, so one pass over the trace gives the misses at every size. Where
:mod:`pagesim.analysis.mrc` gives that pass (``exact_misses``), a sweep runs one task per
(trace, policy) for all sizes of a policy in ``STACK_POLICIES`` instead of one run per size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pagesim.analysis.mrc import STACK_POLICIES, exact_misses

__all__ = ["one_pass"]

#: ``exact_misses(trace, policy_name, capacities, warmup=0) -> int64 misses per capacity``.
ExactMisses = Callable[..., np.ndarray]


def one_pass() -> tuple[ExactMisses, frozenset[str]]:
    """The one-pass miss counter and the policy names it covers.

    Returns
    -------
    tuple
        ``pagesim.analysis.mrc.exact_misses`` (misses per capacity, int64, equal to a
        simulation per size) and ``STACK_POLICIES``.
    """
    return exact_misses, frozenset(STACK_POLICIES)


def one_pass_misses(trace: Any, policy: str, capacities: Sequence[int], warmup: int) -> np.ndarray:
    """Misses at each capacity in one pass (int64, shape ``(len(capacities),)``)."""
    return np.asarray(
        exact_misses(trace, policy, [int(c) for c in capacities], warmup=int(warmup)), dtype=np.int64
    )
