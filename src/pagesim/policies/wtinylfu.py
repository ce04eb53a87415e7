"""W-TinyLFU: a small LRU window admits newcomers; a frequency sketch decides who enters main.

Source      Einziger, Friedman, Manes, "TinyLFU: A Highly Efficient Cache Admission Policy",
            ACM Transactions on Storage 13(4), 2017, doi:10.1145/3149371 (§3 TinyLFU, §4
            W-TinyLFU); the structure and, with ``sketch="cbf"``, every rule below are
            libCacheSim's ``WTinyLFU`` with its default ``main-cache=SLRU`` (cache/eviction/
            WTinyLFU.c, SLRU.c, dataStructure/minimalIncrementCBF.c; read, not ported).
Structures  Three eviction lists, most recent at the head: the window W (an LRU, the paper's
            "window cache"), and main's SLRU segments probation and protected. A frequency
            sketch in the policy's own columns, packed into the first rows: cms: one column
            ``pm[:, PM.sketch]`` (word ``w`` at ``pm[w, PM.sketch]``), 16 4-bit counters a word, cell ``x``
            in bits ``4 (x % 16)`` of word ``x // 16``, so the paper's sketch for 100 000 pages
            takes 256 KiB, not 4 MiB, and stays in the CPU's L2 cache, and a page's row is 16
            bytes (the rows of the cached pages take few cache lines); cbf: 15 columns
            ``pm[:, PM.sketch:PM.sketch + 15]``, one counter a word, word ``w`` at
            ``pm[w // 15, PM.sketch + w % 15]``. ``pm[page, PM.hash]`` holds the page's two 32-bit hashes,
            ``ha`` in the low and ``hb`` in the high half, computed once in ``configure`` (one
            word: one load, in the line the engine prefetches).
            sketch="cms" (default, the paper's): a count-min sketch of 4 rows, each a power of
            two >= capacity wide, 4-bit counters (saturating at 15), row r's cell
            ``(ha + r * hb) mod 2^32 mod width``; every access is recorded, and after W = 10 x
            capacity records every counter is halved (the paper's reset).
            sketch="cbf" (libCacheSim's): a counting Bloom filter ("minimal increment CBF") for
            ``main`` entries at error 0.001: ceil(-ln 0.001 / ln^2 2 * main) unbounded counters,
            10 hashes ``(a + i * b) mod 2^32 mod n`` with a, b the low 32 bits of XXH64 of the
            8-byte object id under seeds 0x12345678 and 0x12344321; an add increments all 10;
            recorded: every insertion, every hit in main, and each window victim when it leaves
            the window; counters are halved after 32 x main hits in main.
            No doorkeeper (libCacheSim has none, its source says "TODO: add doorkeeper").
Rules       added: to W's head (W may hold more than its share until the cache is full).
            accessed: in W, to W's head; in probation, to protected's head, and if protected is
            over its share its tail goes to probation's head; in protected, to its head.
            evict: repeat: take W's tail v; if main has room, v enters main (probation if it
            has room, else protected if it has room, else probation) and the loop goes on;
            otherwise compare v with main's victim m (probation's tail, protected's if
            probation is empty): if estimate(v) > estimate(m), m is evicted and v enters main,
            else v is evicted. If W is empty, main's victim is evicted.
Parameters  window = 0.01 (fraction of capacity): W's share ``int(window * capacity)``, at least
            1 (paper and libCacheSim: 1 %).
            protected = 0.8 (fraction of main): protected's share ``int(0.8 * main)``, probation
            gets the rest (paper 80 %, libCacheSim ``seg-size=1:4``).
            sketch = "cms" or "cbf": see Structures.
            keys = None: 64-bit ids to hash, one per dense page id (default: the page id
            itself); pass ``trace.original_id`` to hash what libCacheSim hashes.
Complexity  O(1) per access plus 4 (cms) or 10 (cbf) sketch cells; an eviction usually makes one
            comparison (while main is filling, several moves). Per page: 3 list fields, 1 hash
            column (both hashes) and 1 (cms, 16 cells a word) or 15 (cbf) sketch columns (the
            sketch needs at most 15 cells per page).
Deviations  1. W's share is at least one page and probation gets the rounding remainder of main
               (libCacheSim truncates both segments, so for some sizes, e.g. capacity 100,
               their sum falls one page short of main: its probation then runs one page over
               and a later hit can evict a page). Capacities where 0.2 x main and 0.8 x main
               truncate to a sum equal to main (1000, 2000, 5000, 10000 ...) agree exactly;
               below 100 pages libCacheSim caches nothing (its window holds 0 bytes).
            2. The default sketch is the paper's 4-bit count-min sketch with W = 10 x capacity,
               not libCacheSim's counting Bloom filter; ``sketch="cbf"`` is libCacheSim's and
               is the one cross-checked exactly.
            3. A sketch larger than 15 cells per page is cut to 15 x n_pages cells: this only
               happens when the capacity exceeds the number of pages, when nothing is evicted.
Peers       libCacheSim 0.3.5 ``WTinyLFU`` (defaults ``main-cache=SLRU,window-size=0.01``) with
            ``sketch="cbf", keys=trace.original_id``: identical miss counts on cloudPhysicsIO
            and the LIRS traces at three sizes each; the default sketch stays within a few
            per cent of it (tests/crosscheck/test_classics_b_vs_libcachesim.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add, list_create, list_len, list_move, list_of, list_pages, list_tail
from pagesim.core.prefetch import prefetch
from pagesim.core.state import A_CGROUP, A_PAGE, PREV
from pagesim.policies.base import Policy, SpeedHints
from pagesim.policies.params import defaults

SK_COLS = 15  #: sketch cells per page
STATE = Layout(
    "w-tinylfu",
    pm=(
        field(
            "hash", "hashes", "the page key's two 32-bit hashes: ``ha`` in bits 0..31, ``hb`` in bits 32..63"
        ),
        field("sketch", "counters", "the sketch's cells (see Structures), SK_COLS columns", count=SK_COLS),
    ),
    gi=(
        field("win", "list id", "the window"),
        field("prob", "list id", "main's probation segment"),
        field("prot", "list id", "main's protected segment"),
        field("main_cap", "pages", "main's share, pages"),
        field("prot_cap", "pages", "protected's share, pages"),
        field("prob_cap", "pages", "probation's share, pages"),
        field("mode", "MODE_*", "0: count-min sketch (paper), 1: counting Bloom filter (libCacheSim)"),
        field("cells", "counters", "cms: width of a row; cbf: number of counters"),
        field("hashes", "hashes", "cms: rows (4); cbf: hash functions"),
        field("samples", "accesses", "records since the last halving"),
        field("reset_at", "accesses", "halve after this many records"),
    ),
)
PM, GI = STATE.pm, STATE.gi


CMS_ROWS = 4  #: rows of the count-min sketch
MODE_CMS = 0
MODE_CBF = 1
CMS_MAX = 15  #: 4-bit counters
NIBBLES = 16  #: cms counters per sketch word
HALVE_MASK = int("7" * NIBBLES, 16)  #: a word shifted right by one, cut back to 3 bits a nibble
MASK32 = 0xFFFFFFFF


@kernel_inline
def _cms_words(cells):  # type: ignore[no-untyped-def]
    """Sketch words holding ``cells`` cms counters."""
    return (cells + NIBBLES - 1) // NIBBLES


@kernel_inline
def _cell(x):  # type: ignore[no-untyped-def]
    """Where cbf counter ``x`` is: SK_COLS a row."""
    return x // SK_COLS, PM.sketch + x % SK_COLS


@kernel_inline
def _word(w):  # type: ignore[no-untyped-def]
    """Where cms word ``w`` is: one a row."""
    return w, PM.sketch


@kernel_inline
def _row_mask(cells):  # type: ignore[no-untyped-def]
    """``cells - 1`` if ``cells`` is a power of two (every cms row but a cut one), else -1."""
    return cells - 1 if cells & (cells - 1) == 0 else -1


@kernel_inline
def _index(ha, hb, i, cells, mask, cms):  # type: ignore[no-untyped-def]
    """Sketch cell of hash ``i`` of a page with hashes ``ha``, ``hb`` (``mask``: see _row_mask)."""
    h = (ha + i * hb) & MASK32
    h = h & mask if mask >= 0 else h % cells  # the same cell; a mask spares a division
    return i * cells + h if cms else h


@kernel_inline
def _hashing(s, p):  # type: ignore[no-untyped-def]
    """What :func:`_index` needs for page ``p``: its two hashes, the row width, its mask, cms."""
    cells = s.gi[GI.cells] & MASK32  # < 2^31 anyway: LLVM then knows every index is >= 0
    h = s.pm[p, PM.hash]
    return h & MASK32, (h >> 32) & MASK32, cells, _row_mask(cells), s.gi[GI.mode] == MODE_CMS


@kernel_inline
def _nibble(x):  # type: ignore[no-untyped-def]
    """Word and bit offset of cms cell ``x``: NIBBLES (16) 4-bit counters per sketch word."""
    return x >> 4, (x & 15) << 2  # shifts: LLVM cannot tell x >= 0, // 16 would cost more


@kernel_inline
def _estimate(s, p):  # type: ignore[no-untyped-def]
    gi = s.gi
    pm = s.pm
    ha, hb, cells, mask, cms = _hashing(s, p)
    if cms:  # a constant trip count, no branch in the body: the rows' loads overlap
        best = CMS_MAX
        for i in range(CMS_ROWS):
            w, shift = _nibble(_index(ha, hb, i, cells, mask, True))
            r, c = _word(w)
            best = min(best, (pm[r, c] >> shift) & CMS_MAX)
        return best
    best = -1
    for i in range(gi[GI.hashes]):
        r, c = _cell(_index(ha, hb, i, cells, mask, False))
        v = pm[r, c]
        if best < 0 or v < best:
            best = v
    return best


@kernel_inline
def _sketch_words(s):  # type: ignore[no-untyped-def]
    """Sketch words in use: cms packs NIBBLES counters a word, cbf one."""
    if s.gi[GI.mode] == MODE_CMS:
        return _cms_words(s.gi[GI.cells] * s.gi[GI.hashes])
    return s.gi[GI.cells]


@kernel
def _halve(s):  # type: ignore[no-untyped-def]
    if s.gi[GI.mode] == MODE_CMS:  # every nibble of a word at once
        for w in range(_sketch_words(s)):
            r, c = _word(w)
            s.pm[r, c] = (s.pm[r, c] >> 1) & HALVE_MASK
        return
    for x in range(s.gi[GI.cells]):
        r, c = _cell(x)
        s.pm[r, c] >>= 1


@kernel_inline
def _record(s, p):  # type: ignore[no-untyped-def]
    """Count one occurrence of ``p``."""
    gi = s.gi
    pm = s.pm
    ha, hb, cells, mask, cms = _hashing(s, p)  # once: the stores below could alias them
    if cms:  # saturating increments as selects, not branches (hot pages sit at 15)
        for i in range(CMS_ROWS):
            w, shift = _nibble(_index(ha, hb, i, cells, mask, True))
            r, c = _word(w)
            v = pm[r, c]
            n = (v >> shift) & CMS_MAX
            # n + 1 by flipping bits, not adding: a carry into the sign bit would overflow
            pm[r, c] = v ^ ((n ^ (n + 1) if n < CMS_MAX else 0) << shift)
        gi[GI.samples] += 1
        if gi[GI.samples] >= gi[GI.reset_at]:
            gi[GI.samples] = 0
            _halve(s)
        return
    for i in range(gi[GI.hashes]):
        r, c = _cell(_index(ha, hb, i, cells, mask, False))
        pm[r, c] += 1


@kernel_inline
def _prefetch_tail(s, lid, rows):  # type: ignore[no-untyped-def]
    """Start loading what the next removals from ``lid``'s tail touch (hints only).

    The page before the tail is the next tail: its ``pm`` row (``rows``: the estimate reads its
    hashes); its list node the unlink of the tail writes, and it was prefetched here one removal
    earlier as the node two before the tail, which is prefetched now.
    """
    t = list_tail(s, lid)
    if t >= 0:
        p1 = s.lst[t, PREV]
        if p1 >= 0:
            if rows:
                prefetch(s.pm, p1)
            p2 = s.lst[p1, PREV]
            if p2 >= 0:
                prefetch(s.lst, p2)


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.win] = list_create(s, a[A_CGROUP])
    s.gi[GI.prob] = list_create(s, a[A_CGROUP])
    s.gi[GI.prot] = list_create(s, a[A_CGROUP])
    cms = s.gi[GI.mode] == MODE_CMS
    for w in range(_sketch_words(s)):  # only the rows holding the sketch: not all of pm
        r, c = _word(w) if cms else _cell(w)
        s.pm[r, c] = 0
    s.gi[GI.samples] = 0
    return 0 if s.gi[GI.win] >= 0 and s.gi[GI.prob] >= 0 and s.gi[GI.prot] >= 0 else -1


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    list_add(s, s.gi[GI.win], p)
    _record(s, p)
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    win = s.gi[GI.win]
    prot = s.gi[GI.prot]
    in_win = list_of(s, p) == win
    # W's pages stay in W, main's go to protected: one move to a selected list, so no
    # branch on which of the three lists the page was in (that branch is not predictable)
    list_move(s, win if in_win else prot, p, False)
    if list_len(s, prot) > s.gi[GI.prot_cap]:  # only after a hit in probation
        list_move(s, s.gi[GI.prob], list_tail(s, prot), False)
        _prefetch_tail(s, prot, False)
    cms = s.gi[GI.mode] == MODE_CMS
    if cms or not in_win:  # the paper records every access, libCacheSim only hits in main
        _record(s, p)
    if not cms and not in_win:  # libCacheSim counts hits in main towards the halving
        s.gi[GI.samples] += 1
        if s.gi[GI.samples] >= s.gi[GI.reset_at]:
            s.gi[GI.samples] = 0
            _halve(s)
    return 0


@kernel_inline
def _main_victim(s):  # type: ignore[no-untyped-def]
    v = list_tail(s, s.gi[GI.prob])
    if v < 0:
        v = list_tail(s, s.gi[GI.prot])
    return v


@kernel_inline
def _enter_main(s, p, leaving):  # type: ignore[no-untyped-def]
    """Move ``p`` into main as libCacheSim's SLRU inserts, ``leaving`` (or -1) already gone."""
    prob = s.gi[GI.prob]
    prot = s.gi[GI.prot]
    n_prob = list_len(s, prob)
    n_prot = list_len(s, prot)
    if leaving >= 0:
        if list_of(s, leaving) == prob:
            n_prob -= 1
        else:
            n_prot -= 1
    if n_prob + 1 <= s.gi[GI.prob_cap]:
        list_move(s, prob, p, False)
    elif n_prot + 1 <= s.gi[GI.prot_cap]:
        list_move(s, prot, p, False)
    else:
        list_move(s, prob, p, False)


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    win = s.gi[GI.win]
    cbf = s.gi[GI.mode] == MODE_CBF
    _prefetch_tail(s, win, True)
    _prefetch_tail(s, s.gi[GI.prob], True)
    victim = -1
    while True:
        v = list_tail(s, win)
        if v < 0:
            victim = _main_victim(s)
            break
        if list_len(s, s.gi[GI.prob]) + list_len(s, s.gi[GI.prot]) + 1 <= s.gi[GI.main_cap]:
            _enter_main(s, v, -1)
            if cbf:
                _record(s, v)
            continue
        m = _main_victim(s)
        if _estimate(s, v) > _estimate(s, m):
            _enter_main(s, v, m)
            victim = m
        else:
            victim = v
        if cbf:
            _record(s, v)
        break
    if victim < 0:
        return 0
    s.cand[0] = victim
    return 1


def xxh64_u64(keys: np.ndarray, seed: int) -> np.ndarray:
    """XXH64 of each key's 8 little-endian bytes (the hash libCacheSim's sketch uses).

    Parameters
    ----------
    keys : numpy.ndarray of uint64, shape (n,)
    seed : int
        0 <= seed < 2**64.

    Returns
    -------
    numpy.ndarray of uint64, shape (n,)

    Notes
    -----
    The published XXH64 for an 8-byte input: one 64-bit lane, then the avalanche (Collet,
    xxHash specification, "XXH64 algorithm description"). Array arithmetic wraps modulo 2**64.
    """
    p1 = np.uint64(0x9E3779B185EBCA87)
    p2 = np.uint64(0xC2B2AE3D27D4EB4F)
    p3 = np.uint64(0x165667B19E3779F9)
    p4 = np.uint64(0x85EBCA77C2B2AE63)
    p5 = np.uint64(0x27D4EB2F165667C5)

    def rotl(x: np.ndarray, r: int) -> np.ndarray:
        return (x << np.uint64(r)) | (x >> np.uint64(64 - r))

    k = np.asarray(keys, dtype=np.uint64)
    h = np.full(k.shape, seed, dtype=np.uint64) + p5 + np.uint64(8)
    lane = rotl(k * p2, 31) * p1
    h = rotl(h ^ lane, 27) * p1 + p4
    h ^= h >> np.uint64(33)
    h *= p2
    h ^= h >> np.uint64(29)
    h *= p3
    h ^= h >> np.uint64(32)
    return h


class WTinyLFU(SpeedHints, Policy):
    """W-TinyLFU (TOS 2017) with libCacheSim's structure; see the module docstring."""

    name = "w-tinylfu"
    description = "W-TinyLFU: LRU window, SLRU main, frequency-sketch admission into main"
    params = defaults("w-tinylfu")  # policies/params.toml
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    prefetch_links = ("list",)  # a hit moves the page: its list neighbours are written
    # evict too: a miss then passes no State by value (cold compile 35-42 s with or without it)
    inline_hooks = ("added", "accessed", "evict")
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)

    def state_shape(self) -> dict[str, int]:
        """cms needs one sketch column a page, cbf SK_COLS (see Structures)."""
        shape = super().state_shape()
        if self.values["sketch"] == "cms":
            shape["n_int_fields"] = PM.sketch + 1
        return shape

    def configure(self, s: Any, capacity: int) -> None:
        """Shares, sketch geometry and the per-page hashes."""
        window = float(self.values["window"])
        protected = float(self.values["protected"])
        sketch = str(self.values["sketch"])
        if not 0.0 <= window < 1.0:
            raise ValueError(f"w-tinylfu: window must be in [0, 1), got {window}")
        if not 0.0 < protected < 1.0:
            raise ValueError(f"w-tinylfu: protected must be in (0, 1), got {protected}")
        if sketch not in ("cms", "cbf"):
            raise ValueError(f"w-tinylfu: sketch must be 'cms' or 'cbf', got {sketch!r}")
        n_pages = s.pm.shape[0]
        win = max(1, int(capacity * window))
        main = max(capacity - win, 1)
        prot = int(protected * main)
        s.gi[GI.main_cap] = main
        s.gi[GI.prot_cap] = prot
        s.gi[GI.prob_cap] = main - prot
        limit = SK_COLS * n_pages
        if sketch == "cbf":
            bpe = -math.log(0.001) / 0.480453013918201
            hashes = math.ceil(0.693147180559945 * bpe)
            cells = min(math.ceil(bpe * main), 2**31 - 1)
            if cells < hashes:
                cells = 2 * hashes
            s.gi[GI.mode] = MODE_CBF
            s.gi[GI.cells] = min(cells, limit)
            s.gi[GI.hashes] = hashes
            s.gi[GI.reset_at] = 32 * main
        else:
            width = 1 << max(capacity - 1, 1).bit_length()
            s.gi[GI.mode] = MODE_CMS
            s.gi[GI.cells] = min(width, limit // 4)
            s.gi[GI.hashes] = CMS_ROWS
            s.gi[GI.reset_at] = 10 * capacity
        keys = self.values["keys"]
        if keys is None or len(keys) == 0:  # an empty trace still allocates one page row
            k = np.arange(n_pages, dtype=np.uint64)
        else:
            given = np.asarray(keys)
            if given.ndim != 1 or given.shape[0] < n_pages:
                raise ValueError(f"w-tinylfu: keys needs one id per page ({n_pages}), got {given.shape}")
            k = given[:n_pages].astype(np.int64, casting="unsafe").view(np.uint64)
        ha = xxh64_u64(k, 0x12345678) & np.uint64(MASK32)
        hb = xxh64_u64(k, 0x12344321) & np.uint64(MASK32)
        s.pm[:, PM.hash] = (ha | (hb << np.uint64(32))).view(np.int64)

    def check_invariants(self, s: Any) -> None:
        """W, probation, protected partition the resident set; shares kept; sketch in range."""
        lists = [list_pages(s, int(s.gi[g])).tolist() for g in (GI.win, GI.prob, GI.prot)]
        every = [p for lst in lists for p in lst]
        assert len(every) == len(set(every)), "a page is listed twice"
        assert sorted(every) == np.flatnonzero(s.resident).tolist(), "lists != resident set"
        assert len(lists[2]) <= int(s.gi[GI.prot_cap]), "protected over its share"
        assert len(lists[1]) + len(lists[2]) <= int(s.gi[GI.main_cap]), "main over its share"
        sk = s.pm[:, PM.sketch : PM.sketch + SK_COLS]
        if int(s.gi[GI.mode]) == MODE_CMS:  # every bit of a word is a counter's, sign bit too
            words = -(-int(s.gi[GI.cells]) * int(s.gi[GI.hashes]) // NIBBLES)
            assert not sk[words:].any(), "a sketch word beyond the sketch"
            assert 0 <= int(s.gi[GI.samples]) < int(s.gi[GI.reset_at]), "sample count"
        else:
            assert (sk >= 0).all(), "negative sketch counter"
