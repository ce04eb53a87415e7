"""CAST in cache mode, worked by hand: the clock of pressure, W against M, a loop over memory.

Cache mode's memory is the capacity, so a tick is ``max(1, capacity // 4)`` pages taken in.
Every run is compiled; the W-vs-M case is also run as plain Python and must agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.cli._params import configure_policies, parse_sets
from pagesim.core.state import ANON, GI_SWAPPINESS, RESIDENT, make_state
from pagesim.engine import simulate
from pagesim.engine.simulate import Run
from pagesim.policies import make_policy
from pagesim.policies.cast.core import new_word, word_count, word_tick
from pagesim.policies.cast.layout import (
    GI,
    PM,
)
from pagesim.policies.cast.policy import CAST
from pagesim.trace import Trace


def _resident(run: Run) -> list[int]:
    return sorted(int(run.trace.original_id[p]) for p in np.flatnonzero(run.state.resident))


def _page(run: Run, source_id: int) -> int:
    return int(np.flatnonzero(run.trace.original_id == source_id)[0])


def test_clock_ticks_every_quarter_of_memory_and_not_without_intake() -> None:
    """Capacity 8: a tick every 2 pages taken in. Pages 0..7 come in: the intake is counted
    before a page's read is stamped, so page 0 is read at tick 0, pages 1 and 2 at tick 1,
    3 and 4 at 2, 5 and 6 at 3, page 7 at 4. Then 100 hits: nothing comes in, nothing ages
    (tick 4, words of the pages read now at tick 4). Pages 8 and 9 (two misses, two
    evictions) make the tick 5."""
    ids = list(range(8)) + [i % 8 for i in range(100)] + [8, 9]
    run = Run(Trace.from_ids(np.array(ids)), make_policy("cast"), 8)
    pol, s = run.policies[0], run.state
    run.advance(8)
    assert pol.readouts(s)["clock_tick"] == 4 and pol.readouts(s)["clock_in"] == 8
    ticks = [int(word_tick.py_func(int(s.pm[_page(run, i), PM.word]))) for i in range(8)]
    assert ticks == [0, 1, 1, 2, 2, 3, 3, 4]
    run.advance(100)
    r = pol.readouts(s)
    assert r["clock_tick"] == 4 and r["clock_in"] == 8
    words = [int(s.pm[_page(run, i), PM.word]) for i in range(8)]
    assert {int(word_tick.py_func(w)) for w in words} == {4}
    assert [int(word_count.py_func(w)) for w in words] == [14, 14, 14, 14, 13, 13, 13, 13]
    run.advance(1)
    assert pol.readouts(s)["clock_tick"] == 4
    run.advance(1)
    r = pol.readouts(s)
    assert r["clock_tick"] == 5 and r["clock_in"] == 10 and r["clock_evicted"] == 2


A, B, C, D = 100, 101, 102, 103
STREAM = [200 + i for i in range(6)]
WM_TRACE = [A, B, A, B, C, D, *STREAM, A, B]


@pytest.mark.parametrize("interpreted", [False, True])
def test_a_stream_read_once_loses_to_a_working_set_read_twice(interpreted: bool) -> None:
    """Capacity 4, W's share 250 permille (one page), decay 1 (H = 512 ticks: keys 16 E/512 +
    16 log2 S), a tick per page taken in. A (tick 1) and B (tick 2) are read twice (A at tick
    2: gap 1, S = 1 + 2^(-1/512); B in its own tick: S = 2): keys floor(2/32 + 15.98) = 16 and
    floor(2/32 + 16) = 16. C (tick 3) and D (tick 4) are read once: keys 0.

    The stream's first page S1 finds memory full, W = [D, C, B, A] (newest first), M empty.
    W is over its share by 4 - 1 = 3 pages, one more than the call frees: A and B join M
    unopposed (oldest first). W's tail C (key 0) then meets M's lowest (16): C goes. From
    then on every newcomer lands in W, which is over its share by one, and W's tail, a page
    read once (key 0), meets 16: D, S1, S2, S3, S4 go in turn. A and B are hits at the end.
    (LRU would have evicted A and B to S1 and S2.)"""
    run = Run(
        Trace.from_ids(np.array(WM_TRACE)),
        make_policy("cast", decay=1, w_permille=250),
        4,
        interpreted=interpreted,
    )
    pol, s = run.policies[0], run.state
    run.advance(6)
    assert _resident(run) == [A, B, C, D]
    assert [pol.key(s, _page(run, x)) for x in (A, B, C, D)] == [16, 16, 0, 0]
    expected_gone = [C, D, *STREAM[:4]]
    for i in range(len(STREAM)):
        run.advance(1)
        assert _resident(run) == sorted([A, B, *STREAM[max(0, i - 1) : i + 1]] + ([D] if i == 0 else []))
        assert expected_gone[i] not in _resident(run)
        pol.check_invariants(s)
    assert sorted(pol.main(s)) == sorted(_page(run, x) for x in (A, B))
    run.advance(2)
    c = run.counters
    assert c["hits"] == 4 and c["misses"] == 10 and c["evictions"] == 6
    lru = simulate(Trace.from_ids(np.array(WM_TRACE)), make_policy("lru"), 4).counters
    assert lru["hits"] == 2


def test_a_loop_larger_than_memory_keeps_the_same_part_pass_after_pass() -> None:
    """Pages 0..11 read in turn, 30 times, in 8 pages, decay 1, refaults as newcomers
    (``history=False``: Choice 6's other reading, a refault gets no history). After the first pass W holds
    one page and M seven; a page that comes back is a newcomer read once (key below any page
    of M read twice), so it meets M's lowest and loses: M keeps the same seven pages, and
    the resident set at the end of every pass is the same; at least 5 of 12 reads hit
    in every pass after the first. LRU hits nothing."""
    L, cap, passes = 12, 8, 30
    ids = np.tile(np.arange(L), passes)
    run = Run(Trace.from_ids(ids), make_policy("cast", decay=1, history=False), cap)
    pol, s = run.policies[0], run.state
    sets = []
    hits = []
    prev = 0
    for _ in range(passes):
        run.advance(L)
        pol.check_invariants(s)
        sets.append(_resident(run))
        hits.append(run.counters["hits"] - prev)
        prev = run.counters["hits"]
    assert all(x == sets[1] for x in sets[1:]), "the resident set moved between passes"
    assert len(pol.main(s)) == 7
    assert min(hits[1:]) >= 5  # of 12: the seven of M, less the odd one of M read once
    assert simulate(Trace.from_ids(ids), make_policy("lru"), cap).counters["hits"] == 0


def _configured(**params: object):  # type: ignore[no-untyped-def]
    pol = make_policy("cast", **params)
    s = make_state(16, 1, **pol.state_shape())
    s.gi[GI_SWAPPINESS] = 60
    pol.configure(s, 16)
    return pol, s


def test_decay_and_w_permille_per_type_as_the_seed_knobs() -> None:
    """One value sets both types (pagesim's form, kept); two set anon then file; a named type
    sets that type alone (the other where it starts: decay 8, W 100 permille); any stops
    decay_auto. Each type's key uses its own decay: a page read once at tick 64, now 64, has
    key 16 * 64 / H with H = 2^(10 - le) ticks: 64 * 2^(le - 6) = 64 at le 6 (anon), 256 at
    le 8 (file)."""
    pol, s = _configured(decay="6 8", w_permille="file 300")
    r = pol.readouts(s)
    assert (r["decay_anon"], r["decay_file"]) == (6, 8)
    assert (r["w_permille_anon"], r["w_permille_file"]) == (100, 300)
    assert r["decay_auto"] == 0
    assert pol.label() == "cast-decay=6 8-w_permille=file 300"
    text = pol.describe(s)
    assert "\nanon decay 6 w_permille 100 " in text and "\nfile decay 8 w_permille 300 " in text
    s.gi[GI.now] = 64
    s.resident[0] = RESIDENT | ANON
    s.resident[1] = RESIDENT
    s.pm[0, PM.word] = s.pm[1, PM.word] = new_word.py_func(64, 1)
    assert (CAST.key(s, 0), CAST.key(s, 1)) == (64, 256)
    pol, s = _configured(decay=6)
    r = pol.readouts(s)
    assert (r["decay_anon"], r["decay_file"], r["decay_auto"]) == (6, 6, 0)
    pol, s = _configured()
    assert pol.readouts(s)["decay_auto"] == 1 and pol.label() == "cast"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("measured", "measured"),
        ("6", 6),
        ("6 6", 6),
        ("6,8", "6 8"),
        ("anon 6 file 8", "6 8"),
        ((6, 8), "6 8"),
        ("anon=9", "anon 9"),
    ],
)
def test_per_type_knob_forms_read_to_one_canonical_value(value: object, expected: object) -> None:
    assert make_policy("cast", decay=value).values["decay"] == expected


@pytest.mark.parametrize("value", ["0 8", "15", "6 7 8", "anon 6 anon 7", "fast", "file"])
def test_per_type_knob_refuses_what_it_cannot_read(value: str) -> None:
    with pytest.raises(ValueError, match="cast: .*decay"):
        make_policy("cast", decay=value)


@pytest.mark.parametrize("value", [0, "0", "-1", "15", "0 8", "6 0", "file 0", "anon 15"])
def test_decay_has_no_level_0_and_names_the_range_and_decay_auto(value: object) -> None:
    """The seed's levels are 1..14 and its automatic decay is ``decay_auto=1``: 0 is no level
    (it once meant "automatic" here), so it is refused like any value outside 1..14, per type
    too, in one line naming the range and decay_auto=1."""
    with pytest.raises(ValueError, match=r"decay must be within 1\.\.14 .*decay_auto=1") as err:
        make_policy("cast", decay=value)
    assert "\n" not in str(err.value)


def test_decay_default_is_measured_and_automatic() -> None:
    """Unset (or written as the default, ``measured``) the decay is the controllers': both
    types start at 8 with decay_auto on, and the label stays plain ``cast``."""
    for pol, s in (_configured(), _configured(decay="measured")):
        r = pol.readouts(s)
        assert (r["decay_anon"], r["decay_file"], r["decay_auto"]) == (8, 8, 1)
        assert pol.label() == "cast"


def test_w_permille_default_is_measured_and_minus_one_reads_so() -> None:
    """W's share, unset, written ``measured`` or in the earlier spelling -1, is the controller's:
    both types start at 100 permille with decay_auto on, and the label stays plain ``cast``."""
    assert CAST.params["w_permille"] == "measured"
    for pol, s in (_configured(), _configured(w_permille="measured"), _configured(w_permille=-1)):
        r = pol.readouts(s)
        assert (r["w_permille_anon"], r["w_permille_file"], r["decay_auto"]) == (100, 100, 1)
        assert pol.label() == "cast"
    pol, s = _configured(w_permille="0")
    assert (pol.readouts(s)["w_permille_anon"], pol.readouts(s)["decay_auto"]) == (0, 0)


def test_per_type_knobs_from_the_command_line() -> None:
    """``--set cast.decay=6 8`` reaches the policy as its text (CAST reads it), ``--set
    cast.decay=6`` as before; a bad value is refused with the forms it takes."""
    (pol,) = configure_policies([CAST], parse_sets(["cast.decay=6 8", "cast.w_permille=200"]))
    assert isinstance(pol, CAST) and pol.values["decay"] == "6 8" and pol.values["w_permille"] == 200
    (pol,) = configure_policies([CAST], parse_sets(["cast.decay=6"]))
    assert pol.label() == "cast-decay=6"
    with pytest.raises(ValueError, match="two for anon then file"):
        configure_policies([CAST], parse_sets(["cast.decay=fast"]))
