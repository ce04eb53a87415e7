"""Slow, obviously right Python references for the classic policies (stumpy's ``tests/naive.py``).

Every function takes a sequence of page ids and a capacity in pages and returns one boolean per
access, True for a hit. They keep the cache as a plain list or dict and choose the victim by the
policy's definition, with no cleverness: O(capacity) (OPT: O(n)) work per miss. Used by
``tests/unit/test_policies_common.py`` (Hypothesis, small traces) and by the libCacheSim
cross-checks to show tie rules on small examples.
"""

from __future__ import annotations

from collections.abc import Sequence


def lru(ids: Sequence[int], capacity: int) -> list[bool]:
    """LRU: on a miss with a full cache, evict the page whose last access is oldest."""
    last: dict[int, int] = {}  # resident page -> time of its last access
    hits = []
    for t, p in enumerate(ids):
        hit = p in last
        if not hit and len(last) >= capacity:
            del last[min(last, key=last.__getitem__)]
        last[p] = t
        hits.append(hit)
    return hits


def fifo(ids: Sequence[int], capacity: int) -> list[bool]:
    """FIFO: evict the page that entered the cache first; hits change nothing."""
    queue: list[int] = []  # oldest first
    hits = []
    for p in ids:
        hit = p in queue
        if not hit:
            if len(queue) >= capacity:
                queue.pop(0)
            queue.append(p)
        hits.append(hit)
    return hits


def mru(ids: Sequence[int], capacity: int) -> list[bool]:
    """MRU: evict the resident page whose last access is the most recent."""
    last: dict[int, int] = {}
    hits = []
    for t, p in enumerate(ids):
        hit = p in last
        if not hit and len(last) >= capacity:
            del last[max(last, key=last.__getitem__)]
        last[p] = t
        hits.append(hit)
    return hits


def clock(ids: Sequence[int], capacity: int) -> list[bool]:
    """CLOCK as libCacheSim's ``Clock``: a FIFO of [page, bit]; a page whose bit is set when it
    reaches the front loses the bit and goes to the back; a newcomer enters at the back, bit 0."""
    queue: list[list[int]] = []  # front = the hand, back = newest
    hits = []
    for p in ids:
        entry = next((e for e in queue if e[0] == p), None)
        if entry is not None:
            entry[1] = 1
            hits.append(True)
            continue
        if len(queue) >= capacity:
            while queue[0][1]:
                front = queue.pop(0)
                front[1] = 0
                queue.append(front)
            queue.pop(0)
        queue.append([p, 0])
        hits.append(False)
    return hits


def lfu(ids: Sequence[int], capacity: int, tie: str = "lru") -> list[bool]:
    """LFU by in-cache counts (a page's count restarts at 1 when it comes back).

    ``tie`` chooses among the pages of lowest count: ``"lru"`` (libCacheSim's rule and ours) the
    one whose last access is oldest; ``"fifo"`` the one inserted first.
    """
    count: dict[int, int] = {}
    last: dict[int, int] = {}
    inserted: dict[int, int] = {}
    hits = []
    for t, p in enumerate(ids):
        hit = p in count
        if hit:
            count[p] += 1
        else:
            if len(count) >= capacity:
                order = last if tie == "lru" else inserted
                victim = min(count, key=lambda q: (count[q], order[q]))
                del count[victim], last[victim], inserted[victim]
            count[p] = 1
            inserted[p] = t
        last[p] = t
        hits.append(hit)
    return hits


def opt(ids: Sequence[int], capacity: int) -> list[bool]:
    """Belady's OPT, demand fetch: evict the resident page whose next access is furthest."""
    n = len(ids)

    def next_use(p: int, t: int) -> int:
        for j in range(t + 1, n):
            if ids[j] == p:
                return j
        return n  # never again

    cache: set[int] = set()
    hits = []
    for t, p in enumerate(ids):
        hit = p in cache
        if not hit:
            if len(cache) >= capacity:
                cache.remove(max(sorted(cache), key=lambda q: next_use(q, t)))
            cache.add(p)
        hits.append(hit)
    return hits


#: registry name -> reference
REFERENCES = {"lru": lru, "fifo": fifo, "mru": mru, "clock": clock, "lfu": lfu, "opt": opt}


def misses(hits: Sequence[bool]) -> int:
    """Number of misses in a hit list."""
    return sum(1 for h in hits if not h)


# ---- SIEVE, S3-FIFO, W-TinyLFU, LRFU (appended with tests/crosscheck/test_classics_b_...) ----


def sieve(ids: Sequence[int], capacity: int) -> list[bool]:
    """SIEVE as libCacheSim's ``Sieve``: a FIFO (oldest first) with a visited bit; the hand
    walks from old to new, clearing bits, wraps to the oldest, evicts the first clear page and
    stays on the next newer one."""
    queue: list[int] = []  # oldest first; pages never move
    visited: dict[int, bool] = {}
    hand: int | None = None  # page under the hand, None: start at the oldest
    hits = []
    for p in ids:
        if p in visited:
            visited[p] = True
            hits.append(True)
            continue
        if len(queue) >= capacity:
            i = queue.index(hand) if hand is not None else 0
            while visited[queue[i]]:
                visited[queue[i]] = False
                i = (i + 1) % len(queue)
            hand = queue[i + 1] if i + 1 < len(queue) else None
            del visited[queue.pop(i)]
        queue.append(p)
        visited[p] = False
        hits.append(False)
    return hits


def s3fifo(
    ids: Sequence[int], capacity: int, small_ratio: float = 0.1, threshold: int = 2, ghost_ratio: float = 0.9
) -> list[bool]:
    """S3-FIFO as libCacheSim's ``S3FIFO``: lists oldest first, freq capped at 3.

    Small S (``int(ratio * capacity)``, at least 1), main M (the rest), ghost G of
    ``int(ghost_ratio * capacity)`` ids. Miss: a ghost id goes to M, so does any page while
    nothing was evicted and S is full, else S. Evict: from M (CLOCK: freq >= 1 -> back with
    freq - 1) if M is over its share or S is empty; else from S: freq >= threshold -> M with
    freq 0, else evicted into G; if S empties, from M.
    """
    small_cap = max(1, int(capacity * small_ratio))
    main_cap = capacity - int(capacity * small_ratio)
    ghost_cap = int(capacity * ghost_ratio)
    small: list[int] = []
    main: list[int] = []
    ghost: list[int] = []
    freq: dict[int, int] = {}
    has_evicted = False

    def evict_main() -> None:
        while freq[main[0]] >= 1:
            q = main.pop(0)
            freq[q] -= 1
            main.append(q)
        del freq[main.pop(0)]

    hits = []
    for p in ids:
        if p in freq:
            freq[p] = min(freq[p] + 1, 3)
            hits.append(True)
            continue
        hits.append(False)
        from_ghost = p in ghost
        if from_ghost:
            ghost.remove(p)
        while len(small) + len(main) >= capacity:
            has_evicted = True
            done = False
            if len(main) <= main_cap and small:
                while small and not done:
                    q = small.pop(0)
                    if freq[q] >= threshold:
                        freq[q] = 0
                        main.append(q)
                    else:
                        del freq[q]
                        if ghost_cap > 0:
                            while len(ghost) >= ghost_cap:
                                ghost.pop(0)
                            ghost.append(q)
                        done = True
            if not done:
                evict_main()
        if from_ghost or (not has_evicted and len(small) >= small_cap):
            main.append(p)
        else:
            small.append(p)
        freq[p] = 0
    return hits


_M64 = (1 << 64) - 1


def xxh64_u64(key: int, seed: int) -> int:
    """XXH64 of the 8 little-endian bytes of ``key`` (Python integers, masked to 64 bits)."""
    p1, p2, p3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
    p4, p5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (64 - r))) & _M64

    h = (seed + p5 + 8) & _M64
    h ^= (rotl((key & _M64) * p2 & _M64, 31) * p1) & _M64
    h = (rotl(h, 27) * p1 + p4) & _M64
    h ^= h >> 33
    h = h * p2 & _M64
    h ^= h >> 29
    h = h * p3 & _M64
    return h ^ (h >> 32)


def wtinylfu(
    ids: Sequence[int], capacity: int, sketch: str = "cms", window: float = 0.01, protected: float = 0.8
) -> list[bool]:
    """W-TinyLFU with libCacheSim's structure; ``sketch`` "cbf" (libCacheSim) or "cms" (paper).

    Lists oldest first: window W (LRU), probation, protected. Hashes of the id itself:
    a, b = low 32 bits of XXH64 under seeds 0x12345678 / 0x12344321; hash i is
    (a + i * b) mod 2^32. cbf: 10 hashes into ceil(14.3775... * main) counters, add = +1 on all,
    halved after 32 * main hits in main; recorded on insertion, main hits, and window victims.
    cms: 4 rows of width pow2 >= capacity, 4-bit counters, every access recorded, halved after
    10 * capacity records.
    """
    import math

    win_cap = max(1, int(capacity * window))
    main_cap = max(capacity - win_cap, 1)
    prot_cap = int(protected * main_cap)
    prob_cap = main_cap - prot_cap
    if sketch == "cbf":
        bpe = -math.log(0.001) / 0.480453013918201
        n_hash = math.ceil(0.693147180559945 * bpe)
        width = math.ceil(bpe * main_cap)
        width = 2 * n_hash if width < n_hash else width
        reset_at = 32 * main_cap
    else:
        n_hash = 4
        width = 1 << max(capacity - 1, 1).bit_length()
        reset_at = 10 * capacity
    cells = [0] * (width * (n_hash if sketch == "cms" else 1))
    samples = 0

    def idx(p: int) -> list[int]:
        a = xxh64_u64(p, 0x12345678) & 0xFFFFFFFF
        b = xxh64_u64(p, 0x12344321) & 0xFFFFFFFF
        hs = [((a + i * b) & 0xFFFFFFFF) % width for i in range(n_hash)]
        return [i * width + h for i, h in enumerate(hs)] if sketch == "cms" else hs

    def est(p: int) -> int:
        return min(cells[x] for x in idx(p))

    def halve() -> None:
        for x in range(len(cells)):
            cells[x] >>= 1

    def record(p: int) -> None:
        nonlocal samples
        for x in idx(p):
            if sketch == "cbf" or cells[x] < 15:
                cells[x] += 1
        if sketch == "cms":
            samples += 1
            if samples >= reset_at:
                samples = 0
                halve()

    win: list[int] = []
    prob: list[int] = []
    prot: list[int] = []

    def enter_main(p: int) -> None:
        if len(prob) + 1 <= prob_cap:
            prob.append(p)
        elif len(prot) + 1 <= prot_cap:
            prot.append(p)
        else:
            prob.append(p)

    hits = []
    for p in ids:
        if p in win:
            win.remove(p)
            win.append(p)
            if sketch == "cms":
                record(p)
            hits.append(True)
            continue
        if p in prob or p in prot:
            if p in prot:
                prot.remove(p)
            else:
                prob.remove(p)
            prot.append(p)
            if len(prot) > prot_cap:
                prob.append(prot.pop(0))
            record(p)
            if sketch == "cbf":
                samples += 1
                if samples >= reset_at:
                    samples = 0
                    halve()
            hits.append(True)
            continue
        hits.append(False)
        if len(win) + len(prob) + len(prot) >= capacity:
            while True:
                if not win:
                    (prob if prob else prot).pop(0)
                    break
                v = win[0]
                if len(prob) + len(prot) + 1 <= main_cap:
                    enter_main(win.pop(0))
                    if sketch == "cbf":
                        record(v)
                    continue
                m = prob[0] if prob else prot[0]
                win.pop(0)
                if est(v) > est(m):
                    (prob if prob else prot).pop(0)
                    enter_main(v)
                if sketch == "cbf":
                    record(v)
                break
        win.append(p)
        record(p)
    return hits


def lrfu(ids: Sequence[int], capacity: int, lam: float) -> list[bool]:
    """LRFU by definition: CRF_t(p) = sum of 2^(-lam (t - t_i)) over p's references since it
    came in, recomputed from the full history at every eviction; evict the smallest (ties: the
    older last reference)."""
    refs: dict[int, list[int]] = {}
    hits = []
    for t, p in enumerate(ids):
        hit = p in refs
        if not hit and len(refs) >= capacity:
            victim = min(refs, key=lambda q: (sum(2.0 ** (-lam * (t - u)) for u in refs[q]), refs[q][-1]))
            del refs[victim]
        refs.setdefault(p, []).append(t)
        hits.append(hit)
    return hits


# ---- ARC, 2Q, LIRS (tests/unit/test_policies_{arc,twoq,lirs}.py, test_classics_a_vs_libcachesim.py)


def arc(ids: Sequence[int], capacity: int) -> list[bool]:
    """ARC (Megiddo and Modha, FAST 2003, Fig. 4) with libCacheSim's choices: p a float, delta
    = max(|B2|/|B1|, 1) by real division, REPLACE also takes T1 when T2 is empty, and a miss on a
    shadow entry REPLACEs only when the cache is full. Lists are Python lists, most recent first."""
    c = capacity
    t1: list[int] = []
    t2: list[int] = []
    b1: list[int] = []
    b2: list[int] = []
    p = 0.0
    hits = []

    def replace(in_b2: bool) -> None:
        if (t1 and (len(t1) > p or (len(t1) == p and in_b2))) or not t2:
            b1.insert(0, t1.pop())
        else:
            b2.insert(0, t2.pop())

    for x in ids:
        if x in t1 or x in t2:  # case I
            (t1 if x in t1 else t2).remove(x)
            t2.insert(0, x)
            hits.append(True)
            continue
        hits.append(False)
        full = len(t1) + len(t2) >= c
        if x in b1:  # case II
            p = min(p + max(len(b2) / len(b1), 1.0), c)
            b1.remove(x)
            if full:
                replace(False)
            t2.insert(0, x)
        elif x in b2:  # case III
            p = max(p - max(len(b1) / len(b2), 1.0), 0.0)
            b2.remove(x)
            if full:
                replace(True)
            t2.insert(0, x)
        else:  # case IV
            if full:
                if len(t1) + len(b1) >= c:  # A
                    if b1:
                        b1.pop()
                        replace(False)
                    else:
                        t1.pop()
                else:  # B
                    if len(t1) + len(t2) + len(b1) + len(b2) >= 2 * c and b2:
                        b2.pop()
                    replace(False)
            t1.insert(0, x)
    return hits


def twoq(ids: Sequence[int], capacity: int, kin: float = 0.25, kout: float = 0.5) -> list[bool]:
    """Full 2Q (Johnson and Shasha, VLDB 1994, Fig. 3) with libCacheSim's sizes: A1in holds
    Kin = int(c * kin) pages before it gives one up, A1out int(c * kout) shadow entries, Am the rest.
    A hit in A1in changes nothing; a hit in Am moves it to the front; a miss remembered in A1out
    goes to Am, any other miss to A1in. A full cache gives up A1in's oldest page (remembered in
    A1out) if A1in holds more than Kin, else Am's least recent page (forgotten). With Kin = 0
    (c < 4 by default) nothing is ever cached, as in libCacheSim (its ``can_insert``)."""
    k_in = int(capacity * kin)
    k_out = int(capacity * kout)
    a1in: list[int] = []  # oldest first
    a1out: list[int] = []  # oldest first
    am: list[int] = []  # least recent first
    hits = []
    for x in ids:
        if x in a1in:
            hits.append(True)
            continue
        if x in am:
            am.remove(x)
            am.append(x)
            hits.append(True)
            continue
        hits.append(False)
        remembered = x in a1out
        if remembered:
            a1out.remove(x)
        if k_in < 1:
            continue
        if len(a1in) + len(am) >= capacity:
            if len(a1in) > k_in:
                y = a1in.pop(0)
                if k_out >= 1:
                    if len(a1out) >= k_out:
                        a1out.pop(0)
                    a1out.append(y)
            else:
                am.pop(0)
        (am if remembered else a1in).append(x)
    return hits


class LirsLogic:
    """libCacheSim's ``LIRS`` rules (cache/eviction/LIRS.c) on ordered dicts, with the
    physical cache of :func:`lirs` beside them.

    ``access(x)`` applies libCacheSim's rules to one request and returns its verdict (hit or
    miss). The rules hold a page while it is LIR or a resident HIR (in Q, or marked resident in
    S); ``self.held(x)`` says so. ``phys`` (the pages pagesim keeps in memory) and ``pending``
    (pages in memory that the rules no longer hold, oldest first: the next victims) are updated
    at the same points as the compiled policy's ``_sync``.
    """

    def __init__(self, capacity: int, hir_share: float = 0.01) -> None:
        from collections import OrderedDict

        self.c = capacity
        self.h_limit = max(1, int(hir_share * capacity))
        self.l_limit = capacity - self.h_limit
        self.s: OrderedDict[int, list[bool]] = OrderedDict()  # bottom first: [is_lir, resident]
        self.q: OrderedDict[int, None] = OrderedDict()  # front (next HIR victim) first
        self.nh: OrderedDict[int, None] = OrderedDict()  # non-resident HIR in S, oldest first
        self.pending: OrderedDict[int, None] = OrderedDict()
        self.phys: set[int] = set()
        self.lirs = self.hirs = self.occupied = 0

    def held(self, x: int) -> bool:
        """Would libCacheSim hit on ``x`` now?"""
        return (x in self.s and (self.s[x][0] or self.s[x][1])) or x in self.q

    def _sync(self, y: int) -> None:
        if y not in self.phys:
            return
        if self.held(y):
            self.pending.pop(y, None)
        elif y not in self.pending:
            self.pending[y] = None

    def _prune(self) -> None:
        s = self.s
        while len(s) > 1:
            bottom = next(iter(s))
            if s[bottom][0]:
                break
            if not s[bottom][1]:
                self.nh.pop(bottom, None)
            del s[bottom]
            self._sync(bottom)

    def _evict_hir(self) -> None:
        if not self.q:
            return
        y, _ = self.q.popitem(last=False)
        self.hirs -= 1
        if y in self.s:
            self.s[y][1] = False
            self.nh[y] = None
        self.occupied -= 1
        self._sync(y)

    def _evict_lir(self) -> None:
        if not self.s:
            return
        y = next(iter(self.s))
        del self.s[y]
        self.lirs -= 1
        self.occupied -= 1
        while self.hirs + 1 > self.h_limit and self.q:
            self._evict_hir()
        self.q[y] = None
        self.hirs += 1
        self.occupied += 1
        self._sync(y)
        self._prune()

    def _make_room_for_lir(self) -> None:
        while self.lirs + 1 > self.l_limit and self.s:
            self._evict_lir()

    def access(self, x: int) -> bool:
        s, q = self.s, self.q
        in_s, in_q = x in s, x in q
        if in_s:
            s.move_to_end(x)
        if in_q:
            q.move_to_end(x)
        hit = True
        if in_s and s[x][0]:  # LIR hit
            self._prune()
        elif in_s and s[x][1]:  # resident HIR in S: becomes LIR
            if in_q:
                del q[x]
                self.hirs -= 1
                self.occupied -= 1
            self._make_room_for_lir()
            if x in s:
                s[x][0] = True
            self.lirs += 1
            self.occupied += 1
        elif not in_s and in_q:  # resident HIR only in Q: libCacheSim also demotes a LIR page
            self._make_room_for_lir()
            s[x] = [False, True]
        else:
            hit = False
            self._miss(x, in_s)
        while len(s) > 2 * self.c and self.nh:  # limitStack
            y, _ = self.nh.popitem(last=False)
            s.pop(y, None)
            self._sync(y)
        self._sync(x)
        return hit

    def _miss(self, x: int, in_s: bool) -> None:
        s = self.s
        if in_s:  # non-resident HIR in S (already on top)
            self._make_room_for_lir()
            self.nh.pop(x, None)
        else:
            if self.l_limit < 1:
                return  # libCacheSim's can_insert: larger than the LIR set, not inserted
            if self.lirs + 1 > self.l_limit and self.hirs + 1 > self.h_limit:
                while self.hirs + 1 > self.h_limit and self.q:
                    self._evict_hir()
        for _ in range(4):  # libCacheSim: while the cache is full, evict
            if self.occupied + 1 <= self.c:
                break
            if in_s and x in s and not s[x][0] and not s[x][1]:
                while self.hirs >= self.h_limit and self.q:
                    self._evict_hir()
                self._evict_lir()
            elif not in_s and self.lirs + 1 > self.l_limit and self.hirs + 1 > self.h_limit:
                self._evict_hir()
        if in_s:
            s[x] = [True, True]
            self.lirs += 1
        elif self.lirs + 1 <= self.l_limit:
            s[x] = [True, True]
            self.lirs += 1
        else:
            s[x] = [False, True]
            self.q[x] = None
            self.hirs += 1
        self.occupied += 1


def lirs_libcachesim(ids: Sequence[int], capacity: int, hir_share: float = 0.01) -> list[bool]:
    """libCacheSim's ``LIRS`` verdicts (its own accounting, including its evictions on hits)."""
    logic = LirsLogic(capacity, hir_share)
    return [logic.access(x) for x in ids]


def lirs(ids: Sequence[int], capacity: int, hir_share: float = 0.01) -> list[bool]:
    """pagesim's ``lirs``: libCacheSim's rules (:class:`LirsLogic`) deciding a cache of
    ``capacity`` frames that, as the engine, evicts only on a miss. A page the rules stop holding
    stays in memory until a miss needs its frame (oldest such page first); if none is waiting,
    the victim is the first page in memory from Q's front, then from S's bottom."""
    logic = LirsLogic(capacity, hir_share)
    hits = []
    for x in ids:
        hit = x in logic.phys
        hits.append(hit)
        logic.access(x)
        if hit or not logic.held(x):
            continue
        if len(logic.phys) >= capacity:
            if logic.pending:
                victim, _ = logic.pending.popitem(last=False)
            else:
                victim = next(
                    (y for y in list(logic.q) + list(logic.s) if y in logic.phys),
                )
            logic.phys.remove(victim)
        logic.phys.add(x)
    return hits
