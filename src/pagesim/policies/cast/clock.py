"""CAST's clock of pressure (seed: "The clock of pressure"): pages taken in and freed.

Every quarter of memory taken in (:func:`~pagesim.policies.cast.core.clock_quarter`) the walker
(when on) runs and the clock ticks; every ``CLAMP_EVERY`` ticks every word's last read older than 2048
ticks is moved forward to 2048 (the tick field wraps at 4096; :mod:`.policy` Choice 1); with the
controllers on, each tick also runs :func:`~pagesim.policies.cast.tune.tune_tick`, and without
the sample's faults the sampled pages' young bits are harvested ``HARVESTS_PER_TICK`` times a
tick. A page freed by its owner is taken off the intake, down to minus memory.
"""

from __future__ import annotations

from pagesim.policies.cast.core import (
    CLAMP_EVERY,
    cast_kernel,
    clamp_word,
    clock_quarter,
)
from pagesim.policies.cast.layout import (
    GI,
    PM,
)
from pagesim.policies.cast.tune import tune_tick
from pagesim.policies.cast.walk import harvest_sample, walk

HARVESTS_PER_TICK = 16  #: the sample's young bits are taken this many times a tick


@cast_kernel
def _clamp_all(s):  # type: ignore[no-untyped-def]
    """Move every last read older than 2048 ticks forward to 2048 (the tick field wraps at 4096)."""
    now = s.gi[GI.now]
    for p in range(s.pm.shape[0]):
        w = s.pm[p, PM.word]
        if w != 0:
            s.pm[p, PM.word] = clamp_word(w, now)


@cast_kernel
def clock_in(s):  # type: ignore[no-untyped-def]
    """A page taken in: count it; every quarter of memory the walker runs and the clock ticks."""
    s.gi[GI.taken_in] += 1
    s.gi[GI.acc] += 1
    q = clock_quarter(s.gi[GI.mem])
    if (s.gi[GI.dauto] != 0 or s.gi[GI.sauto] != 0) and s.gi[GI.sfault] == 0:
        s.gi[GI.hacc] += 1
        if s.gi[GI.hacc] >= max(1, q // HARVESTS_PER_TICK):
            s.gi[GI.hacc] = 0
            harvest_sample(s)
    while s.gi[GI.acc] >= q:
        if s.gi[GI.walker] != 0:
            walk(s)
        s.gi[GI.acc] -= q
        s.gi[GI.now] += 1
        if s.gi[GI.now] % CLAMP_EVERY == 0:
            _clamp_all(s)
        if s.gi[GI.dauto] != 0 or s.gi[GI.sauto] != 0:
            tune_tick(s)


@cast_kernel
def clock_free(s):  # type: ignore[no-untyped-def]
    """A page freed by its owner: taken off the intake (down to minus memory)."""
    s.gi[GI.freed] += 1
    s.gi[GI.acc] -= 1
    if s.gi[GI.acc] < -s.gi[GI.mem]:
        s.gi[GI.acc] = -s.gi[GI.mem]
