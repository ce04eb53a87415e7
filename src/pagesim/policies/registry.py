"""Names of the built-in policies and loading of a user's policy from a file.

Adding a policy (libCacheSim's checklist, adapted): write ``pagesim/policies/<name>.py`` with the
module docstring of STYLE.md, a :class:`~pagesim.policies.base.Policy` subclass and compiled
hooks; add one line to :data:`BUILTIN`; add a hand-worked test in ``tests/unit`` and, where
libCacheSim has the policy, a cross-check in ``tests/crosscheck``; add a line to the docs.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
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
}


class UnknownPolicyError(ValueError):
    """A policy name that is neither built in nor a ``file.py:Class`` spec."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"unknown policy {name!r}; known policies: {', '.join(sorted(BUILTIN))} "
            f"(or a user policy as path/to/file.py:ClassName)"
        )
        self.name = name


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
    return policy_class(name)(**params)
