"""2Q (full version): a FIFO probation queue for new pages; only pages re-used soon after leaving it
are admitted to the main LRU queue, so a scan churns the small queue and leaves the main one alone.

Source      Johnson and Shasha, "2Q: A Low Overhead High Performance Buffer Management Replacement
            Algorithm", VLDB 1994, Fig. 3 ("full version"); the sizes and rules of libCacheSim's
            ``TwoQ`` (cache/eviction/TwoQ.c, read, not ported).
Structures  A1in (FIFO of pages on their first stay, newest at the head) and Am (LRU, most recent
            at the head) are framework lists. A1out, the shadow entries of pages recently put out
            of A1in, is a FIFO kept in the policy's own columns of ``s.pm`` (``PM.sh_next``,
            ``PM.sh_prev``, ``PM.sh_in``): a non-resident page cannot be on a framework list.
Rules       Hit in A1in: nothing (correlated references are not counted). Hit in Am: move to the
            head. Miss: if the page has a shadow entry in A1out, drop it (before any eviction) and
            put the page at Am's head; otherwise at A1in's head.
            Reclaim (cache full): if |A1in| > Kin, A1in's oldest page leaves and its shadow entry
            goes to A1out's head (A1out's oldest entry is dropped first if it already holds Kout);
            otherwise Am's least recent page leaves, remembered nowhere.
Parameters  kin = 0.25 (fraction of the capacity): Kin = int(c * kin) pages that A1in keeps before
            it gives pages up; libCacheSim's ``Ain-size-ratio`` default (the paper: 25 %).
            kout = 0.5 (fraction of the capacity): Kout = int(c * kout) shadow entries in A1out;
            libCacheSim's ``Aout-size-ratio`` default (the paper: 50 %).
            As libCacheSim, a page larger than Kin is never inserted: with the defaults a cache of
            fewer than 4 pages (Kin = 0) caches nothing (its ``can_insert``; pinned in the unit tests).
Complexity  O(1) per access and per eviction. Three int64 columns per page (resident or shadow);
            at most Kout shadow entries.
Deviations  1. Am as a sub-cache of c - Kin pages would evict its own LRU page when full at a
            re-admission (libCacheSim's ``Am->get``); that cannot happen in cache mode (A1in never
            falls below Kin once a shadow entry exists, so Am stays below c - Kin after a reclaim)
            and this policy has no such path; ``check_invariants`` asserts |Am| <= c - Kin.
            2. Pages removed by the fallback policy or freed get no shadow entry (never happens:
            ``evict`` always proposes a resident page). One cgroup: lists of cgroup 0.
Peers       libCacheSim 0.3.5 ``TwoQ`` (defaults ``Ain-size-ratio=0.25,Aout-size-ratio=0.5``):
            identical miss counts on cloudPhysicsIO and the LIRS traces multi2, sprite, 2_pools
            (unit sizes; tests/crosscheck/test_classics_a_vs_libcachesim.py).
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_len, list_move, list_of, list_pages, list_tail
from pagesim.core.shadow import SH_HEAD, SH_LEN, SH_SIZE, SH_TAIL, shadow_push, shadow_unlink
from pagesim.core.state import A_CGROUP, A_PAGE, A_REASON, REASON_POLICY
from pagesim.policies.base import Policy, SpeedHints
from pagesim.policies.params import defaults

STATE = Layout(
    "2q",
    pm=(
        field("sh_next", "page id", "next entry towards the oldest (tail), -1 if none"),
        field("sh_prev", "page id", "previous entry towards the newest (head), -1 if none"),
        field("sh_in", "flag", "1 while the page has a shadow entry in A1out"),
    ),
    gi=(
        field("a1in", "list id", "A1in"),
        field("am", "list id", "Am"),
        field("kin", "pages", "Kin, A1in's share"),
        field("kout", "pages", "Kout, shadow entries kept at most"),
        field(
            "out",
            "SHADOW_HEADER",
            "A1out's header (core.shadow): newest shadow entry, oldest, entries held",
            count=SH_SIZE,
        ),
        field("remembered", "flag", "1 if the current miss had a shadow entry"),
        field("victim", "page id", "page proposed by the last ``evict`` from A1in (gets a shadow entry)"),
        field("cap", "pages", "the capacity"),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def _out_del(s, page):  # type: ignore[no-untyped-def]
    shadow_unlink(s.pm[:, PM.sh_next], s.pm[:, PM.sh_prev], s.gi[GI.out : GI.out + SH_SIZE], page)
    s.pm[page, PM.sh_in] = 0


@kernel
def _out_push(s, page):  # type: ignore[no-untyped-def]
    """Remember ``page`` at A1out's head, dropping the oldest entry if A1out is full."""
    if s.gi[GI.kout] < 1:
        return
    while s.gi[GI.out + SH_LEN] >= s.gi[GI.kout]:
        _out_del(s, s.gi[GI.out + SH_TAIL])
    shadow_push(s.pm[:, PM.sh_next], s.pm[:, PM.sh_prev], s.gi[GI.out : GI.out + SH_SIZE], page)
    s.pm[page, PM.sh_in] = 1


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.a1in] = list_create(s, a[A_CGROUP])
    s.gi[GI.am] = list_create(s, a[A_CGROUP])
    for i in range(s.pm.shape[0]):
        s.pm[i, PM.sh_next] = -1
        s.pm[i, PM.sh_prev] = -1
        s.pm[i, PM.sh_in] = 0
    s.gi[GI.out + SH_HEAD] = -1
    s.gi[GI.out + SH_TAIL] = -1
    s.gi[GI.out + SH_LEN] = 0
    s.gi[GI.remembered] = 0
    s.gi[GI.victim] = -1
    return 0 if s.gi[GI.a1in] >= 0 and s.gi[GI.am] >= 0 else -1


@kernel
def _admit(s, a):  # type: ignore[no-untyped-def]
    page = a[A_PAGE]
    remembered = s.pm[page, PM.sh_in]
    if remembered != 0:
        _out_del(s, page)
    s.gi[GI.remembered] = remembered
    return 1 if s.gi[GI.kin] >= 1 else 0  # libCacheSim: a page larger than Kin is not inserted


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    a1in = s.gi[GI.a1in]
    victim = -1
    if list_len(s, a1in) > s.gi[GI.kin]:
        victim = list_tail(s, a1in)
        s.gi[GI.victim] = victim
    else:
        victim = list_tail(s, s.gi[GI.am])
        if victim < 0:  # Am empty (only if Kin >= c): take A1in's oldest all the same
            victim = list_tail(s, a1in)
            s.gi[GI.victim] = victim
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    page = r[A_PAGE]
    if r[A_REASON] == REASON_POLICY and page == s.gi[GI.victim]:
        _out_push(s, page)
    s.gi[GI.victim] = -1
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    if s.gi[GI.remembered] != 0:
        list_add(s, s.gi[GI.am], a[A_PAGE])
    else:
        list_add(s, s.gi[GI.a1in], a[A_PAGE])
    s.gi[GI.remembered] = 0
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    page = a[A_PAGE]
    am = s.gi[GI.am]
    if list_of(s, page) == am:
        list_move(s, am, page, False)
    return 0


def shadow_pages(s: Any) -> list[int]:
    """A1out's pages, newest first (tests, reports)."""
    out = []
    page = int(s.gi[GI.out + SH_HEAD])
    while page >= 0:
        out.append(page)
        page = int(s.pm[page, PM.sh_next])
    return out


class TwoQ(SpeedHints, Policy):
    """2Q, full version (A1in, A1out, Am); see the module docstring."""

    name = "2q"
    description = "2Q: FIFO probation (A1in), shadow entries (A1out), LRU main queue (Am)"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    prefetch_links = ("list",)  # a hit moves the page: its list neighbours are written
    params = defaults("2q")  # policies/params.toml
    init = staticmethod(_init)
    admit = staticmethod(_admit)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Kin = int(c * kin), Kout = int(c * kout), truncated as libCacheSim does."""
        kin = float(self.values["kin"])
        kout = float(self.values["kout"])
        if not 0.0 < kin < 1.0:
            raise ValueError(f"2q: kin must be in (0, 1), got {kin}")
        if not 0.0 <= kout:
            raise ValueError(f"2q: kout must be >= 0, got {kout}")
        s.gi[GI.kin] = int(capacity * kin)
        s.gi[GI.kout] = int(capacity * kout)
        s.gi[GI.cap] = int(capacity)

    def check_invariants(self, s: Any) -> None:
        """A1in + Am = resident set; A1out well linked, non-resident, at most Kout; |Am| <= c - Kin."""
        a1in = list_pages(s, int(s.gi[GI.a1in])).tolist()
        am = list_pages(s, int(s.gi[GI.am])).tolist()
        assert sorted(a1in + am) == s.resident.nonzero()[0].tolist(), "A1in + Am != resident set"
        out = shadow_pages(s)
        held = int(s.gi[GI.out + SH_LEN])
        assert len(out) == len(set(out)) == held <= max(int(s.gi[GI.kout]), 0), "A1out size"
        prev = -1
        for q in out:
            assert int(s.pm[q, PM.sh_in]) == 1 and int(s.pm[q, PM.sh_prev]) == prev, "A1out links"
            assert not s.resident[q], f"page {q} is resident and in A1out"
            prev = q
        assert int(s.gi[GI.out + SH_TAIL]) == prev, "A1out tail"
        assert int(s.pm[:, PM.sh_in].sum()) == len(out), "stray A1out marks"
        assert len(am) <= int(s.gi[GI.cap]) - int(s.gi[GI.kin]), "Am above c - Kin"
