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
    G_ACC,
    G_DAUTO,
    G_FREED,
    G_HACC,
    G_IN,
    G_MEM,
    G_NOW,
    G_SAUTO,
    G_SFAULT,
    G_WALKER,
    WORD,
)
from pagesim.policies.cast.tune import tune_tick
from pagesim.policies.cast.walk import harvest_sample, walk

HARVESTS_PER_TICK = 16  #: the sample's young bits are taken this many times a tick


@cast_kernel
def _clamp_all(s):  # type: ignore[no-untyped-def]
    """Move every last read older than 2048 ticks forward to 2048 (the tick field wraps at 4096)."""
    now = s.gi[G_NOW]
    for p in range(s.pm.shape[0]):
        w = s.pm[p, WORD]
        if w != 0:
            s.pm[p, WORD] = clamp_word(w, now)


@cast_kernel
def clock_in(s):  # type: ignore[no-untyped-def]
    """A page taken in: count it; every quarter of memory the walker runs and the clock ticks."""
    s.gi[G_IN] += 1
    s.gi[G_ACC] += 1
    q = clock_quarter(s.gi[G_MEM])
    if (s.gi[G_DAUTO] != 0 or s.gi[G_SAUTO] != 0) and s.gi[G_SFAULT] == 0:
        s.gi[G_HACC] += 1
        if s.gi[G_HACC] >= max(1, q // HARVESTS_PER_TICK):
            s.gi[G_HACC] = 0
            harvest_sample(s)
    while s.gi[G_ACC] >= q:
        if s.gi[G_WALKER] != 0:
            walk(s)
        s.gi[G_ACC] -= q
        s.gi[G_NOW] += 1
        if s.gi[G_NOW] % CLAMP_EVERY == 0:
            _clamp_all(s)
        if s.gi[G_DAUTO] != 0 or s.gi[G_SAUTO] != 0:
            tune_tick(s)


@cast_kernel
def clock_free(s):  # type: ignore[no-untyped-def]
    """A page freed by its owner: taken off the intake (down to minus memory)."""
    s.gi[G_FREED] += 1
    s.gi[G_ACC] -= 1
    if s.gi[G_ACC] < -s.gi[G_MEM]:
        s.gi[G_ACC] = -s.gi[G_MEM]
