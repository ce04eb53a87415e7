"""Named policy state: one declaration says what a policy keeps; its offsets are derived.

A policy's state lives in four arrays of :class:`~pagesim.core.state.State`: ``pm`` (per-page
int64, one row per page), ``pf`` (per-page float64), ``gi`` (int64 globals, the policy's from
``GI_USER``) and ``gf`` (float64 globals). A policy declares its fields once, in order, each with
a name, a unit and a meaning; :class:`Layout` lays them end to end and gives each array a
namespace of offsets, reached by name::

    STATE = Layout(
        "s3fifo",
        pm=(field("freq", "accesses", "accesses since insertion, capped at 3"),),
        gi=(
            field("small", "list id", "the small FIFO S"),
            field("ghost", "page id", "shadow FIFO: head, tail, length", count=3),
        ),
    )
    PM, GI = STATE.pm, STATE.gi

    s.pm[p, PM.freq] += 1          # per-page field of page p
    s.gi[GI.small]                 # a global
    s.gi[GI.ghost + 2]             # slot 2 of a field of three

The namespaces are named tuples of ints. Numba freezes a global tuple as a constant, so
``PM.freq`` compiles to the same machine code as a literal column number (no cost in speed or
compile time; tests/unit/test_layout.py checks the machine code). Which array a name belongs
to is in its namespace (``PM``/``PF``/``GI``/``GF``), so a per-page column and a global slot never
share a prefix.

A field of ``count`` > 1 (or a ``shape``) holds that many consecutive slots (per page: columns);
the name is the first. :class:`Record` lays out the slots of a block that is repeated (CAST's
simulated caches): its namespace holds offsets from the block's start and ``SIZE``.

The Policy class takes its sizes from the layout (``int_fields = STATE.int_fields`` and so on),
so the declaration is the one place that says what the policy keeps; :meth:`Layout.describe`
prints it.
"""

from __future__ import annotations

import keyword
import math
import re
from collections import namedtuple
from dataclasses import dataclass
from typing import Any

from pagesim.core.state import GI_USER

#: names a field may not take: the named tuple's own attributes, and ``SIZE`` (a record's size)
_RESERVED = frozenset({"count", "index", "SIZE"})


@dataclass(frozen=True)
class Field:
    """One named field of a policy's state.

    Attributes
    ----------
    name : str
        A Python identifier, unique within its array.
    unit : str
        What one slot counts or holds: ``"pages"``, ``"ns"``, ``"list id"``, ``"page id"``,
        ``"flag"`` (0/1), ``"permille"``, ...
    meaning : str
        One sentence: what the field is, and its convention for "none" (``-1``) if any.
    shape : tuple of int
        Slots the field holds, laid out C-order (``(2,)``: one per type; ``()``: one slot).
    """

    name: str
    unit: str
    meaning: str
    shape: tuple[int, ...] = ()

    @property
    def size(self) -> int:
        """Slots (per page: columns) the field takes."""
        return math.prod(self.shape)


def field(name: str, unit: str, meaning: str, count: int | None = None, shape: tuple[int, ...] = ()) -> Field:
    """Declare a field: ``count`` slots (or a ``shape``), one by default.

    Raises
    ------
    ValueError
        If the name is not an identifier or is reserved, the unit or meaning is empty, or a
        size is below 1.
    """
    if count is not None:
        if shape:
            raise ValueError(f"field {name!r}: give count or shape, not both")
        shape = (int(count),)
    shape = tuple(int(n) for n in shape)
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_") or name in _RESERVED:
        raise ValueError(f"field name {name!r} is not a usable identifier")
    if not unit.strip() or not meaning.strip():
        raise ValueError(f"field {name!r}: give its unit and meaning")
    if any(n < 1 for n in shape):
        raise ValueError(f"field {name!r}: sizes must be >= 1, got {shape}")
    return Field(name, unit, meaning, shape)


def _offsets(kind: str, fields: tuple[Field, ...], start: int, extra: dict[str, int] | None = None) -> Any:
    """A named tuple of each field's first slot, the fields laid end to end from ``start``."""
    names = [f.name for f in fields]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"{kind}: field {', '.join(dup)} declared twice")
    values, at = [], start
    for f in fields:
        values.append(at)
        at += f.size
    extra = extra or {}
    cls = namedtuple("L_" + re.sub(r"\W", "_", kind), [*names, *extra])  # type: ignore[misc]  # noqa: PYI024
    return cls(*values, *extra.values())


class Record:
    """The slots of a block laid out repeatedly (in ``gi`` or ``gf``): offsets from its start.

    ``Record("sim", field(...), ...)`` has ``.at`` (a named tuple of offsets, plus ``SIZE``, the
    block's slots), ``.size`` and ``.fields``.
    """

    def __init__(self, name: str, *fields: Field) -> None:
        self.name = name
        self.fields = tuple(fields)
        self.size = sum(f.size for f in self.fields)
        self.at = _offsets(name, self.fields, 0, {"SIZE": self.size})


class Layout:
    """A policy's state declaration: its per-page and global fields, in order.

    Parameters
    ----------
    name : str
        The policy (for messages and :meth:`describe`).
    pm, pf : sequence of Field
        Per-page int64 (``s.pm`` columns) and float64 (``s.pf`` columns) fields.
    gi, gf : sequence of Field
        Int64 globals (``s.gi`` slots from ``GI_USER``) and float64 globals (``s.gf`` from 0).

    Attributes
    ----------
    pm, pf, gi, gf : named tuple of int
        Each field's first slot in its array (``gi`` offsets include ``GI_USER``).
    int_fields, float_fields : tuple of str
        One name per ``pm`` / ``pf`` column, for :class:`~pagesim.policies.base.Policy`
        (a field of n slots gives ``name[0]`` .. ``name[n-1]``).
    int_globals, float_globals : int
        Global slots the policy needs beyond ``GI_USER`` (int) and from 0 (float).

    Raises
    ------
    ValueError
        If a name is declared twice in one array.
    """

    def __init__(
        self,
        name: str,
        pm: tuple[Field, ...] = (),
        pf: tuple[Field, ...] = (),
        gi: tuple[Field, ...] = (),
        gf: tuple[Field, ...] = (),
    ) -> None:
        self.name = name
        self.fields = {"pm": tuple(pm), "pf": tuple(pf), "gi": tuple(gi), "gf": tuple(gf)}
        self.pm = _offsets(f"{name}_pm", self.fields["pm"], 0)
        self.pf = _offsets(f"{name}_pf", self.fields["pf"], 0)
        self.gi = _offsets(f"{name}_gi", self.fields["gi"], GI_USER)
        self.gf = _offsets(f"{name}_gf", self.fields["gf"], 0)
        self.int_fields = _column_names(self.fields["pm"])
        self.float_fields = _column_names(self.fields["pf"])
        self.int_globals = sum(f.size for f in self.fields["gi"])
        self.float_globals = sum(f.size for f in self.fields["gf"])

    def describe(self) -> str:
        """The declaration as a table: array, first slot, shape, name, unit, meaning."""
        lines = [f"{self.name}: state"]
        for kind, fields in self.fields.items():
            at = GI_USER if kind == "gi" else 0
            for f in fields:
                shape = "x".join(map(str, f.shape)) or "1"
                lines.append(f"  {kind + f'[{at}]':<12} {shape:>9}  {f.name:<14} {f.unit:<12} {f.meaning}")
                at += f.size
        return "\n".join(lines)


def _column_names(fields: tuple[Field, ...]) -> tuple[str, ...]:
    names: list[str] = []
    for f in fields:
        names.extend([f.name] if f.shape == () else [f"{f.name}[{i}]" for i in range(f.size)])
    return tuple(names)
