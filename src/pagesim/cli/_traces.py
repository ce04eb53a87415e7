"""Where real traces come from, for the error given when a trace file named on the command line
does not exist.

A clone of pagesim has no trace files. README's tour uses public ones kept beside the checkout in
``../shared/traces`` (its ``PROVENANCE.md`` names each file's repository), or in the folder
``$PAGESIM_TRACES`` names; the tests look in the same two places.
"""

from __future__ import annotations

import os
from pathlib import Path

import pagesim

#: Environment variable naming the folder of real traces (default ``../shared/traces``).
TRACES_ENV = "PAGESIM_TRACES"

#: How many files of a trace folder are looked through for a name (the folder is small).
_MAX_FILES = 10_000


def trace_folder() -> Path:
    """``$PAGESIM_TRACES``, else ``shared/traces`` beside the checkout pagesim runs from."""
    env = os.environ.get(TRACES_ENV)
    if env:
        return Path(env)
    return Path(pagesim.__file__).resolve().parents[3] / "shared" / "traces"


def _found_in(folder: Path, name: str) -> list[Path]:
    """Files under ``folder`` named ``name`` (at most three; none if the folder is absent)."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    for count, path in enumerate(folder.rglob("*")):
        if count >= _MAX_FILES or len(found) >= 3:
            break
        if path.name == name and path.is_file():
            found.append(path)
    return found


def missing_trace_message(spec: str) -> str:
    """The error for a trace file ``spec`` that does not exist: where traces come from and, if
    the trace folder has a file of that name, its path."""
    folder = trace_folder()
    found = _found_in(folder, Path(spec).name)
    head = f"trace file not found: {spec}"
    if found:
        paths = " or ".join(str(p) for p in found)
        return f"{head}; the trace folder (${TRACES_ENV} or ../shared/traces) has {paths}"
    where = f"${TRACES_ENV} is {folder}" if os.environ.get(TRACES_ENV) else f"looked in {folder}"
    return (
        f"{head} (a clone has no trace files: README's tour reads them from ../shared/traces beside "
        f"the checkout, or the folder ${TRACES_ENV} names, and its PROVENANCE.md says where each "
        f"comes from; {where}; 'workload:zipf' needs no file)"
    )


__all__ = ["TRACES_ENV", "missing_trace_message", "trace_folder"]
