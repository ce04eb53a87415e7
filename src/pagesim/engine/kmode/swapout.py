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
    SWAP_DEV,
    F,
    N,
)


@kernel
def _swap_out_ns(fw, out):  # type: ignore[no-untyped-def]
    """What writing one anon page to swap costs the reclaimer.

    With kcompressd (``N.kc_depth`` > 0; kcompressd-unofficial, CAST's ``kcompressd``) kswapd
    hands the page to a per-node thread, a FIFO server that compresses and writes one page in
    the time the reclaimer would have, and goes on (enqueueing costs nothing here); with the
    queue full, kswapd first processes the oldest queued page itself (so it pays one page's
    time and the queue keeps its length). Direct reclaim writes its pages itself. The page
    counts as freed at once: at most ``depth`` pages are held by the queue.
    """
    ns = _write_ns(fw, SWAP_DEV, 1)
    depth = fw.node[N.kc_depth]
    if depth <= 0 or fw.node[N.reclaimer] != RECLAIM_KSWAPD or ns <= 0.0:
        return ns
    t0 = fw.f[F.batch_t0]
    queued = math.ceil((fw.f[F.kc_busy] - t0) / ns) if fw.f[F.kc_busy] > t0 else 0
    if queued >= depth:
        return ns
    fw.f[F.kc_busy] = max(fw.f[F.kc_busy], t0) + ns
    fw.f[F.kc_ns] += ns
    out[C.KCOMPRESSD] += 1
    return 0.0


@kernel
def _release_swap(fw, page):  # type: ignore[no-untyped-def]
    if fw.swapped[page] != 0:
        fw.swapped[page] = 0
        fw.node[N.swap_used] -= 1
        fw.node[N.zram_stored] -= 1
        fw.node[N.zram_units] -= fw.zram_cost[page]
        fw.zram_cg[fw.swap_cg[page]] -= fw.zram_cost[page]
        fw.swap_cg[page] = -1
