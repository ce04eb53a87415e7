"""Young bits of mapped pages: the walker (once a tick), reclaim's check and its look-around.

In kernel mode a read of a mapped (anon) page only sets its young bit (``YOUNG`` in
``s.resident``); no hook runs. CAST learns of such reads three ways:

* the walker: once a tick, just before the clock ticks, every resident anon page of this lruvec
  with its young bit set has the bit cleared and a read recorded at the ending tick, unless its
  last read already is that tick: the seed's walker "takes no bit that would add nothing (a page
  already read this tick)", so such a bit is left set (parameter ``walker_leave``, default on;
  off, it is cleared with nothing recorded) and the next walk or reclaim's check takes it as a
  read at its own tick -- a fault's bit included, which the walker cannot tell from a later
  access's. The kernel walks page tables and skips what cannot have been read (an mm no CPU
  ran, a PMD whose accessed bit is clear, the Bloom filter); here every page id is looked at;
* reclaim: a candidate (M's lowest or W's tail) is checked against its page before it is taken,
  and a young bit found there counts as a read;
* the look-around: when reclaim finds a candidate young, the young bits of its neighbours are
  taken too: the 64 page ids centred on it, within its aligned block of 512 (one page table;
  MGLRU's ``lru_gen_look_around`` takes up to 64 PTEs of the PMD around the address). Page ids
  stand for virtual addresses here (dense ids in first-touch order).

The sample (sample.py). The seed makes sampled mapped pages PROT_NONE so that every read of them
faults and is seen; so does CAST here (``sample_faults``, the default: each access a hinting
fault that feeds the sample, sample.py). A young bit an access of a sampled page leaves is marked
as seen by the sample (SAMPLE_PENDING) and is the main cache's. Its fault's bit is not:
when the walker or reclaim takes it as a read of the main cache, the sample gets the same
read (sample.py ``REREAD``: no access, so no hit or miss in the sims), as the main cache counts a
fault twice once the page is still mapped a tick later (policy.py Choice 10).
With ``sample_faults = False`` the sampled anon pages' young bits are harvested 16 times a tick
instead (every 1/64 of memory taken in, :func:`harvest_sample`), besides the walker and reclaim:
each young bit of a sampled page found is one read for the controllers (for the state word,
reads within one tick still count once); reads between two harvests count as one.

Program text is not walked in the kernel; kernel mode has no mapped file pages, so the walker
reads anon pages only.
"""

from __future__ import annotations

from pagesim.core.state import ANON, FLAG_MASK, YOUNG
from pagesim.policies.cast.core import cast_kernel, last_read, read_word
from pagesim.policies.cast.layout import (
    ANON_T,
    GI,
    PM,
    SAMPLE_HELD,
    SAMPLE_PENDING,
    SLOT_MASK,
    TYPE_ARRAYS,
    TYPE_SIZE,
)
from pagesim.policies.cast.sample import READ, REREAD
from pagesim.policies.cast.tune import tune_feed

LOOK_AROUND = 64  #: PTEs the look-around reads around a young candidate
PTE_TABLE = 512  #: PTEs per page table (the look-around stays within one)


@cast_kernel
def take_young(s, p, now, leave):  # type: ignore[no-untyped-def]
    """If ``p`` is a resident anon page of this lruvec with its young bit set (or held by the
    sample's harvest): clear it and record a read at ``now`` (unless its last read is ``now``).
    With ``leave`` (the walker), a bit whose read would add nothing (last read ``now``) is not
    taken: it stays set. Returns True if the bit was taken."""
    v = s.resident[p]
    if (v & ANON) == 0 or s.cgroup_of[p] != s.gi[GI.cg]:
        return False
    sx = s.pm[p, PM.sidx]
    held = sx >= 0 and (sx & SAMPLE_HELD) != 0
    if (v & YOUNG) == 0 and not held:
        return False
    w = s.pm[p, PM.word]
    if w == 0:  # being taken in: not on W or M yet
        return False
    if leave and (w & 0xFF) != 0 and last_read(w, now) == now:
        return False
    s.resident[p] = v & (FLAG_MASK ^ YOUNG)
    if sx >= 0:
        if (v & YOUNG) != 0 and (sx & SAMPLE_PENDING) == 0:
            # with the sample's faults, a bit the sample has not seen is its fault's (sample.py)
            tune_feed(s, p, ANON_T, REREAD if s.gi[GI.sfault] != 0 else READ)
        s.pm[p, PM.sidx] = sx & SLOT_MASK
    if last_read(w, now) != now or (w & 0xFF) == 0:
        s.pm[p, PM.word] = read_word(w, now)
    return True


@cast_kernel
def harvest_sample(s):  # type: ignore[no-untyped-def]
    """The sampled anon pages' young bits, taken 16 times a tick (PROT_NONE's stand-in): each
    one set is a read for the controllers; it is held (``SAMPLE_HELD``) for the walker and
    reclaim, so the main cache sees the page as it would without the harvest."""
    base = GI.typebig + ANON_T * TYPE_SIZE
    cg = s.gi[GI.cg]
    for x in range(s.gi[GI.nsamp + ANON_T]):
        p = s.gi[base + TYPE_ARRAYS.page + x]
        v = s.resident[p]
        if (v & YOUNG) == 0 or (v & ANON) == 0 or s.cgroup_of[p] != cg or s.pm[p, PM.word] == 0:
            continue
        sx = s.pm[p, PM.sidx]
        if sx < 0:
            continue
        s.resident[p] = v & (FLAG_MASK ^ YOUNG)
        if (sx & SAMPLE_PENDING) == 0:
            tune_feed(s, p, ANON_T, READ)
        s.pm[p, PM.sidx] = (sx & SLOT_MASK) | SAMPLE_HELD


@cast_kernel
def walk(s):  # type: ignore[no-untyped-def]
    """The walker: take every young bit of this lruvec's resident anon pages; returns how many."""
    now = s.gi[GI.now]
    found = 0
    for p in range(s.resident.shape[0]):
        if s.resident[p] & YOUNG or s.pm[p, PM.sidx] >= SAMPLE_HELD:
            if take_young(s, p, now, s.gi[GI.leave] != 0):
                found += 1
    s.gi[GI.young] += found
    return found


@cast_kernel
def look_around(s, p):  # type: ignore[no-untyped-def]
    """Reclaim found ``p`` young: take the young bits of the 64 pages around it (same table)."""
    now = s.gi[GI.now]
    n = s.resident.shape[0]
    table = (p // PTE_TABLE) * PTE_TABLE
    lo = max(table, p - LOOK_AROUND // 2)
    hi = min(table + PTE_TABLE, lo + LOOK_AROUND, n)
    found = 0
    for q in range(lo, hi):
        if q != p and (s.resident[q] & YOUNG or s.pm[q, PM.sidx] >= SAMPLE_HELD):
            if take_young(s, q, now, False):
                found += 1
    s.gi[GI.look] += found
    return found


@cast_kernel
def check_young(s, p):  # type: ignore[no-untyped-def]
    """Reclaim's check of a candidate: a young bit is a read (and a look-around). True if young."""
    if take_young(s, p, s.gi[GI.now], False):
        s.gi[GI.look] += 1
        look_around(s, p)
        return True
    return False
