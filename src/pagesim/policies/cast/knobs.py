"""CAST's knobs as text: per-type values (``decay``, ``w_permille``), the ``enabled`` schedule,
``prefetch``'s two distances, and ``version``.

:func:`per_type_knob` reads one value for both types (``6``), two for anon then file (``6 8``),
or per type by name (``anon 6 file 8``); :func:`enabled_schedule` reads ``1``, ``0`` or
``STATE@ACCESSES,...``. Bad text raises ``ValueError`` naming the syntax.
"""

from __future__ import annotations

import re
from typing import Any

VERSION = "0.2.6"  #: the seed's ``version`` knob (read-only): the release the model follows
PREFETCH_AUTO = "by CPU"  #: prefetch's default: the distances the CPU's miss buffers allow
PREFETCH_SYNTAX = "'by CPU', or two distances >= 0, toward L3 then toward L1 (e.g. '8 2'; '0 0' none)"

ENABLED_SYNTAX = "1, 0, or a schedule STATE@ACCESSES,... (e.g. 0@100000,1@200000)"


PER_TYPE_SYNTAX = (
    "one value for both types (6), two for anon then file (6 8), or per type by name "
    "(anon 6, file 8, anon 6 file 8)"
)
_TYPE_NAMES = ("anon", "file")


#: ``decay``'s default, the seed's "measured": no level set by hand (the seed has no level 0).
DECAY_MEASURED = "measured"
W_MEASURED = "measured"  #: w_permille's default: the controller sets W's share (-1 is read so too)
DECAY_HINT = " (no level 0; for the automatic decay leave it unset: decay_auto=1)"


def _knob_int(name: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"cast: cannot read {name}={text!r}; give {PER_TYPE_SYNTAX}") from None


def per_type_knob(
    name: str, value: Any, lo: int, hi: int, unset: int | str, hint: str = ""
) -> tuple[int | None, int | None]:
    """A per-type knob (``decay``, ``w_permille``) as (anon, file); None = not set by hand.

    The seed's knobs are per type; a write of one value sets both, as pagesim's did, and of two
    values anon's then file's, space-separated as the seed's two-value ``prefetch`` knob
    (``0 0``); commas work too (``6,8``), and a type may be named (``file 8``: anon not set).

    Parameters
    ----------
    name : str
        The knob, for messages.
    value : int, str, or a pair of int
        ``unset`` (both measured), a value within ``lo..hi`` (both), or the per-type forms above.
    lo, hi : int
        The range of a value set by hand.
    unset : int or str
        The single value meaning "measured" (decay ``"measured"``, w_permille ``"measured"``).
    hint : str
        Added to the out-of-range message (decay: where the automatic decay is).

    Returns
    -------
    (int or None, int or None)

    Raises
    ------
    ValueError
        If the text is none of those forms, a type is named twice, or a value is out of range.
    """
    if isinstance(value, bool):
        raise ValueError(f"cast: {name} takes numbers, got {value!r}")
    if isinstance(value, (tuple, list)):
        items = [str(v) for v in value]
    else:
        items = [t for t in re.split(r"[\s,=:]+", str(value).strip()) if t]
    if len(items) == 1 and items[0].lower() == str(unset):
        return None, None
    out: list[int | None] = [None, None]
    if all(re.fullmatch(r"-?[0-9]+", t) for t in items) and len(items) in (1, 2):
        vals = [_knob_int(name, t) for t in items]
        out = [vals[0], vals[-1]]
    elif len(items) in (2, 4) and all(t.lower() in _TYPE_NAMES for t in items[::2]):
        for kind, text in zip(items[::2], items[1::2]):
            t = _TYPE_NAMES.index(kind.lower())
            if out[t] is not None:
                raise ValueError(f"cast: {name}={value!r} names {kind} twice")
            out[t] = _knob_int(name, text)
    else:
        raise ValueError(f"cast: cannot read {name}={value!r}; give {PER_TYPE_SYNTAX}")
    for v in out:
        if v is not None and not lo <= v <= hi:
            raise ValueError(f"cast: {name} must be within {lo}..{hi} per type{hint}, got {value!r}")
    return out[0], out[1]


def _knob_text(anon: int | None, file: int | None, unset: int | str) -> int | str:
    """The canonical value of a per-type knob: an int when both types agree, else the text."""
    if anon == file:
        return unset if anon is None else anon
    if anon is None or file is None:
        return f"{_TYPE_NAMES[0 if file is None else 1]} {anon if file is None else file}"
    return f"{anon} {file}"


def enabled_schedule(value: Any) -> list[tuple[int, bool]]:
    """The ``enabled`` knob as ``[(at, on), ...]``: CAST on or off once ``at`` accesses have run.

    ``1``/``True`` is on throughout (``[]``), ``0``/``False`` off from the start
    (``[(0, False)]``); ``"0@100000,1@200000"`` switches off after 100,000 accesses and on
    after 200,000 (kernel mode; the engine passes the pages through the legacy LRU's lists).

    Raises
    ------
    ValueError
        If the text is not of that form, a state is not 0 or 1, or the counts do not increase.
    """
    if isinstance(value, bool):
        return [] if value else [(0, False)]
    text = str(value).strip().lower()
    if text in ("1", "true", "on", "yes"):
        return []
    if text in ("0", "false", "off", "no"):
        return [(0, False)]
    out: list[tuple[int, bool]] = []
    for item in text.split(","):
        state, at_sign, at = item.strip().partition("@")
        if not at_sign or state not in ("0", "1") or not at.strip().isdigit():
            raise ValueError(f"cast: cannot read enabled={value!r}; give {ENABLED_SYNTAX}")
        if out and int(at) <= out[-1][0]:
            raise ValueError(f"cast: enabled={value!r}: the access counts must increase")
        out.append((int(at), state == "1"))
    return out


def prefetch_distances(value: Any) -> tuple[int, int] | None:
    """The ``prefetch`` knob: None for the CPU's own (``"by CPU"``), else (toward L3, toward L1).

    The seed: "how far ahead the two prefetch stages reach (toward L3, toward L1); 0 0 = none".
    The model has no memory hierarchy, so the distances are read and checked but change no cost
    (costs.py).

    Raises
    ------
    ValueError
        If the text is neither ``"by CPU"`` nor two integers >= 0.
    """
    text = str(value).strip()
    if text.lower() in (PREFETCH_AUTO.lower(), "auto", "by-cpu"):
        return None
    items = [t for t in re.split(r"[\s,]+", text) if t]
    if len(items) != 2 or not all(t.isdigit() for t in items):
        raise ValueError(f"cast: cannot read prefetch={value!r}; give {PREFETCH_SYNTAX}")
    return int(items[0]), int(items[1])


BLOOM_SYNTAX = "fallback (read only where there is no PMD accessed bit), always (MGLRU's), or off"


def bloom_mode(value: Any) -> int:
    """The ``walker_bloom`` parameter as walk.py's mode: 0 off, 1 fallback, 2 always.

    ``fallback`` (the default) reads the seed's "a PMD whose accessed bit is clear, or failing
    that one reclaim's look-around did not find young": the filter is consulted only where the
    walker has no PMD accessed bit (``walker_pmd`` off). ``always`` consults it besides the
    bit, as MGLRU's ``walk_pmd_range``. ``0``/``false`` reads as off, ``1``/``true`` as fallback.

    Raises
    ------
    ValueError
        If the value is none of those.
    """
    text = str(value).strip().lower()
    modes = {"off": 0, "0": 0, "false": 0, "fallback": 1, "1": 1, "true": 1, "always": 2}
    if text not in modes:
        raise ValueError(f"cast: cannot read walker_bloom={value!r}; give {BLOOM_SYNTAX}")
    return modes[text]
