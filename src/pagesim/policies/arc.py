"""Adaptive Replacement Cache (ARC): balances recency (T1) and frequency (T2) with a learned target.

Source      Megiddo and Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", USENIX FAST
            2003, Fig. 4 (cases I-IV and REPLACE); the exact rules of libCacheSim's ``ARC``
            (cache/eviction/ARC.c, 2023-2025 tree, read, not ported).
Structures  T1 (pages seen once since they entered) and T2 (seen at least twice) are framework
            lists, most recent at the head. The shadow entries B1 and B2 (pages recently evicted
            from T1 / T2; the paper's "ghost" lists) are doubly linked lists in the policy's own
            column of ``s.pm``: a non-resident page cannot be on a framework list. A page's entry
            is one int64 (``PM.sh_entry``, core.shadow's packed layout: the list in 2 bits, the next
            and previous entries in 31 bits each) rather than its pair layout (next, prev, where:
            3 columns padded to a 32-byte row): an 8-byte row makes ``pm`` a quarter the size, and the row the
            engine prefetches for every access and those of B1/B2's ends stay in cache more often
            (docs/performance.md). ``gf[GF.p]`` is the target size of T1 (p).
Rules       Hit (case I): the page moves to the head of T2 (from T1 or within T2).
            Miss on a shadow entry in B1 (case II): p = min(p + max(|B2|/|B1|, 1), c); on B2
            (case III): p = max(p - max(|B1|/|B2|, 1), 0) -- real division, p a float
            (libCacheSim's choice; the paper leaves it open); the entry is dropped; if the cache is
            full, REPLACE; the page enters T2's head.
            Miss elsewhere (case IV), cache full: A) if |T1| + |B1| >= c: if B1 is not empty drop
            its LRU entry and REPLACE, else evict T1's LRU page without a shadow entry;
            B) otherwise, if |T1| + |T2| + |B1| + |B2| >= 2c and B2 is not empty drop B2's LRU
            entry, then REPLACE. The page enters T1's head.
            REPLACE: if (|T1| > 0 and (|T1| > p or (|T1| == p and the page was in B2))) or T2 is
            empty, T1's LRU page goes to the head of B1, else T2's LRU page to the head of B2.
            Hooks: ``admit`` classifies the miss and adapts p (before any eviction, as
            libCacheSim's ``find``); ``evict`` chooses the victim and records where its shadow
            entry goes; ``removed`` creates the shadow entry; ``added`` drops the newcomer's
            shadow entry, if any (after the eviction: ``admit`` prefetched the entry's
            neighbours, whose rows the unlink rewrites, and nothing between reads B1/B2's links
            or lengths but ``removed``'s push), and links the newcomer.
Parameters  none (as the paper and libCacheSim).
Complexity  O(1) per access and per eviction. One int64 column per page (resident or shadow);
            at most c shadow entries (|T1|+|T2|+|B1|+|B2| <= 2c). Dropping B1's or B2's oldest
            entry prefetches the row of the entry that will be dropped after the next one; an
            eviction from T1 or T2 the list node that the eviction after the next one from that
            list rewrites.
Deviations  1. A shadow-entry hit when the cache is not full evicts nothing (the engine calls
            ``evict`` only when full); libCacheSim does the same (``evict`` only runs while the
            cache is full), the paper's case II/III would REPLACE. Unreachable in cache mode with
            unit sizes once a shadow entry exists (the cache never shrinks).
            2. Pages removed by the fallback policy or freed get no shadow entry (never happens
            with this policy in cache mode: ``evict`` always proposes a resident page).
            3. One cgroup: the lists belong to cgroup 0.
Peers       libCacheSim 0.3.5 ``ARC``: identical miss counts on cloudPhysicsIO and the LIRS traces
            multi2, sprite, 2_pools (unit sizes; tests/crosscheck/test_classics_a_vs_libcachesim.py).
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.layout import Layout, field
from pagesim.core.lists import (
    list_create,
    list_len,
    list_link_head_unchecked,
    list_pages,
    list_prev,
    list_tail,
    list_unlink_unchecked,
)
from pagesim.core.prefetch import prefetch
from pagesim.core.shadow import (
    PACKED_ENTRY,
    PAIR_B1,
    PAIR_B2,
    PAIR_SIZE,
    SH_HEAD,
    SH_LEN,
    SH_TAIL,
    WHERE_MASK,
    entry_next,
    entry_prev,
    packed_pages,
    packed_push,
    packed_unlink,
    plain,
)
from pagesim.core.state import A_CGROUP, A_PAGE, A_REASON, REASON_POLICY
from pagesim.policies.base import HOOK_NAMES, Policy, SpeedHints

STATE = Layout(
    "arc",
    pm=(
        field(
            "sh_entry",
            "packed entry",
            "the page's shadow entry, core.shadow's packed layout (0 while it has none)",
        ),
    ),
    gi=(
        field("t1", "list id", "T1"),
        field("t2", "list id", "T2"),
        field("cap", "pages", "c, the capacity"),
        field(
            "shadows",
            "shadow headers",
            "B1's and B2's headers (core.shadow.SHADOW_PAIR: head, tail, length each)",
            count=PAIR_SIZE,
        ),
        field("shadow_hit", "B1/B2", "0 plain miss, 1 current miss was in B1, 2 in B2"),
        field("victim", "page id", "page proposed by the last ``evict``, -1 if none"),
        field("victim_to", "B1/B2", "where its shadow entry goes: 0 none, 1 B1, 2 B2"),
    ),
    gf=(field("p", "pages", "p, the target size of T1"),),
)
PM, GI, GF = STATE.pm, STATE.gi, STATE.gf
assert PM.sh_entry == PACKED_ENTRY, "core.shadow's packed functions read this column"

#: The first slot of B1's and of B2's header in ``s.gi`` (``+ SH_HEAD``, ``SH_TAIL``, ``SH_LEN``)
H_B1 = GI.shadows + PAIR_B1
H_B2 = GI.shadows + PAIR_B2
#: Each header's slots in ``s.gi`` by name (one global each in the hooks: a sum written in a
#: hook is one more numba variable in every copy the runner's inlining makes)
B1_HEAD, B1_TAIL, B1_LEN = (H_B1 + k for k in (SH_HEAD, SH_TAIL, SH_LEN))
B2_HEAD, B2_TAIL, B2_LEN = (H_B2 + k for k in (SH_HEAD, SH_TAIL, SH_LEN))


B1 = 1
B2 = 2


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.t1] = list_create(s, a[A_CGROUP])
    s.gi[GI.t2] = list_create(s, a[A_CGROUP])
    # every page's PM.sh_entry is 0 (no shadow entry): pm starts zeroed (core.state.make_state)
    s.gi[B1_HEAD] = -1
    s.gi[B1_TAIL] = -1
    s.gi[B1_LEN] = 0
    s.gi[B2_HEAD] = -1
    s.gi[B2_TAIL] = -1
    s.gi[B2_LEN] = 0
    s.gi[GI.shadow_hit] = 0
    s.gi[GI.victim] = -1
    s.gi[GI.victim_to] = 0
    s.gf[GF.p] = 0.0
    return 0 if s.gi[GI.t1] >= 0 and s.gi[GI.t2] >= 0 else -1


@kernel
def _admit(s, a):  # type: ignore[no-untyped-def]
    """Cases II and III: a miss on a shadow entry adapts p (``added`` drops the entry)."""
    page = a[A_PAGE]
    x = s.pm[page, PM.sh_entry]
    where = x & WHERE_MASK
    b1 = s.gi[B1_LEN]
    b2 = s.gi[B2_LEN]
    c = float(s.gi[GI.cap])
    if where == B1:
        delta = b2 / b1 if b2 > b1 else 1.0  # max(b2 / b1, 1.0) without the division
        s.gf[GF.p] = min(s.gf[GF.p] + delta, c)
    elif where == B2:
        delta = b1 / b2 if b1 > b2 else 1.0
        s.gf[GF.p] = max(s.gf[GF.p] - delta, 0.0)
    if where != 0:
        # the entry's neighbours load while the eviction runs; nothing before ``added`` reads
        # B1's or B2's links or lengths but ``removed``'s push, which keeps them consistent
        prefetch(s.pm, entry_prev(x))
        prefetch(s.pm, entry_next(x))
    s.gi[GI.shadow_hit] = where
    return 1


@kernel_inline
def _replace(s):  # type: ignore[no-untyped-def]
    """REPLACE: choose T1's or T2's LRU page; record that its shadow entry goes to B1 / B2."""
    t1 = list_len(s, s.gi[GI.t1])
    t2 = list_len(s, s.gi[GI.t2])
    p = s.gf[GF.p]
    in_b2 = s.gi[GI.shadow_hit] == B2
    if (t1 > 0 and (t1 > p or (t1 == p and in_b2))) or t2 == 0:
        s.gi[GI.victim_to] = B1
        return list_tail(s, s.gi[GI.t1])
    s.gi[GI.victim_to] = B2
    return list_tail(s, s.gi[GI.t2])


@kernel_inline
def _drop_oldest(s, tail_slot):  # type: ignore[no-untyped-def]
    """Drop B1's or B2's oldest entry; start loading the one after next (a later drop's work)."""
    packed_unlink(s, GI.shadows, s.gi[tail_slot])
    tail = s.gi[tail_slot]
    if tail >= 0:
        prefetch(s.pm, entry_prev(s.pm[tail, PM.sh_entry]))


@kernel_inline
def _prefetch_after_next(s, victim):  # type: ignore[no-untyped-def]
    """Start loading the list node that the eviction after the next one from ``victim``'s list
    unlinks from: the next victim's neighbour. The next victim's own node is in cache (this
    prefetch, one eviction before), so reading its link does not wait."""
    nxt = list_prev(s, victim)
    if nxt >= 0:
        prefetch(s.lst, list_prev(s, nxt))


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    if s.gi[GI.shadow_hit] != 0:
        victim = _replace(s)
    else:  # case IV
        c = s.gi[GI.cap]
        t1 = list_len(s, s.gi[GI.t1])
        b1 = s.gi[B1_LEN]
        if t1 + b1 + 1 > c:  # A: |T1| + |B1| = c
            if b1 > 0:
                _drop_oldest(s, B1_TAIL)
                victim = _replace(s)
            else:
                victim = list_tail(s, s.gi[GI.t1])
                s.gi[GI.victim_to] = 0
        else:  # B
            total = t1 + b1 + list_len(s, s.gi[GI.t2]) + s.gi[B2_LEN]
            if total >= 2 * c and s.gi[B2_LEN] > 0:
                _drop_oldest(s, B2_TAIL)
            victim = _replace(s)
    if victim < 0:
        return 0
    _prefetch_after_next(s, victim)
    s.gi[GI.victim] = victim
    s.cand[0] = victim
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    page = r[A_PAGE]
    if r[A_REASON] == REASON_POLICY and page == s.gi[GI.victim] and s.gi[GI.victim_to] != 0:
        packed_push(s, GI.shadows, s.gi[GI.victim_to], page)
    s.gi[GI.victim] = -1
    s.gi[GI.victim_to] = 0
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    # the newcomer is resident and on no list, T1 and T2 are valid: list_add's checks would pass
    page = a[A_PAGE]
    if s.gi[GI.shadow_hit] != 0:
        packed_unlink(s, GI.shadows, page)
        list_link_head_unchecked(s, s.gi[GI.t2], page)
    else:
        list_link_head_unchecked(s, s.gi[GI.t1], page)
    s.gi[GI.shadow_hit] = 0
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    # case I: from T1 or T2 to T2's head. A resident page is on T1 or T2 (both valid lists), so
    # list_move's checks would pass; they are most of the work of the hit, every access's path.
    page = a[A_PAGE]
    list_unlink_unchecked(s, page)
    list_link_head_unchecked(s, s.gi[GI.t2], page)
    return 0


def shadow_pages(s: Any, which: int) -> list[int]:
    """Pages of shadow list B1 (``which=1``) or B2 (2), most recent first (tests, reports)."""
    return packed_pages(s, GI.shadows, which)


class ARC(SpeedHints, Policy):
    """Adaptive Replacement Cache; see the module docstring."""

    name = "arc"
    description = "ARC: recency (T1) and frequency (T2) lists sized by shadow-entry hits"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    prefetch_links = ("list",)  # a hit moves the page: its list neighbours are written
    float_globals = STATE.float_globals
    inline_hooks = HOOK_NAMES
    init = staticmethod(_init)
    admit = staticmethod(_admit)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Store c, the capacity in pages."""
        s.gi[GI.cap] = int(capacity)

    @staticmethod
    def p(s: Any) -> float:
        """The current target size of T1."""
        return float(s.gf[GF.p])

    def check_invariants(self, s: Any) -> None:
        """T1 + T2 = resident set; B1, B2 well linked, non-resident; the paper's size bounds."""
        c = int(s.gi[GI.cap])
        t1 = list_pages(s, int(s.gi[GI.t1])).tolist()
        t2 = list_pages(s, int(s.gi[GI.t2])).tolist()
        resident = s.resident.nonzero()[0].tolist()
        assert sorted(t1 + t2) == resident, "T1 + T2 != resident set"
        for which, h in ((B1, H_B1), (B2, H_B2)):
            head, tail, length = h + SH_HEAD, h + SH_TAIL, h + SH_LEN
            pages = shadow_pages(s, which)
            assert len(pages) == int(s.gi[length]) <= s.pm.shape[0], f"B{which}: length"
            assert len(set(pages)) == len(pages), f"B{which}: a page twice"
            prev = -1
            for q in pages:
                x = int(s.pm[q, PM.sh_entry])
                assert x & WHERE_MASK == which and plain(entry_prev)(x) == prev, f"B{which}: links"
                assert not s.resident[q], f"B{which}: page {q} is resident"
                prev = q
            assert int(s.gi[tail]) == prev and (pages[0] if pages else -1) == int(s.gi[head]), f"B{which}"
        n_shadow = int((s.pm[:, PM.sh_entry] != 0).sum())
        assert n_shadow == int(s.gi[B1_LEN] + s.gi[B2_LEN]), "stray shadow marks"
        b1, b2 = int(s.gi[B1_LEN]), int(s.gi[B2_LEN])
        assert len(t1) + len(t2) <= c, "more resident pages than c"
        assert len(t1) + b1 <= c, "|T1| + |B1| > c"
        assert len(t1) + len(t2) + b1 + b2 <= 2 * c, "directory larger than 2c"
        assert 0.0 <= float(s.gf[GF.p]) <= c, "p outside [0, c]"
