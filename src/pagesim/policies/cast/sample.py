"""CAST's sample: which pages, their slots, their records of reads, and the fast key.

The sample (seed: "about 15,000 pages, chosen by block so that readahead runs stay whole").
Page ids are taken by blocks of 64: block ``b`` is sampled when the top 16 bits of its 32-bit
frame hash fall below ``rate * 65536``. The rule for the rate (a choice; the seed gives 15,000
pages on its 8 GB node of 2,097,152 pages): the simulated caches hold
``S = max(15,000 * memory / 2,097,152, min(2,048, memory))`` pages, so ``rate = S / memory``
(the seed's 1/140 at full size; 1/16 on the scaled 32,768-page node, where 15,000 * 1/64 = 234
pages would leave the tests too few disagreements to decide within a run; 1 on a node of at most
2,048 pages). Parameter ``sample_pages`` sets S. A sampled page gets a slot of its type when it is
first seen; at most 8,192 slots per type (pages seen after that are not sampled).

What the sample sees. Every read CAST itself sees of a sampled page: a fault (``added``; a page
read ahead is fed as read ahead, taken in unread), a read() (``accessed``), a young bit of a
sampled anon page's access, and a page freed by its owner (it leaves every simulated cache).
As the seed does, a sampled anon page is made PROT_NONE (the engine's ``PROT_NONE`` flag, set
when it is faulted in): every access to it is a hinting fault (``numa_hint_faults``, the
node's ``hint_fault_ns``) that calls ``accessed``, a read for the sample only; the young bit
the access sets stays the main cache's, for the walker and reclaim. ``sample_faults = False``
keeps a stand-in: the sampled pages' young bits harvested 16 times a tick (1/64
of memory taken in; reads between two harvests count as one), held for the walker and reclaim.
The tests decide once a tick and every 256 sample events.

The fault's young bit. The main cache counts a fault as two reads once the page is
still mapped a tick later: the fault, and its young bit, which the walker leaves in the fault's
tick and takes at the next (policy.py Choice 10; it cannot tell a fault's bit from an access's).
So that each sim is "the main cache in small", the sample counts it too: the fault's bit is left
unseen (no SAMPLE_PENDING), and when the walker or reclaim takes it the slot's record and every
sim holding the page get a read (:data:`REREAD`: no access, so no hit or miss, nothing comes in,
nothing placed in the curve). Counted once, a fault would leave a loop's pages (stress-vm writes
each page once a pass) with one read a pass in the sims against two in the main cache; pages
read once rank oldest first at every decay (key ``E * 2^(le - 6)``, ties by the order of joining
M), so the nine decay sims would make the same evictions and could not tell the decays apart.
"""

from __future__ import annotations

import math

from pagesim.core.state import LEN
from pagesim.policies.cast.core import (
    KEY_SHIFT0,
    KEY_UNREAD,
    MAX_DECAY,
    MIN_DECAY,
    cast_kernel,
    clamp_word,
    frame_hash,
    key_of,
    last_read,
    new_word,
    read_word,
    score,
    word_count,
)
from pagesim.policies.cast.layout import (
    GF,
    GI,
    PM,
    SLOT_MASK,
    SMAX,
    TYPE_ARRAYS,
    TYPE_SIZE,
)

#: The seed's node (8 GB of 4 KiB pages) and its sample.
SEED_MEMORY = 2_097_152
SEED_SAMPLE = 15_000
MIN_SAMPLE = 2_048
SAMPLE_BLOCK = 64  #: pages per sampling block (readahead runs stay whole)


READ = 1
PREFETCH = 0


#: A read the main cache records with no access behind it: a sampled anon page's fault's young
#: bit, taken by the walker a tick later or by reclaim's check (module docstring).
REREAD = 2


#: A sample slot's record (``TYPE_ARRAYS.last + x``): bits 0..19 the slot's stamp in the order of last
#: reads (0: not in the order), bits 20.. its word (every read of it, whether or not any cache
#: held it: its history; a page read ahead before its first read has count 0).
STAMP_MASK = (1 << 20) - 1
REC_SHIFT = 20
WORD_MASK = (1 << 32) - 1


#: Set in a slot's record while the real cache holds the page read ahead and not read since.
REC_RA = 1 << 62


@cast_kernel
def key_fast(gf, w, now, le):  # type: ignore[no-untyped-def]
    """:func:`~pagesim.policies.cast.core.key_of`, the same integer, with ``16 log2(score)``
    read from a table in ``gf`` (the state's ``s.gf``, filled on first use): the score depends
    only on the decay level, the count and the two gap classes, and a page read once has score 1
    (log 0). Takes ``gf`` alone, not the state: it is called for every word the sweep reads."""
    n = word_count(w)
    if n == 0:
        return KEY_UNREAD
    if n == 1:
        lg = 0.0  # 16 log2(1.0)
    elif MIN_DECAY <= le <= MAX_DECAY:
        i = GF.keytab + (((le - MIN_DECAY) * 256 + n) << 8) + ((w >> 12) & 0xFF)
        lg = gf[i]
        if lg == 0.0:
            lg = 16.0 * math.log2(score(w, le))
            gf[i] = lg
    else:
        return key_of(w, now, le)
    e = last_read(w, now)
    x = float(e) * 2.0 ** (le - KEY_SHIFT0) + lg
    return int(math.floor(x + 1e-9))


@cast_kernel
def type_pages(s, t):  # type: ignore[no-untyped-def]
    """Pages of type ``t`` on this lruvec's lists (W and M)."""
    return s.lhd[s.gi[GI.list + t], LEN] + s.gi[GI.msize + t]


@cast_kernel
def sample_rate(memory, sample_pages):  # type: ignore[no-untyped-def]
    """The sample's share of page ids, /65536 (module docstring's rule)."""
    if sample_pages > 0:
        target = sample_pages
    else:
        target = max((SEED_SAMPLE * memory) // SEED_MEMORY, min(MIN_SAMPLE, memory))
    if memory <= 0 or target >= memory:
        return 65536
    return max(1, (65536 * target) // memory)


@cast_kernel
def choose_sample(s):  # type: ignore[no-untyped-def]
    """Mark the sampled page ids (by block of 64) in ``pm[:, PM.sidx]``: -2 sampled, -1 not."""
    rate = s.gi[GI.rate]
    n = s.pm.shape[0]
    for p in range(n):
        b = p // SAMPLE_BLOCK
        s.pm[p, PM.sidx] = -2 if ((frame_hash(b) >> 16) & 0xFFFF) < rate else -1


@cast_kernel
def _slot(s, p, t):  # type: ignore[no-untyped-def]
    """Page ``p``'s sample slot of type ``t``, given out on first sight; -1 if not sampled."""
    x = s.pm[p, PM.sidx]
    if x >= 0:
        return x & SLOT_MASK
    if x == -1:
        return x
    k = s.gi[GI.nsamp + t]
    if k >= SMAX:
        s.pm[p, PM.sidx] = -1
        return -1
    s.gi[GI.nsamp + t] = k + 1
    s.gi[GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.page + k] = p
    s.pm[p, PM.sidx] = k
    return k


@cast_kernel
def _page_of(gi, gf, t, x):  # type: ignore[no-untyped-def]
    return gi[GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.page + x]


@cast_kernel
def _last(gi, gf, t, x):  # type: ignore[no-untyped-def]
    """Slot ``x``'s stamp in the order of last reads (0: not in it)."""
    return gi[GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.last + x] & STAMP_MASK


@cast_kernel
def _set_last(gi, gf, t, x, v):  # type: ignore[no-untyped-def]
    i = GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.last + x
    gi[i] = gi[i] - (gi[i] & STAMP_MASK) + v


@cast_kernel
def sample_word(gi, gf, t, x):  # type: ignore[no-untyped-def]
    """Slot ``x``'s recorded word: all its reads so far (0: never seen)."""
    return (gi[GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.last + x] >> REC_SHIFT) & WORD_MASK


@cast_kernel
def _note_word(gi, gf, t, x, kind):  # type: ignore[no-untyped-def]
    """Record a read (1) or a read ahead (0) of slot ``x`` in its word (a read ahead changes
    only a word not yet made: count 0)."""
    i = GI.typebig + t * TYPE_SIZE + TYPE_ARRAYS.last + x
    e = gi[i]
    w = (e >> REC_SHIFT) & WORD_MASK
    now = gi[GI.now]
    st = e & STAMP_MASK
    if kind == READ:
        w = new_word(now, 1) if w == 0 else read_word(clamp_word(w, now), now)
    elif w == 0:
        w = new_word(now, 0)
    gi[i] = (w << REC_SHIFT) | st | (e & REC_RA)
