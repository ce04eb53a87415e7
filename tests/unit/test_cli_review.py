"""The ``pagesim`` command as a new user meets it: load errors, help, edge cases, partial results.

Each test pins one defect a first-time user reported: a policy file that raises on import, the
wording of bytes-mode tables, ``--help`` labels, warm-up and size edge cases, fallback markers,
results kept when a later policy fails, the compile notice and ``--set``.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from pagesim.analysis.compare import resolve_warmup, split_policy_names
from pagesim.cli import _common, app
from pagesim.cli._params import parse_sets, parse_value
from pagesim.engine import simulate
from pagesim.policies import make_policy
from pagesim.trace import FORMATS, Trace, write_trace
from pagesim.workloads import from_spec

SMALL = "workload:zipf?n_requests=20000&n_pages=2000&alpha=0.9&seed=3"
TINY = "workload:loop?n_pages=4&passes=5"  # 20 accesses over 4 pages


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def records(result) -> list[dict]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def one_line_error(result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# ---- 1. a policy file that raises while it is imported --------------------------------------


@pytest.mark.parametrize(
    ("body", "kind", "line"),
    [
        ("CONF = {}\nLIMIT = CONF['limit']\n", "KeyError", 4),
        ("def f(:\n    pass\n", "SyntaxError", 3),
        ("import pagesim_no_such_module_xyz\n", "ModuleNotFoundError", 3),
        ("x = 1 / 0\n", "ZeroDivisionError", 3),
        ("raise ValueError('bad config')\n", "ValueError", 3),
    ],
)
def test_policy_file_that_raises_on_import_is_one_line_naming_file_and_line(tmp_path, body, kind, line):
    path = tmp_path / "broken_policy.py"
    path.write_text("from pagesim.policies import Policy\n\n" + body + "\nclass P(Policy):\n    pass\n")
    result = invoke("compare", TINY, "--size", "2", "--policy", f"lru,{path}:P")
    error = one_line_error(result, 2)
    assert kind in error
    assert f"broken_policy.py:{line}" in error
    assert error.startswith("pagesim: error: cannot load policy")


def test_missing_policy_file_and_class_keep_the_registry_message(tmp_path):
    error = one_line_error(invoke("compare", TINY, "-s", "2", "-p", f"{tmp_path}/nope.py:P"), 2)
    assert "policy file not found" in error
    path = tmp_path / "fine.py"
    path.write_text("from pagesim.policies import Policy\nclass P(Policy):\n    pass\n")
    error = one_line_error(invoke("compare", TINY, "-s", "2", "-p", f"{path}:Q"), 2)
    assert "no class 'Q'" in error


def test_init_that_raises_names_init_access_index_and_the_user_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PAGESIM_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "initbad.py"
    path.write_text(
        "from pagesim.policies import Policy\n"
        "def init(s, a):\n"
        "    raise KeyError(3)\n"
        "    return 0\n"
        "class InitBad(Policy):\n"
        "    init = staticmethod(init)\n"
    )
    result = invoke("compare", TINY, "--size", "2", "--policy", f"{path}:InitBad", "--no-opt")
    assert result.exit_code == 1
    last = result.stderr.strip().splitlines()[-1]
    assert "'initbad'" in last and "KeyError" in last
    assert "access index -1" in last and "init" in last
    assert "initbad.py:3" in last


# ---- 2. bytes: Belady is not a bound ---------------------------------------------------------


def _sized_trace(tmp_path):
    ids = np.array([1, 2, 3, 1, 2, 4, 1, 5, 3, 1, 2, 5], dtype=np.int64)
    sizes = np.array([100, 900, 300, 100, 900, 400, 100, 500, 300, 100, 900, 500], dtype=np.int64)
    path = tmp_path / "sized.oracleGeneral"
    write_trace(Trace.from_ids(ids, size=sizes), path, format="oracle")
    return path


def test_bytes_mode_labels_belady_as_a_comparison_not_a_bound(tmp_path):
    path = _sized_trace(tmp_path)
    result = invoke("compare", str(path), "--capacity-unit", "bytes", "--size", "50%", "-p", "lru,opt")
    assert result.exit_code == 0, result.output
    assert "over Belady" in result.stdout and "not a bound" in result.stdout
    assert "over OPT" not in result.stdout and "lower bound" not in result.stdout
    recs = invoke("compare", str(path), "--capacity-unit", "bytes", "--size", "50%", "-p", "lru", "--json")
    assert [r["opt_is_bound"] for r in records(recs)] == [False]
    pages = invoke("compare", TINY, "--size", "2", "-p", "lru")
    assert "over OPT" in pages.stdout and "lower bound" in pages.stdout


def test_policies_listing_says_opt_is_no_bound_with_sizes():
    result = CliRunner().invoke(app, ["policies"], env={"COLUMNS": "250"})
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "--capacity-unit bytes" in text and "not optimal" in text
    assert "--set" in text


# ---- 3. help --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [("compare",), ("run",), ("trace", "info"), ("trace", "convert"), ("policies",), ()]
)
def test_help_shows_plain_flags_and_readable_metavars(command):
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = result.stdout
    for bad in ("<bool>", "<list[str]>", "<str>", "{trace}", "{TRACE}"):
        assert bad not in text
    if command in (("compare",), ("trace", "info")):
        assert re.search(r"--json\s+(One|Print)", text)  # no value between flag and help
        assert "TRACE" in text
    if command in (("compare",), ("trace", "info"), ("trace", "convert")):
        for name in FORMATS:
            assert name in text


def test_flags_take_no_value_and_format_errors_speak_cli():
    assert invoke("compare", TINY, "-s", "2", "-p", "lru", "--json").exit_code == 0
    assert invoke("compare", TINY, "-s", "2", "-p", "lru", "--json=true").exit_code == 2


def test_undetectable_format_says_use_format(tmp_path, monkeypatch):
    def undetectable(path, format=None):
        raise ValueError(f"cannot detect the format of {path}; pass format= one of ['csv', 'lis']")

    monkeypatch.setattr(_common, "read_trace", undetectable)
    path = tmp_path / "mystery.bin"
    path.write_bytes(b"\x00")
    error = one_line_error(invoke("trace", "info", str(path)), 2)
    assert "pass format=" not in error and "[" not in error
    assert "use --format with one of: csv, lis" in error


# ---- 4. warm-up, empty lists, percentages, empty traces ------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0.25", 5), ("25%", 5), ("5", 5), ("1e1", 10), ("0", 0), (None, 0), ("0.0", 0), (0.5, 10)],
)
def test_warmup_fraction_percentage_or_count(text, expected):
    assert resolve_warmup(text, 20) == expected


@pytest.mark.parametrize("text", ["1.0", "100%", "150%", "20", "25", "1.5", "-1", "abc", "2.5e0"])
def test_warmup_covering_the_trace_or_malformed_is_an_error(text):
    with pytest.raises(ValueError):
        resolve_warmup(text, 20)


def test_warmup_errors_are_exit_2_and_say_whole_trace():
    error = one_line_error(invoke("compare", TINY, "-s", "2", "-p", "lru", "--warmup", "1.0"), 2)
    assert "whole trace" in error
    error = one_line_error(invoke("compare", TINY, "-s", "2", "-p", "lru", "--warmup", "20"), 2)
    assert "whole trace" in error
    ok = invoke("compare", TINY, "-s", "2", "-p", "lru", "--warmup", "10%", "--json")
    (rec,) = records(ok)
    assert rec["warmup_accesses"] == 2 and rec["requests"] == 18


def test_empty_policy_list_is_an_error():
    error = one_line_error(invoke("compare", TINY, "-s", "2", "-p", ""), 2)
    assert "empty" in error
    one_line_error(invoke("compare", TINY, "-s", "2", "-p", " , "), 2)
    with pytest.raises(ValueError):
        split_policy_names([""])
    assert split_policy_names(None) is None and split_policy_names([]) is None


def test_size_larger_than_the_trace_prints_a_plain_percentage():
    result = invoke("compare", TINY, "--size", "100", "-p", "lru")
    assert result.exit_code == 0, result.output
    assert "e+" not in result.stdout
    assert "2,500%" in result.stdout and "everything fits" in result.stdout


def test_empty_trace_is_a_one_line_notice_not_a_table(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("")
    result = invoke("compare", str(path), "--size", "4", "-p", "lru,fifo")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == ""
    assert "empty trace: 0 requests" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# ---- 5. fallback and rejected proposals are marked -----------------------------------------


LAZY = (
    "from pagesim.policies import Policy\n"
    "def evict(s, a):\n"
    "    return 0\n"
    "class Lazy(Policy):\n"
    "    name = 'lazy'\n"
    "    evict = staticmethod(evict)\n"
)


def test_policy_needing_fallback_evictions_is_marked_with_its_counts(tmp_path):
    path = tmp_path / "lazy.py"
    path.write_text(LAZY)
    result = invoke("compare", TINY, "--size", "2", "-p", f"lru,{path}:Lazy", "--no-opt")
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    assert "lazy *" in out and "lru *" not in out
    assert re.search(r"\* lazy at 2 pages: 18 of 18 evictions \(100%\) made by the fallback", out)
    recs = records(invoke("compare", TINY, "--size", "2", "-p", f"lru,{path}:Lazy", "--json"))
    by = {r["policy"]: r for r in recs}
    assert by["lazy"]["fallback_share"] == 1.0 and by["lru"]["fallback_share"] == 0.0


# ---- 6. a failing policy keeps the results of the others ----------------------------------

RAISER = (
    "from pagesim.core.state import A_TIME\n"
    "from pagesim.policies import Policy\n"
    "def added(s, a):\n"
    "    if a[A_TIME] >= 8:\n"
    "        raise ValueError('boom')\n"
    "    return 0\n"
    "class Raiser(Policy):\n"
    "    added = staticmethod(added)\n"
)


def test_a_failing_policy_is_reported_and_the_others_still_run(tmp_path, monkeypatch):
    monkeypatch.setenv("PAGESIM_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "raiser.py"
    path.write_text(RAISER)
    spec = f"{path}:Raiser"
    table = invoke("compare", TINY, "--size", "2", "-p", f"lru,{spec},fifo")
    assert table.exit_code == 1
    # the policy after the failing one still runs (it used to be stopped)
    assert "lru" in table.stdout and "fifo" in table.stdout and "raiser" not in table.stdout.lower()
    assert "boom" in table.stderr.strip().splitlines()[-1]
    assert "raiser.py:5" in table.stderr.strip().splitlines()[-1]
    js = invoke("compare", TINY, "--size", "2", "-p", f"lru,{spec}", "--json")
    assert js.exit_code == 1
    (rec,) = records(js)
    assert rec["policy"] == "lru" and rec["opt_misses"] is not None
    assert rec["misses"] == simulate(from_spec(TINY[len("workload:") :]), make_policy("lru"), 2).misses


# ---- 7. compile notice ---------------------------------------------------------------------


def test_slow_start_up_prints_one_compile_notice(monkeypatch):
    monkeypatch.setattr(_common, "COMPILE_NOTICE_DELAY", 0.0)
    monkeypatch.setattr(_common.DelayedProgress, "_cancel", lambda self: None)  # let timers fire
    result = invoke("compare", TINY, "--size", "2", "--size", "3", "-p", "lru", "--no-opt")
    assert result.exit_code == 0, result.output
    notices = [line for line in result.stderr.splitlines() if "compiling lru" in line]
    assert len(notices) == 1
    assert "first use; cached afterwards" in notices[0]


def test_fast_start_up_prints_no_compile_notice(monkeypatch):
    monkeypatch.setattr(_common, "COMPILE_NOTICE_DELAY", 600.0)
    result = invoke("compare", TINY, "--size", "2", "-p", "lru", "--no-opt")
    assert result.exit_code == 0 and "compiling" not in result.stderr


def test_run_help_says_sizes_are_of_touched_pages():
    text = " ".join(CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).stdout.split())
    assert "actually touches" in text and "91,424" in text


# ---- 8. --set NAME.PARAM=VALUE --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "default", "expected"),
    [
        ("6", None, 6),
        ("0.5", None, 0.5),
        ("true", None, True),
        ("off", None, False),
        ("fast", None, "fast"),
        ("6", 0.8, 6.0),
        ("1e3", 10, 1000),
        ("yes", False, True),
        ("x", "a", "x"),
    ],
)
def test_set_values_are_parsed_as_the_defaults_type(text, default, expected):
    value = parse_value(text, default)
    assert value == expected and type(value) is type(expected)


def test_parse_sets_groups_by_policy_and_rejects_bad_syntax():
    assert parse_sets(["slru.protected=0.5", "SLRU.x=1", "cast.decay=6"]) == {
        "slru": {"protected": "0.5", "x": "1"},
        "cast": {"decay": "6"},
    }
    for bad in ("slru", "slru=1", ".x=1", "slru.=1"):
        with pytest.raises(ValueError):
            parse_sets([bad])


def test_set_changes_a_parameter_and_bad_names_are_exit_2():
    from pathlib import Path

    slru = f"{Path(__file__).resolve().parents[2] / 'examples' / 'slru.py'}:SLRU"
    result = invoke(
        "compare",
        SMALL,
        "-s",
        "100",
        "-p",
        f"lru,{slru}",
        "--set",
        "slru.protected=0.5",
        "--json",
        "--no-opt",
    )
    assert result.exit_code == 0, result.output
    by = {r["policy"]: r for r in records(result)}
    assert "slru-protected=0.5" in by
    expected = simulate(from_spec(SMALL[len("workload:") :]), make_policy(slru, protected=0.5), 100)
    assert by["slru-protected=0.5"]["misses"] == expected.misses
    error = one_line_error(invoke("compare", SMALL, "-s", "100", "-p", "lru", "--set", "cast.decay=6"), 2)
    assert "'cast'" in error and "lru" in error
    error = one_line_error(
        invoke("compare", SMALL, "-s", "100", "-p", f"lru,{slru}", "--set", "slru.decay=6"), 2
    )
    assert "protected" in error and "decay" in error
    error = one_line_error(
        invoke("compare", SMALL, "-s", "100", "-p", f"{slru}", "--set", "slru.protected=abc"), 2
    )
    assert "float" in error
    one_line_error(invoke("compare", SMALL, "-s", "100", "-p", "lru", "--set", "nonsense"), 2)
