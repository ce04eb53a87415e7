"""Policy parameters from the command line: ``--set NAME.PARAM=VALUE`` (repeatable).

``NAME`` is the name of one of the policies being run (``slru``, ``cast``, or the name a user's
class declares), ``PARAM`` one of its parameters (``pagesim policies --params`` lists them with their
defaults). ``VALUE`` is parsed as the default's type when the default is a bool, int, float or
str (an int default also takes ``1e3``; a float default takes ``6``); otherwise as an int, a
float, a bool (``true``/``false``/``yes``/``no``/``on``/``off``) or, failing those, a string.
A parameter the class lists in ``text_params`` (CAST's per-type ``decay`` and ``w_permille``:
``--set cast.decay="6 8"``) is passed as its text, which the class reads and checks itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pagesim.policies.base import Policy
from pagesim.policies.registry import instantiate

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}

#: What ``--set`` looks like, for error messages.
SET_SYNTAX = "--set NAME.PARAM=VALUE (e.g. --set slru.protected=0.5)"


def parse_value(text: str, default: Any = None) -> Any:
    """``text`` as the type of ``default``, or as int, float, bool or str when there is none.

    Raises
    ------
    ValueError
        If ``text`` does not read as the default's type.
    """
    raw = text.strip()
    if isinstance(default, bool):
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ValueError(f"expected true or false, got {text!r}")
    if isinstance(default, int):
        try:
            return int(raw)
        except ValueError:
            value = float(raw)  # 1e3; raises ValueError for words
            if value != int(value):
                raise ValueError(f"expected a whole number, got {text!r}") from None
            return int(value)
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, str):
        return text
    for convert in (int, float):
        try:
            return convert(raw)
        except ValueError:
            pass
    if raw.lower() in ("true", "false", "yes", "no", "on", "off"):
        return raw.lower() in _TRUE
    return text


def parse_sets(items: Sequence[str] | None) -> dict[str, dict[str, str]]:
    """``["slru.protected=0.5", ...]`` -> ``{"slru": {"protected": "0.5"}}`` (values unparsed).

    Raises
    ------
    ValueError
        If an item is not ``NAME.PARAM=VALUE``.
    """
    out: dict[str, dict[str, str]] = {}
    for item in items or ():
        key, eq, value = str(item).partition("=")
        name, dot, param = key.strip().rpartition(".")
        if not eq or not dot or not name.strip() or not param.strip():
            raise ValueError(f"cannot read --set {item!r}: use {SET_SYNTAX}")
        out.setdefault(name.strip().lower(), {})[param.strip()] = value
    return out


def configure_policies(
    classes: Sequence[type[Policy]], sets: dict[str, dict[str, str]]
) -> list[type[Policy] | Policy]:
    """The policies to run: classes as they are, or instances where ``--set`` changed parameters.

    Parameters
    ----------
    classes : sequence of Policy subclasses
        The policies being run, in order.
    sets : dict
        As returned by :func:`parse_sets`.

    Returns
    -------
    list of Policy subclasses or instances

    Raises
    ------
    ValueError
        If a ``NAME`` is not one of the policies being run, a ``PARAM`` is not one of its
        parameters, or a ``VALUE`` does not read as the parameter's type; each message lists
        what is known.
    """
    by_name = {cls.policy_name().lower(): cls for cls in classes}
    for name, wanted in sets.items():
        if name not in by_name:
            raise ValueError(
                f"--set {name}.{next(iter(wanted))}: {name!r} is not among the policies being run "
                f"({', '.join(by_name) or 'none'}); name one of them, or add it with --policy"
            )
    out: list[type[Policy] | Policy] = []
    for cls in classes:
        wanted = sets.get(cls.policy_name().lower())
        if not wanted:
            out.append(cls)
            continue
        values: dict[str, Any] = {}
        for param, text in wanted.items():
            if param not in cls.params:
                known = ", ".join(f"{k} (default {v!r})" for k, v in cls.params.items()) or "none"
                raise ValueError(
                    f"--set {cls.policy_name()}.{param}: {cls.policy_name()!r} has no parameter "
                    f"{param!r}; its parameters: {known}"
                )
            default = cls.params[param]
            if param in getattr(cls, "text_params", ()):
                values[param] = text
                continue
            try:
                values[param] = parse_value(text, default)
            except ValueError:
                kind = type(default).__name__
                raise ValueError(
                    f"--set {cls.policy_name()}.{param}={text}: {param} takes a {kind} (default {default!r})"
                ) from None
        out.append(instantiate(cls, **values))
    return out
