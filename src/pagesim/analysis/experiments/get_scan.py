"""GET-SCAN (paper Fig. 10): 3 GET threads beside a thread of long scans, on the queued SATA SSD."""

from __future__ import annotations

from collections.abc import Sequence

from pagesim.analysis.experiments.records import EXPERIMENT_POLICIES, QUEUED_DEVICE, SMALL_SCALE, Experiment
from pagesim.analysis.experiments.runs import Progress, _each, node_for
from pagesim.workloads.cache_ext import (
    build_get_scan,
)


def get_scan_experiment(
    policies: Sequence[str] = EXPERIMENT_POLICIES["get-scan"],
    scale: float = SMALL_SCALE * 4,
    gets: int | None = None,
    seed: int = 0,
    latency_window: int = 30_000,
    progress: Progress | None = None,
    device: str = QUEUED_DEVICE,
) -> Experiment:
    """GET-SCAN (paper Fig. 10): 3 GET threads beside a thread of long scans.

    ``device`` is the file device (default the paper's SATA SSD with its queue; ``ssd``: each
    request timed alone). The run stops when the first thread is done (``stop = first``): the
    paper's runs last a fixed time with every thread running, while with ``all`` the threads
    left alone at the end (the GET threads, under linux-lru) run without the scan's I/O.
    Metrics: GET ops/s, GET P99, SCAN ops/s, disk reads.
    """
    o = build_get_scan(scale=scale, gets=gets, seed=seed)
    node = node_for(o.trace, file_device=device, stop="first")
    runs = _each(o, "get-scan", policies, progress, latency_window=latency_window, config=node)
    paper = {"get-scan": {"mglru": {"GET ops/s": 0.86, "GET P99 ms": 46.29 / 34.65,
                                    "SCAN ops/s": 43.4 / 47.1},
                          "get-scan": {"GET ops/s": 1.70, "GET P99 ms": 14.74 / 34.65,
                                       "SCAN ops/s": 38.7 / 47.1}}}  # fmt: skip
    return Experiment(
        "get-scan", runs,
        [("GET ops/s", "throughput", "get"), ("GET P99 ms", "p99_ms", "get"),
         ("SCAN ops/s", "throughput", "scan"), ("disk reads", "disk_read_pages", "all")],
        paper, {"scale": scale, "gets": gets, "seed": seed, "policies": list(policies), "device": device},
    )  # fmt: skip
