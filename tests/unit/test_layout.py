"""Named policy state (``core.layout``): offsets laid end to end, sizes for Policy, clear errors,
and a named offset compiling to the same machine code as a literal column number."""

from __future__ import annotations

import re
import sys

import numba
import numpy as np
import pytest

from pagesim.core.layout import Layout, Record, field
from pagesim.core.state import GI_USER
from pagesim.policies.registry import policy_class, policy_names

DEMO = Layout(
    "demo",
    pm=(field("freq", "accesses", "hits"), field("links", "page id", "next and previous", count=2)),
    pf=(field("score", "1", "a score"),),
    gi=(field("list", "list id", "the list"), field("per_type", "pages", "per type", count=2)),
    gf=(field("credit", "1", "per type and kind", shape=(2, 3)), field("p", "pages", "a target")),
)


def test_offsets_are_laid_end_to_end() -> None:
    assert (DEMO.pm.freq, DEMO.pm.links) == (0, 1)
    assert DEMO.pf.score == 0
    assert (DEMO.gi.list, DEMO.gi.per_type) == (GI_USER, GI_USER + 1)
    assert (DEMO.gf.credit, DEMO.gf.p) == (0, 6)


def test_sizes_for_the_policy_class() -> None:
    assert DEMO.int_fields == ("freq", "links[0]", "links[1]")
    assert DEMO.float_fields == ("score",)
    assert (DEMO.int_globals, DEMO.float_globals) == (3, 7)


def test_record_offsets_and_size() -> None:
    rec = Record("sim", field("word", "word", "state words", count=8), field("stamp", "tick", "a stamp"))
    assert (rec.at.word, rec.at.stamp, rec.at.SIZE, rec.size) == (0, 8, 9, 9)


def test_describe_lists_every_field_with_its_unit() -> None:
    text = DEMO.describe()
    for f in ("freq", "links", "score", "list", "per_type", "credit", "p"):
        assert re.search(rf"\b{f}\b", text)
    assert "2x3" in text and f"gi[{GI_USER}]" in text


@pytest.mark.parametrize(
    ("args", "kw", "message"),
    [
        (("1x", "u", "m"), {}, "identifier"),
        (("count", "u", "m"), {}, "identifier"),
        (("ok", "", "m"), {}, "unit and meaning"),
        (("ok", "u", "m"), {"count": 0}, ">= 1"),
        (("ok", "u", "m"), {"count": 2, "shape": (2,)}, "not both"),
    ],
)
def test_bad_fields_are_refused(args: tuple[str, str, str], kw: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        field(*args, **kw)


def test_a_name_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        Layout("x", gi=(field("a", "u", "m"), field("a", "u", "m")))


def _machine_code(expr: str) -> list[str]:
    ns = {"PM": DEMO.pm, "LINKS": 1}
    exec(f"def f(a, p):\n    a[p, {expr}] += 1\n    return a[p, {expr}]\n", ns)  # noqa: S102
    f = numba.njit(ns["f"])
    f(np.zeros((4, 4), dtype=np.int64), 1)
    asm = f.inspect_asm(f.signatures[0])
    lines = [ln for ln in asm.splitlines() if ln.strip() and not ln.strip().startswith((".", "#"))]
    return [re.sub(r"_ZN\S+|\.L\S+", "SYM", ln) for ln in lines]


def test_a_named_offset_compiles_to_the_same_machine_code_as_a_literal() -> None:
    assert _machine_code("PM.links") == _machine_code("LINKS") == _machine_code("1")


def test_every_policy_declaring_a_layout_sizes_its_state_from_it() -> None:
    checked = 0
    for name in policy_names():
        cls = policy_class(name)
        layout = getattr(sys.modules[cls.__module__], "STATE", None)
        if not isinstance(layout, Layout):
            continue
        assert cls.int_fields == layout.int_fields, name
        assert cls.int_globals >= layout.int_globals, name
        assert cls.float_globals >= layout.float_globals, name
        checked += 1
    assert checked >= 1
