"""Where CAST keeps its state in a :class:`~pagesim.core.state.State`: columns and global slots.

Per page (``s.pm`` columns): the state word, the isolation and candidate flags, and two
columns used as flat scratch arrays (not per page) for the keys each pass of the sweep saw.
Globals (``s.gi`` from ``GI_USER``): per lruvec (this instance) the clock, and per type
(0 anon, 1 file) W's list, M's size, the decay, W's share, the sweep's cursor, candidates and
quantile; the block bitmap; counters for the readouts. Floats (``s.gf``): the type-choice
credits and the refault-wait sums of the cost estimate.
"""

from __future__ import annotations

from pagesim.core.state import GI_USER

ANON_T = 0
FILE_T = 1
SWAPOUT_K = 2  #: the third kind of cost sample (costs.note_wait): an anon page written out

# ---- s.pm columns
WORD = 0  #: the 32-bit state word (core.py)
ISO = 1  #: 1 while proposed to the engine by the last evict call (off W, skipped by the sweep)
INBUF = 2  #: 1 while the page is among the sweep's candidates
PASSK = 3  #: + type: scratch column, the keys seen by the current pass of the sweep (slot = row)
SIDX = 5  #: the page's slot in the controllers' sample: -1 not sampled, -2 sampled (no slot yet)
#: set in SIDX while a sampled anon page's young bit was seen by the sample (an access's hinting
#: fault; with ``sample_faults`` off, also its fault's: sample.py)
SAMPLE_PENDING = 1 << 40
#: set in SIDX while a young bit the sample's harvest took is held for the walker and reclaim
SAMPLE_HELD = 1 << 41
SLOT_MASK = SAMPLE_PENDING - 1
N_PM = 6

# ---- the sweep
N_BLOCKS = 256  #: blocks of the per-lruvec bitmap
N_CAND = 128  #: candidates the sweep keeps (the lowest keys)
#: The candidates: a sorted window of entries [head, head + n) in BUF_CAP entries per type, each
#: BUF_W consecutive slots (page, key, word, tie rank), so that dropping the lowest is a step of
#: the head and an insertion moves one contiguous block; the window is moved back to entry 0
#: when it reaches the end.
BUF_W = 4
BUF_CAP = 2 * N_CAND
BUF_PAGE = 0
BUF_KEY = 1
BUF_WORD = 2
BUF_TB = 3
ENOUGH_MAX = 32  #: the sweep stops once it holds this many keys below the quantile (or fewer, below)
QUANTILE_DIV = 16  #: the 1/16 quantile of the last pass

# ---- s.gi slots
_g = GI_USER
G_CG = _g  #: this lruvec's cgroup
G_CAP = _g + 1  #: capacity given to configure (cache mode's memory)
G_MEM = _g + 2  #: pages memory holds (a[A_MEMORY] in kernel mode, else the capacity)
G_ACC = _g + 3  #: clock: pages taken in less freed since the last tick (>= -memory)
G_NOW = _g + 4  #: clock: the tick, unwrapped
G_IN = _g + 5  #: clock: pages taken in
G_OUT = _g + 6  #: clock: pages evicted
G_FREED = _g + 7  #: clock: pages freed by their owners
G_LE = _g + 8  #: + type: decay level 1..14
G_WPM = _g + 10  #: + type: W's share, permille of the type's pages
G_LIST = _g + 12  #: + type: W's framework list
G_MSIZE = _g + 14  #: + type: pages in M
G_CURSOR = _g + 16  #: + type: the sweep's cursor (a block start)
G_BUFLEN = _g + 18  #: + type: candidates held
G_Q = _g + 20  #: + type: the 1/16 quantile of the last pass's keys
G_QVALID = _g + 22  #: + type: 1 once a pass has completed with keys
G_PASSN = _g + 24  #: + type: keys recorded in the current pass
G_PASSES = _g + 26  #: + type: passes completed
G_BUDGET = _g + 28  #: + type: pages the sweep may still advance in this evict call
G_SEQ = _g + 30  #: sweep order: a counter stamped on each candidate found
G_BLKSZ = _g + 31  #: pages per bitmap block
G_SWP = _g + 32  #: parameter swappiness_override (-1: the node's vm.swappiness)
G_WALKER = _g + 33  #: parameter walker (0/1)
G_VISITED = _g + 34  #: words read by the current evict call (a[A_SCANNED])
G_NISO = _g + 35  #: pages proposed by the last evict call ...
G_ISO = _g + 36  #: ... and their ids (32 slots)
G_SLACK = G_ISO + 32  #: pages the current evict call is asked for (W's excess that meets M)
G_HISTORY = G_SLACK + 1  #: parameter history: a refault gets back the word its shadow kept
G_LEAVE = G_HISTORY + 1  #: parameter walker_leave: the walker leaves set a young bit that would add nothing
G_SFAULT = G_LEAVE + 1  #: parameter sample_faults: sampled anon pages are PROT_NONE (every access faults)
G_BUFHEAD = G_SFAULT + 1  #: + type: the entry the lowest candidate sits at (the buffer's window starts there)
_s = G_BUFHEAD + 2
# counters (readouts)
G_SWEEPS = _s  #: sweeps run
G_WORDS = _s + 1  #: state words read by the sweep
G_FRAMES = _s + 2  #: frames passed over by the sweep (bitmap skips included)
G_FOUND = _s + 3  #: candidates taken into the buffer
G_TAKEN = _s + 4  #: candidates taken (M's lowest evicted, or met by W's tail)
G_STALE = _s + 5  #: candidates found stale when checked (read again, gone)
G_YOUNG = _s + 6  #: young bits taken as reads by the walker
G_LOOK = _s + 7  #: young bits taken as reads by reclaim and its look-around
G_WWIN = _s + 8  #: W's tail outranked M's lowest: into M
G_WLOST = _s + 9  #: W's tail evicted
G_PICK = _s + 10  #: + type: pages proposed per type
G_BITMAP = _s + 12  #: N_BLOCKS slots: 1 if the block may hold a page of M
G_BUF = G_BITMAP + N_BLOCKS  #: per type BUF_CAP entries of BUF_W slots: page, key, word, tie rank
_c = G_BUF + 2 * BUF_W * BUF_CAP
# ---- the controllers (sample.py, sims.py, mrc.py, costs.py, tune.py)
G_DAUTO = _c  #: decay_auto: the controllers set the decay and W's share
G_SAUTO = _c + 1  #: the split controller on (0: the split stays at G_SPLIT, parameter split_permille)
G_SPLIT = _c + 2  #: anon's share the reclaim presses toward, permille (-1: none chosen yet)
G_CLEANMIN = _c + 3  #: clean_min_ratio, % of memory
G_KCOMP = _c + 4  #: kcompressd queue depth (the engine runs the thread: Policy.kcompressd_depth)
G_SWAPOUT = _c + 5  #: ns to write an anon page out (added to anon's cost)
G_RATE = _c + 6  #: the sample's share of the page-id space, /65536
G_NSAMP = _c + 7  #: + type: sample slots given out
G_SCAP = _c + 9  #: + type: the simulated caches' capacity (pages)
G_FLOOR = _c + 11  #: reclaim passes the clean-file floor held
G_BAL = _c + 12  #: 4 slots: evict calls that took anon only, file only, nothing, both
G_DMOVE = _c + 16  #: + type: decay moves
G_WMOVE = _c + 18  #: + type: W share moves
G_SMOVE = _c + 20  #: split moves
G_PRESS = _c + 21  #: the last swappiness reclaim pressed with
G_ENABLED = _c + 22  #: enabled (always 1)
G_EVENTS = _c + 23  #: + type: sample events fed
G_TICKS = _c + 25  #: ticks seen by the controllers
G_MRCTS = _c + 26  #: + type: the MRC's stamp counter
G_SAMPLEP = _c + 28  #: parameter sample_pages (0: the rule in sample.py)
G_HACC = _c + 29  #: pages taken in since the sample's young bits were last harvested
G_PREVREAD = _c + 30  #: the page the last file read (kernel mode) was of (-2: none yet)
G_SEQREAD = _c + 31  #: 1 while the current file read hit and continues the reader's sequential run
G_HITREAD = _c + 32  #: 1 while the current read hit in the real cache (kernel mode)
G_CURVEMEM = _c + 33  #: parameter curve_memory (mrc.curve_memory)
G_PRESSPOW = _c + 34  #: parameter press_power: how steeply the press rises with a type's excess
G_LRUPG = _c + 35  #: pages on the lists at the last tick (what the split divides; the curves' sizes)
G_SIMPLUS = _c + 36  #: 2 types x 11: sign-test counts: sim i hit where the centre missed (i=10: W+ vs W-)
G_SIMMINUS = G_SIMPLUS + 22  #: ... and the centre hit where sim i missed
N_SIM_T = 11  #: simulated caches per type: 9 decays (offsets 0, -1, +1, -2, +2, -4, +4, -8, +8), W-, W+
N_SIMS = 2 * N_SIM_T
SIM_NS = 12  #: scalars per simulated cache
S_LE = 0
S_WPM = 1
S_WLEN = 2
S_MLEN = 3
S_RHEAD = 4
S_RTAIL = 5
S_HLEN = 6
S_STAMP = 7
S_MISS = 8
S_HIT = 9
S_ON = 10
S_ACC = 11
G_SIM = G_SIMMINUS + 22  #: N_SIMS x SIM_NS
SMAX = 8192  #: sample slots per type
RING = 2 * SMAX  #: a simulated W's ring (lazy entries)
HEAP = 2 * SMAX  #: a simulated M's heap (lazy entries)
TF = 4 * SMAX  #: the MRC's stamps before renumbering
# per simulated cache, from its base: word, location (0 none, 1 W, 2 M), stamp; W ring (slot, stamp);
# M heap (key, tie rank, slot, word)
O_SW = 0
O_SL = SMAX
O_SS = 2 * SMAX
O_RX = 3 * SMAX
O_RS = O_RX + RING
O_HK = O_RS + RING
O_HT = O_HK + HEAP
O_HX = O_HT + HEAP
O_HW = O_HX + HEAP
SIM_SIZE = O_HW + HEAP
G_BIG = G_SIM + N_SIMS * SIM_NS
# per type, after the simulated caches: the page of each slot, the MRC's last stamps, its Fenwick tree
G_TYPEBIG = G_BIG + N_SIMS * SIM_SIZE
P_PAGE = 0
P_LAST = SMAX
P_FEN = 2 * SMAX
TYPE_SIZE = P_FEN + TF + 1
#: kernel mode: pages of memory zram holds compressed, as the last event told (``a[A_ZRAM_PAGES]``)
G_ZRAM = G_TYPEBIG + 2 * TYPE_SIZE
N_GLOBALS = G_ZRAM + 1 - GI_USER


# ---- s.gf slots
F_CREDIT = 0  #: + type: the type-choice credits
F_WAIT_SUM = 2  #: + type: refault waits' sum, ns (halved as it ages)
F_WAIT_N = 4  #: + type: refault waits' number (halved with the sum)
F_MRC = 6  #: + 12 * type: the MRC: hits first reached at size (k+1)/10 of memory (k 0..9), accesses (10)
F_SPLIT_COST = F_MRC + 24  #: 9 slots: the weighed misses of anon share 1/10..9/10 at the last decision
#: 16 log2(score) by (decay level, count, gap classes), filled on first use (0.0: not yet): the
#: score depends on nothing else, and reading it back gives the very double key_of computes.
#: + 12 * type: the variance of each of the MRC's hit counts (a placed read adds its weight squared;
#: halving the curve quarters it), for the split's two standard deviations
F_MRCVAR = F_SPLIT_COST + 9
#: what writing anon out cost (``a[A_WAIT_NS]`` of a removed page written to swap): sum, ns, and
#: number, halved as the refault waits are
F_OUT_SUM = F_MRCVAR + 24
F_OUT_N = F_OUT_SUM + 1
#: + kind (0 anon refault, 1 file refault, 2 anon write-out): every sample's sum, ns, and number,
#: never halved (the seed's per-queue lines, ``cpu:`` and ``bdi N:``)
F_ALL_SUM = F_OUT_N + 1
F_ALL_N = F_ALL_SUM + 3
F_KEYTAB = F_ALL_N + 3
KEYTAB_LEVELS = 14
N_FLOATS = F_KEYTAB + KEYTAB_LEVELS * 256 * 256
