"""Readable ``--help``: plain flags, and metavars instead of Python types.

typer labels every parameter with its Python type (``<bool>``, ``<list[str]>``, ``<str>``) and
writes required arguments as ``{trace}`` in the usage line. That reads as if ``--json`` took a
value. :class:`Command` and :class:`Group` (given as ``cls=`` to typer) re-class their
parameters so that flags show no value, options show their ``metavar`` (``SIZE``, ``FORMAT``)
and arguments show their name in capitals.
"""

from __future__ import annotations

from typing import Any

import typer.core as tc


class _Option(tc.TyperOption):
    """An option whose help shows nothing for a flag and the metavar (else the type) for a value."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag or self.count:
            return None
        if self.metavar is not None:
            return self.metavar
        return self.name.upper() if self.name else None


class _Argument(tc.TyperArgument):
    """An argument shown by its metavar (``TRACE``), without a type label or braces."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    @property
    def display_name_raw(self) -> str:
        return self.metavar if self.metavar is not None else (self.name or "").upper()

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        if not self.required:
            name = f"[{name}]"
        if self.nargs != 1:
            name += "..."
        return name


def _reclass(param: Any) -> Any:
    if type(param) is tc.TyperOption:
        param.__class__ = _Option
    elif type(param) is tc.TyperArgument:
        param.__class__ = _Argument
    return param


class Command(tc.TyperCommand):
    """A typer command with readable help (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _reclass(param)

    def get_help_option(self, ctx: Any) -> Any:
        return _reclass(super().get_help_option(ctx))


class Group(tc.TyperGroup):
    """A typer group with readable help (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _reclass(param)

    def get_help_option(self, ctx: Any) -> Any:
        return _reclass(super().get_help_option(ctx))
