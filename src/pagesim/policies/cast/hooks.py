"""CAST's hooks (init, added, accessed, evict, removed), as :class:`~.policy.CAST` registers them.

What each does is in :mod:`.policy`'s docstring (Rules).
"""

from __future__ import annotations

from pagesim.core.lists import list_add, list_create
from pagesim.core.state import (
    A_CGROUP,
    A_HIT,
    A_MODE,
    A_PAGE,
    A_READAHEAD,
    A_REASON,
    A_RECLAIMER,
    A_REFAULT,
    A_REQUEST,
    A_SCAN_WORDS,
    A_SCANNED,
    A_SEQ,
    A_SWAP_FREE,
    A_TAG,
    A_WAIT_NS,
    ANON,
    DIRTY,
    MAX_CANDIDATES,
    MODE_KERNEL,
    PROT_NONE,
    REASON_FREED,
    RECLAIM_LIMIT,
    SWAPCACHE,
)
from pagesim.policies.cast.clock import clock_free, clock_in
from pagesim.policies.cast.core import (
    SHADOW_MARK,
    cast_kernel,
    from_shadow,
    new_word,
    read_word,
    to_shadow,
    word_tag,
)
from pagesim.policies.cast.costs import node_swappiness, note_wait
from pagesim.policies.cast.layout import (
    ANON_T,
    FILE_T,
    GF,
    GI,
    N_BLOCKS,
    PM,
    SAMPLE_PENDING,
    SLOT_MASK,
    SWAPOUT_K,
)
from pagesim.policies.cast.lruvec import _lru_pages, _type_of, _update_memory
from pagesim.policies.cast.mrc import note_stream
from pagesim.policies.cast.sample import PREFETCH, READ, sample_rate, type_pages
from pagesim.policies.cast.take import _choose, _putback, take
from pagesim.policies.cast.tune import tune_feed, tune_free, tune_init
from pagesim.policies.cast.walk import note_mm


@cast_kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    cg = a[A_CGROUP]
    s.gi[GI.cg] = cg
    for t in range(2):
        lid = list_create(s, cg)
        if lid < 0:
            return -1
        s.gi[GI.list + t] = lid
    n = s.pm.shape[0]
    s.gi[GI.blksz] = max(1, (n + N_BLOCKS - 1) // N_BLOCKS)
    s.gi[GI.mem] = max(1, s.gi[GI.cap])
    _update_memory(s, a)
    if a[A_MODE] != MODE_KERNEL:
        s.gi[GI.walker] = 0
    for g in (GI.acc, GI.now, GI.taken_in, GI.out, GI.freed, GI.seq, GI.niso, GI.visited):
        s.gi[g] = 0
    for t in range(2):
        for g in (
            GI.msize,
            GI.cursor,
            GI.buflen,
            GI.bufhead,
            GI.q,
            GI.qvalid,
            GI.passn,
            GI.passes,
            GI.budget,
            GI.pick,
        ):
            s.gi[g + t] = 0
    for g in range(GI.sweeps, GI.pick):
        s.gi[g] = 0
    for b in range(N_BLOCKS):
        s.gi[GI.bitmap + b] = 0
    for i in range(GF.keytab):  # the key table stays: it holds values, never state
        s.gf[i] = 0.0
    if a[A_MODE] != MODE_KERNEL:
        s.gi[GI.sauto] = 0  # one type: no split
    for g in (GI.floor, GI.bal_anon, GI.bal_file, GI.bal_none, GI.bal_both):
        s.gi[g] = 0
    for g in range(GI.force, GI.bloom):
        s.gi[g] = 0
    for g in range(GI.walks, GI.lptes + 1):
        s.gi[g] = 0
    s.gi[GI.wseq] = -1
    s.gi[GI.aseq] = 0
    for q in range(s.pm.shape[0]):
        s.pm[q, PM.mm] = 0
        s.pm[q, PM.mmrow] = 0
        s.pm[q, PM.pmdleft] = 0
    s.gi[GI.rate] = sample_rate(s.gi[GI.mem], s.gi[GI.samplep])
    if s.gi[GI.dauto] != 0 or s.gi[GI.sauto] != 0:
        tune_init(s)
    return 0


@cast_kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    _update_memory(s, a)
    kmode = a[A_MODE] == MODE_KERNEL
    if kmode:
        s.gi[GI.aseq] = a[A_SEQ]
        if (s.resident[p] & ANON) != 0:
            note_mm(s, p, a[A_TAG])
    clock_in(s)
    now = s.gi[GI.now]
    t = _type_of(s, p)
    sh = s.shadow[p]
    refault = (sh & SHADOW_MARK) != 0 and (not kmode or a[A_REFAULT] != 0)
    restore = refault and s.gi[GI.history] != 0
    read = not (kmode and t == FILE_T)  # kernel-mode file: accessed() follows a demand read
    w = from_shadow(sh, now) if restore else 0
    if w == 0:
        w = new_word(now, 1 if read else 0)
    elif read:
        w = read_word(w, now)
    s.pm[p, PM.word] = w
    s.pm[p, PM.iso] = 0
    list_add(s, s.gi[GI.list + t], p)
    if read:
        tune_feed(s, p, t, READ)
        if kmode and t == ANON_T and s.pm[p, PM.sidx] >= 0:
            if s.gi[GI.sfault] != 0:
                # every later access faults and is seen (the seed); the fault's young bit is left
                # unseen: taken by the main cache as a read, it is one for the sample (tune.py)
                s.resident[p] |= PROT_NONE
            else:
                s.pm[p, PM.sidx] |= SAMPLE_PENDING  # the fault's young bit was seen (walk.py)
    elif a[A_READAHEAD] != 0:
        tune_feed(s, p, t, PREFETCH)
    if kmode and refault and a[A_WAIT_NS] > 0 and a[A_READAHEAD] == 0:
        note_wait(s, t, float(a[A_WAIT_NS]), _lru_pages(s))
    return 0


@cast_kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if s.resident[p] == 0:
        return 0
    if a[A_MODE] == MODE_KERNEL and (s.resident[p] & ANON) != 0:
        # a hinting fault of a sampled page (PROT_NONE): a read for the sample only; the young
        # bit the access set is the main cache's, taken by the walker or reclaim
        if s.pm[p, PM.sidx] >= 0:
            tune_feed(s, p, ANON_T, READ)
            s.pm[p, PM.sidx] |= SAMPLE_PENDING
        return 0
    s.pm[p, PM.word] = read_word(s.pm[p, PM.word], s.gi[GI.now])
    note_stream(s, p, a[A_MODE] == MODE_KERNEL and a[A_HIT] != 0)
    tune_feed(s, p, _type_of(s, p), READ)
    return 0


@cast_kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    request = min(a[A_REQUEST], MAX_CANDIDATES)
    _update_memory(s, a)
    _putback(s)
    n = s.pm.shape[0]
    s.gi[GI.budget + ANON_T] = n
    s.gi[GI.budget + FILE_T] = n
    s.gi[GI.visited] = 0
    s.gi[GI.slack] = request
    slots = a[A_SWAP_FREE]
    kmode = a[A_MODE] == MODE_KERNEL
    can_anon = kmode and slots > 0 and node_swappiness(s) > 0
    can_file = True
    # the clean-file floor (le9uo): file stays while at or below clean_min_ratio % of memory,
    # unless this is reclaim forced by a cgroup's own limit
    floor = -1
    if kmode and s.gi[GI.cleanmin] > 0 and a[A_RECLAIMER] != RECLAIM_LIMIT:
        floor = (s.gi[GI.cleanmin] * s.gi[GI.mem]) // 100
    file_left = type_pages(s, FILE_T)
    held = False
    if floor >= 0 and file_left <= floor:
        can_file = False
        held = True
    count = 0
    got_a = 0
    got_f = 0
    while count < request and (can_anon or can_file):
        t = _choose(s, can_anon, can_file)
        v = take(s, t)
        if v < 0:
            if t == ANON_T:
                can_anon = False
            else:
                can_file = False
            continue
        if t == ANON_T:
            r = s.resident[v]
            if (r & SWAPCACHE) == 0 or (r & DIRTY) != 0:
                slots -= 1
                if slots <= 0:
                    can_anon = False
        else:
            file_left -= 1
            if floor >= 0 and file_left <= floor:
                can_file = False
                held = True
        s.cand[count] = v
        count += 1
        s.gi[GI.pick + t] += 1
        if t == ANON_T:
            got_a += 1
        else:
            got_f += 1
    if held:
        s.gi[GI.floor] += 1
    if got_a > 0 and got_f > 0:
        s.gi[GI.bal_both] += 1
    elif got_a > 0:
        s.gi[GI.bal_anon] += 1
    elif got_f > 0:
        s.gi[GI.bal_file] += 1
    else:
        s.gi[GI.bal_none] += 1
    a[A_SCANNED] = s.gi[GI.visited] + count
    a[A_SCAN_WORDS] = s.gi[GI.visited]  # priced by the sweep itself (costs.sweep_cost_ns)
    return count


@cast_kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    w = s.pm[p, PM.word]
    tg = word_tag(w)
    if tg != 0:
        s.gi[GI.msize + ((tg - 1) & 1)] -= 1
    s.pm[p, PM.iso] = 0
    if s.pm[p, PM.sidx] >= 0:
        s.pm[p, PM.sidx] &= SLOT_MASK
    if r[A_REASON] == REASON_FREED:
        s.pm[p, PM.mm] = 0  # unmapped: no PTE left to walk
        clock_free(s)
        s.shadow[p] = 0
        tune_free(s, p, _type_of(s, p))
    else:
        s.gi[GI.out] += 1
        s.shadow[p] = to_shadow(w, s.gi[GI.now])
        if r[A_MODE] == MODE_KERNEL and r[A_WAIT_NS] >= 0 and (s.resident[p] & ANON) != 0:
            note_wait(s, SWAPOUT_K, float(r[A_WAIT_NS]), _lru_pages(s))
    s.pm[p, PM.word] = 0
    return 0
