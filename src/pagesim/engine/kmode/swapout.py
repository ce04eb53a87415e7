"""Swap-out of anon pages and kcompressd: what writing one page to swap costs the reclaimer
(:func:`_swap_out_ns`) and the release of a page's swap slot (:func:`_release_swap`).
"""

from __future__ import annotations

import math

from pagesim.core.jit import kernel
from pagesim.core.state import RECLAIM_KSWAPD
from pagesim.engine import counters as C
from pagesim.engine.kmode.devices import _write_ns
from pagesim.engine.kmode.framework import (
    F_BATCH_T0,
    F_KC_BUSY,
    F_KC_NS,
    N_KC_DEPTH,
    N_RECLAIMER,
    N_SWAP_USED,
    N_ZRAM_STORED,
    N_ZRAM_UNITS,
    SWAP_DEV,
)


@kernel
def _swap_out_ns(fw, out):  # type: ignore[no-untyped-def]
    """What writing one anon page to swap costs the reclaimer.

    With kcompressd (``N_KC_DEPTH`` > 0; kcompressd-unofficial, CAST's ``kcompressd``) kswapd
    hands the page to a per-node thread, a FIFO server that compresses and writes one page in
    the time the reclaimer would have, and goes on (enqueueing costs nothing here); with the
    queue full, kswapd first processes the oldest queued page itself (so it pays one page's
    time and the queue keeps its length). Direct reclaim writes its pages itself. The page
    counts as freed at once: at most ``depth`` pages are held by the queue.
    """
    ns = _write_ns(fw, SWAP_DEV, 1)
    depth = fw.node[N_KC_DEPTH]
    if depth <= 0 or fw.node[N_RECLAIMER] != RECLAIM_KSWAPD or ns <= 0.0:
        return ns
    t0 = fw.f[F_BATCH_T0]
    queued = math.ceil((fw.f[F_KC_BUSY] - t0) / ns) if fw.f[F_KC_BUSY] > t0 else 0
    if queued >= depth:
        return ns
    fw.f[F_KC_BUSY] = max(fw.f[F_KC_BUSY], t0) + ns
    fw.f[F_KC_NS] += ns
    out[C.KCOMPRESSD] += 1
    return 0.0


@kernel
def _release_swap(fw, page):  # type: ignore[no-untyped-def]
    if fw.swapped[page] != 0:
        fw.swapped[page] = 0
        fw.node[N_SWAP_USED] -= 1
        fw.node[N_ZRAM_STORED] -= 1
        fw.node[N_ZRAM_UNITS] -= fw.zram_cost[page]
        fw.zram_cg[fw.swap_cg[page]] -= fw.zram_cost[page]
        fw.swap_cg[page] = -1
