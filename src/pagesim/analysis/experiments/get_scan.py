"""GET-SCAN (paper Fig. 10): 3 GET threads beside a thread of long scans, on the queued SATA SSD,
and the paper's fadvise baselines: the default policy with the scan thread's hints."""

from __future__ import annotations

from collections.abc import Sequence

from pagesim.analysis.experiments.records import (
    BASELINE,
    EXPERIMENT_POLICIES,
    QUEUED_DEVICE,
    SMALL_SCALE,
    Experiment,
)
from pagesim.analysis.experiments.runs import Progress, _each, _policy, measure, node_for
from pagesim.trace import hint_code
from pagesim.workloads.cache_ext import (
    build_get_scan,
    scan_fadvise,
)

#: The paper's fadvise baselines (cache_ext eval/get-scan/run.sh ``--fadvise-hints
#: ",SEQUENTIAL,NOREUSE,DONTNEED"``), in its order.
FADVISE_BASELINES = ("SEQUENTIAL", "NOREUSE", "DONTNEED")

#: cache_ext_results §5 (Fig. 10): GET ops/s, GET P99 (ms) and SCAN ops/s of each configuration;
#: the default's are 1,685, 34.65 and 47.1.
PAPER_FIGURES = {
    BASELINE: (1685, 34.65, 47.1),
    "mglru": (1450, 46.29, 43.4),
    "get-scan": (2868, 14.74, 38.7),
    f"{BASELINE}+SEQUENTIAL": (1714, 34.90, 45.9),
    f"{BASELINE}+NOREUSE": (1702, 34.79, 45.8),
    f"{BASELINE}+DONTNEED": (1691, 34.91, 45.7),
}
#: The same relative to the default, by the experiment's metric labels.
PAPER = {
    name: {label: value / base for label, value, base in
           zip(("GET ops/s", "GET P99 ms", "SCAN ops/s"), figures, PAPER_FIGURES[BASELINE])}
    for name, figures in PAPER_FIGURES.items() if name != BASELINE
}  # fmt: skip

FADVISE_NOTE = (
    "fadvise rows: linux-lru with the scan thread's hints (the harness sets ENABLE_SCAN_FADVISE "
    "for the default policy's cgroup only); the LevelDB fork's calls are not public: the scan "
    "hints each SSTable it enters, and DONTNEED drops the data pages it read of a file before "
    "its next read (docs/experiments.md, 'The fadvise baselines')"
)


def get_scan_experiment(
    policies: Sequence[str] = EXPERIMENT_POLICIES["get-scan"],
    scale: float = SMALL_SCALE * 4,
    gets: int | None = None,
    seed: int = 0,
    latency_window: int = 30_000,
    progress: Progress | None = None,
    device: str = QUEUED_DEVICE,
    fadvise: Sequence[str] = FADVISE_BASELINES,
) -> Experiment:
    """GET-SCAN (paper Fig. 10): 3 GET threads beside a thread of long scans.

    ``device`` is the file device (default the paper's SATA SSD with its queue; ``ssd``: each
    request timed alone). The run stops when the first thread is done (``stop = first``): the
    paper's runs last a fixed time with every thread running, while with ``all`` the threads
    left alone at the end (the GET threads, under linux-lru) run without the scan's I/O.
    Metrics: GET ops/s, GET P99, SCAN ops/s, disk reads.

    ``fadvise``: the paper's fadvise baselines, one row ``linux-lru+HINT`` each after the
    policies' rows (run when linux-lru is among ``policies``): the default policy with the scan
    thread's ``posix_fadvise`` calls (:func:`~pagesim.workloads.cache_ext.scan_fadvise`: the
    scan hints each SSTable it enters; DONTNEED drops the data pages it read of a file once it
    leaves it), carried out as Linux 6.6 does (:mod:`pagesim.engine.kmode.fadvise`: SEQUENTIAL
    doubles the scan's readahead window, NOREUSE changes nothing for ``pread``). Empty: none.

    Raises
    ------
    ValueError
        For an unknown hint.
    """
    hints = [str(h).strip().upper().removeprefix("POSIX_FADV_") for h in fadvise]
    for h in hints:
        hint_code(h)  # an unknown hint fails before any run
    o = build_get_scan(scale=scale, gets=gets, seed=seed)
    node = node_for(o.trace, file_device=device, stop="first")
    runs = _each(o, "get-scan", policies, progress, latency_window=latency_window, config=node)
    if BASELINE in policies:
        for h in hints:
            label = f"{BASELINE}+{h}"
            if progress:
                progress(f"get-scan: {label}")
            runs.append(
                measure(o, _policy(BASELINE, o), label=label, workload="get-scan",
                        latency_window=latency_window, config=node, advice=scan_fadvise(o, h))
            )  # fmt: skip
    return Experiment(
        "get-scan", runs,
        [("GET ops/s", "throughput", "get"), ("GET P99 ms", "p99_ms", "get"),
         ("SCAN ops/s", "throughput", "scan"), ("disk reads", "disk_read_pages", "all")],
        {"get-scan": PAPER},
        {"scale": scale, "gets": gets, "seed": seed, "policies": list(policies), "device": device,
         "fadvise": hints},
        notes=[FADVISE_NOTE] if hints and BASELINE in policies else [],
    )  # fmt: skip
