"""CAR (Clock with Adaptive Replacement): ARC's adaptive split between recency and frequency, with
two CLOCKs instead of two LRU lists, so that a hit only sets a reference bit.

Source      Bansal and Modha, "CAR: Clock with Adaptive Replacement", USENIX FAST 2004, Fig. 2
            (lines 1-26, the request; 27-44, ``replace``).
Structures  T1 and T2 (the two clocks) are framework lists; the clock hand points at the list's
            tail (oldest) and pages enter at its head (the paper's "tail of the clock", just behind
            the hand), so ``list_tail`` is the paper's "head page". Per page: the reference bit
            (``pm[:, PM.ref]``). The shadow entries B1 and B2 (pages recently demoted from T1 / T2)
            are LRU lists in the policy's own columns (:mod:`pagesim.core.shadow`), newest at
            the head. ``gf[GF.p]`` is p, the target size of T1 (a real number, as in the paper).
Rules       Hit: the reference bit is set; nothing moves.
            Miss with the cache full: ``replace`` first (lines 27-44): while |T1| >= max(1, p),
            T1's head page goes to B1 (MRU end) if its bit is 0, else its bit is cleared and it
            moves behind T2's hand; otherwise T2's head page goes to B2 if its bit is 0, else its
            bit is cleared and it moves behind T2's hand; repeat until a page is demoted. Then
            the directory (lines 8-12), when x is in neither B1 nor B2: if |T1| + |B1| = c the
            LRU entry of B1 is discarded, else if |T1| + |T2| + |B1| + |B2| = 2c that of B2.
            Every miss (lines 14-25): not in B1 or B2: x enters T1 with its bit 0; in B1:
            p = min(p + max(1, |B2| / |B1|), c) and x enters T2 (bit 0); in B2:
            p = max(p - max(1, |B1| / |B2|), 0) and x enters T2 (bit 0). |B1| and |B2| are
            taken before x leaves its shadow list, as the paper's order of lines has it.
            Hooks: ``admit`` notes where x's shadow entry is; ``evict`` runs ``replace``;
            ``removed`` makes the shadow entry; ``added`` does lines 8-25.
Parameters  none (as the paper).
Complexity  O(1) per hit; a miss moves at most |T1| + |T2| pages around the clocks (amortised
            O(1): each move clears a bit a hit had set). Three int64 columns per page plus the
            bit; at most c shadow entries (|T1| + |T2| + |B1| + |B2| <= 2c).
Deviations  1. A shadow-entry hit while the cache is not yet full evicts nothing (the engine
            calls ``evict`` only when full), as the paper's line 4 also says.
            2. Pages removed by the fallback policy or freed get no shadow entry.
            3. One cgroup: the lists belong to cgroup 0.
Peers       none: libCacheSim 0.3.5 has no CAR; hand-worked tests in tests/unit/test_policies_car.py.
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_len, list_move, list_pages, list_tail
from pagesim.core.shadow import (
    PAIR_B1,
    PAIR_B2,
    PAIR_NEXT,
    PAIR_PREV,
    PAIR_SIZE,
    PAIR_WHERE,
    SH_HEAD,
    SH_LEN,
    SH_SIZE,
    SH_TAIL,
    pair_pages,
    pair_push,
    pair_unlink,
)
from pagesim.core.state import A_CGROUP, A_PAGE, A_REASON, LEN, REASON_POLICY
from pagesim.policies.base import Policy

STATE = Layout(
    "car",
    pm=(
        field(
            "sh_next",
            "page id",
            "next shadow entry towards the oldest end, -1 if none (core.shadow pair layout)",
        ),
        field("sh_prev", "page id", "previous shadow entry towards the newest end, -1 if none"),
        field("sh_where", "B1/B2", "0 no shadow entry, 1 in B1, 2 in B2"),
        field("ref", "flag", "the reference bit of a resident page"),
    ),
    gi=(
        field("t1", "list id", "T1"),
        field("t2", "list id", "T2"),
        field("cap", "pages", "the capacity"),
        field(
            "shadows",
            "shadow headers",
            "B1's and B2's headers (core.shadow.SHADOW_PAIR: head, tail, length each)",
            count=PAIR_SIZE,
        ),
        field("where", "B1/B2", "where the current miss's page had a shadow entry: 0, B1 or B2"),
        field("full", "flag", "1 if the current miss ran ``replace`` (the cache was full)"),
        field("victim", "page id", "the page ``replace`` demoted, -1 if none"),
        field("victim_to", "B1/B2", "B1 or B2: where its shadow entry goes"),
    ),
    gf=(field("p", "pages", "p, the target size of T1"),),
)
PM, GI, GF = STATE.pm, STATE.gi, STATE.gf
assert (PM.sh_next, PM.sh_prev, PM.sh_where) == (PAIR_NEXT, PAIR_PREV, PAIR_WHERE), (
    "core.shadow's pair layout"
)


B1 = 1
B2 = 2

#: The first slot of B1's and of B2's header in ``s.gi`` (``+ SH_HEAD``, ``SH_TAIL``, ``SH_LEN``)
H_B1 = GI.shadows + PAIR_B1
H_B2 = GI.shadows + PAIR_B2


@kernel
def _len(s, which):  # type: ignore[no-untyped-def]
    return s.gi[H_B1 + SH_SIZE * (which - 1) + SH_LEN]


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.t1] = list_create(s, a[A_CGROUP])
    s.gi[GI.t2] = list_create(s, a[A_CGROUP])
    for i in range(s.pm.shape[0]):
        s.pm[i, PM.sh_next] = -1
        s.pm[i, PM.sh_prev] = -1
        s.pm[i, PM.sh_where] = 0
        s.pm[i, PM.ref] = 0
    for h in (H_B1, H_B2):
        s.gi[h + SH_HEAD] = -1
        s.gi[h + SH_TAIL] = -1
        s.gi[h + SH_LEN] = 0
    s.gi[GI.where] = 0
    s.gi[GI.full] = 0
    s.gi[GI.victim] = -1
    s.gi[GI.victim_to] = 0
    s.gf[GF.p] = 0.0
    return 0 if s.gi[GI.t1] >= 0 and s.gi[GI.t2] >= 0 else -1


@kernel
def _admit(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.where] = s.pm[a[A_PAGE], PM.sh_where]
    s.gi[GI.full] = 0
    return 1


@kernel
def _replace(s):  # type: ignore[no-untyped-def]
    """Fig. 2, lines 27-44: turn the clocks until a page with its bit clear is found."""
    t1 = s.gi[GI.t1]
    t2 = s.gi[GI.t2]
    budget = 2 * (list_len(s, t1) + list_len(s, t2)) + 2
    while budget > 0:
        budget -= 1
        if list_len(s, t1) >= max(1.0, s.gf[GF.p]):
            page = list_tail(s, t1)
            if s.pm[page, PM.ref] == 0:
                s.gi[GI.victim_to] = B1
                return page
            s.pm[page, PM.ref] = 0
            list_move(s, t2, page, False)
        else:
            page = list_tail(s, t2)
            if page < 0:
                return -1
            if s.pm[page, PM.ref] == 0:
                s.gi[GI.victim_to] = B2
                return page
            s.pm[page, PM.ref] = 0
            list_move(s, t2, page, False)
    return -1


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.full] = 1
    victim = _replace(s)
    if victim < 0:
        return 0
    s.gi[GI.victim] = victim
    s.cand[0] = victim
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    page = r[A_PAGE]
    if r[A_REASON] == REASON_POLICY and page == s.gi[GI.victim]:
        pair_push(s, GI.shadows, s.gi[GI.victim_to], page)
    s.gi[GI.victim] = -1
    s.gi[GI.victim_to] = 0
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    page = a[A_PAGE]
    where = s.gi[GI.where]
    t1 = list_len(s, s.gi[GI.t1])
    if s.gi[GI.full] != 0 and where == 0:  # the directory's replacement (lines 8-12)
        c = s.gi[GI.cap]
        if t1 + _len(s, B1) == c and _len(s, B1) > 0:
            pair_unlink(s, GI.shadows, s.gi[H_B1 + SH_TAIL])
        elif t1 + list_len(s, s.gi[GI.t2]) + _len(s, B1) + _len(s, B2) == 2 * c and _len(s, B2) > 0:
            pair_unlink(s, GI.shadows, s.gi[H_B2 + SH_TAIL])
    s.pm[page, PM.ref] = 0
    if where == 0:
        list_add(s, s.gi[GI.t1], page)
    else:
        b1 = float(_len(s, B1))
        b2 = float(_len(s, B2))
        if where == B1:
            s.gf[GF.p] = min(s.gf[GF.p] + max(1.0, b2 / b1), float(s.gi[GI.cap]))
        else:
            s.gf[GF.p] = max(s.gf[GF.p] - max(1.0, b1 / b2), 0.0)
        pair_unlink(s, GI.shadows, page)
        list_add(s, s.gi[GI.t2], page)
    s.gi[GI.where] = 0
    s.gi[GI.full] = 0
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    s.pm[a[A_PAGE], PM.ref] = 1
    return 0


def shadow_pages(s: Any, which: int) -> list[int]:
    """Pages of B1 (``which=1``) or B2 (2), most recent first (tests, reports)."""
    return pair_pages(s, GI.shadows, which)


class CAR(Policy):
    """Clock with Adaptive Replacement; see the module docstring."""

    name = "car"
    description = "CAR: ARC's adaptive T1/T2 split over two CLOCKs (hits only set a bit)"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    float_globals = STATE.float_globals
    init = staticmethod(_init)
    admit = staticmethod(_admit)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Store c, the capacity in pages."""
        s.gi[GI.cap] = int(capacity)

    def readouts(self, s: Any) -> dict[str, float]:
        """p and the four lists' sizes."""
        return {
            "p": float(s.gf[GF.p]),
            "t1": float(s.lhd[int(s.gi[GI.t1]), LEN]),
            "t2": float(s.lhd[int(s.gi[GI.t2]), LEN]),
            "b1": float(s.gi[H_B1 + SH_LEN]),
            "b2": float(s.gi[H_B2 + SH_LEN]),
        }

    def check_invariants(self, s: Any) -> None:
        """T1 + T2 = resident set; B1, B2 non-resident and well counted; the paper's bounds."""
        c = int(s.gi[GI.cap])
        t1 = list_pages(s, int(s.gi[GI.t1])).tolist()
        t2 = list_pages(s, int(s.gi[GI.t2])).tolist()
        assert sorted(t1 + t2) == s.resident.nonzero()[0].tolist(), "T1 + T2 != resident set"
        b1, b2 = shadow_pages(s, B1), shadow_pages(s, B2)
        assert len(b1) == int(s.gi[H_B1 + SH_LEN]) and len(b2) == int(s.gi[H_B2 + SH_LEN]), "lengths"
        for which, pages in ((B1, b1), (B2, b2)):
            assert len(set(pages)) == len(pages), f"B{which}: a page twice"
            for q in pages:
                assert int(s.pm[q, PM.sh_where]) == which and not s.resident[q], f"B{which}: page {q}"
        assert int((s.pm[:, PM.sh_where] != 0).sum()) == len(b1) + len(b2), "stray shadow marks"
        assert len(t1) + len(t2) <= c and len(t1) + len(b1) <= c, "|T1| + |B1| > c"
        assert len(t1) + len(t2) + len(b1) + len(b2) <= 2 * c, "directory larger than 2c"
        assert 0.0 <= float(s.gf[GF.p]) <= c, "p outside [0, c]"
