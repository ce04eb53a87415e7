"""CAST's core: the 32-bit state word, the clock of pressure, the key and the decay levels.

The state word (one per page frame; here one per page id, ``s.pm[page, PM.word]``), low bits first::

    bits  0- 7  read count n, saturating at 255 (0: taken in but never read, e.g. readahead)
    bits  8-11  owner tag: 0 = in no M (in W, or not resident); 1 + type + 2 * (lruvec % 7)
                for a page of M (type 0 anon, 1 file)
    bits 12-15  g1: the gap from the read before the last to the last, as a class c
    bits 16-19  g2: the gap before that, as a class
    bits 20-31  T: the clock tick of the last read, modulo 4096

A gap of g ticks has class ``c = 0`` for g = 0 and ``c = min(15, bit_length(g))`` otherwise, so
g lies in [2^(c-1), 2^c): known to within a factor of two, and read back as ``2^(c-1)`` (the
lower end of its class). g1 is meaningful once n >= 2, g2 once n >= 3.

The clock counts pages taken in, less those their owners free, and ticks every quarter of
memory (``max(1, memory // 4)`` pages): nothing ages while nothing comes in. Its tick, unwrapped
(an int64 that only grows), is ``now``; T holds its low 12 bits and the last read's tick is
``E = now - ((now - T) mod 4096)``. So that this stays right, every 512 ticks the words whose
last read is more than 2048 ticks old are clamped to 2048 (:func:`clamp_word`), and a shadow
entry keeps E whole.

Decay level ``le`` (1..14): the half-life is ``C * 2^(8 - le)`` pages taken in with ``C`` the
pages memory holds (le 1: 128 times memory, as the seed says), i.e. ``H = 2^(10 - le)`` ticks.

Score and key. A page's LRFU score at its last read is the sum over its reads of
``2^(-(E - t_i) / H)``; the word knows the last three reads (E, E - g1, E - g1 - g2) and the
count, and the reads before the third are taken to continue backwards at the mean of the two
known gaps (a geometric tail). With ``r1 = 2^(-g1/H)``, ``r2 = 2^(-g2/H)``, ``m = 2^(-(g1+g2)/(2H))``::

    S = 1 + [n>=2] r1 + [n>=3] r1 r2 (1 + m (1 - m^(n-3)) / (1 - m))     (the last sum is n - 3
                                                                            when m = 1)

so with no decay S = n (the read count alone). The key, in 1/16 half-life steps, is
``floor(16 (E / H + log2 S))``: because every unread page's score decays alike, the order of
keys is the order of current scores, and a key changes only when its page is read. A page
never read (n = 0) has the lowest key there is, :data:`KEY_UNREAD`.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numba

from pagesim.core.jit import JIT_OPTIONS

F = TypeVar("F")


def cast_kernel(func: F) -> F:
    """Compile ``func`` like :func:`pagesim.core.jit.kernel`, without numba's reference counting.

    CAST's functions allocate nothing and take arrays out of the state tuple on nearly every
    line; the runtime's atomic reference counts on them are pure cost (as for the engine's
    runners, :func:`pagesim.core.jit.runner`). The decisions do not depend on it.
    """
    opts: dict[str, Any] = dict(JIT_OPTIONS)
    return numba.njit(_nrt=False, **opts)(func)  # type: ignore[no-any-return]


# ---- the word's fields
COUNT_MASK = 0xFF
TAG_SHIFT = 8
TAG_MASK = 0xF
G1_SHIFT = 12
G2_SHIFT = 16
GAP_MASK = 0xF
T_SHIFT = 20
T_BITS = 12
T_MOD = 1 << T_BITS  #: 4096
T_MASK = T_MOD - 1
WORD_MASK = 0xFFFFFFFF
MAX_COUNT = 255
MAX_GAP_CLASS = 15
#: Ages beyond this are clamped to it (half the tick field's range).
MAX_AGE = T_MOD // 2
#: Every this many ticks the clamp runs over every word (well before any age reaches 4096).
CLAMP_EVERY = 512

MIN_DECAY = 1
MAX_DECAY = 14
#: 16 * E / H = E * 2^(le - KEY_SHIFT0): H = 2^(10 - le) ticks, 16 steps per half-life.
KEY_SHIFT0 = 6
#: The key of a page never read: below every key of a page read at least once.
KEY_UNREAD = -(1 << 62)

#: A shadow entry of CAST: marker bit, the last read's tick whole (bits 32-61), the word.
SHADOW_MARK = 1 << 62
SHADOW_E_MASK = (1 << 30) - 1


@cast_kernel
def pack(t, g1, g2, tag, n):  # type: ignore[no-untyped-def]
    """The word of tick ``t`` (mod 4096), gap classes ``g1``/``g2``, owner ``tag``, count ``n``."""
    return (
        ((t & T_MASK) << T_SHIFT)
        | ((g2 & GAP_MASK) << G2_SHIFT)
        | ((g1 & GAP_MASK) << G1_SHIFT)
        | ((tag & TAG_MASK) << TAG_SHIFT)
        | (n & COUNT_MASK)
    )


@cast_kernel
def word_count(w):  # type: ignore[no-untyped-def]
    """Read count (0..255)."""
    return w & COUNT_MASK


@cast_kernel
def word_tag(w):  # type: ignore[no-untyped-def]
    """Owner tag (0: in no M)."""
    return (w >> TAG_SHIFT) & TAG_MASK


@cast_kernel
def word_g1(w):  # type: ignore[no-untyped-def]
    """Class of the gap before the last read."""
    return (w >> G1_SHIFT) & GAP_MASK


@cast_kernel
def word_g2(w):  # type: ignore[no-untyped-def]
    """Class of the gap before that."""
    return (w >> G2_SHIFT) & GAP_MASK


@cast_kernel
def word_tick(w):  # type: ignore[no-untyped-def]
    """The last read's tick modulo 4096."""
    return (w >> T_SHIFT) & T_MASK


@cast_kernel
def with_tag(w, tag):  # type: ignore[no-untyped-def]
    """The word with its owner tag replaced (a plain store of the result is the write)."""
    return (w & (WORD_MASK ^ (TAG_MASK << TAG_SHIFT))) | ((tag & TAG_MASK) << TAG_SHIFT)


@cast_kernel
def gap_class(g):  # type: ignore[no-untyped-def]
    """0 for g <= 0, else min(15, bit_length(g)): g in [2^(c-1), 2^c)."""
    if g <= 0:
        return 0
    c = 0
    while g > 0 and c < MAX_GAP_CLASS:
        g >>= 1
        c += 1
    return c


@cast_kernel
def gap_ticks(c):  # type: ignore[no-untyped-def]
    """The gap a class stands for: 0, or 2^(c-1) ticks (the lower end, within a factor of two)."""
    if c <= 0:
        return 0.0
    return float(1 << (c - 1))


@cast_kernel
def last_read(w, now):  # type: ignore[no-untyped-def]
    """E: the last read's tick, unwrapped against the clock ``now``."""
    return now - ((now - word_tick(w)) & T_MASK)


@cast_kernel
def half_life_ticks(le):  # type: ignore[no-untyped-def]
    """H = 2^(10 - le) ticks (C * 2^(8 - le) pages with C = memory, a tick = memory / 4)."""
    return 2.0 ** (10 - le)


@cast_kernel
def score(w, le):  # type: ignore[no-untyped-def]
    """The LRFU score at the last read (module docstring); 0.0 for a page never read."""
    n = word_count(w)
    if n == 0:
        return 0.0
    h = half_life_ticks(le)
    s = 1.0
    if n >= 2:
        g1 = gap_ticks(word_g1(w))
        r1 = 2.0 ** (-g1 / h)
        s += r1
        if n >= 3:
            g2 = gap_ticks(word_g2(w))
            r12 = r1 * 2.0 ** (-g2 / h)
            tail = 1.0
            k = n - 3
            if k > 0:
                m = 2.0 ** (-(g1 + g2) / (2.0 * h))
                if m >= 1.0:
                    tail += k
                else:
                    tail += m * (1.0 - m**k) / (1.0 - m)
            s += r12 * tail
    return s


@cast_kernel
def key_of(w, now, le):  # type: ignore[no-untyped-def]
    """floor(16 (E / H + log2 S)): the rank of a page, in 1/16 half-life steps."""
    n = word_count(w)
    if n == 0:
        return KEY_UNREAD
    e = last_read(w, now)
    x = float(e) * 2.0 ** (le - KEY_SHIFT0) + 16.0 * math.log2(score(w, le))
    return int(math.floor(x + 1e-9))


@cast_kernel
def read_word(w, now):  # type: ignore[no-untyped-def]
    """The word after a read at tick ``now``: T = now, gaps shifted, count + 1 (saturating)."""
    n = word_count(w)
    tag = word_tag(w)
    if n == 0:
        return pack(now, word_g1(w), word_g2(w), tag, 1)
    g = (now - word_tick(w)) & T_MASK
    return pack(now, gap_class(g), word_g1(w), tag, min(n + 1, MAX_COUNT))


@cast_kernel
def new_word(now, n):  # type: ignore[no-untyped-def]
    """A newcomer's word: taken in at ``now``, ``n`` reads (1 for a fault, 0 for readahead)."""
    return pack(now, 0, 0, 0, n)


@cast_kernel
def clamp_word(w, now):  # type: ignore[no-untyped-def]
    """The word with its last read moved forward to at most MAX_AGE ticks before ``now``."""
    if (now - word_tick(w)) & T_MASK <= MAX_AGE:
        return w
    t = (now - MAX_AGE) & T_MASK
    return (w & (WORD_MASK ^ (T_MASK << T_SHIFT))) | (t << T_SHIFT)


@cast_kernel
def to_shadow(w, now):  # type: ignore[no-untyped-def]
    """The shadow entry of an evicted page: its word without the tag and its last read whole."""
    e = last_read(w, now)
    if e < 0:
        e = 0
    return SHADOW_MARK | ((e & SHADOW_E_MASK) << 32) | with_tag(w, 0)


@cast_kernel
def from_shadow(sh, now):  # type: ignore[no-untyped-def]
    """The word a shadow entry gives back at ``now`` (age clamped to MAX_AGE); 0 if none."""
    if (sh & SHADOW_MARK) == 0:
        return 0
    e = (sh >> 32) & SHADOW_E_MASK
    age = now - e
    if age > MAX_AGE:
        age = MAX_AGE
    if age < 0:
        age = 0
    w = sh & WORD_MASK
    return (w & (WORD_MASK ^ (T_MASK << T_SHIFT))) | (((now - age) & T_MASK) << T_SHIFT)


@cast_kernel
def frame_hash(p):  # type: ignore[no-untyped-def]
    """A 32-bit multiplicative (Fibonacci) hash of the page frame: the tie order of a loop."""
    return (p * 2654435761) & WORD_MASK


@cast_kernel
def rank_tb(w, p, seq):  # type: ignore[no-untyped-def]
    """Second rank of a page after its key (lower goes first).

    Read at most once: ``seq``, the order in which the sweep found it (a clock); read more than
    once: ``2^40 + hash(frame)``, so a loop's ties always go the same way. At an exact key tie
    a page read once therefore goes before a page read more often.
    """
    if word_count(w) <= 1:
        return seq
    return (1 << 40) | frame_hash(p)


#: ``rank_tb`` of a newcomer at W's tail read at most once: it wins every tie (read last).
TB_NEWCOMER = (1 << 40) - 1


# ---- the clock of pressure (globals are passed as the policy's gi and slot numbers)


@cast_kernel
def clock_quarter(memory):  # type: ignore[no-untyped-def]
    """Pages per tick: a quarter of what memory holds, at least 1."""
    q = memory // 4
    return q if q > 0 else 1
