"""``pagesim kernel-check``: linux-lru's misses against this machine's kernel, and cleanup.

The checks against the kernel need root, a memory cgroup controller and a disk directory; they
skip with the reason where one is missing. Each replays a few tens of thousands of reads.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pagesim.cli import app
from pagesim.record.cgroup import PREFIX, Cgroup, CheckUnavailable, find_memory_controller, remove_stale
from pagesim.record.check import _mount_type, kernel_check, remove_stale_directories, replay_offsets
from pagesim.record.patterns import PATTERNS, make_pattern
from pagesim.trace import Trace

#: The model's misses must lie within this share of the kernel's (readahead off).
TOLERANCE = 0.10
ACCESSES = 30_000


def _unavailable() -> str | None:
    """Why no check can run here (not root, no controller, a cgroup cannot be made), or None."""
    try:
        Cgroup(find_memory_controller(), 64 << 20).remove()
    except CheckUnavailable as exc:
        return str(exc)
    return None


UNAVAILABLE = _unavailable()
needs_cgroup = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"kernel-check: {UNAVAILABLE}")


def _disk_dir(tmp_path: Path) -> Path:
    """A directory on a disk: tmp_path unless it is on tmpfs, else one under /var/tmp."""
    if _mount_type(str(tmp_path)) not in ("tmpfs", "ramfs"):
        return tmp_path
    d = Path("/var/tmp") / f"pagesim-test-{os.getpid()}"
    d.mkdir(exist_ok=True)
    return d


# ---------------------------------------------------------------------------- everywhere


@pytest.mark.parametrize("name", list(PATTERNS))
def test_patterns_are_sized_by_the_memory(name: str) -> None:
    t = make_pattern(name, 1000, 20_000)
    assert t.n_requests == 20_000
    assert 1500 <= t.n_pages <= 2000
    assert t.original_id.min() == 0 and t.original_id.max() == t.n_pages - 1
    with pytest.raises(ValueError, match="unknown pattern"):
        make_pattern("nope", 1000)


def test_replay_offsets_keep_consecutive_ids_consecutive() -> None:
    t = Trace.from_ids([900, 17, 901, 17, 5])
    assert replay_offsets(t).tolist() == [2, 1, 3, 1, 0]


def test_bad_options_are_refused() -> None:
    runner = CliRunner()
    both = runner.invoke(app, ["kernel-check", "x.pgt", "--pattern", "loop"])
    assert both.exit_code == 2 and "either a TRACE or --pattern" in both.output
    ra = runner.invoke(app, ["kernel-check", "--pattern", "loop", "--readahead", "maybe"])
    assert ra.exit_code == 2 and "--readahead" in ra.output
    small = runner.invoke(app, ["kernel-check", "--pattern", "loop", "--memory", "10"])
    assert small.exit_code == 2 and "at least 64" in small.output


def test_refusal_names_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    result = CliRunner().invoke(app, ["kernel-check", "--pattern", "loop", "--memory", "1MiB"])
    assert result.exit_code == 3
    assert "needs root" in result.output


# ---------------------------------------------------------------------------- against the kernel


@needs_cgroup
@pytest.mark.parametrize("memory_pages", [4096, 8192], ids=["16MiB", "32MiB"])
@pytest.mark.parametrize("name", ["zipf-scan", "hot-stream"])
def test_model_misses_within_tolerance_of_the_kernel(name: str, memory_pages: int, tmp_path: Path) -> None:
    trace = make_pattern(name, memory_pages, ACCESSES)
    try:
        result = kernel_check(trace, memory_pages, readahead=False, directory=str(_disk_dir(tmp_path)))
    except CheckUnavailable as exc:
        pytest.skip(f"kernel-check: {exc}")
    misses = result.metric("pages_read_in")
    assert misses.kernel is not None and misses.model is not None
    assert misses.kernel > 0
    assert abs(misses.model - misses.kernel) <= TOLERANCE * misses.kernel, (
        f"{name} at {memory_pages} pages: kernel {misses.kernel}, model {misses.model} "
        f"({100 * misses.difference:+.1f}%)"
    )
    assert result.metric("resident_file_pages").kernel <= memory_pages


def _leftovers(pid: int, directory: Path) -> list[str]:
    controller = find_memory_controller()
    groups = [n for n in os.listdir(controller.root) if n.startswith(f"{PREFIX}{pid}-")]
    dirs = [n for n in os.listdir(directory) if n.startswith(f"{PREFIX}{pid}-")]
    return groups + dirs


def _start_check(directory: Path) -> subprocess.Popen[str]:
    """A check of a long loop, returned once its replayer runs inside its cgroup."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "from pagesim.cli import app; app()", "kernel-check", "--pattern", "loop",
         "--memory", "16MiB", "--accesses", "1000000", "--dir", str(directory)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        lines = []
        # until the replay runs inside its cgroup (the model may compile first: minutes when busy)
        for line in proc.stderr:
            lines.append(line)
            if "replaying" in line:
                break
        assert any("replaying" in line for line in lines), "".join(lines)
        time.sleep(0.5)
        assert _leftovers(proc.pid, directory), "the check should have a cgroup and a file by now"
    except BaseException:
        proc.terminate()  # the check cleans up after itself on SIGTERM
        proc.communicate(timeout=60)
        raise
    return proc


@needs_cgroup
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_check_killed_halfway_leaves_nothing_behind(sig: signal.Signals, tmp_path: Path) -> None:
    directory = _disk_dir(tmp_path)
    proc = _start_check(directory)
    try:
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert _leftovers(proc.pid, directory) == []


@needs_cgroup
def test_what_a_sigkilled_check_left_is_removed_by_the_next(tmp_path: Path) -> None:
    directory = _disk_dir(tmp_path)
    proc = _start_check(directory)
    proc.kill()  # no cleanup can run; the replayer dies with it (PR_SET_PDEATHSIG)
    proc.communicate(timeout=60)
    assert _leftovers(proc.pid, directory)
    remove_stale(find_memory_controller())
    remove_stale_directories(str(directory))
    assert _leftovers(proc.pid, directory) == []


@needs_cgroup
def test_json_output_carries_every_measure(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["kernel-check", "--pattern", "loop", "--memory", "4MiB", "--accesses", "3000", "--json",
         "--dir", str(_disk_dir(tmp_path))],
    )  # fmt: skip
    if result.exit_code == 3:
        pytest.skip(result.output)
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout.strip().splitlines()[-1])
    names = [m["name"] for m in record["metrics"]]
    assert names[0] == "pages_read_in" and "resident_file_pages" in names
    assert record["memory_pages"] == 1024 and record["accesses"] == 3000
    loop = [m for m in record["metrics"] if m["name"] == "pages_read_in"][0]
    assert loop["model"] == 3000  # a loop over 1.5x memory misses every time under LRU
    assert np.isclose(loop["kernel"], 3000, rtol=TOLERANCE)


REAL_TRACE = (
    Path(os.environ.get("PAGESIM_TRACES") or Path(__file__).resolve().parents[2].parent / "shared" / "traces")
    / "libcachesim"
)
REAL_TRACE = REAL_TRACE / "cloudPhysicsIO.oracleGeneral.bin"


@needs_cgroup
@pytest.mark.skipif(not REAL_TRACE.exists(), reason=f"real trace {REAL_TRACE} is absent")
def test_model_misses_within_tolerance_on_a_real_trace(tmp_path: Path) -> None:
    """cloudPhysicsIO's first 30,000 accesses replayed in a 16 MiB cgroup, readahead off."""
    from pagesim.trace import read_trace

    trace = read_trace(REAL_TRACE).head(30_000)
    try:
        result = kernel_check(trace, 4096, readahead=False, directory=str(_disk_dir(tmp_path)))
    except CheckUnavailable as exc:
        pytest.skip(f"kernel-check: {exc}")
    misses = result.metric("pages_read_in")
    assert misses.kernel is not None and misses.model is not None and misses.kernel > 0
    assert abs(misses.model - misses.kernel) <= TOLERANCE * misses.kernel, (
        f"kernel {misses.kernel}, model {misses.model} ({100 * misses.difference:+.1f}%)"
    )
