"""Switching a cgroup's policy during a kernel-mode run (CAST's ``enabled`` knob).

The seed: "switch CAST off and on at run time ... Each switch passes through the legacy LRU's
lists ... The shadow entries one leaves are taken by the other as no history"; switching it on
while MGLRU is on is refused (EBUSY). pagesim.engine.switch hands every resident page of the
cgroup from one policy to the other, between two accesses.

The trace: 6 rounds of 120 anon pages written and 60 file pages read, on a 100-page node (so
reclaim runs and both types are resident at every switch).
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.core.lists import check_lists
from pagesim.core.state import PROT_NONE
from pagesim.engine.kernel import KernelRun, simulate_kernel
from pagesim.engine.kernel_loop import (
    N,
)
from pagesim.engine.memory import KernelConfig
from pagesim.engine.simulate import simulate
from pagesim.engine.switch import switch_order
from pagesim.policies.cast.knobs import enabled_schedule
from pagesim.policies.cast.policy import CAST
from pagesim.policies.linux_lru import LinuxLRU, lru_lists
from pagesim.policies.mglru import MGLRU
from pagesim.trace import Trace

ANON_T, FILE_T = 0, 1


def _trace(cgroups: int = 1) -> Trace:
    rows: list[tuple[int, int, int]] = []
    for _ in range(6):
        rows += [(i, 1, 1) for i in range(120)]  # anon writes
        rows += [(1000 + i, 0, 0) for i in range(60)]  # file reads
    ids, kind, op = (np.array(c) for c in zip(*rows))
    n = len(rows)
    return Trace.from_ids(
        ids,
        kind=kind.astype(np.uint8),
        op=op.astype(np.uint8),
        tag=np.zeros(n, np.int32),
        cgroup=(np.arange(n) % cgroups).astype(np.int64),
    )


def _config() -> KernelConfig:
    return KernelConfig(memory_pages=100, swap_pages=1000, readahead_pages=1)


def _resident(run: KernelRun, cg: int = 0) -> set[int]:
    s = run.state
    return {int(p) for p in np.flatnonzero((s.resident != 0) & (s.cgroup_of == cg))}


def test_enabled_schedule_reads_the_knob() -> None:
    assert enabled_schedule("1") == [] and enabled_schedule(True) == []
    assert enabled_schedule("0") == [(0, False)] and enabled_schedule(False) == [(0, False)]
    assert enabled_schedule("0@300,1@700") == [(300, False), (700, True)]
    for bad in ("2@5", "0@x", "0@5,1@3", "off@5"):
        with pytest.raises(ValueError, match="enabled"):
            enabled_schedule(bad)
    assert [(at, type(p).__name__ if p else None) for at, p in CAST(enabled="0@300,1@700").switches()] == [
        (300, "LinuxLRU"),
        (700, None),
    ]
    assert CAST(enabled="1@300").switches() == []  # on already: nothing to switch


def test_cast_off_from_the_start_is_the_legacy_lru() -> None:
    """enabled=0: the switch at access 0 finds no page, and linux-lru runs the whole trace:
    every counter equals a plain linux-lru run's (kcompressd, above 0, only while CAST is on)."""
    off = simulate_kernel(_trace(), CAST(enabled="0"), _config())
    lru = simulate_kernel(_trace(), LinuxLRU(), _config())
    assert off.counters == lru.counters
    assert off.counters["pswpin"] > 0 and off.ops == lru.ops


def test_switch_off_and_on_hands_over_every_page_once() -> None:
    run = KernelRun(_trace(), CAST(enabled="0@300,1@700"), _config())
    run.advance(300)
    before = _resident(run)
    order = switch_order(run.state, 0).tolist()
    m_pages = CAST.main(run.state, ANON_T) + CAST.main(run.state, FILE_T)
    assert sorted(order) == sorted(before) and len(order) == len(set(order))
    assert order[: len(m_pages)] == sorted(m_pages)  # M (on no list) first, in page-id order
    run.advance(0)  # the switch is due before the next access
    assert isinstance(run._running[0], LinuxLRU)
    assert _resident(run) == before  # no page lost, none added
    lists = lru_lists(run.state)
    on_lists = [p for pages in lists.values() for p in pages]
    assert sorted(on_lists) == sorted(before)  # each on exactly one of the legacy lists
    assert check_lists(run.state) == 0
    assert not (run.state.resident & PROT_NONE).any()  # CAST's sample hinting ends with it
    assert run.switch_log == [{"access": 300, "cgroup": 0, "to": "linux-lru", "pages": len(before)}]

    run.advance(400)
    before = _resident(run)
    order = switch_order(run.state, 0).tolist()
    run.advance(0)
    assert run._running[0] is run.policies[0]
    s = run.state
    assert _resident(run) == before and check_lists(s) == 0
    w_anon, w_file = CAST.window(s, ANON_T), CAST.window(s, FILE_T)
    assert sorted(w_anon + w_file) == sorted(before)  # a fresh CAST: every page a newcomer in W
    assert CAST.main(s, ANON_T) == [] and CAST.main(s, FILE_T) == []
    assert w_anon[::-1] == [p for p in order if p in set(w_anon)]  # handed over oldest first
    assert w_file[::-1] == [p for p in order if p in set(w_file)]
    run.advance()
    r = run.result()
    assert r.ops == run.n and len(run.switch_log) == 2


def test_m_goes_to_the_active_list_and_w_to_the_inactive() -> None:
    """The seed: M "is the stock active list", W "the stock inactive list" (MGLRU's drain
    likewise sets PG_active on its young generations). At access 100 CAST's M holds 21 anon
    pages and W 15: the legacy LRU gets M on active_anon, W on inactive_anon, each list with
    the pages in the order handed over (oldest at the tail), and no pgactivate is counted."""
    run = KernelRun(_trace(), CAST(enabled="0@100"), _config())
    run.advance(100)
    m_pages = CAST.main(run.state, ANON_T) + CAST.main(run.state, FILE_T)
    w_pages = CAST.window(run.state, ANON_T) + CAST.window(run.state, FILE_T)
    assert (len(m_pages), len(w_pages)) == (21, 15)
    order = switch_order(run.state, 0).tolist()
    activated = run.counters["pgactivate"]
    run.advance(0)
    lists = lru_lists(run.state)
    assert sorted(lists["active_anon"] + lists["active_file"]) == sorted(m_pages)
    assert sorted(lists["inactive_anon"] + lists["inactive_file"]) == sorted(w_pages)
    for name in ("active_anon", "inactive_anon"):
        assert lists[name][::-1] == [p for p in order if p in set(lists[name])]
    assert run.counters["pgactivate"] == activated
    assert check_lists(run.state) == 0


def test_series_reads_enabled() -> None:
    r = simulate_kernel(_trace(), CAST(enabled="0@300,1@700"), _config(), sample_every=100)
    # points at 0, 100, ..., 1000, 1080; a switch happens before the access after its count
    assert r.series["access"][:9] == [0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0]
    assert r.series["enabled"][:9] == [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    assert r.policy == "cast-enabled=0@300,1@700"


def test_series_reads_enabled_0_from_access_0() -> None:
    """enabled=0 (or a schedule starting 0@0): off from the start, so the series reads 0 at
    access 0 and every point after; the switch at 0 is done when the run is built."""
    for knob in ("0", "0@0,1@700"):
        r = simulate_kernel(_trace(), CAST(enabled=knob), _config(), sample_every=100)
        assert r.series["access"][:2] == [0.0, 100.0]
        want = [0.0] * 8 + [1.0] * 3 if knob != "0" else [0.0] * 11
        assert r.series["enabled"][:11] == want, knob
    run = KernelRun(_trace(), CAST(enabled="0"), _config())
    assert isinstance(run._running[0], LinuxLRU) and run.switch_log[0]["access"] == 0


def test_kcompressd_sign_while_off() -> None:
    """kcompressd above 0 runs only while CAST is on, below 0 whatever runs (the seed)."""
    for knob, off_depth in ((24, 0), (-24, 24)):
        run = KernelRun(_trace(), CAST(enabled="0@100,1@200", kcompressd=knob), _config())
        assert run.framework.node[N.kc_depth] == 24
        run.advance(100)
        run.advance(0)
        assert run.framework.node[N.kc_depth] == off_depth
        run.advance(100)
        run.advance(0)
        assert run.framework.node[N.kc_depth] == 24


def test_refused_with_mglru_and_outside_kernel_mode() -> None:
    with pytest.raises(ValueError, match="EBUSY"):
        KernelRun(_trace(cgroups=2), [CAST(), MGLRU()], _config())
    with pytest.raises(ValueError, match="kernel mode"):
        simulate(_trace(), CAST(enabled="0@10"), 50)
