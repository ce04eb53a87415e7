"""Running libCacheSim 0.3.5 (its Python package, C core) beside pagesim, unit-size objects.

Shared by the crosscheck tests against libCacheSim. Importing this module skips the importing
test module when libcachesim is not installed. Traces are read by libCacheSim in its
oracleGeneral format only (its Belady reads next-access times only from that format; its text
reader is fragile, see shared/reference/libcachesim_notes.md): other traces are converted with
pagesim's own writer. libCacheSim reports only miss ratios: misses = round(ratio * requests).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pagesim.trace import Trace, read_trace, write_trace

libcachesim = pytest.importorskip("libcachesim")

#: The real traces, beside the repository (see ../shared/traces/PROVENANCE.md), or PAGESIM_TRACES.
TRACES = Path(
    os.environ.get("PAGESIM_TRACES") or Path(__file__).resolve().parents[2].parent / "shared" / "traces"
)

#: Suffix of traces already in libCacheSim's oracleGeneral format.
ORACLE_SUFFIX = ".oracleGeneral.bin"


def reader(oracle: Path):
    """A libCacheSim reader of an oracleGeneral file that treats every object as one unit."""
    return libcachesim.TraceReader(
        str(oracle),
        libcachesim.TraceType.ORACLE_GENERAL_TRACE,
        libcachesim.ReaderInitParam(ignore_obj_size=True),
    )


def misses_from_ratio(ratio: float, n_requests: int) -> int:
    """libCacheSim's miss ratio over ``n_requests`` requests as a miss count."""
    return round(ratio * n_requests)


def misses(
    cls_name: str, oracle: Path, capacity: int, n_requests: int, *, hashpower: int = 16, **params
) -> int:
    """Miss count of libCacheSim's ``cls_name`` policy on an oracleGeneral file, unit sizes.

    ``params`` go to the policy's constructor (libCacheSim's defaults otherwise);
    ``n_requests`` is the file's number of requests.
    """
    cache = getattr(libcachesim, cls_name)(capacity, hashpower=hashpower, **params)
    ratio, _ = cache.process_trace(reader(oracle))
    return misses_from_ratio(ratio, n_requests)


def write_oracle(ids: Sequence[int], path: Path) -> Trace:
    """Write the page ids ``ids`` as an oracleGeneral file at ``path``; returns their Trace."""
    trace = Trace.from_ids(ids)
    write_trace(trace, path, format="oracle")
    return trace


def prepare_traces(tmp_path_factory, traces: Mapping[str, str]) -> dict[str, tuple[Trace, Path]]:
    """trace name -> (pagesim Trace, path of an oracleGeneral file libCacheSim can read).

    ``traces`` maps each name to its path under TRACES. Files already in oracleGeneral format
    are used as they are; the others are converted into a temporary folder. Skips the calling
    test when TRACES or one of the traces is missing.
    """
    if not TRACES.is_dir():
        pytest.skip(f"real traces not found at {TRACES} (see ../shared/traces/PROVENANCE.md)")
    folder = tmp_path_factory.mktemp("oracle")
    out: dict[str, tuple[Trace, Path]] = {}
    for name, rel in traces.items():
        path = TRACES / rel
        if not path.is_file():
            pytest.skip(f"trace {rel} missing under {TRACES}")
        trace = read_trace(path)
        if rel.endswith(ORACLE_SUFFIX):
            oracle = path
        else:
            oracle = folder / f"{name}{ORACLE_SUFFIX}"
            write_trace(trace, oracle, format="oracle")
        out[name] = (trace, oracle)
    return out


def misses_with_params(
    init_name: str, params: str, oracle: Path, capacity: int, n_requests: int, *, hashpower: int = 16
) -> int:
    """Miss count of libCacheSim's policy built by ``init_name`` (``SLRU_init``...) with its
    ``cache_specific_params`` string ``params``, for the policies whose Python class takes none.
    """
    from libcachesim import libcachesim_python
    from libcachesim.cache import CacheBase, _create_common_params

    common = _create_common_params(capacity, 86400 * 300, hashpower, False, None)
    cache = CacheBase(_cache=getattr(libcachesim_python, init_name)(common, params))
    ratio, _ = cache.process_trace(reader(oracle))
    return misses_from_ratio(ratio, n_requests)
