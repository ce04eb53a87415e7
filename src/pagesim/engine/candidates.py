"""What both loops do with a policy's eviction candidates and with a page that leaves memory.

Cache mode (:mod:`pagesim.engine.loop`) and kernel mode (:mod:`pagesim.engine.kmode`) check a
policy's proposals by one rule, cache_ext's (spec §2.4): at most ``MAX_CANDIDATES`` per call
(more aborts the attempt: one refused proposal); each must be a page id in range, not proposed
earlier in the same call, resident, and of the cgroup asked; the others are counted by reason
(``rej_*``) and skipped. A page that leaves memory is unlinked from its eviction list and loses
its residency and owner here too; the ``removed`` hook and each mode's own accounting stay with
the mode.
"""

from __future__ import annotations

from pagesim.core.jit import inlined_copy, kernel, kernel_inline
from pagesim.core.lists import list_unlink_unchecked
from pagesim.core.state import A_CGROUP, A_PAGE, A_REASON, A_SIZE, A_TIME, LIST, MAX_CANDIDATES
from pagesim.engine import counters as C


@kernel
def proposed_before(cand, i, c):  # type: ignore[no-untyped-def]
    """True if candidate ``c`` also stands at an earlier position than ``i`` (at most 32)."""
    for j in range(i):
        if cand[j] == c:
            return True
    return False


@kernel
def collect_candidates(s, out, cg, n, multi_cgroup, victims):  # type: ignore[no-untyped-def]
    """Check the ``n`` proposals in ``s.cand``; copy the valid ones to ``victims``, in order.

    Parameters
    ----------
    s : State
        The asking cgroup's state (``cand``, ``resident``, ``cgroup_of``, ``lst``).
    out : int64, shape (N_COUNTERS,)
        Counters: ``proposed``, ``rejected`` and the ``rej_*`` reasons are added to.
    cg : int
        The cgroup whose pages were asked for.
    n : int
        What ``evict`` returned (may be negative or above ``MAX_CANDIDATES``).
    multi_cgroup : bool
        False when one cgroup owns every page (``cgroup_of`` is then not read).
    victims : int64, shape (>= MAX_CANDIDATES,)
        Receives the valid candidates.

    Returns
    -------
    int
        How many valid candidates ``victims`` holds.
    """
    n_pages = s.lst.shape[0]
    if n > MAX_CANDIDATES:
        # cache_ext aborts the attempt: one refused proposal, whatever count was returned
        out[C.REJ_OVERFLOW] += 1
        out[C.REJECTED] += 1
        out[C.PROPOSED] += 1
        return 0
    if n > 0:
        out[C.PROPOSED] += n
    valid = 0
    for i in range(max(n, 0)):
        c = s.cand[i]
        if c < 0 or c >= n_pages:
            out[C.REJ_OUT_OF_RANGE] += 1
            out[C.REJECTED] += 1
        elif proposed_before(s.cand, i, c):
            out[C.REJ_DUPLICATE] += 1
            out[C.REJECTED] += 1
        elif s.resident[c] == 0:
            out[C.REJ_NOT_RESIDENT] += 1
            out[C.REJECTED] += 1
        elif multi_cgroup and s.cgroup_of[c] != cg:
            out[C.REJ_FOREIGN] += 1
            out[C.REJECTED] += 1
        else:
            victims[valid] = c
            valid += 1
    return valid


#: :func:`collect_candidates` inlined into its caller: cache mode's loop checks candidates on every
#: miss, where a call would pass the ``State`` by value each time; kernel mode calls the original.
collect_candidates_inline = inlined_copy(collect_candidates)


@kernel_inline
def removal_event(r, t, page, cg, size, reason):  # type: ignore[no-untyped-def]
    """Fill the ``removed`` hook's event array ``r`` for ``page`` leaving at access ``t``."""
    r[A_TIME] = t
    r[A_PAGE] = page
    r[A_CGROUP] = cg
    r[A_SIZE] = size
    r[A_REASON] = reason


@kernel_inline
def release_page(s, page, multi_cgroup):  # type: ignore[no-untyped-def]
    """``page`` leaves memory: off its eviction list (if on one), not resident, no owner."""
    if s.lst[page, LIST] >= 0:
        list_unlink_unchecked(s, page)
    s.resident[page] = 0
    if multi_cgroup:
        s.cgroup_of[page] = -1
