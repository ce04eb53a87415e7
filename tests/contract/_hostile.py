"""One hostile policy for every contract test that needs one: LRU's list, a ``mode`` to misbehave.

Each way of breaking the rules is a ``mode`` of the same class rather than a class of its own,
so that the whole set compiles one runner (a user's runner takes about ten CPU seconds to
compile; the contract tests once compiled fifteen). The hooks are LRU's except where the mode
says otherwise; every hook reads the mode from ``s.gi[MODE]``, written by ``configure``.

Modes (what ``evict`` proposes, unless said otherwise)

* ``not-resident``: the page being faulted in, not resident yet;
* ``out-of-range``: -1, ``n_pages`` and ``2**40``;
* ``duplicate-unused``: the tail, the page before it, and that page again;
* ``duplicate-victim``: the tail twice;
* ``overflow``: the tail ``MAX_CANDIDATES`` times with a count of ``MAX_CANDIDATES + 1``;
* ``nothing``: no candidate;
* ``negative``: the tail, with a count of -3;
* ``garbage-one-valid``: four invalid ids around the tail;
* ``valid-last-of-32``: 31 invalid ids, then the tail;
* ``endless-rotation``: a ``list_iterate`` whose verdict always keeps the page (``s.gi[COUNT]``
  counts the verdicts asked);
* ``bad-verdict``: a ``list_iterate`` whose verdict is none of CONTINUE/STOP/EVICT;
* ``raises``: the tail, but the third call raises ``ValueError("hostile evict")``;
* ``foreign``: the LRU page of the other cgroup (two cgroups);
* ``huge-count``: the tail, with a count of ``2**40``;
* ``past-the-buffer``: writes ``s.cand[40]`` (the buffer has 32 slots);
* ``writes-resident``: ``accessed`` clears the page's ``s.resident`` (read-only for policies);
* ``random-garbage``: 0 to 39 ids drawn from -3 to ``n_pages + 2`` by a 31-bit LCG seeded with
  ``seed`` (the same numbers compiled and interpreted): some valid, many not, and above 32 the
  whole proposal refused.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.lists import CONTINUE, TO_TAIL, list_iterate, list_prev, list_tail
from pagesim.core.state import A_CGROUP, A_N_PAGES, A_PAGE, GI_USER, MAX_CANDIDATES, MAX_LISTS_PER_CGROUP
from pagesim.policies import lru
from pagesim.policies.base import Policy

LIST = GI_USER  #: LRU's list id (lru.GI.list)
COUNT = GI_USER + 1  #: verdicts asked, or evict calls made (endless-rotation, bad-verdict, raises)
MODE = GI_USER + 2  #: index of the mode in MODES
RNG = GI_USER + 3  #: random-garbage's generator state

MODES = (
    "not-resident",
    "out-of-range",
    "duplicate-unused",
    "duplicate-victim",
    "overflow",
    "nothing",
    "negative",
    "garbage-one-valid",
    "valid-last-of-32",
    "endless-rotation",
    "bad-verdict",
    "raises",
    "foreign",
    "huge-count",
    "past-the-buffer",
    "writes-resident",
    "random-garbage",
)
_M = {name: i for i, name in enumerate(MODES)}
# each mode's number, derived from MODES so that the two cannot disagree
NOT_RESIDENT, OUT_OF_RANGE = _M["not-resident"], _M["out-of-range"]
DUPLICATE_UNUSED, DUPLICATE_VICTIM = _M["duplicate-unused"], _M["duplicate-victim"]
OVERFLOW, NOTHING, NEGATIVE = _M["overflow"], _M["nothing"], _M["negative"]
GARBAGE_ONE_VALID, VALID_LAST_OF_32 = _M["garbage-one-valid"], _M["valid-last-of-32"]
ENDLESS_ROTATION, BAD_VERDICT, RAISES = _M["endless-rotation"], _M["bad-verdict"], _M["raises"]
FOREIGN, HUGE_COUNT, PAST_THE_BUFFER = _M["foreign"], _M["huge-count"], _M["past-the-buffer"]
WRITES_RESIDENT, RANDOM_GARBAGE = _M["writes-resident"], _M["random-garbage"]


@kernel
def _rotate_forever(s, a, index, page):  # type: ignore[no-untyped-def]
    s.gi[COUNT] += 1
    return CONTINUE  # keep it, and list_iterate moves it to the tail: the walk never ends


@kernel
def _bad_verdict(s, a, index, page):  # type: ignore[no-untyped-def]
    s.gi[COUNT] += 1
    return 7  # none of CONTINUE, STOP, EVICT: cache_ext aborts the walk


@kernel
def _rand(s):  # type: ignore[no-untyped-def]
    """31-bit LCG in ``s.gi[RNG]`` (no overflow: the same numbers compiled and interpreted)."""
    x = (s.gi[RNG] * 1103515245 + 12345) & 0x7FFFFFFF
    s.gi[RNG] = x
    return x >> 8


@kernel
def _random_garbage(s, a):  # type: ignore[no-untyped-def]
    n = _rand(s) % 40  # above 32: the whole proposal is refused
    span = a[A_N_PAGES] + 6
    for i in range(min(n, MAX_CANDIDATES)):
        s.cand[i] = _rand(s) % span - 3
    return n


@kernel
def _propose(s, a, mode):  # type: ignore[no-untyped-def]
    """The candidates of the modes that only write ``s.cand``; returns the count."""
    tail = list_tail(s, s.gi[LIST])
    if mode == NOT_RESIDENT:
        s.cand[0] = a[A_PAGE]
        return 1
    if mode == OUT_OF_RANGE:
        s.cand[0], s.cand[1], s.cand[2] = -1, a[A_N_PAGES], 1 << 40
        return 3
    if mode == DUPLICATE_UNUSED:
        u = list_prev(s, tail)
        s.cand[0], s.cand[1], s.cand[2] = tail, u, u
        return 3
    if mode == DUPLICATE_VICTIM:
        s.cand[0], s.cand[1] = tail, tail
        return 2
    if mode == OVERFLOW:
        for i in range(MAX_CANDIDATES):
            s.cand[i] = tail
        return MAX_CANDIDATES + 1
    if mode == NEGATIVE:
        s.cand[0] = tail
        return -3
    if mode == GARBAGE_ONE_VALID:
        s.cand[0], s.cand[1], s.cand[2] = -1, a[A_N_PAGES] + 7, a[A_PAGE]
        s.cand[3], s.cand[4] = tail, 1 << 40
        return 5
    if mode == VALID_LAST_OF_32:
        for i in range(MAX_CANDIDATES - 1):
            s.cand[i] = -2 - i
        s.cand[MAX_CANDIDATES - 1] = tail
        return MAX_CANDIDATES
    if mode == HUGE_COUNT:
        s.cand[0] = tail
        return 2**40
    if mode == PAST_THE_BUFFER:
        s.cand[40] = tail
        return 1
    return 0  # NOTHING


@kernel
def _other_cgroups_tail(s, a):  # type: ignore[no-untyped-def]
    # The list headers are shared by every cgroup's policy: find the other cgroup's list.
    other = 1 - a[A_CGROUP]
    for lid in range(other * MAX_LISTS_PER_CGROUP, (other + 1) * MAX_LISTS_PER_CGROUP):
        if s.lhd[lid, 2] > 0:
            s.cand[0] = list_tail(s, lid)
            return 1
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    mode = s.gi[MODE]
    if mode == ENDLESS_ROTATION:
        return list_iterate(s, a, s.gi[LIST], _rotate_forever, 0, TO_TAIL, -1, TO_TAIL, -1)
    if mode == BAD_VERDICT:
        return list_iterate(s, a, s.gi[LIST], _bad_verdict, 0, TO_TAIL, -1, TO_TAIL, -1)
    if mode == FOREIGN:
        return _other_cgroups_tail(s, a)
    if mode == RANDOM_GARBAGE:
        return _random_garbage(s, a)
    if mode == RAISES:
        s.gi[COUNT] += 1
        if s.gi[COUNT] == 3:
            raise ValueError("hostile evict")
        return lru._evict(s, a)
    return _propose(s, a, mode)


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    lru._accessed(s, a)
    if s.gi[MODE] == WRITES_RESIDENT:
        s.resident[a[A_PAGE]] = 0  # read-only for policies: the page would leak its capacity
    return 0


class Hostile(Policy):
    """LRU's list and hooks, with the ``mode`` named (one of :data:`MODES`) breaking a rule;
    ``seed`` seeds random-garbage's generator."""

    name = "hostile"
    int_globals = 4
    params = {"mode": "nothing", "seed": 1}
    init = staticmethod(lru._init)
    added = staticmethod(lru._added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)

    def __init__(self, **overrides: object) -> None:
        super().__init__(**overrides)
        if self.values["mode"] not in _M:
            raise ValueError(f"unknown hostile mode {self.values['mode']!r}; known: {', '.join(MODES)}")

    def configure(self, s, capacity):  # type: ignore[no-untyped-def]
        s.gi[MODE] = _M[self.values["mode"]]
        s.gi[RNG] = int(self.values["seed"])
