"""cache_ext LHD (integer hit densities) by hand.

S = 2^20 is the fixed-point scale. With ``shift = 0`` ages are raw timestamp differences; the
prior density of class c (cache_ext's class 16 + c) at age j is S (17 + c) // (j + 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_policies_sieve import steps

from pagesim.core.state import ACC_LEN, make_state
from pagesim.engine import simulate
from pagesim.policies import ce_lhd as m
from pagesim.policies.ce_lhd import MAX_AGE, SCALE, CeLHD, hit_age_class
from pagesim.trace import Trace


def test_hit_age_class():
    # doublings to reach 16384: 1 -> 14, 5 -> 12 (5 x 4096 = 20480), 6 -> 12, 8192 -> 1;
    # 0 -> 0 and anything >= 16384 -> 0
    assert [hit_age_class(x) for x in (0, 1, 5, 6, 8192, 16384, 99999)] == [0, 14, 12, 12, 1, 0, 0]

    def doublings(x: int) -> int:  # the spec's definition, literally
        if x == 0:
            return 0
        c = 0
        while x < MAX_AGE and c < 15:
            x *= 2
            c += 1
        return c

    assert [hit_age_class(x) for x in range(3 * MAX_AGE)] == [doublings(x) for x in range(3 * MAX_AGE)]


def test_ce_lhd_by_hand():
    # shift 0, sample_size 3 (the whole list is one group), capacity 3, fault_read off (a miss
    # is only ``added``). t = timestamp before the event; LA last access, (LH, LLH) hit ages.
    # #  acc t  event
    # 1  1 m 0  LA1 = 0, (0, 16384): class 0
    # 2  1 h 1  age 1, class 0: hits[0][1] += S; (1, 0), LA1 = 1
    # 3  2 m 2  LA2 = 2          4  3 m 3  LA3 = 3
    # 5  4 m 4  scores: 1: age 3, class(1 + 0) = 14: S 31 // 4 = 8126464
    #                   2: age 2, class 0: S 17 // 3 = 5941930
    #                   3: age 1, class 0: S 17 // 2 = 8912896
    #           -> 2 evicted (LRU would evict 1); evictions[0][2] += S; list 1 3 4, LA4 = 4
    # 6  1 h 5  age 4, class 14: hits[14][4] += S; (4, 1), LA1 = 5
    # 7  2 m 6  scores: 1: age 1, class(4 + 1 = 5) = 12: S 29 // 2 = 15204352
    #                   3: age 3, class 0: S 17 // 4 = 4456448
    #                   4: age 2, class 0: S 17 // 3 = 5941930
    #           -> 3 evicted; evictions[0][3] += S
    # 5 misses (LRU: 6)
    ids = [1, 1, 2, 3, 4, 1, 2]
    misses, resident, run = steps(CeLHD(shift=0, sample_size=3, fault_read=False), ids, 3)
    assert misses == 5
    assert resident == [{1}, {1}, {1, 2}, {1, 2, 3}, {1, 3, 4}, {1, 3, 4}, {1, 2, 4}]
    s = run.state
    hits = s.gi[m.GI.hits : m.GI.hits + m.TABLE].reshape(16, MAX_AGE)
    evs = s.gi[m.GI.evictions : m.GI.evictions + m.TABLE].reshape(16, MAX_AGE)
    assert {(int(c), int(a)) for c, a in zip(*np.nonzero(hits))} == {(0, 1), (14, 4)}
    assert {(int(c), int(a)) for c, a in zip(*np.nonzero(evs))} == {(0, 2), (0, 3)}
    assert int(s.gi[m.GI.time]) == 7 and int(s.gi[m.GI.objects]) == 3
    assert simulate(Trace.from_ids(ids), CeLHD(), 3).misses <= 6


def test_ce_lhd_page_metadata_is_one_packed_word():
    # last access << 18 | last hit age << 4 | class: the fields keep their bits at their largest
    w = m._pack(1 << 40, MAX_AGE - 1, 15)
    assert (w >> m.TIME_SHIFT, m._hit_age_of(w), m._class_of(w)) == (1 << 40, MAX_AGE - 1, 15)
    # the by-hand run above: id 1 (page 0) ends with LA 5, hit ages (4, 1): class(5) = 12; id 4
    # (page 3), added at t = 4 and not read since: LA 4, hit ages (0, 16384): class 0; id 3
    # (page 2) was evicted: all zero
    _, _, run = steps(CeLHD(shift=0, sample_size=3, fault_read=False), [1, 1, 2, 3, 4, 1, 2], 3)
    pm = run.state.pm[:, m.PM.packed]
    assert pm[0] == m._pack(5, 4, 12) and pm[3] == m._pack(4, 0, 0) and pm[2] == 0


def _fresh_state(**params):  # type: ignore[no-untyped-def]
    pol = CeLHD(**params)
    s = make_state(4, **pol.state_shape())
    pol.configure(s, 4)
    m._init(s, np.zeros(ACC_LEN, dtype=np.int64))
    return s


def test_ce_lhd_reconfiguration_model_by_hand():
    # class 3: hits[2] = 10 S, evictions[5] = 20 S; decay x 9/10: 9 S and 18 S.
    # ages from old to young: nothing until a = 5: E = 18 S, H = 0 -> density 0;
    # a = 4, 3: L = 36 S, 54 S, H = 0 -> 0; a = 2: H = 9 S, L = 72 S -> S // 8 = 131072;
    # a = 1: L = 90 S -> S // 10 = 104857; a = 0: L = 108 S -> S // 12 = 87381.
    # Ages with E = 0 (<= 10) get 0; the oldest bucket keeps its 0 (configure's).
    s = _fresh_state()
    s.gi[m.GI.hits + 3 * MAX_AGE + 2] = 10 * SCALE
    s.gi[m.GI.evictions + 3 * MAX_AGE + 5] = 20 * SCALE
    m._reconfigure(s)
    hd = s.gi[m.GI.density : m.GI.density + m.TABLE].reshape(16, MAX_AGE)
    assert hd[3, :6].tolist() == [87381, 104857, 131072, 0, 0, 0]
    assert not hd[:, : MAX_AGE - 1][np.arange(16) != 3].any() and not hd[3, 6 : MAX_AGE - 1].any()
    assert not hd[:, MAX_AGE - 1].any()  # a saturated age scores 0: set by configure, never rewritten
    assert int(s.gi[m.GI.hits + 3 * MAX_AGE + 2]) == 9 * SCALE


def test_ce_lhd_age_coarsening_on_reconfiguration_5():
    # 1000 objects, EWMAs 0, shift 10, 4 reconfigurations done. #5: EWMA objects = 1000 S,
    # mass = S, average 1000; smallest s >= 1 with 2^s x 16384 >= 100 000: s = 3 (131072).
    # The shift shrinks by 7: stretch. hits[0][1] = 128 S decays to 120795955, then buckets
    # 128..255 (a >> 7 == 1) each get 120795955 >> 7 = 943718. EWMAs x 8.
    s = _fresh_state()
    s.gi[m.GI.reconfigs] = 4
    s.gi[m.GI.objects] = 1000
    s.gi[m.GI.hits + 1] = 128 * SCALE
    m._reconfigure(s)
    assert int(s.gi[m.GI.shift]) == 3
    h0 = s.gi[m.GI.hits : m.GI.hits + MAX_AGE]
    assert (h0[128:256] == 943718).all() and not h0[:128].any() and not h0[256:].any()
    assert (int(s.gi[m.GI.ewma_objects]), int(s.gi[m.GI.ewma_mass])) == (8 * 1000 * SCALE, 8 * SCALE)
    # reconfiguration #6 leaves the shift alone
    m._reconfigure(s)
    assert int(s.gi[m.GI.shift]) == 3


def test_ce_lhd_reconfigures_every_period_compiled_equals_interpreted():
    ids = np.random.default_rng(6).zipf(1.2, 1500) % 120
    trace = Trace.from_ids(ids)
    pol = CeLHD(reconfigure_events=100, shift=2)
    compiled = simulate(trace, pol, 20)
    interpreted = simulate(trace, CeLHD(reconfigure_events=100, shift=2), 20, interpreted=True)
    assert compiled.mode == "compiled"
    assert compiled.counters == interpreted.counters
    assert compiled.counters["fallback_evictions"] == 0


def test_ce_lhd_parameters_are_checked():
    with pytest.raises(ValueError, match="sample_size"):
        simulate(Trace.from_ids([1, 2]), CeLHD(sample_size=0), 1)
