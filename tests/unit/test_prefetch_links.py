"""The loop's prefetch of the rows a policy's links name (``SpeedHints.prefetch_links``): the
columns are written into the generated runner, bad names raise, results do not depend on it.

Trace ``1 2 1 2`` with room for 10 pages: two cold misses, then two hits (under LIRS both pages
are LIR, so each hit moves the page in stack S, the path whose neighbours the loop prefetches).
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.engine import loop, simulate
from pagesim.engine.build import _links_lines
from pagesim.policies.arc import ARC
from pagesim.policies.base import Policy, SpeedHints, link_columns
from pagesim.policies.lirs import LIRS
from pagesim.trace import Trace

TRACE = Trace.from_ids(np.array([1, 2, 1, 2], dtype=np.int64))


class _Fields(SpeedHints, Policy):
    name = "test-links"
    int_fields = ("a", "b", "c")


def test_lirs_links_are_its_stack_columns() -> None:
    assert LIRS.int_fields[1:3] == ("s_next", "s_prev")
    assert link_columns(LIRS) == (1, 2)


def test_links_must_be_at_most_two_int_fields() -> None:
    class Unknown(_Fields):
        prefetch_links = ("z",)

    class Three(_Fields):
        prefetch_links = ("a", "b", "c")

    class Two(_Fields):
        prefetch_links = ("c", "list", "a")

    for bad in (Unknown, Three):
        with pytest.raises(ValueError, match="prefetch_links"):
            link_columns(bad)
    assert link_columns(Two) == (2, 0)
    assert link_columns(_Fields) == ()


def test_the_runner_writes_the_columns_in_not_the_config() -> None:
    """The columns are numbers in the generated runner's ``_cache_links``; ``cfg`` has no slot."""
    assert not any(name.startswith("CFG_LINK") for name in vars(loop))
    lirs = "\n".join(_links_lines((LIRS,)))
    assert "_prefetch_pm_link(s, q, 1)" in lirs
    assert "_prefetch_pm_link(s, q, 2)" in lirs
    assert "_prefetch_list_links" not in lirs
    assert "_prefetch_list_links(s, q)" in "\n".join(_links_lines((ARC,)))
    # columns are read in the first cgroup's rows: with two classes, none
    assert "_prefetch_pm_link" not in "\n".join(_links_lines((LIRS, ARC)))
    assert "_prefetch" not in "\n".join(_links_lines((_Fields,)))


@pytest.mark.parametrize("interpreted", [False, True], ids=["compiled", "interpreted"])
def test_lirs_hits_with_links(interpreted: bool) -> None:
    r = simulate(TRACE, LIRS(), 10, interpreted=interpreted)
    assert (r.misses, r.hits) == (2, 2)
