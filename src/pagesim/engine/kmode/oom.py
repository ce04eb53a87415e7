"""The OOM killer: the live task owning the most anonymous memory (:func:`_oom_victim`) and the
skipping of a killed task's remaining accesses (:func:`_kill_rest`).
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.engine import counters as C
from pagesim.engine.kmode.scheduler import _heap_remove


@kernel
def _oom_victim(fw):  # type: ignore[no-untyped-def]
    """The live task owning the most anonymous memory, or -1."""
    victim = -1
    most = 0
    for tag in range(fw.tag_anon.shape[0]):
        if fw.tag_dead[tag] == 0 and fw.tag_anon[tag] > most:
            most = fw.tag_anon[tag]
            victim = tag
    return victim


@kernel
def _kill_rest(fw, out, tag):  # type: ignore[no-untyped-def]
    """A killed task's accesses still to come are skipped; returns how many."""
    rest = fw.task_first[tag + 1] - fw.task_pos[tag]
    out[C.OOM_SKIPPED] += rest
    fw.task_pos[tag] = fw.task_first[tag + 1] - 1  # keeps _actor_row valid
    _heap_remove(fw, tag)
    return rest
