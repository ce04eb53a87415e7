"""CAST's state word, gap classes, key and shadow entries, worked by hand (core.py).

Every function is called as plain Python (``py_func``) and compiled; both must agree.
"""

from __future__ import annotations

import math

import pytest

from pagesim.policies.cast import core as C


def _both(name: str, *args: int) -> int:
    f = getattr(C, name)
    py = f.py_func(*args)
    jit = f(*args)
    assert py == jit, f"{name}{args}: plain {py} != compiled {jit}"
    return int(py)


def test_word_packing_round_trip() -> None:
    """Tick 4095, g1 class 15, g2 class 7, tag 9, count 200: each field in its bits."""
    w = _both("pack", 4095, 15, 7, 9, 200)
    assert w == (4095 << 20) | (7 << 16) | (15 << 12) | (9 << 8) | 200
    assert w <= 0xFFFFFFFF  # 32 bits
    assert _both("word_tick", w) == 4095
    assert _both("word_g1", w) == 15
    assert _both("word_g2", w) == 7
    assert _both("word_tag", w) == 9
    assert _both("word_count", w) == 200
    # the tag is replaced by a plain store of the new word; the rest is untouched
    w2 = _both("with_tag", w, 3)
    assert _both("word_tag", w2) == 3 and (w2 ^ w) == ((9 ^ 3) << 8)
    # the tick is kept modulo 4096
    assert _both("word_tick", _both("pack", 4096 + 17, 0, 0, 0, 1)) == 17


GAPS = [(0, 0), (1, 1), (2, 2), (3, 2), (4, 3), (7, 3), (8, 4), (2**13, 14), (2**14, 15), (10**6, 15)]


@pytest.mark.parametrize(("gap", "cls"), GAPS)
def test_gap_class_is_the_bit_length(gap: int, cls: int) -> None:
    assert _both("gap_class", gap) == cls
    if cls:
        assert C.gap_ticks.py_func(cls) <= gap < 2 * C.gap_ticks.py_func(cls) or cls == 15


def test_reads_shift_the_gaps_and_count() -> None:
    """Taken in at tick 5 (a fault: one read), read at 7 and at 15: T 15, g1 = class(8) = 4,
    g2 = class(2) = 2, count 3."""
    w = _both("new_word", 5, 1)
    w = _both("read_word", w, 7)
    assert (_both("word_tick", w), _both("word_g1", w), _both("word_count", w)) == (7, 2, 2)
    w = _both("read_word", w, 15)
    assert (_both("word_tick", w), _both("word_g1", w), _both("word_g2", w), _both("word_count", w)) == (
        15,
        4,
        2,
        3,
    )
    # a readahead page (count 0) read for the first time: count 1, T = now, no gap yet
    r = _both("read_word", _both("new_word", 3, 0), 9)
    assert (_both("word_tick", r), _both("word_count", r), _both("word_g1", r)) == (9, 1, 0)
    # the gap is measured across the tick field's wrap
    x = _both("read_word", _both("pack", 4094, 0, 0, 0, 1), 4096 + 2)
    assert _both("word_g1", x) == _both("gap_class", 4)


def test_count_saturates_at_255() -> None:
    w = _both("pack", 1, 0, 0, 0, 255)
    assert _both("word_count", _both("read_word", w, 1)) == 255


def test_key_of_a_page_read_three_times() -> None:
    """Reads at ticks 3, 7, 15, decay 8: H = 2^(10-8) = 4 ticks. g1 = 8 ticks (class 4 reads
    back as 2^3 = 8), g2 = 4 ticks (class 3: 2^2). S = 1 + 2^(-8/4) + 2^(-8/4) 2^(-4/4)
    = 1 + 0.25 + 0.125 = 1.375. key = floor(16 (15/4 + log2 1.375)) = floor(60 + 7.3509) = 67."""
    w = _both("new_word", 3, 1)
    w = _both("read_word", w, 7)
    w = _both("read_word", w, 15)
    assert C.score.py_func(w, 8) == pytest.approx(1.375)
    assert C.score(w, 8) == pytest.approx(1.375)
    assert 16 * (15 / 4 + math.log2(1.375)) == pytest.approx(67.3509, abs=1e-4)
    assert _both("key_of", w, 15, 8) == 67
    # later, with no read, the key is the same: only a read changes it
    assert _both("key_of", w, 40, 8) == 67


def test_key_with_the_geometric_tail() -> None:
    """Five reads two ticks apart, decay 10 (H = 1 tick), last at tick 20: the word knows three;
    the two before are taken at the mean gap: S = 1 + 1/4 + 1/16 + 1/64 + 1/256 = 1.33203125
    (exactly the five reads). key = floor(16 * 20 + 16 log2 1.33203125) = floor(320 + 6.617) = 326."""
    w = _both("new_word", 12, 1)
    for t in (14, 16, 18, 20):
        w = _both("read_word", w, t)
    assert _both("word_count", w) == 5
    assert C.score.py_func(w, 10) == pytest.approx(1 + 1 / 4 + 1 / 16 + 1 / 64 + 1 / 256)
    assert _both("key_of", w, 20, 10) == 326


def test_without_decay_between_reads_the_score_is_the_count() -> None:
    """Four reads in one tick (gaps 0): S = 4, log2 4 = 2 half-lives = 32 steps; at tick 8 with
    decay 8 (H = 4), 16 * 8 / 4 = 32: key 64. Decay 1 (H = 512 ticks): 16 * 8 / 512 = 0.25, key 32."""
    w = _both("new_word", 8, 1)
    for _ in range(3):
        w = _both("read_word", w, 8)
    assert C.score.py_func(w, 8) == 4.0
    assert _both("key_of", w, 8, 8) == 64
    assert _both("key_of", w, 8, 1) == 32


def test_unread_page_ranks_lowest_and_one_read_is_recency() -> None:
    assert _both("key_of", _both("new_word", 100, 0), 100, 8) == C.KEY_UNREAD
    # read once at tick 10, decay 14 (H = 1/16 tick): 16 * 10 * 16 = 2560
    assert _both("key_of", _both("new_word", 10, 1), 10, 14) == 2560
    # decay 1: 16 * 10 / 512 = 0.3125 -> 0
    assert _both("key_of", _both("new_word", 10, 1), 10, 1) == 0


def test_old_ticks_are_clamped_and_shadows_keep_history() -> None:
    """A word read at tick 10 is 2100 ticks old at 2110: clamped to 2048 (T = 62). A shadow entry
    keeps the last read whole: restored 100 ticks later it is 100 ticks old; restored 5000 ticks
    later (beyond the tick field) it is 2048 old, with its gaps and count."""
    w = _both("read_word", _both("new_word", 6, 1), 10)
    assert _both("word_tick", _both("clamp_word", w, 2110)) == 62
    assert _both("clamp_word", w, 2000) == w
    tagged = _both("with_tag", w, 5)
    sh = _both("to_shadow", tagged, 20)
    assert sh & C.SHADOW_MARK
    back = _both("from_shadow", sh, 110)
    assert _both("word_tag", back) == 0
    assert _both("last_read", back, 110) == 10
    assert (_both("word_count", back), _both("word_g1", back)) == (2, _both("gap_class", 4))
    far = _both("from_shadow", sh, 5010)
    assert _both("last_read", far, 5010) == 5010 - 2048
    assert _both("from_shadow", 0, 50) == 0


def test_tie_ranks() -> None:
    """Read once: the sweep's order; read more: 2^40 + hash of the frame, the same every time."""
    once = _both("new_word", 1, 1)
    twice = _both("read_word", once, 2)
    assert _both("rank_tb", once, 77, 5) == 5
    assert _both("rank_tb", twice, 77, 5) == (1 << 40) | ((77 * 2654435761) & 0xFFFFFFFF)
    assert _both("rank_tb", once, 77, 10**9) < C.TB_NEWCOMER < _both("rank_tb", twice, 0, 0)
