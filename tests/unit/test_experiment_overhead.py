"""cache_ext's overhead experiment: registry memory, a no-op policy's registry work, the port."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rich.console import Console

from pagesim.analysis import experiments as E
from pagesim.cli._experiment import _overhead_table
from pagesim.workloads.cache_ext import build_fio
from pagesim.workloads.cache_ext.ops import GIB_PAGES


def test_registry_share_is_the_papers_arithmetic() -> None:
    # 16 bytes per page of the cgroup, 32 more per cached folio (paper §6.3.1: 0.4 % and 1.2 %)
    pages = 10 * GIB_PAGES
    assert E.registry_share(pages, 0) == pytest.approx(16 / 4096)
    assert E.registry_share(pages, pages) == pytest.approx(48 / 4096)
    assert round(E.registry_share(pages, 0), 3) == 0.004 and round(E.registry_share(pages, pages), 3) == 0.012
    with pytest.raises(ValueError, match="cgroup_pages > 0"):
        E.registry_share(0, 0)


def test_harmonic_mean() -> None:
    assert E.harmonic_mean([1.0, 1.0]) == 1.0
    assert E.harmonic_mean([0.5, 1.0]) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="positive values"):
        E.harmonic_mean([1.0, 0.0])


def test_fio_workload_reads_one_file_in_a_cgroup_of_its_size() -> None:
    small, large = (build_fio(cgroup_gib=g, scale=1 / 4096) for g in (5, 30))
    file_pages = small.trace.source["file_pages"]
    assert small.trace.source["cgroup_pages"][0] < file_pages < large.trace.source["cgroup_pages"][0]
    assert np.unique(small.trace.page).shape[0] <= file_pages
    assert sorted(set(small.trace.tag.tolist())) == list(range(8)) and small.n_ops == small.trace.n_requests
    with pytest.raises(ValueError, match="must be positive"):
        build_fio(jobs=0)


def test_overhead_experiment_at_a_tiny_scale() -> None:
    exp = E.overhead_experiment(workloads=["C"], scale=1 / 8192, cgroups_gib=(5.0, 30.0), latency_window=500)
    s = exp.params["overhead"]
    assert exp.workloads() == ["fio-5GiB", "fio-30GiB", "ycsb-C"]
    # a cgroup holding the whole file stops inserting and removing once it is read in
    assert s["registry_ops_per_read"][5.0] > s["registry_ops_per_read"][30.0] > 0
    assert s["cpu_per_io"][5.0] == pytest.approx(s["registry_ops_per_read"][5.0] * 100.0 / 10_000.0)
    for empty, full in s["registry_share"].values():
        assert empty == pytest.approx(16 / 4096) and empty < full <= 48 / 4096 + 1e-12
    port = s["port"]["C"]
    assert port > 0 and math.isclose(s["port"]["harmonic mean"], port)
    rows = E.overhead_summary(exp)
    assert any(r[0].startswith("ce-mglru / mglru, C") and r[2] == "0.96x" for r in rows)
    out = Console(width=200, record=True)
    out.print(_overhead_table(exp))
    text = out.export_text()
    assert "harmonic mean" in text and "0.99x" in text
    with pytest.raises(ValueError, match="include both"):
        E.overhead_experiment(policies=["linux-lru", "mglru"])
