"""The cache_ext paper's experiments in kernel mode: each policy of the suite beside the kernel's.

Source: cache_ext spec §5 and cache_ext_results (Zussman et al., SOSP 2025, §6: Figs. 6 and 8-11,
§6.1.5). Each experiment generates its workload (:mod:`pagesim.workloads.cache_ext`), runs it
on a simulated node with ``linux-lru`` (the paper's default), ``mglru`` and the cache_ext
policies (GET-SCAN also with the default policy under the paper's fadvise hints,
:data:`~.get_scan.FADVISE_BASELINES`), and measures what the paper measured, relative to the
default:

* throughput: application operations per second (a GET, a scan, a file read), summed over a
  group's threads, each thread on its own CPU, over the accesses after the warm-up;
* P99 latency: of whole operations (the sum of their accesses' times, waits included), over a
  window of ``latency_window`` accesses after the warm-up, stepped one access at a time because
  kernel mode keeps only a histogram of single accesses;
* disk I/O: pages read from the file device (``pgpgin``, demand and readahead) and written
  back (``pgpgout``) after the warm-up.

Scales are of the paper's setup (``scale=1``: a 100 GiB database in a 10 GiB cgroup); the
defaults run in seconds.

Modules: :mod:`.records` (what is compared and returned), :mod:`.runs` (one run), one module per
experiment (:mod:`.ycsb`, :mod:`.twitter`, :mod:`.file_search`, :mod:`.get_scan`, :mod:`.isolation`,
:mod:`.admission`, :mod:`.overhead`); every public name is re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable

from pagesim.analysis.experiments.admission import ADMISSION_WORKLOAD, admission_experiment
from pagesim.analysis.experiments.file_search import file_search_experiment
from pagesim.analysis.experiments.get_scan import get_scan_experiment
from pagesim.analysis.experiments.isolation import isolation_experiment, isolation_ops
from pagesim.analysis.experiments.overhead import (
    PAPER_OVERHEAD,
    harmonic_mean,
    overhead_experiment,
    overhead_summary,
    registry_share,
)
from pagesim.analysis.experiments.records import (
    BASELINE,
    EXPERIMENT_POLICIES,
    OOM,
    QUEUED_DEVICE,
    SMALL_SCALE,
    YCSB_WORKLOADS,
    Experiment,
    Measured,
)
from pagesim.analysis.experiments.runs import LRU_ADD_BATCH, Progress, measure, node_for
from pagesim.analysis.experiments.twitter import PAPER_TWITTER, twitter_experiment
from pagesim.analysis.experiments.ycsb import ycsb_experiment

#: name -> experiment function (``pagesim experiment NAME``).
EXPERIMENTS: dict[str, Callable[..., Experiment]] = {
    "ycsb": ycsb_experiment,
    "twitter": twitter_experiment,
    "file-search": file_search_experiment,
    "get-scan": get_scan_experiment,
    "isolation": isolation_experiment,
    "admission": admission_experiment,
    "overhead": overhead_experiment,
}

__all__ = [
    "BASELINE",
    "QUEUED_DEVICE",
    "SMALL_SCALE",
    "EXPERIMENT_POLICIES",
    "YCSB_WORKLOADS",
    "OOM",
    "Measured",
    "Experiment",
    "node_for",
    "measure",
    "LRU_ADD_BATCH",
    "Progress",
    "ycsb_experiment",
    "PAPER_TWITTER",
    "twitter_experiment",
    "file_search_experiment",
    "get_scan_experiment",
    "isolation_ops",
    "isolation_experiment",
    "ADMISSION_WORKLOAD",
    "admission_experiment",
    "PAPER_OVERHEAD",
    "registry_share",
    "harmonic_mean",
    "overhead_experiment",
    "overhead_summary",
    "EXPERIMENTS",
]
