"""``advise`` and ``pagesim advise``: answers known by construction, ties, the test, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from pagesim.analysis.advise import (
    ACCESS_TIME_PARAMS,
    NOT_CANDIDATES,
    PARAM_GRID,
    _miniature_policy,
    advise,
    candidates,
    paired_t_pvalue,
)
from pagesim.cli import app
from pagesim.policies import make_policy
from pagesim.policies.registry import BUILTIN, UnknownPolicyError, policy_class
from pagesim.trace import Trace


def loop_trace(pages: int = 20_000, passes: int = 3) -> Trace:
    return Trace.from_ids(np.tile(np.arange(pages), passes))


def scan_polluted_zipf(seed: int = 1) -> Trace:
    """Zipf(1.0) accesses over 4,000 hot pages, each followed by a page never seen again."""
    rng = np.random.default_rng(seed)
    hot = rng.zipf(1.2, 40_000) % 4_000
    scan = 10_000 + np.arange(40_000)
    return Trace.from_ids(np.stack([hot, scan], axis=1).ravel())


def test_loop_larger_than_the_cache_advises_mru_over_lru_and_fifo():
    # A loop of 20,000 pages read 3 times with 10,000 pages of cache: LRU and FIFO always
    # evict the page needed soonest, so every access misses (1.0). MRU: 20,000 cold misses
    # leave pages 0..9,998 and 19,999; pass 2 hits 0..9,998, misses 9,999..19,998 (each
    # evicting the page before it) and hits 19,999: 10,000 misses, as pass 3 (its run of hits
    # one shorter, two more at the end): 40,000 / 60,000 = 2/3.
    trace = loop_trace()
    a = advise(trace, 10_000, ["lru", "fifo", "mru"], seeds=3, rate=0.05, check=True)
    assert a.method == "minisim"
    assert a.best == "mru" and a.clear and a.tied == ["mru"]
    mean = dict(zip(a.table["policy"], a.table["miss_ratio"]))
    truth = dict(zip(a.table["policy"], a.table["true_miss_ratio"]))
    assert truth["lru"] == truth["fifo"] == 1.0
    assert truth["mru"] == pytest.approx(40_000 / 60_000)
    assert mean["mru"] == pytest.approx(40_000 / 60_000, abs=0.03)
    assert a.margin > 0.25 and a.win_share == 1.0 and a.p_value < 0.05
    assert a.true_best == "mru" and a.gap == 0.0 and a.within


def test_scan_polluted_zipf_advises_a_scan_resistant_policy():
    # Half the accesses are to pages seen once: LRU lets them push out hot pages; ARC and
    # S3-FIFO keep them in a recency (probation) queue, so both beat LRU.
    trace = scan_polluted_zipf()
    a = advise(trace, 1_000, ["lru", "arc", "s3fifo"], seeds=3, rate=0.4, check=True)
    truth = dict(zip(a.table["policy"], a.table["true_miss_ratio"]))
    assert min(truth["arc"], truth["s3fifo"]) < truth["lru"] - 0.02
    assert a.best in ("arc", "s3fifo")
    assert a.within


def test_two_policies_that_are_one_rule_are_no_clear_winner():
    # ce-fifo is FIFO walked by list_iterate (its dirty-page skip never applies to a read-only
    # trace): the same evictions, so every seed's difference is 0 and the test cannot split them.
    trace = scan_polluted_zipf(seed=2)
    a = advise(trace, 1_000, ["fifo", "ce-fifo"], seeds=3, rate=0.4)
    per_seed = dict(zip(a.table["policy"], a.table["per_seed"]))
    assert per_seed["fifo"] == per_seed["ce-fifo"]
    assert not a.clear and sorted(a.tied) == ["ce-fifo", "fifo"]
    assert a.margin == 0.0 and a.p_value == 1.0


def test_a_size_below_the_smallest_miniature_is_simulated_in_full():
    trace = loop_trace(pages=300, passes=4)
    a = advise(trace, 50, ["lru", "mru"], check=True)
    assert a.method == "full" and a.seeds == [] and "in full" in a.note
    assert a.best == "mru" and a.gap == 0.0
    assert dict(zip(a.table["policy"], a.table["miss_ratio"]))["lru"] == 1.0


def test_paired_t_pvalue_matches_the_closed_form_and_scipy():
    # diffs (1, 3): mean 2, sd sqrt(2), t = 2 / (sqrt(2) / sqrt(2)) = 2 with 1 degree of
    # freedom (Cauchy): p = 1 - 2 atan(2) / pi = 0.29517
    assert paired_t_pvalue([1.0, 3.0]) == pytest.approx(1 - 2 * math.atan(2) / math.pi)
    assert paired_t_pvalue([0.0, 0.0, 0.0]) == 1.0
    assert paired_t_pvalue([0.01, 0.01, 0.01]) == 0.0
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(7)
    for k in (3, 4, 5, 6, 8, 11):
        d = rng.normal(0.4, 1.0, k)
        assert paired_t_pvalue(d) == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-9)


def test_the_grid_names_real_parameters_with_defaults_among_them():
    for name, grid in PARAM_GRID.items():
        params = policy_class(name).params
        for key, values in grid.items():
            assert key in params, (name, key)
            assert params[key] in values, (name, key)
    for name, scaled in ACCESS_TIME_PARAMS.items():
        assert set(scaled) <= set(policy_class(name).params)
    labels = [p.label() for p in candidates(["s3fifo", "arc"], params=True)]
    assert labels == [f"s3fifo-small_ratio={v}" if v != 0.1 else "s3fifo" for v in (0.01, 0.05)] + [
        "s3fifo",
        "s3fifo-small_ratio=0.2",
        "s3fifo-small_ratio=0.3",
        "arc",
    ]


def test_all_is_every_built_in_but_the_clairvoyant_and_the_excluded():
    names = [p.policy_name() for p in candidates("all")]
    clairvoyant = {n for n in BUILTIN if policy_class(n).needs_next_access}
    assert "opt" in clairvoyant
    assert sorted(names) == sorted(set(BUILTIN) - clairvoyant - set(NOT_CANDIDATES))


def test_lrfu_decay_is_scaled_to_the_miniature():
    # the sampled trace holds about R times the accesses: a decay per access lam becomes lam / R
    assert _miniature_policy(make_policy("lrfu", lam=0.001), 0.1).values["lam"] == pytest.approx(0.01)
    assert _miniature_policy(make_policy("lru"), 0.1).values == {}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"size": 0}, ValueError),
        ({"size": 500, "seeds": 1}, ValueError),
        ({"size": 5_000, "rate": 0.001}, ValueError),
        ({"size": 500, "rate": 0.1, "samples": 10}, ValueError),
        ({"size": 500, "policies": ["lru", "nope"]}, UnknownPolicyError),
    ],
)
def test_bad_input_raises(kwargs, error):
    args = {"policies": ["lru"], **kwargs}
    with pytest.raises(error):
        advise(loop_trace(pages=1_000, passes=1), args.pop("size"), args.pop("policies"), **args)


SMALL = "workload:loop?n_pages=300&passes=10"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_cli_prints_the_advice_and_json_agrees():
    text = invoke("advise", SMALL, "--size", "50", "--policies", "lru,mru", "--check")
    assert text.exit_code == 0, text.output
    assert "advice: mru" in text.stdout and "within 0.01" in text.stdout and "measured" in text.stdout
    doc = json.loads(invoke("advise", SMALL, "--size", "50", "--policies", "lru,mru", "--json").stdout)
    assert doc["best"] == "mru" and doc["method"] == "full" and doc["p_value"] is None


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--size", "50", "--policies", "lru,nope"], "unknown policy 'nope'"),
        (["--size", "50", "--seeds", "1"], "--seeds must be >= 2"),
        (["--size", "lots"], "size"),
        (["--size", "50", "--policies", "all,lru"], "'all' stands alone"),
    ],
)
def test_cli_bad_input_is_one_line(args, needle):
    result = invoke("advise", SMALL, *args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr


def test_cli_size_missing_is_refused():
    result = invoke("advise", SMALL)
    assert result.exit_code == 2 and "--size" in result.output


def test_cli_a_policy_that_raises_when_created_is_one_line_as_in_compare(tmp_path):
    path = tmp_path / "boom.py"
    path.write_text(
        "from pagesim.policies.base import Policy\n\n\nclass Boom(Policy):\n"
        "    def __init__(self, **kw):\n        raise RuntimeError('boom')\n"
    )
    result = invoke("advise", SMALL, "--size", "50", "--policies", f"lru,{path}:Boom")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    # the line compare prints, naming the constructor's line (6)
    assert (
        len(lines) == 1 and "policy 'boom' (Boom) raised RuntimeError: boom while it was created" in lines[0]
    )
    assert "boom.py:6" in lines[0]


def test_cli_compiles_the_candidates_in_parallel_with_a_notice(monkeypatch):
    from pagesim.analysis import compare as compare_module

    asked: list[list[str]] = []
    monkeypatch.setattr(compare_module, "pending", lambda classes: list(dict.fromkeys(classes)))
    monkeypatch.setattr(
        compare_module, "compile_ahead", lambda todo: asked.append([c.__name__ for c in todo])
    )
    result = invoke("advise", SMALL, "--size", "50", "--policies", "lru,fifo")
    assert result.exit_code == 0, result.output
    assert asked == [["LRU", "FIFO"]]
    assert "pagesim: notice: compiling lru, fifo in parallel" in result.stderr


def test_cli_takes_policy_as_every_command_does_and_policies_too():
    # lru and mru at 50 pages, checked: the same table whichever name the option is given by
    by_policy = invoke("advise", SMALL, "--size", "50", "--policy", "lru", "--policy", "mru", "--json")
    by_policies = invoke("advise", SMALL, "--size", "50", "--policies", "lru,mru", "--json")
    assert by_policy.exit_code == 0 and by_policies.exit_code == 0, by_policy.output
    first, second = json.loads(by_policy.stdout), json.loads(by_policies.stdout)
    assert [r["policy"] for r in first["table"]] == [r["policy"] for r in second["table"]]
    assert sorted(r["policy"] for r in first["table"]) == ["lru", "mru"]
