"""Every reader against bench/fuzz.py's plain reference reader on seeded random and mutated inputs.

A smaller, in-process run of ``bench/fuzz.py`` (1,000 inputs per reader; no per-input time limit,
the test's own duration bounds it): pagesim must refuse what the reference refuses, with one
`TraceFormatError` or `ValueError` naming the file, and read exactly what the reference reads.
Seeds are the built-in samples, plus the real traces' heads when they are present.
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
#: As tests/conftest.py's: the real traces beside the repository, or $PAGESIM_TRACES.
SHARED_TRACES = Path(os.environ.get("PAGESIM_TRACES") or ROOT.parent / "shared" / "traces")
N_PER_READER = 1000


def _load_fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pagesim_bench_fuzz", ROOT / "bench" / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


fuzz = _load_fuzz()


@pytest.fixture(scope="module")
def seeds():  # type: ignore[no-untyped-def]
    return fuzz.load_seeds(SHARED_TRACES if SHARED_TRACES.is_dir() else None)


@pytest.mark.parametrize("fmt", fuzz.FORMATS)
def test_reader_agrees_with_the_reference_on_fuzzed_inputs(fmt: str, seeds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(f"test:{fmt}")
    problems = []
    n = N_PER_READER if fmt != "detect" else N_PER_READER // 2
    for k in range(n):
        inp = fuzz.make_input(rng, fmt, seeds, k)
        verdict, detail = fuzz.check_in_process(inp, tmp_path)
        if verdict != "ok":
            problems.append(f"{verdict} on input {k} ({inp.name}, {inp.data[:60]!r}): {detail}")
    assert not problems, "\n".join(problems[:10])


_TEXTISH = st.binary(max_size=120) | st.lists(
    st.sampled_from(
        [
            b"0",
            b"7",
            b"18446744073709551615",
            b"18446744073709551616",
            b" ",
            b"\n",
            b",",
            b'"',
            b"*",
            b"r",
            b"\xef\xbb\xbf",
        ]
    ),
    max_size=40,
).map(b"".join)


@pytest.mark.parametrize("fmt", ["text", "lis", "csv"])
@settings(max_examples=150)
@given(data=_TEXTISH)
def test_line_readers_agree_with_the_reference_on_any_bytes(fmt: str, data: bytes, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    directory = tmp_path_factory.mktemp("hyp")
    verdict, detail = fuzz.check_in_process(fuzz.FuzzInput(fmt, "h" + fuzz.EXTENSION[fmt], data), directory)
    assert verdict == "ok", detail
