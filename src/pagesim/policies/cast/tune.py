"""CAST's controllers: the decay and W tests over the simulated caches, the split, the tick.

The decay: per sim i (1..8), over the reads where it and the centre disagree, ``plus`` counts
the reads it hit and the centre missed, ``minus`` the reverse. Under no difference ``plus`` is
binomial(n, 1/2): a sim "misses less by two standard deviations" when ``plus - minus > 2 sqrt(n)``
(n = plus + minus >= 16). Checked every tick; of those that pass, the one with the largest
``(plus - minus) / sqrt(n)`` becomes the centre; every sim is re-levelled around it (its pages
kept, its heap re-keyed) and the counts start again.

W's share: the same counts between W+ and W- (the gradient's sign); a sequential test: once
``|plus - minus| > 2 sqrt(n)`` (n >= 16) the share moves 100 permille toward the better one and
the counts start again (each step on evidence gathered since the last).


The pieces they read: the sample (:mod:`.sample`), the simulated caches (:mod:`.sims`), the
miss-ratio curves and the split (:mod:`.mrc`), the costs and the press (:mod:`.costs`).
"""

from __future__ import annotations

import math

from pagesim.policies.cast.core import (
    MAX_DECAY,
    MIN_DECAY,
    cast_kernel,
)
from pagesim.policies.cast.costs import anon_share
from pagesim.policies.cast.layout import (
    ANON_T,
    BUF_CAP,
    BUF_W,
    FILE_T,
    GF,
    GI,
    MRC_ROW,
    MRC_W,
    N_SIM_T,
    PM,
    SIM_VARS,
    SLOT_MASK,
    SMAX,
    TF,
    TYPE_ARRAYS,
    TYPE_SIZE,
)
from pagesim.policies.cast.mrc import (
    SPLIT_CURVES,
    SPLIT_GRADIENT,
    _fen_add,
    curve_memory,
    mrc_access,
    split_choice,
)
from pagesim.policies.cast.sample import (
    READ,
    REREAD,
    _last,
    _note_word,
    _slot,
    choose_sample,
    sample_word,
    type_pages,
)
from pagesim.policies.cast.sims import (
    _drop,
    _rebuild_heap,
    _reread,
    _sim_copy,
    _sv,
    sim_access,
    sim_capacity,
    sim_reset,
)

DECIDE_EVERY = 256  #: the tests also decide every this many sample events (besides every tick)
MIN_N = 16  #: disagreements a test needs before it may decide


#: Offsets of the nine decay sims from the centre level.
DECAY_OFFSETS = (0, -1, 1, -2, 2, -4, 4, -8, 8)
SIM_WMINUS = 9
SIM_WPLUS = 10


@cast_kernel
def decay_level(s, t):  # type: ignore[no-untyped-def]
    """The decay level (1..14) type ``t`` ranks by."""
    return s.gi[GI.le + t]


@cast_kernel
def w_share(s, t):  # type: ignore[no-untyped-def]
    """W's share of type ``t``'s pages, permille."""
    return s.gi[GI.wpm + t]


@cast_kernel
def sign_test(plus, minus):  # type: ignore[no-untyped-def]
    """+1 if ``plus`` beats ``minus`` by two standard deviations of a fair coin's difference
    (``plus - minus > 2 sqrt(plus + minus)``, at least 16 disagreements), -1 the reverse, else 0."""
    n = plus + minus
    if n < MIN_N:
        return 0
    sd = math.sqrt(float(n))
    if plus - minus > 2.0 * sd:
        return 1
    if minus - plus > 2.0 * sd:
        return -1
    return 0


@cast_kernel
def decay_offset(i):  # type: ignore[no-untyped-def]
    """Sim ``i``'s offset from the centre decay: 0, -1, +1, -2, +2, -4, +4, -8, +8."""
    if i == 0:
        return 0
    if i % 2 == 1:
        return -(1 << ((i - 1) // 2))
    return 1 << ((i - 2) // 2)


@cast_kernel
def sim_level(le, i):  # type: ignore[no-untyped-def]
    """Decay sim ``i``'s level around centre ``le``: ``le + decay_offset(i)`` held within 1..14
    (the nine span "from le 1 ... to le 14"); 0 (off) for the centre's own level or one a
    nearer sim already has."""
    if i == 0:
        return le
    nl = min(max(le + decay_offset(i), MIN_DECAY), MAX_DECAY)
    for k in range(i):
        if min(max(le + decay_offset(k), MIN_DECAY), MAX_DECAY) == nl:
            return 0
    return nl


@cast_kernel
def _centre_sims(gi, gf, t):  # type: ignore[no-untyped-def]
    """Re-level type ``t``'s sims around the centre decay and W share (pages kept, heaps re-keyed)."""
    le = gi[GI.le + t]
    w = gi[GI.wpm + t]
    for i in range(N_SIM_T):
        j = t * N_SIM_T + i
        v = _sv(j)
        if i < 9:
            nl = sim_level(le, i)
            nw = w
        else:
            nl = le
            nw = min(max(w + (100 if i == SIM_WPLUS else -100), 0), 1000)
        was = gi[v + SIM_VARS.on]
        gi[v + SIM_VARS.wpm] = nw
        if nl != gi[v + SIM_VARS.le]:
            gi[v + SIM_VARS.le] = nl
            on = MIN_DECAY <= nl <= MAX_DECAY
            if on and was == 0:
                sim_reset(gi, gf, j, nl, nw)
                c = t * N_SIM_T
                if i > 0 and gi[_sv(c) + SIM_VARS.on] == 1:
                    _sim_copy(gi, gf, c, j)
            gi[v + SIM_VARS.on] = 1 if on else 0
            if on:
                _rebuild_heap(gi, gf, j, t)
        gi[GI.simplus + t * N_SIM_T + i] = 0
        gi[GI.simminus + t * N_SIM_T + i] = 0


@cast_kernel
def _reset_sweep(s, t):  # type: ignore[no-untyped-def]
    """The real cache's decay changed: its candidates' keys are stale; sweep afresh."""
    base = GI.buf + t * BUF_W * BUF_CAP + BUF_W * s.gi[GI.bufhead + t]
    for i in range(s.gi[GI.buflen + t]):
        s.pm[s.gi[base + BUF_W * i], PM.inbuf] = 0
    s.gi[GI.buflen + t] = 0
    s.gi[GI.bufhead + t] = 0
    s.gi[GI.qvalid + t] = 0
    s.gi[GI.passn + t] = 0


@cast_kernel
def tune_init(s):  # type: ignore[no-untyped-def]
    """The sample chosen, every sim empty and centred, the curves empty."""
    choose_sample(s)
    for t in range(2):
        s.gi[GI.nsamp + t] = 0
        s.gi[GI.events + t] = 0
        s.gi[GI.mrcts + t] = 0
        s.gi[GI.dmove + t] = 0
        s.gi[GI.wmove + t] = 0
        s.gi[GI.scap + t] = 1
        tb = GI.typebig + t * TYPE_SIZE
        for i in range(TF + 1):
            s.gi[tb + TYPE_ARRAYS.fen + i] = 0
        for x in range(SMAX):
            s.gi[tb + TYPE_ARRAYS.last + x] = 0
        for i in range(N_SIM_T):
            j = t * N_SIM_T + i
            sim_reset(s.gi, s.gf, j, 0, 0)
        _centre_sims(s.gi, s.gf, t)
    s.gi[GI.smove] = 0
    s.gi[GI.ticks] = 0
    s.gi[GI.prevread] = -2
    s.gi[GI.lrupg] = 0
    s.gi[GI.seqread] = 0
    s.gi[GI.hitread] = 0


@cast_kernel
def tune_feed(s, p, t, kind):  # type: ignore[no-untyped-def]
    """Page ``p`` of type ``t`` read (1), read ahead (0) or re-read (2, :data:`REREAD`): the sims
    and the curve, if sampled."""
    if s.pm[p, PM.sidx] == -1 or (s.gi[GI.dauto] == 0 and s.gi[GI.sauto] == 0):
        return
    x = _slot(s, p, t)
    if x < 0:
        return
    if kind == REREAD:
        _reread(s.gi, s.gf, t, x)
        return
    s.gi[GI.events + t] += 1
    if (s.gi[GI.events + ANON_T] + s.gi[GI.events + FILE_T]) % DECIDE_EVERY == 0:
        tune_decide(s)
    hist = sample_word(s.gi, s.gf, t, x) if s.gi[GI.history] != 0 else 0
    if s.gi[GI.sauto] == SPLIT_CURVES or s.gi[GI.sauto] == SPLIT_GRADIENT:
        mrc_access(s.gi, s.gf, t, x, kind)
    _note_word(s.gi, s.gf, t, x, kind)
    if s.gi[GI.dauto] == 0:
        return
    j0 = t * N_SIM_T
    cap = sim_capacity(s, t)
    hc = sim_access(s.gi, s.gf, j0, t, x, kind, hist, cap)
    for i in range(1, 9):
        j = j0 + i
        if s.gi[_sv(j) + SIM_VARS.on] == 0:
            continue
        h = sim_access(s.gi, s.gf, j, t, x, kind, hist, cap)
        if kind == READ and h != hc:
            if h > hc:
                s.gi[GI.simplus + j] += 1
            else:
                s.gi[GI.simminus + j] += 1
    hm = sim_access(s.gi, s.gf, j0 + SIM_WMINUS, t, x, kind, hist, cap)
    hp = sim_access(s.gi, s.gf, j0 + SIM_WPLUS, t, x, kind, hist, cap)
    if kind == READ and hm != hp:
        if hp > hm:
            s.gi[GI.simplus + j0 + SIM_WPLUS] += 1
        else:
            s.gi[GI.simminus + j0 + SIM_WPLUS] += 1


@cast_kernel
def tune_free(s, p, t):  # type: ignore[no-untyped-def]
    """Page ``p`` freed by its owner: it leaves every sim and the curve's order."""
    x = s.pm[p, PM.sidx]
    if x < 0:
        return
    x &= SLOT_MASK
    s.pm[p, PM.sidx] = x
    for i in range(N_SIM_T):
        _drop(s.gi, s.gf, t * N_SIM_T + i, x)
    last = _last(s.gi, s.gf, t, x)
    if last > 0:
        _fen_add(s.gi, s.gf, t, last, -1)
    s.gi[GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.last + x] = 0


@cast_kernel
def decide_decay(s, t):  # type: ignore[no-untyped-def]
    """Move type ``t``'s decay to the sim that beats the centre by the sign test; True if moved."""
    best = -1
    best_z = 0.0
    for i in range(1, 9):
        j = t * N_SIM_T + i
        if s.gi[_sv(j) + SIM_VARS.on] == 0:
            continue
        pl = s.gi[GI.simplus + j]
        mi = s.gi[GI.simminus + j]
        if sign_test(pl, mi) > 0:
            z = (pl - mi) / math.sqrt(float(pl + mi))
            if z > best_z:
                best_z = z
                best = i
    if best < 0:
        return False
    s.gi[GI.le + t] = s.gi[_sv(t * N_SIM_T + best) + SIM_VARS.le]
    s.gi[GI.dmove + t] += 1
    _reset_sweep(s, t)
    _centre_sims(s.gi, s.gf, t)
    return True


@cast_kernel
def decide_w(s, t):  # type: ignore[no-untyped-def]
    """Step W's share 100 permille toward the better of W- and W+ once the test decides."""
    j = t * N_SIM_T + SIM_WPLUS
    d = sign_test(s.gi[GI.simplus + j], s.gi[GI.simminus + j])
    if d == 0:
        return False
    w = min(max(s.gi[GI.wpm + t] + 100 * d, 0), 1000)
    s.gi[GI.simplus + j] = 0
    s.gi[GI.simminus + j] = 0
    if w == s.gi[GI.wpm + t]:
        return False
    s.gi[GI.wpm + t] = w
    s.gi[GI.wmove + t] += 1
    _centre_sims(s.gi, s.gf, t)
    return True


#: the slots of ``GF.mrc`` that count each type's reads
_ANON_READS = GF.mrc + MRC_W * ANON_T + MRC_ROW.reads
_FILE_READS = GF.mrc + MRC_W * FILE_T + MRC_ROW.reads


@cast_kernel
def decide_split(s):  # type: ignore[no-untyped-def]
    """Set or move the split (anon's share, permille) from the curves; True if it moved."""
    if s.gf[_ANON_READS] + s.gf[_FILE_READS] <= 0.0:
        return False
    if s.gi[GI.split] < 0:
        cur = min(max((anon_share(s) + 50) // 100, 1), 9)
        s.gi[GI.split] = 100 * cur
    cur = min(max((s.gi[GI.split] + 50) // 100, 1), 9)
    k = split_choice(s, cur, s.gi[GI.sauto] == SPLIT_GRADIENT)
    if k == cur:
        return False
    s.gi[GI.split] = 100 * k
    s.gi[GI.smove] += 1
    return True


@cast_kernel
def tune_decide(s):  # type: ignore[no-untyped-def]
    """The tests decide: decay (else W's share) per type, then the split."""
    for t in range(2):
        if s.gi[GI.dauto] != 0:
            if not decide_decay(s, t):
                decide_w(s, t)
    if s.gi[GI.sauto] == SPLIT_CURVES or s.gi[GI.sauto] == SPLIT_GRADIENT:
        decide_split(s)
        # the curves forget by half once they hold as many reads as the LRUs hold pages, the
        # costs' rule
        if s.gf[_ANON_READS] + s.gf[_FILE_READS] >= curve_memory(s):
            for i in range(2 * MRC_W):
                s.gf[GF.mrc + i] *= 0.5
                s.gf[GF.mrcvar + i] *= 0.25


@cast_kernel
def tune_tick(s):  # type: ignore[no-untyped-def]
    """Once a tick: the sims' capacity follows the lists; the tests decide; the curves age."""
    s.gi[GI.ticks] += 1
    s.gi[GI.lrupg] = type_pages(s, 0) + type_pages(s, 1)
    for t in range(2):
        s.gi[GI.scap + t] = max(1, (type_pages(s, t) * s.gi[GI.rate]) // 65536)
    tune_decide(s)
