"""CAST's controllers: the sample, its simulated caches, the miss-ratio curves, the costs, the press.

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

The simulated caches (per type, 11): each is the main cache in small -- W a FIFO of newcomers (a
ring of lazy entries), M the rest ranked by the real :func:`~pagesim.policies.cast.core.key_of`
in a heap of lazy entries (an entry is live while its slot is in M with the word it was pushed
with), ties by :func:`~pagesim.policies.cast.core.rank_tb` (read once: the order of joining M, a
clock; read more: the frame hash) and W's newcomer winning a tie; W's tail meets M's lowest
while W is over its share, W's excess beyond one page joins M unopposed (Choice 9 with a slack
of one page). Their capacity is the type's pages on the real lists now times the rate
(:func:`sim_capacity`, at every event: sized by the pages at the last tick, the sims would be
far smaller than the main cache while memory fills, and evict what it keeps). Words use the
real clock's tick, so H is the same in pages taken in. With ``history`` on (the default,
policy.py Choice 6) a page that comes into a sim gets back its history, the
sample's record of its word (every read of it so far), as a refault in the main cache gets back
its shadow's word; a page read ahead comes in unread, a newcomer at W's head as in the main
cache, with its history if it has one (kept out, its read would be a miss in every sim whatever
W's share: W's sims would never see W keep a window until it is read, and on file loops the
share would fall to 0, after which windows are evicted unread). Sims 0..8 rank
at the centre decay and at -1, +1, -2, +2, -4, +4, -8, +8 steps held within 1..14 (the seed: the
nine reach "from le 1 ... to le 14"; a level the centre or a nearer sim has already is off):
from the default le 8 the nine reach le 1 and 14, so a loop larger than memory, which only the
near-LFU decays keep part of (its keys tie and the frame hash keeps the same part), is found
from any centre. Sims 9 and 10 rank at the centre decay with W 100 permille smaller and larger
(clamped to 0..1000).

The decay: per sim i (1..8), over the reads where it and the centre disagree, ``plus`` counts
the reads it hit and the centre missed, ``minus`` the reverse. Under no difference ``plus`` is
binomial(n, 1/2): a sim "misses less by two standard deviations" when ``plus - minus > 2 sqrt(n)``
(n = plus + minus >= 16). Checked every tick; of those that pass, the one with the largest
``(plus - minus) / sqrt(n)`` becomes the centre; every sim is re-levelled around it (its pages
kept, its heap re-keyed) and the counts start again.

W's share: the same counts between W+ and W- (the gradient's sign); a sequential test: once
``|plus - minus| > 2 sqrt(n)`` (n >= 16) the share moves 100 permille toward the better one and
the counts start again (each step on evidence gathered since the last).

The split: per type a miss-ratio curve read from one order of the sample's pages, the main
cache's (seed: "Each simulated cache is the main cache in small, ties included"): a read's depth
is the number of the type's sampled pages the main cache would keep over it -- those whose key,
from the sample's record of their words (history: every read, whether or not a cache held the
page) at the type's decay, is higher, or equal with a higher tie rank (read once: the newer; read
more: the frame hash), and pages read ahead and never read since its last read. The curve holds
the hits first reached at sizes (k+1)/10 of what the split divides -- the pages on the lists at
the last tick (memory before the first; the press holds a share of the lists, which the free
pages leave about 2 % smaller than memory: read at tenths of memory, a type holding 40 % of
memory would show no misses at 4/10 and swap at the split 40 %) -- times the rate, k = 0..9. At a
decay near LRU this is the order of last reads; at a near-LFU decay a loop larger than memory
ties and gains with size, as the main cache does.

Readahead at each size (seed: "with readahead simulated"): the curves count the misses a task waits
for, as the costs are per wait. A file read the real cache served from readahead is counted at
weight 1 (every such read, O(log) each: two sums of the order's tree): the page read ahead since
its last read (a bit in the slot's record, set by a read ahead and cleared by a read) is a hit at
the sizes larger than the type's sampled pages read or read ahead between its read ahead and this
read (its stamp in the order of last reads is its read ahead's: the pages above it are those), a
miss at the smaller ones, which would have lost the window before the read (an unread page ranks
lowest); a hit continuing the reader's sequential run (the last file read was of the page before:
:func:`note_stream`) with no read ahead of its own is a hit at every size. A file read the real
cache missed though the page was read ahead since its last read (its window evicted unread) is a
miss at the sizes up to the type's pages at the last tick, where the real cache lost it, and at
each larger size that would not have kept the unread page either (a choice, the closest reading of
"with readahead simulated" we found: an unread page ranks lowest in M, so a size keeps it only
while W holds it): a hit at a size whose W (the type's share of it) holds more than the ``d``
sampled pages read or read ahead since the read ahead, or that holds every sampled page of the type
(nothing is evicted). With W's share 0 and a type larger than the curve's 10/10 it is a miss at
every size: a wait memory does not remove moves no split. (Counted a hit at every size above
the real one, windows lost for want of W would read as memory the file lacks: on the split
study's file loops, 1.5x memory, W's share falls to 0 and the split would fall to anon's floor.)
A stream is detected by the reader's order, not by the cache's size, so every size reads it
ahead as the real cache did; an asynchronous window costs the reader nothing (docs/kernel-mode.md:
``ssd`` and ``hdd`` have no device queue) unless it is lost before it is read. (Were every read
readahead served a hit at every size, the file curve would stay flat where small sizes lose
their windows: ``mix``'s 32,768-page trace on a 65,536-page node, readahead 32,
would keep the split at 90 %, the share at the first decision, while the windows thrash.) On a
node of the trace's 32,768 pages the windows are not lost, the curve stays flat and the split stays
(at a cost 0.3 % above the best fixed split). A read the real cache missed, or one out of sequence,
is placed by its depth. A page with a history that was read ahead is not placed by its history:
otherwise a file loop 1.5x memory beside active anon, whose reader almost never waits (readahead
brings in nearly every page), shows a curve falling with size, and the split goes to anon's floor
where the best fixed split keeps anon whole. A sequential loop served by readahead thus gains
nothing from memory here, and cold anon beside it keeps its share (the split does not move:
every split costs the same); beside reads a task waits for it goes to its floor
(tests/unit/test_cast_tune.py).

Counting a depth reads every sampled page of the type, so one read in ``MRC_EVERY`` = 16 (by a
hash of its stamp) is placed, at weight 16 (with every sampled anon access a hinting fault, one
in 4 made CAST 2.5 times slower on stress-vm). The cost of anon share k/10 (k = 1..9; 1/10 is
anon's floor) is ``cost_anon * misses_anon(k/10) + cost_file * misses_file((10-k)/10)``; the
least is taken when it is below the current split's by more than two standard deviations. The
misses are Poisson in the placed reads: each placed read adds 16 to its count and 256 to the
count's variance (``gf[F_MRCVAR:]``), and halving a curve halves its counts and quarters their
variance, so the difference's variance is ``cost_anon^2 var_anon + cost_file^2 var_file`` over
the counts between the two sizes (``16 |d misses|`` would overstate it up to twice after
halvings). The first split is the share the lists have at the first decision.
The curves halve once they hold ``curve_memory`` sample memories of reads (the sample's pages
at the size of the lists: 2,048 reads at the scaled node; parameter, default 1; 0: as many as
the LRUs hold pages, the costs' rule). The choice was measured on 13 of the study's 90
conditions (200,000 accesses, tasks not paced): 1 gave +4.3 % mean / +26.7 % worst, 2
+5.0 % / +25.2 %, 0 +6.8 % / +23.0 %: a task's reads, weighed at anon's prior while it never
refaults, must fade from the curves once it stops for the split to follow, and a longer memory
keeps them. On the paced study at 2,000,000 accesses, 4 mends three of the four anon-0.4 rows
and loses on others (docs/cast.md).

The press (seed: "a page of each type is pressed by how far its type is over its share, as a
swappiness held within 1-199"): with anon's share ``a`` and the split ``x`` (permille),
``oa = (a / x)^P``, ``of = ((1000 - a) / (1000 - x))^P``, ``sw = 200 oa / (oa + of)`` held within
1..199: 100 at the split (both pressed in proportion to their pages), rising steeply as anon goes
over. ``P`` = ``PRESS_POWER`` = 64 (parameter ``press_power``): a type 2.5 % of its share under
it is pressed at 13 instead of 100. At the power 8 a type with little intake (anon beside a
file loop's readahead) sits 7-8 % of its share under the split (37 % at 40 %: 11,158 swap-ins
where 50 % has 484); at 64 the share holds within ~2 %, and on the 13-condition subset P = 32
gives +8.5 % / +36.8 %, 64 +6.9 % / +26.7 %. (With the power 2 a type whose pages are evicted
for good sinks far below its share while every other type churns.)

The costs (seed: "cost = (prior + sum of waits) / (1 + waits) [+ the cost of writing a page
out, for anon]"): per type the waits' sum and number (``a[A_WAIT_NS]`` of each refault),
halved once there have been as many as the LRUs hold pages; the prior one sample in the ratio
``(200 - s) : s`` of vm.swappiness, scaled so the two priors average 100 us (a choice). The cost
of writing anon out is measured: kernel mode tells ``removed`` what writing
the page out cost its writer (``r[A_WAIT_NS]``: zram's compression, 0 for a write queued to a
disk), and :func:`miss_cost` adds ``(swapout_ns + sum) / (1 + n)`` to anon's, the parameter
``swapout_ns`` (default 2,500 ns, zram's documented compression time) being its prior. What a
swap-in costs the study's measure (``node["total_ns"]``: every access's CPU and waits, direct
reclaim's stalls included; kswapd's and kcompressd's work not) is more: on study condition 14
(200,000 accesses) the fixed split 40 % against 50 % cost 19.1 ms more for 1,689 more
swap-ins, 11.3 us each, of which 13.0 ms was the file reader's direct reclaim (5.2 us per
swap-out it wrote) and 4.5 us per swap-in the anon task's own wait; CAST weighs anon's miss at
3.7 + 2.5 = 6.2 us. Reclaim's work beyond writing the page out is not in the seed's cost.
"""

from __future__ import annotations

import math

from pagesim.core.state import GI_SWAPPINESS, LEN
from pagesim.policies.cast.core import (
    KEY_SHIFT0,
    KEY_UNREAD,
    MAX_DECAY,
    MIN_DECAY,
    TB_NEWCOMER,
    cast_kernel,
    clamp_word,
    frame_hash,
    key_of,
    last_read,
    new_word,
    rank_tb,
    read_word,
    score,
    word_count,
)
from pagesim.policies.cast.layout import (
    ANON_T,
    BUF_CAP,
    BUF_W,
    F_ALL_N,
    F_ALL_SUM,
    F_KEYTAB,
    F_MRC,
    F_MRCVAR,
    F_OUT_N,
    F_OUT_SUM,
    F_SPLIT_COST,
    F_WAIT_N,
    F_WAIT_SUM,
    G_BIG,
    G_BUF,
    G_BUFHEAD,
    G_BUFLEN,
    G_CURVEMEM,
    G_DAUTO,
    G_DMOVE,
    G_EVENTS,
    G_HISTORY,
    G_HITREAD,
    G_LE,
    G_LIST,
    G_LRUPG,
    G_MEM,
    G_MRCTS,
    G_MSIZE,
    G_NOW,
    G_NSAMP,
    G_PASSN,
    G_PRESSPOW,
    G_PREVREAD,
    G_QVALID,
    G_RATE,
    G_SAUTO,
    G_SCAP,
    G_SEQREAD,
    G_SIM,
    G_SIMMINUS,
    G_SIMPLUS,
    G_SMOVE,
    G_SPLIT,
    G_SWAPOUT,
    G_SWP,
    G_TICKS,
    G_TYPEBIG,
    G_WMOVE,
    G_WPM,
    G_ZRAM,
    HEAP,
    INBUF,
    N_SIM_T,
    O_HK,
    O_HT,
    O_HW,
    O_HX,
    O_RS,
    O_RX,
    O_SL,
    O_SS,
    O_SW,
    P_FEN,
    P_LAST,
    P_PAGE,
    RING,
    S_ACC,
    S_HIT,
    S_HLEN,
    S_LE,
    S_MISS,
    S_MLEN,
    S_ON,
    S_RHEAD,
    S_RTAIL,
    S_STAMP,
    S_WLEN,
    S_WPM,
    SIDX,
    SIM_NS,
    SIM_SIZE,
    SLOT_MASK,
    SMAX,
    SWAPOUT_K,
    TF,
    TYPE_SIZE,
)

MAX_SWAPPINESS = 200
#: The prior's scale: the mean of the two priors, ns (between a zram swap-in and an SSD read).
PRIOR_NS = 100_000.0
#: The seed's node (8 GB of 4 KiB pages) and its sample.
SEED_MEMORY = 2_097_152
SEED_SAMPLE = 15_000
MIN_SAMPLE = 2_048
SAMPLE_BLOCK = 64  #: pages per sampling block (readahead runs stay whole)
DECIDE_EVERY = 256  #: the tests also decide every this many sample events (besides every tick)
MIN_N = 16  #: disagreements a test needs before it may decide
PRESS_POWER = 64  #: how steeply the press rises with a type's excess over its share
#: One read in this many (by a hash of the order's stamp) has its depth in the main cache's
#: order counted, with this weight: the count is O(sample) per read.
MRC_EVERY = 16
#: Offsets of the nine decay sims from the centre level.
DECAY_OFFSETS = (0, -1, 1, -2, 2, -4, 4, -8, 8)
SIM_WMINUS = 9
SIM_WPLUS = 10
READ = 1
PREFETCH = 0
#: A read the main cache records with no access behind it: a sampled anon page's fault's young
#: bit, taken by the walker a tick later or by reclaim's check (module docstring).
REREAD = 2
#: A sample slot's record (``P_LAST + x``): bits 0..19 the slot's stamp in the order of last
#: reads (0: not in the order), bits 20.. its word (every read of it, whether or not any cache
#: held it: its history; a page read ahead before its first read has count 0).
STAMP_MASK = (1 << 20) - 1
REC_SHIFT = 20
WORD_MASK = (1 << 32) - 1
#: Set in a slot's record while the real cache holds the page read ahead and not read since.
REC_RA = 1 << 62


# ------------------------------------------------------------------------------------ the key


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
        i = F_KEYTAB + (((le - MIN_DECAY) * 256 + n) << 8) + ((w >> 12) & 0xFF)
        lg = gf[i]
        if lg == 0.0:
            lg = 16.0 * math.log2(score(w, le))
            gf[i] = lg
    else:
        return key_of(w, now, le)
    e = last_read(w, now)
    x = float(e) * 2.0 ** (le - KEY_SHIFT0) + lg
    return int(math.floor(x + 1e-9))


# ------------------------------------------------------------------------------------ plain readouts


@cast_kernel
def decay_level(s, t):  # type: ignore[no-untyped-def]
    """The decay level (1..14) type ``t`` ranks by."""
    return s.gi[G_LE + t]


@cast_kernel
def w_share(s, t):  # type: ignore[no-untyped-def]
    """W's share of type ``t``'s pages, permille."""
    return s.gi[G_WPM + t]


@cast_kernel
def node_swappiness(s):  # type: ignore[no-untyped-def]
    """vm.swappiness, or the policy's override."""
    if s.gi[G_SWP] >= 0:
        return s.gi[G_SWP]
    return s.gi[GI_SWAPPINESS]


@cast_kernel
def type_pages(s, t):  # type: ignore[no-untyped-def]
    """Pages of type ``t`` on this lruvec's lists (W and M)."""
    return s.lhd[s.gi[G_LIST + t], LEN] + s.gi[G_MSIZE + t]


@cast_kernel
def anon_share(s):  # type: ignore[no-untyped-def]
    """Anon's share of memory, permille (500 when there is none): anon's pages on the lists and
    the memory zram holds compressed (``gi[G_ZRAM]``, kernel mode), against those and file's
    pages on the lists. The seed: "Anon's part of memory counts what zram or zswap holds
    compressed as well as its pages on the lists -- a page swapped to zram frees only what
    compressing it saves." Each lruvec counts what zram holds for its own pages (those its
    cgroup swapped out; the kernel charges zswap, not zram, to a cgroup, but the seed's share
    is the lruvec's own anon), so with one cgroup all of it."""
    a = type_pages(s, ANON_T) + s.gi[G_ZRAM]
    f = type_pages(s, 1)
    if a + f <= 0:
        return 500
    return (1000 * a) // (a + f)


@cast_kernel
def press_of(share, split):  # type: ignore[no-untyped-def]
    """The swappiness that presses anon (share ``share`` permille) toward ``split``: 1..199."""
    return press_pow(share, split, PRESS_POWER)


@cast_kernel
def press_pow(share, split, power):  # type: ignore[no-untyped-def]
    """:func:`press_of` with the power ``power``."""
    x = min(max(split, 1), 999)
    oa = (share / x) ** power
    of = ((1000.0 - share) / (1000.0 - x)) ** power
    sw = 200.0 * oa / (oa + of)
    return int(min(max(round(sw), 1), MAX_SWAPPINESS - 1))


@cast_kernel
def pressure_swappiness(s):  # type: ignore[no-untyped-def]
    """The swappiness reclaim presses anon and file with, held within 1..199.

    Toward the split once one is set (chosen or fixed); before that vm.swappiness (held).
    """
    if s.gi[G_SPLIT] >= 0:
        return press_pow(anon_share(s), s.gi[G_SPLIT], s.gi[G_PRESSPOW])
    sw = node_swappiness(s)
    return min(max(sw, 1), MAX_SWAPPINESS - 1)


# ------------------------------------------------------------------------------------ costs


@cast_kernel
def note_wait(s, t, wait_ns, lru_pages):  # type: ignore[no-untyped-def]
    """One cost sample of kind ``t``: a refault wait of type ``t`` (0 anon, 1 file) or, kind
    ``SWAPOUT_K`` (2), what writing an anon page out cost. The kind's sum and number halve once
    the number reaches the LRUs' pages; every sample is also kept unhalved (``gf[F_ALL_*]``, the
    seed's per-queue lines)."""
    s.gf[F_ALL_SUM + t] += wait_ns
    s.gf[F_ALL_N + t] += 1.0
    i_sum = F_OUT_SUM if t == SWAPOUT_K else F_WAIT_SUM + t
    i_n = F_OUT_N if t == SWAPOUT_K else F_WAIT_N + t
    s.gf[i_sum] += wait_ns
    s.gf[i_n] += 1.0
    if s.gf[i_n] >= max(lru_pages, 1):
        s.gf[i_sum] *= 0.5
        s.gf[i_n] *= 0.5


@cast_kernel
def refault_cost(s, t):  # type: ignore[no-untyped-def]
    """``(prior + sum of waits) / (1 + waits)``, ns: the wait alone (see :func:`miss_cost`)."""
    sw = node_swappiness(s)
    share = (MAX_SWAPPINESS - sw) if t == ANON_T else sw
    prior = 2.0 * PRIOR_NS * share / MAX_SWAPPINESS
    return (prior + s.gf[F_WAIT_SUM + t]) / (1.0 + s.gf[F_WAIT_N + t])


@cast_kernel
def miss_cost(s, t):  # type: ignore[no-untyped-def]
    """What a miss of type ``t`` costs, ns: its refault wait, plus for anon writing a page out,
    ``(swapout_ns + sum of write-outs) / (1 + write-outs)``: the parameter is the prior, one
    sample, as vm.swappiness is the waits' (the seed: "that time is measured too, on every path
    that writes anon out, and added to anon's cost")."""
    c = refault_cost(s, t)
    if t == ANON_T:
        c += (float(s.gi[G_SWAPOUT]) + s.gf[F_OUT_SUM]) / (1.0 + s.gf[F_OUT_N])
    return c


@cast_kernel
def estimate_swappiness(s):  # type: ignore[no-untyped-def]
    """The swappiness the measured costs amount to: 200 * file / (anon + file)."""
    ca = miss_cost(s, 0)
    cf = miss_cost(s, 1)
    if ca + cf <= 0.0:
        return float(node_swappiness(s))
    return MAX_SWAPPINESS * cf / (ca + cf)


# ------------------------------------------------------------------------------------ the sample


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
    """Mark the sampled page ids (by block of 64) in ``pm[:, SIDX]``: -2 sampled, -1 not."""
    rate = s.gi[G_RATE]
    n = s.pm.shape[0]
    for p in range(n):
        b = p // SAMPLE_BLOCK
        s.pm[p, SIDX] = -2 if ((frame_hash(b) >> 16) & 0xFFFF) < rate else -1


@cast_kernel
def _slot(s, p, t):  # type: ignore[no-untyped-def]
    """Page ``p``'s sample slot of type ``t``, given out on first sight; -1 if not sampled."""
    x = s.pm[p, SIDX]
    if x >= 0:
        return x & SLOT_MASK
    if x == -1:
        return x
    k = s.gi[G_NSAMP + t]
    if k >= SMAX:
        s.pm[p, SIDX] = -1
        return -1
    s.gi[G_NSAMP + t] = k + 1
    s.gi[G_TYPEBIG + t * TYPE_SIZE + P_PAGE + k] = p
    s.pm[p, SIDX] = k
    return k


# ------------------------------------------------------------------------------------ one simulated cache


@cast_kernel
def _sv(j):  # type: ignore[no-untyped-def]
    """Index of sim ``j``'s scalars."""
    return G_SIM + j * SIM_NS


@cast_kernel
def _sb(j):  # type: ignore[no-untyped-def]
    """Base of sim ``j``'s arrays."""
    return G_BIG + j * SIM_SIZE


@cast_kernel
def _page_of(gi, gf, t, x):  # type: ignore[no-untyped-def]
    return gi[G_TYPEBIG + t * TYPE_SIZE + P_PAGE + x]


@cast_kernel
def _heap_less(gi, gf, b, i, k):  # type: ignore[no-untyped-def]
    ki = gi[b + O_HK + i]
    kk = gi[b + O_HK + k]
    return ki < kk or (ki == kk and gi[b + O_HT + i] < gi[b + O_HT + k])


@cast_kernel
def _heap_swap(gi, gf, b, i, k):  # type: ignore[no-untyped-def]
    for o in (O_HK, O_HT, O_HX, O_HW):
        tmp = gi[b + o + i]
        gi[b + o + i] = gi[b + o + k]
        gi[b + o + k] = tmp


@cast_kernel
def _heap_down(gi, gf, b, i, n):  # type: ignore[no-untyped-def]
    while True:
        c = 2 * i + 1
        if c >= n:
            return
        if c + 1 < n and _heap_less(gi, gf, b, c + 1, c):
            c += 1
        if not _heap_less(gi, gf, b, c, i):
            return
        _heap_swap(gi, gf, b, i, c)
        i = c


@cast_kernel
def _heap_push_raw(gi, gf, j, key, tb, x, w):  # type: ignore[no-untyped-def]
    b = _sb(j)
    v = _sv(j)
    i = gi[v + S_HLEN]
    gi[b + O_HK + i] = key
    gi[b + O_HT + i] = tb
    gi[b + O_HX + i] = x
    gi[b + O_HW + i] = w
    gi[v + S_HLEN] = i + 1
    while i > 0:
        par = (i - 1) // 2
        if not _heap_less(gi, gf, b, i, par):
            break
        _heap_swap(gi, gf, b, i, par)
        i = par


@cast_kernel
def _m_rank(gi, gf, j, t, x, w):  # type: ignore[no-untyped-def]
    """Tie rank in a sim's M: the order of joining M for a page read once, else the frame hash."""
    return rank_tb(w, _page_of(gi, gf, t, x), gi[_sb(j) + O_SS + x])


@cast_kernel
def _rebuild_heap(gi, gf, j, t):  # type: ignore[no-untyped-def]
    """Re-key sim ``j``'s M from its live pages (heap full of stale entries, or a new level)."""
    b = _sb(j)
    v = _sv(j)
    gi[v + S_HLEN] = 0
    le = gi[v + S_LE]
    now = gi[G_NOW]
    for x in range(gi[G_NSAMP + t]):
        if gi[b + O_SL + x] == 2:
            w = gi[b + O_SW + x]
            _heap_push_raw(gi, gf, j, key_fast(gf, w, now, le), _m_rank(gi, gf, j, t, x, w), x, w)


@cast_kernel
def _heap_push(gi, gf, j, t, x, w):  # type: ignore[no-untyped-def]
    v = _sv(j)
    if gi[v + S_HLEN] >= HEAP:
        _rebuild_heap(gi, gf, j, t)
        if gi[v + S_HLEN] >= HEAP:
            return
    _heap_push_raw(gi, gf, j, key_fast(gf, w, gi[G_NOW], gi[v + S_LE]), _m_rank(gi, gf, j, t, x, w), x, w)


@cast_kernel
def _heap_top(gi, gf, j):  # type: ignore[no-untyped-def]
    """Sim ``j``'s lowest live page of M (stale entries dropped), or -1."""
    b = _sb(j)
    v = _sv(j)
    while gi[v + S_HLEN] > 0:
        x = gi[b + O_HX]
        if gi[b + O_SL + x] == 2 and gi[b + O_SW + x] == gi[b + O_HW]:
            return x
        _heap_pop(gi, gf, j)
    return -1


@cast_kernel
def _heap_pop(gi, gf, j):  # type: ignore[no-untyped-def]
    b = _sb(j)
    v = _sv(j)
    n = gi[v + S_HLEN] - 1
    if n < 0:
        return
    _heap_swap(gi, gf, b, 0, n)
    gi[v + S_HLEN] = n
    _heap_down(gi, gf, b, 0, n)


@cast_kernel
def _ring_compact(gi, gf, j):  # type: ignore[no-untyped-def]
    """Drop the W ring's stale entries (pages freed out of W)."""
    b = _sb(j)
    v = _sv(j)
    h = gi[v + S_RHEAD]
    k = 0
    for i in range(h, gi[v + S_RTAIL]):
        x = gi[b + O_RX + i % RING]
        st = gi[b + O_RS + i % RING]
        if gi[b + O_SL + x] == 1 and gi[b + O_SS + x] == st:
            gi[b + O_RX + (h + k) % RING] = x
            gi[b + O_RS + (h + k) % RING] = st
            k += 1
    gi[v + S_RTAIL] = h + k


@cast_kernel
def _w_tail(gi, gf, j):  # type: ignore[no-untyped-def]
    """Sim ``j``'s oldest live page of W (stale entries dropped), or -1."""
    b = _sb(j)
    v = _sv(j)
    while gi[v + S_RHEAD] < gi[v + S_RTAIL]:
        i = gi[v + S_RHEAD] % RING
        x = gi[b + O_RX + i]
        if gi[b + O_SL + x] == 1 and gi[b + O_SS + x] == gi[b + O_RS + i]:
            return x
        gi[v + S_RHEAD] += 1
    return -1


@cast_kernel
def _w_pop(gi, gf, j):  # type: ignore[no-untyped-def]
    gi[_sv(j) + S_RHEAD] += 1


@cast_kernel
def _join_m(gi, gf, j, t, x):  # type: ignore[no-untyped-def]
    """W's tail ``x`` (already popped) joins sim ``j``'s M."""
    b = _sb(j)
    v = _sv(j)
    gi[b + O_SL + x] = 2
    st = gi[v + S_STAMP]
    gi[v + S_STAMP] = st + 1
    gi[b + O_SS + x] = st
    gi[v + S_WLEN] -= 1
    gi[v + S_MLEN] += 1
    _heap_push(gi, gf, j, t, x, gi[b + O_SW + x])


@cast_kernel
def _drop(gi, gf, j, x):  # type: ignore[no-untyped-def]
    """``x`` leaves sim ``j`` (its ring or heap entry goes stale)."""
    b = _sb(j)
    v = _sv(j)
    loc = gi[b + O_SL + x]
    if loc == 1:
        gi[v + S_WLEN] -= 1
    elif loc == 2:
        gi[v + S_MLEN] -= 1
    gi[b + O_SL + x] = 0
    gi[b + O_SW + x] = 0


@cast_kernel
def _w_tail_rank(gi, gf, t, x, w):  # type: ignore[no-untyped-def]
    if word_count(w) <= 1:
        return TB_NEWCOMER
    return (1 << 40) | frame_hash(_page_of(gi, gf, t, x))


@cast_kernel
def sim_evict(gi, gf, j, t):  # type: ignore[no-untyped-def]
    """One page leaves sim ``j`` by the main cache's rule (W's tail vs M's lowest)."""
    b = _sb(j)
    v = _sv(j)
    wpm = gi[v + S_WPM]
    wl = gi[v + S_WLEN]
    ml = gi[v + S_MLEN]
    excess = wl - (wpm * (wl + ml)) // 1000
    while excess > 1:
        x = _w_tail(gi, gf, j)
        if x < 0:
            break
        _w_pop(gi, gf, j)
        _join_m(gi, gf, j, t, x)
        excess -= 1
    wl = gi[v + S_WLEN]
    ml = gi[v + S_MLEN]
    over = wl > 0 and 1000 * wl > wpm * (wl + ml)
    if over or ml == 0:
        wt = _w_tail(gi, gf, j)
        if wt < 0:
            return
        m = _heap_top(gi, gf, j)
        if m >= 0:
            w = gi[b + O_SW + wt]
            wk = key_fast(gf, w, gi[G_NOW], gi[v + S_LE])
            mk = gi[b + O_HK]
            mt = gi[b + O_HT]
            wtb = _w_tail_rank(gi, gf, t, wt, w)
            if not (wk < mk or (wk == mk and wtb < mt)):
                _heap_pop(gi, gf, j)
                _drop(gi, gf, j, m)
                _w_pop(gi, gf, j)
                _join_m(gi, gf, j, t, wt)
                return
        _w_pop(gi, gf, j)
        _drop(gi, gf, j, wt)
        return
    m = _heap_top(gi, gf, j)
    if m >= 0:
        _heap_pop(gi, gf, j)
        _drop(gi, gf, j, m)
        return
    wt = _w_tail(gi, gf, j)
    if wt >= 0:
        _w_pop(gi, gf, j)
        _drop(gi, gf, j, wt)


@cast_kernel
def sim_access(gi, gf, j, t, x, kind, hist, cap):  # type: ignore[no-untyped-def]
    """Slot ``x`` read (``kind`` 1) or read ahead (0) in sim ``j`` of ``cap`` pages: 1 if it was
    there, else 0.

    A page that comes in gets back ``hist``, its word before this access, when it is not 0
    (history on: the sim's shadow, as the main cache's refault), else a fresh word."""
    b = _sb(j)
    v = _sv(j)
    now = gi[G_NOW]
    loc = gi[b + O_SL + x]
    if loc != 0:
        if kind == READ:
            w = read_word(gi[b + O_SW + x], now)
            gi[b + O_SW + x] = w
            if loc == 2:
                _heap_push(gi, gf, j, t, x, w)
            gi[v + S_HIT] += 1
            gi[v + S_ACC] += 1
        return 1
    if kind == READ:
        gi[v + S_MISS] += 1
        gi[v + S_ACC] += 1
    if hist == 0:
        gi[b + O_SW + x] = new_word(now, kind)
    elif kind == READ:
        gi[b + O_SW + x] = read_word(clamp_word(hist, now), now)
    else:
        gi[b + O_SW + x] = clamp_word(hist, now)
    gi[b + O_SL + x] = 1
    st = gi[v + S_STAMP]
    gi[v + S_STAMP] = st + 1
    gi[b + O_SS + x] = st
    if gi[v + S_RTAIL] - gi[v + S_RHEAD] >= RING:
        _ring_compact(gi, gf, j)
    i = gi[v + S_RTAIL]
    gi[b + O_RX + i % RING] = x
    gi[b + O_RS + i % RING] = st
    gi[v + S_RTAIL] = i + 1
    gi[v + S_WLEN] += 1
    while gi[v + S_WLEN] + gi[v + S_MLEN] > cap:
        before = gi[v + S_WLEN] + gi[v + S_MLEN]
        sim_evict(gi, gf, j, t)
        if gi[v + S_WLEN] + gi[v + S_MLEN] >= before:
            break
    return 0


@cast_kernel
def sim_reset(gi, gf, j, le, wpm):  # type: ignore[no-untyped-def]
    """Sim ``j`` empty, at level ``le`` (off unless within 1..14) and W share ``wpm``."""
    b = _sb(j)
    v = _sv(j)
    for k in range(SIM_NS):
        gi[v + k] = 0
    for x in range(SMAX):
        gi[b + O_SL + x] = 0
        gi[b + O_SW + x] = 0
    gi[v + S_LE] = le
    gi[v + S_WPM] = wpm
    gi[v + S_ON] = 1 if MIN_DECAY <= le <= MAX_DECAY else 0


@cast_kernel
def _sim_copy(gi, gf, src, j):  # type: ignore[no-untyped-def]
    """Sim ``j`` (just reset) takes sim ``src``'s pages: each slot's word, place (W or M) and
    stamp, W's ring and the counts and stamp clock that go with them; its level, W share, on
    flag, hits and misses stay. The block holds no absolute index (slots, ring positions modulo
    RING, stamps are the sim's own), so a copy is self-contained; M's heap is left empty for the
    caller's re-key at ``j``'s level."""
    bs = _sb(src)
    bj = _sb(j)
    vs = _sv(src)
    vj = _sv(j)
    for x in range(SMAX):
        gi[bj + O_SW + x] = gi[bs + O_SW + x]
        gi[bj + O_SL + x] = gi[bs + O_SL + x]
        gi[bj + O_SS + x] = gi[bs + O_SS + x]
    for i in range(RING):
        gi[bj + O_RX + i] = gi[bs + O_RX + i]
        gi[bj + O_RS + i] = gi[bs + O_RS + i]
    for k in (S_WLEN, S_MLEN, S_RHEAD, S_RTAIL, S_STAMP):
        gi[vj + k] = gi[vs + k]
    gi[vj + S_HLEN] = 0


# ------------------------------------------------------------------------------------ the MRC


@cast_kernel
def _fen_add(gi, gf, t, i, d):  # type: ignore[no-untyped-def]
    base = G_TYPEBIG + t * TYPE_SIZE + P_FEN
    while i <= TF:
        gi[base + i] += d
        i += i & (-i)


@cast_kernel
def _fen_sum(gi, gf, t, i):  # type: ignore[no-untyped-def]
    base = G_TYPEBIG + t * TYPE_SIZE + P_FEN
    r = 0
    while i > 0:
        r += gi[base + i]
        i -= i & (-i)
    return r


@cast_kernel
def _last(gi, gf, t, x):  # type: ignore[no-untyped-def]
    """Slot ``x``'s stamp in the order of last reads (0: not in it)."""
    return gi[G_TYPEBIG + t * TYPE_SIZE + P_LAST + x] & STAMP_MASK


@cast_kernel
def _set_last(gi, gf, t, x, v):  # type: ignore[no-untyped-def]
    i = G_TYPEBIG + t * TYPE_SIZE + P_LAST + x
    gi[i] = gi[i] - (gi[i] & STAMP_MASK) + v


@cast_kernel
def sample_word(gi, gf, t, x):  # type: ignore[no-untyped-def]
    """Slot ``x``'s recorded word: all its reads so far (0: never seen)."""
    return (gi[G_TYPEBIG + t * TYPE_SIZE + P_LAST + x] >> REC_SHIFT) & WORD_MASK


@cast_kernel
def _note_word(gi, gf, t, x, kind):  # type: ignore[no-untyped-def]
    """Record a read (1) or a read ahead (0) of slot ``x`` in its word (a read ahead changes
    only a word not yet made: count 0)."""
    i = G_TYPEBIG + t * TYPE_SIZE + P_LAST + x
    e = gi[i]
    w = (e >> REC_SHIFT) & WORD_MASK
    now = gi[G_NOW]
    st = e & STAMP_MASK
    if kind == READ:
        w = new_word(now, 1) if w == 0 else read_word(clamp_word(w, now), now)
    elif w == 0:
        w = new_word(now, 0)
    gi[i] = (w << REC_SHIFT) | st | (e & REC_RA)


@cast_kernel
def _mrc_renumber(gi, gf, t):  # type: ignore[no-untyped-def]
    """Stamps used up: renumber the live ones 1..k in their order (a live stamp's new number is
    the tree's count of live stamps up to it), rebuild the tree. No allocation."""
    tb = G_TYPEBIG + t * TYPE_SIZE
    n = gi[G_NSAMP + t]
    for x in range(n):
        last = _last(gi, gf, t, x)
        if last > 0:
            _set_last(gi, gf, t, x, _fen_sum(gi, gf, t, last))
    for i in range(TF + 1):
        gi[tb + P_FEN + i] = 0
    k = 0
    for x in range(n):
        last = _last(gi, gf, t, x)
        if last > 0:
            _fen_add(gi, gf, t, last, 1)
            k = max(k, last)
    gi[G_MRCTS + t] = k


@cast_kernel
def mrc_unit(gi, gf):  # type: ignore[no-untyped-def]
    """A tenth of what the split divides -- the pages on the lists at the last tick (memory before
    the first) -- in the sample's pages (at least 1)."""
    pages = gi[G_LRUPG] if gi[G_LRUPG] > 0 else gi[G_MEM]
    return max(1, (pages * gi[G_RATE]) // (65536 * 10))


@cast_kernel
def _order_tb(gi, gf, t, x, w, last):  # type: ignore[no-untyped-def]
    """Tie rank in the curve's order, as the main cache's: read once, the order of last reads
    (the newer kept); read more, ``2^40 +`` the frame hash (:func:`rank_tb`'s)."""
    if word_count(w) <= 1:
        return last
    return (1 << 40) | frame_hash(_page_of(gi, gf, t, x))


@cast_kernel
def key_depth(gi, gf, t, x, w, last, stop):  # type: ignore[no-untyped-def]
    """Pages of the order that the main cache keeps over slot ``x`` (word ``w``, stamp ``last``):
    those whose key at type ``t``'s decay is higher, or equal with a higher tie rank, and those
    read ahead and never read (count 0) since ``x``'s last read. Counting stops at ``stop`` (a
    miss at every size the curve reads)."""
    tb = G_TYPEBIG + t * TYPE_SIZE
    now = gi[G_NOW]
    le = gi[G_LE + t]
    kx = key_fast(gf, clamp_word(w, now), now, le)
    rx = _order_tb(gi, gf, t, x, w, last)
    d = 0
    for y in range(gi[G_NSAMP + t]):
        e = gi[tb + P_LAST + y]
        ly = e & STAMP_MASK
        if ly == 0 or y == x:
            continue
        wy = (e >> REC_SHIFT) & WORD_MASK
        if word_count(wy) == 0:
            if ly > last:
                d += 1
        else:
            ky = key_fast(gf, clamp_word(wy, now), now, le)
            if ky > kx or (ky == kx and _order_tb(gi, gf, t, y, wy, ly) > rx):
                d += 1
        if d >= stop:
            return d
    return d


@cast_kernel
def _mrc_place(gi, gf, t, x, ts, last):  # type: ignore[no-untyped-def]
    """A read of slot ``x`` (seen before) into the curve, one in ``MRC_EVERY`` (by a hash of
    the order's stamp) at weight ``MRC_EVERY``: at its depth in the main cache's order, a hit at
    every size that holds it. Readahead at each size: a page read ahead before its first read is
    at the top of the order of last reads (a hit); a page with a history that was read ahead is
    where its history puts it -- held at a size, or brought in there (a miss)."""
    if (frame_hash(ts) & (MRC_EVERY - 1)) != 0:
        return
    w = sample_word(gi, gf, t, x)
    u = mrc_unit(gi, gf)
    if word_count(w) == 0:
        d = _fen_sum(gi, gf, t, ts) - _fen_sum(gi, gf, t, last)
    else:
        d = key_depth(gi, gf, t, x, w, last, 10 * u)
    if d // u < 10:
        gf[F_MRC + 12 * t + d // u] += float(MRC_EVERY)
        gf[F_MRCVAR + 12 * t + d // u] += float(MRC_EVERY * MRC_EVERY)


@cast_kernel
def mrc_access(gi, gf, t, x, kind):  # type: ignore[no-untyped-def]
    """Slot ``x`` read (1) or read ahead (0): its depth in the main cache's order into the
    curve; to the top of the order of last reads. Call before :func:`_note_word`."""
    if gi[G_MRCTS + t] >= TF:
        _mrc_renumber(gi, gf, t)
    ts = gi[G_MRCTS + t]
    last = _last(gi, gf, t, x)
    f = F_MRC + 12 * t
    i = G_TYPEBIG + t * TYPE_SIZE + P_LAST + x
    if kind == READ:
        gf[f + 10] += 1.0
        if read_ahead_hit(gi, t, gi[i]):
            _ra_place(gi, gf, t, gi[i], ts, last)
        elif t != ANON_T and (gi[i] & REC_RA) != 0:
            _ra_lost(gi, gf, t, ts, last)
        elif last > 0:
            _mrc_place(gi, gf, t, x, ts, last)
        gi[i] &= ~REC_RA
    else:
        gi[i] |= REC_RA
    if last > 0:
        _fen_add(gi, gf, t, last, -1)
    _set_last(gi, gf, t, x, ts + 1)
    _fen_add(gi, gf, t, ts + 1, 1)
    gi[G_MRCTS + t] = ts + 1


@cast_kernel
def _ra_place(gi, gf, t, rec, ts, last):  # type: ignore[no-untyped-def]
    """A file read readahead served (record ``rec``, stamp ``last``) into the curve, at weight 1.
    A page read ahead since its last read is a hit at the sizes larger than the type's sampled
    pages read or read ahead between its read ahead and this read (the order's stamps between
    ``last`` and ``ts``): a smaller cache would have lost its window before the read (an unread
    page ranks lowest). A hit continuing the reader's sequential run with no read ahead of its
    own is a hit at every size."""
    b = 0
    if (rec & REC_RA) != 0 and last > 0:
        b = (_fen_sum(gi, gf, t, ts) - _fen_sum(gi, gf, t, last)) // mrc_unit(gi, gf)
    if b < 10:
        gf[F_MRC + 12 * t + b] += 1.0
        gf[F_MRCVAR + 12 * t + b] += 1.0


@cast_kernel
def _ra_lost(gi, gf, t, ts, last):  # type: ignore[no-untyped-def]
    """A file read the real cache missed though the page was read ahead since its last read (its
    window was evicted unread; stamp ``last`` its read ahead's, ``ts`` now) into the curve, at
    weight 1: a miss at the sizes up to the type's pages at the last tick (where the real cache
    lost it), and at the larger ones unless that size would have kept it -- W's share of it
    (``gi[G_WPM + t]`` permille) held more than the ``d`` sampled pages read or read ahead since
    the read ahead, or it holds every sampled page of the type (no eviction at all). An unread
    page ranks lowest in M, so with W's share 0 a window is lost at every size short of the
    type's whole: a miss at every size the curve reads (module docstring)."""
    u = mrc_unit(gi, gf)
    b = gi[G_SCAP + t] // u
    if last > 0:
        total = _fen_sum(gi, gf, t, ts)
        d = total - _fen_sum(gi, gf, t, last)
        wpm = gi[G_WPM + t]
        keep = total // u
        if wpm > 0:
            keep = min(keep, (d * 1000) // (wpm * u))
        b = max(b, keep)
    if b < 10:
        gf[F_MRC + 12 * t + b] += 1.0
        gf[F_MRCVAR + 12 * t + b] += 1.0


@cast_kernel
def note_stream(s, p, hit):  # type: ignore[no-untyped-def]
    """A file read of page ``p`` (``hit``: kernel mode, and the real cache had the page): whether
    it continues the reader's sequential run (the last file read was of page ``p - 1``)."""
    s.gi[G_HITREAD] = 1 if hit else 0
    s.gi[G_SEQREAD] = 1 if hit and p == s.gi[G_PREVREAD] + 1 else 0
    s.gi[G_PREVREAD] = p


@cast_kernel
def read_ahead_hit(gi, t, rec):  # type: ignore[no-untyped-def]
    """Whether a file read (record ``rec``) is one readahead serves at every size of the curve:
    the real cache had the page, read ahead since its last read, or in the reader's sequential
    run (module docstring)."""
    if t == ANON_T or gi[G_HITREAD] == 0:
        return False
    return (rec & REC_RA) != 0 or gi[G_SEQREAD] != 0


@cast_kernel
def mrc_misses(s, t, k):  # type: ignore[no-untyped-def]
    """Type ``t``'s misses in the curve at size k/10 of memory (k 0..10)."""
    f = F_MRC + 12 * t
    h = 0.0
    for i in range(min(k, 10)):
        h += s.gf[f + i]
    return s.gf[f + 10] - h


@cast_kernel
def split_choice(s, cur):  # type: ignore[no-untyped-def]
    """The anon share (tenths, 1..9) the curves and costs choose, starting from ``cur``.

    Writes each share's weighed misses to ``gf[F_SPLIT_COST:]``; returns ``cur`` unless another
    share's cost is lower by more than two standard deviations.
    """
    ca = miss_cost(s, ANON_T)
    cf = miss_cost(s, 1)
    best = cur
    best_c = 0.0
    for k in range(1, 10):
        c = ca * mrc_misses(s, ANON_T, k) + cf * mrc_misses(s, 1, 10 - k)
        s.gf[F_SPLIT_COST + k - 1] = c
        if k == 1 or c < best_c:
            best_c = c
            best = k
    if best != cur and split_better(s, best, cur, ca, cf):
        return best
    return cur


@cast_kernel
def split_better(s, k, cur, ca, cf):  # type: ignore[no-untyped-def]
    """Whether anon share ``k`` costs less than ``cur`` (tenths) by two standard deviations."""
    d = s.gf[F_SPLIT_COST + cur - 1] - s.gf[F_SPLIT_COST + k - 1]
    va = mrc_var_between(s, ANON_T, k, cur)
    vf = mrc_var_between(s, 1, 10 - k, 10 - cur)
    return d > 2.0 * math.sqrt(ca * ca * va + cf * cf * vf)


@cast_kernel
def mrc_var_between(s, t, k1, k2):  # type: ignore[no-untyped-def]
    """The variance of the difference of type ``t``'s misses at sizes k1/10 and k2/10: the hit
    counts between the two sizes are sums of placed reads, each counted at weight ``MRC_EVERY``
    (Poisson in the placed reads) and halved with the curve."""
    v = 0.0
    for i in range(min(k1, k2), max(k1, k2)):
        v += s.gf[F_MRCVAR + 12 * t + i]
    return v


# ------------------------------------------------------------------------------------ tests


@cast_kernel
def sign_test(plus, minus):  # type: ignore[no-untyped-def]
    """+1 if ``plus`` beats ``minus`` by two standard deviations of a fair coin's difference
    (``plus - minus > 2 sqrt(plus + minus)``, at least 16 disagreements), -1 the reverse, else 0."""
    n = plus + minus
    if n < MIN_N:
        return 0
    sd = math.sqrt(float(n))
    if plus - minus > 2.0 * sd:
        return 1
    if minus - plus > 2.0 * sd:
        return -1
    return 0


# ------------------------------------------------------------------------------------ driving


@cast_kernel
def decay_offset(i):  # type: ignore[no-untyped-def]
    """Sim ``i``'s offset from the centre decay: 0, -1, +1, -2, +2, -4, +4, -8, +8."""
    if i == 0:
        return 0
    if i % 2 == 1:
        return -(1 << ((i - 1) // 2))
    return 1 << ((i - 2) // 2)


@cast_kernel
def sim_level(le, i):  # type: ignore[no-untyped-def]
    """Decay sim ``i``'s level around centre ``le``: ``le + decay_offset(i)`` held within 1..14
    (the nine span "from le 1 ... to le 14"); 0 (off) for the centre's own level or one a
    nearer sim already has."""
    if i == 0:
        return le
    nl = min(max(le + decay_offset(i), MIN_DECAY), MAX_DECAY)
    for k in range(i):
        if min(max(le + decay_offset(k), MIN_DECAY), MAX_DECAY) == nl:
            return 0
    return nl


@cast_kernel
def _centre_sims(gi, gf, t):  # type: ignore[no-untyped-def]
    """Re-level type ``t``'s sims around the centre decay and W share (pages kept, heaps re-keyed)."""
    le = gi[G_LE + t]
    w = gi[G_WPM + t]
    for i in range(N_SIM_T):
        j = t * N_SIM_T + i
        v = _sv(j)
        if i < 9:
            nl = sim_level(le, i)
            nw = w
        else:
            nl = le
            nw = min(max(w + (100 if i == SIM_WPLUS else -100), 0), 1000)
        was = gi[v + S_ON]
        gi[v + S_WPM] = nw
        if nl != gi[v + S_LE]:
            gi[v + S_LE] = nl
            on = MIN_DECAY <= nl <= MAX_DECAY
            if on and was == 0:
                sim_reset(gi, gf, j, nl, nw)
                c = t * N_SIM_T
                if i > 0 and gi[_sv(c) + S_ON] == 1:
                    _sim_copy(gi, gf, c, j)
            gi[v + S_ON] = 1 if on else 0
            if on:
                _rebuild_heap(gi, gf, j, t)
        gi[G_SIMPLUS + t * N_SIM_T + i] = 0
        gi[G_SIMMINUS + t * N_SIM_T + i] = 0


@cast_kernel
def _reset_sweep(s, t):  # type: ignore[no-untyped-def]
    """The real cache's decay changed: its candidates' keys are stale; sweep afresh."""
    base = G_BUF + t * BUF_W * BUF_CAP + BUF_W * s.gi[G_BUFHEAD + t]
    for i in range(s.gi[G_BUFLEN + t]):
        s.pm[s.gi[base + BUF_W * i], INBUF] = 0
    s.gi[G_BUFLEN + t] = 0
    s.gi[G_BUFHEAD + t] = 0
    s.gi[G_QVALID + t] = 0
    s.gi[G_PASSN + t] = 0


@cast_kernel
def tune_init(s):  # type: ignore[no-untyped-def]
    """The sample chosen, every sim empty and centred, the curves empty."""
    choose_sample(s)
    for t in range(2):
        s.gi[G_NSAMP + t] = 0
        s.gi[G_EVENTS + t] = 0
        s.gi[G_MRCTS + t] = 0
        s.gi[G_DMOVE + t] = 0
        s.gi[G_WMOVE + t] = 0
        s.gi[G_SCAP + t] = 1
        tb = G_TYPEBIG + t * TYPE_SIZE
        for i in range(TF + 1):
            s.gi[tb + P_FEN + i] = 0
        for x in range(SMAX):
            s.gi[tb + P_LAST + x] = 0
        for i in range(N_SIM_T):
            j = t * N_SIM_T + i
            sim_reset(s.gi, s.gf, j, 0, 0)
        _centre_sims(s.gi, s.gf, t)
    s.gi[G_SMOVE] = 0
    s.gi[G_TICKS] = 0
    s.gi[G_PREVREAD] = -2
    s.gi[G_LRUPG] = 0
    s.gi[G_SEQREAD] = 0
    s.gi[G_HITREAD] = 0


@cast_kernel
def tune_feed(s, p, t, kind):  # type: ignore[no-untyped-def]
    """Page ``p`` of type ``t`` read (1), read ahead (0) or re-read (2, :data:`REREAD`): the sims
    and the curve, if sampled."""
    if s.pm[p, SIDX] == -1 or (s.gi[G_DAUTO] == 0 and s.gi[G_SAUTO] == 0):
        return
    x = _slot(s, p, t)
    if x < 0:
        return
    if kind == REREAD:
        _reread(s.gi, s.gf, t, x)
        return
    s.gi[G_EVENTS + t] += 1
    if (s.gi[G_EVENTS] + s.gi[G_EVENTS + 1]) % DECIDE_EVERY == 0:
        tune_decide(s)
    hist = sample_word(s.gi, s.gf, t, x) if s.gi[G_HISTORY] != 0 else 0
    if s.gi[G_SAUTO] != 0:
        mrc_access(s.gi, s.gf, t, x, kind)
    _note_word(s.gi, s.gf, t, x, kind)
    if s.gi[G_DAUTO] == 0:
        return
    j0 = t * N_SIM_T
    cap = sim_capacity(s, t)
    hc = sim_access(s.gi, s.gf, j0, t, x, kind, hist, cap)
    for i in range(1, 9):
        j = j0 + i
        if s.gi[_sv(j) + S_ON] == 0:
            continue
        h = sim_access(s.gi, s.gf, j, t, x, kind, hist, cap)
        if kind == READ and h != hc:
            if h > hc:
                s.gi[G_SIMPLUS + j] += 1
            else:
                s.gi[G_SIMMINUS + j] += 1
    hm = sim_access(s.gi, s.gf, j0 + SIM_WMINUS, t, x, kind, hist, cap)
    hp = sim_access(s.gi, s.gf, j0 + SIM_WPLUS, t, x, kind, hist, cap)
    if kind == READ and hm != hp:
        if hp > hm:
            s.gi[G_SIMPLUS + j0 + SIM_WPLUS] += 1
        else:
            s.gi[G_SIMMINUS + j0 + SIM_WPLUS] += 1


@cast_kernel
def sim_capacity(s, t):  # type: ignore[no-untyped-def]
    """The sims' capacity for type ``t``, pages: the type's pages on the real lists now times the
    sample's rate (at least 1)."""
    return max(1, (type_pages(s, t) * s.gi[G_RATE]) // 65536)


@cast_kernel
def _reread(gi, gf, t, x):  # type: ignore[no-untyped-def]
    """Slot ``x``'s fault's young bit taken by the main cache as a read: the slot's record and
    every sim holding the page get the read too (the main cache's rule: nothing if the word's last
    read is this tick). No access: no hit or miss, no page comes in, the curve places nothing."""
    now = gi[G_NOW]
    i = G_TYPEBIG + t * TYPE_SIZE + P_LAST + x
    w = sample_word(gi, gf, t, x)
    if word_count(w) == 0 or last_read(w, now) == now:
        return
    w = read_word(clamp_word(w, now), now)
    gi[i] = (w << REC_SHIFT) | (gi[i] & STAMP_MASK) | (gi[i] & REC_RA)
    for k in range(N_SIM_T):
        j = t * N_SIM_T + k
        if gi[_sv(j) + S_ON] != 0:
            sim_reread(gi, gf, j, t, x)


@cast_kernel
def sim_reread(gi, gf, j, t, x):  # type: ignore[no-untyped-def]
    """Slot ``x`` re-read in sim ``j`` (:func:`_reread`): its word gets the read if the sim holds
    it and its last read is not this tick."""
    b = _sb(j)
    loc = gi[b + O_SL + x]
    if loc == 0:
        return
    now = gi[G_NOW]
    w = gi[b + O_SW + x]
    if word_count(w) != 0 and last_read(w, now) == now:
        return
    w = read_word(w, now)
    gi[b + O_SW + x] = w
    if loc == 2:
        _heap_push(gi, gf, j, t, x, w)


@cast_kernel
def tune_free(s, p, t):  # type: ignore[no-untyped-def]
    """Page ``p`` freed by its owner: it leaves every sim and the curve's order."""
    x = s.pm[p, SIDX]
    if x < 0:
        return
    x &= SLOT_MASK
    s.pm[p, SIDX] = x
    for i in range(N_SIM_T):
        _drop(s.gi, s.gf, t * N_SIM_T + i, x)
    last = _last(s.gi, s.gf, t, x)
    if last > 0:
        _fen_add(s.gi, s.gf, t, last, -1)
    s.gi[G_TYPEBIG + t * TYPE_SIZE + P_LAST + x] = 0


@cast_kernel
def decide_decay(s, t):  # type: ignore[no-untyped-def]
    """Move type ``t``'s decay to the sim that beats the centre by the sign test; True if moved."""
    best = -1
    best_z = 0.0
    for i in range(1, 9):
        j = t * N_SIM_T + i
        if s.gi[_sv(j) + S_ON] == 0:
            continue
        pl = s.gi[G_SIMPLUS + j]
        mi = s.gi[G_SIMMINUS + j]
        if sign_test(pl, mi) > 0:
            z = (pl - mi) / math.sqrt(float(pl + mi))
            if z > best_z:
                best_z = z
                best = i
    if best < 0:
        return False
    s.gi[G_LE + t] = s.gi[_sv(t * N_SIM_T + best) + S_LE]
    s.gi[G_DMOVE + t] += 1
    _reset_sweep(s, t)
    _centre_sims(s.gi, s.gf, t)
    return True


@cast_kernel
def decide_w(s, t):  # type: ignore[no-untyped-def]
    """Step W's share 100 permille toward the better of W- and W+ once the test decides."""
    j = t * N_SIM_T + SIM_WPLUS
    d = sign_test(s.gi[G_SIMPLUS + j], s.gi[G_SIMMINUS + j])
    if d == 0:
        return False
    w = min(max(s.gi[G_WPM + t] + 100 * d, 0), 1000)
    s.gi[G_SIMPLUS + j] = 0
    s.gi[G_SIMMINUS + j] = 0
    if w == s.gi[G_WPM + t]:
        return False
    s.gi[G_WPM + t] = w
    s.gi[G_WMOVE + t] += 1
    _centre_sims(s.gi, s.gf, t)
    return True


@cast_kernel
def decide_split(s):  # type: ignore[no-untyped-def]
    """Set or move the split (anon's share, permille) from the curves; True if it moved."""
    if s.gf[F_MRC + 10] + s.gf[F_MRC + 12 + 10] <= 0.0:
        return False
    if s.gi[G_SPLIT] < 0:
        cur = min(max((anon_share(s) + 50) // 100, 1), 9)
        s.gi[G_SPLIT] = 100 * cur
    cur = min(max((s.gi[G_SPLIT] + 50) // 100, 1), 9)
    k = split_choice(s, cur)
    if k == cur:
        return False
    s.gi[G_SPLIT] = 100 * k
    s.gi[G_SMOVE] += 1
    return True


@cast_kernel
def tune_decide(s):  # type: ignore[no-untyped-def]
    """The tests decide: decay (else W's share) per type, then the split."""
    for t in range(2):
        if s.gi[G_DAUTO] != 0:
            if not decide_decay(s, t):
                decide_w(s, t)
    if s.gi[G_SAUTO] != 0:
        decide_split(s)
        # the curves forget by half once they hold as many reads as the LRUs hold pages, the
        # costs' rule
        if s.gf[F_MRC + 10] + s.gf[F_MRC + 12 + 10] >= curve_memory(s):
            for i in range(24):
                s.gf[F_MRC + i] *= 0.5
                s.gf[F_MRCVAR + i] *= 0.25


@cast_kernel
def curve_memory(s):  # type: ignore[no-untyped-def]
    """Reads the curves hold before they halve."""
    if s.gi[G_CURVEMEM] > 0:
        return max(1, s.gi[G_CURVEMEM] * 10 * mrc_unit(s.gi, s.gf))
    return max(1, type_pages(s, 0) + type_pages(s, 1))


@cast_kernel
def tune_tick(s):  # type: ignore[no-untyped-def]
    """Once a tick: the sims' capacity follows the lists; the tests decide; the curves age."""
    s.gi[G_TICKS] += 1
    s.gi[G_LRUPG] = type_pages(s, 0) + type_pages(s, 1)
    for t in range(2):
        s.gi[G_SCAP + t] = max(1, (type_pages(s, t) * s.gi[G_RATE]) // 65536)
    tune_decide(s)
