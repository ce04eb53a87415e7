"""Switching a cgroup's policy during a cache-mode run (the ``auto`` policy's switch).

Kernel mode's switch (:mod:`pagesim.engine.switch`, ``KernelRun._switch``) without the node:
between two accesses, every resident page of cgroup ``cg``, in :func:`switch_order` (pages on
no list first, then each list from tail to head), goes to the old policy's ``removed`` with
``REASON_FREED`` (it leaves without a shadow entry and stays in the cache); the old lists are
given back (:func:`release_lists`); the new policy's ``init`` runs on a fresh state sharing the
lists, then its ``added`` for each page in the same order, so the old policy's newest pages are
the new one's newest. The pages come with no history (no refault flag, no uses), as a file
page read once: cache mode has no ``PG_referenced`` for the handover to carry. Residency,
owners and the cgroup's usage are the framework's and do not change, so no page is lost or
duplicated and the capacity holds. No counter moves (a handover is no request).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.state import (
    A_CAPACITY,
    A_CGROUP,
    A_MEMORY,
    A_MODE,
    A_PAGE,
    A_REASON,
    A_SIZE,
    A_TIME,
    A_USED,
    MODE_CACHE,
    REASON_FREED,
    state_sharing_lists,
)
from pagesim.engine.build import interpreted, interpreted_runner, runner_for
from pagesim.engine.loop import (
    CFG_HAS_ADMIT,
    CFG_HAS_NEXT,
    CFG_PREFETCH_PM,
)
from pagesim.engine.switch import release_lists, switch_order
from pagesim.policies.base import Policy

#: cfg slots that follow the policy classes (the rest belong to the trace and the loop's progress).
_POLICY_SLOTS = (CFG_HAS_ADMIT, CFG_HAS_NEXT, CFG_PREFETCH_PM)


def _hook(run: Any, cls: type[Policy], name: str) -> Any:
    hook = getattr(cls, name)
    return interpreted(hook) if run.mode == "interpreted" else hook


def _event(run: Any, cg: int, a: np.ndarray) -> None:
    """Fields a hook reads besides the page, as the cache loop sets them."""
    fw = run.framework
    a[A_MODE] = MODE_CACHE
    a[A_CGROUP] = cg
    a[A_TIME] = run.done
    a[A_SIZE] = 1
    a[A_CAPACITY] = fw.cap[cg]
    a[A_USED] = fw.used[cg]
    a[A_MEMORY] = fw.cap[cg]


def switch_cache(run: Any, cg: int, new: Policy) -> int:
    """Hand cgroup ``cg``'s resident pages from the policy it runs to ``new`` (cache mode).

    Parameters
    ----------
    run : pagesim.engine.simulate.Run
        A run in pages between two calls of its loop; ``run.classes[cg]`` is the policy running.
    cg : int
        The cgroup.
    new : Policy
        A fresh instance (configured here on a fresh state).

    Returns
    -------
    int
        Pages handed over.

    Raises
    ------
    ValueError
        If the new policy needs next-access times the run does not have.
    RuntimeError
        If the new policy's ``init`` returns non-zero.
    """
    if type(new).needs_next_access and run.nxt.shape[0] == 0:
        raise ValueError(f"{new.policy_name()} needs next-access times: it cannot be switched to here")
    old_cls, old_state = run.classes[cg], run.states[cg]
    st = state_sharing_lists(run.states[0], **new.state_shape())
    new.configure(st, int(run.framework.cap[cg]))
    pages = switch_order(old_state, cg)
    a, r = run.a, run.r
    _event(run, cg, r)
    r[A_REASON] = REASON_FREED
    removed = _hook(run, old_cls, "removed")
    for p in pages:
        r[A_PAGE] = p
        removed(old_state, r)
    release_lists(old_state, cg, pages)
    _event(run, cg, a)
    code = int(_hook(run, type(new), "init")(st, a))
    if code != 0:
        raise RuntimeError(f"{new.label()}: init returned {code} at a switch")
    added = _hook(run, type(new), "added")
    for p in pages:
        a[A_PAGE] = p
        added(st, a)
    run.states = tuple(st if k == cg else s for k, s in enumerate(run.states))
    run.state = run.states[0]
    run.classes = tuple(type(new) if k == cg else c for k, c in enumerate(run.classes))
    fresh = run._fresh_cfg()
    for slot in _POLICY_SLOTS:
        run.cfg[slot] = fresh[slot]
    make = interpreted_runner if run.mode == "interpreted" else runner_for
    run._run = make(run.classes, "cache")
    return int(pages.size)
