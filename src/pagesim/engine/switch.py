"""Switching a cgroup's policy during a kernel-mode run: the pages pass from one to the other.

Source: the CAST seed's ``enabled`` knob ("switch CAST off and on at run time ... Each switch
passes through the legacy LRU's lists, as MGLRU's own switch always has. The shadow entries one
leaves are taken by the other as no history"), and MGLRU's own switch (mm/vmscan.c
``lru_gen_change_state``: ``fill_evictable`` / ``drain_evictable`` move every folio between the
generations and the active/inactive lists, one lruvec at a time, the folios staying in memory).

Here a switch of cgroup ``cg`` from policy P to policy Q, between two accesses:

1. every resident page of ``cg`` is handed, in :func:`switch_order`, to P's ``removed`` with
   ``REASON_FREED`` (it leaves P without a shadow entry; it stays in memory);
2. the pages are unlinked from P's lists and the lists given back (:func:`release_lists`); a
   ``PROT_NONE`` hint P set on a page is cleared;
3. Q's ``init`` runs on a fresh state, then Q's ``added`` for each page in the same order, as a
   page taken in unread with no history (no refault, no wait), then ``accessed``
   :func:`handover_uses` times: a file page once, as every page on the legacy lists has been
   used since it came in; a page P keeps on no list (CAST's M) twice more, which the legacy LRU
   takes as ``folio_activate``: the seed's M "is the stock active list" and W "the stock
   inactive list", and MGLRU's ``drain_evictable`` likewise sets PG_active on the folios of its
   young generations before ``lruvec_add_folio``. These uses are no events: Q's vmstat counters
   (``pgactivate``) are as before the handover. Were M on the inactive list, oldest of all,
   the legacy LRU's first reclaim would take CAST's protected pages first.

The order: pages P keeps on no framework list first (CAST's M), in page-id order, then each of
P's lists (in list-id order) from its tail (oldest) to its head, so a list's newest pages end
newest in Q. Shadow entries already left by P's evictions stay in ``s.shadow`` and the engine's
refault marks; Q reads them as it reads any shadow (CAST's come back as newcomers, Choice 6).
"""

from __future__ import annotations

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.lists import list_unlink_unchecked
from pagesim.core.state import HEAD, LIST, OWNER, PREV, TAIL


def handover_uses(anon: bool, active: bool) -> int:
    """Uses (``accessed`` calls) the new policy sees for a page after its ``added`` at a switch.

    Parameters
    ----------
    anon : bool
        The page is anonymous (its uses show as young bits, not as ``folio_mark_accessed``).
    active : bool
        The old policy kept it on no list (CAST's M, the seed's "stock active list").

    Returns
    -------
    int
        1 for a file page (used since it came in: PG_referenced on the legacy LRU), and 2 more
        for an active one (the legacy LRU's second use activates: active list, PG_active).
    """
    return (0 if anon else 1) + (2 if active else 0)


@kernel
def switch_order(s, cg):  # type: ignore[no-untyped-def]
    """Resident pages of cgroup ``cg`` in the order a switch hands them over.

    Parameters
    ----------
    s : State
        Any cgroup's state (the lists and residency arrays are shared).
    cg : int
        The cgroup whose policy is being switched.

    Returns
    -------
    numpy.ndarray
        int64 (k,) page ids: those on no list (page-id order), then each list of ``cg`` from
        tail to head, lists in id order, then any other page of ``cg``
        (on a list it does not own); every resident page of ``cg`` exactly once.
    """
    n = s.resident.shape[0]
    out = np.empty(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.uint8)
    k = 0
    for p in range(n):
        if s.resident[p] != 0 and s.cgroup_of[p] == cg and s.lst[p, LIST] < 0:
            out[k] = p
            seen[p] = 1
            k += 1
    for lid in range(s.lhd.shape[0]):
        if s.lhd[lid, OWNER] != cg:
            continue
        p = s.lhd[lid, TAIL]
        while p >= 0:
            if s.resident[p] != 0 and s.cgroup_of[p] == cg and seen[p] == 0:
                out[k] = p
                seen[p] = 1
                k += 1
            p = s.lst[p, PREV]
    for p in range(n):  # on a list of another owner: still this cgroup's page
        if s.resident[p] != 0 and s.cgroup_of[p] == cg and seen[p] == 0:
            out[k] = p
            k += 1
    return out[:k]


@kernel
def release_lists(s, cg, pages):  # type: ignore[no-untyped-def]
    """Unlink ``pages`` and whatever else is on the lists of ``cg``; free those lists.

    Parameters
    ----------
    s : State
        Any cgroup's state (the lists are shared).
    cg : int
        The cgroup whose lists are given back (``list_create`` may hand them out again).
    pages : numpy.ndarray
        int64 (k,) page ids, as :func:`switch_order` returned them.

    Returns
    -------
    int
        Pages unlinked.
    """
    unlinked = 0
    for i in range(pages.shape[0]):
        if s.lst[pages[i], LIST] >= 0:
            list_unlink_unchecked(s, pages[i])
            unlinked += 1
    for lid in range(s.lhd.shape[0]):
        if s.lhd[lid, OWNER] != cg:
            continue
        while s.lhd[lid, HEAD] >= 0:
            list_unlink_unchecked(s, s.lhd[lid, HEAD])
            unlinked += 1
        s.lhd[lid, OWNER] = -1
    return unlinked
