"""An indexed binary min-heap over columns of a policy's arrays, for score-ordered policies.

Belady's OPT (largest next use first, stored negated) and LRFU (smallest key first) keep their
resident pages in one. The heap lives in three 1-d arrays the policy owns (usually columns of
``State.pm`` / ``State.pf``), so it needs no allocation and runs compiled or as plain Python:

``slot_page`` : int64, shape (n_pages,)
    The page held in each heap slot (slot 0 is the root); -1 beyond the size.
``slot_key`` : int64 or float64, shape (n_pages,)
    That page's key, kept beside it so that a comparison reads one slot, not the page's row.
``pos`` : int64, shape (n_pages,)
    The slot of each page, -1 if it is not in the heap.

The size ``n`` is the caller's (a global slot): every function takes it and those that change it
return the new size. Complexity: O(log n) per push, update and removal; O(1) to read the root.
Ties keep the order in which sifting leaves them (no stability promise).
"""

from __future__ import annotations

from pagesim.core.jit import kernel


@kernel
def _place(slot_page, slot_key, pos, slot, page, key):  # type: ignore[no-untyped-def]
    slot_page[slot] = page
    slot_key[slot] = key
    pos[page] = slot


@kernel
def heap_sift_up(slot_page, slot_key, pos, slot):  # type: ignore[no-untyped-def]
    """Move the page in ``slot`` towards the root while its key is below its parent's."""
    page = slot_page[slot]
    key = slot_key[slot]
    while slot > 0:
        parent = (slot - 1) >> 1
        pk = slot_key[parent]
        if pk <= key:
            break
        _place(slot_page, slot_key, pos, slot, slot_page[parent], pk)
        slot = parent
    _place(slot_page, slot_key, pos, slot, page, key)


@kernel
def heap_sift_down(slot_page, slot_key, pos, n, slot):  # type: ignore[no-untyped-def]
    """Move the page in ``slot`` away from the root while a child's key is below its own."""
    page = slot_page[slot]
    key = slot_key[slot]
    while True:
        child = 2 * slot + 1
        if child >= n:
            break
        ck = slot_key[child]
        right = child + 1
        if right < n:
            rk = slot_key[right]
            if rk < ck:
                child = right
                ck = rk
        if ck >= key:
            break
        _place(slot_page, slot_key, pos, slot, slot_page[child], ck)
        slot = child
    _place(slot_page, slot_key, pos, slot, page, key)


@kernel
def heap_push(slot_page, slot_key, pos, n, page, key):  # type: ignore[no-untyped-def]
    """Insert ``page`` with ``key`` into a heap of ``n`` pages; return the new size ``n + 1``."""
    _place(slot_page, slot_key, pos, n, page, key)
    heap_sift_up(slot_page, slot_key, pos, n)
    return n + 1


@kernel
def heap_update(slot_page, slot_key, pos, n, page, key):  # type: ignore[no-untyped-def]
    """Change ``page``'s key and restore the order; a page not in the heap is left alone."""
    slot = pos[page]
    if slot < 0:
        return
    old = slot_key[slot]
    slot_key[slot] = key
    if key < old:
        heap_sift_up(slot_page, slot_key, pos, slot)
    else:
        heap_sift_down(slot_page, slot_key, pos, n, slot)


@kernel
def heap_remove(slot_page, slot_key, pos, n, page):  # type: ignore[no-untyped-def]
    """Take ``page`` out of a heap of ``n`` pages; return the new size (``n`` if it was absent)."""
    slot = pos[page]
    if slot < 0:
        return n
    n -= 1
    pos[page] = -1
    if slot != n:
        last = slot_page[n]
        _place(slot_page, slot_key, pos, slot, last, slot_key[n])
        slot_page[n] = -1
        heap_sift_up(slot_page, slot_key, pos, slot)
        heap_sift_down(slot_page, slot_key, pos, n, pos[last])
    else:
        slot_page[n] = -1
    return n


@kernel
def heap_clear(slot_page, pos):  # type: ignore[no-untyped-def]
    """Empty every slot and position (the caller sets its size to 0)."""
    for i in range(slot_page.shape[0]):
        slot_page[i] = -1
    for i in range(pos.shape[0]):
        pos[i] = -1
