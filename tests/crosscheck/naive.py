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
