"""Low Inter-reference Recency Set (LIRS): keeps the pages whose last two uses were close (LIR),
gives a small share of memory to the others (resident HIR) and evicts among those.

Source      Jiang and Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement
            Policy to Improve Buffer Cache Performance", SIGMETRICS 2002, §3.3 (stack S, list Q,
            stack pruning); the exact rules of libCacheSim's ``LIRS`` (cache/eviction/LIRS.c,
            2024-2025 tree, read, not ported), quirks included (Deviations 1-2).
Structures  All in the policy's own columns of ``s.pm`` (a page may be in S and Q at once and S
            holds non-resident pages, so framework lists cannot be used): four doubly linked
            lists, head = most recent: S (the LIRS stack: LIR pages, resident and non-resident
            HIR pages; bottom = tail), Q (resident HIR pages, front = tail = next victim), NH
            (the non-resident HIR pages of S, oldest at the tail) and PEND (pages in memory that
            the rules no longer hold, oldest at the tail). ``PM.flags`` holds list membership and the
            S entry's two marks (LIR, resident) -- kept apart from Q membership as libCacheSim
            keeps one object per list.
Rules       (libCacheSim's, L = c - H LIR pages, H = max(1, int(hir_share * c)) resident HIR)
            Hit on a LIR page: to S's top, prune S (drop HIR entries from S's bottom until a LIR
            page is there). Hit on a resident HIR page in S: to S's top, out of Q, becomes LIR; the
            LIR page at S's bottom is demoted to Q's end (Q's front page leaves first if Q is
            full) and S is pruned. Hit on a resident HIR page in Q only: to Q's end and S's top,
            stays HIR -- and, as libCacheSim, the bottom LIR page is demoted all the same.
            Miss on a non-resident HIR page in S: to S's top, becomes LIR (bottom LIR demoted,
            Q's front evicted). Miss on a new page: LIR while fewer than L LIR pages, else a
            resident HIR page at S's top and Q's end (Q's front evicted if Q is full). After
            every access S is limited to 2c entries by dropping the oldest non-resident HIRs.
            Mapping onto the engine: the rules run in ``admit`` (miss) and ``accessed`` (hit) as
            libCacheSim's ``get``; a page they stop holding joins PEND and ``evict`` proposes
            PEND's oldest page. A hit on a LIR page (most accesses) takes a short path, inlined
            into the loop: of the rules only the move to S's top and pruning apply to it.
Parameters  hir_share = 0.01 (fraction of c): H = max(1, int(hir_share * c)) resident HIR pages;
            libCacheSim's hard-coded ``hirs_ratio`` (the paper suggests 1 %).
Complexity  O(1) amortised per access (each S entry is pruned or limited once); 8 int64 columns
            per page, one 64-byte line (PEND's two links share a column, core.shadow's
            packed entry), for resident pages and for the non-resident HIR entries of S (at most 2c
            entries in S while NH is not empty).
Deviations  1. libCacheSim evicts on a hit: a hit on a resident HIR page that is in Q but not in
            S demotes the bottom LIR page to Q, and with Q full Q's front page leaves memory
            then. The engine evicts only on misses: that page joins PEND and leaves at the next
            miss instead. If it is used again in between, libCacheSim misses and pagesim hits
            (afterwards both hold the same pages: that miss evicts nothing in libCacheSim).
            2. With H = 1 (c < 200 at the default share) the page hit in case 1 is itself Q's
            front and leaves Q while S still marks it resident: libCacheSim keeps counting it as
            a hit without counting its memory, so it holds up to one page more than c. pagesim
            cannot; when PEND is empty ``evict`` takes the first page in memory from Q's front,
            then S's bottom. Measured: sprite c=100 96,976 misses vs 96,918; 2_pools c=100
            52,708 vs 52,706; sprite c=1000 16,470 vs 16,471 (1 above). Both pinned in
            tests/crosscheck/test_classics_a_vs_libcachesim.py.
            3. As libCacheSim, with c = 1 (L = 0) nothing is cached. One cgroup.
Peers       libCacheSim 0.3.5 ``LIRS``: identical miss counts on cloudPhysicsIO (100, 1000,
            10000 pages), multi2 (500, 2000, 4000), sprite (5000) and 2_pools (1000, 5000);
            the rules alone (``tests/crosscheck/naive.py: lirs_libcachesim``) agree everywhere.
"""

from __future__ import annotations

from typing import Any

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.layout import Layout, field
from pagesim.core.prefetch import prefetch
from pagesim.core.shadow import (
    SH_HEAD,
    SH_LEN,
    SH_SIZE,
    SH_TAIL,
    entry_next,
    entry_prev,
    plain,
    with_next,
    with_prev,
)
from pagesim.core.state import A_PAGE
from pagesim.policies.base import Policy, SpeedHints
from pagesim.policies.params import defaults

# lists (index l): S, Q and NH link through a pair of pm columns each (next, towards the tail;
# prev), in that order; PEND, short and rarely walked, packs both links in one column
# (core.shadow's packed entry, its list bits unused; 0 = no links) so that a row is 8 int64: one
# aligned cache line, which the engine prefetches whole. PM.flags comes first, as every access
# reads it first.
LS = 0  #: stack S (tail = bottom)
LQ = 1  #: list Q (tail = front, the next HIR victim)
LNH = 2  #: non-resident HIR entries of S (tail = oldest)
LPD = 3  #: pages in memory the rules no longer hold (tail = oldest, the next victim)
S_LIR = 16  #: the S entry is LIR
S_RES = 32  #: the S entry is marked resident

STATE = Layout(
    "lirs",
    pm=(
        field("flags", "bits", "membership bits (1 << l) and the S entry's marks (S_LIR, S_RES)"),
        field("s_next", "page id", "S: next entry towards the tail (the bottom), -1 if none"),
        field("s_prev", "page id", "S: previous entry towards the head, -1 if none"),
        field("q_next", "page id", "Q: next entry towards the tail (the front), -1 if none"),
        field("q_prev", "page id", "Q: previous entry towards the head, -1 if none"),
        field("nh_next", "page id", "NH: next entry towards the tail (the oldest), -1 if none"),
        field("nh_prev", "page id", "NH: previous entry towards the head, -1 if none"),
        field("pd_links", "packed entry", "PEND's links, a core.shadow packed entry (0: none)"),
    ),
    gi=(
        field(
            "lists",
            "page id, pages",
            "per list (S, Q, NH, PEND): its header, core.shadow.SHADOW_HEADER (head, tail, length)",
            shape=(4, SH_SIZE),
        ),
        field("lirs", "pages", "libCacheSim's lirs_count"),
        field("hirs", "pages", "hirs_count"),
        field("occ", "pages", "occupied (the rules' own count of held pages)"),
        field("l", "pages", "LIR limit L"),
        field("h", "pages", "resident HIR limit H"),
        field("cap", "pages", "the capacity"),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel_inline
def _next(lst):  # type: ignore[no-untyped-def]
    """pm column of the link towards list ``lst``'s tail (S, Q, NH)."""
    return PM.s_next + 2 * lst


@kernel_inline
def _prev(lst):  # type: ignore[no-untyped-def]
    """pm column of the link towards list ``lst``'s head (S, Q, NH)."""
    return PM.s_prev + 2 * lst


@kernel_inline
def _get_next(s, lst, page):  # type: ignore[no-untyped-def]
    if lst == LPD:
        return entry_next(s.pm[page, PM.pd_links])
    return s.pm[page, _next(lst)]


@kernel_inline
def _get_prev(s, lst, page):  # type: ignore[no-untyped-def]
    if lst == LPD:
        return entry_prev(s.pm[page, PM.pd_links])
    return s.pm[page, _prev(lst)]


@kernel_inline
def _set_next(s, lst, page, value):  # type: ignore[no-untyped-def]
    if lst == LPD:
        s.pm[page, PM.pd_links] = with_next(s.pm[page, PM.pd_links], value)
    else:
        s.pm[page, _next(lst)] = value


@kernel_inline
def _set_prev(s, lst, page, value):  # type: ignore[no-untyped-def]
    if lst == LPD:
        s.pm[page, PM.pd_links] = with_prev(s.pm[page, PM.pd_links], value)
    else:
        s.pm[page, _prev(lst)] = value


@kernel_inline
def _head(s, lst):  # type: ignore[no-untyped-def]
    return s.gi[GI.lists + SH_SIZE * lst + SH_HEAD]


@kernel_inline
def _tail(s, lst):  # type: ignore[no-untyped-def]
    return s.gi[GI.lists + SH_SIZE * lst + SH_TAIL]


@kernel_inline
def _len(s, lst):  # type: ignore[no-untyped-def]
    return s.gi[GI.lists + SH_SIZE * lst + SH_LEN]


@kernel_inline
def _push(s, lst, page):  # type: ignore[no-untyped-def]
    """Insert ``page`` at the head of list ``lst``."""
    g = GI.lists + SH_SIZE * lst
    head = s.gi[g + SH_HEAD]
    _set_next(s, lst, page, head)
    _set_prev(s, lst, page, -1)
    if head >= 0:
        _set_prev(s, lst, head, page)
    else:
        s.gi[g + SH_TAIL] = page
    s.gi[g + SH_HEAD] = page
    s.gi[g + SH_LEN] += 1
    s.pm[page, PM.flags] |= 1 << lst


@kernel_inline
def _del(s, lst, page):  # type: ignore[no-untyped-def]
    """Unlink ``page`` from list ``lst``."""
    g = GI.lists + SH_SIZE * lst
    nxt = _get_next(s, lst, page)
    prv = _get_prev(s, lst, page)
    if prv >= 0:
        _set_next(s, lst, prv, nxt)
    else:
        s.gi[g + SH_HEAD] = nxt
    if nxt >= 0:
        _set_prev(s, lst, nxt, prv)
    else:
        s.gi[g + SH_TAIL] = prv
    s.gi[g + SH_LEN] -= 1
    _set_next(s, lst, page, -1)
    _set_prev(s, lst, page, -1)
    s.pm[page, PM.flags] &= ~(1 << lst)


@kernel_inline
def _to_head(s, lst, page):  # type: ignore[no-untyped-def]
    if _head(s, lst) != page:
        _del(s, lst, page)
        _push(s, lst, page)


@kernel_inline
def _prefetch_next_removal(s, lst):  # type: ignore[no-untyped-def]
    """Start loading the rows the next removal from ``lst``'s tail will write.

    Q's front, S's bottom and NH's oldest entry leave in order, each a row last touched long ago:
    the new tail's row was prefetched by the removal before, so its links can be read now and the
    neighbours that its own removal will unlink (for NH also its S neighbours) loaded ahead.
    """
    y = _tail(s, lst)
    if y >= 0:
        prefetch(s.pm, _get_prev(s, lst, y))
        if lst == LNH:
            prefetch(s.pm, s.pm[y, _next(LS)])
            prefetch(s.pm, s.pm[y, _prev(LS)])


@kernel_inline
def _held(s, y):  # type: ignore[no-untyped-def]
    """1 if libCacheSim's rules would hit on ``y`` now."""
    f = s.pm[y, PM.flags]
    if f & (1 << LQ):
        return 1
    if f & (1 << LS) and f & (S_LIR | S_RES):
        return 1
    return 0


@kernel_inline
def _sync(s, y):  # type: ignore[no-untyped-def]
    """Keep PEND = pages in memory that the rules do not hold (newly unheld pages at the head)."""
    if s.resident[y] == 0:
        return
    pend = s.pm[y, PM.flags] & (1 << LPD)
    if _held(s, y):
        if pend:
            _del(s, LPD, y)
    elif not pend:
        _push(s, LPD, y)


@kernel_inline
def _s_remove(s, y):  # type: ignore[no-untyped-def]
    _del(s, LS, y)
    s.pm[y, PM.flags] &= ~(S_LIR | S_RES)


@kernel
def _prune(s):  # type: ignore[no-untyped-def]
    while _len(s, LS) > 1:
        bottom = _tail(s, LS)
        f = s.pm[bottom, PM.flags]
        if f & S_LIR:
            break
        if not (f & S_RES) and f & (1 << LNH):
            _del(s, LNH, bottom)
        _s_remove(s, bottom)
        _sync(s, bottom)


@kernel
def _evict_hir(s):  # type: ignore[no-untyped-def]
    y = _tail(s, LQ)
    if y < 0:
        return
    _del(s, LQ, y)
    _prefetch_next_removal(s, LQ)
    s.gi[GI.hirs] -= 1
    if s.pm[y, PM.flags] & (1 << LS):
        s.pm[y, PM.flags] &= ~S_RES
        if not (s.pm[y, PM.flags] & (1 << LNH)):
            _push(s, LNH, y)
    s.gi[GI.occ] -= 1
    _sync(s, y)


@kernel
def _evict_lir(s):  # type: ignore[no-untyped-def]
    y = _tail(s, LS)
    if y < 0:
        return
    _s_remove(s, y)
    _prefetch_next_removal(s, LS)
    s.gi[GI.lirs] -= 1
    s.gi[GI.occ] -= 1
    while s.gi[GI.hirs] + 1 > s.gi[GI.h] and _len(s, LQ) > 0:
        _evict_hir(s)
    if not (s.pm[y, PM.flags] & (1 << LQ)):
        _push(s, LQ, y)
    s.gi[GI.hirs] += 1
    s.gi[GI.occ] += 1
    _sync(s, y)
    _prune(s)


@kernel
def _room_for_lir(s):  # type: ignore[no-untyped-def]
    while s.gi[GI.lirs] + 1 > s.gi[GI.l] and _len(s, LS) > 0:
        _evict_lir(s)


@kernel_inline
def _s_push(s, x, marks):  # type: ignore[no-untyped-def]
    if s.pm[x, PM.flags] & (1 << LS):
        _to_head(s, LS, x)
    else:
        _push(s, LS, x)
    s.pm[x, PM.flags] = (s.pm[x, PM.flags] & ~(S_LIR | S_RES)) | marks


@kernel
def _miss(s, x, in_s):  # type: ignore[no-untyped-def]
    """libCacheSim's can_insert, evict loop and insert for a page it does not hold."""
    if in_s:
        _room_for_lir(s)
        if s.pm[x, PM.flags] & (1 << LNH):
            _del(s, LNH, x)
    else:
        if s.gi[GI.l] < 1:
            return
        if s.gi[GI.lirs] + 1 > s.gi[GI.l] and s.gi[GI.hirs] + 1 > s.gi[GI.h]:
            while s.gi[GI.hirs] + 1 > s.gi[GI.h] and _len(s, LQ) > 0:
                _evict_hir(s)
    for _ in range(4):  # libCacheSim: while its cache is full, evict
        if s.gi[GI.occ] + 1 <= s.gi[GI.cap]:
            break
        f = s.pm[x, PM.flags]
        if in_s and f & (1 << LS) and not (f & (S_LIR | S_RES)):
            while s.gi[GI.hirs] >= s.gi[GI.h] and _len(s, LQ) > 0:
                _evict_hir(s)
            _evict_lir(s)
        elif not in_s and s.gi[GI.lirs] + 1 > s.gi[GI.l] and s.gi[GI.hirs] + 1 > s.gi[GI.h]:
            _evict_hir(s)
    if in_s or s.gi[GI.lirs] + 1 <= s.gi[GI.l]:
        _s_push(s, x, S_LIR | S_RES)
        s.gi[GI.lirs] += 1
    else:
        _s_push(s, x, S_RES)
        if not (s.pm[x, PM.flags] & (1 << LQ)):
            _push(s, LQ, x)
        s.gi[GI.hirs] += 1
    s.gi[GI.occ] += 1


@kernel
def _access(s, x):  # type: ignore[no-untyped-def]
    """One request through libCacheSim's rules (its ``get``); returns its verdict, 1 = hit."""
    f = s.pm[x, PM.flags]
    in_s = (f & (1 << LS)) != 0
    in_q = (f & (1 << LQ)) != 0
    if in_s:
        _to_head(s, LS, x)
    if in_q:
        _to_head(s, LQ, x)
    hit = 1
    if in_s and f & S_LIR:
        _prune(s)
    elif in_s and f & S_RES:  # resident HIR in S: becomes LIR
        if in_q:
            _del(s, LQ, x)
            s.gi[GI.hirs] -= 1
            s.gi[GI.occ] -= 1
        _room_for_lir(s)
        if s.pm[x, PM.flags] & (1 << LS):
            s.pm[x, PM.flags] |= S_LIR
        s.gi[GI.lirs] += 1
        s.gi[GI.occ] += 1
    elif not in_s and in_q:  # resident HIR only in Q (libCacheSim demotes a LIR page too)
        _room_for_lir(s)
        _s_push(s, x, S_RES)
    else:
        hit = 0
        _miss(s, x, in_s)
    cap2 = 2 * s.gi[GI.cap]
    while _len(s, LS) > cap2 and _len(s, LNH) > 0:  # limitStack
        y = _tail(s, LNH)
        _del(s, LNH, y)
        if s.pm[y, PM.flags] & (1 << LS):
            _s_remove(s, y)
        _prefetch_next_removal(s, LNH)
        _sync(s, y)
    _sync(s, x)
    return hit


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    for i in range(s.pm.shape[0]):
        for j in range(1, PM.pd_links):
            s.pm[i, j] = -1
        s.pm[i, PM.flags] = 0
        s.pm[i, PM.pd_links] = 0
    for lst in range(4):
        s.gi[GI.lists + SH_SIZE * lst + SH_HEAD] = -1
        s.gi[GI.lists + SH_SIZE * lst + SH_TAIL] = -1
        s.gi[GI.lists + SH_SIZE * lst + SH_LEN] = 0
    s.gi[GI.lirs] = 0
    s.gi[GI.hirs] = 0
    s.gi[GI.occ] = 0
    return 0


@kernel
def _admit(s, a):  # type: ignore[no-untyped-def]
    x = a[A_PAGE]
    _access(s, x)
    return _held(s, x)  # libCacheSim inserts nothing larger than its LIR set (c = 1)


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    x = a[A_PAGE]
    f = s.pm[x, PM.flags]
    if f & (S_LIR | (1 << LS) | (1 << LQ)) == S_LIR | (1 << LS):
        # Most hits: a LIR page, held, so not in PEND; S keeps its length. Of the rules only
        # the move to S's top and pruning are left, and pruning mostly finds a LIR bottom.
        _to_head(s, LS, x)
        if not (s.pm[_tail(s, LS), PM.flags] & S_LIR):
            _prune(s)
        return 0
    _access(s, x)
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    _sync(s, a[A_PAGE])
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    victim = _tail(s, LPD)
    if victim < 0:  # Deviation 2: every page in memory is held; take Q's front, then S's bottom
        for lst in (LQ, LS):
            y = _tail(s, lst)
            while y >= 0 and s.resident[y] == 0:
                y = _get_prev(s, lst, y)
            if y >= 0:
                victim = y
                break
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    y = r[A_PAGE]
    if s.pm[y, PM.flags] & (1 << LPD):
        _del(s, LPD, y)
    return 0


def list_entries(s: Any, lst: int) -> list[int]:
    """Pages of one of the policy's lists (LS, LQ, LNH, LPD), head first (tests, reports)."""
    out = []
    page = int(s.gi[GI.lists + SH_SIZE * lst + SH_HEAD])
    while page >= 0:
        out.append(page)
        page = int(plain(_get_next)(s, lst, page))
    return out


class LIRS(SpeedHints, Policy):
    """LIRS with libCacheSim's rules; see the module docstring."""

    name = "lirs"
    description = "LIRS: keep pages with short reuse (LIR), evict among a 1% set of HIR pages"
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    prefetch_links = ("s_next", "s_prev")  # a hit unlinks the page from S: both neighbours' rows
    inline_hooks = ("accessed",)
    params = defaults("lirs")  # policies/params.toml
    init = staticmethod(_init)
    admit = staticmethod(_admit)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """H = max(1, int(hir_share * c)) and L = c - H, as libCacheSim."""
        share = float(self.values["hir_share"])
        if not 0.0 <= share < 1.0:
            raise ValueError(f"lirs: hir_share must be in [0, 1), got {share}")
        h = max(1, int(share * capacity))
        s.gi[GI.h] = h
        s.gi[GI.l] = int(capacity) - h
        s.gi[GI.cap] = int(capacity)

    def check_invariants(self, s: Any) -> None:
        """Lists well linked and agreeing with the flags; PEND = in memory and not held; Q and
        NH as the rules define them; with H >= 2 the rules' counters equal the lists'."""
        flags = s.pm[:, PM.flags]
        members: dict[int, list[int]] = {}
        for lst in (LS, LQ, LNH, LPD):
            pages = list_entries(s, lst)
            length = int(s.gi[GI.lists + SH_SIZE * lst + SH_LEN])
            assert len(pages) == len(set(pages)) == length, f"list {lst}"
            prev = -1
            for q in pages:
                assert int(plain(_get_prev)(s, lst, q)) == prev, f"list {lst}: prev link of {q}"
                prev = q
            assert int(s.gi[GI.lists + SH_SIZE * lst + SH_TAIL]) == prev, f"list {lst}: tail"
            assert sorted(pages) == sorted(((flags & (1 << lst)) != 0).nonzero()[0].tolist()), lst
            members[lst] = pages
        assert not (flags & (S_LIR | S_RES) & ~((flags & (1 << LS)) * 48)).any(), "marks off S"
        held = {q for q in members[LQ]} | {q for q in members[LS] if flags[q] & (S_LIR | S_RES)}
        resident = set(s.resident.nonzero()[0].tolist())
        assert set(members[LPD]) == resident - held, "PEND != in memory and not held"
        assert len(resident) <= int(s.gi[GI.cap])
        if int(s.gi[GI.h]) >= 2 and int(s.gi[GI.l]) >= 1:  # libCacheSim's own accounting holds
            for q in members[LNH]:
                assert flags[q] & (1 << LS) and not flags[q] & S_RES, f"NH page {q}"
            lir = [q for q in members[LS] if flags[q] & S_LIR]
            assert len(lir) == int(s.gi[GI.lirs]) <= int(s.gi[GI.l]), "LIR count"
            assert len(members[LQ]) == int(s.gi[GI.hirs]) <= int(s.gi[GI.h]), "Q count"
            assert int(s.gi[GI.occ]) == len(held) <= int(s.gi[GI.cap]), "held count"
            assert all(flags[q] & S_RES == 0 or flags[q] & (S_LIR | (1 << LQ)) for q in members[LS])
            if lir:
                assert flags[members[LS][-1]] & S_LIR, "S's bottom is not LIR after pruning"
