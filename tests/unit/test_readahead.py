"""Kernel mode's file readahead against Linux 6.6's rules (mm/readahead.c ``ondemand_readahead``,
``get_init_ra_size``, ``get_next_ra_size``; mm/filemap.c ``filemap_get_pages``), on small
hand-worked runs of one-page reads. The windows named below are ``[start, start + size)`` with
PG_readahead on ``start + size - async_size``; with ``ra_pages`` 32 ``get_init_ra_size(1)`` is 4
and ``get_next_ra_size`` goes 4 -> 8 -> 16 -> 32."""

from __future__ import annotations

import numpy as np

from pagesim.core.state import RA_MARK
from pagesim.engine.kernel import KernelRun
from pagesim.engine.kernel_loop import (
    RA,
)
from pagesim.engine.memory import KernelConfig
from pagesim.policies.registry import make_policy
from pagesim.trace import KIND_FILE, OP_READ, OP_WRITE, FileAdvice, Trace, hint_code

NODE = KernelConfig(memory_pages=4096, schedule="trace")  # readahead_pages (ra_pages) 32


def _trace(ids: list[int], op: list[int] | None = None, tag: list[int] | None = None) -> Trace:
    n = len(ids)
    return Trace.from_ids(
        np.asarray(ids, np.int64),
        kind=np.full(n, KIND_FILE, np.uint8),
        op=np.full(n, OP_READ, np.uint8) if op is None else np.asarray(op, np.uint8),
        tag=np.zeros(n, np.int32) if tag is None else np.asarray(tag, np.int32),
    )


def _run(trace: Trace, advice: FileAdvice | None = None, config: KernelConfig = NODE) -> KernelRun:
    return KernelRun(trace, make_policy("linux-lru"), config, advice=advice)


def _window(run: KernelRun, tag: int = 0) -> tuple[int, int, int]:
    """The task's ``(start, size, async_size)``; ``start`` is a source id."""
    ra = run.framework.tag_ra[tag]
    return int(ra[RA.start]), int(ra[RA.size]), int(ra[RA.async_size])


def _resident(run: KernelRun, trace: Trace) -> dict[int, int]:
    """Each source id's resident flags (0: not in memory)."""
    return {int(i): int(run.state.resident[p]) for p, i in enumerate(trace.original_id)}


def _windows_of(trace: Trace, advice: FileAdvice | None = None) -> list[tuple[int, int, int]]:
    """The task's window after each access, each distinct one once, in order."""
    run = _run(trace, advice)
    seen: list[tuple[int, int, int]] = []
    while run.done < run.n:
        run.advance(1)
        w = _window(run)
        if w[1] > 0 and (not seen or seen[-1] != w):
            seen.append(w)
    return seen


def test_a_sequential_read_grows_its_window_4_8_16_32() -> None:
    """Pages 0..199 in order. Page 0 has no history (read alone: a trace has no file offsets, so
    the kernel's start-of-file rule is not modelled); page 1 follows it: the initial window
    [1, 5), async_size 3, mark on page 2. Each mark's hit pushes the window on from its end,
    async_size = size (the mark on the window's first page): 8, 16, then 32 (ra_pages)."""
    windows = _windows_of(_trace(list(range(200))))
    assert windows[:5] == [(1, 4, 3), (5, 8, 8), (13, 16, 16), (29, 32, 32), (61, 32, 32)]
    for (s0, n0, _), (s1, _, _) in zip(windows, windows[1:]):
        assert s1 == s0 + n0  # each window starts where the last ended


def test_the_mark_starts_the_next_window_before_a_miss() -> None:
    """After pages 0, 1 the window [1, 5) is in memory with PG_readahead on page 2 only; the hit
    on page 2 reads [5, 13) at once (mark on 5), before any read reaches it: no miss."""
    trace = _trace(list(range(20)))
    run = _run(trace)
    run.advance(2)
    res = _resident(run, trace)
    assert [i for i in range(20) if res[i]] == [0, 1, 2, 3, 4]
    assert [i for i in range(20) if res[i] & RA_MARK] == [2]
    run.advance(1)  # page 2: a hit on the mark
    res = _resident(run, trace)
    assert [i for i in range(20) if res[i]] == list(range(13))
    assert [i for i in range(20) if res[i] & RA_MARK] == [5]
    assert run.counters["misses"] == 2 and _window(run) == (5, 8, 8)
    run.advance()
    assert run.counters["misses"] == 2  # pages 2..19 all hit


def test_a_sequential_miss_off_the_window_starts_again_at_the_initial_size() -> None:
    """Pages 0..39 read in order (the window is [61, 93): the hit on page 29 read it),
    DONTNEED drops pages 40..50 before page 40 is read. The miss on 40 follows the last read
    but is neither the window's end (93) nor its mark (61): ondemand_readahead starts again,
    [40, 44), 4 pages (get_init_ra_size), mark on 41, not a window grown from the last."""
    advice = FileAdvice(np.array([40]), np.array([hint_code("DONTNEED")]), np.array([40]), np.array([50]))
    trace = _trace(list(range(60)))
    run = _run(trace, advice)
    run.advance(40)
    assert _window(run) == (61, 32, 32)
    before = run.counters
    run.advance(1)  # page 40: a miss
    c = run.counters
    assert _window(run) == (40, 4, 3)
    assert c["misses"] - before["misses"] == 1
    assert c["readahead_pages"] - before["readahead_pages"] == 3  # pages 41, 42, 43
    res = _resident(run, trace)
    assert res[41] & RA_MARK and not res[44]
    run.advance(1)  # page 41, the mark: the next window [44, 52)
    assert _window(run) == (44, 8, 8)


def test_a_miss_at_the_window_end_grows_it() -> None:
    """Page 2 (the mark of [1, 5)) is in memory before the window is read, so it gets no mark
    (the kernel marks only pages it reads): the reader's hits run out and page 5 misses. 5 is
    the window's end (start + size): the window grows, [5, 13), and readit merges the next
    one (the read is at the window's start and the mark would be on it): size 8 + 16 = 24,
    async_size 16, mark on 13."""
    trace = _trace([2, 0, 1, 2, 3, 4, 5, 6], tag=[1, 0, 0, 0, 0, 0, 0, 0])
    run = _run(trace)
    run.advance(3)  # task 1 reads page 2 alone; task 0 reads 0, then 1: the window [1, 5)
    assert _window(run) == (1, 4, 3) and not _resident(run, trace)[2] & RA_MARK
    run.advance(4)  # 2, 3, 4 hit; 5 misses
    assert _window(run) == (5, 24, 16)
    assert run.counters["misses"] == 4  # 2 (task 1), 0, 1, 5


def test_sequential_doubles_the_maximum_window() -> None:
    """fadvise SEQUENTIAL sets ra_pages to twice the device's: the windows go on to 64."""
    advice = FileAdvice(np.array([0]), np.array([hint_code("SEQUENTIAL")]), np.array([0]), np.array([399]))
    sizes = [w[1] for w in _windows_of(_trace(list(range(400))), advice)]
    assert sizes[:6] == [4, 8, 16, 32, 64, 64]
    assert max(w[1] for w in _windows_of(_trace(list(range(400))))) == 32


def test_a_random_read_reads_only_its_page_and_keeps_the_state() -> None:
    """After a stream of pages 0..19 (window [29, 61)), reads of 100, 200 and 300 (no page near
    the last read, none cached before them) read one page each and leave the window as it was
    ("do not pollute the readahead state")."""
    trace = _trace([*range(20), 100, 200, 300, *range(101, 110)])
    run = _run(trace)
    run.advance(20)
    state = _window(run)
    before = run.counters
    run.advance(3)
    c = run.counters
    assert c["misses"] - before["misses"] == 3
    assert c["pgpgin"] - before["pgpgin"] == 3 and c["readahead_pages"] == before["readahead_pages"]
    assert _window(run) == state


def test_a_read_two_pages_on_counts_as_sequential() -> None:
    """filemap_read sets prev_pos to the byte after the read, so after page 10 prev_index is 11
    and page 12 gives index - prev_index = 1: a sequential miss, the initial window [12, 16).
    Page 13 after page 10 (a difference of 2) is a random read."""
    run = _run(_trace([10, 12, 13, 14, 15, 16]))
    run.advance(2)
    assert _window(run) == (12, 4, 3) and run.counters["readahead_pages"] == 3
    run = _run(_trace([10, 13, 14, 15, 16, 17]))
    run.advance(2)
    assert run.counters["readahead_pages"] == 0 and run.counters["pgpgin"] == 2
    assert _window(run)[1] == 0


def test_writes_neither_read_ahead_nor_move_prev_pos() -> None:
    """A buffered write takes no readahead path (generic_perform_write) and leaves prev_pos:
    read 10, write 11 and 12, read 13: 13 is two pages past prev_index 11, a random read. A
    write to the marked page 2 of [1, 5) starts nothing; the read of it then does."""
    w, r = OP_WRITE, OP_READ
    run = _run(_trace([10, 11, 12, 13, 14, 15, 16], op=[r, w, w, r, w, w, w]))
    run.advance(4)
    assert run.counters["readahead_pages"] == 0 and _window(run)[1] == 0
    trace = _trace([0, 1, *range(3, 20), 2, 2], op=[r, r] + [w] * 17 + [w, r])
    run = _run(trace)
    run.advance(2)
    assert _window(run) == (1, 4, 3) and _resident(run, trace)[2] & RA_MARK
    run.advance(18)  # writes: 3..19 (created in memory), then page 2
    assert _window(run) == (1, 4, 3) and _resident(run, trace)[2] & RA_MARK
    run.advance(1)  # the read of page 2
    assert _window(run) == (5, 8, 8) and not _resident(run, trace)[2] & RA_MARK


def test_a_mark_another_task_left_starts_a_window_after_the_cached_pages() -> None:
    """Task 0 reads 0, 1 (window [1, 5), mark on 2); task 1, whose state describes no window,
    reads page 2: page_cache_async_ra finds the next page not in memory, 5 (3 pages on), and
    reads [5, 5 + get_next_ra_size(3 + 1)) = [5, 13), async_size 8, mark on 5."""
    trace = _trace([0, 1, 2, *range(3, 30)], tag=[0, 0, 1] + [2] * 27)
    run = _run(trace)
    run.advance(3)
    assert _window(run, 1) == (5, 8, 8) and _window(run, 0) == (1, 4, 3)
    res = _resident(run, trace)
    assert [i for i in range(30) if res[i]] == list(range(13))
    assert [i for i in range(30) if res[i] & RA_MARK] == [5]


def test_a_window_larger_than_the_free_memory_is_cut_not_retried_forever() -> None:
    """``readit`` can merge two windows and the page into 65 pages, more than a 64-page node can
    ever free. Readahead pages are ``__GFP_NORETRY`` allocations: once the access's reclaim
    episode ends short, the window gets the room there is (``page_cache_ra_unbounded`` stops at
    the first failed allocation) and the read goes on."""
    trace = _trace(list(range(80)) * 2)
    run = _run(trace, config=KernelConfig(memory_pages=64, schedule="trace"))
    assert run.advance() == len(trace)
    c = run.counters
    assert c["oom_kill"] == 0
    assert c["pgpgin"] == c["misses"] + c["readahead_pages"]
    assert int((run.state.resident != 0).sum()) <= 64
