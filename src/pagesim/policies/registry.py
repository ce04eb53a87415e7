"""Names of the built-in policies and loading of a user's policy from a file.

Adding a policy (libCacheSim's checklist, adapted): write ``pagesim/policies/<name>.py`` with the
module docstring of STYLE.md, a :class:`~pagesim.policies.base.Policy` subclass and compiled
hooks; add one line to :data:`BUILTIN`; add a hand-worked test in ``tests/unit`` and, where
libCacheSim has the policy, a cross-check in ``tests/crosscheck``; add a line to the docs.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from pagesim.policies.base import Policy

#: registry name -> "module:Class"; imported only when asked for.
BUILTIN: dict[str, str] = {
    "lru": "pagesim.policies.lru:LRU",
    "fifo": "pagesim.policies.fifo:FIFO",
    "mru": "pagesim.policies.mru:MRU",
    "clock": "pagesim.policies.clock:Clock",
    "lfu": "pagesim.policies.lfu:LFU",
    "opt": "pagesim.policies.belady:Belady",
    "opt-bypass": "pagesim.policies.belady_bypass:BeladyBypass",
    "arc": "pagesim.policies.arc:ARC",
    "car": "pagesim.policies.car:CAR",
    "2q": "pagesim.policies.twoq:TwoQ",
    "lirs": "pagesim.policies.lirs:LIRS",
    "slru": "pagesim.policies.slru:SLRU",
    "sieve": "pagesim.policies.sieve:Sieve",
    "s3fifo": "pagesim.policies.s3fifo:S3FIFO",
    "w-tinylfu": "pagesim.policies.wtinylfu:WTinyLFU",
    "lrfu": "pagesim.policies.lrfu:LRFU",
    "mglru": "pagesim.policies.mglru:MGLRU",
    "linux-lru": "pagesim.policies.linux_lru:LinuxLRU",
    "cast": "pagesim.policies.cast.policy:CAST",
    "ce-fifo": "pagesim.policies.ce_fifo:CeFIFO",
    "ce-mru": "pagesim.policies.ce_mru:CeMRU",
    "ce-lfu": "pagesim.policies.ce_lfu:CeLFU",
    "ce-s3fifo": "pagesim.policies.ce_s3fifo:CeS3FIFO",
    "ce-lhd": "pagesim.policies.ce_lhd:CeLHD",
    "ce-mglru": "pagesim.policies.ce_mglru:CeMGLRU",
    "get-scan": "pagesim.policies.get_scan:GetScan",
    "admit-compaction": "pagesim.policies.admit_compaction:AdmitCompaction",
    "auto": "pagesim.policies.auto:Auto",
}


class UnknownPolicyError(ValueError):
    """A policy name that is neither built in nor a ``file.py:Class`` spec."""

    def __init__(self, name: str) -> None:
        close = difflib.get_close_matches(name.strip().lower(), BUILTIN, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        super().__init__(
            f"unknown policy {name!r}; {hint}known policies: {', '.join(sorted(BUILTIN))} "
            f"(or a user policy as path/to/file.py:ClassName)"
        )
        self.name = name
        self.suggestion = close[0] if close else None


class PolicySetupError(ValueError):
    """A policy's constructor raised: the message names the policy, the exception and the place."""

    def __init__(self, cls: type[Policy], exc: BaseException) -> None:
        place = _raising_line(cls, exc)
        where = f" at {place}" if place else ""
        super().__init__(
            f"policy {cls.policy_name()!r} ({cls.__qualname__}) raised {type(exc).__name__}: {exc} "
            f"while it was created{where}"
        )
        self.original = exc


def _raising_line(cls: type[Policy], exc: BaseException) -> str | None:
    """``file.py:LINE`` of the innermost traceback frame in the class's own file, if any."""
    try:
        own = Path(inspect.getsourcefile(cls) or "").resolve()
    except TypeError:
        return None
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if Path(frame.filename).resolve() == own:
            rel = os.path.relpath(own)
            return f"{own if rel.startswith('..') else rel}:{frame.lineno}"
    return None


def instantiate(cls: type[Policy], **values: Any) -> Policy:
    """``cls(**values)``; an exception raised in the class's own file (its ``__init__``) becomes a
    :class:`PolicySetupError` naming the policy, file and line.

    Raises
    ------
    PolicySetupError
        If the constructor raised from the class's own source file.
    Exception
        Whatever the constructor raised elsewhere (pagesim's own parameter checks: unknown
        parameter, bad value), unchanged.
    """
    try:
        return cls(**values)
    except Exception as exc:
        if _raising_line(cls, exc) is None:
            raise
        raise PolicySetupError(cls, exc) from exc


def policy_names() -> list[str]:
    """Every built-in policy name, sorted."""
    return sorted(BUILTIN)


def _import_target(target: str) -> type[Policy]:
    module, _, qualname = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


def load_user_policy_class(spec: str) -> type[Policy]:
    """Load ``path/to/file.py:ClassName`` and return the class.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the spec has no class name, or the class is not a :class:`Policy` subclass.
    """
    path_text, sep, qualname = spec.rpartition(":")
    if not sep or not path_text or not qualname:
        raise ValueError(f"a user policy is given as path/to/file.py:ClassName, got {spec!r}")
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise FileNotFoundError(f"policy file not found: {path_text}")
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:10]
    modname = f"pagesim_user_{path.stem}_{digest}"
    mod = sys.modules.get(modname)
    if mod is None:
        loader_spec = importlib.util.spec_from_file_location(modname, path)
        if loader_spec is None or loader_spec.loader is None:
            raise ValueError(f"cannot import {path_text}")
        mod = importlib.util.module_from_spec(loader_spec)
        sys.modules[modname] = mod
        try:
            loader_spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[modname]
            raise
    obj: Any = mod
    for part in qualname.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{path_text} has no class {qualname!r}")
        obj = getattr(obj, part)
    if not (isinstance(obj, type) and issubclass(obj, Policy)):
        raise ValueError(f"{spec} is not a subclass of pagesim.Policy")
    return obj


def policy_class(name: str) -> type[Policy]:
    """The class for a built-in name or a ``file.py:Class`` spec.

    Raises
    ------
    UnknownPolicyError
        If ``name`` is neither.
    """
    key = name.strip().lower()
    if key in BUILTIN:
        return _import_target(BUILTIN[key])
    if ".py:" in name:
        return load_user_policy_class(name.strip())
    raise UnknownPolicyError(name)


def make_policy(name: str, **params: Any) -> Policy:
    """Instantiate a policy by name (see :func:`policy_class`) with parameter overrides."""
    return instantiate(policy_class(name), **params)
