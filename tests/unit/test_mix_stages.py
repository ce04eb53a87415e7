"""``mix(stages=...)``: a workload whose anon/file mix changes during the run (the split study's
changing conditions). Small loops, so every access can be written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.trace import KIND_ANON, KIND_FILE
from pagesim.workloads.kernel import make_kernel_workload, mix, mix_study_conditions

ANON = np.int64(1) << np.int64(40)  # task 0's anon page p has id ANON | p
FILE = np.int64(1) << np.int64(60)  # file 0's page p has id FILE + p


def _main(t, allocation: int):
    """Ids, kinds and tags of the main phase (after the allocation)."""
    return t.original_id[t.page][allocation:], t.kind[allocation:], t.tag[allocation:]


def test_file_loop_then_anon_loop_access_by_access() -> None:
    # 100-page node: anon 40 pages, file 20; 100 main accesses in two stages of 50
    t = mix(
        memory_pages=100, anon_share=0.4, file_factor=0.2, file_pattern="loop", anon_pattern="loop",
        accesses=100, stages=[{"anon_accesses": 0.0}, {"anon_accesses": 1.0}],
    )  # fmt: skip
    assert t.n_requests == 40 + 100
    ids, kind, tag = _main(t, 40)
    # stage 1: the file only, pages 0..19, 0..19, 0..9 (task 1)
    assert ids[:50].tolist() == [int(FILE) + p for p in list(range(20)) * 2 + list(range(10))]
    assert (kind[:50] == KIND_FILE).all() and (tag[:50] == 1).all()
    # stage 2: anon only, its loop starts again at page 0: 0..39, 0..9 (task 0)
    assert ids[50:].tolist() == [int(ANON) | p for p in list(range(40)) + list(range(10))]
    assert (kind[50:] == KIND_ANON).all() and (tag[50:] == 0).all()
    # the allocation (anon pages 0..39, written by task 0 as anon is not cold) does not change
    assert t.original_id[t.page][:40].tolist() == [int(ANON) | p for p in range(40)]
    assert (t.tag[:40] == 0).all()


def test_working_set_shares_narrow_each_stage_to_its_first_pages() -> None:
    t = mix(
        memory_pages=100, anon_share=0.4, file_factor=0.2, file_pattern="loop", anon_pattern="loop",
        accesses=60,
        stages=[{"anon_accesses": 0.0, "file_ws": 0.25}, {"anon_accesses": 1.0, "anon_ws": 0.25}],
    )  # fmt: skip
    ids, _, _ = _main(t, 40)
    # file_ws 0.25 of 20 pages: pages 0..4 looped; anon_ws 0.25 of 40 pages: pages 0..9 looped
    assert ids[:30].tolist() == [int(FILE) + p for p in list(range(5)) * 6]
    assert ids[30:].tolist() == [int(ANON) | p for p in list(range(10)) * 3]
    assert t.n_pages == 40 + 5  # the allocation's 40 anon pages and the five file pages read


def test_uneven_stages_follow_the_edges_k_times_main_over_k() -> None:
    # 10 accesses in 3 stages: edges 0, 3, 6, 10 (lengths 3, 3, 4)
    t = mix(
        memory_pages=100, anon_share=0.4, file_factor=0.2, file_pattern="loop", anon_pattern="loop",
        accesses=10, stages=[{"anon_accesses": 1.0}, {"anon_accesses": 0.0}, {"anon_accesses": 1.0}],
    )  # fmt: skip
    ids, kind, _ = _main(t, 40)
    assert kind.tolist() == [KIND_ANON] * 3 + [KIND_FILE] * 3 + [KIND_ANON] * 4
    assert ids.tolist() == [int(ANON) | p for p in (0, 1, 2)] + [int(FILE) + p for p in (0, 1, 2)] + [
        int(ANON) | p for p in (0, 1, 2, 3)
    ]


def test_each_stage_has_its_share_of_anon_accesses() -> None:
    t = mix(
        memory_pages=1000, anon_share=0.4, anon_pattern="zipf", accesses=20_000,
        stages=[{"anon_accesses": 0.6}, {"anon_accesses": 0.1}],
    )  # fmt: skip
    _, kind, tag = _main(t, 400)
    # binomial over 10,000 accesses a stage: sd <= 0.005
    assert abs(float((kind[:10_000] == KIND_ANON).mean()) - 0.6) < 0.02
    assert abs(float((kind[10_000:] == KIND_ANON).mean()) - 0.1) < 0.02
    assert ((tag == 0) == (kind == KIND_ANON)).all()


def test_a_cold_stage_has_no_anon_accesses_whatever_its_share() -> None:
    t = mix(
        memory_pages=100, anon_share=0.4, file_factor=0.2, file_pattern="loop", anon_pattern="loop",
        anon_accesses=1.0, accesses=20, stages=[{"anon_pattern": "cold"}, {}],
    )  # fmt: skip
    _, kind, _ = _main(t, 40)
    assert kind.tolist() == [KIND_FILE] * 10 + [KIND_ANON] * 10


@pytest.mark.parametrize("file_pattern", ["loop", "zipf", "scan", "phases", "uniform"])
@pytest.mark.parametrize("anon_pattern", ["cold", "zipf", "loop", "uniform"])
def test_one_stage_of_no_change_is_the_trace_without_stages(file_pattern: str, anon_pattern: str) -> None:
    kw = dict(
        memory_pages=1000, file_pattern=file_pattern, anon_pattern=anon_pattern, anon_accesses=0.3,
        accesses=3000, pace_ns=100.0, seed=5,
    )  # fmt: skip
    plain = mix(**kw)
    same = [[{}], [{"anon_accesses": 0.3, "anon_pattern": anon_pattern, "file_ws": 1.0, "alpha": 0.9}]]
    for stages in same:
        staged = mix(**kw, stages=stages)
        for field in ("page", "original_id", "kind", "op", "tag", "time"):
            assert np.array_equal(getattr(staged, field), getattr(plain, field)), field
    assert "stages" not in plain.source["params"]  # the default records nothing new
    assert mix(**kw, stages=[{}]).source["params"]["stages"] == [{}]


def test_stages_through_the_registry_and_their_errors() -> None:
    t = make_kernel_workload("mix", memory_pages=1000, accesses=100, stages=[{"anon_accesses": 0.5}, {}])
    assert t.source["params"]["stages"] == [{"anon_accesses": 0.5}, {}]
    with pytest.raises(ValueError, match="at least one stage"):
        mix(stages=[])
    with pytest.raises(ValueError, match="sequence of mappings"):
        mix(stages="anon_accesses=0.5")  # type: ignore[arg-type]  (as the CLI would pass it)
    with pytest.raises(ValueError, match="stage 1 has no key anon_share"):
        mix(stages=[{}, {"anon_share": 0.5}])
    with pytest.raises(ValueError, match="unknown file_pattern"):
        mix(stages=[{"file_pattern": "random"}])
    with pytest.raises(ValueError, match="file_ws"):
        mix(stages=[{"file_ws": 0.0}])
    with pytest.raises(ValueError, match="anon_accesses"):
        mix(stages=[{"anon_accesses": 1.5}])


def test_the_study_lists_twenty_changing_conditions_of_two_and_four_stages() -> None:
    conds = mix_study_conditions(accesses=1000, changing=True)
    assert len(conds) == 20
    assert [len(c["stages"]) for c in conds] == [2, 4] * 10
    for c in conds:
        a, b = c["stages"][:2]
        assert a != b and c["stages"] == [a, b] * (len(c["stages"]) // 2)
        t = mix(memory_pages=1000, **c)
        assert t.n_requests == int(1000 * c["anon_share"]) + 1000
    assert len({c["seed"] for c in conds}) == 20
    assert mix_study_conditions(accesses=1000) == mix_study_conditions(accesses=1000, changing=False)
