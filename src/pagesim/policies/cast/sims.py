"""CAST's simulated caches: eleven per type, each the main cache in small (W's ring, M's heap).

The simulated caches (per type, 11): each is the main cache in small -- W a FIFO of newcomers (a
ring of lazy entries), M the rest ranked by the real :func:`~pagesim.policies.cast.core.key_of`
in a heap of lazy entries (an entry is live while its slot is in M with the word it was pushed
with), ties by :func:`~pagesim.policies.cast.core.rank_tb` (read once: the order of joining M, a
clock; read more: the frame hash) and W's newcomer winning a tie; W's tail meets M's lowest
while W is over its share, W's excess beyond one page joins M unopposed (Choice 9 with a slack
of one page). Their capacity is the type's pages on the real lists now times the rate
(:func:`sim_capacity`, at every event: sized by the pages at the last tick, the sims would be
far smaller than the main cache while memory fills, and evict what it keeps). Words use the
real clock's tick, so H is the same in pages taken in. With ``history`` on (the default,
policy.py Choice 6) a page that comes into a sim gets back its history, the
sample's record of its word (every read of it so far), as a refault in the main cache gets back
its shadow's word; a page read ahead comes in unread, a newcomer at W's head as in the main
cache, with its history if it has one (kept out, its read would be a miss in every sim whatever
W's share: W's sims would never see W keep a window until it is read, and on file loops the
share would fall to 0, after which windows are evicted unread). Sims 0..8 rank
at the centre decay and at -1, +1, -2, +2, -4, +4, -8, +8 steps held within 1..14 (the seed: the
nine reach "from le 1 ... to le 14"; a level the centre or a nearer sim has already is off):
from the default le 8 the nine reach le 1 and 14, so a loop larger than memory, which only the
near-LFU decays keep part of (its keys tie and the frame hash keeps the same part), is found
from any centre. Sims 9 and 10 rank at the centre decay with W 100 permille smaller and larger
(clamped to 0..1000).
"""

from __future__ import annotations

from pagesim.core.heap import sift_down, sift_up
from pagesim.core.jit import kernel_inline
from pagesim.policies.cast.core import (
    MAX_DECAY,
    MIN_DECAY,
    TB_NEWCOMER,
    cast_kernel,
    clamp_word,
    frame_hash,
    last_read,
    new_word,
    rank_tb,
    read_word,
    word_count,
)
from pagesim.policies.cast.layout import (
    GI,
    HEAP,
    N_SIM_T,
    RING,
    SIM_ARRAYS,
    SIM_NS,
    SIM_SIZE,
    SIM_VARS,
    SMAX,
    TYPE_ARRAYS,
    TYPE_SIZE,
)
from pagesim.policies.cast.sample import (
    READ,
    REC_RA,
    REC_SHIFT,
    STAMP_MASK,
    _page_of,
    key_fast,
    sample_word,
    type_pages,
)


@cast_kernel
def _sv(j):  # type: ignore[no-untyped-def]
    """Index of sim ``j``'s scalars."""
    return GI.sim + j * SIM_NS


@cast_kernel
def _sb(j):  # type: ignore[no-untyped-def]
    """Base of sim ``j``'s arrays."""
    return GI.big + j * SIM_SIZE


# M's heap: entries (key, tie rank, slot, word) in four columns from the sim's base ``b``, sifted
# by pagesim.core.heap; ``h`` is ``(gi, b)``.


@kernel_inline
def _hentry(h, i):  # type: ignore[no-untyped-def]
    gi, b = h
    return (
        gi[b + SIM_ARRAYS.hk + i],
        gi[b + SIM_ARRAYS.ht + i],
        gi[b + SIM_ARRAYS.hx + i],
        gi[b + SIM_ARRAYS.hw + i],
    )


@kernel_inline
def _hstore(h, i, e):  # type: ignore[no-untyped-def]
    gi, b = h
    gi[b + SIM_ARRAYS.hk + i] = e[0]
    gi[b + SIM_ARRAYS.ht + i] = e[1]
    gi[b + SIM_ARRAYS.hx + i] = e[2]
    gi[b + SIM_ARRAYS.hw + i] = e[3]


@kernel_inline
def _hless(h, x, y):  # type: ignore[no-untyped-def]  # noqa: ARG001
    return x[0] < y[0] or (x[0] == y[0] and x[1] < y[1])


@cast_kernel
def _heap_push_raw(gi, gf, j, key, tb, x, w):  # type: ignore[no-untyped-def]
    b = _sb(j)
    v = _sv(j)
    i = gi[v + SIM_VARS.hlen]
    _hstore((gi, b), i, (key, tb, x, w))
    gi[v + SIM_VARS.hlen] = i + 1
    sift_up((gi, b), i, _hless, _hentry, _hstore)


@cast_kernel
def _m_rank(gi, gf, j, t, x, w):  # type: ignore[no-untyped-def]
    """Tie rank in a sim's M: the order of joining M for a page read once, else the frame hash."""
    return rank_tb(w, _page_of(gi, gf, t, x), gi[_sb(j) + SIM_ARRAYS.ss + x])


@cast_kernel
def _rebuild_heap(gi, gf, j, t):  # type: ignore[no-untyped-def]
    """Re-key sim ``j``'s M from its live pages (heap full of stale entries, or a new level)."""
    b = _sb(j)
    v = _sv(j)
    gi[v + SIM_VARS.hlen] = 0
    le = gi[v + SIM_VARS.le]
    now = gi[GI.now]
    for x in range(gi[GI.nsamp + t]):
        if gi[b + SIM_ARRAYS.sl + x] == 2:
            w = gi[b + SIM_ARRAYS.sw + x]
            _heap_push_raw(gi, gf, j, key_fast(gf, w, now, le), _m_rank(gi, gf, j, t, x, w), x, w)


@cast_kernel
def _heap_push(gi, gf, j, t, x, w):  # type: ignore[no-untyped-def]
    v = _sv(j)
    if gi[v + SIM_VARS.hlen] >= HEAP:
        _rebuild_heap(gi, gf, j, t)
        if gi[v + SIM_VARS.hlen] >= HEAP:
            return
    _heap_push_raw(
        gi, gf, j, key_fast(gf, w, gi[GI.now], gi[v + SIM_VARS.le]), _m_rank(gi, gf, j, t, x, w), x, w
    )


@cast_kernel
def _heap_top(gi, gf, j):  # type: ignore[no-untyped-def]
    """Sim ``j``'s lowest live page of M (stale entries dropped), or -1."""
    b = _sb(j)
    v = _sv(j)
    while gi[v + SIM_VARS.hlen] > 0:
        x = gi[b + SIM_ARRAYS.hx]
        if gi[b + SIM_ARRAYS.sl + x] == 2 and gi[b + SIM_ARRAYS.sw + x] == gi[b + SIM_ARRAYS.hw]:
            return x
        _heap_pop(gi, gf, j)
    return -1


@cast_kernel
def _heap_pop(gi, gf, j):  # type: ignore[no-untyped-def]
    b = _sb(j)
    v = _sv(j)
    n = gi[v + SIM_VARS.hlen] - 1
    if n < 0:
        return
    h = (gi, b)
    top = _hentry(h, 0)
    _hstore(h, 0, _hentry(h, n))
    _hstore(h, n, top)
    gi[v + SIM_VARS.hlen] = n
    sift_down(h, 0, n, _hless, _hentry, _hstore)


@cast_kernel
def _ring_compact(gi, gf, j):  # type: ignore[no-untyped-def]
    """Drop the W ring's stale entries (pages freed out of W)."""
    b = _sb(j)
    v = _sv(j)
    h = gi[v + SIM_VARS.rhead]
    k = 0
    for i in range(h, gi[v + SIM_VARS.rtail]):
        x = gi[b + SIM_ARRAYS.rx + i % RING]
        st = gi[b + SIM_ARRAYS.rs + i % RING]
        if gi[b + SIM_ARRAYS.sl + x] == 1 and gi[b + SIM_ARRAYS.ss + x] == st:
            gi[b + SIM_ARRAYS.rx + (h + k) % RING] = x
            gi[b + SIM_ARRAYS.rs + (h + k) % RING] = st
            k += 1
    gi[v + SIM_VARS.rtail] = h + k


@cast_kernel
def _w_tail(gi, gf, j):  # type: ignore[no-untyped-def]
    """Sim ``j``'s oldest live page of W (stale entries dropped), or -1."""
    b = _sb(j)
    v = _sv(j)
    while gi[v + SIM_VARS.rhead] < gi[v + SIM_VARS.rtail]:
        i = gi[v + SIM_VARS.rhead] % RING
        x = gi[b + SIM_ARRAYS.rx + i]
        if gi[b + SIM_ARRAYS.sl + x] == 1 and gi[b + SIM_ARRAYS.ss + x] == gi[b + SIM_ARRAYS.rs + i]:
            return x
        gi[v + SIM_VARS.rhead] += 1
    return -1


@cast_kernel
def _w_pop(gi, gf, j):  # type: ignore[no-untyped-def]
    gi[_sv(j) + SIM_VARS.rhead] += 1


@cast_kernel
def _join_m(gi, gf, j, t, x):  # type: ignore[no-untyped-def]
    """W's tail ``x`` (already popped) joins sim ``j``'s M."""
    b = _sb(j)
    v = _sv(j)
    gi[b + SIM_ARRAYS.sl + x] = 2
    st = gi[v + SIM_VARS.stamp]
    gi[v + SIM_VARS.stamp] = st + 1
    gi[b + SIM_ARRAYS.ss + x] = st
    gi[v + SIM_VARS.wlen] -= 1
    gi[v + SIM_VARS.mlen] += 1
    _heap_push(gi, gf, j, t, x, gi[b + SIM_ARRAYS.sw + x])


@cast_kernel
def _drop(gi, gf, j, x):  # type: ignore[no-untyped-def]
    """``x`` leaves sim ``j`` (its ring or heap entry goes stale)."""
    b = _sb(j)
    v = _sv(j)
    loc = gi[b + SIM_ARRAYS.sl + x]
    if loc == 1:
        gi[v + SIM_VARS.wlen] -= 1
    elif loc == 2:
        gi[v + SIM_VARS.mlen] -= 1
    gi[b + SIM_ARRAYS.sl + x] = 0
    gi[b + SIM_ARRAYS.sw + x] = 0


@cast_kernel
def _w_tail_rank(gi, gf, t, x, w):  # type: ignore[no-untyped-def]
    if word_count(w) <= 1:
        return TB_NEWCOMER
    return (1 << 40) | frame_hash(_page_of(gi, gf, t, x))


@cast_kernel
def sim_evict(gi, gf, j, t):  # type: ignore[no-untyped-def]
    """One page leaves sim ``j`` by the main cache's rule (W's tail vs M's lowest)."""
    b = _sb(j)
    v = _sv(j)
    wpm = gi[v + SIM_VARS.wpm]
    wl = gi[v + SIM_VARS.wlen]
    ml = gi[v + SIM_VARS.mlen]
    excess = wl - (wpm * (wl + ml)) // 1000
    while excess > 1:
        x = _w_tail(gi, gf, j)
        if x < 0:
            break
        _w_pop(gi, gf, j)
        _join_m(gi, gf, j, t, x)
        excess -= 1
    wl = gi[v + SIM_VARS.wlen]
    ml = gi[v + SIM_VARS.mlen]
    over = wl > 0 and 1000 * wl > wpm * (wl + ml)
    if over or ml == 0:
        wt = _w_tail(gi, gf, j)
        if wt < 0:
            return
        m = _heap_top(gi, gf, j)
        if m >= 0:
            w = gi[b + SIM_ARRAYS.sw + wt]
            wk = key_fast(gf, w, gi[GI.now], gi[v + SIM_VARS.le])
            mk = gi[b + SIM_ARRAYS.hk]
            mt = gi[b + SIM_ARRAYS.ht]
            wtb = _w_tail_rank(gi, gf, t, wt, w)
            if not (wk < mk or (wk == mk and wtb < mt)):
                _heap_pop(gi, gf, j)
                _drop(gi, gf, j, m)
                _w_pop(gi, gf, j)
                _join_m(gi, gf, j, t, wt)
                return
        _w_pop(gi, gf, j)
        _drop(gi, gf, j, wt)
        return
    m = _heap_top(gi, gf, j)
    if m >= 0:
        _heap_pop(gi, gf, j)
        _drop(gi, gf, j, m)
        return
    wt = _w_tail(gi, gf, j)
    if wt >= 0:
        _w_pop(gi, gf, j)
        _drop(gi, gf, j, wt)


@cast_kernel
def sim_access(gi, gf, j, t, x, kind, hist, cap):  # type: ignore[no-untyped-def]
    """Slot ``x`` read (``kind`` 1) or read ahead (0) in sim ``j`` of ``cap`` pages: 1 if it was
    there, else 0.

    A page that comes in gets back ``hist``, its word before this access, when it is not 0
    (history on: the sim's shadow, as the main cache's refault), else a fresh word."""
    b = _sb(j)
    v = _sv(j)
    now = gi[GI.now]
    loc = gi[b + SIM_ARRAYS.sl + x]
    if loc != 0:
        if kind == READ:
            w = read_word(gi[b + SIM_ARRAYS.sw + x], now)
            gi[b + SIM_ARRAYS.sw + x] = w
            if loc == 2:
                _heap_push(gi, gf, j, t, x, w)
            gi[v + SIM_VARS.hit] += 1
            gi[v + SIM_VARS.acc] += 1
        return 1
    if kind == READ:
        gi[v + SIM_VARS.miss] += 1
        gi[v + SIM_VARS.acc] += 1
    if hist == 0:
        gi[b + SIM_ARRAYS.sw + x] = new_word(now, kind)
    elif kind == READ:
        gi[b + SIM_ARRAYS.sw + x] = read_word(clamp_word(hist, now), now)
    else:
        gi[b + SIM_ARRAYS.sw + x] = clamp_word(hist, now)
    gi[b + SIM_ARRAYS.sl + x] = 1
    st = gi[v + SIM_VARS.stamp]
    gi[v + SIM_VARS.stamp] = st + 1
    gi[b + SIM_ARRAYS.ss + x] = st
    if gi[v + SIM_VARS.rtail] - gi[v + SIM_VARS.rhead] >= RING:
        _ring_compact(gi, gf, j)
    i = gi[v + SIM_VARS.rtail]
    gi[b + SIM_ARRAYS.rx + i % RING] = x
    gi[b + SIM_ARRAYS.rs + i % RING] = st
    gi[v + SIM_VARS.rtail] = i + 1
    gi[v + SIM_VARS.wlen] += 1
    while gi[v + SIM_VARS.wlen] + gi[v + SIM_VARS.mlen] > cap:
        before = gi[v + SIM_VARS.wlen] + gi[v + SIM_VARS.mlen]
        sim_evict(gi, gf, j, t)
        if gi[v + SIM_VARS.wlen] + gi[v + SIM_VARS.mlen] >= before:
            break
    return 0


@cast_kernel
def sim_reset(gi, gf, j, le, wpm):  # type: ignore[no-untyped-def]
    """Sim ``j`` empty, at level ``le`` (off unless within 1..14) and W share ``wpm``."""
    b = _sb(j)
    v = _sv(j)
    for k in range(SIM_NS):
        gi[v + k] = 0
    for x in range(SMAX):
        gi[b + SIM_ARRAYS.sl + x] = 0
        gi[b + SIM_ARRAYS.sw + x] = 0
    gi[v + SIM_VARS.le] = le
    gi[v + SIM_VARS.wpm] = wpm
    gi[v + SIM_VARS.on] = 1 if MIN_DECAY <= le <= MAX_DECAY else 0


@cast_kernel
def _sim_copy(gi, gf, src, j):  # type: ignore[no-untyped-def]
    """Sim ``j`` (just reset) takes sim ``src``'s pages: each slot's word, place (W or M) and
    stamp, W's ring and the counts and stamp clock that go with them; its level, W share, on
    flag, hits and misses stay. The block holds no absolute index (slots, ring positions modulo
    RING, stamps are the sim's own), so a copy is self-contained; M's heap is left empty for the
    caller's re-key at ``j``'s level."""
    bs = _sb(src)
    bj = _sb(j)
    vs = _sv(src)
    vj = _sv(j)
    for x in range(SMAX):
        gi[bj + SIM_ARRAYS.sw + x] = gi[bs + SIM_ARRAYS.sw + x]
        gi[bj + SIM_ARRAYS.sl + x] = gi[bs + SIM_ARRAYS.sl + x]
        gi[bj + SIM_ARRAYS.ss + x] = gi[bs + SIM_ARRAYS.ss + x]
    for i in range(RING):
        gi[bj + SIM_ARRAYS.rx + i] = gi[bs + SIM_ARRAYS.rx + i]
        gi[bj + SIM_ARRAYS.rs + i] = gi[bs + SIM_ARRAYS.rs + i]
    for k in (SIM_VARS.wlen, SIM_VARS.mlen, SIM_VARS.rhead, SIM_VARS.rtail, SIM_VARS.stamp):
        gi[vj + k] = gi[vs + k]
    gi[vj + SIM_VARS.hlen] = 0


@cast_kernel
def sim_capacity(s, t):  # type: ignore[no-untyped-def]
    """The sims' capacity for type ``t``, pages: the type's pages on the real lists now times the
    sample's rate (at least 1)."""
    return max(1, (type_pages(s, t) * s.gi[GI.rate]) // 65536)


@cast_kernel
def _reread(gi, gf, t, x):  # type: ignore[no-untyped-def]
    """Slot ``x``'s fault's young bit taken by the main cache as a read: the slot's record and
    every sim holding the page get the read too (the main cache's rule: nothing if the word's last
    read is this tick). No access: no hit or miss, no page comes in, the curve places nothing."""
    now = gi[GI.now]
    i = GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.last + x
    w = sample_word(gi, gf, t, x)
    if word_count(w) == 0 or last_read(w, now) == now:
        return
    w = read_word(clamp_word(w, now), now)
    gi[i] = (w << REC_SHIFT) | (gi[i] & STAMP_MASK) | (gi[i] & REC_RA)
    for k in range(N_SIM_T):
        j = t * N_SIM_T + k
        if gi[_sv(j) + SIM_VARS.on] != 0:
            sim_reread(gi, gf, j, t, x)


@cast_kernel
def sim_reread(gi, gf, j, t, x):  # type: ignore[no-untyped-def]
    """Slot ``x`` re-read in sim ``j`` (:func:`_reread`): its word gets the read if the sim holds
    it and its last read is not this tick."""
    b = _sb(j)
    loc = gi[b + SIM_ARRAYS.sl + x]
    if loc == 0:
        return
    now = gi[GI.now]
    w = gi[b + SIM_ARRAYS.sw + x]
    if word_count(w) != 0 and last_read(w, now) == now:
        return
    w = read_word(w, now)
    gi[b + SIM_ARRAYS.sw + x] = w
    if loc == 2:
        _heap_push(gi, gf, j, t, x, w)
