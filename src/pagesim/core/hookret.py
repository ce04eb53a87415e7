"""Normalise what a hook returns to an int64, whatever the hook's author wrote.

Hooks may end without ``return`` (``None``), return a bool (``admit``) or an int (``evict``'s
candidate count). The engine's dispatchers pass every result through :func:`as_int` so that all
branches of a dispatch have one type.
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.extending import overload


def as_int(value: Any) -> int:
    """``value`` as an int; ``None`` becomes 0 (plain-Python version of the compiled overload)."""
    if value is None:
        return 0
    return int(value)


@overload(as_int)
def _as_int_overload(value):  # type: ignore[no-untyped-def]
    if isinstance(value, (types.NoneType, types.Omitted)) or value is types.none:

        def impl_none(value):  # type: ignore[no-untyped-def]
            return 0

        return impl_none
    if isinstance(value, (types.Integer, types.Boolean)):

        def impl_int(value):  # type: ignore[no-untyped-def]
            return int(value)

        return impl_int
    return None
