"""The typed state a policy works on: eviction lists, per-page metadata, globals, candidates.

A policy in pagesim is, as in cache_ext (Zussman et al., SOSP 2025, §4), a set of hooks over
framework-managed eviction lists plus its own typed arrays (eBPF maps in the original). Every hook
receives the same two arguments:

``s`` : :class:`State`
    The policy's state (below). Hooks read and write it; the framework owns ``lst``/``lhd``
    through the list functions of :mod:`pagesim.core.lists` and ``resident``/``cgroup_of``.
``a`` : numpy.ndarray of int64, shape (ACC_LEN,)
    The event being handled. Index it with the ``A_*`` constants below.

State fields
------------
lst : int32, shape (n_pages, 3)
    One list node per page: ``[NEXT, PREV, LIST]``; ``-1`` means none. A page is in at most one
    eviction list at a time (cache_ext §2.3: the node is owned by the folio's registry entry).
lhd : int64, shape (n_list_slots, 4)
    Per list: ``[HEAD, TAIL, LEN, OWNER]``; ``OWNER`` is the cgroup that created it, ``-1`` free.
    Heads are where ``list_add`` inserts; iteration runs head to tail.
pm : int64, shape (n_pages, n_int_fields)
    Per-page integer metadata, columns named by the policy.
pf : float64, shape (n_pages, n_float_fields)
    Per-page floating-point metadata.
gi : int64, shape (n_int_globals,)
    Policy globals (list ids, counters, parameters). Slots below ``GI_USER`` are reserved.
gf : float64, shape (n_float_globals,)
    Policy float globals and parameters.
cand : int64, shape (MAX_CANDIDATES,)
    Candidates proposed by ``evict``; the hook returns how many it wrote.
scores : int64, shape (MAX_SAMPLE,)
    Scratch for batch scoring (:func:`pagesim.core.lists.list_sample`).
sample : int64, shape (MAX_SAMPLE,)
    Scratch: pages detached by batch scoring.
resident : uint8, shape (n_pages,)
    Non-zero while the page is in memory (bit ``RESIDENT``); bit ``REFERENCED`` is the default
    policy's reference bit, set on every hit. Read-only for policies: test ``!= 0``.
cgroup_of : int32, shape (n_pages,)
    Owning cgroup of each resident page (the one that faulted it in); 0 for every page when
    the run has one cgroup. Read-only for policies.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# ---- event array layout (``a``) -------------------------------------------------------------
A_TIME = 0  #: index of the access in the trace (0-based)
A_PAGE = 1  #: dense page id the event is about
A_KIND = 2  #: 0 file, 1 anon
A_OP = 3  #: 0 read, 1 write, 2 free
A_CGROUP = 4  #: cgroup of the access (for ``removed``: the page's owner)
A_TAG = 5  #: thread / pid / role tag of the access
A_SIZE = 6  #: size of the page or object, in capacity units (1 in page mode, bytes otherwise)
A_NEXT = 7  #: index of the next access to this page; ``NEVER`` if none; -1 if unknown
A_REQUEST = 8  #: for ``evict``: how many pages the framework wants freed
A_CAPACITY = 9  #: capacity of the caller's cgroup, in capacity units
A_USED = 10  #: units in use in the caller's cgroup
A_REASON = 11  #: for ``removed``: REASON_POLICY, REASON_FALLBACK or REASON_FREED
A_N_PAGES = 12  #: number of distinct pages in the trace
A_HIT = 13  #: 1 if the current access hit
ACC_LEN = 16

#: Bits of ``State.resident``.
RESIDENT = 1
REFERENCED = 2

REASON_POLICY = 0
REASON_FALLBACK = 1
REASON_FREED = 2

NEVER = np.iinfo(np.int64).max

# ---- list node and list header layout --------------------------------------------------------
NEXT = 0
PREV = 1
LIST = 2
HEAD = 0
TAIL = 1
LEN = 2
OWNER = 3

#: cache_ext allows at most 5 lists per cgroup (cache_ext_ds registry, spec §1.5).
MAX_LISTS_PER_CGROUP = 5
#: At most 32 candidates per ``evict`` call (cache_ext eviction context).
MAX_CANDIDATES = 32
#: ``list_iterate`` visits at most 4097 nodes per call (cache_ext spec §2.6).
MAX_ITERATE = 4097
#: ``list_sample`` detaches at most 2048 nodes (request * sample size).
MAX_SAMPLE = 2048

#: Global slots below this are reserved for the framework; policies use ``gi[GI_USER:]``.
GI_USER = 4


class State(NamedTuple):
    """A policy's typed state; see the module docstring for every field's shape and meaning."""

    lst: np.ndarray
    lhd: np.ndarray
    pm: np.ndarray
    pf: np.ndarray
    gi: np.ndarray
    gf: np.ndarray
    cand: np.ndarray
    scores: np.ndarray
    sample: np.ndarray
    resident: np.ndarray
    cgroup_of: np.ndarray


def make_state(
    n_pages: int,
    n_cgroups: int = 1,
    n_int_fields: int = 1,
    n_float_fields: int = 1,
    n_int_globals: int = 16,
    n_float_globals: int = 16,
) -> State:
    """Allocate a zeroed :class:`State` with every list empty.

    Parameters
    ----------
    n_pages : int
        Distinct pages in the trace (dense ids ``0..n_pages-1``); must be >= 0.
    n_cgroups : int
        Number of cgroups; each may create ``MAX_LISTS_PER_CGROUP`` lists.
    n_int_fields, n_float_fields : int
        Columns of per-page metadata (at least one of each is allocated).
    n_int_globals, n_float_globals : int
        Global slots; ``n_int_globals`` is raised to at least ``GI_USER + 1``.

    Returns
    -------
    State

    Raises
    ------
    ValueError
        If a count is negative.
    """
    if min(n_pages, n_cgroups, n_int_fields, n_float_fields, n_int_globals, n_float_globals) < 0:
        raise ValueError("state sizes must be non-negative")
    n = max(n_pages, 1)
    if n_pages >= 2**31 - 1:
        raise ValueError(f"at most 2**31 - 2 pages are supported, got {n_pages}")
    lst = np.full((n, 3), -1, dtype=np.int32)
    lhd = np.full((max(n_cgroups, 1) * MAX_LISTS_PER_CGROUP, 4), -1, dtype=np.int64)
    lhd[:, LEN] = 0
    return State(
        lst=lst,
        lhd=lhd,
        pm=np.zeros((n, max(n_int_fields, 1)), dtype=np.int64),
        pf=np.zeros((n, max(n_float_fields, 1)), dtype=np.float64),
        gi=np.zeros(max(n_int_globals, GI_USER + 1), dtype=np.int64),
        gf=np.zeros(max(n_float_globals, 1), dtype=np.float64),
        cand=np.full(MAX_CANDIDATES, -1, dtype=np.int64),
        scores=np.zeros(MAX_SAMPLE, dtype=np.int64),
        sample=np.full(MAX_SAMPLE, -1, dtype=np.int64),
        resident=np.zeros(n, dtype=np.uint8),
        cgroup_of=np.full(n, -1 if n_cgroups > 1 else 0, dtype=np.int32),
    )


def state_sharing_lists(
    base: State,
    n_int_fields: int = 1,
    n_float_fields: int = 1,
    n_int_globals: int = 16,
    n_float_globals: int = 16,
) -> State:
    """A State for another cgroup's policy: its own metadata and globals, ``base``'s lists.

    The list nodes and headers, the residency flags, the owners and the candidate and sampling
    scratch arrays are the same objects as in ``base`` (one node per page, whoever owns it, as
    cache_ext's registry); ``pm``, ``pf``, ``gi`` and ``gf`` are fresh zeroed arrays.
    """
    n = base.lst.shape[0]
    return base._replace(
        pm=np.zeros((n, max(n_int_fields, 1)), dtype=np.int64),
        pf=np.zeros((n, max(n_float_fields, 1)), dtype=np.float64),
        gi=np.zeros(max(n_int_globals, GI_USER + 1), dtype=np.int64),
        gf=np.zeros(max(n_float_globals, 1), dtype=np.float64),
    )
