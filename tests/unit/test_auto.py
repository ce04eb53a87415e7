"""The ``auto`` policy: cache-mode switching keeps every page once, it follows a phase change,
with one candidate it is that candidate, and its readouts are in the results."""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core.state import HEAD, LIST, NEXT, OWNER
from pagesim.engine.auto import page_hashes
from pagesim.engine.cache_switch import switch_cache
from pagesim.engine.kernel import simulate_kernel
from pagesim.engine.loop import accounting_errors
from pagesim.engine.memory import KernelConfig
from pagesim.engine.simulate import Run, simulate
from pagesim.policies import make_policy
from pagesim.policies.auto import Auto
from pagesim.trace import Trace
from pagesim.workloads import synthetic as syn


def _zipf(n: int = 6000, pages: int = 800, seed: int = 0) -> Trace:
    return syn.zipf(n, pages, 0.9, seed=seed)


def _listed(run: Run, cg: int = 0) -> list[int]:
    """Every page on a list the cgroup owns, walking each list from its head."""
    s = run.state
    out = []
    for lid in range(s.lhd.shape[0]):
        if s.lhd[lid, OWNER] != cg:
            continue
        p = s.lhd[lid, HEAD]
        while p >= 0:
            out.append(int(p))
            p = s.lst[p, NEXT]
    return out


@pytest.mark.parametrize("new", ["ce-s3fifo", "ce-lfu", "ce-mglru", "arc"])
def test_cache_switch_keeps_every_page_once(new: str) -> None:
    trace = _zipf()
    run = Run(trace, make_policy("lru"), 150)
    run.advance(3000)
    before = np.flatnonzero(run.state.resident != 0)
    moved = switch_cache(run, 0, make_policy(new))
    after = np.flatnonzero(run.state.resident != 0)
    assert moved == before.size == 150
    assert np.array_equal(before, after)
    listed = _listed(run)
    on_no_list = [int(p) for p in after if run.state.lst[p, LIST] < 0]
    assert len(listed) == len(set(listed))  # nobody twice
    assert set(listed) | set(on_no_list) == set(after.tolist())  # nobody lost
    assert accounting_errors(run.state, run.framework, False, False) == 0
    run.advance()
    assert int(np.count_nonzero(run.state.resident)) <= 150
    assert int(run.framework.used[0]) <= 150
    assert accounting_errors(run.state, run.framework, False, False) == 0
    run.policies[0] = make_policy(new)
    r = run.result()
    assert r.requests == trace.n_requests


def test_switched_run_continues_as_the_new_policy_would_from_those_pages() -> None:
    """After the handover the hit count is between a cold start and the new policy's own run."""
    trace = _zipf(8000, 600)
    run = Run(trace, make_policy("lru"), 100)
    run.advance(4000)
    h0 = run.counters["hits"]
    switch_cache(run, 0, make_policy("ce-lfu"))
    run.advance()
    assert run.counters["hits"] > h0


@pytest.mark.parametrize("name", ["ce-s3fifo", "lru"])
def test_auto_with_one_candidate_is_that_candidate(name: str) -> None:
    trace = _zipf()
    fixed = simulate(trace, make_policy(name), 120)
    auto = simulate(trace, make_policy("auto", candidates=name, epoch=500), 120)
    assert auto.counters == fixed.counters
    assert auto.params["auto"]["switches"] == []
    assert auto.policy.startswith("auto")


def _loop_then_zipf(c: int) -> Trace:
    loop = syn.loop(2 * c, passes=30)
    hot = syn.zipf(60 * c, 8 * c, 1.0, seed=3)
    return syn.phases([loop, hot], disjoint=True)


def test_auto_follows_a_phase_change() -> None:
    """A loop larger than memory (MRU best), then Zipf (LFU best): auto goes to ce-mru in the
    loop, to ce-lfu in the Zipf phase, and beats both fixed policies over the whole trace."""
    c = 200
    trace = _loop_then_zipf(c)
    cands = "lru,ce-mru,ce-lfu"
    r = simulate(trace, make_policy("auto", candidates=cands, min_pages=100), c)
    info = r.params["auto"]
    switch_at = 60 * c
    tos = [(s["access"], s["to"]) for s in info["switches"]]
    assert tos and tos[0][1] == "ce-mru" and tos[0][0] < switch_at
    assert any(to == "ce-lfu" and at > switch_at for at, to in tos)
    for s in info["switches"]:
        assert s["z"] >= 3.0 and s["sum_d2"] >= 16
    fixed = {p: simulate(trace, make_policy(p), c).misses for p in cands.split(",")}
    assert r.misses < min(fixed.values())


def test_auto_readouts_in_cache_mode() -> None:
    r = simulate(_zipf(), make_policy("auto"), 120)
    info = r.params["auto"]
    names = ["ce-fifo", "ce-lfu", "ce-lhd", "ce-mru", "ce-s3fifo", "ce-mglru", "lru"]
    assert info["candidates"] == names
    assert info["timeline"][0] == [0, "lru"]
    assert set(info["shadow_misses"]) == set(names)
    assert 0 < info["sampled_pages"] <= 800 and info["sampled_accesses"] > 0
    assert info["shadow_bytes"] > 0 and info["shadow_cpu_seconds"] > 0
    assert info["shadow_capacity"] == round(120 * info["rate"])
    assert r.cpu_seconds >= 0


def _kernel_trace() -> Trace:
    t = _loop_then_zipf(100)
    n = t.n_requests
    zeros = np.zeros(n, dtype=np.int64)
    return Trace.from_ids(t.original_id[t.page], kind=zeros.astype(np.uint8), op=zeros.astype(np.uint8),
                          tag=zeros.astype(np.int32), cgroup=zeros)  # fmt: skip


def test_auto_in_kernel_mode_one_candidate_and_readouts() -> None:
    trace = _kernel_trace()
    cfg = KernelConfig(memory_pages=4096, swap="none")
    fixed = simulate_kernel(trace, make_policy("ce-lfu"), cfg, cgroup_limits=[100])
    one = simulate_kernel(trace, make_policy("auto", candidates="ce-lfu"), cfg, cgroup_limits=[100])
    assert one.counters == fixed.counters
    r = simulate_kernel(
        trace, make_policy("auto", candidates="linux-lru,ce-mru,ce-lfu"), cfg,
        cgroup_limits=[100], sample_every=2000,
    )  # fmt: skip
    assert "auto_live" in r.readouts and "auto_misses_ce-mru" in r.readouts
    assert len(r.series["auto_live"]) > 2
    assert "->" in r.describe


def test_auto_parameters_and_refusals() -> None:
    with pytest.raises(ValueError, match="threshold"):
        Auto(threshold=0)
    with pytest.raises(ValueError, match="candidates"):
        Auto(candidates="auto,lru").candidate_names("cache")
    with pytest.raises(ValueError, match="start"):
        Auto(candidates="lru,fifo", start="arc").start_name("cache")
    assert Auto().start_name("kernel") == "linux-lru"
    assert Auto(candidates="fifo,lru").start_name("kernel") == "fifo"
    trace = _zipf(200, 50)
    with pytest.raises(ValueError, match="bytes"):
        Run(Trace.from_ids(trace.page, size=np.ones(200, dtype=np.int64)), Auto(), 100, capacity_unit="bytes")


def test_page_hashes_match_the_shards_hash() -> None:
    from pagesim.analysis.mrc.shards import page_hashes as shards_hashes

    assert np.array_equal(page_hashes(1000, 7), shards_hashes(1000, 7))


def test_experiment_relative_to_the_best_fixed_policy_and_table() -> None:
    from pagesim.analysis.experiments.auto import AutoExperiment, AutoRow
    from pagesim.report.auto import auto_table

    rows = [
        AutoRow("w1", "phases", "lru", 120, 1000),
        AutoRow("w1", "phases", "ce-lfu", 100, 1000),
        AutoRow("w1", "phases", "auto", 90, 1000, [{"access": 5, "to": "ce-lfu"}]),
        AutoRow("w2", "traces", "lru", 50, 1000),
        AutoRow("w2", "traces", "ce-lfu", 200, 1000),
        AutoRow("w2", "traces", "auto", 55, 1000),
    ]
    exp = AutoExperiment(rows, {"scale": 1.0})
    rel = exp.relative()
    assert rel["w1"] == {"lru": 1.2, "ce-lfu": 1.0, "auto": 0.9}
    assert rel["w2"]["auto"] == pytest.approx(1.1) and rel["w2"]["ce-lfu"] == 4.0
    assert exp.best_fixed("w1") == "ce-lfu" and exp.best_fixed("w2") == "lru"
    assert exp.means()["auto"] == pytest.approx(1.0)
    assert auto_table(exp).row_count == 3
    assert set(exp.to_dict()) >= {"rows", "relative", "means"}


def test_phase_traces_change_their_pages() -> None:
    from pagesim.analysis.experiments.auto import phase_traces

    traces = dict(phase_traces(50, 400))
    assert set(traces) == {"zipf-scan-loop", "loop-zipf", "zipf-shift"}
    t = traces["zipf-scan-loop"]
    assert t.n_requests == 400 + 400 + (400 // 100) * 100
    first, second = set(t.page[:400].tolist()), set(t.page[400:800].tolist())
    assert not first & second  # the scan is over new pages


def test_cache_switch_of_one_cgroup_leaves_the_other_alone() -> None:
    rng = np.random.default_rng(5)
    ids = rng.integers(0, 300, 4000)
    cg = (ids >= 150).astype(np.int64)
    trace = Trace.from_ids(ids, cgroup=cg)
    run = Run(trace, [make_policy("lru"), make_policy("lru")], [40, 60])
    run.advance(2000)
    other = _listed(run, 0)
    before = np.flatnonzero(run.state.resident != 0)
    assert switch_cache(run, 1, make_policy("ce-s3fifo")) == 60
    assert _listed(run, 0) == other
    assert np.array_equal(np.flatnonzero(run.state.resident != 0), before)
    assert accounting_errors(run.state, run.framework, False, True) == 0
    run.advance()
    assert accounting_errors(run.state, run.framework, False, True) == 0
    assert list(run.framework.used) == [40, 60]
