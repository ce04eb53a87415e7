"""CAST's miss-ratio curves, one per type, read from the main cache's order, and the split they choose.

The split: per type a miss-ratio curve read from one order of the sample's pages, the main
cache's (seed: "Each simulated cache is the main cache in small, ties included"): a read's depth
is the number of the type's sampled pages the main cache would keep over it -- those whose key,
from the sample's record of their words (history: every read, whether or not a cache held the
page) at the type's decay, is higher, or equal with a higher tie rank (read once: the newer; read
more: the frame hash), and pages read ahead and never read since its last read. The curve holds
the hits first reached at sizes (k+1)/10 of what the split divides -- the pages on the lists at
the last tick (memory before the first; the press holds a share of the lists, which the free
pages leave about 2 % smaller than memory: read at tenths of memory, a type holding 40 % of
memory would show no misses at 4/10 and swap at the split 40 %) -- times the rate, k = 0..9. At a
decay near LRU this is the order of last reads; at a near-LFU decay a loop larger than memory
ties and gains with size, as the main cache does.

Readahead at each size (seed: "with readahead simulated"): the curves count the misses a task waits
for, as the costs are per wait. A file read the real cache served from readahead is counted at
weight 1 (every such read, O(log) each: two sums of the order's tree): the page read ahead since
its last read (a bit in the slot's record, set by a read ahead and cleared by a read) is a hit at
the sizes larger than the type's sampled pages read or read ahead between its read ahead and this
read (its stamp in the order of last reads is its read ahead's: the pages above it are those), a
miss at the smaller ones, which would have lost the window before the read (an unread page ranks
lowest); a hit continuing the reader's sequential run (the last file read was of the page before:
:func:`note_stream`) with no read ahead of its own is a hit at every size. A file read the real
cache missed though the page was read ahead since its last read (its window evicted unread) is a
miss at the sizes up to the type's pages at the last tick, where the real cache lost it, and at
each larger size that would not have kept the unread page either (a choice, the closest reading of
"with readahead simulated" in the seed: an unread page ranks lowest in M, so a size keeps it only
while W holds it): a hit at a size whose W (the type's share of it) holds more than the ``d``
sampled pages read or read ahead since the read ahead, or that holds every sampled page of the type
(nothing is evicted). With W's share 0 and a type larger than the curve's 10/10 it is a miss at
every size: a wait memory does not remove moves no split. (Counted a hit at every size above
the real one, windows lost for want of W would read as memory the file lacks: on the split
study's file loops, 1.5x memory, W's share falls to 0 and the split would fall to anon's floor.)
A stream is detected by the reader's order, not by the cache's size, so every size reads it
ahead as the real cache did; an asynchronous window costs the reader nothing (docs/kernel-mode.md:
``ssd`` and ``hdd`` have no device queue) unless it is lost before it is read. (Were every read
readahead served a hit at every size, the file curve would stay flat where small sizes lose
their windows: ``mix``'s 32,768-page trace on a 65,536-page node, readahead 32,
would keep the split at 90 %, the share at the first decision, while the windows thrash.) On a
node of the trace's 32,768 pages the windows are not lost, the curve stays flat and the split stays
(at a cost 0.3 % above the best fixed split). A read the real cache missed, or one out of sequence,
is placed by its depth. A page with a history that was read ahead is not placed by its history:
otherwise a file loop 1.5x memory beside active anon, whose reader almost never waits (readahead
brings in nearly every page), shows a curve falling with size, and the split goes to anon's floor
where the best fixed split keeps anon whole. A sequential loop served by readahead thus gains
nothing from memory here, and cold anon beside it keeps its share (the split does not move:
every split costs the same); beside reads a task waits for it goes to its floor
(tests/unit/test_cast_tune.py).

Counting a depth reads every sampled page of the type, so one read in ``MRC_EVERY`` = 16 (by a
hash of its stamp) is placed, at weight 16 (with every sampled anon access a hinting fault, one
in 4 made CAST 2.5 times slower on stress-vm). The cost of anon share k/10 (k = 1..9; 1/10 is
anon's floor) is ``cost_anon * misses_anon(k/10) + cost_file * misses_file((10-k)/10)``; the
least is taken when it is below the current split's by more than two standard deviations. The
misses are Poisson in the placed reads: each placed read adds 16 to its count and 256 to the
count's variance (``gf[GF.mrcvar:]``), and halving a curve halves its counts and quarters their
variance, so the difference's variance is ``cost_anon^2 var_anon + cost_file^2 var_file`` over
the counts between the two sizes (``16 |d misses|`` would overstate it up to twice after
halvings). The first split is the share the lists have at the first decision.
The curves halve once they hold ``curve_memory`` sample memories of reads (the sample's pages
at the size of the lists: 2,048 reads at the scaled node; parameter, default 1; 0: as many as
the LRUs hold pages, the costs' rule). The choice was measured on 13 of the study's 90
conditions (200,000 accesses, tasks not paced): 1 gave +4.3 % mean / +26.7 % worst, 2
+5.0 % / +25.2 %, 0 +6.8 % / +23.0 %: a task's reads, weighed at anon's prior while it never
refaults, must fade from the curves once it stops for the split to follow, and a longer memory
keeps them. On the paced study at 2,000,000 accesses, 4 mends three of the four anon-0.4 rows
and loses on others (docs/cast.md).
"""

from __future__ import annotations

import math

from pagesim.policies.cast.core import (
    cast_kernel,
    clamp_word,
    frame_hash,
    word_count,
)
from pagesim.policies.cast.costs import miss_cost
from pagesim.policies.cast.layout import (
    ANON_T,
    GF,
    GI,
    MRC_ROW,
    MRC_SIZES,
    MRC_W,
    TF,
    TYPE_ARRAYS,
    TYPE_SIZE,
)
from pagesim.policies.cast.sample import (
    READ,
    REC_RA,
    REC_SHIFT,
    STAMP_MASK,
    WORD_MASK,
    _last,
    _page_of,
    _set_last,
    key_fast,
    sample_word,
    type_pages,
)

#: One read in this many (by a hash of the order's stamp) has its depth in the main cache's
#: order counted, with this weight: the count is O(sample) per read.
MRC_EVERY = 16


@cast_kernel
def _fen_add(gi, gf, t, i, d):  # type: ignore[no-untyped-def]
    base = GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.fen
    while i <= TF:
        gi[base + i] += d
        i += i & (-i)


@cast_kernel
def _fen_sum(gi, gf, t, i):  # type: ignore[no-untyped-def]
    base = GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.fen
    r = 0
    while i > 0:
        r += gi[base + i]
        i -= i & (-i)
    return r


@cast_kernel
def _mrc_renumber(gi, gf, t):  # type: ignore[no-untyped-def]
    """Stamps used up: renumber the live ones 1..k in their order (a live stamp's new number is
    the tree's count of live stamps up to it), rebuild the tree. No allocation."""
    tb = GI.typebig + t * TYPE_SIZE
    n = gi[GI.nsamp + t]
    for x in range(n):
        last = _last(gi, gf, t, x)
        if last > 0:
            _set_last(gi, gf, t, x, _fen_sum(gi, gf, t, last))
    for i in range(TF + 1):
        gi[tb + TYPE_ARRAYS.fen + i] = 0
    k = 0
    for x in range(n):
        last = _last(gi, gf, t, x)
        if last > 0:
            _fen_add(gi, gf, t, last, 1)
            k = max(k, last)
    gi[GI.mrcts + t] = k


@cast_kernel
def mrc_unit(gi, gf):  # type: ignore[no-untyped-def]
    """A tenth of what the split divides -- the pages on the lists at the last tick (memory before
    the first) -- in the sample's pages (at least 1)."""
    pages = gi[GI.lrupg] if gi[GI.lrupg] > 0 else gi[GI.mem]
    return max(1, (pages * gi[GI.rate]) // (65536 * 10))


@cast_kernel
def _order_tb(gi, gf, t, x, w, last):  # type: ignore[no-untyped-def]
    """Tie rank in the curve's order, as the main cache's: read once, the order of last reads
    (the newer kept); read more, ``2^40 +`` the frame hash (:func:`rank_tb`'s)."""
    if word_count(w) <= 1:
        return last
    return (1 << 40) | frame_hash(_page_of(gi, gf, t, x))


@cast_kernel
def key_depth(gi, gf, t, x, w, last, stop):  # type: ignore[no-untyped-def]
    """Pages of the order that the main cache keeps over slot ``x`` (word ``w``, stamp ``last``):
    those whose key at type ``t``'s decay is higher, or equal with a higher tie rank, and those
    read ahead and never read (count 0) since ``x``'s last read. Counting stops at ``stop`` (a
    miss at every size the curve reads)."""
    tb = GI.typebig + t * TYPE_SIZE
    now = gi[GI.now]
    le = gi[GI.le + t]
    kx = key_fast(gf, clamp_word(w, now), now, le)
    rx = _order_tb(gi, gf, t, x, w, last)
    d = 0
    for y in range(gi[GI.nsamp + t]):
        e = gi[tb + TYPE_ARRAYS.last + y]
        ly = e & STAMP_MASK
        if ly == 0 or y == x:
            continue
        wy = (e >> REC_SHIFT) & WORD_MASK
        if word_count(wy) == 0:
            if ly > last:
                d += 1
        else:
            ky = key_fast(gf, clamp_word(wy, now), now, le)
            if ky > kx or (ky == kx and _order_tb(gi, gf, t, y, wy, ly) > rx):
                d += 1
        if d >= stop:
            return d
    return d


@cast_kernel
def _mrc_place(gi, gf, t, x, ts, last):  # type: ignore[no-untyped-def]
    """A read of slot ``x`` (seen before) into the curve, one in ``MRC_EVERY`` (by a hash of
    the order's stamp) at weight ``MRC_EVERY``: at its depth in the main cache's order, a hit at
    every size that holds it. Readahead at each size: a page read ahead before its first read is
    at the top of the order of last reads (a hit); a page with a history that was read ahead is
    where its history puts it -- held at a size, or brought in there (a miss)."""
    if (frame_hash(ts) & (MRC_EVERY - 1)) != 0:
        return
    w = sample_word(gi, gf, t, x)
    u = mrc_unit(gi, gf)
    if word_count(w) == 0:
        d = _fen_sum(gi, gf, t, ts) - _fen_sum(gi, gf, t, last)
    else:
        d = key_depth(gi, gf, t, x, w, last, MRC_SIZES * u)
    if d // u < MRC_SIZES:
        gf[GF.mrc + MRC_W * t + MRC_ROW.hits + d // u] += float(MRC_EVERY)
        gf[GF.mrcvar + MRC_W * t + MRC_ROW.hits + d // u] += float(MRC_EVERY * MRC_EVERY)


@cast_kernel
def mrc_access(gi, gf, t, x, kind):  # type: ignore[no-untyped-def]
    """Slot ``x`` read (1) or read ahead (0): its depth in the main cache's order into the
    curve; to the top of the order of last reads. Call before :func:`_note_word`."""
    if gi[GI.mrcts + t] >= TF:
        _mrc_renumber(gi, gf, t)
    ts = gi[GI.mrcts + t]
    last = _last(gi, gf, t, x)
    f = GF.mrc + MRC_W * t
    i = GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.last + x
    if kind == READ:
        gf[f + MRC_ROW.reads] += 1.0
        if read_ahead_hit(gi, t, gi[i]):
            _ra_place(gi, gf, t, gi[i], ts, last)
        elif t != ANON_T and (gi[i] & REC_RA) != 0:
            _ra_lost(gi, gf, t, ts, last)
        elif last > 0:
            _mrc_place(gi, gf, t, x, ts, last)
        gi[i] &= ~REC_RA
    else:
        gi[i] |= REC_RA
    if last > 0:
        _fen_add(gi, gf, t, last, -1)
    _set_last(gi, gf, t, x, ts + 1)
    _fen_add(gi, gf, t, ts + 1, 1)
    gi[GI.mrcts + t] = ts + 1


@cast_kernel
def _ra_place(gi, gf, t, rec, ts, last):  # type: ignore[no-untyped-def]
    """A file read readahead served (record ``rec``, stamp ``last``) into the curve, at weight 1.
    A page read ahead since its last read is a hit at the sizes larger than the type's sampled
    pages read or read ahead between its read ahead and this read (the order's stamps between
    ``last`` and ``ts``): a smaller cache would have lost its window before the read (an unread
    page ranks lowest). A hit continuing the reader's sequential run with no read ahead of its
    own is a hit at every size."""
    b = 0
    if (rec & REC_RA) != 0 and last > 0:
        b = (_fen_sum(gi, gf, t, ts) - _fen_sum(gi, gf, t, last)) // mrc_unit(gi, gf)
    if b < MRC_SIZES:
        gf[GF.mrc + MRC_W * t + MRC_ROW.hits + b] += 1.0
        gf[GF.mrcvar + MRC_W * t + MRC_ROW.hits + b] += 1.0


@cast_kernel
def _ra_lost(gi, gf, t, ts, last):  # type: ignore[no-untyped-def]
    """A file read the real cache missed though the page was read ahead since its last read (its
    window was evicted unread; stamp ``last`` its read ahead's, ``ts`` now) into the curve, at
    weight 1: a miss at the sizes up to the type's pages at the last tick (where the real cache
    lost it), and at the larger ones unless that size would have kept it -- W's share of it
    (``gi[GI.wpm + t]`` permille) held more than the ``d`` sampled pages read or read ahead since
    the read ahead, or it holds every sampled page of the type (no eviction at all). An unread
    page ranks lowest in M, so with W's share 0 a window is lost at every size short of the
    type's whole: a miss at every size the curve reads (module docstring)."""
    u = mrc_unit(gi, gf)
    b = gi[GI.scap + t] // u
    if last > 0:
        total = _fen_sum(gi, gf, t, ts)
        d = total - _fen_sum(gi, gf, t, last)
        wpm = gi[GI.wpm + t]
        keep = total // u
        if wpm > 0:
            keep = min(keep, (d * 1000) // (wpm * u))
        b = max(b, keep)
    if b < MRC_SIZES:
        gf[GF.mrc + MRC_W * t + MRC_ROW.hits + b] += 1.0
        gf[GF.mrcvar + MRC_W * t + MRC_ROW.hits + b] += 1.0


@cast_kernel
def note_stream(s, p, hit):  # type: ignore[no-untyped-def]
    """A file read of page ``p`` (``hit``: kernel mode, and the real cache had the page): whether
    it continues the reader's sequential run (the last file read was of page ``p - 1``)."""
    s.gi[GI.hitread] = 1 if hit else 0
    s.gi[GI.seqread] = 1 if hit and p == s.gi[GI.prevread] + 1 else 0
    s.gi[GI.prevread] = p


@cast_kernel
def read_ahead_hit(gi, t, rec):  # type: ignore[no-untyped-def]
    """Whether a file read (record ``rec``) is one readahead serves at every size of the curve:
    the real cache had the page, read ahead since its last read, or in the reader's sequential
    run (module docstring)."""
    if t == ANON_T or gi[GI.hitread] == 0:
        return False
    return (rec & REC_RA) != 0 or gi[GI.seqread] != 0


@cast_kernel
def mrc_misses(s, t, k):  # type: ignore[no-untyped-def]
    """Type ``t``'s misses in the curve at size k/10 of memory (k 0..10)."""
    f = GF.mrc + MRC_W * t
    h = 0.0
    for i in range(min(k, MRC_SIZES)):
        h += s.gf[f + MRC_ROW.hits + i]
    return s.gf[f + MRC_ROW.reads] - h


#: How the split is set (``gi[G_SAUTO]``; the knobs ``split_permille`` and ``split_mode``):
#: held by hand; chosen from the curves (the seed's CAST); moved one step down the curves'
#: local gradient; no split, reclaim comparing the two types' lowest scores (the seed's two
#: "other ways of splitting tried").
SPLIT_FIXED, SPLIT_CURVES, SPLIT_GRADIENT, SPLIT_SCORES = 0, 1, 2, 3
SPLIT_MODES = {"curves": SPLIT_CURVES, "gradient": SPLIT_GRADIENT, "scores": SPLIT_SCORES}


@cast_kernel
def split_choice(s, cur, gradient=False):  # type: ignore[no-untyped-def]
    """The anon share (tenths, 1..9) the curves and costs choose, starting from ``cur``.

    Writes each share's weighed misses to ``gf[GF.split_cost:]``; returns ``cur`` unless another
    share's cost is lower by more than two standard deviations. The seed's CAST takes the lowest
    of the nine; with ``gradient`` (``split_mode=gradient``, the seed's "following the gradient
    of the split") only the two neighbours of ``cur`` are candidates, so the split moves one
    tenth at a time downhill and stops at the first local minimum.
    """
    ca = miss_cost(s, ANON_T)
    cf = miss_cost(s, 1)
    best = cur
    best_c = 0.0
    lo = max(1, cur - 1) if gradient else 1
    hi = min(9, cur + 1) if gradient else 9
    for k in range(1, 10):
        c = ca * mrc_misses(s, ANON_T, k) + cf * mrc_misses(s, 1, 10 - k)
        s.gf[GF.split_cost + k - 1] = c
        if lo <= k <= hi and (k == lo or c < best_c):
            best_c = c
            best = k
    if best != cur and split_better(s, best, cur, ca, cf):
        return best
    return cur


@cast_kernel
def split_better(s, k, cur, ca, cf):  # type: ignore[no-untyped-def]
    """Whether anon share ``k`` costs less than ``cur`` (tenths) by two standard deviations."""
    d = s.gf[GF.split_cost + cur - 1] - s.gf[GF.split_cost + k - 1]
    va = mrc_var_between(s, ANON_T, k, cur)
    vf = mrc_var_between(s, 1, 10 - k, 10 - cur)
    return d > 2.0 * math.sqrt(ca * ca * va + cf * cf * vf)


@cast_kernel
def mrc_var_between(s, t, k1, k2):  # type: ignore[no-untyped-def]
    """The variance of the difference of type ``t``'s misses at sizes k1/10 and k2/10: the hit
    counts between the two sizes are sums of placed reads, each counted at weight ``MRC_EVERY``
    (Poisson in the placed reads) and halved with the curve."""
    v = 0.0
    for i in range(min(k1, k2), max(k1, k2)):
        v += s.gf[GF.mrcvar + MRC_W * t + MRC_ROW.hits + i]
    return v


@cast_kernel
def curve_memory(s):  # type: ignore[no-untyped-def]
    """Reads the curves hold before they halve."""
    if s.gi[GI.curvemem] > 0:
        return max(1, s.gi[GI.curvemem] * 10 * mrc_unit(s.gi, s.gf))
    return max(1, type_pages(s, 0) + type_pages(s, 1))
