"""Automatic policy choice (auto): each cgroup runs whichever candidate policy its shadows show best.

Source      The method joins two papers. cache_ext (Zussman et al., "cache_ext: Customizing the
            Page Cache with eBPF", SOSP 2025, §6) finds that no single policy wins across its
            workloads and names choosing one per workload as open work. CAST (the seed in
            ../shared/seeds, docs/cast.md) shows how to choose at run time: simulated caches on
            a sample of pages, compared on the accesses where they disagree by a sign test, the
            live cache following the winner. The sample is SHARDS' spatial hash sample
            (Waldspurger et al., FAST'15) and each shadow a miniature simulation of a candidate
            (Waldspurger, Saemundsson, Ahmad, Park, USENIX ATC'17).
Structures  None of its own in the page state: the cgroup's pages are held by the live
            candidate's own structures. Beside the run, one shadow engine run per candidate over
            the sampled pages' accesses (pagesim.engine.auto).
Rules       Every ``epoch`` accesses the shadows catch up with the live run, block by block of
            ``block`` sampled accesses; over the last ``window`` epochs the candidate with the
            fewest shadow misses is tested against the live one by z = sum(d) / sqrt(sum(d^2)),
            d the difference of their misses per block (one access per block: CAST's sign test,
            (plus - minus) / sqrt(plus + minus)). The cgroup's pages pass to the challenger
            (pagesim.engine.switch) once z >= ``threshold`` with sum(d^2) >= ``min_disagree``
            at ``lead`` epoch ends in a row, and ``lead`` epochs after the last switch.
Parameters  candidates = "" (comma-separated registry names; "" is the cache_ext suite ce-fifo,
            ce-lfu, ce-lhd, ce-mru, ce-s3fifo, ce-mglru and the kernel's default: linux-lru
            in kernel mode, lru in cache mode). start = "" (the candidate run first; "" the
            kernel's default if a candidate, else the first). rate = 0.01 and min_pages = 400:
            the sampling rate is R = min(1, max(rate, min_pages / c)) for a cgroup of c pages,
            the shadows' caches c x R pages (advise's floor, docs/auto.md). epoch = 0 (accesses
            between decisions; 0: the cgroup's capacity c, the time a cache's contents can
            turn over). block = 32 sampled accesses. window = 32 and short_window = 8 (epochs:
            the two windows the evidence must pass on). threshold = 3.0. min_disagree = 16
            (CAST's). lead = 2 epochs. seed = 0 (hash seed).
Complexity  The shadows cost about R x (number of candidates) of the live run's hook work, plus
            one Python call per block and shadow; their memory is R x the trace's pages per
            candidate (reported in the results).
Deviations  Cache mode only in pages (not bytes). The shadows are cache-mode runs in both
            modes: in kernel mode they see the cgroup's accesses and frees, not readahead,
            reclaim batches or the anon/file split.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pagesim.core.jit import kernel
from pagesim.core.layout import Layout
from pagesim.core.state import State
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

#: auto keeps nothing in a State: the live candidate's state is the candidate's own, and the
#: shadows are runs of their own (pagesim.engine.auto).
STATE = Layout("auto")

#: The cache_ext suite (cache_ext §5: its six policies as eBPF programs).
CACHE_EXT_SUITE = ("ce-fifo", "ce-lfu", "ce-lhd", "ce-mru", "ce-s3fifo", "ce-mglru")
#: The kernel's default policy per mode: the legacy active/inactive LRU, or plain LRU in cache mode.
KERNEL_DEFAULT = {"kernel": "linux-lru", "cache": "lru"}


@kernel
def _init_refused(s, a):  # type: ignore[no-untyped-def]
    return -1


class Auto(Policy):
    """Automatic policy choice per cgroup; see the module docstring.

    The engine (:class:`pagesim.engine.simulate.Run`, ``KernelRun``) replaces it by its start
    candidate and drives the shadows; its own hooks are never run (``init`` refuses, should a
    runner be built for the class).
    """

    name = "auto"
    description = "switch each cgroup to the candidate policy its sampled shadow caches show best"
    params: ClassVar[dict[str, Any]] = defaults("auto")  # policies/params.toml
    init = staticmethod(_init_refused)

    def __init__(self, **overrides: Any) -> None:
        super().__init__(**overrides)
        v = self.values
        if isinstance(v["candidates"], (list, tuple)):
            v["candidates"] = ",".join(str(c) for c in v["candidates"])
        checks = {
            "rate": 0 < float(v["rate"]) <= 1,
            "min_pages": int(v["min_pages"]) >= 1,
            "epoch": int(v["epoch"]) >= 0,
            "block": int(v["block"]) >= 1,
            "window": int(v["window"]) >= 1,
            "short_window": int(v["short_window"]) >= 1,
            "threshold": float(v["threshold"]) > 0,
            "min_disagree": int(v["min_disagree"]) >= 1,
            "lead": int(v["lead"]) >= 1,
        }
        bad = [k for k, ok in checks.items() if not ok]
        if bad:
            raise ValueError(
                f"auto: bad {bad[0]}={v[bad[0]]!r} (rate in (0, 1], epoch >= 0, threshold > 0, "
                "min_pages, block, window, min_disagree, lead >= 1)"
            )
        self.controller: Any = None  #: set by the engine: the cgroup's pagesim.engine.auto.AutoCgroup

    def candidate_names(self, mode: str) -> list[str]:
        """The candidates' registry names for ``mode`` ("cache" or "kernel"), in order, no repeats.

        Raises
        ------
        ValueError
            If ``candidates`` names ``auto`` itself or is empty after splitting.
        """
        text = str(self.values["candidates"]).strip()
        names = (
            [n.strip() for n in text.split(",") if n.strip()]
            if text
            else [*CACHE_EXT_SUITE, KERNEL_DEFAULT[mode]]
        )
        names = list(dict.fromkeys(names))
        if not names or any(n.lower() == self.name for n in names):
            raise ValueError(f"auto: candidates must name other policies, got {text!r}")
        return names

    def start_name(self, mode: str) -> str:
        """The candidate the cgroup runs first (``start``, else the kernel's default, else the first)."""
        names = self.candidate_names(mode)
        start = str(self.values["start"]).strip()
        if start:
            if start not in names:
                raise ValueError(f"auto: start={start!r} is not a candidate ({', '.join(names)})")
            return start
        return KERNEL_DEFAULT[mode] if KERNEL_DEFAULT[mode] in names else names[0]

    def configure(self, s: State, capacity: int) -> None:
        """Refuse: the engine runs a candidate in auto's place (pagesim.engine.auto)."""
        raise RuntimeError(
            "auto is driven by the engine (Run, KernelRun): it cannot run as a policy's hooks here"
        )

    def readouts(self, s: State) -> dict[str, float]:
        """The live candidate's index, each shadow's misses and the shadows' cost, once attached."""
        return {} if self.controller is None else self.controller.readouts()

    def describe(self, s: State) -> str:
        """The switches and the evidence for each, as text."""
        return "" if self.controller is None else self.controller.describe()
