"""The loop's prefetch of the rows a policy's links name (``Policy.prefetch_links``): the columns
reach ``cfg``, bad names raise, and results do not depend on it (a hint only).

Trace ``1 2 1 2`` with room for 10 pages: two cold misses, then two hits (under LIRS both pages
are LIR, so each hit moves the page in stack S, the path whose neighbours the loop prefetches).
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.engine import simulate
from pagesim.engine.loop import CFG_LINK_A, CFG_LINK_B, CFG_LINK_LIST, new_cfg
from pagesim.policies.base import Policy
from pagesim.policies.lirs import LIRS
from pagesim.trace import Trace

TRACE = Trace.from_ids(np.array([1, 2, 1, 2], dtype=np.int64))


class _Fields(Policy):
    name = "test-links"
    int_fields = ("a", "b", "c")


def test_lirs_links_are_its_stack_columns() -> None:
    assert LIRS.int_fields[1:3] == ("s_next", "s_prev")
    assert LIRS.link_columns() == (1, 2)


def test_links_must_be_at_most_two_int_fields() -> None:
    class Unknown(_Fields):
        prefetch_links = ("z",)

    class Three(_Fields):
        prefetch_links = ("a", "b", "c")

    class Two(_Fields):
        prefetch_links = ("c", "list", "a")

    for bad in (Unknown, Three):
        with pytest.raises(ValueError, match="prefetch_links"):
            bad.link_columns()
    assert Two.link_columns() == (2, 0)
    assert _Fields.link_columns() == ()


def test_new_cfg_carries_the_columns() -> None:
    assert list(new_cfg(0, False, False, False, True)[[CFG_LINK_A, CFG_LINK_B]]) == [-1, -1]
    assert list(new_cfg(0, False, False, False, True, (4,))[[CFG_LINK_A, CFG_LINK_B]]) == [4, -1]
    assert list(new_cfg(0, False, False, False, True, (1, 2))[[CFG_LINK_A, CFG_LINK_B]]) == [1, 2]
    with pytest.raises(ValueError, match="two"):
        new_cfg(0, False, False, False, True, (1, 2, 3))
    assert new_cfg(0, False, False, False, True)[CFG_LINK_LIST] == 0
    assert new_cfg(0, False, False, False, True, (), True)[CFG_LINK_LIST] == 1


@pytest.mark.parametrize("interpreted", [False, True], ids=["compiled", "interpreted"])
def test_lirs_hits_with_links(interpreted: bool) -> None:
    r = simulate(TRACE, LIRS(), 10, interpreted=interpreted)
    assert (r.misses, r.hits) == (2, 2)
