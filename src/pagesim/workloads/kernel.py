"""Workloads for kernel mode: the seeds' experiments as seeded access generators.

Each generator returns a :class:`~pagesim.trace.Trace` with ``kind`` (anon/file), ``op``, ``tag``
(the task) and, in ``source``, the node it was designed for (``memory_pages``), so that
``pagesim run NAME`` simulates it on that node unless told otherwise. Defaults are the seeds'
setups scaled down 64 times (8 GiB -> 128 MiB = 32,768 pages) to run in seconds; the full sizes
are a parameter away (``memory_pages=2097152``).

* ``stress-vm`` -- ``stress-ng --vm 8 --vm-bytes 9000M --vm-keep --vm-method write64`` in 8 GB
  (CAST seed, Results): 8 workers each writing through its own anonymous region, 9000 MB in all,
  larger than memory. write64 writes every 64-bit word of the region in order, so at page
  granularity a pass writes each page once; workers run in parallel, modelled as slices of
  consecutive pages interleaved in a random order.
* ``stream-ws`` -- a 300 MB working set (of 8 GB) read every 100 ms while ``tail /dev/zero``
  buffers its input without end until the OOM killer takes it (CAST seed): task 0 reads its
  anonymous working set once per period; task 1 writes ``stream_pages_per_period`` new anonymous
  pages per period and never touches them again.
* ``mix`` -- cold anonymous memory beside a file working set larger than memory (CAST seed:
  anon's share should fall to its floor): task 0 allocates ``anon_share`` of memory once; task 1
  reads a file of ``file_factor`` times memory sequentially, ``passes`` times. With ``stages``
  the mix changes during the run (the split study's changing conditions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pagesim.trace import KIND_ANON, KIND_FILE, OP_READ, OP_WRITE, Trace
from pagesim.workloads.synthetic import Workload, zipf_probabilities

SCALED_MEMORY_PAGES = 32768  #: 8 GiB / 64, in 4 KiB pages


def _anon_ids(task: int, pages: np.ndarray) -> np.ndarray:
    """Source ids of a task's anonymous pages: the task in the high bits, the page below."""
    return (np.int64(task + 1) << np.int64(40)) | pages.astype(np.int64)


def _file_ids(file_no: int, pages: np.ndarray) -> np.ndarray:
    """Source ids of a file's pages: consecutive, so readahead finds the next page."""
    return (np.int64(1) << np.int64(60)) + np.int64(file_no << 32) + pages.astype(np.int64)


def _interleave(
    streams: list[np.ndarray], slice_len: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Merge per-task access arrays in slices of ``slice_len``, tasks in random order each round.

    Returns the merged ids and the task of each access.
    """
    chunks: list[tuple[int, np.ndarray]] = []
    pos = [0] * len(streams)
    while True:
        live = [i for i, s in enumerate(streams) if pos[i] < s.size]
        if not live:
            break
        for i in rng.permutation(live):
            s = streams[i]
            chunks.append((int(i), s[pos[i] : pos[i] + slice_len]))
            pos[i] += slice_len
    ids = np.concatenate([c for _, c in chunks]) if chunks else np.zeros(0, np.int64)
    tags = (
        np.concatenate([np.full(c.size, t, np.int32) for t, c in chunks]) if chunks else np.zeros(0, np.int32)
    )
    return ids, tags


def stress_vm(
    workers: int = 8,
    memory_pages: int = SCALED_MEMORY_PAGES,
    vm_bytes_ratio: float = 9000 / 8192,
    passes: int = 8,
    slice_pages: int = 64,
    seed: int = 0,
    stop: str = "first",
) -> Trace:
    """stress-ng --vm: ``workers`` tasks writing through private regions larger than memory together.

    Parameters
    ----------
    workers : int
        Number of vm workers (stress-ng ``--vm``).
    memory_pages : int
        Pages of the node the workload is sized for.
    vm_bytes_ratio : float
        All regions together, as a multiple of memory (``--vm-bytes 9000M`` in 8 GiB).
    passes : int
        Passes each worker makes over its region.
    slice_pages : int
        Pages a worker writes before another may run (the interleaving grain).
    seed : int
    stop : str
        ``"first"`` (default): the run ends when the first worker has made its ``passes``, as
        stress-ng's ``--timeout`` stops every worker at once (a worker whose region stays
        resident makes more passes meanwhile rather than finishing early and leaving its memory
        to the others); ``"all"``: every worker makes all its passes. Kernel mode reads it from
        ``source["stop"]`` (:class:`pagesim.engine.memory.KernelConfig`).

    Returns
    -------
    Trace
        ``workers * passes * region`` anon writes; tag = worker.
    """
    if workers <= 0 or passes <= 0 or memory_pages <= 0 or slice_pages <= 0:
        raise ValueError("workers, passes, memory_pages and slice_pages must be positive")
    if stop not in ("first", "all"):
        raise ValueError(f"stop must be 'first' or 'all', got {stop!r}")
    region = max(int(round(memory_pages * vm_bytes_ratio / workers)), 1)
    rng = np.random.default_rng(seed)
    streams = [np.tile(_anon_ids(w, np.arange(region)), passes) for w in range(workers)]
    ids, tags = _interleave(streams, slice_pages, rng)
    n = ids.size
    return Trace.from_ids(
        ids,
        kind=np.full(n, KIND_ANON, np.uint8),
        op=np.full(n, OP_WRITE, np.uint8),
        tag=tags,
        source={
            "format": "workload",
            "workload": "stress-vm",
            "params": {
                "workers": workers,
                "memory_pages": memory_pages,
                "vm_bytes_ratio": vm_bytes_ratio,
                "passes": passes,
                "slice_pages": slice_pages,
                "seed": seed,
                "stop": stop,
            },
            "memory_pages": memory_pages,
            "region_pages": region,
            "stop": stop,
            "groups": {"worker": list(range(workers))},
        },
    )


def stream_ws(
    memory_pages: int = SCALED_MEMORY_PAGES,
    ws_ratio: float = 300 / 8192,
    stream_pages_per_period: int | None = None,
    swap_ratio: float = 1.0,
    extra_periods: int = 20,
    period_ms: float | None = None,
    seed: int = 0,
) -> Trace:
    """A working set read every period while a streaming allocation grows until it is killed.

    Parameters
    ----------
    memory_pages : int
        Pages of the node.
    ws_ratio : float
        The working set, as a share of memory (300 MB of 8 GiB).
    stream_pages_per_period : int, optional
        Pages the stream allocates per period (default memory / 80: ~100 MB per 100 ms at
        8 GiB).
    swap_ratio : float
        Swap size as a share of memory that the stream must exhaust before the OOM killer
        acts; the stream grows until it has written memory * (1 + swap_ratio) pages, then
        ``extra_periods`` more.
    extra_periods : int
        Periods appended after that (the working set alone once the stream is gone).
    period_ms : float, optional
        Model time between two reads of the working set (default 100 ms scaled with the node:
        100 * memory_pages / 2,097,152, so 1.5625 ms at 1/64). Each read of the working set is
        released at the start of its period; the stream's pages at its nominal rate,
        ``stream_pages_per_period`` per period (about 1 GB/s at 8 GiB): both go slower only when
        they wait. The ``time`` column holds these release times (ns).
    seed : int
        Draws which of the two tasks comes first within each period in trace order. Under
        ``KernelConfig(schedule="time")`` (the default) the release times decide the order, so
        ``seed`` changes nothing there: the workload is deterministic (the two runs the CAST
        document reports differ by timing the model does not have). It matters under ``schedule="trace"``.

    Returns
    -------
    Trace
        Tag 0: the working set (anon reads, first touch a write); tag 1: the stream (anon writes).
    """
    ws = max(int(round(memory_pages * ws_ratio)), 1)
    grow = stream_pages_per_period or max(memory_pages // 80, 1)
    periods = int(np.ceil(memory_pages * (1 + swap_ratio) / grow)) + extra_periods
    rng = np.random.default_rng(seed)
    ws_ids = _anon_ids(0, np.arange(ws))
    parts_ids: list[np.ndarray] = []
    parts_tag: list[np.ndarray] = []
    parts_op: list[np.ndarray] = []
    parts_when: list[np.ndarray] = []
    period_ns = int(round((period_ms if period_ms is not None else 100.0 * memory_pages / 2097152) * 1e6))
    if period_ns <= 0:
        raise ValueError("period_ms must be positive")
    written = 0
    for period in range(periods):
        stream = _anon_ids(1, np.arange(written, written + grow))
        stream_when = period * period_ns + (np.arange(grow, dtype=np.int64) * period_ns) // grow
        written += grow
        order = [0, 1] if rng.random() < 0.5 else [1, 0]
        for who in order:
            if who == 0:
                parts_ids.append(ws_ids)
                parts_tag.append(np.zeros(ws, np.int32))
                parts_op.append(np.full(ws, OP_WRITE if period == 0 else OP_READ, np.uint8))
                parts_when.append(np.full(ws, period * period_ns, np.int64))
            else:
                parts_ids.append(stream)
                parts_tag.append(np.ones(grow, np.int32))
                parts_op.append(np.full(grow, OP_WRITE, np.uint8))
                parts_when.append(stream_when)
    ids = np.concatenate(parts_ids)
    return Trace.from_ids(
        ids,
        kind=np.full(ids.size, KIND_ANON, np.uint8),
        op=np.concatenate(parts_op),
        tag=np.concatenate(parts_tag),
        time=np.concatenate(parts_when),
        source={
            "format": "workload",
            "workload": "stream-ws",
            "params": {
                "memory_pages": memory_pages,
                "ws_ratio": ws_ratio,
                "stream_pages_per_period": grow,
                "swap_ratio": swap_ratio,
                "extra_periods": extra_periods,
                "period_ms": period_ns / 1e6,
                "seed": seed,
            },
            "memory_pages": memory_pages,
            "time_unit": "ns",
            "time_is_release": True,
            "ws_pages": ws,
            "periods": periods,
            "groups": {"working set": [0], "stream": [1]},
        },
    )


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


#: The changing conditions of :func:`mix_study_conditions` (``changing=True``): name -> the two
#: stages it alternates between (keys of a ``mix`` stage over the base condition: zipf file, anon
#: 40 % of memory, file 1.5x memory). Of the 90 stationary conditions the nearest to each stage
#: had different best fixed splits (`python bench/cast_split_study.py --accesses 2000000`).
MIX_CHANGES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # anon's loop busy, then quiet (stationary zipf/loop/0.6: best 50 %; zipf/loop/0.1: 10 %)
    "anon-cools": (
        {"anon_pattern": "loop", "anon_accesses": 0.6},
        {"anon_pattern": "loop", "anon_accesses": 0.1},
    ),
    # anon quiet, then busy over its whole region (zipf/uniform/0.1: best 10 %; 0.6: 50 %)
    "anon-heats": (
        {"anon_pattern": "uniform", "anon_accesses": 0.1},
        {"anon_pattern": "uniform", "anon_accesses": 0.6},
    ),
    # anon hot beside a file no size helps much, then a skewed file beside quiet anon
    "hot-swaps": (
        {"anon_pattern": "zipf", "anon_accesses": 0.6, "file_pattern": "uniform"},
        {"anon_pattern": "zipf", "anon_accesses": 0.05, "file_pattern": "zipf"},
    ),
    # the file's working set grows from 0.45x memory (fits beside anon) to 1.5x
    "file-grows": (
        {"anon_pattern": "loop", "anon_accesses": 0.3, "file_ws": 0.3},
        {"anon_pattern": "loop", "anon_accesses": 0.3, "file_ws": 1.0},
    ),
    # scans through a skewed file beside busy, then quiet anon (scan/uniform/0.5: 50 %; 0.1: 10 %)
    "scan-anon-cools": (
        {"anon_pattern": "uniform", "anon_accesses": 0.5, "file_pattern": "scan"},
        {"anon_pattern": "uniform", "anon_accesses": 0.1, "file_pattern": "scan"},
    ),
    # anon's loop shrinks from its region (40 % of memory) to a quarter of it, as busy
    "anon-shrinks": (
        {"anon_pattern": "loop", "anon_accesses": 0.5, "anon_ws": 1.0},
        {"anon_pattern": "loop", "anon_accesses": 0.5, "anon_ws": 0.25},
    ),
    # stages whose wrong split costs more than the six above: anon's loop takes 90 %
    # of the accesses beside a uniform file (400,000 accesses alone: fixed 10 % 1.12x fixed 50 %),
    # then a skewed file beside quiet anon (zipf/loop/0.05: fixed 50 % 1.19x fixed 10 %)
    "anon-loop-then-file": (
        {"anon_pattern": "loop", "anon_accesses": 0.9, "file_pattern": "uniform"},
        {"anon_pattern": "loop", "anon_accesses": 0.05, "file_pattern": "zipf"},
    ),
    # scans beside anon's loop at 80 % of the accesses (alone: 10 % 1.15x 50 %), then at 5 %
    "scan-anon-loop-cools": (
        {"anon_pattern": "loop", "anon_accesses": 0.8, "file_pattern": "scan"},
        {"anon_pattern": "loop", "anon_accesses": 0.05, "file_pattern": "scan"},
    ),
    # the file's working set shrinks from 1.5x memory to 0.45x (file-grows reversed)
    "file-shrinks": (
        {"anon_pattern": "loop", "anon_accesses": 0.3, "file_ws": 1.0},
        {"anon_pattern": "loop", "anon_accesses": 0.3, "file_ws": 0.3},
    ),
    # a uniform file beside quiet anon, then anon's loop at 90 % (anon-loop-then-file reversed)
    "file-then-anon-loop": (
        {"anon_pattern": "loop", "anon_accesses": 0.05, "file_pattern": "uniform"},
        {"anon_pattern": "loop", "anon_accesses": 0.9, "file_pattern": "uniform"},
    ),
}


def mix_study_conditions(
    accesses: int = 2_000_000, seed: int = 0, changing: bool = False
) -> list[dict[str, Any]]:
    """The 90 conditions of a CAST-style split study, as keyword arguments of :func:`mix`.

    Five file patterns x three anon patterns (zipf, loop, uniform) x six anon shares of the
    accesses (0.1 to 0.6), anon 40 % of memory beside a file 1.5x memory, ``accesses`` each
    (the seed's study: 90 conditions of 2 million accesses). Each condition gets its own seed.

    With ``changing=True``: 20 conditions whose best split changes during the run instead, for
    each of the ten changes of :data:`MIX_CHANGES` (in that order) the two stages once (A, B:
    a change at half the run) and twice (A, B, A, B: every quarter), as ``stages`` of
    :func:`mix`; zipf file (unless a stage sets another), anon 40 % of memory, file 1.5x memory,
    ``accesses`` each, seeds ``seed + 1000 + k``.
    """
    if changing:
        return [
            {
                "anon_share": 0.4,
                "file_factor": 1.5,
                "file_pattern": "zipf",
                "anon_pattern": stage_a.get("anon_pattern", "zipf"),
                "anon_accesses": stage_a.get("anon_accesses", 0.0),
                "accesses": accesses,
                "seed": seed + 1000 + 2 * i + j,
                "stages": [dict(stage_a), dict(stage_b)] * repeat,
            }
            for i, (stage_a, stage_b) in enumerate(MIX_CHANGES.values())
            for j, repeat in enumerate((1, 2))
        ]
    out = []
    k = 0
    for file_pattern in MIX_FILE_PATTERNS:
        for anon_pattern in ("zipf", "loop", "uniform"):
            for anon_accesses in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
                out.append(
                    {
                        "anon_share": 0.4,
                        "file_factor": 1.5,
                        "file_pattern": file_pattern,
                        "anon_pattern": anon_pattern,
                        "anon_accesses": anon_accesses,
                        "accesses": accesses,
                        "seed": seed + k,
                    }
                )
                k += 1
    return out


#: name -> Workload for kernel mode (``pagesim run NAME``).
KERNEL_WORKLOADS: dict[str, Workload] = {
    "stress-vm": Workload(
        stress_vm,
        {
            "workers": 8,
            "memory_pages": SCALED_MEMORY_PAGES,
            "vm_bytes_ratio": 9000 / 8192,
            "passes": 8,
            "slice_pages": 64,
            "seed": 0,
            "stop": "first",
        },  # fmt: skip
        "stress-ng --vm 8 --vm-bytes 9000M --vm-method write64 in 8 GB, scaled 1/64: anon > memory",
    ),
    "stream-ws": Workload(
        stream_ws,
        {
            "memory_pages": SCALED_MEMORY_PAGES,
            "ws_ratio": 300 / 8192,
            "stream_pages_per_period": None,
            "swap_ratio": 1.0,
            "extra_periods": 20,
            "period_ms": None,
            "seed": 0,
        },  # fmt: skip
        "a 300 MB working set read every period while `tail /dev/zero` grows until OOM (scaled 1/64)",
    ),
    "mix": Workload(
        mix,
        {
            "memory_pages": SCALED_MEMORY_PAGES,
            "anon_share": 0.65,
            "file_factor": 1.5,
            "passes": 4,
            "file_pattern": "zipf",
            "anon_pattern": "cold",
            "anon_accesses": 0.0,
            "alpha": 0.9,
            "accesses": None,
            "pace_ns": 0.0,
            "seed": 0,
            "stages": None,
            "anon_ratio": None,
            "anon_same_filled": 0.0,
        },  # fmt: skip
        "anon beside a file 1.5x memory; default: cold anon (65%), a zipf file working set "
        "(file_pattern loop|zipf|scan|phases|uniform, anon_pattern cold|zipf|loop|uniform)",
    ),
}


def make_kernel_workload(name: str, **params: Any) -> Trace:
    """Generate kernel workload ``name`` with parameter overrides.

    Raises
    ------
    ValueError
        If the name or a parameter is unknown.
    """
    if name not in KERNEL_WORKLOADS:
        raise ValueError(f"unknown kernel workload {name!r}; known: {', '.join(KERNEL_WORKLOADS)}")
    w = KERNEL_WORKLOADS[name]
    unknown = set(params) - set(w.defaults)
    if unknown:
        raise ValueError(
            f"{name} has no parameter {', '.join(sorted(unknown))}; known: {', '.join(w.defaults)}"
        )
    return w.function(**{**w.defaults, **params})


from pagesim.workloads.cache_ext import CACHE_EXT_WORKLOADS  # noqa: E402  (the cache_ext paper's)

KERNEL_WORKLOADS.update(CACHE_EXT_WORKLOADS)
