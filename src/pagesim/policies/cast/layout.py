"""CAST's state: what it keeps per page and per lruvec, declared once (:mod:`pagesim.core.layout`).

Per page (``PM``): the state word, the isolation and candidate flags, the sample slot, and two
columns used as flat scratch arrays (not per page) for the keys each pass of the sweep saw.
Globals (``GI``): per lruvec (this instance) the clock, and per type (0 anon, 1 file) W's list,
M's size, the decay, W's share, the sweep's cursor, candidates and quantile; the block bitmap;
counters for the readouts; the controllers' state, simulated caches and sample. Floats (``GF``):
the type-choice credits, the refault-wait sums of the cost estimate, the miss-ratio curves and
the key table. A field marked "per type" holds one slot per type, anon first (``GI.le + t``).

Blocks repeated inside a global are :class:`~pagesim.core.layout.Record`\\ s: ``BUF_ENTRY`` (one
sweep candidate), ``SIM_VARS`` (a simulated cache's scalars, in ``GI.sim``), ``SIM_ARRAYS`` (a
simulated cache's arrays, in ``GI.big``), ``TYPE_ARRAYS`` (a type's sample arrays, in
``GI.typebig``) and ``MRC_ROW`` (a type's miss-ratio curve, in ``GF.mrc`` and ``GF.mrcvar``).
``STATE.describe()`` prints the whole declaration.
"""

from __future__ import annotations

from pagesim.core.bloom import BLOOM_FILTER_SHIFT
from pagesim.core.layout import Layout, Record, field

ANON_T = 0
FILE_T = 1
SWAPOUT_K = 2  #: the third kind of cost sample (costs.note_wait): an anon page written out

#: set in ``PM.sidx`` while a sampled anon page's young bit was seen by the sample (an access's
#: hinting fault; with ``sample_faults`` off, also its fault's: sample.py)
SAMPLE_PENDING = 1 << 40
#: set in ``PM.sidx`` while a young bit the sample's harvest took is held for the walker and reclaim
SAMPLE_HELD = 1 << 41
SLOT_MASK = SAMPLE_PENDING - 1

# ---- the sweep
N_BLOCKS = 256  #: blocks of the per-lruvec bitmap
N_CAND = 128  #: candidates the sweep keeps (the lowest keys)
#: One of the sweep's candidates. They are a sorted window of entries [head, head + n) in
#: BUF_CAP entries per type, so that dropping the lowest is a step of the head and an insertion
#: moves one contiguous block; the window is moved back to entry 0 when it reaches the end.
BUF_ENTRY = Record(
    "buf_entry",
    field("page", "page id", "the candidate"),
    field("key", "key", "its eviction key"),
    field("word", "word", "its state word when found"),
    field("tb", "rank", "tie rank: the sweep order it was found in"),
).at
BUF_W = BUF_ENTRY.SIZE
BUF_CAP = 2 * N_CAND
ENOUGH_MAX = 32  #: the sweep stops once it holds this many keys below the quantile (or fewer, below)
QUANTILE_DIV = 16  #: the 1/16 quantile of the last pass

# ---- the walker's Bloom filter of page tables (walk.py): MGLRU's size, two hashes
BLOOM_SHIFT = BLOOM_FILTER_SHIFT  #: bits per filter: 1 << 15 (core.bloom, MGLRU's)
BLOOM_WORDS = (1 << BLOOM_SHIFT) // 32  #: 32 bits a slot

# ---- the controllers' simulated caches and sample (sample.py, sims.py, mrc.py)
N_SIM_T = 11  #: simulated caches per type: 9 decays (offsets 0, -1, +1, -2, +2, -4, +4, -8, +8), W-, W+
N_SIMS = 2 * N_SIM_T
SMAX = 8192  #: sample slots per type
RING = 2 * SMAX  #: a simulated W's ring (lazy entries)
HEAP = 2 * SMAX  #: a simulated M's heap (lazy entries)
TF = 4 * SMAX  #: the MRC's stamps before renumbering
#: A simulated cache's scalars.
SIM_VARS = Record(
    "sim_vars",
    field("le", "level", "decay level 1..14"),
    field("wpm", "permille", "W's share"),
    field("wlen", "pages", "pages in the simulated W"),
    field("mlen", "pages", "pages in the simulated M"),
    field("rhead", "entry", "W ring's head"),
    field("rtail", "entry", "W ring's tail"),
    field("hlen", "entries", "M heap's length"),
    field("stamp", "tick", "stamp counter"),
    field("miss", "accesses", "misses"),
    field("hit", "accesses", "hits"),
    field("on", "flag", "1 while the simulated cache runs"),
    field("acc", "pages", "clock: pages taken in less freed since the last tick"),
).at
SIM_NS = SIM_VARS.SIZE
#: A simulated cache's arrays, by sample slot (word, location, stamp), then its W ring and M heap.
SIM_ARRAYS = Record(
    "sim_arrays",
    field("sw", "word", "the slot's state word", count=SMAX),
    field("sl", "location", "0 none, 1 W, 2 M", count=SMAX),
    field("ss", "tick", "the slot's stamp", count=SMAX),
    field("rx", "slot", "W ring: entry's slot", count=RING),
    field("rs", "tick", "W ring: entry's stamp", count=RING),
    field("hk", "key", "M heap: entry's key", count=HEAP),
    field("ht", "rank", "M heap: entry's tie rank", count=HEAP),
    field("hx", "slot", "M heap: entry's slot", count=HEAP),
    field("hw", "word", "M heap: entry's word", count=HEAP),
).at
SIM_SIZE = SIM_ARRAYS.SIZE
#: A type's sample arrays, after the simulated caches.
TYPE_ARRAYS = Record(
    "type_arrays",
    field("page", "page id", "the page of each sample slot", count=SMAX),
    field("last", "tick", "the MRC's last stamp of each slot", count=SMAX),
    field("fen", "count", "the MRC's Fenwick tree over stamps", count=TF + 1),
).at
TYPE_SIZE = TYPE_ARRAYS.SIZE
KEYTAB_LEVELS = 14

# ---- the miss-ratio curves (mrc.py)
MRC_SIZES = 10  #: sizes a curve reads: (k+1)/10 of what the split divides, k 0..9
#: One type's row of ``GF.mrc`` (the curve's counts) and of ``GF.mrcvar`` (each count's variance).
MRC_ROW = Record(
    "mrc_row",
    field("hits", "accesses", "hits first reached at size (k+1)/10, k 0..9", count=MRC_SIZES),
    field("reads", "accesses", "reads counted (the curve's accesses)"),
    field("spare", "-", "not used"),
).at
MRC_W = MRC_ROW.SIZE

STATE = Layout(
    "cast",
    pm=(
        field("word", "word", "the 32-bit state word (core.py)"),
        field(
            "iso",
            "flag",
            "1 while proposed to the engine by the last evict call (off W, skipped by the sweep)",
        ),
        field("inbuf", "flag", "1 while the page is among the sweep's candidates"),
        field(
            "passk",
            "key",
            "per type: scratch column, the keys seen by the current pass (slot = row)",
            count=2,
        ),
        field(
            "sidx",
            "slot",
            "the page's slot in the sample: -1 not sampled, -2 sampled (no slot yet); flags SAMPLE_*",
        ),
        field("mm", "tag + 1", "kernel mode, anon: the task (mm) that maps the page here; 0 none"),
        field("mmrow", "flag", "row = a task's tag: 1 once its mm is on the walker's list (scratch)"),
        field("pmdleft", "flag", "row = a page table: 1 if the last walk left a young bit in it (scratch)"),
    ),
    gi=(
        field("cg", "cgroup", "this lruvec's cgroup"),
        field("cap", "pages", "capacity given to configure (cache mode's memory)"),
        field("mem", "pages", "memory (a[A_MEMORY] in kernel mode, else the capacity)"),
        field("acc", "pages", "clock: pages taken in less freed since the last tick (>= -memory)"),
        field("now", "tick", "clock: the tick, unwrapped"),
        field("taken_in", "pages", "clock: pages taken in"),
        field("out", "pages", "clock: pages evicted"),
        field("freed", "pages", "clock: pages freed by their owners"),
        field("le", "level", "per type: decay level 1..14", count=2),
        field("wpm", "permille", "per type: W's share of the type's pages", count=2),
        field("list", "list id", "per type: W's framework list", count=2),
        field("msize", "pages", "per type: pages in M", count=2),
        field("cursor", "page id", "per type: the sweep's cursor (a block start)", count=2),
        field("buflen", "entries", "per type: candidates held", count=2),
        field("q", "key", "per type: the 1/16 quantile of the last pass's keys", count=2),
        field("qvalid", "flag", "per type: 1 once a pass has completed with keys", count=2),
        field("passn", "keys", "per type: keys recorded in the current pass", count=2),
        field("passes", "passes", "per type: passes completed", count=2),
        field("budget", "pages", "per type: pages the sweep may still advance in this evict call", count=2),
        field("seq", "rank", "sweep order: a counter stamped on each candidate found"),
        field("blksz", "pages", "pages per bitmap block"),
        field("swp", "0-200", "parameter swappiness_override (-1: the node's vm.swappiness)"),
        field("walker", "flag", "parameter walker"),
        field("visited", "words", "words read by the current evict call (a[A_SCANNED])"),
        field("niso", "pages", "pages proposed by the last evict call ..."),
        field("iso", "page id", "... and their ids", count=32),
        field("slack", "pages", "pages the current evict call is asked for (W's excess that meets M)"),
        field("history", "flag", "parameter history: a refault gets back the word its shadow kept"),
        field("leave", "flag", "parameter walker_leave: leave a young bit that would add nothing"),
        field("sfault", "flag", "parameter sample_faults: sampled anon pages are PROT_NONE"),
        field("bufhead", "entry", "per type: the entry the lowest candidate sits at", count=2),
        field("sweeps", "sweeps", "readout: sweeps run"),
        field("words", "words", "readout: state words read by the sweep"),
        field("frames", "frames", "readout: frames passed over by the sweep (bitmap skips included)"),
        field("found", "pages", "readout: candidates taken into the buffer"),
        field("taken", "pages", "readout: candidates taken (M's lowest evicted, or met by W's tail)"),
        field("stale", "pages", "readout: candidates found stale when checked (read again, gone)"),
        field("young", "bits", "readout: young bits taken as reads by the walker"),
        field("look", "bits", "readout: young bits taken as reads by reclaim and its look-around"),
        field("wwin", "pages", "readout: W's tail outranked M's lowest: into M"),
        field("wlost", "pages", "readout: W's tail evicted"),
        field("pick", "pages", "readout, per type: pages proposed", count=2),
        field("bitmap", "flag", "per block: 1 if the block may hold a page of M", count=N_BLOCKS),
        field("buf", "BUF_ENTRY", "per type: the sweep's candidates", shape=(2, BUF_CAP, BUF_W)),
        field("dauto", "flag", "decay_auto: the controllers set the decay and W's share"),
        field("sauto", "flag", "the split controller on (0: the split stays at GI.split)"),
        field("split", "permille", "anon's share the reclaim presses toward (-1: none chosen yet)"),
        field("cleanmin", "%", "clean_min_ratio, of memory"),
        field("kcomp", "requests", "kcompressd queue depth (Policy.kcompressd_depth)"),
        field("swapout", "ns", "to write an anon page out (added to anon's cost)"),
        field("rate", "1/65536", "the sample's share of the page-id space"),
        field("nsamp", "slots", "per type: sample slots given out", count=2),
        field("scap", "pages", "per type: the simulated caches' capacity", count=2),
        field("floor", "passes", "reclaim passes the clean-file floor held"),
        field("bal_anon", "calls", "evict calls that took anon only"),
        field("bal_file", "calls", "evict calls that took file only"),
        field("bal_none", "calls", "evict calls that took nothing"),
        field("bal_both", "calls", "evict calls that took both types"),
        field("dmove", "moves", "per type: decay moves", count=2),
        field("wmove", "moves", "per type: W share moves", count=2),
        field("smove", "moves", "split moves"),
        field("press", "0-200", "the last swappiness reclaim pressed with"),
        field("enabled", "flag", "enabled (always 1)"),
        field("events", "events", "per type: sample events fed", count=2),
        field("ticks", "ticks", "ticks seen by the controllers"),
        field("mrcts", "tick", "per type: the MRC's stamp counter", count=2),
        field("samplep", "pages", "parameter sample_pages (0: the rule in sample.py)"),
        field("hacc", "pages", "taken in since the sample's young bits were last harvested"),
        field("prevread", "page id", "the page the last file read (kernel mode) was of (-2: none yet)"),
        field("seqread", "flag", "1 while the current file read hit and continues a sequential run"),
        field("hitread", "flag", "1 while the current read hit in the real cache (kernel mode)"),
        field("curvemem", "flag", "parameter curve_memory (mrc.curve_memory)"),
        field("presspow", "1", "parameter press_power: how steeply the press rises with a type's excess"),
        field("lrupg", "pages", "on the lists at the last tick (what the split divides; the curves' sizes)"),
        field(
            "simplus",
            "accesses",
            "sign test: sim i hit where the centre missed (i=10: W+ vs W-)",
            shape=(2, N_SIM_T),
        ),
        field("simminus", "accesses", "sign test: the centre hit where sim i missed", shape=(2, N_SIM_T)),
        field("sim", "SIM_VARS", "each simulated cache's scalars", shape=(N_SIMS, SIM_NS)),
        field("big", "SIM_ARRAYS", "each simulated cache's arrays", shape=(N_SIMS, SIM_SIZE)),
        field("typebig", "TYPE_ARRAYS", "per type: the sample's arrays", shape=(2, TYPE_SIZE)),
        field("zram", "pages", "kernel mode: memory zram holds compressed, as the last event told"),
        field("aseq", "event", "a[A_SEQ] of the event being handled (kernel mode)"),
        field("wseq", "event", "a[A_SEQ] of the last walk (-1: none yet)"),
        field("wmm", "flag", "parameter walker_mm: skip an mm no CPU ran since the last walk"),
        field("wpmd", "flag", "parameter walker_pmd: skip a page table whose PMD accessed bit is clear"),
        field("wbloom", "mode", "parameter walker_bloom: 0 off, 1 fallback, 2 always (knobs.bloom_mode)"),
        field("simd", "flag", "parameter walker_simd: a page table's young bits read a cache line at once"),
        field("ptens", "ns", "parameter walk_pte_ns: one PTE read (and a young PTE's handling)"),
        field("pmdns", "ns", "parameter walk_pmd_ns: one PMD entry read"),
        field("force", "flag", "1 when an mm joined since the last walk: the next walk is not filtered"),
        field("bloomg", "filter", "the filter the next walk reads (0 or 1); the other is built by it"),
        field("bloomon", "bits", "bit g: filter g was built by a walk"),
        field(
            "bloom", "bits", "the two Bloom filters of page tables, 32 bits a slot", shape=(2, BLOOM_WORDS)
        ),
        field("walks", "walks", "readout: walks run"),
        field("wptes", "PTEs", "readout: PTEs the walker read"),
        field("wpmds", "entries", "readout: PMD entries the walker read"),
        field("wtables", "tables", "readout: page tables the walker read"),
        field("skipmm", "tables", "readout: page tables not reached: no mm with PTEs there ran"),
        field("skippmd", "tables", "readout: page tables skipped: the PMD accessed bit clear"),
        field("skipbloom", "tables", "readout: page tables skipped: not in the Bloom filter"),
        field("lptes", "PTEs", "readout: PTEs the look-around read"),
        field("linens", "ns", "parameter sweep_line_ns: one 64-byte line of state words read in sequence"),
        field("keyns", "ns", "parameter sweep_key_ns: one word of the swept type's M keyed and compared"),
        field("fwords", "words", "readout: words the sweep read of pages in memory (a PFN array's words)"),
        field("keys", "words", "readout: keys the sweep computed (words of the swept type's M)"),
    ),
    gf=(
        field("credit", "1", "per type: the type-choice credits", count=2),
        field("wait_sum", "ns", "per type: refault waits' sum (halved as it ages)", count=2),
        field("wait_n", "waits", "per type: refault waits' number (halved with the sum)", count=2),
        field(
            "mrc",
            "MRC_ROW",
            "per type: the miss-ratio curve's counts (hits by size, reads)",
            shape=(2, MRC_W),
        ),
        field(
            "split_cost",
            "misses",
            "the weighed misses of anon share 1/10..9/10 at the last decision",
            count=9,
        ),
        field(
            "mrcvar",
            "MRC_ROW",
            "per type: the variance of each of the curve's counts (accesses^2)",
            shape=(2, MRC_W),
        ),
        field("out_sum", "ns", "what writing anon out cost (a[A_WAIT_NS]): sum, halved as the waits are"),
        field("out_n", "writes", "... and number"),
        field(
            "all_sum",
            "ns",
            "per kind (anon refault, file refault, anon write-out): every sample's sum, never halved",
            count=3,
        ),
        field("all_n", "samples", "... and number", count=3),
        field("walk_ns", "ns", "readout: the walker's modelled CPU (costs.walk_cost_ns)"),
        field("look_ns", "ns", "readout: the look-around's modelled CPU (costs.walk_cost_ns)"),
        field("sweep_ns", "ns", "readout: the sweep's modelled CPU (costs.sweep_cost_ns)"),
        field(
            "keytab",
            "log2",
            "log2(score) by (decay level, count, gap class), filled on first use (0.0: not yet)",
            shape=(KEYTAB_LEVELS, 256, 256),
        ),
    ),
)
PM, GI, GF = STATE.pm, STATE.gi, STATE.gf
