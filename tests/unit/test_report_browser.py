"""The sweep report in a real browser: headless Chromium runs its script; no error, every plot drawn."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from pagesim.report.html import write_report
from pagesim.sweep.driver import run_sweep
from pagesim.sweep.grid import grid_from_options
from pagesim.sweep.results import load_results

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


def dom(path, tmp_path) -> str:  # type: ignore[no-untyped-def]
    """The page's DOM after its scripts ran (``--dump-dom``)."""
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", f"file://{path}"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return done.stdout


@pytest.fixture(scope="module")
def frame(tmp_path_factory):  # type: ignore[no-untyped-def]
    """Two cache-mode traces and one kernel-mode section."""
    db = str(tmp_path_factory.mktemp("browser") / "r.db")
    traces = ["workload:zipf?n_requests=3000&n_pages=300", "workload:loop?n_pages=50&passes=4"]
    cache = grid_from_options(traces, ["lru,fifo,opt"], ["10%", "30%", "60%"])
    run_sweep(cache, db, workers=2, say=lambda _: None)
    kernel = grid_from_options(["workload:loop?n_pages=200&passes=3"], ["linux-lru"], ["100", "150"],
                               modes=["kernel"])  # fmt: skip
    run_sweep(kernel, db, workers=1, say=lambda _: None)
    return load_results(db)


def test_every_plot_draws_its_points_without_script_errors(frame, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "report.html"
    write_report(frame, str(path))
    page = dom(path, tmp_path)
    body = re.search(r"<body([^>]*)>", page).group(1)  # type: ignore[union-attr]
    assert 'data-errors="0"' in body, re.search(r'<div id="errors">(.*?)</div>', page, re.S)
    assert 'data-plots="3"' in body  # zipf, loop (cache), loop (kernel)
    plots = re.findall(r'<svg id="plot-\d+"[^>]*>', page)
    assert len(plots) == 3
    for svg in plots:
        expected = re.search(r'data-points="(\d+)"', svg).group(1)  # type: ignore[union-attr]
        assert f'data-drawn="{expected}"' in svg
    # 3 sizes x 3 policies on each cache trace, 2 sizes x 1 policy in kernel mode: one circle per run
    assert page.count('class="point"') == len(frame) == 3 * 3 * 2 + 2
    assert page.count('class="floor"') == 2  # OPT's floor under each cache-mode curve
    assert "pgscan_kswapd" in page  # the kernel section's vmstat counters


def test_a_script_error_is_caught(frame, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The check above can fail: a report whose data is broken shows the error in the DOM."""
    path = tmp_path / "broken.html"
    write_report(frame, str(path))
    text = path.read_text()
    path.write_text(
        text.replace(
            '<script type="application/json" id="sweep-data">{',
            '<script type="application/json" id="sweep-data">{,',
        )
    )
    page = dom(path, tmp_path)
    assert 'data-errors="1"' in page and "data-plots" not in re.search(r"<body[^>]*>", page).group(0)  # type: ignore[union-attr]
