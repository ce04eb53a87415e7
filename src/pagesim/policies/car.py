"""CAR (Clock with Adaptive Replacement): ARC's adaptive split between recency and frequency, with
two CLOCKs instead of two LRU lists, so that a hit only sets a reference bit.

Source      Bansal and Modha, "CAR: Clock with Adaptive Replacement", USENIX FAST 2004, Fig. 2
            (lines 1-26, the request; 27-44, ``replace``).
Structures  T1 and T2 (the two clocks) are framework lists; the clock hand points at the list's
            tail (oldest) and pages enter at its head (the paper's "tail of the clock", just behind
            the hand), so ``list_tail`` is the paper's "head page". Per page: the reference bit
            (``pm[:, REF]``). The shadow entries B1 and B2 (pages recently demoted from T1 / T2)
            are LRU lists in the policy's own columns (:mod:`pagesim.core.shadow`), newest at
            the head. ``gf[F_P]`` is p, the target size of T1 (a real number, as in the paper).
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
from pagesim.core.lists import list_add, list_create, list_len, list_move, list_pages, list_tail
from pagesim.core.shadow import PAIR_NEXT, PAIR_PREV, PAIR_WHERE, SH_LEN, pair_pages, pair_push, pair_unlink
from pagesim.core.state import A_CGROUP, A_PAGE, A_REASON, GI_USER, LEN, REASON_POLICY
from pagesim.policies.base import Policy

# pm columns
SH_NEXT = PAIR_NEXT  #: next shadow entry towards the oldest end, -1 if none (core.shadow pair layout)
SH_PREV = PAIR_PREV  #: previous shadow entry towards the newest end, -1 if none
SH_WHERE = PAIR_WHERE  #: 0 no shadow entry, 1 in B1, 2 in B2
REF = 3  #: the reference bit of a resident page

# gi slots
G_T1 = GI_USER
G_T2 = GI_USER + 1
G_CAP = GI_USER + 2
G_B1_HEAD = GI_USER + 3  #: B1's header: head, tail, length (core.shadow layout)
G_B2_HEAD = GI_USER + 6  #: B2's header
G_WHERE = GI_USER + 9  #: where the current miss's page had a shadow entry: 0, B1 or B2
G_FULL = GI_USER + 10  #: 1 if the current miss ran ``replace`` (the cache was full)
G_VICTIM = GI_USER + 11  #: the page ``replace`` demoted, -1 if none
G_VICTIM_TO = GI_USER + 12  #: B1 or B2: where its shadow entry goes

# gf slots
F_P = 0  #: p, the target size of T1 in pages

B1 = 1
B2 = 2


@kernel
def _len(s, which):  # type: ignore[no-untyped-def]
    return s.gi[G_B1_HEAD + 3 * (which - 1) + SH_LEN]


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[G_T1] = list_create(s, a[A_CGROUP])
    s.gi[G_T2] = list_create(s, a[A_CGROUP])
    for i in range(s.pm.shape[0]):
        s.pm[i, SH_NEXT] = -1
        s.pm[i, SH_PREV] = -1
        s.pm[i, SH_WHERE] = 0
        s.pm[i, REF] = 0
    for h in (G_B1_HEAD, G_B2_HEAD):
        s.gi[h] = -1
        s.gi[h + 1] = -1
        s.gi[h + 2] = 0
    s.gi[G_WHERE] = 0
    s.gi[G_FULL] = 0
    s.gi[G_VICTIM] = -1
    s.gi[G_VICTIM_TO] = 0
    s.gf[F_P] = 0.0
    return 0 if s.gi[G_T1] >= 0 and s.gi[G_T2] >= 0 else -1


@kernel
def _admit(s, a):  # type: ignore[no-untyped-def]
    s.gi[G_WHERE] = s.pm[a[A_PAGE], SH_WHERE]
    s.gi[G_FULL] = 0
    return 1


@kernel
def _replace(s):  # type: ignore[no-untyped-def]
    """Fig. 2, lines 27-44: turn the clocks until a page with its bit clear is found."""
    t1 = s.gi[G_T1]
    t2 = s.gi[G_T2]
    budget = 2 * (list_len(s, t1) + list_len(s, t2)) + 2
    while budget > 0:
        budget -= 1
        if list_len(s, t1) >= max(1.0, s.gf[F_P]):
            page = list_tail(s, t1)
            if s.pm[page, REF] == 0:
                s.gi[G_VICTIM_TO] = B1
                return page
            s.pm[page, REF] = 0
            list_move(s, t2, page, False)
        else:
            page = list_tail(s, t2)
            if page < 0:
                return -1
            if s.pm[page, REF] == 0:
                s.gi[G_VICTIM_TO] = B2
                return page
            s.pm[page, REF] = 0
            list_move(s, t2, page, False)
    return -1


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    s.gi[G_FULL] = 1
    victim = _replace(s)
    if victim < 0:
        return 0
    s.gi[G_VICTIM] = victim
    s.cand[0] = victim
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    page = r[A_PAGE]
    if r[A_REASON] == REASON_POLICY and page == s.gi[G_VICTIM]:
        pair_push(s, G_B1_HEAD, s.gi[G_VICTIM_TO], page)
    s.gi[G_VICTIM] = -1
    s.gi[G_VICTIM_TO] = 0
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    page = a[A_PAGE]
    where = s.gi[G_WHERE]
    t1 = list_len(s, s.gi[G_T1])
    if s.gi[G_FULL] != 0 and where == 0:  # the directory's replacement (lines 8-12)
        c = s.gi[G_CAP]
        if t1 + _len(s, B1) == c and _len(s, B1) > 0:
            pair_unlink(s, G_B1_HEAD, s.gi[G_B1_HEAD + 1])
        elif t1 + list_len(s, s.gi[G_T2]) + _len(s, B1) + _len(s, B2) == 2 * c and _len(s, B2) > 0:
            pair_unlink(s, G_B1_HEAD, s.gi[G_B2_HEAD + 1])
    s.pm[page, REF] = 0
    if where == 0:
        list_add(s, s.gi[G_T1], page)
    else:
        b1 = float(_len(s, B1))
        b2 = float(_len(s, B2))
        if where == B1:
            s.gf[F_P] = min(s.gf[F_P] + max(1.0, b2 / b1), float(s.gi[G_CAP]))
        else:
            s.gf[F_P] = max(s.gf[F_P] - max(1.0, b1 / b2), 0.0)
        pair_unlink(s, G_B1_HEAD, page)
        list_add(s, s.gi[G_T2], page)
    s.gi[G_WHERE] = 0
    s.gi[G_FULL] = 0
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    s.pm[a[A_PAGE], REF] = 1
    return 0


def shadow_pages(s: Any, which: int) -> list[int]:
    """Pages of B1 (``which=1``) or B2 (2), most recent first (tests, reports)."""
    return pair_pages(s, G_B1_HEAD, which)


class CAR(Policy):
    """Clock with Adaptive Replacement; see the module docstring."""

    name = "car"
    description = "CAR: ARC's adaptive T1/T2 split over two CLOCKs (hits only set a bit)"
    int_fields = ("sh_next", "sh_prev", "sh_where", "ref")
    int_globals = 13
    float_globals = 1
    init = staticmethod(_init)
    admit = staticmethod(_admit)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Store c, the capacity in pages."""
        s.gi[G_CAP] = int(capacity)

    def readouts(self, s: Any) -> dict[str, float]:
        """p and the four lists' sizes."""
        return {
            "p": float(s.gf[F_P]),
            "t1": float(s.lhd[int(s.gi[G_T1]), LEN]),
            "t2": float(s.lhd[int(s.gi[G_T2]), LEN]),
            "b1": float(s.gi[G_B1_HEAD + 2]),
            "b2": float(s.gi[G_B2_HEAD + 2]),
        }

    def check_invariants(self, s: Any) -> None:
        """T1 + T2 = resident set; B1, B2 non-resident and well counted; the paper's bounds."""
        c = int(s.gi[G_CAP])
        t1 = list_pages(s, int(s.gi[G_T1])).tolist()
        t2 = list_pages(s, int(s.gi[G_T2])).tolist()
        assert sorted(t1 + t2) == s.resident.nonzero()[0].tolist(), "T1 + T2 != resident set"
        b1, b2 = shadow_pages(s, B1), shadow_pages(s, B2)
        assert len(b1) == int(s.gi[G_B1_HEAD + 2]) and len(b2) == int(s.gi[G_B2_HEAD + 2]), "lengths"
        for which, pages in ((B1, b1), (B2, b2)):
            assert len(set(pages)) == len(pages), f"B{which}: a page twice"
            for q in pages:
                assert int(s.pm[q, SH_WHERE]) == which and not s.resident[q], f"B{which}: page {q}"
        assert int((s.pm[:, SH_WHERE] != 0).sum()) == len(b1) + len(b2), "stray shadow marks"
        assert len(t1) + len(t2) <= c and len(t1) + len(b1) <= c, "|T1| + |B1| > c"
        assert len(t1) + len(t2) + len(b1) + len(b2) <= 2 * c, "directory larger than 2c"
        assert 0.0 <= float(s.gf[F_P]) <= c, "p outside [0, c]"
