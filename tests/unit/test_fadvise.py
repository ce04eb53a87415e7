"""posix_fadvise in kernel mode (pagesim.engine.kmode.fadvise) on small hand-worked runs, and the
GET-SCAN experiment's fadvise baselines."""

from __future__ import annotations

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from pagesim.analysis.experiments import Experiment, file_search_experiment, get_scan_experiment
from pagesim.analysis.experiments.file_search import NO_FADVISE
from pagesim.analysis.experiments.get_scan import FADVISE_BASELINES
from pagesim.cli import app
from pagesim.core.state import DIRTY, LIST
from pagesim.engine.kernel import KernelRun
from pagesim.engine.kernel_loop import (
    RA,
    N,
)
from pagesim.engine.memory import KernelConfig
from pagesim.policies.registry import make_policy
from pagesim.report.experiments import experiment_table
from pagesim.trace import KIND_FILE, OP_READ, OP_WRITE, FileAdvice, Trace, hint_code

NODE = KernelConfig(memory_pages=4096)  # readahead_pages 32


def _trace(ids: list[int], op: list[int] | None = None) -> Trace:
    n = len(ids)
    return Trace.from_ids(
        np.asarray(ids, np.int64),
        kind=np.full(n, KIND_FILE, np.uint8),
        op=np.full(n, OP_READ, np.uint8) if op is None else np.asarray(op, np.uint8),
        tag=np.zeros(n, np.int32),
    )


def _advice(calls: list[tuple[int, str, int, int]]) -> FileAdvice:
    rows, hints, first, last = zip(*calls)
    codes = np.array([hint_code(h) for h in hints])
    return FileAdvice(np.array(rows), codes, np.array(first), np.array(last))


def _window_sizes(trace: Trace, advice: FileAdvice | None) -> tuple[list[int], list[int], KernelRun]:
    """The task's readahead window after each access, and the pages resident ahead of it."""
    run = KernelRun(trace, make_policy("linux-lru"), NODE, advice=advice)
    sizes, ahead = [], []
    while run.done < run.n:
        run.advance(1)
        sizes.append(int(run.framework.tag_ra[0, RA.size]))
        ahead.append(int(run.framework.node[N.resident]) - run.done)
    return sizes, ahead, run


def test_sequential_doubles_the_readahead_window() -> None:
    """600 pages of one file read in order. The windows grow x4 then x2 (get_next_ra_size) up to
    ra_pages: 32 pages without a hint, 64 with SEQUENTIAL (bdi->ra_pages * 2), so the reader
    runs up to twice as far ahead; the same 600 pages are read either way."""
    trace = _trace(list(range(600)))
    plain, plain_ahead, r0 = _window_sizes(trace, None)
    hinted, hinted_ahead, r1 = _window_sizes(trace, _advice([(0, "SEQUENTIAL", 0, 599)]))
    assert max(plain) == 32 and max(hinted) == 64
    assert int(r1.framework.tag_ra[0, RA.max]) == 2 * int(r0.framework.tag_ra[0, RA.max]) == 64
    assert max(hinted_ahead) > max(plain_ahead) >= 32
    for run in (r0, r1):
        assert run.counters["pgpgin"] == 600 and run.counters["misses"] == 2
    assert r1.fadvise == {"calls": 1, "dropped": 0, "written": 0}


def test_random_reads_only_the_page_asked_for_and_normal_undoes_it() -> None:
    """RANDOM (FMODE_RANDOM): a sequential read brings in no window, each page is a miss read
    alone; NORMAL before page 50 restores readahead (and SEQUENTIAL's doubling is undone)."""
    trace = _trace(list(range(100)))
    rnd = KernelRun(trace, make_policy("linux-lru"), NODE, advice=_advice([(0, "RANDOM", 0, 0)]))
    rnd.advance()
    assert rnd.counters["readahead_pages"] == 0 and rnd.counters["misses"] == 100
    both = _advice([(0, "SEQUENTIAL", 0, 0), (0, "RANDOM", 0, 0), (50, "NORMAL", 0, 0)])
    run = KernelRun(trace, make_policy("linux-lru"), NODE, advice=both)
    run.advance()
    c = run.counters
    assert c["readahead_pages"] == 49 and c["misses"] == 51  # page 50 on: read ahead again
    assert int(run.framework.tag_ra[0, RA.max]) == 32
    assert run.fadvise["calls"] == 3


def test_dontneed_drops_the_clean_pages_of_the_range_and_writes_back_the_dirty() -> None:
    """Pages 0..99 read (all resident by readahead), page 70 written (dirty); DONTNEED over
    pages 20..79 before the re-read of page 30: the 59 clean pages leave through the policy's
    removal hook (off its lists, uncharged), page 70 is written back and stays, clean. The
    re-read of page 30 misses, a plain miss (no shadow entry: not a refault), and reads one
    page from the device."""
    ids = [*range(100), 70, 30]
    ops = [OP_READ] * 100 + [OP_WRITE, OP_READ]
    trace = _trace(ids, ops)
    plain = KernelRun(trace, make_policy("linux-lru"), NODE)
    plain.advance()
    run = KernelRun(trace, make_policy("linux-lru"), NODE, advice=_advice([(101, "DONTNEED", 20, 79)]))
    run.advance(101)
    before = run.counters
    run.advance()
    c, s, fw = run.counters, run.state, run.framework
    assert run.fadvise == {"calls": 1, "dropped": 59, "written": 1}
    dense = {int(orig): p for p, orig in enumerate(trace.original_id)}
    gone = [dense[i] for i in range(20, 80) if i not in (30, 70)]
    assert (s.resident[gone] == 0).all() and (s.lst[gone, LIST] < 0).all()
    assert s.resident[dense[70]] != 0 and (s.resident[dense[70]] & DIRTY) == 0
    assert s.resident[dense[30]] != 0  # read back
    assert c["misses"] - before["misses"] == 1 and c["pgpgin"] - before["pgpgin"] == 1
    assert c["workingset_refault_file"] == 0
    assert c["pgpgout"] - before["pgpgout"] == 1
    assert plain.counters["misses"] == before["misses"]  # without the hint the re-read hits
    # no page lost or counted twice: charges, the node's count and the policy's lists agree
    resident = int((s.resident != 0).sum())
    assert int(fw.used[0]) == int(fw.node[N.resident]) == resident == 100 - 59 + 1
    assert int((s.lst[:, LIST] >= 0).sum()) == resident


def test_dontneed_clears_the_shadow_entries_of_the_range() -> None:
    """Pages evicted from a small cgroup leave shadow entries; a DONTNEED over them clears them
    (invalidate_exceptional_entry), so reading them again counts no refault."""
    ids = [*range(300), *range(50)]
    trace = _trace(ids)
    cfg = KernelConfig(memory_pages=4096, readahead_pages=1)
    plain = KernelRun(trace, make_policy("linux-lru"), cfg, cgroup_limits=[100])
    plain.advance()
    assert plain.counters["workingset_refault_file"] > 0
    run = KernelRun(
        trace, make_policy("linux-lru"), cfg, cgroup_limits=[100], advice=_advice([(300, "DONTNEED", 0, 299)])
    )
    run.advance()
    assert run.counters["workingset_refault_file"] == 0


def test_noreuse_changes_nothing_for_reads() -> None:
    """FMODE_NOREUSE is read only for mapped accesses in Linux 6.6 (vma_has_recency): a mix of
    sequential and random reads gives the same counters with and without the hint."""
    rng = np.random.default_rng(1)
    ids = [*range(400), *rng.integers(0, 1200, 3000).tolist(), *range(600, 1000)]
    trace = _trace(ids)
    runs = []
    for advice in (None, _advice([(0, "NOREUSE", 0, 1199)])):
        run = KernelRun(trace, make_policy("linux-lru"), KernelConfig(memory_pages=4096), cgroup_limits=[300],
                        advice=advice)  # fmt: skip
        run.advance()
        runs.append(run)
    assert runs[0].counters == runs[1].counters and runs[0].counters["evictions"] > 0
    assert runs[1].fadvise["calls"] == 1


@pytest.mark.parametrize(
    ("calls", "message"),
    [
        ([(0, "WILLNEED", 0, 0)], "unknown or unmodelled"),
        ([(5, "DONTNEED", 0, 0)], "rows must be accesses"),
        ([(0, "DONTNEED", 9, 3)], "ends before it starts"),
    ],
)
def test_bad_advice_is_refused(calls: list[tuple[int, str, int, int]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        KernelRun(_trace([0, 1, 2]), make_policy("linux-lru"), NODE, advice=_advice(calls))


@pytest.fixture(scope="module")
def get_scan_small() -> Experiment:
    return get_scan_experiment(scale=1 / 4096, policies=("linux-lru",))


def test_get_scan_has_the_three_fadvise_rows_beside_the_papers(get_scan_small: Experiment) -> None:
    """At the smallest scale: the default, then linux-lru with SEQUENTIAL, NOREUSE and DONTNEED on
    the scan thread's reads, each beside the paper's figure (GET 1.02x, 1.01x, 1.00x)."""
    exp = get_scan_small
    rows = {r.policy: r for r in exp.runs}
    assert list(rows) == ["linux-lru", *(f"linux-lru+{h}" for h in FADVISE_BASELINES)]
    assert FADVISE_BASELINES == ("SEQUENTIAL", "NOREUSE", "DONTNEED")
    paper = exp.paper["get-scan"]
    assert [round(paper[f"linux-lru+{h}"]["GET ops/s"], 2) for h in FADVISE_BASELINES] == [1.02, 1.01, 1.0]
    base, noreuse = rows["linux-lru"], rows["linux-lru+NOREUSE"]
    assert {k: v for k, v in noreuse.counters.items() if not k.startswith("fadvise_")} == base.counters
    assert noreuse.counters["fadvise_calls"] > 0 and noreuse.counters["fadvise_dropped"] == 0
    assert rows["linux-lru+DONTNEED"].counters["fadvise_dropped"] > 0
    seq = rows["linux-lru+SEQUENTIAL"]
    assert seq.counters["readahead_pages"] > base.counters["readahead_pages"]
    assert exp.notes and "ENABLE_SCAN_FADVISE" in exp.notes[0]
    console = Console(width=250, record=True)
    console.print(experiment_table(exp))
    text = console.export_text()
    assert "linux-lru+DONTNEED" in text and "1.02x" in text


def test_file_search_says_the_paper_ran_no_hint() -> None:
    exp = file_search_experiment(policies=["linux-lru"], scale=1 / 1024, passes=2)
    assert NO_FADVISE in exp.notes and "ripgrep takes none" in NO_FADVISE
    assert [r.policy for r in exp.runs] == ["linux-lru"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["experiment", "file-search", "--fadvise", "DONTNEED"], "--fadvise applies to the get-scan"),
        (["experiment", "get-scan", "--fadvise", "WILLNEED"], "unknown or unmodelled fadvise hint"),
    ],
)
def test_cli_fadvise_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
