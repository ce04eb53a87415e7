"""The seed's ``mix`` (cold anon beside a file working set larger than memory) with CAST: anon's
share, counting what zram holds, falls to the split's 10 % floor only if the cold anon's data
compresses well enough (docs/cast-results.md, "Figures against the seed": the mix rows and their reading).

On a 2,048-page node the cold anon is int(2048 * 0.65) = 1,331 pages; by the end of the run
those of them not on the lists are in zram, which holds ceil(stored / R) pages of memory at R:1
(none if the pages are same-filled); anon's share is its pages on the lists plus that, against
those plus the file's pages on the lists.
"""

from __future__ import annotations

import math

import pytest

from pagesim.engine.kernel import KernelRun
from pagesim.engine.memory import KernelConfig
from pagesim.policies.cast.policy import CAST
from pagesim.workloads.kernel import make_kernel_workload

COLD = int(2048 * 0.65)


def _end(**params: object) -> tuple[dict[str, float], dict[str, int], int]:
    """CAST on mix at 2,048 pages: its readouts and the node at the end, and its share early."""
    trace = make_kernel_workload("mix", memory_pages=2048, **params)
    pol = CAST()
    run = KernelRun(trace, pol, KernelConfig(memory_pages=2048))
    run.advance(run.n // 10)
    early = int(pol.readouts(run.state)["anon_share_permille"])
    run.advance()
    return pol.readouts(run.state), run.result().node, early


@pytest.mark.parametrize(("params", "ratio", "low", "high"), [
    ({}, 3, 200, 250),  # today's 3:1: 22 %, over the floor
    ({"anon_ratio": 8}, 8, 80, 110),  # 8:1: held at the floor
    ({"anon_same_filled": 1.0}, None, 80, 110),  # zero-filled / memset: zram holds nothing
])  # fmt: skip
def test_cold_anon_share_with_its_compressibility(
    params: dict, ratio: int | None, low: int, high: int
) -> None:
    """Anon's part is its pages still on the lists plus ceil(stored / R); at 3:1 zram alone is
    over the floor and every cold page goes (444 pages, 22 %); compressible, the share reaches
    the split's floor with some cold pages left on the lists, and reclaim then holds it there."""
    r, node, early = _end(**params)
    assert early > 600
    assert r["split_permille"] == 100
    lists = r["w_anon"] + r["m_anon"]
    assert lists == node["resident_anon"] and node["zram_stored"] == COLD - lists
    zram = 0 if ratio is None else math.ceil(node["zram_stored"] / ratio)
    assert node["zram_pages"] == zram and r["zram_pages"] == zram
    if ratio == 3:
        assert lists == 0 and zram == 444
    file = r["w_file"] + r["m_file"]
    assert r["anon_share_permille"] == 1000 * (lists + zram) // (lists + zram + file)
    assert low <= r["anon_share_permille"] <= high


def test_mix_states_its_anon_compressibility_for_the_allocating_task() -> None:
    """Cold anon is written by the file's reader (tag 1) first; other anon patterns by tag 0.
    The default states nothing (the node's ratio)."""
    assert "anon_compression" not in make_kernel_workload("mix", memory_pages=256).source
    cold = make_kernel_workload("mix", memory_pages=256, anon_ratio=8, anon_same_filled=0.5)
    assert cold.source["anon_compression"] == [{"tag": 1, "ratio": 8, "same_filled": 0.5}]
    hot = make_kernel_workload("mix", memory_pages=256, anon_pattern="zipf", anon_accesses=0.2, anon_ratio=5)
    assert hot.source["anon_compression"] == [{"tag": 0, "ratio": 5, "same_filled": 0.0}]
    with pytest.raises(ValueError, match="anon_ratio"):
        make_kernel_workload("mix", memory_pages=256, anon_ratio=0.5)
    with pytest.raises(ValueError, match="anon_same_filled"):
        make_kernel_workload("mix", memory_pages=256, anon_same_filled=1.5)
