"""CAST's W and M (seed: "W and M"): which page goes next, of which type.

:func:`take` gives the next page of a type: while W is over its share, or M is empty, W's tail
meets M's lowest and the lower goes (the winner from W joins M); otherwise M's lowest.
:func:`_choose` picks the type by the press (weights ``sw * pages(anon)`` and ``(200 - sw) *
pages(file)``, kept exact over time by credits); :func:`_putback` returns candidates proposed
and not evicted. The rules are in :mod:`.policy`'s docstring.
"""

from __future__ import annotations

import math

from pagesim.core.lists import list_add_tail, list_del
from pagesim.core.state import (
    LEN,
    MAX_CANDIDATES,
    TAIL,
)
from pagesim.policies.cast.core import (
    KEY_SHIFT0,
    KEY_UNREAD,
    TB_NEWCOMER,
    cast_kernel,
    frame_hash,
    with_tag,
    word_count,
    word_tag,
)
from pagesim.policies.cast.costs import MAX_SWAPPINESS, node_swappiness, pressure_swappiness
from pagesim.policies.cast.layout import (
    ANON_T,
    BUF_ENTRY,
    FILE_T,
    GF,
    GI,
    PM,
)
from pagesim.policies.cast.lruvec import _less, _mytag, _type_of, _w_len
from pagesim.policies.cast.mrc import SPLIT_SCORES
from pagesim.policies.cast.sample import key_fast
from pagesim.policies.cast.sweep import _buf_at, buf_pop, m_lowest
from pagesim.policies.cast.tune import decay_level, w_share
from pagesim.policies.cast.walk import check_young


@cast_kernel
def _join_m(s, t, p):  # type: ignore[no-untyped-def]
    """Page ``p`` (off every list) joins M of type ``t``."""
    s.pm[p, PM.word] = with_tag(s.pm[p, PM.word], _mytag(s, t))
    s.gi[GI.msize + t] += 1
    s.gi[GI.bitmap + p // s.gi[GI.blksz]] = 1


@cast_kernel
def _isolate(s, p):  # type: ignore[no-untyped-def]
    s.pm[p, PM.iso] = 1
    k = s.gi[GI.niso]
    if k < MAX_CANDIDATES:
        s.gi[GI.iso + k] = p
        s.gi[GI.niso] = k + 1


@cast_kernel
def _w_tail_rank(s, p):  # type: ignore[no-untyped-def]
    w = s.pm[p, PM.word]
    if word_count(w) <= 1:
        return TB_NEWCOMER
    return (1 << 40) | frame_hash(p)


@cast_kernel
def take(s, t):  # type: ignore[no-untyped-def]
    """The next page of type ``t`` to go (W's tail vs M's lowest), isolated; -1 if none."""
    lid = s.gi[GI.list + t]
    wl = s.lhd[lid, LEN]
    ml = s.gi[GI.msize + t]
    if wl == 0 and ml == 0:
        return -1
    # W's excess beyond what this call frees joins M unopposed (M filling up: Choice 9).
    excess = wl - (w_share(s, t) * (wl + ml)) // 1000
    while excess > s.gi[GI.slack]:
        wt = s.lhd[lid, TAIL]
        list_del(s, wt)
        _join_m(s, t, wt)
        excess -= 1
    wl = s.lhd[lid, LEN]
    ml = s.gi[GI.msize + t]
    over = wl > 0 and 1000 * wl > w_share(s, t) * (wl + ml)
    if over or ml == 0:
        wt = s.lhd[lid, TAIL]
        check_young(s, wt)
        m = m_lowest(s, t) if ml > 0 else -1
        if m >= 0:
            wk = key_fast(s.gf, s.pm[wt, PM.word], s.gi[GI.now], decay_level(s, t))
            e = _buf_at(s, t, 0)
            if not _less(wk, _w_tail_rank(s, wt), s.gi[e + BUF_ENTRY.key], s.gi[e + BUF_ENTRY.tb]):
                buf_pop(s, t)  # M's lowest goes; W's tail joins M
                s.gi[GI.taken] += 1
                list_del(s, wt)
                _join_m(s, t, wt)
                s.gi[GI.wwin] += 1
                _isolate(s, m)
                return m
        list_del(s, wt)
        s.gi[GI.wlost] += 1
        _isolate(s, wt)
        return wt
    m = m_lowest(s, t)
    if m >= 0:
        buf_pop(s, t)
        s.gi[GI.taken] += 1
        _isolate(s, m)
        return m
    if wl > 0:
        wt = s.lhd[lid, TAIL]
        list_del(s, wt)
        s.gi[GI.wlost] += 1
        _isolate(s, wt)
        return wt
    return -1


@cast_kernel
def _putback(s):  # type: ignore[no-untyped-def]
    """Pages the last call proposed that are still here: W's back to its tail, in order."""
    for i in range(s.gi[GI.niso] - 1, -1, -1):
        p = s.gi[GI.iso + i]
        if s.pm[p, PM.iso] != 0:
            s.pm[p, PM.iso] = 0
            if word_tag(s.pm[p, PM.word]) == 0 and s.resident[p] != 0:
                list_add_tail(s, s.gi[GI.list + _type_of(s, p)], p)
    s.gi[GI.niso] = 0


@cast_kernel
def _choose(s, can_anon, can_file):  # type: ignore[no-untyped-def]
    """The type the next page comes from: both pressed by ``sw`` in proportion to their pages."""
    if not can_anon:
        return FILE_T
    if not can_file:
        return ANON_T
    node = node_swappiness(s)
    if node <= 1:
        return FILE_T
    if node >= MAX_SWAPPINESS:
        return ANON_T
    if s.gi[GI.sauto] == SPLIT_SCORES:
        return ANON_T if _next_score(s, ANON_T) < _next_score(s, FILE_T) else FILE_T
    sw = pressure_swappiness(s)
    s.gi[GI.press] = sw
    wa = float(sw * (_w_len(s, ANON_T) + s.gi[GI.msize + ANON_T]))
    wf = float((MAX_SWAPPINESS - sw) * (_w_len(s, FILE_T) + s.gi[GI.msize + FILE_T]))
    tot = wa + wf
    if tot <= 0.0:
        return FILE_T
    s.gf[GF.credit + ANON_T] += wa / tot
    s.gf[GF.credit + FILE_T] += wf / tot
    t = ANON_T if s.gf[GF.credit + ANON_T] > s.gf[GF.credit + FILE_T] else FILE_T
    s.gf[GF.credit + t] -= 1.0
    return t


@cast_kernel
def _next_score(s, t):  # type: ignore[no-untyped-def]
    """``16 log2`` of the current score of the page :func:`take` would give next of type ``t``
    (``split_mode=scores``): the lower of W's tail and M's lowest while W is over its share or M
    is empty, else M's lowest; ``inf`` when the type has no page. A key is ``16 (E/H + log2 S)``,
    so the score now is the key less ``16 now / H`` of the type's own decay: two types' scores
    compare where their keys, at different half-lives, would not. W's excess that :func:`take`
    first moves to M unopposed is not moved here (its tail stands for W)."""
    lid = s.gi[GI.list + t]
    wl = s.lhd[lid, LEN]
    ml = s.gi[GI.msize + t]
    if wl == 0 and ml == 0:
        return math.inf
    le = decay_level(s, t)
    best = math.inf
    if wl > 0 and (ml == 0 or 1000 * wl > w_share(s, t) * (wl + ml)):
        best = float(key_fast(s.gf, s.pm[s.lhd[lid, TAIL], PM.word], s.gi[GI.now], le))
    if ml > 0 and m_lowest(s, t) >= 0:
        best = min(best, float(s.gi[_buf_at(s, t, 0) + BUF_ENTRY.key]))
    elif best == math.inf and wl > 0:
        best = float(key_fast(s.gf, s.pm[s.lhd[lid, TAIL], PM.word], s.gi[GI.now], le))
    if best <= float(KEY_UNREAD):
        return best
    return best - float(s.gi[GI.now]) * 2.0 ** (le - KEY_SHIFT0)
