"""``pagesim experiment cast-split``: every way of splitting on the same accesses, against the
best fixed split in hindsight (pagesim.analysis.experiments.cast_split). Small scales only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pagesim.analysis.experiments import cast_split as CS
from pagesim.cli import app
from pagesim.cli._experiment import _conditions
from pagesim.cli._kernel import split_workload
from pagesim.workloads.kernel import make_kernel_workload, mix_study_conditions

SCALE = 1 / 2000  # 1,000 main-phase accesses
MEMORY = 4096


@pytest.fixture(scope="module")
def study() -> CS.SplitStudy:
    return CS.cast_split_experiment(scale=SCALE, conditions=slice(13, 14), memory_pages=MEMORY)


def test_every_method_runs_on_the_condition(study: CS.SplitStudy) -> None:
    assert study.index == [13]
    assert set(study.costs) == set(CS.METHODS) and len(CS.METHODS) == 12
    assert all(len(v) == 1 and v[0] > 0 for v in study.costs.values())
    best = study.best_fixed(0)
    assert study.relative(best) == [0.0]
    for m in CS.METHODS:
        if m.startswith("fixed-"):
            assert study.relative(m)[0] >= 0.0
        expected = 100.0 * (study.costs[m][0] / study.costs[best][0] - 1.0)
        assert study.relative(m)[0] == pytest.approx(expected)
    s = study.summary()
    assert s["curves"]["worst"] == s["curves"]["mean"] == study.relative("curves")[0]
    assert s["scores"]["worst_at"] == 13


def test_a_method_is_one_run_of_the_workload_a_user_can_run(study: CS.SplitStudy) -> None:
    """The table's workload text is the condition: ``pagesim run`` reads it to the same trace,
    and the run is deterministic."""
    d = study.to_dict()
    text = d["conditions"][0]["workload"]
    name, params = split_workload(text)
    trace = make_kernel_workload(name, memory_pages=MEMORY, **params)
    cond = mix_study_conditions(accesses=d["params"]["accesses"])[13]
    assert trace.n_requests == CS._trace(tuple(sorted(cond.items())), MEMORY, CS.PACE_NS).n_requests
    cost = CS.run_method((cond, "gradient", MEMORY, "zram", CS.PACE_NS))
    assert cost == study.costs["gradient"][0]
    assert json.loads(json.dumps(d))["summary"]["curves"]["mean"] == pytest.approx(
        study.summary()["curves"]["mean"]
    )


def test_any_order_of_results_gives_the_same_study(study: CS.SplitStudy) -> None:
    def backwards(function, items):  # type: ignore[no-untyped-def]
        for i in reversed(range(len(items))):
            yield i, function(items[i])

    again = CS.cast_split_experiment(
        scale=SCALE, conditions=slice(13, 14), memory_pages=MEMORY, mapper=backwards
    )
    assert again.costs == study.costs


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="scale"):
        CS.cast_split_experiment(scale=0)
    with pytest.raises(ValueError, match="no condition"):
        CS.cast_split_experiment(scale=SCALE, conditions=slice(90, 95))
    with pytest.raises(ValueError, match="unknown method"):
        CS.method_params("fixed-50")
    assert CS.method_params("fixed-300") == {"split_permille": 300}
    assert CS.method_params("scores") == {"split_mode": "scores"}
    assert _conditions("0:90:10") == slice(0, 90, 10)
    assert _conditions("7") == slice(7, 8)
    with pytest.raises(ValueError, match="start:stop:step"):
        _conditions("a:b")


def test_cli_prints_the_table_with_the_alternatives(tmp_path: Path) -> None:
    fig = tmp_path / "split.png"
    result = CliRunner().invoke(
        app,
        ["experiment", "cast-split", "--scale", "1/2000", "--conditions", "0", "--figure", str(fig)],
    )
    assert result.exit_code == 0, result.output
    for word in ("gradient", "scores", "curves", "seed worst", "loop/zipf/0.1"):
        assert word in result.output
    assert fig.exists() and fig.stat().st_size > 0
    bad = CliRunner().invoke(app, ["experiment", "ycsb", "--workers", "2"])
    assert bad.exit_code != 0 and "cast-split" in bad.output
