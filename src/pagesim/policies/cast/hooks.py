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
    A_SCANNED,
    A_SWAP_FREE,
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
    F_KEYTAB,
    FILE_T,
    G_ACC,
    G_BAL,
    G_BITMAP,
    G_BLKSZ,
    G_BUDGET,
    G_BUFHEAD,
    G_BUFLEN,
    G_CAP,
    G_CG,
    G_CLEANMIN,
    G_CURSOR,
    G_DAUTO,
    G_FLOOR,
    G_FREED,
    G_HISTORY,
    G_IN,
    G_LIST,
    G_MEM,
    G_MSIZE,
    G_NISO,
    G_NOW,
    G_OUT,
    G_PASSES,
    G_PASSN,
    G_PICK,
    G_Q,
    G_QVALID,
    G_RATE,
    G_SAMPLEP,
    G_SAUTO,
    G_SEQ,
    G_SFAULT,
    G_SLACK,
    G_SWEEPS,
    G_VISITED,
    G_WALKER,
    ISO,
    N_BLOCKS,
    SAMPLE_PENDING,
    SIDX,
    SLOT_MASK,
    SWAPOUT_K,
    WORD,
)
from pagesim.policies.cast.lruvec import _lru_pages, _type_of, _update_memory
from pagesim.policies.cast.mrc import note_stream
from pagesim.policies.cast.sample import PREFETCH, READ, sample_rate, type_pages
from pagesim.policies.cast.take import _choose, _putback, take
from pagesim.policies.cast.tune import tune_feed, tune_free, tune_init


@cast_kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    cg = a[A_CGROUP]
    s.gi[G_CG] = cg
    for t in range(2):
        lid = list_create(s, cg)
        if lid < 0:
            return -1
        s.gi[G_LIST + t] = lid
    n = s.pm.shape[0]
    s.gi[G_BLKSZ] = max(1, (n + N_BLOCKS - 1) // N_BLOCKS)
    s.gi[G_MEM] = max(1, s.gi[G_CAP])
    _update_memory(s, a)
    if a[A_MODE] != MODE_KERNEL:
        s.gi[G_WALKER] = 0
    for g in (G_ACC, G_NOW, G_IN, G_OUT, G_FREED, G_SEQ, G_NISO, G_VISITED):
        s.gi[g] = 0
    for t in range(2):
        for g in (G_MSIZE, G_CURSOR, G_BUFLEN, G_BUFHEAD, G_Q, G_QVALID, G_PASSN, G_PASSES, G_BUDGET, G_PICK):
            s.gi[g + t] = 0
    for g in range(G_SWEEPS, G_PICK):
        s.gi[g] = 0
    for b in range(N_BLOCKS):
        s.gi[G_BITMAP + b] = 0
    for i in range(F_KEYTAB):  # the key table stays: it holds values, never state
        s.gf[i] = 0.0
    if a[A_MODE] != MODE_KERNEL:
        s.gi[G_SAUTO] = 0  # one type: no split
    for g in range(G_FLOOR, G_BAL + 4):
        s.gi[g] = 0
    s.gi[G_RATE] = sample_rate(s.gi[G_MEM], s.gi[G_SAMPLEP])
    if s.gi[G_DAUTO] != 0 or s.gi[G_SAUTO] != 0:
        tune_init(s)
    return 0


@cast_kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    _update_memory(s, a)
    clock_in(s)
    now = s.gi[G_NOW]
    t = _type_of(s, p)
    kmode = a[A_MODE] == MODE_KERNEL
    sh = s.shadow[p]
    refault = (sh & SHADOW_MARK) != 0 and (not kmode or a[A_REFAULT] != 0)
    restore = refault and s.gi[G_HISTORY] != 0
    read = not (kmode and t == FILE_T)  # kernel-mode file: accessed() follows a demand read
    w = from_shadow(sh, now) if restore else 0
    if w == 0:
        w = new_word(now, 1 if read else 0)
    elif read:
        w = read_word(w, now)
    s.pm[p, WORD] = w
    s.pm[p, ISO] = 0
    list_add(s, s.gi[G_LIST + t], p)
    if read:
        tune_feed(s, p, t, READ)
        if kmode and t == ANON_T and s.pm[p, SIDX] >= 0:
            if s.gi[G_SFAULT] != 0:
                # every later access faults and is seen (the seed); the fault's young bit is left
                # unseen: taken by the main cache as a read, it is one for the sample (tune.py)
                s.resident[p] |= PROT_NONE
            else:
                s.pm[p, SIDX] |= SAMPLE_PENDING  # the fault's young bit was seen (walk.py)
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
        if s.pm[p, SIDX] >= 0:
            tune_feed(s, p, ANON_T, READ)
            s.pm[p, SIDX] |= SAMPLE_PENDING
        return 0
    s.pm[p, WORD] = read_word(s.pm[p, WORD], s.gi[G_NOW])
    note_stream(s, p, a[A_MODE] == MODE_KERNEL and a[A_HIT] != 0)
    tune_feed(s, p, _type_of(s, p), READ)
    return 0


@cast_kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    request = min(a[A_REQUEST], MAX_CANDIDATES)
    _update_memory(s, a)
    _putback(s)
    n = s.pm.shape[0]
    s.gi[G_BUDGET + ANON_T] = n
    s.gi[G_BUDGET + FILE_T] = n
    s.gi[G_VISITED] = 0
    s.gi[G_SLACK] = request
    slots = a[A_SWAP_FREE]
    kmode = a[A_MODE] == MODE_KERNEL
    can_anon = kmode and slots > 0 and node_swappiness(s) > 0
    can_file = True
    # the clean-file floor (le9uo): file stays while at or below clean_min_ratio % of memory,
    # unless this is reclaim forced by a cgroup's own limit
    floor = -1
    if kmode and s.gi[G_CLEANMIN] > 0 and a[A_RECLAIMER] != RECLAIM_LIMIT:
        floor = (s.gi[G_CLEANMIN] * s.gi[G_MEM]) // 100
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
        s.gi[G_PICK + t] += 1
        if t == ANON_T:
            got_a += 1
        else:
            got_f += 1
    if held:
        s.gi[G_FLOOR] += 1
    if got_a > 0 and got_f > 0:
        s.gi[G_BAL + 3] += 1
    elif got_a > 0:
        s.gi[G_BAL] += 1
    elif got_f > 0:
        s.gi[G_BAL + 1] += 1
    else:
        s.gi[G_BAL + 2] += 1
    a[A_SCANNED] = s.gi[G_VISITED] + count
    return count


@cast_kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    w = s.pm[p, WORD]
    tg = word_tag(w)
    if tg != 0:
        s.gi[G_MSIZE + ((tg - 1) & 1)] -= 1
    s.pm[p, ISO] = 0
    if s.pm[p, SIDX] >= 0:
        s.pm[p, SIDX] &= SLOT_MASK
    if r[A_REASON] == REASON_FREED:
        clock_free(s)
        s.shadow[p] = 0
        tune_free(s, p, _type_of(s, p))
    else:
        s.gi[G_OUT] += 1
        s.shadow[p] = to_shadow(w, s.gi[G_NOW])
        if r[A_MODE] == MODE_KERNEL and r[A_WAIT_NS] >= 0 and (s.resident[p] & ANON) != 0:
            note_wait(s, SWAPOUT_K, float(r[A_WAIT_NS]), _lru_pages(s))
    s.pm[p, WORD] = 0
    return 0
