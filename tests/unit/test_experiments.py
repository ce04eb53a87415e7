"""The cache_ext experiments at a small scale: each runs, and its direction is asserted.

Where the paper's direction does not hold in pagesim's model the assertion is marked xfail
with the measured numbers and the suspected mechanism (docs/experiments.md).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from pagesim.analysis import experiments as E
from pagesim.analysis.experiments import ycsb as ycsb_module
from pagesim.analysis.experiments.runs import _KV_METRICS, _policy
from pagesim.analysis.experiments.twitter import _twitter_sources
from pagesim.cli import app
from pagesim.core.state import DIRTY
from pagesim.engine.kernel import KernelRun
from pagesim.policies import make_policy
from pagesim.report.experiments import experiment_figure, experiment_table
from pagesim.trace import OP_FREE
from pagesim.workloads.cache_ext import build_ycsb

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "twitter_sample.csv"
SCALE = 1 / 4096


@pytest.fixture(scope="module")
def file_search() -> E.Experiment:
    return E.file_search_experiment(policies=["linux-lru", "ce-mru"], scale=SCALE * 4, passes=6)


@pytest.fixture(scope="module")
def ycsb_c() -> E.Experiment:
    return E.ycsb_experiment(
        workloads=["C"], policies=["linux-lru", "ce-lfu"], scale=SCALE, latency_window=5000
    )


@pytest.fixture(scope="module")
def get_scan() -> E.Experiment:
    return E.get_scan_experiment(policies=["linux-lru", "get-scan"])  # its default scale, 1/1024


@pytest.fixture(scope="module")
def isolation() -> E.Experiment:
    return E.isolation_experiment(policies=["linux-lru", "ce-lfu/ce-mru"], scale=SCALE)


@pytest.fixture(scope="module")
def admission() -> E.Experiment:
    return E.admission_experiment(
        policies=["linux-lru", "admit-compaction"], scale=SCALE, latency_window=5000
    )


def test_file_search_mru_beats_the_default(file_search: E.Experiment) -> None:
    mru = file_search.find("file-search", "ce-mru")
    assert file_search.ratio(mru, "throughput", "search") > 1.3  # the paper: 1.8x
    assert mru.runtime_s["search"] < file_search.find("file-search", "linux-lru").runtime_s["search"]
    assert file_search.ratio(mru, "disk_read_pages", "all") < 0.8


def test_file_search_reports_the_p99_of_a_file_read(file_search: E.Experiment) -> None:
    """Every file read of the run is timed (no warm-up): a finite P99 per policy, in the table."""
    assert ("file P99 ms", "p99_ms", "search") in file_search.metrics
    for r in file_search.runs:
        assert math.isfinite(r.p99_ms["search"]) and r.p99_ms["search"] >= r.mean_ms["search"] > 0


def test_measure_counts_operations_and_latency() -> None:
    o = build_ycsb(workload="C", scale=SCALE, ops=6000)
    r = E.measure(o, make_policy("linux-lru"), label="linux-lru", workload="C", latency_window=3000)
    assert r.throughput["all"] == pytest.approx(r.throughput["client"])
    assert r.throughput["all"] > 0 and r.misses > 0 and r.disk_read_pages >= r.misses
    assert 0.08 <= r.p99_ms["all"] < 1.0  # an operation that waited for one or two SSD reads
    assert r.mean_ms["all"] < r.p99_ms["all"]
    # operations after the warm-up: throughput x time ~ 80 % of the operations
    tag_time = r.runtime_s["all"]
    assert r.throughput["all"] * tag_time / 8 == pytest.approx(0.8 * 6000 / 8 * 8 / 8, rel=0.35)


@pytest.mark.xfail(
    reason="on LevelDB's leveled layout at 1/1024 ce-lfu has 0.89x the default's throughput on C (bench),"
    " while a global LFU has 1.17x: frequency pays, but reclaim frees 32 pages at a time, so the pages"
    " that come in between two batches lie together at the list's tail and fill one or two of the next"
    " sample's groups of 20: most of a batch's 32 victims come from groups of pages that survived a"
    " rotation, and a page read once survives its first judgement (cache mode evicts one page per miss"
    " and has no such clumps; there ce-lfu misses as few as the global LFU). A plain Python windowed LFU"
    " gives the same misses (test_policies_ce_lfu). The kernel also asks cache_ext for candidates"
    " 32 at a time (shrink_lruvec: nr[LRU_INACTIVE_FILE] pages in evict_folios calls of 32), so"
    " the batches are faithful; the other request-to-page-cache differences measured (context"
    " readahead: 0.891x with and without) do not change it. See docs/experiments.md, 'YCSB from"
    " request to page cache'.",
    strict=False,
)
def test_ycsb_c_lfu_ahead_of_the_default(ycsb_c: E.Experiment) -> None:
    lfu = ycsb_c.find("ycsb-C", "ce-lfu")
    assert ycsb_c.ratio(lfu, "throughput", "all") > 1.0


def test_ycsb_a_log_pages_do_not_pile_up_in_kernel_mode() -> None:
    # YCSB A's only writes are log appends. Each thread appends to its own log and frees it, so
    # however the scheduler interleaves the threads, no freed log page is written again: at most
    # one live log page per thread (two while it moves to a new one), and ce-fifo, which never
    # proposes a dirty page, meets every log page again only when its thread frees it.
    o = build_ycsb(workload="A", scale=SCALE, ops=8000)
    t = o.trace
    run = KernelRun(t, make_policy("ce-fifo"), E.node_for(t), cgroup_limits=t.source["cgroup_pages"])
    while run.done < run.n:
        run.advance(1000)
        s = run.states[0]
        assert int(((s.resident & DIRTY) != 0).sum()) <= 2 * 8
    c = run.counters
    assert c["pgfree_by_owner"] == int((t.op == OP_FREE).sum())  # every log page freed while resident
    assert c["dirty_writeback"] == 0 and c["fallback_evictions"] == 0


def test_ycsb_e_mru_skip_rule_stops_readahead_thrashing() -> None:
    # YCSB E's scans read ahead; plain MRU evicts the window's pages (at the head of its list)
    # before the scan reads them, so the scan misses where its window was (and, by 6.6's
    # rules, starts again with a window of 4 pages). The experiments' ce-mru skips pages still
    # under I/O or off the LRU, as cache_ext's does, so the scans find their windows: measured
    # at this scale, 180,142 misses against 316,925 and 1.76x the throughput.
    o = build_ycsb(workload="E", scale=SCALE)
    plain = E.measure(o, make_policy("ce-mru"), label="plain", workload="E", latency_window=0)
    modelled = E.measure(o, _policy("ce-mru", o), label="model", workload="E", latency_window=0)
    assert _policy("ce-mru", o).values["inflight"] == E.LRU_ADD_BATCH * 8
    assert modelled.counters["misses"] < plain.counters["misses"] * 2 / 3
    assert modelled.throughput["all"] > plain.throughput["all"] * 1.5


def test_ycsb_c_table_and_json(ycsb_c: E.Experiment) -> None:
    d = ycsb_c.to_dict()
    assert [r["policy"] for r in d["runs"]] == ["linux-lru", "ce-lfu"]
    assert d["runs"][0]["relative"]["ops/s"] == 1.0
    assert d["paper"]["ycsb-C"]["ce-lfu"]["ops/s"] == 1.36
    json.dumps(d)
    table = experiment_table(ycsb_c)
    assert table.row_count == 2


def test_get_scan_get_throughput_above_and_p99_below_the_default(get_scan: E.Experiment) -> None:
    """The paper's direction (GET 1.70x, GET P99 0.43x); the model: 1.54x and 0.68x at 1/1024."""
    gs = get_scan.find("get-scan", "get-scan")
    base = get_scan.find("get-scan", "linux-lru")
    assert get_scan.ratio(gs, "throughput", "get") > 1.3, (gs.throughput, base.throughput)
    assert get_scan.ratio(gs, "p99_ms", "get") < 0.8, (gs.p99_ms, base.p99_ms)


def test_isolation_tailored_beats_the_default_for_search(isolation: E.Experiment) -> None:
    tailored = isolation.find("isolation", "ce-lfu/ce-mru")
    assert isolation.ratio(tailored, "throughput", "search") > 1.1


def test_isolation_reports_each_cgroups_p99(isolation: E.Experiment) -> None:
    labels = [label for label, _, _ in isolation.metrics]
    assert "YCSB P99 ms" in labels and "search P99 ms" in labels
    for r in isolation.runs:
        for group in ("ycsb", "search"):
            assert math.isfinite(r.p99_ms[group]) and r.p99_ms[group] >= r.mean_ms[group] > 0, r.p99_ms


def test_isolation_tailored_ycsb(isolation: E.Experiment) -> None:
    tailored = isolation.find("isolation", "ce-lfu/ce-mru")
    ratio = isolation.ratio(tailored, "throughput", "ycsb")
    if ratio <= 1.0:
        pytest.xfail(f"YCSB under ce-lfu {ratio:.2f}x the default (the YCSB-C result above)")
    assert ratio > 1.0


def test_admission_filter_lowers_foreground_latency(admission: E.Experiment) -> None:
    """Kernel mode calls admit on file read misses: compaction's reads bypass the cache, the
    foreground misses less. At this scale a foreground operation's latency is mostly a count of
    SSD reads (80 us each), so its P99 is a quantum: two reads and four accesses' CPU,
    0.1604 ms, under either policy (more than 1 % of operations miss twice). The filter
    shows in the mean (fewer operations wait at all) while the P99 does not rise; the paper's
    P99 (2.61 -> 2.16 ms) comes from a 10 GiB cgroup's continuous latencies."""
    ac = admission.find(E.ADMISSION_WORKLOAD, "admit-compaction")
    assert ac.counters["bypassed"] > 0
    assert admission.ratio(ac, "p99_ms", "foreground") <= 1.0
    assert admission.ratio(ac, "mean_ms", "foreground") < 1.0


def test_admission_runs(admission: E.Experiment) -> None:
    for r in admission.runs:
        assert r.throughput["foreground"] > 0 and r.throughput["compaction"] > 0


def test_twitter_on_the_sample(tmp_path: Path) -> None:
    exp = E.twitter_experiment(path=str(SAMPLE), policies=["linux-lru", "ce-lfu"], scale=SCALE)
    assert exp.workloads() == ["twitter"]
    for r in exp.runs:
        assert r.throughput["all"] > 0 and r.disk_read_pages > 0
    assert np.isfinite(exp.ratio(exp.runs[1], "throughput", "all"))
    out = experiment_figure(exp, tmp_path / "tw.png")
    assert out.stat().st_size > 1000


def test_twitter_rows_name_their_cluster() -> None:
    assert _twitter_sources("t.csv", [24]) == [("twitter-24", {"path": "t.csv"})]
    assert _twitter_sources("t.csv", None) == [("twitter", {"path": "t.csv"})]
    rows = [row for row, _ in _twitter_sources(None, None)]
    assert rows == [f"twitter-{c}" for c in (17, 18, 24, 34, 52)]
    assert _twitter_sources(None, [34]) == [("twitter-34", {"cluster": 34})]
    with pytest.raises(ValueError, match="a trace is one cluster; got 2"):
        _twitter_sources("t.csv", [17, 18])
    with pytest.raises(ValueError, match="no stand-in for Twitter cluster 7; known: 17, 18, 24, 34, 52"):
        _twitter_sources(None, [24, 7])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ycsb", "--cluster", "24"], "--cluster applies to the twitter experiment only"),
        (["twitter", "--cluster", "x"], "cannot read cluster 'x'"),
        (["twitter", "--cluster", "9"], "no stand-in for Twitter cluster 9"),
    ],
)
def test_cli_experiment_cluster_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["experiment", *args])
    assert result.exit_code != 0
    assert message in result.output


def test_cli_experiment_json_and_figure(tmp_path: Path, file_search: E.Experiment) -> None:
    fig = tmp_path / "fs.png"
    result = CliRunner().invoke(
        app,
        ["experiment", "file-search", "--scale", "1/1024", "--policy", "linux-lru,ce-mru", "--json",
         "--figure", str(fig)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout.strip().splitlines()[-1])
    assert d["experiment"] == "file-search" and fig.exists()
    assert d["runs"][1]["relative"]["files/s"] > 1.0


def test_cli_experiment_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["experiment", "file-search", "--scale", "1/2048", "--policy", "linux-lru,ce-mru",
         "--figure", str(tmp_path / "f.png")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "x default" in result.stdout and "ce-mru" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["experiment", "nope"], "unknown experiment 'nope'"),
        (["experiment", "ycsb", "--scale", "2"], "scale must be within (0, 1]"),
        (["experiment", "file-search", "-w", "C"], "applies to the ycsb and overhead experiments only"),
        (["experiment", "ycsb", "--device", "ssd"], "applies to the get-scan and admission"),
        (["experiment", "get-scan", "--device", "floppy"], "unknown --device 'floppy'; known: "),
        (
            ["experiment", "file-search", "--layout", "levels=0"],
            "--layout applies to the ycsb experiment only",
        ),
        (
            ["experiment", "ycsb", "--layout", "depth=3"],
            "unknown --layout key 'depth'; known: levels, table_cache",
        ),
        (["experiment", "ycsb", "--layout", "levels"], "--layout takes KEY=VALUE, got 'levels'"),
        (["experiment", "ycsb", "--layout", "levels=two"], "--layout levels takes an integer, got 'two'"),
        (["experiment", "ycsb", "--layout", "filters=maybe"], "--layout filters takes 0 or 1"),
        (["experiment", "ycsb", "--layout", "levels=1", "-p", "linux-lru"], "levels must be 0"),
        (["experiment", "file-search", "--compactions", "seek"], "--compactions applies to the ycsb"),
        (["experiment", "ycsb", "-w", "C", "-p", "lru,nosuch"], "unknown policy 'nosuch'; known"),
        (["experiment", "isolation", "-p", "ce-lfu/nope"], "unknown policy 'nope'"),
        (
            ["experiment", "isolation", "-p", "lru"],
            "the table's ratios are to the default, linux-lru: include it in --policy "
            "(e.g. -p linux-lru,lru); isolation runs a name as one policy in both cgroups and A/B",
        ),
        (["experiment", "ycsb", "-w", "C", "-p", "ce-lfu"], "include it in --policy"),
        (
            ["experiment", "ycsb", "-w", "C", "-p", "linux-lru", "--compactions", "size"],
            "compactions must be 'none' or 'seek', got 'size'",
        ),
    ],
)
def test_cli_experiment_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output


def test_cli_experiment_layout_reaches_the_ycsb_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--layout`` is read into build_ycsb's keyword arguments (the build stops the run)."""
    seen: dict[str, object] = {}

    def build(**kwargs: object) -> None:
        seen.update(kwargs)
        raise ValueError("stopped after the build's arguments")

    monkeypatch.setattr(ycsb_module, "build_ycsb", build)  # where ycsb_experiment finds it
    result = CliRunner().invoke(
        app, ["experiment", "ycsb", "-w", "C", "-p", "linux-lru", "--layout", "levels=0,table_cache=none",
              "--layout", "filters=1"],
    )  # fmt: skip
    assert result.exit_code == 2 and "stopped after the build" in result.output
    assert seen["workload"] == "C" and seen["levels"] == 0
    assert seen["table_cache"] is None and seen["filters"] is True


def test_ycsb_seek_compactions_add_paced_rows_beside_the_plain_ones(ycsb_c: E.Experiment) -> None:
    """``compactions="seek"``: each policy runs first without compactions (the same run as the
    plain experiment's, so the same throughput exactly), then with its compactions released at
    that rate; the seek rows report the client threads and LevelDB compacted something."""
    exp = E.ycsb_experiment(
        workloads=["C"],
        policies=["linux-lru", "ce-lfu"],
        scale=SCALE,
        latency_window=5000,
        compactions="seek",
    )
    assert [(r.workload, r.policy) for r in exp.runs] == [
        ("ycsb-C", "linux-lru"), ("ycsb-C-seek", "linux-lru"),
        ("ycsb-C", "ce-lfu"), ("ycsb-C-seek", "ce-lfu"),
    ]  # fmt: skip
    for p in ("linux-lru", "ce-lfu"):
        assert exp.find("ycsb-C", p).throughput == ycsb_c.find("ycsb-C", p).throughput
    assert exp.params["compactions"] == "seek" and exp.metrics[0] == ("ops/s", "throughput", "client")
    seek = exp.find("ycsb-C-seek", "linux-lru")
    assert "compaction" in seek.throughput and seek.throughput["client"] > 0
    assert exp.ratio(seek, "throughput", "client") == 1.0
    assert exp.paper["ycsb-C-seek"] == exp.paper["ycsb-C"]


def test_figure_titles_write_the_scale_as_a_fraction() -> None:
    """0.000244140625 is written 1/4096, as the command line takes it; other values as given."""
    from pagesim.report.experiments import scale_text

    assert scale_text(1 / 4096) == "1/4096" and scale_text(1 / 1024) == "1/1024"
    assert scale_text(0.003) == "0.003" and scale_text(1) == "1" and scale_text(None) == "None"


def _measured(workload: str, policy: str, ops_s: float) -> E.Measured:
    """A run with what a table shows: throughput, P99 and disk reads (the rest placeholders)."""
    one = {"all": 1.0}
    return E.Measured(workload, policy, {"all": ops_s}, one, one, one, 100, 0, 9, 1)


def test_the_twitter_table_shows_the_papers_oom_as_oom() -> None:
    """The paper's mglru run on cluster 24 ran out of memory: its column says OOM, not 0.00x."""
    runs = [_measured("twitter-24", "linux-lru", 100.0), _measured("twitter-24", "mglru", 105.0)]
    exp = E.Experiment("twitter", runs, list(_KV_METRICS), E.PAPER_TWITTER)
    console = Console(width=200, record=True)
    console.print(experiment_table(exp))
    mglru_row = next(line for line in console.export_text().splitlines() if " mglru " in line)
    assert "OOM" in mglru_row and "0.00x" not in mglru_row
    assert "1.05x" in mglru_row


def test_a_narrow_table_wraps_the_headers_not_the_policy_names() -> None:
    """Isolation's five metrics at the command's 160 columns: ``linux-lru/linux-lru`` in full."""
    runs = [_measured("isolation", name, 100.0) for name in ("linux-lru/linux-lru", "ce-lfu/ce-mru")]
    metrics = [(f"metric {i} ops/s", "throughput", "all") for i in range(5)]
    console = Console(width=160, record=True)
    console.print(experiment_table(E.Experiment("isolation", runs, metrics)))
    text = console.export_text()
    assert "linux-lru/linux-lru" in text and "ce-lfu/ce-mru" in text
