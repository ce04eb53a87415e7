"""The eviction-list functions of :mod:`pagesim.core.lists` on hand-worked cases.

Each test runs twice: compiled (the list functions themselves; ``list_iterate`` and
``list_sample``, which take a callback, through small ``@kernel`` wrappers below) and as plain
Python (:func:`pagesim.engine.build.interpreted`, every compiled callee replaced by its
``py_func``). Lists are written head first: ``[3, 2, 1]`` means 3 is the head, where ``list_add``
inserts and where iteration starts.

The callbacks read their instructions from the state so that one compiled verdict serves every
case: ``pm[page, 0]`` is the verdict (or the score), ``pm[page, 1]`` a reference bit for the
CLOCK-like verdict, and every visit is logged in ``gi`` (``gi[VISITS]`` counts, the pages follow).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from pagesim.core import indexed as I
from pagesim.core import lists as L
from pagesim.core.jit import kernel
from pagesim.core.lists import (
    CONTINUE,
    EVICT,
    SKIP,
    STOP,
    TO_HEAD,
    TO_TAIL,
    list_iterate,
    list_pages,
    list_sample,
)
from pagesim.core.state import (
    ACC_LEN,
    LIST,
    MAX_CANDIDATES,
    MAX_ITERATE,
    MAX_LISTS_PER_CGROUP,
    NEXT,
    PREV,
    make_state,
)
from pagesim.engine.build import interpreted

CLOCK = 3  #: pm[page, 0] code for the CLOCK verdict: referenced -> clear and keep, else evict
VISITS = 8  #: gi slot counting callback visits; the visited pages follow it
LOG = VISITS + 1


@kernel
def _verdict(s, a, index, page):  # type: ignore[no-untyped-def]
    n = s.gi[VISITS]
    if LOG + n < s.gi.shape[0]:
        s.gi[LOG + n] = page
    s.gi[VISITS] = n + 1
    v = s.pm[page, 0]
    if v == CLOCK:
        if s.pm[page, 1] != 0:
            s.pm[page, 1] = 0
            return CONTINUE
        return EVICT
    return v


@kernel
def _score(s, a, page):  # type: ignore[no-untyped-def]
    s.gi[VISITS] += 1
    return s.pm[page, 0]


@kernel
def _iterate_compiled(s, a, lid, count, cmode, clist, emode, elist):  # type: ignore[no-untyped-def]
    return list_iterate(s, a, lid, _verdict, count, cmode, clist, emode, elist)


@kernel
def _sample_compiled(s, a, lid, request, sample_size, partial):  # type: ignore[no-untyped-def]
    return list_sample(s, a, lid, _score, request, sample_size, partial)


_NAMES = (
    "list_valid list_create list_add list_add_tail list_move list_del list_head list_tail "
    "list_len list_next list_prev list_of check_lists"
).split()


def _compiled_api() -> SimpleNamespace:
    ns = SimpleNamespace(**{n: getattr(L, n) for n in _NAMES})
    ns.iterate = _iterate_compiled
    ns.sample = _sample_compiled
    return ns


def _python_api() -> SimpleNamespace:
    memo: dict[int, Any] = {}
    ns = SimpleNamespace(**{n: interpreted(getattr(L, n), memo) for n in _NAMES})
    it = interpreted(list_iterate, memo)
    sm = interpreted(list_sample, memo)
    verdict, score = interpreted(_verdict, memo), interpreted(_score, memo)
    ns.iterate = lambda s, a, lid, c, cm, cl, em, el: it(s, a, lid, verdict, c, cm, cl, em, el)
    ns.sample = lambda s, a, lid, req, size, part: sm(s, a, lid, score, req, size, part)
    return ns


@pytest.fixture(params=["compiled", "python"], scope="module")
def api(request: pytest.FixtureRequest) -> SimpleNamespace:
    return _compiled_api() if request.param == "compiled" else _python_api()


def new_state(n_pages: int = 10, n_cgroups: int = 1, resident: Any = None, n_int_globals: int = 64) -> Any:
    s = make_state(n_pages, n_cgroups, n_int_fields=2, n_int_globals=n_int_globals)
    if resident is None:
        s.resident[:] = 1
    else:
        s.resident[list(resident)] = 1
    return s


def acc() -> np.ndarray:
    return np.zeros(ACC_LEN, dtype=np.int64)


def pages(s: Any, lid: int) -> list[int]:
    return list_pages(s, lid).tolist()


def visits(s: Any) -> list[int]:
    return s.gi[LOG : LOG + s.gi[VISITS]].tolist()


def filled(api: SimpleNamespace, s: Any, order: list[int], lid: int | None = None) -> int:
    """Create a list (unless given) and add ``order`` at the tail: head ... tail = order."""
    if lid is None:
        lid = api.list_create(s, 0)
    for p in order:
        assert api.list_add_tail(s, lid, p) == 0
    return lid


# ------------------------------------------------------------------------------- create


def test_create_at_most_five_per_cgroup(api: SimpleNamespace) -> None:
    s = new_state(n_cgroups=2)
    ids0 = [api.list_create(s, 0) for _ in range(MAX_LISTS_PER_CGROUP)]
    assert ids0 == [0, 1, 2, 3, 4]
    assert api.list_create(s, 0) == -1
    ids1 = [api.list_create(s, 1) for _ in range(MAX_LISTS_PER_CGROUP)]
    assert ids1 == [5, 6, 7, 8, 9]
    assert api.list_create(s, 1) == -1
    assert api.list_create(s, 2) == -1  # no such cgroup
    assert api.list_create(s, -1) == -1
    assert all(api.list_valid(s, i) == 1 for i in range(10))
    assert api.list_valid(s, 10) == 0 and api.list_valid(s, -1) == 0
    assert all(api.list_len(s, i) == 0 and api.list_head(s, i) == -1 for i in range(10))
    assert s.lhd[:5, 3].tolist() == [0] * 5 and s.lhd[5:, 3].tolist() == [1] * 5


def test_uncreated_list_is_invalid(api: SimpleNamespace) -> None:
    s = new_state(n_cgroups=2)
    assert api.list_valid(s, 0) == 0
    assert api.list_add(s, 0, 1) == -1
    assert api.list_add_tail(s, 3, 1) == -1
    assert api.list_move(s, 0, 1, False) == -1
    assert api.list_add(s, 99, 1) == -1


# ------------------------------------------------------------------------------- add / move / del


def test_add_head_and_tail(api: SimpleNamespace) -> None:
    """add 1, add 2, add 3 -> [3, 2, 1]; add_tail 4 -> [3, 2, 1, 4]; add_tail 0 -> [.., 4, 0]."""
    s = new_state()
    lid = api.list_create(s, 0)
    for p in (1, 2, 3):
        assert api.list_add(s, lid, p) == 0
    assert pages(s, lid) == [3, 2, 1]
    assert api.list_add_tail(s, lid, 4) == 0
    assert api.list_add_tail(s, lid, 0) == 0
    assert pages(s, lid) == [3, 2, 1, 4, 0]
    assert (api.list_head(s, lid), api.list_tail(s, lid), api.list_len(s, lid)) == (3, 0, 5)
    assert [api.list_next(s, p) for p in (3, 2, 1, 4, 0)] == [2, 1, 4, 0, -1]
    assert [api.list_prev(s, p) for p in (3, 2, 1, 4, 0)] == [-1, 3, 2, 1, 4]
    assert [api.list_of(s, p) for p in range(6)] == [lid] * 5 + [-1]
    assert api.check_lists(s) == 0


def test_add_tail_into_empty_list(api: SimpleNamespace) -> None:
    s = new_state()
    lid = api.list_create(s, 0)
    assert api.list_add_tail(s, lid, 7) == 0
    assert (api.list_head(s, lid), api.list_tail(s, lid), api.list_len(s, lid)) == (7, 7, 1)
    assert api.check_lists(s) == 0


def test_re_add_fails_while_linked(api: SimpleNamespace) -> None:
    s = new_state()
    a_, b_ = api.list_create(s, 0), api.list_create(s, 0)
    assert api.list_add(s, a_, 5) == 0
    assert api.list_add(s, a_, 5) == -1
    assert api.list_add_tail(s, a_, 5) == -1
    assert api.list_add(s, b_, 5) == -1  # in another list: still refused
    assert pages(s, a_) == [5] and pages(s, b_) == []
    assert api.list_del(s, 5) == 0
    assert api.list_add(s, b_, 5) == 0  # re-addable once unlinked
    assert pages(s, a_) == [] and pages(s, b_) == [5]
    assert api.check_lists(s) == 0


def test_add_refuses_non_resident_and_out_of_range(api: SimpleNamespace) -> None:
    s = new_state(resident=[0, 1, 2])
    lid = api.list_create(s, 0)
    assert api.list_add(s, lid, 3) == -1
    assert api.list_add_tail(s, lid, 3) == -1
    assert api.list_add(s, lid, -1) == -1
    assert api.list_add(s, lid, 10) == -1
    assert api.list_move(s, lid, 3, True) == -1
    assert api.list_move(s, lid, 10, False) == -1
    assert api.list_len(s, lid) == 0


def test_move_within_and_between_lists(api: SimpleNamespace) -> None:
    """[0, 1, 2, 3]: move 2 to head -> [2, 0, 1, 3]; move 2 to tail -> [0, 1, 3, 2];
    move 1 to the head of list B -> A [0, 3, 2], B [1]; move 4 (in no list) to B's tail ->
    B [1, 4]; moving the only node of a list to its own head keeps it."""
    s = new_state()
    A = filled(api, s, [0, 1, 2, 3])
    B = api.list_create(s, 0)
    assert api.list_move(s, A, 2, False) == 0
    assert pages(s, A) == [2, 0, 1, 3]
    assert api.list_move(s, A, 2, True) == 0
    assert pages(s, A) == [0, 1, 3, 2]
    assert api.list_move(s, B, 1, False) == 0
    assert pages(s, A) == [0, 3, 2] and pages(s, B) == [1]
    assert api.list_move(s, B, 4, True) == 0
    assert pages(s, B) == [1, 4]
    assert api.list_move(s, A, 0, False) == 0 and pages(s, A) == [0, 3, 2]
    assert api.list_move(s, A, 2, True) == 0 and pages(s, A) == [0, 3, 2]
    assert (api.list_len(s, A), api.list_len(s, B)) == (3, 2)
    assert api.list_of(s, 1) == B
    assert api.check_lists(s) == 0


def test_del_head_middle_tail_and_twice(api: SimpleNamespace) -> None:
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3, 4])
    assert api.list_del(s, 2) == 0 and pages(s, lid) == [0, 1, 3, 4]
    assert api.list_del(s, 0) == 0 and pages(s, lid) == [1, 3, 4]
    assert api.list_del(s, 4) == 0 and pages(s, lid) == [1, 3]
    assert (api.list_head(s, lid), api.list_tail(s, lid), api.list_len(s, lid)) == (1, 3, 2)
    assert api.list_del(s, 4) == -1
    assert api.list_del(s, 9) == -1  # never linked
    assert api.list_del(s, -1) == -1 and api.list_del(s, 10) == -1
    assert s.lst[4].tolist() == [-1, -1, -1]
    assert api.list_del(s, 1) == 0 and api.list_del(s, 3) == 0
    assert (api.list_head(s, lid), api.list_tail(s, lid), api.list_len(s, lid)) == (-1, -1, 0)
    assert api.check_lists(s) == 0


# ------------------------------------------------------------------------------- check_lists


def test_check_lists_detects_corruption(api: SimpleNamespace) -> None:
    def fresh() -> tuple[Any, int]:
        s = new_state()
        return s, filled(api, s, [0, 1, 2, 3])

    s, lid = fresh()
    assert api.check_lists(s) == 0
    s.lst[2, LIST] = lid + 1  # node claims another list
    assert api.check_lists(s) == 1
    s, lid = fresh()
    s.lst[2, PREV] = 0  # should be 1
    assert api.check_lists(s) == 2
    s, lid = fresh()
    s.lhd[lid, 2] = 5  # length
    assert api.check_lists(s) == 3
    s, lid = fresh()
    s.lhd[lid, 1] = 2  # tail
    assert api.check_lists(s) == 3
    s, lid = fresh()
    s.resident[1] = 0
    assert api.check_lists(s) == 4
    s, lid = fresh()
    s.lst[3, NEXT] = 0  # a cycle 0 -> 1 -> 2 -> 3 -> 0: caught (PREV of 0 is -1, not 3)
    assert api.check_lists(s) != 0


# ------------------------------------------------------------------------------- iterate


def test_iterate_continue_skip_visits_head_to_tail(api: SimpleNamespace) -> None:
    s = new_state()
    lid = filled(api, s, [4, 2, 0, 3])
    assert api.iterate(s, acc(), lid, 0, SKIP, -1, SKIP, -1) == 0
    assert visits(s) == [4, 2, 0, 3]
    assert pages(s, lid) == [4, 2, 0, 3]


def test_iterate_stop(api: SimpleNamespace) -> None:
    """[0..5], page 2 says STOP: visits 0, 1, 2; nothing proposed, nothing moved (even with
    TO_TAIL for kept nodes: 0 and 1 rotate, the stopping node stays)."""
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3, 4, 5])
    s.pm[2, 0] = STOP
    assert api.iterate(s, acc(), lid, 0, SKIP, -1, SKIP, -1) == 0
    assert visits(s) == [0, 1, 2] and pages(s, lid) == [0, 1, 2, 3, 4, 5]
    s.gi[VISITS] = 0
    assert api.iterate(s, acc(), lid, 0, TO_TAIL, -1, SKIP, -1) == 0
    assert visits(s) == [0, 1, 2] and pages(s, lid) == [2, 3, 4, 5, 0, 1]


def test_iterate_evict_appends_after_count(api: SimpleNamespace) -> None:
    """Odd pages say EVICT; with ``count=2`` the candidates land in cand[2:5]."""
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3, 4, 5])
    s.pm[[1, 3, 5], 0] = EVICT
    s.cand[:2] = [8, 9]
    assert api.iterate(s, acc(), lid, 2, SKIP, -1, SKIP, -1) == 5
    assert s.cand[:5].tolist() == [8, 9, 1, 3, 5]
    assert pages(s, lid) == [0, 1, 2, 3, 4, 5]  # SKIP: proposed nodes stay in place


def test_iterate_evict_to_tail_revisits_parked_nodes(api: SimpleNamespace) -> None:
    """Proposed nodes parked at the tail of the list being walked are met again.

    The walk follows each node's successor taken before the move (the kernel's "safe"
    iteration), so [0 1 2 3 4] with 1 and 3 EVICT, ``evict_mode=TO_TAIL``: 0, 1 (-> [0 2 3 4 1]),
    2, 3 (-> [0 2 4 1 3]), 4, whose successor is now 1: 1, 3, 1, 3 ... until 32 candidates.
    A policy using this mode must STOP itself or accept duplicates (which the framework refuses).
    """
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3, 4])
    s.pm[[1, 3], 0] = EVICT
    assert api.iterate(s, acc(), lid, 0, SKIP, -1, TO_TAIL, -1) == MAX_CANDIDATES
    assert s.cand.tolist() == [1, 3] * 16
    assert visits(s) == [0, 1, 2, 3, 4] + [1, 3] * 15
    assert pages(s, lid) == [0, 2, 4, 1, 3]
    assert api.check_lists(s) == 0


def test_iterate_evict_to_tail_of_other_list(api: SimpleNamespace) -> None:
    """Parking in another list: each node is visited once; E = [1, 3] in proposal order."""
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3, 4])
    E = api.list_create(s, 0)
    s.pm[[1, 3], 0] = EVICT
    assert api.iterate(s, acc(), lid, 0, SKIP, -1, TO_TAIL, E) == 2
    assert s.cand[:2].tolist() == [1, 3]
    assert pages(s, lid) == [0, 2, 4] and pages(s, E) == [1, 3]
    assert visits(s) == [0, 1, 2, 3, 4]


def test_iterate_moves_to_other_lists(api: SimpleNamespace) -> None:
    """A = [0, 1, 2, 3]; 1 and 3 EVICT -> head of E; 0 and 2 CONTINUE -> tail of K.
    Head insertion reverses: E = [3, 1]; tail insertion keeps order: K = [9, 0, 2]."""
    s = new_state()
    A = filled(api, s, [0, 1, 2, 3])
    K = filled(api, s, [9])
    E = api.list_create(s, 0)
    s.pm[[1, 3], 0] = EVICT
    assert api.iterate(s, acc(), A, 0, TO_TAIL, K, TO_HEAD, E) == 2
    assert pages(s, A) == [] and pages(s, K) == [9, 0, 2] and pages(s, E) == [3, 1]
    assert visits(s) == [0, 1, 2, 3]
    assert api.check_lists(s) == 0


def test_iterate_continue_to_head_of_same_list(api: SimpleNamespace) -> None:
    """Kept nodes moved to the head of the list being walked: [0, 1, 2] -> [2, 1, 0]; the walk
    follows each node's successor taken before the move, so it visits each once."""
    s = new_state()
    lid = filled(api, s, [0, 1, 2])
    assert api.iterate(s, acc(), lid, 0, TO_HEAD, -1, SKIP, -1) == 0
    assert visits(s) == [0, 1, 2] and pages(s, lid) == [2, 1, 0]


def test_iterate_clock_rotation(api: SimpleNamespace) -> None:
    """CLOCK-like pass: kept nodes rotate to the tail (``continue_mode=TO_TAIL``).

    [0 1 2 3 4 5], reference bits on 0, 1, 3. Visit 0 (bit: clear, rotate) -> [1 2 3 4 5 0];
    1 -> [2 3 4 5 0 1]; 2 EVICT; 3 rotates -> [2 4 5 0 1 3]; 4, 5 EVICT; 5's successor is now 0,
    whose bit was cleared: EVICT; then 1 and 3 likewise: the hand comes round, as CLOCK's does.
    Candidates 2 4 5 0 1 3, nine visits, final order [2 4 5 0 1 3].
    """
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3, 4, 5])
    s.pm[:, 0] = CLOCK
    s.pm[[0, 1, 3], 1] = 1
    assert api.iterate(s, acc(), lid, 0, TO_TAIL, -1, SKIP, -1) == 6
    assert s.cand[:6].tolist() == [2, 4, 5, 0, 1, 3]
    assert visits(s) == [0, 1, 2, 3, 4, 5, 0, 1, 3]
    assert pages(s, lid) == [2, 4, 5, 0, 1, 3]
    assert s.pm[:6, 1].tolist() == [0] * 6


def test_iterate_rotation_bounded_by_4097_visits(api: SimpleNamespace) -> None:
    """All CONTINUE with TO_TAIL on [0, 1, 2] would rotate for ever: the walk stops after
    4097 visits; 4097 = 3 * 1365 + 2 rotations leave [2, 0, 1]."""
    s = new_state(n_int_globals=16)
    lid = filled(api, s, [0, 1, 2])
    assert api.iterate(s, acc(), lid, 0, TO_TAIL, -1, SKIP, -1) == 0
    assert s.gi[VISITS] == MAX_ITERATE == 4097
    assert pages(s, lid) == [2, 0, 1]


def test_iterate_long_list_bounded_by_4097_visits(api: SimpleNamespace) -> None:
    n = 5000
    s = new_state(n_pages=n, n_int_globals=16)
    lid = filled(api, s, list(range(n)))
    s.pm[n - 1, 0] = EVICT  # beyond the bound: never reached
    assert api.iterate(s, acc(), lid, 0, SKIP, -1, SKIP, -1) == 0
    assert s.gi[VISITS] == 4097


def test_iterate_stops_at_32_candidates(api: SimpleNamespace) -> None:
    s = new_state(n_pages=40)
    lid = filled(api, s, list(range(40)))
    s.pm[:, 0] = EVICT
    assert api.iterate(s, acc(), lid, 0, SKIP, -1, SKIP, -1) == MAX_CANDIDATES
    assert s.cand.tolist() == list(range(32)) and s.gi[VISITS] == 32
    s.gi[VISITS] = 0
    assert api.iterate(s, acc(), lid, 30, SKIP, -1, SKIP, -1) == 32
    assert s.cand[30:].tolist() == [0, 1] and s.gi[VISITS] == 2
    s.gi[VISITS] = 0
    assert api.iterate(s, acc(), lid, 32, SKIP, -1, SKIP, -1) == 32  # already full
    assert s.gi[VISITS] == 0


def test_iterate_invalid_lists(api: SimpleNamespace) -> None:
    s = new_state()
    lid = filled(api, s, [0, 1])
    assert api.iterate(s, acc(), 3, 0, SKIP, -1, SKIP, -1) == -1
    assert api.iterate(s, acc(), lid, 0, TO_TAIL, 4, SKIP, -1) == -1
    assert api.iterate(s, acc(), lid, 0, SKIP, -1, TO_HEAD, 99) == -1
    assert s.gi[VISITS] == 0


def test_iterate_empty_list(api: SimpleNamespace) -> None:
    s = new_state()
    lid = api.list_create(s, 0)
    assert api.iterate(s, acc(), lid, 3, TO_TAIL, -1, TO_TAIL, -1) == 3
    assert s.gi[VISITS] == 0


def test_iterate_rejects_non_self_target_with_skip(api: SimpleNamespace) -> None:
    s = new_state()
    A = filled(api, s, [0, 1])
    B = api.list_create(s, 0)
    assert api.iterate(s, acc(), A, 0, SKIP, B, SKIP, -1) == -1


# ------------------------------------------------------------------------------- sample


def test_sample_groups_minimum_and_rotation(api: SimpleNamespace) -> None:
    """[0..9], scores 5 3 4 | 9 1 7 | ... ; request 2, sample size 3: groups {0,1,2} and
    {3,4,5}; minima 1 (score 3) and 4 (score 1); the six sampled nodes go to the tail in their
    order: [6 7 8 9 0 1 2 3 4 5]; exactly six scores computed."""
    s = new_state()
    lid = filled(api, s, list(range(10)))
    s.pm[:, 0] = [5, 3, 4, 9, 1, 7, 0, 0, 0, 0]
    assert api.sample(s, acc(), lid, 2, 3, False) == 2
    assert s.cand[:2].tolist() == [1, 4]
    assert s.scores[:2].tolist() == [3, 1]
    assert pages(s, lid) == [6, 7, 8, 9, 0, 1, 2, 3, 4, 5]
    assert s.gi[VISITS] == 6
    assert api.check_lists(s) == 0


def test_sample_ties_go_to_the_head(api: SimpleNamespace) -> None:
    """Strict ``<``: equal scores keep the node nearer the head (3 over 5, 6 over 7)."""
    s = new_state()
    lid = filled(api, s, [3, 5, 6, 7])
    s.pm[[3, 5, 6, 7], 0] = [2, 2, 4, 4]
    assert api.sample(s, acc(), lid, 2, 2, False) == 2
    assert s.cand[:2].tolist() == [3, 6]


def test_sample_too_short(api: SimpleNamespace) -> None:
    """[0..4] with request 2 x size 3 = 6 > 5: without ``partial`` nothing happens."""
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3, 4])
    s.cand[:] = -7
    assert api.sample(s, acc(), lid, 2, 3, False) == 0
    assert pages(s, lid) == [0, 1, 2, 3, 4] and s.gi[VISITS] == 0
    assert (s.cand == -7).all()


def test_sample_partial(api: SimpleNamespace) -> None:
    """Same list with ``partial``: groups {0,1,2} and {3,4} (shorter last group); scores
    4 6 2 | 8 5 -> candidates 2 and 4; all five rotate to the tail (same order)."""
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3, 4])
    s.pm[:5, 0] = [4, 6, 2, 8, 5]
    assert api.sample(s, acc(), lid, 2, 3, True) == 2
    assert s.cand[:2].tolist() == [2, 4] and s.scores[:2].tolist() == [2, 5]
    assert pages(s, lid) == [0, 1, 2, 3, 4]
    # request 3 x size 2 on 5 nodes: groups {0,1} {2,3} {4}
    s.pm[:5, 0] = [1, 0, 3, 3, 9]
    assert api.sample(s, acc(), lid, 3, 2, True) == 3
    assert s.cand[:3].tolist() == [1, 2, 4]


def test_sample_partial_empty_list(api: SimpleNamespace) -> None:
    s = new_state()
    lid = api.list_create(s, 0)
    assert api.sample(s, acc(), lid, 1, 4, True) == 0


def test_sample_rotation_with_rest_of_list(api: SimpleNamespace) -> None:
    """Two passes of request 1 x size 2 over [0 1 2 3 4]: each pass rotates the sampled window,
    so the second pass samples {2, 3}: [2 3 4 0 1] -> [4 0 1 2 3]."""
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3, 4])
    s.pm[:5, 0] = [7, 7, 9, 8, 0]
    assert api.sample(s, acc(), lid, 1, 2, False) == 1 and s.cand[0] == 0
    assert pages(s, lid) == [2, 3, 4, 0, 1]
    assert api.sample(s, acc(), lid, 1, 2, False) == 1 and s.cand[0] == 3
    assert pages(s, lid) == [4, 0, 1, 2, 3]


def test_sample_invalid_arguments(api: SimpleNamespace) -> None:
    s = new_state(n_pages=10)
    lid = filled(api, s, list(range(10)))
    assert api.sample(s, acc(), 4, 1, 2, True) == -1  # uncreated list
    assert api.sample(s, acc(), lid, 0, 2, True) == -1
    assert api.sample(s, acc(), lid, 1, 0, True) == -1
    assert api.sample(s, acc(), lid, 33, 1, True) == -1  # more groups than candidates
    assert api.sample(s, acc(), lid, 32, 65, True) == -1  # 2080 > 2048 nodes
    assert pages(s, lid) == list(range(10)) and s.gi[VISITS] == 0


def test_sample_maximum_window() -> None:
    """32 x 64 = 2048 nodes, the most list_sample detaches (compiled only: 2048 scores)."""
    n = 2100
    s = new_state(n_pages=n, n_int_globals=16)
    api = _compiled_api()
    lid = filled(api, s, list(range(n)))
    s.pm[:, 0] = np.arange(n)[::-1]  # the last node of each group of 64 wins
    assert api.sample(s, acc(), lid, 32, 64, False) == 32
    assert s.cand.tolist() == [64 * g + 63 for g in range(32)]
    assert pages(s, lid) == list(range(2048, n)) + list(range(2048))
    assert api.check_lists(s) == 0


def test_iterate_aborts_on_unknown_verdict(api: SimpleNamespace) -> None:
    s = new_state()
    lid = filled(api, s, [0, 1, 2, 3])
    s.pm[1, 0] = 7
    s.pm[3, 0] = EVICT
    api.iterate(s, acc(), lid, 0, SKIP, -1, SKIP, -1)
    assert visits(s) == [0, 1]


# ------------------------------------------------------------------------- indexed sample

RING, SLOT = 2, 3  #: pm columns of the index in the tests below
G_IX = 4  #: gi slots of the index (I.INDEX_GLOBALS of them)


@kernel
def _sample_indexed_compiled(s, a, lid, request, sample_size, partial):  # type: ignore[no-untyped-def]
    return I.list_sample_indexed(s, a, lid, _score, request, sample_size, partial, G_IX, RING, SLOT)


def _twin_states(n_pages: int) -> tuple[Any, Any]:
    one = make_state(n_pages, 1, n_int_fields=4, n_int_globals=16)
    one.resident[:] = 1
    two = make_state(n_pages, 1, n_int_fields=4, n_int_globals=16)
    two.resident[:] = 1
    return one, two


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sample_indexed_same_as_sample(seed: int) -> None:
    """Random adds, removals, samples (partial or not, several sizes) and moves the index is not
    told about: list_sample_indexed gives list_sample's candidates, scores and list order."""
    rng = np.random.default_rng(seed)
    n = 300
    plain, indexed = _twin_states(n)
    lp = L.list_create(plain, 0)
    li = L.list_create(indexed, 0)
    I.index_reset(indexed, li, G_IX, SLOT)
    scores = rng.integers(0, 5, n)
    plain.pm[:, 0] = scores
    indexed.pm[:, 0] = scores
    inside: set[int] = set()
    for step in range(3000):
        op = rng.random()
        if op < 0.4 and len(inside) < n:
            p = int(rng.choice([q for q in range(n) if q not in inside]))
            assert L.list_add_tail(plain, lp, p) == 0
            assert I.index_add_tail(indexed, li, p, G_IX, RING, SLOT) == 0
            inside.add(p)
        elif op < 0.6 and inside:
            p = int(rng.choice(sorted(inside)))
            I.index_removed(indexed, li, p, G_IX, RING, SLOT)
            L.list_del(plain, p)
            L.list_del(indexed, p)
            inside.discard(p)
        elif op < 0.62 and inside:  # a move the index does not see: it must notice and rebuild
            p = int(rng.choice(sorted(inside)))
            L.list_move(plain, lp, p, False)
            L.list_move(indexed, li, p, False)
        else:
            req, size, part = int(rng.integers(1, 4)), int(rng.integers(1, 7)), bool(rng.random() < 0.7)
            got_p = _sample_compiled(plain, acc(), lp, req, size, part)
            got_i = _sample_indexed_compiled(indexed, acc(), li, req, size, part)
            assert got_p == got_i, step
            assert plain.cand[: max(got_p, 0)].tolist() == indexed.cand[: max(got_i, 0)].tolist(), step
            assert plain.scores[: max(got_p, 0)].tolist() == indexed.scores[: max(got_i, 0)].tolist()
        assert pages(plain, lp) == pages(indexed, li), step
    assert L.check_lists(indexed) == 0


def test_sample_indexed_overwritten_ring_ends() -> None:
    """A policy that wrote tombstones over its whole ring (the index still counts itself exact):
    the pass stops after the ring's span of 6 slots instead of looping for ever, finds no page,
    rebuilds the index from the list and samples again: list_sample's result (all scores 0:
    page 0, nearest the head, of [0, 1, 2]; the window at the tail), ring [3, 4, 5, 0, 1, 2]
    from slot 3."""
    s, _ = _twin_states(10)
    lid = L.list_create(s, 0)
    I.index_reset(s, lid, G_IX, SLOT)
    for p in range(6):
        assert I.index_add_tail(s, lid, p, G_IX, RING, SLOT) == 0
    s.pm[:6, RING] = -1
    assert _sample_indexed_compiled(s, acc(), lid, 1, 3, False) == 1
    assert s.cand[0] == 0 and s.scores[0] == 0 and pages(s, lid) == [3, 4, 5, 0, 1, 2]
    assert s.gi[G_IX] == 3 and s.gi[G_IX + 1] == 6 and s.pm[:9, RING].tolist() == [0, 1, 2, 3, 4, 5, 0, 1, 2]


def test_sample_indexed_interpreted() -> None:
    """The same functions as plain Python: a short hand-worked run (rotation as list_sample)."""
    memo: dict[int, Any] = {}
    add = interpreted(I.index_add_tail, memo)
    reset = interpreted(I.index_reset, memo)
    removed = interpreted(I.index_removed, memo)
    sm = interpreted(I.list_sample_indexed, memo)
    score = interpreted(_score, memo)
    _, s = _twin_states(10)
    lid = L.list_create(s, 0)
    reset(s, lid, G_IX, SLOT)
    for p in range(10):
        add(s, lid, p, G_IX, RING, SLOT)
    s.pm[:, 0] = [5, 3, 4, 9, 1, 7, 0, 0, 0, 0]
    assert sm(s, acc(), lid, score, 2, 3, False, G_IX, RING, SLOT) == 2
    assert s.cand[:2].tolist() == [1, 4] and s.scores[:2].tolist() == [3, 1]
    assert pages(s, lid) == [6, 7, 8, 9, 0, 1, 2, 3, 4, 5]
    removed(s, lid, 7, G_IX, RING, SLOT)
    L.list_del(s, 7)
    assert sm(s, acc(), lid, score, 1, 3, False, G_IX, RING, SLOT) == 1
    assert s.cand[0] == 6 and pages(s, lid) == [0, 1, 2, 3, 4, 5, 6, 8, 9]


def test_sample_indexed_rebuilds_only_after_changes_it_was_not_told_about() -> None:
    """Pages 0-5 at slots 0-5, 2 removed (a tombstone at slot 2): the sample of 2 takes [0, 1]
    from the ring as it is (no rebuild, which would restart it at slot 0) and appends them at
    slots 6-7; the ring starts at slot 2, the tombstone, which the next walk skips. A move the
    index is not told about makes the next sample rebuild it first: ring [5, 3, 4, 0, 1] from
    slot 0, window [5, 3], start 2."""
    s, _ = _twin_states(10)
    lid = L.list_create(s, 0)
    I.index_reset(s, lid, G_IX, SLOT)
    for p in range(6):
        assert I.index_add_tail(s, lid, p, G_IX, RING, SLOT) == 0
    I.index_removed(s, lid, 2, G_IX, RING, SLOT)
    L.list_del(s, 2)
    assert _sample_indexed_compiled(s, acc(), lid, 1, 2, False) == 1
    assert s.gi[G_IX] == 2 and s.pm[:8, RING].tolist() == [0, 1, -1, 3, 4, 5, 0, 1]
    assert pages(s, lid) == [3, 4, 5, 0, 1] and s.cand[0] == 0
    L.list_move(s, lid, 5, False)
    assert _sample_indexed_compiled(s, acc(), lid, 1, 2, False) == 1
    assert s.gi[G_IX] == 2 and s.pm[:7, RING].tolist() == [5, 3, 4, 0, 1, 5, 3]
    assert pages(s, lid) == [4, 0, 1, 5, 3] and s.cand[0] == 5
