"""Synthetic workloads: determinism per seed, the laws they claim, their registry and specs."""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.workloads import WORKLOADS, from_spec, loop, make_workload, phases, scan, uniform, zipf
from pagesim.workloads.synthetic import zipf_probabilities


def _ids(trace):  # the ids as generated (original page numbers), access by access
    return trace.original_id[trace.page]


@pytest.mark.parametrize(
    "make",
    [
        lambda seed: zipf(5000, 300, 0.9, seed),
        lambda seed: uniform(5000, 300, seed),
        lambda seed: make_workload("phases", n_requests=4000, n_pages=200, seed=seed),
    ],
)
def test_same_seed_same_trace_other_seed_other_trace(make):
    a, b, c = make(1), make(1), make(2)
    assert np.array_equal(_ids(a), _ids(b))
    assert a.source == b.source
    assert not np.array_equal(_ids(a), _ids(c))


def test_zipf_rank_one_share_is_one_over_generalised_harmonic_number():
    # n = 1000 pages, alpha = 1: H(1000, 1) = 7.4855, so rank 1 gets 13.36 % of accesses;
    # with 10^6 draws the binomial standard deviation of that share is 0.034 percentage points.
    n_pages, alpha, n = 1000, 1.0, 1_000_000
    t = zipf(n, n_pages, alpha, seed=7)
    counts = np.sort(np.bincount(_ids(t), minlength=n_pages))[::-1] / n
    h = np.sum(np.arange(1, n_pages + 1, dtype=float) ** -alpha)
    assert counts[0] == pytest.approx(1.0 / h, abs=0.002)
    # and the next ranks follow k**-alpha / H as well
    expected = zipf_probabilities(n_pages, alpha)
    assert np.allclose(counts[:10], expected[:10], atol=0.002)


def test_zipf_alpha_zero_is_uniform_and_ids_stay_in_range():
    t = zipf(200_000, 50, 0.0, seed=3)
    ids = _ids(t)
    assert ids.min() >= 0 and ids.max() < 50
    share = np.bincount(ids, minlength=50) / ids.size
    assert np.allclose(share, 1 / 50, atol=0.003)


def test_zipf_ranks_are_shuffled_over_page_ids():
    # the most popular page id depends on the seed: ranks are permuted over ids
    top = {int(np.argmax(np.bincount(_ids(zipf(20_000, 1000, 1.2, seed))))) for seed in range(5)}
    assert len(top) > 1


def test_uniform_shares_are_equal():
    t = uniform(300_000, 30, seed=1)
    share = np.bincount(_ids(t), minlength=30) / t.n_requests
    assert np.allclose(share, 1 / 30, atol=0.003)


def test_loop_and_scan_are_exact_sequences():
    assert _ids(loop(4, passes=3)).tolist() == [0, 1, 2, 3] * 3
    assert _ids(scan(5, start=10)).tolist() == [10, 11, 12, 13, 14]
    assert loop(4, passes=0).n_requests == 0
    assert scan(0).n_requests == 0


def test_phases_concatenate_shared_or_disjoint():
    a, b = loop(3, passes=1), loop(2, passes=1)
    assert _ids(phases([a, b])).tolist() == [0, 1, 2, 0, 1]
    assert _ids(phases([a, b], disjoint=True)).tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError):
        phases([])


def test_default_phases_workload_has_four_phases_and_the_requested_length():
    t = make_workload("phases", n_requests=4001, n_pages=100)
    assert t.n_requests == 4001
    assert len(t.source["phases"]) == 4
    assert t.source["workload"] == "phases"


def test_source_records_every_parameter():
    t = zipf(10, 5, 0.5, seed=9)
    assert t.source == {
        "format": "workload",
        "workload": "zipf",
        "params": {"n_requests": 10, "n_pages": 5, "alpha": 0.5, "seed": 9},
    }


def test_registry_defaults_match_the_generators_and_the_main_job():
    assert set(WORKLOADS) >= {"zipf", "uniform", "loop", "scan", "phases"}
    assert WORKLOADS["zipf"].defaults == {
        "n_requests": 1_000_000,
        "n_pages": 100_000,
        "alpha": 0.9,
        "seed": 0,
    }
    for w in WORKLOADS.values():
        assert w.description and "\n" not in w.description


def test_spec_converts_types_and_rejects_unknowns():
    t = from_spec("workload:zipf?alpha=0.8&n_requests=1e3&n_pages=1_000&seed=4")
    assert t.source["params"] == {"n_requests": 1000, "n_pages": 1000, "alpha": 0.8, "seed": 4}
    assert np.array_equal(_ids(t), _ids(zipf(1000, 1000, 0.8, 4)))
    with pytest.raises(ValueError, match="no parameter beta"):
        from_spec("zipf?beta=1")
    with pytest.raises(ValueError, match="unknown workload"):
        from_spec("nosuch")
    with pytest.raises(ValueError, match="n_requests must be int"):
        from_spec("zipf?n_requests=1.5")
    with pytest.raises(ValueError, match="key=value"):
        from_spec("zipf?alpha")


@pytest.mark.parametrize(
    "call",
    [
        lambda: zipf(-1, 10),
        lambda: zipf(10, 0),
        lambda: zipf(10, 10, alpha=-0.5),
        lambda: uniform(10, 0),
        lambda: loop(0),
        lambda: scan(-1),
    ],
)
def test_invalid_parameters_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_mix_default_is_the_seeds_cold_anon_beside_file_loops() -> None:
    from pagesim.workloads.kernel import make_kernel_workload

    t = make_kernel_workload("mix", memory_pages=1000, file_pattern="loop")
    anon, file_pages = 650, 1500
    assert t.n_requests == anon + 4 * file_pages and t.n_pages == anon + file_pages
    assert (t.kind[:anon] == 1).all() and (t.op[:anon] == 1).all() and (t.tag == 1).all()  # one task
    main = t.original_id[t.page][anon:]
    # four sequential passes over the file: ids go up by one and wrap every 1500
    assert (main[:file_pages] == main[file_pages : 2 * file_pages]).all()
    assert (np.diff(main[:file_pages]) == 1).all() and (t.kind[anon:] == 0).all()


@pytest.mark.parametrize("file_pattern", ["loop", "zipf", "scan", "phases", "uniform"])
def test_mix_patterns_share_the_accesses_as_asked(file_pattern: str) -> None:
    from pagesim.workloads.kernel import make_kernel_workload

    t = make_kernel_workload(
        "mix", memory_pages=1000, file_pattern=file_pattern, anon_pattern="zipf", anon_accesses=0.3,
        accesses=20_000, anon_share=0.4,
    )  # fmt: skip
    main_kind = t.kind[400:]
    assert t.n_requests == 400 + 20_000
    assert abs(float((main_kind == 1).mean()) - 0.3) < 0.02  # binomial: sd 0.003
    assert ((t.tag[400:] == 0) == (main_kind == 1)).all()  # anon is task 0, file task 1
    writes = t.op[400:][main_kind == 1]
    assert abs(float((writes == 1).mean()) - 0.3) < 0.03 and (t.op[400:][main_kind == 0] == 0).all()
    file_ids = t.original_id[t.page][400:][main_kind == 0]
    assert np.unique(file_ids).size <= 1500  # within the file (1.5x memory)


def test_mix_rejects_unknown_patterns_and_lists_the_study() -> None:
    from pagesim.workloads.kernel import make_kernel_workload, mix_study_conditions

    with pytest.raises(ValueError, match="known: loop, zipf, scan, phases, uniform"):
        make_kernel_workload("mix", file_pattern="random")
    with pytest.raises(ValueError, match="anon_pattern"):
        make_kernel_workload("mix", anon_pattern="hot")
    conditions = mix_study_conditions(accesses=1000)
    assert len(conditions) == 90
    assert len({tuple(sorted(c.items())) for c in conditions}) == 90


def test_mix_pace_releases_main_access_j_at_j_times_pace() -> None:
    from pagesim.engine.kernel import release_times
    from pagesim.workloads.kernel import make_kernel_workload

    t = make_kernel_workload(
        "mix", memory_pages=1000, anon_pattern="zipf", anon_accesses=0.3, accesses=100, anon_share=0.4,
        pace_ns=2500.0,
    )  # fmt: skip
    when = release_times(t)
    # the allocation (400 anon writes) at 0; main access j at j * 2.5 us, whichever task's it is
    assert (when[:400] == 0).all()
    assert when[400:].tolist() == [2500 * j for j in range(100)]
    assert t.source["time_unit"] == "ns" and t.source["params"]["pace_ns"] == 2500.0
    unpaced = make_kernel_workload("mix", memory_pages=1000, accesses=100)
    assert release_times(unpaced).size == 0
    with pytest.raises(ValueError, match="pace_ns"):
        make_kernel_workload("mix", pace_ns=-1.0)
