"""``pagesim mrc``: curves equal the library's, ranges expand, errors are one line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pagesim.cli import app
from pagesim.engine import simulate
from pagesim.policies import make_policy
from pagesim.workloads import from_spec

SMALL = "workload:zipf?n_requests=20000&n_pages=2000&alpha=0.9&seed=3"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def one_line_error(result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_json_curve_equals_simulation_and_carries_the_sample():
    result = invoke("mrc", SMALL, "--size", "100:400:4", "--policy", "lru,fifo", "--rate", "0.5", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["seed"] == 0
    lru, fifo = doc["policies"]
    trace = from_spec(SMALL.partition(":")[2])
    assert [p["size_pages"] for p in lru["points"]] == [100, 200, 300, 400]
    assert [p["misses"] for p in lru["points"]] == [
        simulate(trace, make_policy("lru"), c).misses for c in (100, 200, 300, 400)
    ]
    assert lru["method"] == "exact" and lru["rate"] == 1.0
    assert fifo["method"] == "minisim" and fifo["rate"] == pytest.approx(0.5, rel=1e-6)
    assert 0 < fifo["sampled_requests"] < trace.n_requests
    # miniatures of 50 pages are below the minimum (100): simulated in full, so exact
    assert fifo["points"][0]["method"] == "full"
    assert fifo["points"][0]["misses"] == simulate(trace, make_policy("fifo"), 100).misses
    table = invoke("mrc", SMALL, "--size", "100:400:4", "--policy", "fifo", "--rate", "0.5")
    assert "note fifo: sizes up to 100 pages (1 of 4) would make miniatures under 100 pages" in table.stdout


def test_small_sizes_are_sampled_denser_and_the_rate_is_shown_per_size():
    args = ("mrc", SMALL, "--size", "100:400:4", "--policy", "fifo", "--method", "minisim", "--rate", "0.3")
    doc = json.loads(invoke(*args, "--json").stdout)
    points = doc["policies"][0]["points"]
    # miniatures at 0.3: 30, 60, 90, 120 pages; under 100 pages a size c is sampled at 100 / c,
    # and at 100 pages that is 1: in full
    assert [p["method"] for p in points] == ["full", "minisim", "minisim", "minisim"]
    assert [p["rate"] for p in points] == pytest.approx([1.0, 0.5, 1 / 3, 0.3], rel=1e-6)
    shown = " ".join(invoke(*args).stdout.split())  # the console wraps long lines
    assert "2 sampled at rate 0.3333-0.5 (100-page miniatures); 1 simulated in full" in shown
    refused = invoke(*args, "--small", "refuse")
    one_line_error(refused, "sizes [100, 200, 300] fall below the smallest miniature cache", "334")


def test_check_prints_errors_and_figure_is_written(tmp_path):
    png = tmp_path / "curve.png"
    result = invoke(
        "mrc",
        SMALL,
        "-s",
        "1%:50%:5",
        "--log",
        "-p",
        "lru,opt",
        "--method",
        "exact",
        "--check",
        "--figure",
        str(png),
    )
    assert result.exit_code == 0, result.output
    assert "check lru: against simulation at 5 sizes: MAE 0.0000, max abs error 0.0000" in result.stdout
    assert png.stat().st_size > 1000
    svg = tmp_path / "curve.svg"
    assert invoke("mrc", SMALL, "-s", "100:400:2", "-p", "fifo", "--figure", str(svg)).exit_code == 0
    assert svg.read_text().lstrip().startswith("<?xml") and "fifo (minisim, R" in svg.read_text()
    doc = json.loads(
        invoke("mrc", SMALL, "-s", "500", "-m", "shards", "--samples", "300", "--check", "--json").stdout
    )
    (lru,) = doc["policies"]
    assert lru["method"] == "shards" and lru["samples"] == 300 and lru["check"]["against"] == "exact"
    assert set(lru["check"]) >= {"mae", "max_abs_error", "sizes"}


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("--method", "exact", "--policy", "fifo"), ("fifo", "exact works for lru, opt")),
        (("--method", "shards", "--policy", "opt"), ("SHARDS models LRU only", "minisim")),
        (
            (
                "--capacity-unit",
                "bytes",
            ),
            ("works in pages",),
        ),
        (("--rate", "0.1", "--samples", "10"), ("not both",)),
        (
            (
                "--size",
                "1:2",
            ),
            ("FROM:TO:COUNT",),
        ),
        (
            (
                "--size",
                "500:100:3",
            ),
            ("ends below its start",),
        ),
        (("--size", "200%"), ("'200%' is over 100% of the trace's unique pages", "at most 100%")),
        (("--size", "1%:150%:4"), ("'150%' is over 100%",)),
    ],
)
def test_bad_input_is_one_line(args, needles):
    sizes = () if "--size" in args else ("--size", "100")
    one_line_error(invoke("mrc", SMALL, *sizes, *args), *needles)


BOOM = """from pagesim.policies.base import Policy


class Boom(Policy):
    def __init__(self, **kw):
        raise RuntimeError("boom")
"""


def test_a_policy_that_raises_when_created_is_one_line_as_in_compare(tmp_path):
    path = tmp_path / "boom.py"
    path.write_text(BOOM)
    result = invoke("mrc", SMALL, "--size", "100", "--policy", f"lru,{path}:Boom")
    # the same line compare prints: the policy, the exception and the constructor's line (6)
    one_line_error(result, "policy 'boom' (Boom) raised RuntimeError: boom while it was created", "boom.py:6")


@pytest.fixture
def nothing_cached(monkeypatch):
    """Runners look uncompiled; the parallel compile records the classes instead of compiling."""
    from pagesim.analysis import compare as compare_module

    asked: list[list[str]] = []
    monkeypatch.setattr(compare_module, "pending", lambda classes: list(dict.fromkeys(classes)))
    monkeypatch.setattr(
        compare_module, "compile_ahead", lambda todo: asked.append([c.__name__ for c in todo])
    )
    return asked


def test_the_command_compiles_the_minisim_policies_in_parallel_with_a_notice(nothing_cached):
    result = invoke("mrc", SMALL, "--size", "200", "--policy", "lru,fifo,clock", "--rate", "0.5")
    assert result.exit_code == 0, result.output
    assert nothing_cached == [["FIFO", "Clock"]]  # lru is exact: one pass, no runner
    assert "pagesim: notice: compiling fifo, clock in parallel" in result.stderr


def test_the_library_compiles_in_parallel_only_when_asked(nothing_cached):
    from pagesim.analysis.mrc import mrc

    trace = from_spec(SMALL.partition(":")[2])
    mrc(trace, ["fifo", "clock"], [200], rate=0.5)
    assert nothing_cached == []
    mrc(trace, ["fifo", "clock"], [200], rate=0.5, parallel_compile=True)
    assert nothing_cached == [["FIFO", "Clock"]]


def test_shards_notes_the_sizes_whose_sampled_cache_is_under_the_minimum():
    args = ("mrc", SMALL, "--method", "shards", "--rate", "0.05")
    # expected sampled caches at rate 0.05: 1000 -> 50 pages, 1500 -> 75 (under 100), 2000 -> 100 (not)
    shown = " ".join(
        invoke(*args, "--size", "1000", "--size", "1500", "--size", "2000").stdout.split()
    )  # the console wraps
    assert (
        "note lru: sizes 1,000 and 1,500 pages (2 of 3) have expected sampled caches (size x R) under "
        "100 pages at rate 0.05, where SHARDS is least accurate; use a higher --rate (>= 0.1 for these "
        "sizes) or --samples N" in shown
    )
    assert "note" not in invoke(*args, "--size", "2000", "--size", "3000").stdout
    # the note changes no estimate: the JSON equals the library's curve
    from pagesim.analysis.mrc import mrc

    doc = json.loads(invoke(*args, "--size", "1000:2000:3", "--json").stdout)
    curve = mrc(from_spec(SMALL.partition(":")[2]), ["lru"], [1000, 1500, 2000], method="shards", rate=0.05)
    assert [p["miss_ratio"] for p in doc["policies"][0]["points"]] == curve["miss_ratio"].tolist()
