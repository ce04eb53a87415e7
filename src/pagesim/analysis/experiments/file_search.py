"""ripgrep over a tree in a 1 GiB cgroup (paper Fig. 9), ten passes, the whole run measured."""

from __future__ import annotations

from collections.abc import Sequence

from pagesim.analysis.experiments.records import EXPERIMENT_POLICIES, SMALL_SCALE, Experiment
from pagesim.analysis.experiments.runs import Progress, _each
from pagesim.workloads.cache_ext import (
    build_file_search,
)

#: Why the file search has no fadvise rows.
NO_FADVISE = (
    "no fadvise baseline: the paper's harness passes no hint here (cache_ext eval/filesearch/"
    "run.sh gives no --fadvise-hints; ripgrep takes none), so none is run"
)


def file_search_experiment(
    policies: Sequence[str] = EXPERIMENT_POLICIES["file-search"],
    scale: float = SMALL_SCALE * 16,
    passes: int = 10,
    seed: int = 0,
    progress: Progress | None = None,
    latency_window: int | None = None,
) -> Experiment:
    """ripgrep x 10 in a 1 GiB cgroup (paper Fig. 9): the whole run is measured (no warm-up).

    Metrics: files per second (its ratio is the speed-up), runtime of the passes (s), P99 of
    a file read (the time to read one whole file, over the first ``latency_window`` accesses;
    default the whole run) and disk reads. The paper reports no P99 for this experiment.
    No fadvise baseline: the paper ran none here (:data:`NO_FADVISE`).
    """
    o = build_file_search(scale=scale, passes=passes, seed=seed)
    window = o.trace.n_requests if latency_window is None else latency_window
    runs = _each(o, "file-search", policies, progress, warmup_share=0.0, latency_window=window)
    paper = {"file-search": {"mglru": {"files/s": 44.42 / 44.23}, "ce-mru": {"files/s": 44.42 / 24.68}}}
    return Experiment(
        "file-search", runs,
        [("files/s", "throughput", "search"), ("runtime s", "runtime_s", "search"),
         ("file P99 ms", "p99_ms", "search"), ("disk reads", "disk_read_pages", "all")],
        paper, {"scale": scale, "passes": passes, "seed": seed, "policies": list(policies)},
        notes=[NO_FADVISE],
    )  # fmt: skip
