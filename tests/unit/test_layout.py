"""Named policy state (``core.layout``): offsets laid end to end, sizes for Policy, clear errors,
and a named offset compiling to the same machine code as a literal column number."""

from __future__ import annotations

import re
import sys
from pathlib import Path

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


def test_every_built_in_policy_sizes_its_state_from_its_declaration() -> None:
    for name in policy_names():
        cls = policy_class(name)
        layout = getattr(sys.modules[cls.__module__], "STATE", None)
        assert isinstance(layout, Layout), f"{name}: no STATE = Layout(...) in {cls.__module__}"
        assert cls.int_fields == layout.int_fields, name
        assert (cls.int_globals, cls.float_globals) >= (layout.int_globals, layout.float_globals), name


def test_no_policy_module_lays_out_globals_by_hand() -> None:
    """Offsets come from declarations: no ``NAME = GI_USER + k`` in the policies' sources."""
    root = Path(__file__).resolve().parents[2] / "src" / "pagesim" / "policies"
    by_hand = [
        f"{path.relative_to(root)}:{i}"
        for path in sorted(root.rglob("*.py"))
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if re.match(r"^[A-Z_][A-Z0-9_]* = GI_USER( \+ \d+)?\s*(#.*)?$", line)
    ]
    assert not by_hand, by_hand


def test_kernel_mode_slots_come_from_declarations() -> None:
    """Kernel mode's node scalars, float totals and readahead slots are declared (``NODE``,
    ``FLOATS``, ``READAHEAD``), each with a unit, not numbered by hand."""
    from pagesim.engine.kmode import framework

    source = Path(framework.__file__).read_text()
    by_hand = re.findall(r"^(?:N|F|RA)_[A-Z0-9_]+ = \d+", source, re.M)
    assert by_hand == ["N_LAT_BUCKETS = 64"], by_hand  # a histogram's size, not a slot
    for record, ns in (
        (framework.NODE, framework.N),
        (framework.FLOATS, framework.F),
        (framework.READAHEAD, framework.RA),
    ):
        assert ns.SIZE == record.size == len(record.fields)
        assert [getattr(ns, f.name) for f in record.fields] == list(range(record.size))
        assert all(f.unit and f.meaning for f in record.fields)


@pytest.mark.parametrize("name", ["arc", "car"])
def test_two_shadow_lists_are_one_declared_pair_of_headers(name: str) -> None:
    """B1's and B2's headers are one field of ``core.shadow.SHADOW_PAIR``'s size (not six fields
    passed by the first one's offset), and each header's slots are SHADOW_HEADER's."""
    from pagesim.core.shadow import PAIR_B1, PAIR_B2, PAIR_SIZE, SH_HEAD, SH_LEN, SH_SIZE, SH_TAIL

    assert (PAIR_B1, PAIR_B2, PAIR_SIZE) == (0, SH_SIZE, 2 * SH_SIZE)
    assert sorted((SH_HEAD, SH_TAIL, SH_LEN)) == list(range(SH_SIZE))
    mod = sys.modules[policy_class(name).__module__]
    fields = {f.name: f for f in mod.STATE.fields["gi"]}
    assert fields["shadows"].size == PAIR_SIZE
    assert not [n for n in fields if re.match(r"b[12]", n)], sorted(fields)
    assert (mod.H_B1, mod.H_B2) == (mod.GI.shadows + PAIR_B1, mod.GI.shadows + PAIR_B2)


def test_the_cache_loops_cfg_slots_come_from_a_declaration() -> None:
    """engine/loop.py's ``CFG_*`` slots are read off the ``CACHE_CONFIG`` record (each with a unit
    and a meaning), not numbered by hand, and no two share a slot."""
    from pagesim.engine import loop

    source = (Path(loop.__file__)).read_text()
    assert not re.findall(r"^CFG_[A-Z_]+ = \d+", source, flags=re.M)
    slots = {n: getattr(loop, n) for n in dir(loop) if n.startswith("CFG_") and n != "CFG_LEN"}
    assert sorted(slots.values()) == sorted(set(slots.values()))
    assert max(slots.values()) < loop.CFG_LEN == loop.CACHE_CONFIG.SIZE
