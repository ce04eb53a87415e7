"""cache_ext MGLRU port (ce-mglru): generations and tiers as cache_ext's eBPF port ran them, quirks included.

Source      cache_ext spec §4.6 (cache_ext repo ``policies/cache_ext_mglru.bpf.c``:
            ``mglru_evict_folios``, ``mglru_iter_fn``, ``lru_gen_add_folio``, and its loader),
            §2.6b (``list_iterate_extended``), §6 item 13; Zussman et al., "cache_ext:
            Customizing the Page Cache with eBPF", SOSP 2025, §5 and Table 5 (the port against
            the kernel's MGLRU); after Linux 6.6 ``mm/vmscan.c`` (lru_gen), which ``mglru``
            models in kernel mode.
Structures  Four eviction lists, one per generation (sequence number mod 4); min_seq, max_seq
            (init 0 and 3: four live generations); pages per generation; per tier: evicted,
            refaulted, protected and the averaged refaulted and total (one history slot).
            Per page: ``pm[page, PM.refs]`` (accesses, from 1), ``pm[page, PM.gen]``, the insertion
            number and time (``PM.seq``, ``PM.added_ns``, for the off-LRU and locked rules). Shadow entries
            (cache_ext: an LRU hash of 400 000 entries keyed by file and index, holding the tier
            at eviction) are a FIFO of page ids with the tier in ``pm[page, PM.shadow_tier]``.
Rules       tier(refs) = 0 for refs <= 1, 1 for 2-3, 2 for 4-7, 3 for >= 8.
            added: refs := 1; generation max_seq if active (never at insertion), else min_seq
            when min_seq + 2 >= max_seq, else min_seq + 1 (cache_ext's "dirty and under
            reclaim -> max_seq - 1" never holds at insertion); that generation's count + 1; a
            shadow entry counts a refault in its tier and is dropped; the page goes to the
            HEAD of its generation's list. In cache mode with ``fault_read`` the read that
            missed follows: refs = 2, tier 1.
            accessed: refs += 1, no list movement.
            removed: a shadow entry with tier(refs); evicted[tier] + 1; the generation's count
            - 1.
            evict: (1) aging, with min_seq and max_seq as read at the start of the call (the
            port reads them once, before aging): with 2 generations or fewer it runs; with 4
            or more it does not; with 3 it runs when the oldest holds less than a quarter of
            the two oldest together (the port never counts the youngest). Aging opens an
            empty generation (max_seq + 1) and moves no page; at 4 generations it must retire
            the oldest first. Then, if there were more than 3 generations when the call
            began, one attempt to retire the oldest: it succeeds only when that generation
            holds at most 4 pages, and folds the history (avg := (avg + current) / 2 per
            tier, current := 0). (2) Tier threshold, PID controller: set point tier 0 (gain
            1); for tiers 1..3 (gain 2) stop at the first whose refault rate is not low
            enough (refaulted < 64, or refaulted_pv (total_sp + 64) gain_sp <= (refaulted_sp
            + 1) total_pv gain_pv, with refaulted = avg + current, total = avg + evicted +
            protected); the threshold is the last tier that passed. (3)
            ``list_iterate_extended`` over the oldest generation from its head, kept pages to
            the tail of the next generation, proposed to the tail of the same list: tier >
            threshold -> protected[tier] + 1, promoted (kept); DIRTY (kernel mode) or still
            being read in (locked) -> kept; else proposed. A proposed page that is not on the
            kernel's LRU yet (one of the last ``inflight`` insertions) is refused by the
            kernel: it moves to the tail like any proposal and counts against the request,
            but is not evicted. (4) If short, one more identical pass over the oldest
            generation. (5) A shortfall of 20 % or more goes to the framework's fallback, the
            stand-in for the kernel's default policy.
Parameters  own_fallback = False: True proposes the shortfall itself, from the oldest
            generation onwards in list order (head first), whatever the tier, instead of
            leaving it to the framework's fallback (see Deviations 1).
            shadow_entries = 400000: the shadow table's size (cache_ext's constant).
            fault_read = True: the missed access also counts as a read (cache mode only).
            inflight = 0 (insertions): how many of the most recent insertions are off the
            kernel's LRU (Linux 6.6 adds a new folio to a per-CPU batch of 15 and moves the
            batch onto the LRU when it is full); the experiments set 14 per thread, as for
            ``ce-mru``. 0: none (cache mode serves each access before the next).
            inflight_ns = 0 (ns): how long after its insertion a page is still locked for its
            read (kernel mode, ``a[A_NOW_NS]``); the experiments set one readahead read.
            insert_tail = False: True inserts at the tail, so that walks meet the oldest
            insertion first, as the kernel's MGLRU scans; a switch to measure the port's
            head insertion (docs/policies.md), not the port.
Complexity  O(1) per hit and insertion; per eviction O(pages walked) (promotions plus the
            victim; at most 2 x 4097 node visits, and four lists for ``own_fallback``).
            Per page: one list node and ten int64.
Deviations  1. When the walk leaves a shortfall, cache_ext's kernel evicts it with its own
               policy (the active/inactive LRU: the paper's harness disables MGLRU before
               loading a cache_ext policy, ``eval/ycsb/run.sh``); pagesim's framework fallback
               (CLOCK) stands in for it, as for every cache_ext policy. ``own_fallback``
               instead sweeps the port's lists head first, whose order is the newest
               insertion first: on a trace with recency that turns the port into LIFO
               (docs/policies.md, "ce-mglru").
            2. The port leaves the (at most 4) pages of a retired generation on its list,
               which later becomes a young generation's; here they move to the tail of the
               next generation.
            3. Shadow entries are an exact FIFO; cache_ext's BPF LRU hash replaces
               approximately.
            4. Walks stop at the request (1 in cache mode) instead of 32 candidates; a page
               proposed in the same call stops the walk (ce-s3fifo, Deviations 3 and 4).
            Quirks of the port kept (spec §4.6; measured in docs/policies.md): no page-table
            walk, aging moves no page; insertion at the head and scanning from the head (the
            newest insertions into the oldest generation are examined first); one aging and
            retire attempt per call; retirement only of an almost empty generation; tiers
            from fd accesses only, without the kernel's +1 (a page read once is tier 1).
Peers       pagesim's ``mglru`` (the kernel's lru_gen, kernel mode) for the real thing; no
            simulator has the port.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.lists import (
    CONTINUE,
    EVICT,
    SKIP,
    STOP,
    TO_TAIL,
    list_add,
    list_add_tail,
    list_create,
    list_iterate,
    list_move,
    list_pages,
    list_tail,
)
from pagesim.core.shadow import SH_HEAD, SH_LEN, SH_SIZE, SH_TAIL, shadow_push, shadow_unlink
from pagesim.core.state import (
    A_CGROUP,
    A_MODE,
    A_NOW_NS,
    A_PAGE,
    A_REQUEST,
    DIRTY,
    MAX_CANDIDATES,
    MODE_CACHE,
)
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

MAX_NR_GENS = 4
MIN_NR_GENS = 2
MAX_NR_TIERS = 4
MIN_LRU_BATCH = 64
RETIRE_MAX_PAGES = 4  #: a generation is retired only when it holds at most this many pages

STATE = Layout(
    "ce-mglru",
    pm=(
        field("refs", "accesses", "accesses since the page came in (cache_ext's refs counter)"),
        field("gen", "generation index", "generation index (sequence number mod 4)"),
        field("sh_next", "page id", "shadow FIFO: next entry towards the oldest, -1 if none"),
        field("sh_prev", "page id", "shadow FIFO: previous entry towards the newest, -1 if none"),
        field("in_shadow", "flag", "1 while the page has a shadow entry"),
        field("shadow_tier", "tier", "the tier its shadow entry remembers"),
        field("mark", "evict call", "the evict call that proposed the page"),
        field("seq", "insertions", "the insertion that brought the page in (for the off-LRU rule)"),
        field("added_ns", "ns", "model time of that insertion (for the under-I/O rule)"),
        field("refused", "evict call", "the evict call in which the page was proposed but is off the LRU"),
    ),
    gi=(
        field("lists", "list id", "by generation index", count=MAX_NR_GENS),
        field("min_seq", "generation", "the oldest generation's sequence number"),
        field("max_seq", "generation", "the youngest generation's sequence number"),
        field("pages", "pages", "by generation index", count=MAX_NR_GENS),
        field("evicted", "pages", "by tier", count=MAX_NR_TIERS),
        field("refaulted", "pages", "by tier", count=MAX_NR_TIERS),
        field("protected", "pages", "by tier", count=MAX_NR_TIERS),
        field("avg_refaulted", "pages", "by tier: the running average", count=MAX_NR_TIERS),
        field("avg_total", "pages", "by tier: the running average", count=MAX_NR_TIERS),
        field(
            "sh",
            "SHADOW_HEADER",
            "the shadow FIFO's header (core.shadow): newest entry, oldest, entries held",
            count=SH_SIZE,
        ),
        field("sh_cap", "pages", "shadow entries kept at most"),
        field("wanted", "pages", "candidates still wanted in this evict call"),
        field("threshold", "tier", "threshold"),
        field("call", "evict calls", "call"),
        field("own_fallback", "flag", "parameter own_fallback"),
        field("fault_read", "flag", "parameter fault_read"),
        field("next_gen", "generation index", "generation index kept pages go to in the current walk"),
        field("inserts", "insertions", "insertions so far"),
        field("inflight", "insertions", "parameter inflight"),
        field("inflight_ns", "ns", "parameter inflight_ns"),
        field("n_refused", "proposals", "proposals the kernel would refuse (off the LRU), in total"),
        field("n_locked", "pages", "pages promoted because they were under I/O, in total"),
        field("insert_tail", "flag", "parameter insert_tail"),
    ),
)
PM, GI = STATE.pm, STATE.gi


@kernel
def tier_of(refs):  # type: ignore[no-untyped-def]
    """0 for refs <= 1, 1 for 2-3, 2 for 4-7, 3 for >= 8."""
    if refs <= 1:
        return 0
    if refs <= 3:
        return 1
    if refs <= 7:
        return 2
    return 3


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    ok = 0
    for g in range(MAX_NR_GENS):
        s.gi[GI.lists + g] = list_create(s, a[A_CGROUP])
        if s.gi[GI.lists + g] < 0:
            ok = -1
    for i in range(s.pm.shape[0]):
        s.pm[i, PM.sh_next] = -1
        s.pm[i, PM.sh_prev] = -1
    s.gi[GI.sh + SH_HEAD] = -1
    s.gi[GI.sh + SH_TAIL] = -1
    s.gi[GI.sh + SH_LEN] = 0
    s.gi[GI.min_seq] = 0
    s.gi[GI.max_seq] = MAX_NR_GENS - 1
    return ok


@kernel
def _access(s, p):  # type: ignore[no-untyped-def]
    s.pm[p, PM.refs] += 1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    min_seq = s.gi[GI.min_seq]
    seq = min_seq if min_seq + MIN_NR_GENS >= s.gi[GI.max_seq] else min_seq + 1
    g = seq % MAX_NR_GENS
    s.pm[p, PM.refs] = 1
    s.pm[p, PM.gen] = g
    s.gi[GI.pages + g] += 1
    s.gi[GI.inserts] += 1
    s.pm[p, PM.seq] = s.gi[GI.inserts]
    s.pm[p, PM.added_ns] = a[A_NOW_NS]
    if s.pm[p, PM.in_shadow] != 0:
        s.gi[GI.refaulted + s.pm[p, PM.shadow_tier]] += 1
        shadow_unlink(s.pm[:, PM.sh_next], s.pm[:, PM.sh_prev], s.gi[GI.sh : GI.sh + SH_SIZE], p)
        s.pm[p, PM.in_shadow] = 0
    if s.gi[GI.insert_tail] != 0:
        list_add_tail(s, s.gi[GI.lists + g], p)
    else:
        list_add(s, s.gi[GI.lists + g], p)
    if s.gi[GI.fault_read] != 0 and a[A_MODE] == MODE_CACHE:
        _access(s, p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    _access(s, a[A_PAGE])
    return 0


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    tier = tier_of(s.pm[p, PM.refs])
    cap = s.gi[GI.sh_cap]
    if cap > 0:
        while s.gi[GI.sh + SH_LEN] + 1 > cap:
            q = s.gi[GI.sh + SH_TAIL]
            shadow_unlink(s.pm[:, PM.sh_next], s.pm[:, PM.sh_prev], s.gi[GI.sh : GI.sh + SH_SIZE], q)
            s.pm[q, PM.in_shadow] = 0
        shadow_push(s.pm[:, PM.sh_next], s.pm[:, PM.sh_prev], s.gi[GI.sh : GI.sh + SH_SIZE], p)
        s.pm[p, PM.in_shadow] = 1
        s.pm[p, PM.shadow_tier] = tier
    s.gi[GI.evicted + tier] += 1
    s.gi[GI.pages + s.pm[p, PM.gen]] -= 1
    s.pm[p, PM.refs] = 0
    s.pm[p, PM.gen] = 0
    return 0


@kernel
def _retire(s):  # type: ignore[no-untyped-def]
    """Retire the oldest generation if it holds at most 4 pages; True on success."""
    old = s.gi[GI.min_seq] % MAX_NR_GENS
    if s.gi[GI.pages + old] > RETIRE_MAX_PAGES:
        return False
    nxt = (s.gi[GI.min_seq] + 1) % MAX_NR_GENS
    p = list_tail(s, s.gi[GI.lists + old])
    while p >= 0:  # the few pages left join the next generation (Deviations 2)
        list_move(s, s.gi[GI.lists + nxt], p, False)
        s.pm[p, PM.gen] = nxt
        p = list_tail(s, s.gi[GI.lists + old])
    s.gi[GI.pages + nxt] += s.gi[GI.pages + old]
    s.gi[GI.pages + old] = 0
    for t in range(MAX_NR_TIERS):
        s.gi[GI.avg_refaulted + t] = (s.gi[GI.avg_refaulted + t] + s.gi[GI.refaulted + t]) // 2
        total = s.gi[GI.evicted + t] + s.gi[GI.protected + t]
        s.gi[GI.avg_total + t] = (s.gi[GI.avg_total + t] + total) // 2
        s.gi[GI.refaulted + t] = 0
        s.gi[GI.evicted + t] = 0
        s.gi[GI.protected + t] = 0
    s.gi[GI.min_seq] += 1
    return True


@kernel
def _should_run_aging(s):  # type: ignore[no-untyped-def]
    nr_gens = s.gi[GI.max_seq] - s.gi[GI.min_seq] + 1
    if nr_gens <= MIN_NR_GENS:
        return True
    if nr_gens >= MAX_NR_GENS:
        return False
    old = s.gi[GI.pages + s.gi[GI.min_seq] % MAX_NR_GENS]
    total = old + s.gi[GI.pages + (s.gi[GI.min_seq] + 1) % MAX_NR_GENS]
    return old * 4 < total


@kernel
def _age(s):  # type: ignore[no-untyped-def]
    # cache_ext's evict_folios reads min_seq and max_seq once, before aging, and tests the
    # retirement with those values: a call that ages from 3 to 4 generations retires nothing
    spread = s.gi[GI.max_seq] - s.gi[GI.min_seq]
    if _should_run_aging(s):
        if s.gi[GI.max_seq] - s.gi[GI.min_seq] + 1 < MAX_NR_GENS or _retire(s):
            s.gi[GI.max_seq] += 1
    if spread > MIN_NR_GENS:
        _retire(s)


@kernel
def _low_enough(s, tier, gain):  # type: ignore[no-untyped-def]
    """The PID controller's test: is ``tier``'s refault rate at most tier 0's (scaled)?"""
    sp_ref = s.gi[GI.avg_refaulted] + s.gi[GI.refaulted]
    sp_total = s.gi[GI.avg_total] + s.gi[GI.evicted]
    pv_ref = s.gi[GI.avg_refaulted + tier] + s.gi[GI.refaulted + tier]
    pv_total = s.gi[GI.avg_total + tier] + s.gi[GI.evicted + tier] + s.gi[GI.protected + tier]
    if pv_ref < MIN_LRU_BATCH:
        return True
    return pv_ref * (sp_total + MIN_LRU_BATCH) * 1 <= (sp_ref + 1) * pv_total * gain


@kernel
def _threshold(s):  # type: ignore[no-untyped-def]
    threshold = 0
    for tier in range(1, MAX_NR_TIERS):
        if not _low_enough(s, tier, 2):
            break
        threshold = tier
    return threshold


@kernel
def _verdict(s, a, index, page):  # type: ignore[no-untyped-def]
    if s.gi[GI.wanted] <= 0 or s.pm[page, PM.mark] == s.gi[GI.call]:
        return STOP
    tier = tier_of(s.pm[page, PM.refs])
    keep = False
    if tier > s.gi[GI.threshold]:
        s.gi[GI.protected + tier] += 1
        keep = True
    elif a[A_MODE] != MODE_CACHE and s.resident[page] & DIRTY:
        keep = True
    elif a[A_NOW_NS] - s.pm[page, PM.added_ns] < s.gi[GI.inflight_ns]:
        keep = True  # locked: its read is still in flight
        s.gi[GI.n_locked] += 1
    if keep:
        nxt = s.gi[GI.next_gen]
        s.gi[GI.pages + s.pm[page, PM.gen]] -= 1
        s.gi[GI.pages + nxt] += 1
        s.pm[page, PM.gen] = nxt
        return CONTINUE
    s.pm[page, PM.mark] = s.gi[GI.call]
    s.gi[GI.wanted] -= 1
    if s.gi[GI.inserts] - s.pm[page, PM.seq] < s.gi[GI.inflight]:
        s.pm[page, PM.refused] = s.gi[GI.call]  # off the LRU: the kernel will not isolate it
        s.gi[GI.n_refused] += 1
    return EVICT


@kernel
def _drop_refused(s, first, count):  # type: ignore[no-untyped-def]
    """Remove from ``s.cand[first:count]`` the proposals the kernel refuses; the new count."""
    k = first
    for i in range(first, count):
        if s.pm[s.cand[i], PM.refused] != s.gi[GI.call]:
            s.cand[k] = s.cand[i]
            k += 1
    return k


@kernel
def _any_verdict(s, a, index, page):  # type: ignore[no-untyped-def]
    if s.gi[GI.wanted] <= 0:
        return STOP
    if s.pm[page, PM.mark] == s.gi[GI.call]:
        return CONTINUE
    s.pm[page, PM.mark] = s.gi[GI.call]
    s.gi[GI.wanted] -= 1
    return EVICT


@kernel
def _pass(s, a, count):  # type: ignore[no-untyped-def]
    old = s.gi[GI.min_seq] % MAX_NR_GENS
    s.gi[GI.next_gen] = (s.gi[GI.min_seq] + 1) % MAX_NR_GENS
    lid = s.gi[GI.lists + old]
    n = list_iterate(s, a, lid, _verdict, count, TO_TAIL, s.gi[GI.lists + s.gi[GI.next_gen]], TO_TAIL, -1)
    if n < 0:
        return count
    return _drop_refused(s, count, n) if s.gi[GI.inflight] > 0 else n


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.call] += 1
    s.gi[GI.wanted] = min(a[A_REQUEST], MAX_CANDIDATES)
    _age(s)
    s.gi[GI.threshold] = _threshold(s)
    count = _pass(s, a, 0)
    if s.gi[GI.wanted] > 0:
        count = _pass(s, a, count)
    if s.gi[GI.wanted] > 0 and s.gi[GI.own_fallback] != 0:
        for k in range(MAX_NR_GENS):
            if s.gi[GI.wanted] <= 0:
                break
            lid = s.gi[GI.lists + (s.gi[GI.min_seq] + k) % MAX_NR_GENS]
            n = list_iterate(s, a, lid, _any_verdict, count, SKIP, -1, SKIP, -1)
            if n >= 0:
                count = n
    return count


class CeMGLRU(Policy):
    """cache_ext's MGLRU port; see the module docstring (``mglru`` is the kernel's)."""

    name = "ce-mglru"
    description = "cache_ext MGLRU port: four generation lists, tiers, PID threshold, quirks kept"
    params = defaults("ce-mglru")  # policies/params.toml
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    proposes_batches = True
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """The shadow table's size and the switches."""
        entries = int(self.values["shadow_entries"])
        if entries < 0:
            raise ValueError(f"ce-mglru: shadow_entries must be >= 0, got {entries}")
        inflight, inflight_ns = int(self.values["inflight"]), int(self.values["inflight_ns"])
        if inflight < 0 or inflight_ns < 0:
            raise ValueError(
                f"ce-mglru: inflight and inflight_ns must be >= 0, got {inflight}, {inflight_ns}"
            )
        s.gi[GI.sh_cap] = entries
        s.gi[GI.own_fallback] = int(bool(self.values["own_fallback"]))
        s.gi[GI.fault_read] = int(bool(self.values["fault_read"]))
        s.gi[GI.inflight] = inflight
        s.gi[GI.inflight_ns] = inflight_ns
        s.gi[GI.insert_tail] = int(bool(self.values["insert_tail"]))

    def check_invariants(self, s: Any) -> None:
        """Lists = resident set, counts = lengths, PM.gen = list, live generations only."""
        resident = np.flatnonzero(s.resident).tolist()
        lo, hi = int(s.gi[GI.min_seq]), int(s.gi[GI.max_seq])
        assert MIN_NR_GENS <= hi - lo + 1 <= MAX_NR_GENS, "number of generations"
        live = {seq % MAX_NR_GENS for seq in range(lo, hi + 1)}
        seen: list[int] = []
        for g in range(MAX_NR_GENS):
            pages = list_pages(s, int(s.gi[GI.lists + g])).tolist()
            assert len(pages) == int(s.gi[GI.pages + g]), f"generation {g}: count"
            assert all(int(s.pm[p, PM.gen]) == g for p in pages), f"generation {g}: PM.gen column"
            assert g in live or not pages, f"generation {g} is not live but holds pages"
            seen += pages
        assert sorted(seen) == resident, "generations != resident set"
        shadow = np.flatnonzero(s.pm[:, PM.in_shadow]).tolist()
        assert len(shadow) == int(s.gi[GI.sh + SH_LEN]) <= max(int(s.gi[GI.sh_cap]), 0), "shadow size"
        assert not set(shadow) & set(resident), "a resident page has a shadow entry"
