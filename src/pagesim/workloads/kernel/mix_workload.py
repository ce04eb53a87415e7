"""``mix``: cold anonymous memory beside a file working set larger than memory.

Source: the CAST seed (anon's share should fall to its floor). Task 0 allocates ``anon_share`` of
memory once; task 1 reads a file of ``file_factor`` times memory, ``passes`` times, in one of the
:data:`MIX_FILE_PATTERNS`. With ``stages`` the mix changes during the run (the split study's
changing conditions, :mod:`.study`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pagesim.trace import KIND_ANON, KIND_FILE, OP_READ, OP_WRITE, Trace
from pagesim.workloads.kernel.common import SCALED_MEMORY_PAGES, _anon_ids, _file_ids
from pagesim.workloads.synthetic import zipf_probabilities

#: Access patterns of the parameterised ``mix`` (file side and anon side).
MIX_FILE_PATTERNS = ("loop", "zipf", "scan", "phases", "uniform")
MIX_ANON_PATTERNS = ("cold", "zipf", "loop", "uniform")


def _pattern(
    pattern: str, n_pages: int, n: int, alpha: float, rng: np.random.Generator, passes_hint: int = 1
) -> np.ndarray:
    """``n`` page numbers in ``[0, n_pages)`` following ``pattern`` (see :func:`mix`)."""
    if n <= 0:
        return np.zeros(0, np.int64)
    if pattern == "loop":
        return np.arange(n, dtype=np.int64) % n_pages
    if pattern == "uniform":
        return rng.integers(0, n_pages, n, dtype=np.int64)
    if pattern == "zipf":
        ranks = rng.choice(n_pages, size=n, p=zipf_probabilities(n_pages, alpha))
        return rng.permutation(n_pages)[ranks].astype(np.int64)
    if pattern == "scan":  # a skewed working set, interrupted by sequential scans of the file
        out = np.asarray(_pattern("zipf", n_pages, n, alpha, rng), dtype=np.int64)
        run = max(n_pages // 32, 1)
        cursor = 0
        pos = 0
        while pos < n:
            pos += int(rng.integers(4 * run, 8 * run))
            take = min(run, n - pos)
            if take <= 0:
                break
            out[pos : pos + take] = (cursor + np.arange(take)) % n_pages
            cursor += take
            pos += take
        return out
    if pattern == "phases":  # the working set moves: four phases, each skewed over its quarter
        quarter = max(n_pages // 4, 1)
        parts = []
        for k, chunk in enumerate(np.array_split(np.arange(n), 4)):
            local = _pattern("zipf", quarter, chunk.size, alpha, rng)
            parts.append((local + k * quarter) % n_pages)
        return np.concatenate(parts)
    known = ", ".join(sorted(set(MIX_FILE_PATTERNS) | set(MIX_ANON_PATTERNS)))
    raise ValueError(f"unknown access pattern {pattern!r}; known: {known}")


def mix(
    memory_pages: int = SCALED_MEMORY_PAGES,
    anon_share: float = 0.65,
    file_factor: float = 1.5,
    passes: int = 4,
    file_pattern: str = "zipf",
    anon_pattern: str = "cold",
    anon_accesses: float = 0.0,
    alpha: float = 0.9,
    accesses: int | None = None,
    pace_ns: float = 0.0,
    seed: int = 0,
    stages: Sequence[Mapping[str, Any]] | None = None,
    anon_ratio: float | None = None,
    anon_same_filled: float = 0.0,
) -> Trace:
    """Anonymous memory beside a file working set: the CAST seed's anon/file conditions.

    The default is the seed's case ("cold anonymous memory next to a file working set larger
    than RAM"): cold anon (65 % of memory, written once) beside a file 1.5x memory whose pages
    are read with zipf skew 0.9, so more memory serves more of its reads and anon's share should
    fall to its floor. (A file read in sequential ``loop`` passes is not that case in pagesim:
    readahead serves a loop whatever memory it has, so it gains nothing from anon's memory and
    CAST rightly keeps the split; without readahead it is, see tests/unit/test_cast_tune.py.)
    With ``cold``
    anon the file's reader writes the anon first, so memory holds it (anon's share 65 % once the
    file fills the rest) when the reads begin ("starting from the share memory happened to
    have"); with other anon patterns task 0 writes it while task 1 reads. The
    parameters span the family of anon/file mixes the seed's 90-condition study draws from
    (skew, loops, scans, phases): :func:`mix_study_conditions` lists 90 of them.

    Parameters
    ----------
    memory_pages : int
    anon_share : float
        Anonymous memory task 0 allocates (writes once) at the start, as a share of memory.
    file_factor : float
        The file's size as a multiple of memory.
    passes : int
        With ``accesses`` unset: the main phase has ``passes * file pages`` accesses.
    file_pattern : str
        Task 1's reads of the file: ``loop`` (sequential passes, readahead applies), ``zipf``
        (skew ``alpha`` over the file's pages in random order), ``scan`` (zipf interrupted by
        sequential scans of 1/32 of the file every 4-8 scans' length), ``phases`` (four phases,
        each zipf over another quarter), ``uniform``.
    anon_pattern : str
        Task 0's accesses to its anon region after the allocation: ``cold`` (none), ``zipf``,
        ``loop``, ``uniform``; 30 % of them writes.
    anon_accesses : float
        Share of the main phase's accesses that are task 0's anon accesses (0 with ``cold``).
    alpha : float
        Zipf skew of the ``zipf``, ``scan`` and ``phases`` patterns.
    accesses : int, optional
        Accesses of the main phase (the seed's study: 2,000,000).
    pace_ns : float
        Model time between two main-phase accesses, ns (0, the default: no release times). The
        main phase's access ``j`` (counted over both tasks, in trace order) is released at
        ``j * pace_ns``; the allocation at 0. In kernel mode under ``schedule="time"`` each task
        runs on its own clock, so unpaced the fast anon task (~0.1 us an access) is done within
        milliseconds while the file task (~80 us a miss) runs for seconds; paced, both progress
        together and the anon share of the accesses holds through the run, as long as each task
        keeps up with its releases (one that falls behind runs as fast as it can). The ``time``
        column holds the release times (int64 ns, ``source["time_is_release"]``).
    seed : int
    stages : sequence of mappings, optional
        The workload changes during the run (None, the default: it does not). The main phase is
        cut into ``K = len(stages)`` stages of equal length (stage ``k`` is main accesses
        ``k * main // K`` to ``(k + 1) * main // K - 1``), and stage ``k`` takes its parameters
        from ``stages[k]``, any of ``anon_accesses``, ``anon_pattern``, ``file_pattern`` and
        ``alpha`` (a missing key: the argument above) and ``anon_ws``, ``file_ws`` (the share of
        the anon region / of the file the stage's accesses fall on: pages ``[0, share * pages)``,
        at least one; default 1.0, all of it). Each stage draws its pattern afresh (a ``loop``
        starts again at page 0, a ``zipf`` ranks its pages in a new random order). The
        allocation does not change: it is the whole region, written by tag 1 if ``anon_pattern``
        (the argument) is ``cold``, else by tag 0. With ``stages=[{}]`` the trace is the one
        without ``stages``. Example, anon hot then file hot: ``stages=[{"anon_accesses": 0.6},
        {"anon_accesses": 0.05}]``.
    anon_ratio : float, optional
        How many to one the anon region's data compresses in zram (>= 1; None, the default: the
        node's zram ratio, 3:1 unless ``KernelConfig.zram_ratio`` says otherwise). A region
        written with a constant or a short repeating pattern, as memory stress tools write,
        compresses far better than the 2-3:1 of lz4 on typical data.
    anon_same_filled : float
        Share of the anon region's pages whose every word is the same value (zeroed, or filled
        with one byte), which zram keeps in no memory (0.0, the default: none). Spread evenly
        over the region (:func:`pagesim.engine.zram.same_filled_mask`).

    Returns
    -------
    Trace
        Tag 0: anon (allocation, then its accesses; with ``cold`` the allocation is tag 1's,
        before its reads); tag 1: file reads; main-phase accesses interleaved at random in the
        given shares. With ``pace_ns > 0``, release times in ``time`` (ns).

    Raises
    ------
    ValueError
        For an unknown pattern, shares outside [0, 1], a negative ``pace_ns``, ``stages`` that
        is not a non-empty sequence of mappings, a stage key not listed above, an ``anon_ratio``
        below 1 or an ``anon_same_filled`` outside [0, 1].
    """
    top = {
        "anon_accesses": anon_accesses,
        "anon_pattern": anon_pattern,
        "file_pattern": file_pattern,
        "alpha": alpha,
        "anon_ws": 1.0,
        "file_ws": 1.0,
    }
    plan = _mix_stages(top, stages)
    if not 0 <= anon_share <= 1:
        raise ValueError("anon_share and anon_accesses must be within [0, 1]")
    if pace_ns < 0:
        raise ValueError(f"pace_ns must be >= 0, got {pace_ns}")
    if anon_ratio is not None and not anon_ratio >= 1:
        raise ValueError(f"anon_ratio must be >= 1 (or None: the node's zram ratio), got {anon_ratio}")
    if not 0 <= anon_same_filled <= 1:
        raise ValueError(f"anon_same_filled must be within [0, 1], got {anon_same_filled}")
    rng = np.random.default_rng(seed)
    anon = max(int(memory_pages * anon_share), 1)
    file_pages = max(int(memory_pages * file_factor), 1)
    main = int(accesses) if accesses is not None else passes * file_pages
    edges = [k * main // len(plan) for k in range(len(plan) + 1)]
    shares = [0.0 if st["anon_pattern"] == "cold" else float(st["anon_accesses"]) for st in plan]
    per_access = np.repeat(shares, np.diff(edges))
    is_anon = rng.random(main) < per_access if max(shares) > 0 else np.zeros(main, bool)
    n_anon = int(is_anon.sum())
    anon_parts, file_parts = [], []
    for st, lo, hi in zip(plan, edges[:-1], edges[1:]):
        n_a = int(is_anon[lo:hi].sum())
        a_pages = max(int(anon * st["anon_ws"]), 1)
        f_pages = max(int(file_pages * st["file_ws"]), 1)
        pat, a = st["anon_pattern"], st["alpha"]
        anon_parts.append(_pattern(pat, a_pages, n_a, a, rng) if n_a else np.zeros(0, np.int64))
        file_parts.append(_pattern(st["file_pattern"], f_pages, hi - lo - n_a, a, rng))
    main_ids = np.empty(main, np.int64)
    main_ids[is_anon] = _anon_ids(0, np.concatenate(anon_parts))
    main_ids[~is_anon] = _file_ids(0, np.concatenate(file_parts))
    main_op = np.full(main, OP_READ, np.uint8)
    main_op[np.flatnonzero(is_anon)[rng.random(n_anon) < 0.3]] = OP_WRITE
    ids = np.concatenate([_anon_ids(0, np.arange(anon)), main_ids])
    kind = np.concatenate([np.full(anon, KIND_ANON, np.uint8), np.where(is_anon, KIND_ANON, KIND_FILE)])
    op = np.concatenate([np.full(anon, OP_WRITE, np.uint8), main_op])
    # cold anon: the file's reader wrote it first, so memory holds it when the reads begin
    first = 1 if anon_pattern == "cold" else 0
    tag = np.concatenate([np.full(anon, first, np.int32), np.where(is_anon, 0, 1).astype(np.int32)])
    paced = _mix_release_times(anon, main, pace_ns) if pace_ns > 0 else None
    stated = anon_ratio is not None or anon_same_filled > 0
    compression = [{"tag": first, "ratio": anon_ratio, "same_filled": anon_same_filled}] if stated else None
    return Trace.from_ids(
        ids,
        kind=kind.astype(np.uint8),
        op=op,
        tag=tag,
        time=paced,
        source={
            "format": "workload",
            "workload": "mix",
            "params": {
                "memory_pages": memory_pages,
                "anon_share": anon_share,
                "file_factor": file_factor,
                "passes": passes,
                "file_pattern": file_pattern,
                "anon_pattern": anon_pattern,
                "anon_accesses": anon_accesses,
                "alpha": alpha,
                "accesses": accesses,
                "pace_ns": pace_ns,
                "seed": seed,
                **({"stages": [dict(st) for st in stages]} if stages is not None else {}),
                **({"anon_ratio": anon_ratio, "anon_same_filled": anon_same_filled} if stated else {}),
            },
            "memory_pages": memory_pages,
            "groups": {"anon": [0], "file reader": [1]},
            **({"anon_compression": compression} if compression else {}),
            **({"time_unit": "ns", "time_is_release": True} if paced is not None else {}),
        },
    )


#: Keys a stage of :func:`mix` may set.
MIX_STAGE_KEYS = ("anon_accesses", "anon_pattern", "file_pattern", "alpha", "anon_ws", "file_ws")


def _mix_stages(top: dict[str, Any], stages: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """The parameters of each stage of :func:`mix`: ``top`` overridden by each stage's keys, checked."""
    if stages is not None and (isinstance(stages, str) or not all(isinstance(st, Mapping) for st in stages)):
        raise ValueError(f"stages must be a sequence of mappings (stage -> its parameters), got {stages!r}")
    if stages is not None and len(stages) == 0:
        raise ValueError("stages must hold at least one stage (None: the workload does not change)")
    plan = []
    for k, st in enumerate(stages if stages is not None else [{}]):
        unknown = set(st) - set(MIX_STAGE_KEYS)
        if unknown:
            raise ValueError(
                f"stage {k} has no key {', '.join(sorted(unknown))}; known: {', '.join(MIX_STAGE_KEYS)}"
            )
        p = {**top, **st}
        if p["file_pattern"] not in MIX_FILE_PATTERNS:
            raise ValueError(
                f"unknown file_pattern {p['file_pattern']!r}; known: {', '.join(MIX_FILE_PATTERNS)}"
            )
        if p["anon_pattern"] not in MIX_ANON_PATTERNS:
            raise ValueError(
                f"unknown anon_pattern {p['anon_pattern']!r}; known: {', '.join(MIX_ANON_PATTERNS)}"
            )
        if not 0 <= p["anon_accesses"] <= 1:
            raise ValueError("anon_share and anon_accesses must be within [0, 1]")
        if not (0 < p["anon_ws"] <= 1 and 0 < p["file_ws"] <= 1):
            raise ValueError(f"stage {k}: anon_ws and file_ws must be within (0, 1]")
        plan.append(p)
    return plan


def _mix_release_times(allocation: int, main: int, pace_ns: float) -> np.ndarray:
    """Release times of :func:`mix` (int64 ns): the allocation at 0, main access j at j * pace_ns."""
    return np.concatenate(
        [np.zeros(allocation, np.int64), np.round(np.arange(main) * pace_ns).astype(np.int64)]
    )
