"""Miss-ratio curves: exact equals simulation at every size, sampling estimates stay close."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pagesim.analysis.compare import compare
from pagesim.analysis.mrc import COLUMNS, STACK_POLICIES, check_mrc, exact_misses, mrc
from pagesim.analysis.mrc.minisim import MIN_SAMPLED_CAPACITY, minisim, sample_trace
from pagesim.analysis.mrc.shards import page_hashes, shards_fixed_rate, shards_fixed_size
from pagesim.analysis.mrc.stack import lru_stack_distances, opt_stack_distances
from pagesim.engine import simulate
from pagesim.policies import make_policy
from pagesim.policies.registry import policy_class
from pagesim.trace import Trace, read_trace
from pagesim.workloads import from_spec

ZIPF = "zipf?n_requests=60000&n_pages=6000&alpha=0.9&seed=5"


def simulated(trace: Trace, name: str, sizes, warmup: int = 0) -> list[int]:
    return [simulate(trace, make_policy(name), int(c), warmup=warmup).misses for c in sizes]


def test_hand_computed_example():
    # Trace a b c a b d a (rows 0..6).
    # LRU stack distances: a, b, c first (inf); a at 3: {b, c} since, depth 3; b at 4: {c, a},
    # depth 3; d first; a at 6: {b, d}, depth 3. Misses: 4 cold + 3 with depth 3 at sizes 1, 2
    # -> 7, 7; at 3 and 4 -> 4.
    # OPT, 2 pages: a b fill; c misses, evicts b (next use 4, a's is 3); a hits; b misses,
    # evicts c (never used again); d misses; a hits -> 5 misses. 3 pages: a b c fill, a b hit,
    # d misses, a hits -> 4. 1 page: every access misses -> 7.
    # Warm-up 3 counts rows 3..6: LRU at 2 pages misses a b d a -> 4, at 3 pages only d -> 1;
    # OPT at 2 pages misses b and d -> 2.
    trace = Trace.from_ids([0, 1, 2, 0, 1, 3, 0])
    assert lru_stack_distances(trace.page, trace.n_pages).tolist() == [-1, -1, -1, 3, 3, -1, 3]
    assert exact_misses(trace, "lru", [1, 2, 3, 4]).tolist() == [7, 7, 4, 4]
    assert exact_misses(trace, "opt", [1, 2, 3, 4], one_pass=True).tolist() == [7, 5, 4, 4]
    assert exact_misses(trace, "lru", [2, 3], warmup=3).tolist() == [4, 1]
    assert exact_misses(trace, "opt", [2], warmup=3, one_pass=True).tolist() == [2]
    assert simulated(trace, "opt", [1, 2, 3, 4]) == [7, 5, 4, 4]


@settings(max_examples=40, deadline=None)
@given(
    ids=st.lists(st.integers(0, 12), min_size=1, max_size=120),
    warmup_share=st.floats(0, 0.9),
)
def test_exact_equals_simulation_at_every_size(ids, warmup_share):
    trace = Trace.from_ids(ids)
    warmup = int(warmup_share * trace.n_requests)
    sizes = list(range(1, trace.n_pages + 2))
    for name in ("lru", "opt"):
        got = exact_misses(trace, name, sizes, warmup, one_pass=True)
        assert got.tolist() == simulated(trace, name, sizes, warmup)


def test_lru_distances_survive_compaction():
    # many accesses over few pages: the tree (2 * pages + 2 positions) is compacted often;
    # compared with the Fenwick-over-all-times distances of analysis.reuse (1 + reuse distance).
    from pagesim.analysis.reuse import reuse_distances

    page = from_spec("zipf?n_requests=20000&n_pages=50&alpha=0.7&seed=1").page
    ours = lru_stack_distances(page, int(page.max()) + 1)
    ref = reuse_distances(page)
    assert np.array_equal(ours, np.where(ref < 0, -1, ref + 1))


def test_truncated_opt_stack_is_exact_below_its_depth():
    trace = from_spec(ZIPF)
    deep, _ = opt_stack_distances(trace, trace.n_pages)
    shallow, _ = opt_stack_distances(trace, 300)
    hit = (shallow > 0) & (shallow <= 300)
    assert np.array_equal(shallow[hit], deep[hit])
    assert np.all((deep[~hit] > 300) | (deep[~hit] == -1))


def test_exact_equals_compare_on_a_real_trace(shared_traces):
    trace = read_trace(str(shared_traces / "arc" / "OLTP.lis.zst")).head(150_000)
    sizes = [50, 500, 1000, 3000, 7000, 12000]
    results = compare(trace, ["lru", "opt"], sizes, warmup=10_000, baseline=False)
    by = {(r.params["size"], r.policy): r.misses for r in results}
    for name in ("lru", "opt"):
        got = exact_misses(trace, name, sizes, warmup=10_000, one_pass=True)
        assert got.tolist() == [by[(c, name)] for c in sizes]


def test_splitmix_hash_is_the_reference_generator():
    # splitmix64 seeded 0 first returns 0xE220A8397B1DCDAF (Steele et al.; Vigna's reference C);
    # page 0 with seed 0 is that state, and the hash keeps the upper 32 bits.
    assert int(page_hashes(1, 0)[0]) == 0xE220A839
    assert not np.array_equal(page_hashes(100, 0), page_hashes(100, 1))


def test_shards_at_rate_one_and_with_room_for_every_page_is_exact():
    trace = from_spec(ZIPF)
    sizes = [10, 100, 1000, 5000]
    exact = exact_misses(trace, "lru", sizes, 1000) / (trace.n_requests - 1000)
    assert np.allclose(shards_fixed_rate(trace, sizes, 1.0, warmup=1000).miss_ratio, exact)
    assert np.allclose(shards_fixed_size(trace, sizes, trace.n_pages, warmup=1000).miss_ratio, exact)


def test_shards_estimates_are_close_on_zipf():
    trace = from_spec("zipf?n_requests=300000&n_pages=30000&alpha=0.9&seed=2")
    # sizes whose sampled cache holds >= 100 pages at rate 0.1: below that, whether the few
    # hottest pages fall in the sample decides the estimate (Carra and Neglia, ATC'20)
    sizes = [1000, 3000, 10000, 20000]
    exact = exact_misses(trace, "lru", sizes) / trace.n_requests
    fixed_rate = shards_fixed_rate(trace, sizes, 0.1, seed=3)
    fixed_size = shards_fixed_size(trace, sizes, 2000, seed=3)
    assert np.abs(fixed_rate.miss_ratio - exact).mean() < 0.02
    assert np.abs(fixed_size.miss_ratio - exact).mean() < 0.02
    assert 0.05 < fixed_size.rate < 0.1  # 2000 of 30000 pages tracked at the end
    assert fixed_rate.sampled_requests < trace.n_requests


def test_minisim_at_rate_one_is_the_full_simulation():
    trace = from_spec(ZIPF)
    sample = sample_trace(trace, rate=1.0, warmup=100)
    run = minisim(trace, sample, policy_class("fifo"), [50, 500, 2000])
    full = [simulate(trace, make_policy("fifo"), c, warmup=100).miss_ratio for c in (50, 500, 2000)]
    assert np.allclose(run.miss_ratio, full)
    assert run.method == ["minisim"] * 3


def test_minisim_samples_small_sizes_denser_or_in_full_or_refuses_them():
    trace = from_spec(ZIPF)
    sample = sample_trace(trace, rate=0.1)
    small = MIN_SAMPLED_CAPACITY * 10 - 100  # miniature of 90 pages at rate 0.1
    sizes = [MIN_SAMPLED_CAPACITY, small, 3000]
    run = minisim(trace, sample, policy_class("clock"), sizes)
    # 100 pages would need rate 1: in full; 900 pages: rate 100 / 900, a miniature of 100 pages
    assert run.method == ["full", "minisim", "minisim"]
    assert run.rate[0] == 1.0 and run.rate[1] == pytest.approx(1 / 9, rel=1e-6)
    assert run.rate[2] == sample.rate
    assert run.miss_ratio[0] == simulate(trace, make_policy("clock"), MIN_SAMPLED_CAPACITY).miss_ratio
    # the same estimate as a curve drawn at that rate from the start
    alone = minisim(trace, sample_trace(trace, rate=1 / 9), policy_class("clock"), [small])
    assert run.miss_ratio[1] == alone.miss_ratio[0]
    # about 560 and 620 sampled pages: a coarse estimate (the accuracy is measured in bench/mrc.py)
    for i in (1, 2):
        assert abs(run.miss_ratio[i] - simulate(trace, make_policy("clock"), sizes[i]).miss_ratio) < 0.05
    in_full = minisim(trace, sample, policy_class("clock"), [small], small="full")
    assert in_full.method == ["full"]
    assert in_full.miss_ratio[0] == simulate(trace, make_policy("clock"), small).miss_ratio
    with pytest.raises(ValueError, match=r"sizes >= 1,000 pages"):
        minisim(trace, sample, policy_class("clock"), [small], small="refuse")
    with pytest.raises(ValueError, match=r"known: denser, full, refuse"):
        minisim(trace, sample, policy_class("clock"), [small], small="bogus")


def test_fixed_size_minisim_keeps_that_many_pages():
    trace = from_spec(ZIPF)
    sample = sample_trace(trace, samples=600)
    assert sample.trace.n_pages == 600 and sample.rate == 600 / trace.n_pages


def test_mrc_table_and_check():
    trace = from_spec("zipf?n_requests=200000&n_pages=20000&alpha=0.9&seed=5")
    sizes = [2000, 4000, 8000]
    curve = mrc(trace, ["lru", "opt", "arc"], sizes, rate=0.1)
    assert tuple(curve.columns) == COLUMNS
    assert curve["method"].tolist() == ["exact"] * 6 + ["minisim"] * 3
    lru = curve[curve["policy"] == "lru"]
    assert lru["misses"].tolist() == simulated(trace, "lru", sizes)
    assert curve.attrs["runs"]["arc"]["rate"] == pytest.approx(0.1, rel=1e-6)
    checks = check_mrc(trace, curve, ["lru", "arc"], count=2)
    assert checks["lru"]["mae"] == 0.0 and checks["lru"]["against"] == "simulation"
    assert checks["arc"]["sizes"] == [2000, 8000] and checks["arc"]["max_abs_error"] < 0.03
    shards = mrc(trace, ["lru"], sizes, method="shards", rate=0.2)
    assert check_mrc(trace, shards, ["lru"])["lru"]["against"] == "exact"


@pytest.mark.parametrize(
    ("policies", "method", "needle"),
    [
        (["fifo"], "exact", "exact works for lru, opt"),
        (["opt"], "shards", "SHARDS models LRU only"),
        (["lru"], "bogus", "known methods: auto, exact, shards, minisim"),
    ],
)
def test_a_method_a_policy_cannot_use_is_refused(policies, method, needle):
    with pytest.raises(ValueError, match=needle):
        mrc(from_spec(ZIPF), policies, [100], method=method)


def test_exact_refuses_other_policies_and_cgroups():
    trace = Trace.from_ids([0, 1, 0], cgroup=[0, 1, 0])
    assert STACK_POLICIES == {"lru", "opt"}
    with pytest.raises(ValueError, match="one cgroup"):
        exact_misses(trace, "lru", [1])
    with pytest.raises(ValueError, match="not one"):
        exact_misses(Trace.from_ids([0]), "fifo", [1])


def test_sizes_are_counts_or_percentages_as_compare_reads_them():
    # Trace a b c a b d a: 4 unique pages, so 50% is 2 pages and 75% is 3 (LRU misses 7 and 4,
    # as in the hand-computed example above).
    trace = Trace.from_ids([0, 1, 2, 0, 1, 3, 0])
    table = mrc(trace, ["lru"], ["50%", "3", 4])
    assert table["size_pages"].tolist() == [2, 3, 4]
    assert table["misses"].tolist() == [7, 4, 4]
    with pytest.raises(ValueError, match="size must be a positive count or a percentage like 10%"):
        mrc(trace, ["lru"], ["lots"])
