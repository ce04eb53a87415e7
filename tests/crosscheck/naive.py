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
