"""The one binary min-heap of pagesim: generic sifting, and an indexed heap over a policy's columns.

:func:`sift_up` and :func:`sift_down` are the heap's two moves over any storage: the caller gives
a context ``h`` (a tuple of arrays, a NamedTuple) and three compiled functions, ``load(h, slot)``
(the entry in a slot: a value, or a tuple of values), ``store(h, slot, entry)`` (write an entry
into a slot, and its position if the heap keeps one) and ``less(h, x, y)`` (entry ``x`` goes
before entry ``y``). Both are inlined into their caller (``kernel_inline``), and with them the
three functions, so a heap costs what hand-written sifting costs. Users: the indexed heap below
(Belady's OPT, LRFU), kernel mode's scheduler (``engine/kmode/scheduler.py``: actors by clock),
CAST's simulated caches (``policies/cast/sims.py``: lazy entries of M by key and tie rank)
and fixed-size SHARDS (``analysis/mrc/shards.py``: the tracked pages, the largest hash first).

The indexed heap lives in three 1-d arrays the policy owns (usually columns of ``State.pm`` /
``State.pf``), so it needs no allocation and runs compiled or as plain Python:

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

from pagesim.core.jit import kernel, kernel_inline


@kernel_inline
def sift_up(h, slot, less, load, store):  # type: ignore[no-untyped-def]
    """Move the entry in ``slot`` towards the root while it goes before its parent."""
    e = load(h, slot)
    while slot > 0:
        parent = (slot - 1) >> 1
        p = load(h, parent)
        if not less(h, e, p):
            break
        store(h, slot, p)
        slot = parent
    store(h, slot, e)


@kernel_inline
def sift_down(h, slot, n, less, load, store):  # type: ignore[no-untyped-def]
    """Move the entry in ``slot`` of a heap of ``n`` away from the root while a child goes
    before it (the right child when it goes before the left)."""
    e = load(h, slot)
    while True:
        child = 2 * slot + 1
        if child >= n:
            break
        c = load(h, child)
        right = child + 1
        if right < n:
            rc = load(h, right)
            if less(h, rc, c):
                child = right
                c = rc
        if not less(h, c, e):
            break
        store(h, slot, c)
        slot = child
    store(h, slot, e)


@kernel_inline
def _load(h, slot):  # type: ignore[no-untyped-def]
    return (h[0][slot], h[1][slot])


@kernel_inline
def _store(h, slot, e):  # type: ignore[no-untyped-def]
    h[0][slot] = e[0]
    h[1][slot] = e[1]
    h[2][e[0]] = slot


@kernel_inline
def _less(h, x, y):  # type: ignore[no-untyped-def]  # noqa: ARG001
    return x[1] < y[1]


@kernel
def _place(slot_page, slot_key, pos, slot, page, key):  # type: ignore[no-untyped-def]
    slot_page[slot] = page
    slot_key[slot] = key
    pos[page] = slot


@kernel
def heap_sift_up(slot_page, slot_key, pos, slot):  # type: ignore[no-untyped-def]
    """Move the page in ``slot`` towards the root while its key is below its parent's."""
    sift_up((slot_page, slot_key, pos), slot, _less, _load, _store)


@kernel
def heap_sift_down(slot_page, slot_key, pos, n, slot):  # type: ignore[no-untyped-def]
    """Move the page in ``slot`` away from the root while a child's key is below its own."""
    sift_down((slot_page, slot_key, pos), slot, n, _less, _load, _store)


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
