"""Lists of shadow entries: pages that left memory but that a policy still remembers.

Framework eviction lists hold resident pages only, so ARC's B1/B2, 2Q's A1out and S3-FIFO's
ghost queue keep their own intrusive doubly linked list over two of the policy's per-page
columns and a three-slot header among its globals:

``nxt``, ``prv`` : int64, shape (n_pages,)
    The next (older) and previous (newer) entry of each page; -1 at the ends and off the list.
``hdr`` : int64, shape (3,)
    ``[SH_HEAD, SH_TAIL, SH_LEN]``: the newest entry, the oldest, the number of entries.

The policy keeps its own membership flag (which list a page is on, if any). Pass column and
slice views, e.g. ``shadow_push(s.pm[:, NXT], s.pm[:, PRV], s.gi[G_B1:G_B1 + 3], page)``.
O(1) per operation.
"""

from __future__ import annotations

from pagesim.core.jit import kernel

SH_HEAD = 0
SH_TAIL = 1
SH_LEN = 2


@kernel
def shadow_push(nxt, prv, hdr, page):  # type: ignore[no-untyped-def]
    """Put ``page`` (on no shadow list) at the newest end of the list ``hdr``."""
    head = hdr[SH_HEAD]
    nxt[page] = head
    prv[page] = -1
    if head >= 0:
        prv[head] = page
    else:
        hdr[SH_TAIL] = page
    hdr[SH_HEAD] = page
    hdr[SH_LEN] += 1


@kernel
def shadow_unlink(nxt, prv, hdr, page):  # type: ignore[no-untyped-def]
    """Take ``page`` off the list ``hdr`` it is on."""
    n = nxt[page]
    p = prv[page]
    if p >= 0:
        nxt[p] = n
    else:
        hdr[SH_HEAD] = n
    if n >= 0:
        prv[n] = p
    else:
        hdr[SH_TAIL] = p
    nxt[page] = -1
    prv[page] = -1
    hdr[SH_LEN] -= 1
