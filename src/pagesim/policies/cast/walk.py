"""Young bits of mapped pages: the walker (once a tick), reclaim's check and its look-around.

In kernel mode a read of a mapped (anon) page only sets its young bit (``YOUNG`` in
``s.resident``); no hook runs. CAST learns of such reads three ways:

* the walker: once a tick, just before the clock ticks, it takes the young bits of this
  lruvec's mapped pages: each bit taken is cleared and a read recorded at the ending tick,
  unless the page's last read already is that tick: the seed's walker "takes no bit that would
  add nothing (a page already read this tick)", so such a bit is left set (parameter
  ``walker_leave``, default on; off, it is cleared with nothing recorded) and the next walk or
  reclaim's check takes it as a read at its own tick -- a fault's bit included, which the walker
  cannot tell from a later access's;
* reclaim: a candidate (M's lowest or W's tail) is checked against its page before it is taken,
  and a young bit found there counts as a read;
* the look-around: when reclaim finds a candidate young, the young bits of its neighbours are
  taken too: the 64 page ids centred on it, within its page table (MGLRU's
  ``lru_gen_look_around`` takes up to 64 PTEs of the PMD around the address), and the table
  goes into the Bloom filter the next walk reads (the seed's "rmap-fed bloom").

What the walker reads. The seed: it "reads every process's page tables for young bits -- a
whole table at once with AVX-512, AVX2 or SSE2 -- skips what cannot have been read (an mm no
CPU ran, a PMD whose accessed bit is clear, or failing that one reclaim's look-around did not
find young)". Here page ids stand for virtual addresses (dense ids in first-touch order): page
table ``b`` is page ids ``512b .. 512b + 511`` (``PMD_PAGES``), and a page's mm is the task that
took it in (``PM.mm``, set in ``added``; cleared when its owner frees it; an evicted page keeps
it: its PTE is a swap entry, still read). A walk goes table by table:

1. an mm no CPU ran (``walker_mm``): a page is read only if its task has run since the last
   walk (``s.mm_seq``: the engine stamps each task's last access, the model's
   ``lru_gen_use_mm``); a table none of whose pages' tasks ran is not reached
   (``walker_skip_mm``). Tables mix tasks' pages where their ids interleave (stress-vm's
   workers, 64 pages a slice), so a table of a running task reads only that task's pages;
2. the PMD accessed bit (``walker_pmd``): set when an anon page of the table is accessed
   (``s.pmd_seq``, stamped by the engine), cleared by a walk; a table whose bit is clear is
   skipped (``walker_skip_pmd``), one PMD entry read. A table where the walk left a young bit
   keeps its bit set, so that the next walk takes it, as ``walker_leave`` means (a walker that
   cleared it would leave the bit to reclaim instead);
3. the Bloom filter (``walker_bloom``): two filters of 2^15 bits, two hashes of the table's
   number each (MGLRU's ``get_item_key``/``test_bloom_filter``/``update_bloom_filter``). A walk
   reads one and builds the other from the tables it finds young (a bit taken or left); the
   look-around adds its table to the one the next walk reads. ``fallback`` (the default) is the
   seed's "or failing that": the filter is read only where there is no PMD accessed bit
   (``walker_pmd`` off); ``always`` reads it besides the bit, as MGLRU's ``walk_pmd_range``
   does; a walk after a new mm joined (or the first) reads no filter (MGLRU's ``force_scan``
   for an mm added since the last iteration). A real Bloom filter, so false positives: with
   ``k`` tables in it a table never added is read with probability about
   ``(1 - e^(-2k / 32768))^2`` (0.0037 % at k = 100, 0.35 % at k = 1,000; the 32,768-page node
   has 64 tables); no false negatives;
4. the PTEs of the table's running tasks' pages: each young one taken or left as above.

With the walker's costs set to 0 (no model time moves), the mm and PMD skips leave every
counter as the walker reading every mapped page id does: they skip only what cannot have been
read (tests/unit/test_cast_walker.py). The filter is not exact: a table accessed since the last
walk but not found young by it is skipped, its bits left to reclaim's check.

The walker's CPU is modelled (costs.walk_cost_ns: per PMD entry, per PTE, ``walker_simd`` a
cache line of 8 PTEs a step) and charged to the task whose page-in ends the tick
(``s.work[WORK_CPU_NS]``); the look-around's to the reclaimer. ``prefetch`` changes no cost.

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

from pagesim.core.bloom import bloom_keys
from pagesim.core.state import ANON, FLAG_MASK, PMD_PAGES, PMD_SHIFT, WORK_CPU_NS, WORK_RMAP, YOUNG
from pagesim.policies.cast.core import cast_kernel, last_read, read_word
from pagesim.policies.cast.costs import walk_cost_ns
from pagesim.policies.cast.layout import (
    ANON_T,
    BLOOM_WORDS,
    GF,
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
BLOOM_OFF = 0  #: walker_bloom "off": no filter
BLOOM_FALLBACK = 1  #: "fallback": the filter is read only where there is no PMD accessed bit (the seed)
BLOOM_ALWAYS = 2  #: "always": the filter is read besides the PMD accessed bit (MGLRU's walk_pmd_range)


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
def bloom_test(s, g, b):  # type: ignore[no-untyped-def]
    """test_bloom_filter: True if filter ``g`` holds both keys of table ``b``."""
    k0, k1 = bloom_keys(b)
    base = GI.bloom + g * BLOOM_WORDS
    return (s.gi[base + (k0 >> 5)] >> (k0 & 31)) & 1 != 0 and (s.gi[base + (k1 >> 5)] >> (k1 & 31)) & 1 != 0


@cast_kernel
def bloom_add(s, g, b):  # type: ignore[no-untyped-def]
    """update_bloom_filter: set both keys of table ``b`` in filter ``g``."""
    k0, k1 = bloom_keys(b)
    base = GI.bloom + g * BLOOM_WORDS
    s.gi[base + (k0 >> 5)] |= 1 << (k0 & 31)
    s.gi[base + (k1 >> 5)] |= 1 << (k1 & 31)


@cast_kernel
def note_mm(s, p, tag):  # type: ignore[no-untyped-def]
    """Anon page ``p`` mapped by task ``tag`` (kernel mode, ``added``): its mm joins the walker's
    list the first time (the next walk is forced, as MGLRU's for an mm added since its last)."""
    s.pm[p, PM.mm] = tag + 1
    if 0 <= tag < s.pm.shape[0] and s.pm[tag, PM.mmrow] == 0:
        s.pm[tag, PM.mmrow] = 1
        s.gi[GI.force] = 1


@cast_kernel
def _mm_ran(s, p, last):  # type: ignore[no-untyped-def]
    """True if ``p`` is mapped by one of this lruvec's mms, and a CPU ran that mm since ``last``
    (always, with walker_mm off or before the first walk); 0 not ours, 1 ours and ran, -1 ours
    and idle."""
    m = s.pm[p, PM.mm]
    if m == 0:
        return 0
    if s.gi[GI.wmm] == 0 or last < 0 or s.mm_seq[m - 1] >= last:
        return 1
    return -1


@cast_kernel
def _walk_table(s, b, lo, hi, last, now, leave):  # type: ignore[no-untyped-def]
    """Read the PTEs of table ``b`` = [lo, hi) of the mms that ran: (PTEs read, young found,
    taken). A young bit left set (a read that would add nothing) keeps the table's PMD accessed
    bit set for the next walk (``PM.pmdleft``, in the table's row)."""
    ptes = 0
    young = 0
    taken = 0
    for p in range(lo, hi):
        if _mm_ran(s, p, last) != 1:
            continue
        ptes += 1
        if s.resident[p] & YOUNG or s.pm[p, PM.sidx] >= SAMPLE_HELD:
            young += 1
            if take_young(s, p, now, leave):
                taken += 1
    s.pm[b, PM.pmdleft] = 1 if young > taken else 0
    return ptes, young, taken


@cast_kernel
def _pmd_young(s, b, last):  # type: ignore[no-untyped-def]
    """The PMD accessed bit of table ``b``: an anon page in it accessed since the last walk, or
    a young bit the last walk left in it (always, with walker_pmd off or before a first walk)."""
    if s.gi[GI.wpmd] == 0 or last < 0:
        return True
    return s.pmd_seq[b] >= last or s.pm[b, PM.pmdleft] != 0


@cast_kernel
def _table_ran(s, lo, hi, last):  # type: ignore[no-untyped-def]
    """Table [lo, hi) for this lruvec's walker: 0 no page of its mms maps here (no PMD entry of
    theirs), 1 a page's mm ran since ``last``, -1 its mms' pages only, none of whose ran."""
    ours = 0
    for p in range(lo, hi):
        r = _mm_ran(s, p, last)
        if r == 1:
            return 1
        ours -= r
    return -1 if ours > 0 else 0


@cast_kernel
def _bloom_clear(s, g):  # type: ignore[no-untyped-def]
    """Empty filter ``g`` (a walk builds it afresh)."""
    for i in range(BLOOM_WORDS):
        s.gi[GI.bloom + g * BLOOM_WORDS + i] = 0


@cast_kernel
def _filtered(s):  # type: ignore[no-untyped-def]
    """True if this walk reads the Bloom filter: ``always``, or ``fallback`` without PMD bits;
    not after a new mm joined, nor before a walk built the filter (MGLRU's force_scan)."""
    mode = s.gi[GI.wbloom]
    consult = mode == BLOOM_ALWAYS or (mode == BLOOM_FALLBACK and s.gi[GI.wpmd] == 0)
    return consult and s.gi[GI.force] == 0 and (s.gi[GI.bloomon] >> s.gi[GI.bloomg]) & 1 != 0


@cast_kernel
def walk(s):  # type: ignore[no-untyped-def]
    """The walker: take the young bits of this lruvec's mapped pages, skipping what cannot have
    been read (module docstring); returns the bits taken. Its CPU goes to ``s.work[WORK_CPU_NS]``."""
    now = s.gi[GI.now]
    last = s.gi[GI.wseq]
    leave = s.gi[GI.leave] != 0
    n = s.resident.shape[0]
    g = s.gi[GI.bloomg]
    use_bloom = s.gi[GI.wbloom] != BLOOM_OFF
    filtered = _filtered(s)
    if use_bloom:
        _bloom_clear(s, 1 - g)
    found = 0
    ptes = 0
    pmds = 0
    youngs = 0
    for b in range((n + PMD_PAGES - 1) >> PMD_SHIFT):
        lo = b << PMD_SHIFT
        hi = min(lo + PMD_PAGES, n)
        ran = _table_ran(s, lo, hi, last)
        if ran <= 0:
            s.gi[GI.skipmm] -= ran  # counted when its mms' pages are here but none ran
            continue
        pmds += 1
        if not _pmd_young(s, b, last):
            s.gi[GI.skippmd] += 1  # the PMD accessed bit is clear: nothing here was read
            continue
        if filtered and not bloom_test(s, g, b):
            s.gi[GI.skipbloom] += 1
            continue
        t_ptes, t_young, t_taken = _walk_table(s, b, lo, hi, last, now, leave)
        s.gi[GI.wtables] += 1
        ptes += t_ptes
        youngs += t_young
        found += t_taken
        if use_bloom and t_young > 0:
            bloom_add(s, 1 - g, b)  # found young: the next walk reads it
    if use_bloom:
        s.gi[GI.bloomon] |= 1 << (1 - g)
        s.gi[GI.bloomg] = 1 - g
    s.gi[GI.force] = 0
    s.gi[GI.wseq] = s.gi[GI.aseq]
    s.gi[GI.walks] += 1
    s.gi[GI.wptes] += ptes
    s.gi[GI.wpmds] += pmds
    s.gi[GI.young] += found
    ns = walk_cost_ns(s, ptes, pmds, youngs)
    s.gf[GF.walk_ns] += ns
    s.work[WORK_CPU_NS] += int(round(ns))
    return found


@cast_kernel
def look_around(s, p):  # type: ignore[no-untyped-def]
    """Reclaim found ``p`` young: take the young bits of the 64 pages around it (same table), and
    put the table in the Bloom filter the next walk reads (the seed's "rmap-fed bloom")."""
    now = s.gi[GI.now]
    n = s.resident.shape[0]
    table = (p >> PMD_SHIFT) << PMD_SHIFT
    lo = max(table, p - LOOK_AROUND // 2)
    hi = min(table + PMD_PAGES, lo + LOOK_AROUND, n)
    found = 0
    young = 1
    for q in range(lo, hi):
        if q != p and (s.resident[q] & YOUNG or s.pm[q, PM.sidx] >= SAMPLE_HELD):
            young += 1
            if take_young(s, q, now, False):
                found += 1
    s.gi[GI.look] += found
    s.gi[GI.lptes] += hi - lo
    if s.gi[GI.wbloom] != BLOOM_OFF:
        bloom_add(s, s.gi[GI.bloomg], p >> PMD_SHIFT)
    ns = walk_cost_ns(s, hi - lo, 0, young)
    s.gf[GF.look_ns] += ns
    s.work[WORK_CPU_NS] += int(round(ns))
    return found


@cast_kernel
def check_young(s, p):  # type: ignore[no-untyped-def]
    """Reclaim's check of a candidate: a young bit is a read (and a look-around). True if young.

    A mapped (anon) page of this lruvec is checked through the reverse map (shrink_folio_list's
    ``folio_referenced``), one ``WORK_RMAP`` as the legacy LRU's and MGLRU's checks."""
    if (s.resident[p] & ANON) != 0 and s.cgroup_of[p] == s.gi[GI.cg]:
        s.work[WORK_RMAP] += 1
    if take_young(s, p, s.gi[GI.now], False):
        s.gi[GI.look] += 1
        look_around(s, p)
        return True
    return False
