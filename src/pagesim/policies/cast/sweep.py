"""CAST's sweep (seed: "The sweep"): the scan of M for its lowest keys and the candidates it keeps.

Per type the 128 lowest keys of M found so far (page, key, word when found, tie rank), sorted
by key. A sweep reads state words in page-id order from the cursor, a block at a time, skipping
blocks whose bitmap bit is clear; it stops at a block end once it holds ``enough`` keys at or
below the 1/16 quantile of the last pass, or after one whole circle; a pass ends when the cursor
wraps and its quantile replaces the last. :func:`m_lowest` gives M's lowest page, sweeping when
there is no candidate or none at or below the quantile. The rules and choices are in
:mod:`.policy`'s docstring.
"""

from __future__ import annotations

from pagesim.core.state import WORK_CPU_NS
from pagesim.policies.cast.core import (
    cast_kernel,
    rank_tb,
    word_tag,
)
from pagesim.policies.cast.costs import sweep_cost_ns
from pagesim.policies.cast.layout import (
    BUF_CAP,
    BUF_ENTRY,
    BUF_W,
    ENOUGH_MAX,
    GF,
    GI,
    N_CAND,
    PM,
    QUANTILE_DIV,
)
from pagesim.policies.cast.lruvec import _less, _mytag
from pagesim.policies.cast.sample import key_fast
from pagesim.policies.cast.tune import decay_level
from pagesim.policies.cast.walk import check_young


@cast_kernel
def _buf_at(s, t, i):  # type: ignore[no-untyped-def]
    """Index in ``s.gi`` of the candidate of rank ``i`` (0 = lowest) of type ``t``."""
    return GI.buf + BUF_W * (t * BUF_CAP + s.gi[GI.bufhead + t] + i)


@cast_kernel
def _buf_takes(gi, t, key, tb):  # type: ignore[no-untyped-def]
    """Would :func:`buf_insert` keep a page ranked (key, tb)? (``gi`` alone: the sweep asks it
    of every page it reads.)"""
    n = gi[GI.buflen + t]
    if n < N_CAND:
        return True
    last = GI.buf + BUF_W * (t * BUF_CAP + gi[GI.bufhead + t] + N_CAND - 1)
    return _less(key, tb, gi[last + BUF_ENTRY.key], gi[last + BUF_ENTRY.tb])


@cast_kernel
def buf_insert(s, t, p, key, w, tb):  # type: ignore[no-untyped-def]
    """Keep ``p`` among the 128 lowest (sorted, lowest first); False if it ranks above them all.

    Placed after every candidate it does not rank below (so equal ranks keep the order found).
    """
    n = s.gi[GI.buflen + t]
    if n >= N_CAND:
        last = _buf_at(s, t, N_CAND - 1)
        if not _less(key, tb, s.gi[last + BUF_ENTRY.key], s.gi[last + BUF_ENTRY.tb]):
            return False
        s.pm[s.gi[last + BUF_ENTRY.page], PM.inbuf] = 0
        n = N_CAND - 1
    if s.gi[GI.bufhead + t] + n >= BUF_CAP:  # the window reached the end: back to entry 0
        src = _buf_at(s, t, 0)
        dst = GI.buf + BUF_W * t * BUF_CAP
        for k in range(BUF_W * n):
            s.gi[dst + k] = s.gi[src + k]
        s.gi[GI.bufhead + t] = 0
    base = _buf_at(s, t, 0)
    # binary search: the first candidate that ranks above p
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        e = base + BUF_W * mid
        if _less(key, tb, s.gi[e + BUF_ENTRY.key], s.gi[e + BUF_ENTRY.tb]):
            hi = mid
        else:
            lo = mid + 1
    e = base + BUF_W * lo
    k = base + BUF_W * n - 1
    while k >= e:
        s.gi[k + BUF_W] = s.gi[k]
        k -= 1
    s.gi[e + BUF_ENTRY.page] = p
    s.gi[e + BUF_ENTRY.key] = key
    s.gi[e + BUF_ENTRY.word] = w
    s.gi[e + BUF_ENTRY.tb] = tb
    s.gi[GI.buflen + t] = n + 1
    s.pm[p, PM.inbuf] = 1
    return True


@cast_kernel
def buf_pop(s, t):  # type: ignore[no-untyped-def]
    """Drop the lowest candidate."""
    n = s.gi[GI.buflen + t]
    if n <= 0:
        return
    s.pm[s.gi[_buf_at(s, t, 0) + BUF_ENTRY.page], PM.inbuf] = 0
    s.gi[GI.buflen + t] = n - 1
    if n == 1:
        s.gi[GI.bufhead + t] = 0
    else:
        s.gi[GI.bufhead + t] += 1


@cast_kernel
def _buf_below(gi, t):  # type: ignore[no-untyped-def]
    """Candidates whose key is at or below the last pass's quantile (the keys are sorted)."""
    if gi[GI.qvalid + t] == 0:
        return 0
    base = GI.buf + BUF_W * (t * BUF_CAP + gi[GI.bufhead + t])
    q = gi[GI.q + t]
    lo = 0
    hi = gi[GI.buflen + t]
    while lo < hi:
        mid = (lo + hi) >> 1
        if gi[base + BUF_W * mid + BUF_ENTRY.key] <= q:
            lo = mid + 1
        else:
            hi = mid
    return lo


@cast_kernel
def _select(s, col, n, k):  # type: ignore[no-untyped-def]
    """The k-th smallest of ``s.pm[0:n, col]`` (0-based), reordering them in place (Hoare)."""
    lo = 0
    hi = n - 1
    while lo < hi:
        pivot = s.pm[(lo + hi) // 2, col]
        i = lo
        j = hi
        while i <= j:
            while s.pm[i, col] < pivot:
                i += 1
            while s.pm[j, col] > pivot:
                j -= 1
            if i <= j:
                tmp = s.pm[i, col]
                s.pm[i, col] = s.pm[j, col]
                s.pm[j, col] = tmp
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return s.pm[k, col]


@cast_kernel
def _end_pass(s, t):  # type: ignore[no-untyped-def]
    """The cursor wrapped: the pass's 1/16 quantile becomes the threshold."""
    k = s.gi[GI.passn + t]
    if k > 0:
        s.gi[GI.q + t] = _select(s, PM.passk + t, k, k // QUANTILE_DIV)
        s.gi[GI.qvalid + t] = 1
    s.gi[GI.passn + t] = 0
    s.gi[GI.passes + t] += 1


@cast_kernel
def _enough(s, t):  # type: ignore[no-untyped-def]
    """Keys below the quantile the sweep stops at: 32, or |M| / 32 when M is smaller."""
    e = s.gi[GI.msize + t] // (2 * QUANTILE_DIV)
    if e < 1:
        return 1
    return min(e, ENOUGH_MAX)


@cast_kernel
def sweep(s, t):  # type: ignore[no-untyped-def]
    """Sweep state words from the cursor, block by block, keeping the 128 lowest keys of M[t]."""
    n = s.pm.shape[0]
    bs = s.gi[GI.blksz]
    tag = _mytag(s, t)
    now = s.gi[GI.now]
    le = decay_level(s, t)
    enough = _enough(s, t)
    col = PM.passk + t
    s.gi[GI.sweeps] += 1
    fwords = 0
    keys = 0
    while s.gi[GI.budget + t] > 0:
        c = s.gi[GI.cursor + t]
        b = c // bs
        hi = min(c + bs, n)
        if s.gi[GI.bitmap + b] != 0:
            any_m = False
            for p in range(c, hi):
                if s.resident[p] != 0:
                    fwords += 1
                w = s.pm[p, PM.word]
                tg = word_tag(w)
                if tg == 0:
                    continue
                any_m = True
                if tg != tag or s.pm[p, PM.iso] != 0:
                    continue
                keys += 1
                key = key_fast(s.gf, w, now, le)
                k = s.gi[GI.passn + t]
                if k < n:
                    s.pm[k, col] = key
                    s.gi[GI.passn + t] = k + 1
                if s.pm[p, PM.inbuf] == 0:
                    seq = s.gi[GI.seq]
                    s.gi[GI.seq] = seq + 1
                    tb = rank_tb(w, p, seq)
                    if _buf_takes(s.gi, t, key, tb) and buf_insert(s, t, p, key, w, tb):
                        s.gi[GI.found] += 1
            s.gi[GI.words] += hi - c
            s.gi[GI.visited] += hi - c
            if not any_m:
                s.gi[GI.bitmap + b] = 0
        s.gi[GI.frames] += hi - c
        s.gi[GI.budget + t] -= hi - c
        if hi >= n:
            s.gi[GI.cursor + t] = 0
            _end_pass(s, t)
        else:
            s.gi[GI.cursor + t] = hi
        if s.gi[GI.qvalid + t] != 0 and _buf_below(s.gi, t) >= enough:
            break
    _charge_sweep(s, fwords, keys)


@cast_kernel
def _charge_sweep(s, fwords, keys):  # type: ignore[no-untyped-def]
    """The sweep's CPU (costs.sweep_cost_ns) to the reclaimer, in whole ns of the running sum."""
    s.gi[GI.fwords] += fwords
    s.gi[GI.keys] += keys
    before = s.gf[GF.sweep_ns]
    s.gf[GF.sweep_ns] = before + sweep_cost_ns(s, fwords, keys)
    s.work[WORK_CPU_NS] += int(round(s.gf[GF.sweep_ns])) - int(round(before))


@cast_kernel
def m_lowest(s, t):  # type: ignore[no-untyped-def]
    """M's lowest page of type ``t``, checked (not yet taken), or -1; sweeps when needed."""
    cg = s.gi[GI.cg]
    while True:
        n = s.gi[GI.buflen + t]
        need = n == 0 or (
            s.gi[GI.qvalid + t] != 0 and s.gi[_buf_at(s, t, 0) + BUF_ENTRY.key] > s.gi[GI.q + t]
        )
        if need and s.gi[GI.budget + t] > 0 and s.gi[GI.msize + t] > 0:
            sweep(s, t)
            n = s.gi[GI.buflen + t]
        if n == 0:
            return -1
        e = _buf_at(s, t, 0)
        p = s.gi[e + BUF_ENTRY.page]
        ok = (
            s.resident[p] != 0
            and s.cgroup_of[p] == cg
            and s.pm[p, PM.iso] == 0
            and s.pm[p, PM.word] == s.gi[e + BUF_ENTRY.word]
        )
        if ok and not check_young(s, p):
            return p
        buf_pop(s, t)
        s.gi[GI.stale] += 1
