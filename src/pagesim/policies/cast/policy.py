"""CAST: a self-tuning LRFU per lruvec and type, in a window W and a main part M (the hooks).

Source      The CAST seed (shared/seeds/000_ce948a5f47243f59.txt, lru_cast v0.2.6 by Masahito
            Suzuki): "The state word", "The clock of pressure", "The key", "W and M", "Ties",
            "The sweep", "Young bits". No source code of CAST is public; where the seed leaves
            a detail open the choice is listed under Choices and tested in tests/unit/test_cast_*.
Structures  Per page the 32-bit state word (``s.pm[:, WORD]``; layout, clock, key: core.py).
            Per lruvec (one instance per cgroup) and type (0 anon, 1 file): W, a framework list
            of newcomers in arrival order (head newest, tail oldest); M, unordered: the pages
            whose word carries this lruvec's tag for the type, counted in ``gi[G_MSIZE + t]``;
            a bitmap of 256 blocks of page ids that may hold a page of M; the sweep's cursor,
            its 128 candidates (page, key, word when found, tie rank) and the 1/16 quantile of
            the keys its last pass saw. Slots: layout.py.
Rules       added: the clock counts the page (it may tick: walker, then tick += 1); the page
            gets a fresh word (a refault too, Choice 6); the fault is a read (cache mode; anon
            in kernel mode), while a file page in kernel mode is read by the ``accessed`` that
            follows a demand read (a readahead page is taken in unread, count 0); the page goes
            to W's head.
            accessed: a read at the current tick (the word's only change).
            evict: pages proposed by the last call and not evicted go back (W's to its tail).
            Then, page by page, a type is chosen (both pressed toward the split: weights
            ``sw * pages(anon)`` and ``(200 - sw) * pages(file)`` with ``sw`` from tune.py,
            kept exact over time by credits; 0 file only, 1 file first, 200 anon first; anon
            only while swap has slots) and of that type: while W is over its share
            (``1000 |W| > w_permille (|W| + |M|)``), or M is empty, W's tail meets M's lowest
            and the lower goes; the winner from W joins M. While W is within its share, M's
            lowest goes. A candidate is checked before it is taken: still resident, in M, its
            word unchanged since the sweep found it (a page read again since is passed over);
            an anon page's young bit is a read (and a look-around, walk.py).
            Ties (equal keys): a page read at most once goes by the sweep's order (the order it
            was found in, a clock), and W's newcomer wins a tie, being the one read last; a
            page read more than once goes by a hash of its frame (page id), lowest first, so a
            loop keeps the same part of itself pass after pass. At an exact key tie between a
            page read once and one read more, the one read once goes.
            The sweep (M's lowest): state words in page-id order from the cursor, a block at a
            time, skipping blocks whose bitmap bit is clear (a block found without a page of M
            is cleared; a page joining M sets its block's bit); the keys of this type's M pages
            are recorded for the pass and the 128 lowest kept as candidates; it stops at a block
            end once it holds ``enough`` keys at or below the 1/16 quantile of the last pass,
            or after one whole circle in one evict call. A pass ends when the cursor wraps: its
            quantile replaces the last. The sweep runs when there is no candidate, or none at or
            below the quantile.
            removed: an eviction leaves a shadow entry (the word and its last read's tick whole)
            and counts in the clock's evicted; a page freed by its owner leaves none and is
            taken off the clock's intake.
Choices     (seed details left open; each tested)
            1. Word layout (core.py): count 8 bits (the seed: 255 reads tie), tag 4, gaps 4 + 4
               (class = bit length, read back as the class's lower end), tick 12 (mod 4096,
               ages clamped at 2048 every 512 ticks).
            2. Half-life ``H = C 2^(8 - le)`` pages with ``C`` = memory (le 1: 128 times memory,
               the seed's own figure), so H = 2^(10 - le) ticks. Default decay le 8: H = memory
               (the middle of the controller's range, where 2^(8 - le) = 1).
            3. Reads before the third are assumed to continue at the mean of the two known gaps.
            4. A page never read (readahead) has the lowest key.
            5. The clock: intake counted before the new page's read is stamped (a page that
               completes a quarter is stamped with the new tick); the intake less frees may go
               below zero down to minus memory (frees make room without pressure); the walker
               runs just before each tick, reads stamped with the ending tick.
            6. A refault comes back with its history (seed: "a page that came back with its
               history"): it gets back the word its shadow kept (in cache mode every evicted
               page keeps one), read once more; its wait is a sample (tune.py). A loop's pages
               then count every pass, and at a near-LFU decay their keys tie and the frame hash
               keeps the same part of the loop (a file loop read by read() has no young bits to
               give its pages a second read otherwise). ``history = False`` gives a refault a
               fresh word, as a newcomer.
            7. The sweep's ``enough``: 32 (a reclaim batch), or |M| / 32 (half of what lies
               below the 1/16 quantile) when M is smaller; "below" counts keys equal to the
               quantile (keys are coarse; ties at the quantile are common).
            8. W's share default 100 permille (the seed's controller moves it in 10 % steps).
            9. M filling up: W's tail meets M's lowest only for the pages W is over its share
               by up to the pages the call is asked for (one in cache mode, a batch in kernel
               mode); W's pages beyond that (after the first fill of memory, when W held every
               page, or when a type grows between two reclaims) join M unopposed, as a
               W-TinyLFU window's overflow enters a main cache that has room. Without this M
               could never grow: each meeting leaves M's size as it was.
            10. The walker "takes no bit that would add nothing (a page already read this
               tick)": it leaves such a bit set (it does not test-and-clear it), so the next
               walk, or reclaim's check, takes it as a read at its own tick. A page faulted in
               and still mapped a tick later thus has two reads, whether the young bit is its
               fault's or a later access's (the walker cannot tell them apart). Reclaim's check
               and the look-around take every young bit they find (a read only if it adds one).
               ``walker_leave = False`` takes and clears the bit: then a page read once per
               pass of a loop larger than memory never reaches two reads (no page of it
               survives a pass), W's newcomer wins against M's oldest every time and the loop
               is served as LRU serves it (docs/cast.md).
            11. The seed's ``decay`` and ``w_permille`` are "per type" without a written form:
               two values, anon's then file's, space-separated as its two-value ``prefetch``
               knob ("0 0"), or a type by name ("file 8"); one value sets both. The readouts
               give each type's (``decay_anon``, ``decay_file``, ``w_permille_anon``,
               ``w_permille_file``).
Parameters  (the seed's knobs, tune.py for the controllers)
            enabled = "1" (0: the legacy LRU runs in CAST's place; "0@N,1@M": off after N
            accesses, on again after M -- kernel mode, each switch passing the pages through
            the legacy LRU's lists, pagesim.engine.switch; a run with MGLRU on any cgroup is
            refused, as the seed's EBUSY); decay_auto = True; decay = "measured" (starting
            at 8; 1..14 sets it and stops decay_auto; there is no level 0, any other value
            is refused); w_permille = "measured" (-1 also reads so;
            starting at 100; 0..1000 sets it and stops decay_auto); both per type as the
            seed's (Choice 11): one value sets both types, "6 8" anon 6 and file 8, "file 8"
            file alone (anon where it starts); split_permille = -1 (the
            split controller chooses anon's share; 1..999 holds it there); clean_min_ratio = 10
            (% of memory; 0 none); kcompressd = 24 (-100..100; the node's kcompressd queue
            depth |k|, 0 off; above 0 only while CAST is on, below 0 whatever runs);
            swapout_ns = 2500 (the prior of the cost of writing anon out, one sample beside
            those measured: each anon page the engine writes out tells ``removed`` what it cost
            its writer, ``r[A_WAIT_NS]``; the mean is added to anon's miss cost, tune.miss_cost);
            sample_pages = 0 (the rule in tune.py); swappiness_override = -1 (the node's
            vm.swappiness); walker = True;
            history = True (Choice 6); walker_leave = True (Choice 10); sample_faults = True
            (sampled anon pages PROT_NONE, every access seen; False: harvested young bits);
            curve_memory = 1 (the split's curves halve once they hold this many sample
            memories of reads; 0: as many as the LRUs hold pages); press_power = 64 (how
            steeply reclaim's press rises with a type's excess over the split; tune.py).
Floor       (le9uo) In kernel mode, reclaim other than a cgroup's own limit (a[A_RECLAIMER] ==
            RECLAIM_LIMIT) takes no file page while this lruvec's file pages are at or below
            clean_min_ratio % of memory; with anon unreclaimable too, nothing is taken and the
            OOM path follows. Clean file is approximated by all file pages on the lists (the
            policy is not told when a file page is dirtied by a write hit).
Promises    vm.swappiness 0: anon is never taken (file only, and at the floor nothing); 1: file
            first, down to the floor, and only then anon; 200: anon first while swap has slots,
            then file. Any other value is the prior of the cost estimate and the press until the
            split controller sets a split. A type that gives nothing (take() finds no page)
            keeps its pages and the other gives in its place.
Complexity  O(1) per read and per page taken in, plus the walker once a tick (O(pages));
            per eviction the candidate checks and, when the candidates run out, a sweep
            (O(pages of the blocks it reads) per 32 or so candidates). Five int64 per page, one
            shadow int64 per evicted page.
Deviations  1. One clock per lruvec (instances share nothing); it ticks on the node's memory,
               so with one cgroup it is the seed's per-node clock.
            2. kcompressd: the engine's per-node thread (``KernelConfig.kcompressd``) takes
               the depth |kcompressd| from :meth:`CAST.kcompressd_depth` (the sign, "only while
               CAST is on" or "whatever runs", makes no difference while CAST runs the node).
               Switched off, CAST's lruvec runs ``linux-lru`` on the same pages; switched on
               again, CAST starts from a fresh state (every resident page a newcomer read once
               at the switch's tick: the legacy lists' order is all that passes over).
               The sample's anon pages are PROT_NONE (every access a hinting fault, tune.py;
               ``sample_faults = False``: young bits harvested 16 times a tick, walk.py); at
               the scaled node the sample is 1/16 of memory (the seed's 15,000 pages are 0.7 %
               of 8 GB), so the faults cost CAST more model time than on the seed's machine.
               The cost of writing anon out is what the engine charges its writer: zram's
               compression (2.5 us, the parameter's default, so on zram the cost stays 2,500 ns),
               a disk's submission (0 for a queued write: ssd, hdd).
            3. The sweep reads page ids 0..n-1 of the trace, not the node's PFNs; the bitmap's
               256 blocks cover them.
            4. The walker reads every page id for young bits (no mm list, no Bloom filter,
               no PMD accessed bits).
            5. Candidates proposed and not evicted (swap full) are isolated until the next call,
               as the kernel's isolation lists; W's go back to its tail.
Peers       none (no source of CAST is public); hand-worked tests in tests/unit/test_cast_*.py.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from pagesim.core.lists import list_add, list_add_tail, list_create, list_del, list_pages
from pagesim.core.state import (
    A_CGROUP,
    A_HIT,
    A_MEMORY,
    A_MODE,
    A_PAGE,
    A_READAHEAD,
    A_REASON,
    A_RECLAIMER,
    A_REFAULT,
    A_REQUEST,
    A_SCANNED,
    A_SWAP_FREE,
    A_WAIT_NS,
    A_ZRAM_PAGES,
    ANON,
    DIRTY,
    GI_FILE_QUEUE,
    GI_SWAP_QUEUE,
    LEN,
    MAX_CANDIDATES,
    MODE_KERNEL,
    PROT_NONE,
    QUEUE_CPU,
    REASON_FREED,
    RECLAIM_LIMIT,
    SWAPCACHE,
    TAIL,
)
from pagesim.policies.base import Policy
from pagesim.policies.cast.core import (
    CLAMP_EVERY,
    MAX_DECAY,
    MIN_DECAY,
    SHADOW_MARK,
    TB_NEWCOMER,
    cast_kernel,
    clamp_word,
    clock_quarter,
    frame_hash,
    from_shadow,
    key_of,
    new_word,
    rank_tb,
    read_word,
    to_shadow,
    with_tag,
    word_count,
    word_tag,
)
from pagesim.policies.cast.layout import (
    ANON_T,
    BUF_CAP,
    BUF_KEY,
    BUF_PAGE,
    BUF_TB,
    BUF_W,
    BUF_WORD,
    ENOUGH_MAX,
    F_ALL_N,
    F_ALL_SUM,
    F_CREDIT,
    F_KEYTAB,
    F_OUT_N,
    F_SPLIT_COST,
    F_WAIT_N,
    FILE_T,
    G_ACC,
    G_BAL,
    G_BITMAP,
    G_BLKSZ,
    G_BUDGET,
    G_BUF,
    G_BUFHEAD,
    G_BUFLEN,
    G_CAP,
    G_CG,
    G_CLEANMIN,
    G_CURSOR,
    G_CURVEMEM,
    G_DAUTO,
    G_DMOVE,
    G_ENABLED,
    G_EVENTS,
    G_FLOOR,
    G_FOUND,
    G_FRAMES,
    G_FREED,
    G_HACC,
    G_HISTORY,
    G_IN,
    G_ISO,
    G_KCOMP,
    G_LE,
    G_LEAVE,
    G_LIST,
    G_LOOK,
    G_MEM,
    G_MSIZE,
    G_NISO,
    G_NOW,
    G_NSAMP,
    G_OUT,
    G_PASSES,
    G_PASSN,
    G_PICK,
    G_PRESS,
    G_PRESSPOW,
    G_Q,
    G_QVALID,
    G_RATE,
    G_SAMPLEP,
    G_SAUTO,
    G_SCAP,
    G_SEQ,
    G_SFAULT,
    G_SIM,
    G_SLACK,
    G_SMOVE,
    G_SPLIT,
    G_STALE,
    G_SWAPOUT,
    G_SWEEPS,
    G_SWP,
    G_TAKEN,
    G_TICKS,
    G_VISITED,
    G_WALKER,
    G_WLOST,
    G_WMOVE,
    G_WORDS,
    G_WPM,
    G_WWIN,
    G_YOUNG,
    G_ZRAM,
    INBUF,
    ISO,
    N_BLOCKS,
    N_CAND,
    N_FLOATS,
    N_GLOBALS,
    N_SIM_T,
    PASSK,
    QUANTILE_DIV,
    S_ACC,
    S_LE,
    S_MISS,
    S_ON,
    S_WPM,
    SAMPLE_PENDING,
    SIDX,
    SIM_NS,
    SLOT_MASK,
    SWAPOUT_K,
    WORD,
)
from pagesim.policies.cast.tune import (
    PREFETCH,
    PRESS_POWER,
    READ,
    anon_share,
    decay_level,
    estimate_swappiness,
    key_fast,
    miss_cost,
    mrc_misses,
    node_swappiness,
    note_stream,
    note_wait,
    pressure_swappiness,
    refault_cost,
    sample_rate,
    tune_feed,
    tune_free,
    tune_init,
    tune_tick,
    type_pages,
    w_share,
)
from pagesim.policies.cast.walk import check_young, harvest_sample, walk
from pagesim.policies.linux_lru import LinuxLRU

MAX_SWAPPINESS = 200
DEFAULT_DECAY = 8  #: where the decay starts (H = memory)
DEFAULT_WPM = 100  #: where W's share starts, permille
HARVESTS_PER_TICK = 16  #: the sample's young bits are taken this many times a tick

# ------------------------------------------------------------------------------------ helpers


@cast_kernel
def _mytag(s, t):  # type: ignore[no-untyped-def]
    """This lruvec's tag for M of type ``t`` (1..14)."""
    return 1 + t + 2 * (s.gi[G_CG] % 7)


@cast_kernel
def _type_of(s, p):  # type: ignore[no-untyped-def]
    return ANON_T if s.resident[p] & ANON else FILE_T


@cast_kernel
def _w_len(s, t):  # type: ignore[no-untyped-def]
    return s.lhd[s.gi[G_LIST + t], LEN]


@cast_kernel
def _lru_pages(s):  # type: ignore[no-untyped-def]
    """Pages on this lruvec's lists (W and M of both types): the costs' memory."""
    return _w_len(s, 0) + _w_len(s, 1) + s.gi[G_MSIZE] + s.gi[G_MSIZE + 1]


@cast_kernel
def _less(k1, tb1, k2, tb2):  # type: ignore[no-untyped-def]
    """Rank order: lower key first, then lower tie rank."""
    return k1 < k2 or (k1 == k2 and tb1 < tb2)


@cast_kernel
def _update_memory(s, a):  # type: ignore[no-untyped-def]
    """The node's memory and what zram holds of it for this lruvec's pages (kernel mode;
    ``added``, ``evict``)."""
    if a[A_MODE] == MODE_KERNEL and a[A_MEMORY] > 0:
        s.gi[G_MEM] = a[A_MEMORY]
        s.gi[G_ZRAM] = a[A_ZRAM_PAGES]


# ------------------------------------------------------------------------------------ the clock


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


# ------------------------------------------------------------------------------------ candidates


@cast_kernel
def _buf_at(s, t, i):  # type: ignore[no-untyped-def]
    """Index in ``s.gi`` of the candidate of rank ``i`` (0 = lowest) of type ``t``."""
    return G_BUF + BUF_W * (t * BUF_CAP + s.gi[G_BUFHEAD + t] + i)


@cast_kernel
def _buf_takes(gi, t, key, tb):  # type: ignore[no-untyped-def]
    """Would :func:`buf_insert` keep a page ranked (key, tb)? (``gi`` alone: the sweep asks it
    of every page it reads.)"""
    n = gi[G_BUFLEN + t]
    if n < N_CAND:
        return True
    last = G_BUF + BUF_W * (t * BUF_CAP + gi[G_BUFHEAD + t] + N_CAND - 1)
    return _less(key, tb, gi[last + BUF_KEY], gi[last + BUF_TB])


@cast_kernel
def buf_insert(s, t, p, key, w, tb):  # type: ignore[no-untyped-def]
    """Keep ``p`` among the 128 lowest (sorted, lowest first); False if it ranks above them all.

    Placed after every candidate it does not rank below (so equal ranks keep the order found).
    """
    n = s.gi[G_BUFLEN + t]
    if n >= N_CAND:
        last = _buf_at(s, t, N_CAND - 1)
        if not _less(key, tb, s.gi[last + BUF_KEY], s.gi[last + BUF_TB]):
            return False
        s.pm[s.gi[last + BUF_PAGE], INBUF] = 0
        n = N_CAND - 1
    if s.gi[G_BUFHEAD + t] + n >= BUF_CAP:  # the window reached the end: back to entry 0
        src = _buf_at(s, t, 0)
        dst = G_BUF + BUF_W * t * BUF_CAP
        for k in range(BUF_W * n):
            s.gi[dst + k] = s.gi[src + k]
        s.gi[G_BUFHEAD + t] = 0
    base = _buf_at(s, t, 0)
    # binary search: the first candidate that ranks above p
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        e = base + BUF_W * mid
        if _less(key, tb, s.gi[e + BUF_KEY], s.gi[e + BUF_TB]):
            hi = mid
        else:
            lo = mid + 1
    e = base + BUF_W * lo
    k = base + BUF_W * n - 1
    while k >= e:
        s.gi[k + BUF_W] = s.gi[k]
        k -= 1
    s.gi[e + BUF_PAGE] = p
    s.gi[e + BUF_KEY] = key
    s.gi[e + BUF_WORD] = w
    s.gi[e + BUF_TB] = tb
    s.gi[G_BUFLEN + t] = n + 1
    s.pm[p, INBUF] = 1
    return True


@cast_kernel
def buf_pop(s, t):  # type: ignore[no-untyped-def]
    """Drop the lowest candidate."""
    n = s.gi[G_BUFLEN + t]
    if n <= 0:
        return
    s.pm[s.gi[_buf_at(s, t, 0) + BUF_PAGE], INBUF] = 0
    s.gi[G_BUFLEN + t] = n - 1
    if n == 1:
        s.gi[G_BUFHEAD + t] = 0
    else:
        s.gi[G_BUFHEAD + t] += 1


@cast_kernel
def _buf_below(gi, t):  # type: ignore[no-untyped-def]
    """Candidates whose key is at or below the last pass's quantile (the keys are sorted)."""
    if gi[G_QVALID + t] == 0:
        return 0
    base = G_BUF + BUF_W * (t * BUF_CAP + gi[G_BUFHEAD + t])
    q = gi[G_Q + t]
    lo = 0
    hi = gi[G_BUFLEN + t]
    while lo < hi:
        mid = (lo + hi) >> 1
        if gi[base + BUF_W * mid + BUF_KEY] <= q:
            lo = mid + 1
        else:
            hi = mid
    return lo


@cast_kernel
def _select(s, col, n, k):  # type: ignore[no-untyped-def]
    """The k-th smallest of ``s.pm[0:n, col]`` (0-based), reordering them in place (Hoare)."""
    lo = 0
    hi = n - 1
    while lo < hi:
        pivot = s.pm[(lo + hi) // 2, col]
        i = lo
        j = hi
        while i <= j:
            while s.pm[i, col] < pivot:
                i += 1
            while s.pm[j, col] > pivot:
                j -= 1
            if i <= j:
                tmp = s.pm[i, col]
                s.pm[i, col] = s.pm[j, col]
                s.pm[j, col] = tmp
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return s.pm[k, col]


@cast_kernel
def _end_pass(s, t):  # type: ignore[no-untyped-def]
    """The cursor wrapped: the pass's 1/16 quantile becomes the threshold."""
    k = s.gi[G_PASSN + t]
    if k > 0:
        s.gi[G_Q + t] = _select(s, PASSK + t, k, k // QUANTILE_DIV)
        s.gi[G_QVALID + t] = 1
    s.gi[G_PASSN + t] = 0
    s.gi[G_PASSES + t] += 1


@cast_kernel
def _enough(s, t):  # type: ignore[no-untyped-def]
    """Keys below the quantile the sweep stops at: 32, or |M| / 32 when M is smaller."""
    e = s.gi[G_MSIZE + t] // (2 * QUANTILE_DIV)
    if e < 1:
        return 1
    return min(e, ENOUGH_MAX)


@cast_kernel
def sweep(s, t):  # type: ignore[no-untyped-def]
    """Sweep state words from the cursor, block by block, keeping the 128 lowest keys of M[t]."""
    n = s.pm.shape[0]
    bs = s.gi[G_BLKSZ]
    tag = _mytag(s, t)
    now = s.gi[G_NOW]
    le = decay_level(s, t)
    enough = _enough(s, t)
    col = PASSK + t
    s.gi[G_SWEEPS] += 1
    while s.gi[G_BUDGET + t] > 0:
        c = s.gi[G_CURSOR + t]
        b = c // bs
        hi = min(c + bs, n)
        if s.gi[G_BITMAP + b] != 0:
            any_m = False
            for p in range(c, hi):
                w = s.pm[p, WORD]
                tg = word_tag(w)
                if tg == 0:
                    continue
                any_m = True
                if tg != tag or s.pm[p, ISO] != 0:
                    continue
                key = key_fast(s.gf, w, now, le)
                k = s.gi[G_PASSN + t]
                if k < n:
                    s.pm[k, col] = key
                    s.gi[G_PASSN + t] = k + 1
                if s.pm[p, INBUF] == 0:
                    seq = s.gi[G_SEQ]
                    s.gi[G_SEQ] = seq + 1
                    tb = rank_tb(w, p, seq)
                    if _buf_takes(s.gi, t, key, tb) and buf_insert(s, t, p, key, w, tb):
                        s.gi[G_FOUND] += 1
            s.gi[G_WORDS] += hi - c
            s.gi[G_VISITED] += hi - c
            if not any_m:
                s.gi[G_BITMAP + b] = 0
        s.gi[G_FRAMES] += hi - c
        s.gi[G_BUDGET + t] -= hi - c
        if hi >= n:
            s.gi[G_CURSOR + t] = 0
            _end_pass(s, t)
        else:
            s.gi[G_CURSOR + t] = hi
        if s.gi[G_QVALID + t] != 0 and _buf_below(s.gi, t) >= enough:
            break


@cast_kernel
def m_lowest(s, t):  # type: ignore[no-untyped-def]
    """M's lowest page of type ``t``, checked (not yet taken), or -1; sweeps when needed."""
    cg = s.gi[G_CG]
    while True:
        n = s.gi[G_BUFLEN + t]
        need = n == 0 or (s.gi[G_QVALID + t] != 0 and s.gi[_buf_at(s, t, 0) + BUF_KEY] > s.gi[G_Q + t])
        if need and s.gi[G_BUDGET + t] > 0 and s.gi[G_MSIZE + t] > 0:
            sweep(s, t)
            n = s.gi[G_BUFLEN + t]
        if n == 0:
            return -1
        e = _buf_at(s, t, 0)
        p = s.gi[e + BUF_PAGE]
        ok = (
            s.resident[p] != 0
            and s.cgroup_of[p] == cg
            and s.pm[p, ISO] == 0
            and s.pm[p, WORD] == s.gi[e + BUF_WORD]
        )
        if ok and not check_young(s, p):
            return p
        buf_pop(s, t)
        s.gi[G_STALE] += 1


# ------------------------------------------------------------------------------------ W and M


@cast_kernel
def _join_m(s, t, p):  # type: ignore[no-untyped-def]
    """Page ``p`` (off every list) joins M of type ``t``."""
    s.pm[p, WORD] = with_tag(s.pm[p, WORD], _mytag(s, t))
    s.gi[G_MSIZE + t] += 1
    s.gi[G_BITMAP + p // s.gi[G_BLKSZ]] = 1


@cast_kernel
def _isolate(s, p):  # type: ignore[no-untyped-def]
    s.pm[p, ISO] = 1
    k = s.gi[G_NISO]
    if k < MAX_CANDIDATES:
        s.gi[G_ISO + k] = p
        s.gi[G_NISO] = k + 1


@cast_kernel
def _w_tail_rank(s, p):  # type: ignore[no-untyped-def]
    w = s.pm[p, WORD]
    if word_count(w) <= 1:
        return TB_NEWCOMER
    return (1 << 40) | frame_hash(p)


@cast_kernel
def take(s, t):  # type: ignore[no-untyped-def]
    """The next page of type ``t`` to go (W's tail vs M's lowest), isolated; -1 if none."""
    lid = s.gi[G_LIST + t]
    wl = s.lhd[lid, LEN]
    ml = s.gi[G_MSIZE + t]
    if wl == 0 and ml == 0:
        return -1
    # W's excess beyond what this call frees joins M unopposed (M filling up: Choice 9).
    excess = wl - (w_share(s, t) * (wl + ml)) // 1000
    while excess > s.gi[G_SLACK]:
        wt = s.lhd[lid, TAIL]
        list_del(s, wt)
        _join_m(s, t, wt)
        excess -= 1
    wl = s.lhd[lid, LEN]
    ml = s.gi[G_MSIZE + t]
    over = wl > 0 and 1000 * wl > w_share(s, t) * (wl + ml)
    if over or ml == 0:
        wt = s.lhd[lid, TAIL]
        check_young(s, wt)
        m = m_lowest(s, t) if ml > 0 else -1
        if m >= 0:
            wk = key_fast(s.gf, s.pm[wt, WORD], s.gi[G_NOW], decay_level(s, t))
            e = _buf_at(s, t, 0)
            if not _less(wk, _w_tail_rank(s, wt), s.gi[e + BUF_KEY], s.gi[e + BUF_TB]):
                buf_pop(s, t)  # M's lowest goes; W's tail joins M
                s.gi[G_TAKEN] += 1
                list_del(s, wt)
                _join_m(s, t, wt)
                s.gi[G_WWIN] += 1
                _isolate(s, m)
                return m
        list_del(s, wt)
        s.gi[G_WLOST] += 1
        _isolate(s, wt)
        return wt
    m = m_lowest(s, t)
    if m >= 0:
        buf_pop(s, t)
        s.gi[G_TAKEN] += 1
        _isolate(s, m)
        return m
    if wl > 0:
        wt = s.lhd[lid, TAIL]
        list_del(s, wt)
        s.gi[G_WLOST] += 1
        _isolate(s, wt)
        return wt
    return -1


@cast_kernel
def _putback(s):  # type: ignore[no-untyped-def]
    """Pages the last call proposed that are still here: W's back to its tail, in order."""
    for i in range(s.gi[G_NISO] - 1, -1, -1):
        p = s.gi[G_ISO + i]
        if s.pm[p, ISO] != 0:
            s.pm[p, ISO] = 0
            if word_tag(s.pm[p, WORD]) == 0 and s.resident[p] != 0:
                list_add_tail(s, s.gi[G_LIST + _type_of(s, p)], p)
    s.gi[G_NISO] = 0


@cast_kernel
def _choose(s, can_anon, can_file):  # type: ignore[no-untyped-def]
    """The type the next page comes from: both pressed by ``sw`` in proportion to their pages."""
    if not can_anon:
        return FILE_T
    if not can_file:
        return ANON_T
    node = node_swappiness(s)
    if node <= 1:
        return FILE_T
    if node >= MAX_SWAPPINESS:
        return ANON_T
    sw = pressure_swappiness(s)
    s.gi[G_PRESS] = sw
    wa = float(sw * (_w_len(s, ANON_T) + s.gi[G_MSIZE + ANON_T]))
    wf = float((MAX_SWAPPINESS - sw) * (_w_len(s, FILE_T) + s.gi[G_MSIZE + FILE_T]))
    tot = wa + wf
    if tot <= 0.0:
        return FILE_T
    s.gf[F_CREDIT + ANON_T] += wa / tot
    s.gf[F_CREDIT + FILE_T] += wf / tot
    t = ANON_T if s.gf[F_CREDIT + ANON_T] > s.gf[F_CREDIT + FILE_T] else FILE_T
    s.gf[F_CREDIT + t] -= 1.0
    return t


# ------------------------------------------------------------------------------------ hooks


@cast_kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    cg = a[A_CGROUP]
    s.gi[G_CG] = cg
    for t in range(2):
        lid = list_create(s, cg)
        if lid < 0:
            return -1
        s.gi[G_LIST + t] = lid
    n = s.pm.shape[0]
    s.gi[G_BLKSZ] = max(1, (n + N_BLOCKS - 1) // N_BLOCKS)
    s.gi[G_MEM] = max(1, s.gi[G_CAP])
    _update_memory(s, a)
    if a[A_MODE] != MODE_KERNEL:
        s.gi[G_WALKER] = 0
    for g in (G_ACC, G_NOW, G_IN, G_OUT, G_FREED, G_SEQ, G_NISO, G_VISITED):
        s.gi[g] = 0
    for t in range(2):
        for g in (G_MSIZE, G_CURSOR, G_BUFLEN, G_BUFHEAD, G_Q, G_QVALID, G_PASSN, G_PASSES, G_BUDGET, G_PICK):
            s.gi[g + t] = 0
    for g in range(G_SWEEPS, G_PICK):
        s.gi[g] = 0
    for b in range(N_BLOCKS):
        s.gi[G_BITMAP + b] = 0
    for i in range(F_KEYTAB):  # the key table stays: it holds values, never state
        s.gf[i] = 0.0
    if a[A_MODE] != MODE_KERNEL:
        s.gi[G_SAUTO] = 0  # one type: no split
    for g in range(G_FLOOR, G_BAL + 4):
        s.gi[g] = 0
    s.gi[G_RATE] = sample_rate(s.gi[G_MEM], s.gi[G_SAMPLEP])
    if s.gi[G_DAUTO] != 0 or s.gi[G_SAUTO] != 0:
        tune_init(s)
    return 0


@cast_kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    _update_memory(s, a)
    clock_in(s)
    now = s.gi[G_NOW]
    t = _type_of(s, p)
    kmode = a[A_MODE] == MODE_KERNEL
    sh = s.shadow[p]
    refault = (sh & SHADOW_MARK) != 0 and (not kmode or a[A_REFAULT] != 0)
    restore = refault and s.gi[G_HISTORY] != 0
    read = not (kmode and t == FILE_T)  # kernel-mode file: accessed() follows a demand read
    w = from_shadow(sh, now) if restore else 0
    if w == 0:
        w = new_word(now, 1 if read else 0)
    elif read:
        w = read_word(w, now)
    s.pm[p, WORD] = w
    s.pm[p, ISO] = 0
    list_add(s, s.gi[G_LIST + t], p)
    if read:
        tune_feed(s, p, t, READ)
        if kmode and t == ANON_T and s.pm[p, SIDX] >= 0:
            if s.gi[G_SFAULT] != 0:
                # every later access faults and is seen (the seed); the fault's young bit is left
                # unseen: taken by the main cache as a read, it is one for the sample (tune.py)
                s.resident[p] |= PROT_NONE
            else:
                s.pm[p, SIDX] |= SAMPLE_PENDING  # the fault's young bit was seen (walk.py)
    elif a[A_READAHEAD] != 0:
        tune_feed(s, p, t, PREFETCH)
    if kmode and refault and a[A_WAIT_NS] > 0 and a[A_READAHEAD] == 0:
        note_wait(s, t, float(a[A_WAIT_NS]), _lru_pages(s))
    return 0


@cast_kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if s.resident[p] == 0:
        return 0
    if a[A_MODE] == MODE_KERNEL and (s.resident[p] & ANON) != 0:
        # a hinting fault of a sampled page (PROT_NONE): a read for the sample only; the young
        # bit the access set is the main cache's, taken by the walker or reclaim
        if s.pm[p, SIDX] >= 0:
            tune_feed(s, p, ANON_T, READ)
            s.pm[p, SIDX] |= SAMPLE_PENDING
        return 0
    s.pm[p, WORD] = read_word(s.pm[p, WORD], s.gi[G_NOW])
    note_stream(s, p, a[A_MODE] == MODE_KERNEL and a[A_HIT] != 0)
    tune_feed(s, p, _type_of(s, p), READ)
    return 0


@cast_kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    request = min(a[A_REQUEST], MAX_CANDIDATES)
    _update_memory(s, a)
    _putback(s)
    n = s.pm.shape[0]
    s.gi[G_BUDGET + ANON_T] = n
    s.gi[G_BUDGET + FILE_T] = n
    s.gi[G_VISITED] = 0
    s.gi[G_SLACK] = request
    slots = a[A_SWAP_FREE]
    kmode = a[A_MODE] == MODE_KERNEL
    can_anon = kmode and slots > 0 and node_swappiness(s) > 0
    can_file = True
    # the clean-file floor (le9uo): file stays while at or below clean_min_ratio % of memory,
    # unless this is reclaim forced by a cgroup's own limit
    floor = -1
    if kmode and s.gi[G_CLEANMIN] > 0 and a[A_RECLAIMER] != RECLAIM_LIMIT:
        floor = (s.gi[G_CLEANMIN] * s.gi[G_MEM]) // 100
    file_left = type_pages(s, FILE_T)
    held = False
    if floor >= 0 and file_left <= floor:
        can_file = False
        held = True
    count = 0
    got_a = 0
    got_f = 0
    while count < request and (can_anon or can_file):
        t = _choose(s, can_anon, can_file)
        v = take(s, t)
        if v < 0:
            if t == ANON_T:
                can_anon = False
            else:
                can_file = False
            continue
        if t == ANON_T:
            r = s.resident[v]
            if (r & SWAPCACHE) == 0 or (r & DIRTY) != 0:
                slots -= 1
                if slots <= 0:
                    can_anon = False
        else:
            file_left -= 1
            if floor >= 0 and file_left <= floor:
                can_file = False
                held = True
        s.cand[count] = v
        count += 1
        s.gi[G_PICK + t] += 1
        if t == ANON_T:
            got_a += 1
        else:
            got_f += 1
    if held:
        s.gi[G_FLOOR] += 1
    if got_a > 0 and got_f > 0:
        s.gi[G_BAL + 3] += 1
    elif got_a > 0:
        s.gi[G_BAL] += 1
    elif got_f > 0:
        s.gi[G_BAL + 1] += 1
    else:
        s.gi[G_BAL + 2] += 1
    a[A_SCANNED] = s.gi[G_VISITED] + count
    return count


@cast_kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    w = s.pm[p, WORD]
    tg = word_tag(w)
    if tg != 0:
        s.gi[G_MSIZE + ((tg - 1) & 1)] -= 1
    s.pm[p, ISO] = 0
    if s.pm[p, SIDX] >= 0:
        s.pm[p, SIDX] &= SLOT_MASK
    if r[A_REASON] == REASON_FREED:
        clock_free(s)
        s.shadow[p] = 0
        tune_free(s, p, _type_of(s, p))
    else:
        s.gi[G_OUT] += 1
        s.shadow[p] = to_shadow(w, s.gi[G_NOW])
        if r[A_MODE] == MODE_KERNEL and r[A_WAIT_NS] >= 0 and (s.resident[p] & ANON) != 0:
            note_wait(s, SWAPOUT_K, float(r[A_WAIT_NS]), _lru_pages(s))
    s.pm[p, WORD] = 0
    return 0


# ------------------------------------------------------------------------------------ class

ENABLED_SYNTAX = "1, 0, or a schedule STATE@ACCESSES,... (e.g. 0@100000,1@200000)"


PER_TYPE_SYNTAX = (
    "one value for both types (6), two for anon then file (6 8), or per type by name "
    "(anon 6, file 8, anon 6 file 8)"
)
_TYPE_NAMES = ("anon", "file")
#: ``decay``'s default, the seed's "measured": no level set by hand (the seed has no level 0).
DECAY_MEASURED = "measured"
W_MEASURED = "measured"  #: w_permille's default: the controller sets W's share (-1 is read so too)
DECAY_HINT = " (no level 0; for the automatic decay leave it unset: decay_auto=1)"


def _knob_int(name: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"cast: cannot read {name}={text!r}; give {PER_TYPE_SYNTAX}") from None


def per_type_knob(
    name: str, value: Any, lo: int, hi: int, unset: int | str, hint: str = ""
) -> tuple[int | None, int | None]:
    """A per-type knob (``decay``, ``w_permille``) as (anon, file); None = not set by hand.

    The seed's knobs are per type; a write of one value sets both, as pagesim's did, and of two
    values anon's then file's, space-separated as the seed's two-value ``prefetch`` knob
    (``0 0``); commas work too (``6,8``), and a type may be named (``file 8``: anon not set).

    Parameters
    ----------
    name : str
        The knob, for messages.
    value : int, str, or a pair of int
        ``unset`` (both measured), a value within ``lo..hi`` (both), or the per-type forms above.
    lo, hi : int
        The range of a value set by hand.
    unset : int or str
        The single value meaning "measured" (decay ``"measured"``, w_permille ``"measured"``).
    hint : str
        Added to the out-of-range message (decay: where the automatic decay is).

    Returns
    -------
    (int or None, int or None)

    Raises
    ------
    ValueError
        If the text is none of those forms, a type is named twice, or a value is out of range.
    """
    if isinstance(value, bool):
        raise ValueError(f"cast: {name} takes numbers, got {value!r}")
    if isinstance(value, (tuple, list)):
        items = [str(v) for v in value]
    else:
        items = [t for t in re.split(r"[\s,=:]+", str(value).strip()) if t]
    if len(items) == 1 and items[0].lower() == str(unset):
        return None, None
    out: list[int | None] = [None, None]
    if all(re.fullmatch(r"-?[0-9]+", t) for t in items) and len(items) in (1, 2):
        vals = [_knob_int(name, t) for t in items]
        out = [vals[0], vals[-1]]
    elif len(items) in (2, 4) and all(t.lower() in _TYPE_NAMES for t in items[::2]):
        for kind, text in zip(items[::2], items[1::2]):
            t = _TYPE_NAMES.index(kind.lower())
            if out[t] is not None:
                raise ValueError(f"cast: {name}={value!r} names {kind} twice")
            out[t] = _knob_int(name, text)
    else:
        raise ValueError(f"cast: cannot read {name}={value!r}; give {PER_TYPE_SYNTAX}")
    for v in out:
        if v is not None and not lo <= v <= hi:
            raise ValueError(f"cast: {name} must be within {lo}..{hi} per type{hint}, got {value!r}")
    return out[0], out[1]


def _knob_text(anon: int | None, file: int | None, unset: int | str) -> int | str:
    """The canonical value of a per-type knob: an int when both types agree, else the text."""
    if anon == file:
        return unset if anon is None else anon
    if anon is None or file is None:
        return f"{_TYPE_NAMES[0 if file is None else 1]} {anon if file is None else file}"
    return f"{anon} {file}"


def enabled_schedule(value: Any) -> list[tuple[int, bool]]:
    """The ``enabled`` knob as ``[(at, on), ...]``: CAST on or off once ``at`` accesses have run.

    ``1``/``True`` is on throughout (``[]``), ``0``/``False`` off from the start
    (``[(0, False)]``); ``"0@100000,1@200000"`` switches off after 100,000 accesses and on
    after 200,000 (kernel mode; the engine passes the pages through the legacy LRU's lists).

    Raises
    ------
    ValueError
        If the text is not of that form, a state is not 0 or 1, or the counts do not increase.
    """
    if isinstance(value, bool):
        return [] if value else [(0, False)]
    text = str(value).strip().lower()
    if text in ("1", "true", "on", "yes"):
        return []
    if text in ("0", "false", "off", "no"):
        return [(0, False)]
    out: list[tuple[int, bool]] = []
    for item in text.split(","):
        state, at_sign, at = item.strip().partition("@")
        if not at_sign or state not in ("0", "1") or not at.strip().isdigit():
            raise ValueError(f"cast: cannot read enabled={value!r}; give {ENABLED_SYNTAX}")
        if out and int(at) <= out[-1][0]:
            raise ValueError(f"cast: enabled={value!r}: the access counts must increase")
        out.append((int(at), state == "1"))
    return out


#: The cost samples' kinds as the readouts name them (``all_anon``...): 0 anon refault, 1 file
#: refault, 2 anon write-out (``SWAPOUT_K``).
COST_KINDS = ("anon", "file", "swapout")


class CAST(Policy):
    """CAST's main cache: LRFU keys in W and M per lruvec and type; see the module docstring."""

    name = "cast"
    description = "CAST: LRFU by a 32-bit state word, window W vs main M, pressure clock, sweep (seed)"
    int_fields = ("word", "isolated", "candidate", "pass_keys_anon", "pass_keys_file", "sample_slot")
    float_fields = ()
    int_globals = N_GLOBALS
    float_globals = N_FLOATS
    proposes_batches = True
    uses_fallback = False
    never_with = ("mglru",)
    params = {
        "enabled": "1",
        "decay_auto": True,
        "decay": DECAY_MEASURED,
        "w_permille": W_MEASURED,
        "split_permille": -1,
        "clean_min_ratio": 10,
        "kcompressd": 24,
        "swapout_ns": 2500,
        "sample_pages": 0,
        "swappiness_override": -1,
        "walker": True,
        "history": True,
        "walker_leave": True,
        "sample_faults": True,
        "curve_memory": 1,
        "press_power": PRESS_POWER,
    }
    #: Parameters whose text the class reads itself (``--set cast.decay="6 8"``).
    text_params = ("decay", "w_permille")
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def __init__(self, **overrides: Any) -> None:
        super().__init__(**overrides)
        le = self._per_type("decay")
        wpm = self._per_type("w_permille")
        self.values["decay"] = _knob_text(*le, DECAY_MEASURED)
        self.values["w_permille"] = _knob_text(*wpm, W_MEASURED)

    def _per_type(self, name: str) -> tuple[int | None, int | None]:
        """``decay`` (1..14, "measured") or ``w_permille`` (0..1000, "measured" or -1) per type."""
        if name == "decay":
            return per_type_knob(name, self.values[name], MIN_DECAY, MAX_DECAY, DECAY_MEASURED, DECAY_HINT)
        value = self.values[name]
        if str(value).strip() == "-1":  # the earlier spelling of "measured"
            value = W_MEASURED
        return per_type_knob(name, value, 0, 1000, W_MEASURED)

    def configure(self, s: Any, capacity: int) -> None:
        """Check and write the parameters; the capacity is cache mode's memory.

        ``decay`` and ``w_permille`` "measured" (``w_permille`` -1 too) are measured, starting at 8
        and 100; either takes
        one value for both types or one per type (:func:`per_type_knob`: ``"6 8"`` anon 6, file
        8; ``"file 8"`` file alone, anon where it starts); setting any stops ``decay_auto``, as
        writing the seed's knobs does. ``split_permille`` -1: the split controller chooses;
        100..900: anon's share held there (the split controller off).
        """
        enabled_schedule(self.values["enabled"])
        les = self._per_type("decay")
        wpms = self._per_type("w_permille")
        swp = int(self.values["swappiness_override"])
        if not (swp == -1 or 0 <= swp <= MAX_SWAPPINESS):
            raise ValueError(f"cast: swappiness_override must be -1 or within 0..200, got {swp}")
        split = int(self.values["split_permille"])
        if not (split == -1 or 1 <= split <= 999):
            raise ValueError(f"cast: split_permille must be -1 or within 1..999, got {split}")
        cmr = int(self.values["clean_min_ratio"])
        if not 0 <= cmr <= 100:
            raise ValueError(f"cast: clean_min_ratio must be within 0..100, got {cmr}")
        kc = int(self.values["kcompressd"])
        if not -100 <= kc <= 100:
            raise ValueError(f"cast: kcompressd must be within -100..100, got {kc}")
        by_hand = any(v is not None for v in (*les, *wpms))
        auto = bool(self.values["decay_auto"]) and not by_hand
        for t in range(2):
            le, wpm = les[t], wpms[t]
            s.gi[G_LE + t] = le if le is not None else DEFAULT_DECAY
            s.gi[G_WPM + t] = wpm if wpm is not None else DEFAULT_WPM
        s.gi[G_DAUTO] = 1 if auto else 0
        s.gi[G_SAUTO] = 1 if split == -1 else 0
        s.gi[G_SPLIT] = split
        s.gi[G_CLEANMIN] = cmr
        s.gi[G_KCOMP] = kc
        s.gi[G_SWAPOUT] = max(0, int(self.values["swapout_ns"]))
        s.gi[G_SAMPLEP] = max(0, int(self.values["sample_pages"]))
        s.gi[G_ENABLED] = 1
        s.gi[G_SWP] = swp
        s.gi[G_WALKER] = 1 if self.values["walker"] else 0
        s.gi[G_HISTORY] = 1 if self.values["history"] else 0
        s.gi[G_LEAVE] = 1 if self.values["walker_leave"] else 0
        s.gi[G_SFAULT] = 1 if self.values["sample_faults"] else 0
        s.gi[G_CURVEMEM] = max(0, int(self.values["curve_memory"]))
        s.gi[G_PRESSPOW] = max(1, int(self.values["press_power"]))
        s.gi[G_CAP] = max(1, int(capacity))

    def kcompressd_depth(self) -> int:
        """The node's kcompressd queue depth: |kcompressd| (0: none)."""
        return abs(int(self.values["kcompressd"]))

    def kcompressd_while_off(self) -> int:
        """kcompressd below 0 runs "whatever runs" (the legacy LRU too); above 0 only with CAST on."""
        kc = int(self.values["kcompressd"])
        return -kc if kc < 0 else 0

    def switches(self) -> list[tuple[int, Policy | None]]:
        """``enabled`` switched at run time: off hands the pages to the legacy LRU (linux-lru).

        Returns
        -------
        list of (int, Policy or None)
            ``(at, LinuxLRU())`` where CAST goes off after ``at`` accesses, ``(at, None)`` where
            it comes back on (a fresh state: "CAST's memory is not set up until it is first
            switched on"); empty when ``enabled`` is 1 throughout.
        """
        out: list[tuple[int, Policy | None]] = []
        on = True
        for at, want in enabled_schedule(self.values["enabled"]):
            if want != on:
                out.append((at, None if want else LinuxLRU()))
                on = want
        return out

    def readouts(self, s: Any) -> dict[str, float]:
        """The seed's readouts: decay, w_permille, clock, sweep, walker; W and M per type."""
        gi = s.gi
        out: dict[str, float] = {}
        for t, name in ((ANON_T, "anon"), (FILE_T, "file")):
            out[f"decay_{name}"] = float(gi[G_LE + t])
            out[f"w_permille_{name}"] = float(gi[G_WPM + t])
            out[f"w_{name}"] = float(s.lhd[int(gi[G_LIST + t]), LEN])
            out[f"m_{name}"] = float(gi[G_MSIZE + t])
            out[f"quantile_{name}"] = float(gi[G_Q + t])
            out[f"taken_{name}"] = float(gi[G_PICK + t])
        out.update(
            clock_in=float(gi[G_IN]),
            clock_evicted=float(gi[G_OUT]),
            clock_freed=float(gi[G_FREED]),
            clock_tick=float(gi[G_NOW]),
            sweep_runs=float(gi[G_SWEEPS]),
            sweep_frames=float(gi[G_FRAMES]),
            sweep_words=float(gi[G_WORDS]),
            sweep_found=float(gi[G_FOUND]),
            sweep_taken=float(gi[G_TAKEN]),
            sweep_stale=float(gi[G_STALE]),
            sweep_passes=float(gi[G_PASSES] + gi[G_PASSES + 1]),
            walker_young=float(gi[G_YOUNG]),
            lookaround_young=float(gi[G_LOOK]),
            w_promoted=float(gi[G_WWIN]),
            w_evicted=float(gi[G_WLOST]),
            cost_anon_ns=float(refault_cost.py_func(s, ANON_T)),
            cost_file_ns=float(refault_cost.py_func(s, FILE_T)),
            waits_anon=float(s.gf[F_WAIT_N + ANON_T]),
            waits_file=float(s.gf[F_WAIT_N + FILE_T]),
            estimate_swappiness=float(estimate_swappiness.py_func(s)),
            swapout_ns=float(gi[G_SWAPOUT]),
            swapout_cost_ns=float(miss_cost.py_func(s, ANON_T) - refault_cost.py_func(s, ANON_T)),
            swapouts=float(s.gf[F_OUT_N]),
            zram_pages=float(gi[G_ZRAM]),
            queue_anon=float(gi[GI_SWAP_QUEUE]),
            queue_file=float(gi[GI_FILE_QUEUE]),
            miss_cost_anon_ns=float(miss_cost.py_func(s, ANON_T)),
            miss_cost_file_ns=float(miss_cost.py_func(s, FILE_T)),
            enabled=float(gi[G_ENABLED]),
            decay_auto=float(gi[G_DAUTO]),
            split_auto=float(gi[G_SAUTO]),
            split_permille=float(gi[G_SPLIT]),
            anon_share_permille=float(anon_share.py_func(s)),
            press_swappiness=float(gi[G_PRESS]),
            split_moves=float(gi[G_SMOVE]),
            clean_min_ratio=float(gi[G_CLEANMIN]),
            floor_held=float(gi[G_FLOOR]),
            balance_anon=float(gi[G_BAL]),
            balance_file=float(gi[G_BAL + 1]),
            balance_none=float(gi[G_BAL + 2]),
            balance_both=float(gi[G_BAL + 3]),
            walker=float(gi[G_WALKER]),
            kcompressd=float(gi[G_KCOMP]),
            sample_rate=float(gi[G_RATE]) / 65536.0,
            tune_ticks=float(gi[G_TICKS]),
        )
        for t, name in ((ANON_T, "anon"), (FILE_T, "file")):
            out[f"sample_{name}"] = float(gi[G_NSAMP + t])
            out[f"sample_events_{name}"] = float(gi[G_EVENTS + t])
            out[f"sim_cap_{name}"] = float(gi[G_SCAP + t])
            out[f"decay_moves_{name}"] = float(gi[G_DMOVE + t])
            out[f"w_moves_{name}"] = float(gi[G_WMOVE + t])
            for i in range(N_SIM_T):
                j = t * N_SIM_T + i
                v = G_SIM + j * SIM_NS
                tag = f"d{i}" if i < 9 else ("wminus" if i == 9 else "wplus")
                out[f"sim_{name}_{tag}_misses"] = float(gi[v + S_MISS]) if gi[v + S_ON] else -1.0
            for k in range(1, 11):
                out[f"mrc_{name}_{k}0pct_misses"] = float(mrc_misses.py_func(s, t, k))
        for k in range(1, 10):
            out[f"split_cost_{k}0pct"] = float(s.gf[F_SPLIT_COST + k - 1])
        for k, name in enumerate(COST_KINDS):
            n = float(s.gf[F_ALL_N + k])
            out[f"all_{name}"] = n
            out[f"all_{name}_ns"] = float(s.gf[F_ALL_SUM + k]) / n if n > 0 else 0.0
        return out

    @staticmethod
    def queue_lines(r: dict[str, float]) -> list[str]:
        """The seed's per-queue lines of ``estimate`` from :meth:`readouts`: ``cpu:`` then
        ``bdi N:`` for each block device, each with every anon refault, file refault and anon
        write-out served there since the start (mean ns and number; never halved).

        A type's waits are served where its device is (``queue_anon``: the swap device, which
        also takes anon's write-outs; ``queue_file``: the file device): the CPU for zram, else
        the device's bdi number (:data:`pagesim.core.state.GI_SWAP_QUEUE`); the ``cpu:`` line
        is always shown, as the seed's.
        """
        where = {"anon": int(r["queue_anon"]), "file": int(r["queue_file"])}
        where["swap-out"] = where["anon"]
        queues = sorted({q for q in where.values() if q > QUEUE_CPU})
        lines = []
        for q in (QUEUE_CPU, *queues):
            parts = []
            for label, name in zip(("anon", "file", "swap-out"), COST_KINDS):
                mine = where[label] == q
                ns = round(r[f"all_{name}_ns"]) if mine else 0
                n = round(r[f"all_{name}"]) if mine else 0
                parts.append(f"{label} {ns} ns ({n})")
            lines.append(("cpu: " if q == QUEUE_CPU else f"bdi {q}: ") + " ".join(parts))
        return lines

    def describe(self, s: Any) -> str:
        """The seed's ``estimate`` and ``tune`` readouts as text, as far as pagesim has them."""
        gi = s.gi
        r = self.readouts(s)
        lines = [
            "estimate:",
            f"share {int(r['anon_share_permille'])}/1000 (split {int(r['split_permille'])}/1000)",
            f"swappiness {round(r['estimate_swappiness'])}",
            f"cost anon {round(r['cost_anon_ns'])} ns ({round(r['waits_anon'])} waits) "
            f"file {round(r['cost_file_ns'])} ns ({round(r['waits_file'])} waits)",
            f"swap-out {round(r['swapout_cost_ns'])} ns ({round(r['swapouts'])} pages)",
            "in flight 0",
            *self.queue_lines(r),
            "tune:",
        ]
        lines.append(f"decay_auto {int(gi[G_DAUTO])}")
        for t, name in ((ANON_T, "anon"), (FILE_T, "file")):
            lines.append(
                f"{name} decay {int(gi[G_LE + t])} w_permille {int(gi[G_WPM + t])} "
                f"sample {int(gi[G_NSAMP + t])} cap {int(gi[G_SCAP + t])} | " + self._sims_text(gi, t)
            )
        return "\n".join(lines)

    @staticmethod
    def _sims_text(gi: Any, t: int) -> str:
        """Type ``t``'s simulated caches as ``misses/reads`` per decay level (``le``) and W share
        (``w``); with ``decay_auto`` 0 the controllers do not run and the sims read nothing."""
        if gi[G_DAUTO] == 0:
            return "sims idle (decay_auto 0: decay and w_permille as set)"
        sims = []
        for i in range(N_SIM_T):
            v = G_SIM + (t * N_SIM_T + i) * SIM_NS
            if gi[v + S_ON] == 0:
                continue
            label = f"le {int(gi[v + S_LE])}" if i < 9 else f"w {int(gi[v + S_WPM])}"
            sims.append(f"{label}: {int(gi[v + S_MISS])}/{int(gi[v + S_ACC])}")
        return "sims misses/reads: " + " ".join(sims)

    # ---- introspection for tests and reports
    @staticmethod
    def window(s: Any, t: int = FILE_T) -> list[int]:
        """W of type ``t``, head (newest) first."""
        return list_pages(s, int(s.gi[G_LIST + t])).tolist()

    @staticmethod
    def main(s: Any, t: int = FILE_T) -> list[int]:
        """M of type ``t``: page ids in order."""
        tag = 1 + t + 2 * (int(s.gi[G_CG]) % 7)
        words = s.pm[:, WORD]
        return np.flatnonzero(((words >> 8) & 0xF) == tag).tolist()

    @staticmethod
    def key(s: Any, page: int) -> int:
        """The page's key now (1/16 half-life steps)."""
        t = ANON_T if s.resident[page] & ANON else FILE_T
        return int(key_of.py_func(int(s.pm[page, WORD]), int(s.gi[G_NOW]), int(s.gi[G_LE + t])))

    @staticmethod
    def candidates(s: Any, t: int = FILE_T) -> list[tuple[int, int]]:
        """The sweep's candidates of type ``t``, lowest first: (page, key)."""
        base = G_BUF + BUF_W * (t * BUF_CAP + int(s.gi[G_BUFHEAD + t]))
        n = int(s.gi[G_BUFLEN + t])
        rows = [base + BUF_W * i for i in range(n)]
        return [(int(s.gi[e + BUF_PAGE]), int(s.gi[e + BUF_KEY])) for e in rows]

    def check_invariants(self, s: Any) -> None:
        """Every resident page of this lruvec is in W (untagged), in M (tagged) or isolated."""
        cg = int(s.gi[G_CG])
        words = s.pm[:, WORD]
        tags = (words >> 8) & 0xF
        seen: set[int] = set()
        for t in (ANON_T, FILE_T):
            pages = self.window(s, t)
            assert len(pages) == int(s.lhd[int(s.gi[G_LIST + t]), LEN]), "W: length"
            for p in pages:
                assert p not in seen, f"page {p} twice"
                seen.add(p)
                assert s.resident[p] != 0 and int(s.cgroup_of[p]) == cg, f"W page {p} not ours"
                assert int(tags[p]) == 0, f"W page {p} carries an M tag"
                assert (1 if s.resident[p] & ANON else 0) == (t == ANON_T), f"W page {p} type"
            m = self.main(s, t)
            assert len(m) == int(s.gi[G_MSIZE + t]), f"M[{t}]: {len(m)} != {int(s.gi[G_MSIZE + t])}"
            for p in m:
                assert p not in seen, f"page {p} in W and M"
                seen.add(p)
                assert s.resident[p] != 0 and int(s.cgroup_of[p]) == cg, f"M page {p} not ours"
                assert (1 if s.resident[p] & ANON else 0) == (t == ANON_T), f"M page {p} type"
                b = p // int(s.gi[G_BLKSZ])
                assert s.gi[G_BITMAP + b] != 0, f"M page {p} in block {b} marked empty"
        for p in np.flatnonzero(s.pm[:, ISO] != 0).tolist():
            if p not in seen:
                assert s.resident[p] != 0, f"isolated page {p} not resident"
                seen.add(p)
        mine = set(np.flatnonzero((s.resident != 0) & (s.cgroup_of == cg)).tolist())
        assert seen == mine, f"resident pages unaccounted: {sorted(mine - seen)[:5]}"
        off = s.resident == 0
        assert not words[off].any(), "a page out of memory keeps a state word"
