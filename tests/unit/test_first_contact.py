"""What a new user meets first: help texts from the code's own defaults, clean errors that say
where, compiling ahead; each test runs lru (common to most test files) or nothing compiled."""

from __future__ import annotations

import threading
from pathlib import Path

import numba
import numpy as np
import pytest
from test_cli import assert_one_line_error, invoke

from pagesim.analysis.compare import DEFAULT_POLICIES, DEFAULT_SIZES
from pagesim.analysis.experiments import EXPERIMENT_POLICIES
from pagesim.cli._experiment import free_figure_path
from pagesim.cli._kernel import DEFAULT_KERNEL_POLICIES
from pagesim.engine import warm
from pagesim.engine.build import compiling, is_compiled, mark_compiled
from pagesim.engine.simulate import numba_reason
from pagesim.policies.fifo import FIFO
from pagesim.policies.lru import LRU
from pagesim.policies.registry import UnknownPolicyError
from pagesim.trace import Trace, read_trace, write_trace
from pagesim.trace.errors import TraceFormatError
from pagesim.trace.readers.oracle import RECORD as ORACLE_RECORD

TINY = "workload:zipf?n_requests=3000&n_pages=400&seed=5"


def test_compare_help_states_the_defaults_the_code_uses():
    # rich wraps the help in a box: compare without the box and the spaces
    text = "".join(invoke("compare", "--help").stdout.replace("│", " ").split())
    assert ",".join(DEFAULT_POLICIES) in text
    assert ",".join(DEFAULT_KERNEL_POLICIES) in text  # kernel mode runs these four, and says so
    assert ",".join(DEFAULT_SIZES) in text


def test_compare_without_size_uses_the_sizes_of_run():
    result = invoke("compare", TINY, "--policy", "lru", "--no-opt", "--json")
    assert result.exit_code == 0, result.output
    sizes = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(sizes) == len(DEFAULT_SIZES)
    for size, line in zip(DEFAULT_SIZES, sizes, strict=True):
        assert f'"size": "{size}"' in line


def test_a_mistyped_policy_gets_a_suggestion():
    assert "did you mean 'lru'?" in str(UnknownPolicyError("lur"))
    assert "did you mean 's3fifo'?" in str(UnknownPolicyError("s3-fifo"))
    assert "did you mean" not in str(UnknownPolicyError("zzzzzz"))


def test_a_policy_raising_in_init_is_named_with_its_file_and_line(tmp_path: Path):
    source = tmp_path / "boom.py"
    source.write_text(
        "from pagesim.policies.lru import LRU\n"
        "\n"
        "\n"
        "class Boom(LRU):\n"
        "    name = 'boom'\n"
        "\n"
        "    def __init__(self, **kw):\n"
        "        super().__init__(**kw)\n"
        "        raise RuntimeError('boom')\n"  # line 9
    )
    result = invoke("compare", TINY, "--size", "10", "--policy", f"{source}:Boom", "--no-opt")
    assert_one_line_error(result, 2, "policy 'boom' (Boom) raised RuntimeError: boom", "boom.py:9")


def test_numba_reason_keeps_the_innermost_message_and_the_users_line():
    text = (
        "Failed in nopython mode pipeline (step: nopython frontend)\n"
        "\x1b[1mFailed in nopython mode pipeline (step: native lowering)\n"
        "\x1b[1mNRT required but not enabled\x1b[0m\n"
        '\x1b[1mDuring: lowering "d = build_map(...)" at /home/u/my_policy.py (12)\x1b[0m\n'
        "During: typing of call at /x/pagesim_runner_p_0123.py (32)\n"
    )
    assert numba_reason(text) == "NRT required but not enabled (at /home/u/my_policy.py:12)"


def test_compile_ahead_compiles_only_what_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))  # markers live beside numba's cache
    compiled: list[str] = []
    monkeypatch.setattr(warm, "compile_one", lambda module, qualname, path, mode: compiled.append(qualname))
    mark_compiled((LRU,), "cache")
    assert is_compiled((LRU,), "cache") and not is_compiled((LRU,), "kernel")
    assert warm.pending([LRU, FIFO, FIFO], "cache") == [FIFO]
    assert warm.compile_ahead([LRU, FIFO], jobs=1) == {}  # one runner missing: left to the run
    assert compiled == []
    assert warm.compile_ahead([LRU, FIFO], "kernel", jobs=1) == {LRU: None, FIFO: None}
    assert compiled == ["LRU", "FIFO"]
    with pytest.raises(ValueError, match="unknown mode"):
        warm.compile_ahead([LRU], "disk")


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no compiling under NUMBA_DISABLE_JIT")
def test_a_runner_compiles_in_one_process_at_a_time(tmp_path, monkeypatch):
    """A second holder of one runner's compile lock waits for the first (flock: processes and
    open files alike); a runner compiled here already takes no lock."""
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    fresh = numba.njit(lambda x: x + 1)
    order: list[str] = []

    def second() -> None:
        with compiling((LRU,), "cache", fresh):
            order.append("second")

    with compiling((LRU,), "cache", fresh):
        waiting = threading.Thread(target=second)
        waiting.start()
        waiting.join(0.5)
        assert waiting.is_alive()  # blocked on the lock
        fresh(1)
        with compiling((LRU,), "cache", fresh):  # compiled in this process: no lock, no wait
            order.append("loaded")
        order.append("first")
    waiting.join(10)
    assert order == ["loaded", "first", "second"]
    with compiling((LRU,), "kernel", numba.njit(lambda x: x)):  # another mode: another lock
        pass


def test_an_experiment_keeps_an_earlier_figure(tmp_path: Path):
    assert free_figure_path("admission", tmp_path) == tmp_path / "pagesim-admission.png"
    (tmp_path / "pagesim-admission.png").write_bytes(b"")
    (tmp_path / "pagesim-admission-2.png").write_bytes(b"")
    assert free_figure_path("admission", tmp_path) == tmp_path / "pagesim-admission-3.png"


def test_trace_info_prints_a_long_path_whole(tmp_path: Path):
    folder = tmp_path / "a-rather-long-folder-name-for-traces" / "another-level-of-folders"
    folder.mkdir(parents=True)
    path = folder / "three-pages-read-twice.txt"
    path.write_text("1\n2\n3\n1\n2\n3\n")
    assert len(str(path)) > 80
    result = invoke("trace", "info", str(path))
    assert result.exit_code == 0, result.output
    assert str(path) in result.stdout.splitlines()
    assert "6" in result.stdout  # requests


def test_random_bytes_named_oracle_general_are_refused(tmp_path: Path):
    rng = np.random.default_rng(1)
    noise = tmp_path / "noise.oracleGeneral.bin"
    noise.write_bytes(rng.bytes(24 * 200))  # 200 whole records of noise
    with pytest.raises(TraceFormatError, match=r"byte \d+: expected next_access_vtime"):
        read_trace(noise)


def test_a_truncated_oracle_trace_is_read(tmp_path: Path):
    # ids 7 8 7 8 cut after three records (as head -c leaves it): request 2's next access,
    # request 4, lies past the end and is accepted; request 1's names request 3, object 7 again
    whole = tmp_path / "whole.oracleGeneral.bin"
    write_trace(Trace.from_ids([7, 8, 7, 8]), whole, format="oracle")
    cut = tmp_path / "cut.oracleGeneral.bin"
    cut.write_bytes(whole.read_bytes()[: 3 * ORACLE_RECORD.itemsize])
    assert read_trace(cut).original_id[read_trace(cut).page].tolist() == [7, 8, 7]


def test_an_oracle_file_whose_next_access_names_another_object_is_refused(tmp_path: Path):
    # ids 7 8 7: request 1's next access is request 3 (1-based), request 2 has none
    good = tmp_path / "good.oracleGeneral.bin"
    write_trace(Trace.from_ids([7, 8, 7]), good, format="oracle")
    assert read_trace(good).n_requests == 3
    rec = np.fromfile(good, dtype=ORACLE_RECORD)
    assert rec["next_access_vtime"].tolist() == [3, -1, -1]
    rec["next_access_vtime"][0] = 2  # request 2 is of object 8, not 7
    bad = tmp_path / "bad.oracleGeneral.bin"
    rec.tofile(bad)
    with pytest.raises(
        TraceFormatError, match="byte 0: expected next_access_vtime naming a request to the same"
    ):
        read_trace(bad)
    rec["next_access_vtime"][0] = 3
    rec["time"] = [5, 4, 6]  # request 2 goes back in time: byte 24
    rec.tofile(bad)
    with pytest.raises(TraceFormatError, match="byte 24: expected a time no earlier"):
        read_trace(bad)


def test_experiment_help_states_each_experiments_default_suite():
    text = "".join(invoke("experiment", "--help").stdout.replace("│", " ").split())
    for name, policies in EXPERIMENT_POLICIES.items():
        assert f"{name}:{','.join(policies)}" in text


def test_warm_refuses_bad_input_in_one_line():
    assert_one_line_error(invoke("warm", "lur"), 2, "unknown policy 'lur'; did you mean 'lru'?")
    assert_one_line_error(invoke("warm", "--mode", "disk"), 2, "unknown mode 'disk'")


def test_warm_compiles_only_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    asked: list[tuple[str, str]] = []
    monkeypatch.setattr(
        warm, "compile_one", lambda module, qualname, path, mode: asked.append((qualname, mode))
    )
    mark_compiled((LRU,), "cache")
    result = invoke("warm", "lru,fifo", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert asked == [("FIFO", "cache")]
    assert "fifo: compiled" in result.stderr
    mark_compiled((FIFO,), "cache")
    assert "every runner is compiled already" in invoke("warm", "lru", "fifo").stderr


def test_a_missing_trace_says_where_traces_come_from(tmp_path: Path, monkeypatch):
    folder = tmp_path / "traces"
    monkeypatch.setenv("PAGESIM_TRACES", str(folder))
    result = invoke("trace", "info", "OLTP.lis.zst")
    assert_one_line_error(result, 2, "trace file not found: OLTP.lis.zst", "PROVENANCE.md", "$PAGESIM_TRACES")
    assert str(folder) in result.stderr
    (folder / "arc").mkdir(parents=True)
    there = folder / "arc" / "OLTP.lis.zst"
    write_trace(Trace.from_ids(np.arange(10, dtype=np.int64)), there, format="text")
    result = invoke("trace", "info", "OLTP.lis.zst")  # a name found in the folder: its path
    assert_one_line_error(result, 2, "trace file not found: OLTP.lis.zst", str(there))
