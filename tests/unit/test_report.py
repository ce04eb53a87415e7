"""Reports: comparison tables group by size, JSON records never hold NaN or infinity."""

from __future__ import annotations

import json

from rich.console import Console

from pagesim.analysis.compare import compare, misses_above_opt
from pagesim.engine import Result
from pagesim.engine.counters import COUNTERS
from pagesim.report.compare import comparison_record, comparison_tables, format_rate
from pagesim.report.trace import format_bytes
from pagesim.workloads import loop, zipf


def _result(misses: int, requests: int, opt: int | None) -> Result:
    counters = {name: 0 for name in COUNTERS}
    counters.update(requests=requests, misses=misses, hits=requests - misses)
    params = {} if opt is None else {"opt_misses": opt}
    return Result("lru", 10, "pages", counters, 0.0, 0.0, "compiled", params)


def test_records_of_degenerate_results_are_strict_json():
    for r in (_result(0, 0, 0), _result(5, 10, 0), _result(5, 10, None)):
        text = json.dumps(comparison_record(r, "t", "10"), allow_nan=False)
        rec = json.loads(text)
        assert rec["miss_ratio"] in (0.0, 0.5)
        assert rec["accesses_per_second"] == 0.0
    assert misses_above_opt(_result(5, 10, 0))[1] == float("inf")
    assert comparison_record(_result(5, 10, 0), "t")["misses_above_opt_pct"] is None
    assert comparison_record(_result(6, 10, 4), "t")["misses_above_opt_pct"] == 50.0


def test_one_table_per_size_with_one_row_per_policy():
    trace = zipf(5000, 500, 1.0, seed=2)
    results = compare(trace, ["lru", "fifo"], [20, 50, 100])
    tables = comparison_tables(results, "z", whole=trace.n_pages)
    assert len(tables) == 3
    assert all(t.row_count == 2 for t in tables)
    console = Console(record=True, width=100)
    for t in tables:
        console.print(t)
    text = console.export_text()
    assert "Belady" in text and "cache of 50 pages" in text


def _naive_belady_misses(ids: list[int], capacity: int) -> int:
    """Belady's MIN by brute force: on a miss with a full cache evict the page used farthest ahead."""
    cache: set[int] = set()
    misses = 0
    for i, p in enumerate(ids):
        if p in cache:
            continue
        misses += 1
        if len(cache) >= capacity:
            rest = ids[i + 1 :]
            cache.remove(max(sorted(cache), key=lambda q: rest.index(q) if q in rest else len(ids)))
        cache.add(p)
    return misses


def test_compare_on_a_loop_matches_hand_counts_and_naive_opt():
    # a loop over 10 pages, 5 passes, cache of 5 pages: every access of LRU and FIFO misses
    # (reuse distance 9 >= 5), 50 misses; OPT's count comes from the brute-force reference.
    trace = loop(10, passes=5)
    results = compare(trace, ["lru", "fifo"], [5])
    assert [r.misses for r in results] == [50, 50]
    opt = _naive_belady_misses(trace.page.tolist(), 5)
    for r in results:
        above = misses_above_opt(r)
        if above is not None:  # when an 'opt' policy is registered
            assert r.params["opt_misses"] == opt
            assert above == (50 - opt, 100.0 * (50 - opt) / opt)


def test_rates_and_bytes_are_compact():
    assert format_rate(0.0) == "-"
    assert format_rate(31_234_000) == "31.2M"
    assert format_rate(845_000) == "845.0k"
    assert format_bytes(512) == "512 B"
    assert format_bytes(3 * 1024**3) == "3.0 GiB"


def _table_text(tables) -> str:
    console = Console(record=True, width=200)
    for t in tables:
        console.print(t)
    return console.export_text()


def test_percentages_never_use_exponents():
    from pagesim.report.compare import format_percent

    assert format_percent(2500.0) == "2,500%"
    assert format_percent(10.0) == "10%"
    assert format_percent(0.5) == "0.5%"
    assert format_percent(12.345) == "12.3%"
    assert format_percent(0.001) == "<0.01%"
    assert format_percent(0.0) == "0%"
    big = _result(5, 10, 3)
    big.capacity = 100
    text = _table_text(comparison_tables([big], "t", whole=4))
    assert "2,500% of the unique pages: everything fits" in text and "e+" not in text


def test_bytes_tables_call_belady_a_comparison_and_records_say_no_bound():
    r = _result(6, 10, 4)
    r.capacity_unit = "bytes"
    text = _table_text(comparison_tables([r], "t", whole=1000))
    assert "over Belady" in text and "not a bound" in text and "over OPT" not in text
    assert comparison_record(r, "t")["opt_is_bound"] is False
    assert comparison_record(_result(6, 10, 4), "t")["opt_is_bound"] is True


def test_fallback_and_rejections_are_marked_with_counts():
    from pagesim.report.compare import fallback_notes

    clean = _result(5, 10, 4)
    lazy = _result(5, 10, 4)
    lazy.policy = "lazy"
    lazy.counters.update(evictions=8, fallback_evictions=2, rejected=3)
    assert fallback_notes([clean]) == []
    (note,) = fallback_notes([clean, lazy])
    assert note.startswith("* lazy at 10 pages: 2 of 8 evictions (25%)")
    assert "3 proposals rejected" in note
    text = _table_text(comparison_tables([clean, lazy], "t"))
    assert "lazy *" in text and "lru *" not in text and "2 of 8 evictions" in text
    assert comparison_record(lazy, "t")["fallback_share"] == 0.25
    assert comparison_record(clean, "t")["fallback_share"] is None  # no evictions at all


def test_compare_runs_the_baseline_first_and_keeps_finished_results_on_failure():
    import pytest

    from pagesim.engine import PolicyError
    from pagesim.policies import make_policy
    from pagesim.policies.lru import LRU

    class Boom(LRU):
        name = "boom"

        def configure(self, s, capacity):
            raise PolicyError("boom", -1, RuntimeError("configured to fail"), "")

    trace = loop(10, passes=5)
    stages: list[tuple[str, str]] = []
    with pytest.raises(PolicyError) as info:
        compare(trace, ["lru", Boom, "fifo"], [5], on_stage=lambda st, label: stages.append((st, label)))
    finished = info.value.results
    assert [r.policy for r in finished] == ["lru"]
    assert finished[0].misses == 50
    assert info.value.policy_class is Boom and info.value.capacity == 5
    if "opt_misses" in finished[0].params:  # an 'opt' policy is registered: it ran first
        assert stages[0] == ("prepare", "opt") and stages[1] == ("simulate", "opt")
    assert ("prepare", "lru") in stages and ("prepare", "boom") in stages
    # configured instances keep their parameters; classes and names get the defaults
    (r,) = compare(trace, [make_policy("lru")], [5], baseline=False)
    assert r.misses == 50


def test_compare_with_a_failures_list_reports_the_failing_policy_and_runs_the_others():
    from pagesim.engine import PolicyError
    from pagesim.policies.lru import LRU

    class Boom(LRU):
        name = "boom"

        def configure(self, s, capacity):
            raise PolicyError("boom", -1, RuntimeError("configured to fail"), "")

    trace = loop(10, passes=5)
    failures: list[PolicyError] = []
    results = compare(trace, ["lru", Boom, "fifo"], [5, 10], baseline=False, failures=failures)
    # a loop of 10 pages, 5 passes: at 5 pages LRU and FIFO miss every access (50); at 10 only
    # the first pass misses (10); the failing policy is left out at both sizes
    assert [(r.policy, r.capacity, r.misses) for r in results] == [
        ("lru", 5, 50),
        ("fifo", 5, 50),
        ("lru", 10, 10),
        ("fifo", 10, 10),
    ]
    assert [(f.policy_class, f.capacity) for f in failures] == [(Boom, 5), (Boom, 10)]
