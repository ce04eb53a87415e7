"""CAST's readouts: the seed's figures as numbers (:func:`cast_readouts`) and its ``estimate`` and
``tune`` blocks as text (:func:`describe_text`, :func:`queue_lines`).

What each readout means: docs/cast.md, "Readouts".
"""

from __future__ import annotations

from typing import Any

from pagesim.core.state import (
    GI_FILE_QUEUE,
    GI_SWAP_QUEUE,
    LEN,
    QUEUE_CPU,
)
from pagesim.policies.cast.costs import anon_share, estimate_swappiness, miss_cost, refault_cost
from pagesim.policies.cast.layout import (
    ANON_T,
    F_ALL_N,
    F_ALL_SUM,
    F_OUT_N,
    F_SPLIT_COST,
    F_WAIT_N,
    FILE_T,
    G_BAL,
    G_CLEANMIN,
    G_DAUTO,
    G_DMOVE,
    G_ENABLED,
    G_EVENTS,
    G_FLOOR,
    G_FOUND,
    G_FRAMES,
    G_FREED,
    G_IN,
    G_KCOMP,
    G_LE,
    G_LIST,
    G_LOOK,
    G_MSIZE,
    G_NOW,
    G_NSAMP,
    G_OUT,
    G_PASSES,
    G_PICK,
    G_PRESS,
    G_Q,
    G_RATE,
    G_SAUTO,
    G_SCAP,
    G_SIM,
    G_SMOVE,
    G_SPLIT,
    G_STALE,
    G_SWAPOUT,
    G_SWEEPS,
    G_TAKEN,
    G_TICKS,
    G_WALKER,
    G_WLOST,
    G_WMOVE,
    G_WORDS,
    G_WPM,
    G_WWIN,
    G_YOUNG,
    G_ZRAM,
    N_SIM_T,
    S_ACC,
    S_LE,
    S_MISS,
    S_ON,
    S_WPM,
    SIM_NS,
)
from pagesim.policies.cast.mrc import mrc_misses

#: The cost samples' kinds as the readouts name them (``all_anon``...): 0 anon refault, 1 file
#: refault, 2 anon write-out (``SWAPOUT_K``).
COST_KINDS = ("anon", "file", "swapout")


def cast_readouts(s: Any) -> dict[str, float]:
    """The seed's readouts: decay, w_permille, clock, sweep, walker; W and M per type."""
    gi = s.gi
    out: dict[str, float] = {}
    for t, name in ((ANON_T, "anon"), (FILE_T, "file")):
        out[f"decay_{name}"] = float(gi[G_LE + t])
        out[f"w_permille_{name}"] = float(gi[G_WPM + t])
        out[f"w_{name}"] = float(s.lhd[int(gi[G_LIST + t]), LEN])
        out[f"m_{name}"] = float(gi[G_MSIZE + t])
        out[f"quantile_{name}"] = float(gi[G_Q + t])
        out[f"taken_{name}"] = float(gi[G_PICK + t])
    out.update(
        clock_in=float(gi[G_IN]),
        clock_evicted=float(gi[G_OUT]),
        clock_freed=float(gi[G_FREED]),
        clock_tick=float(gi[G_NOW]),
        sweep_runs=float(gi[G_SWEEPS]),
        sweep_frames=float(gi[G_FRAMES]),
        sweep_words=float(gi[G_WORDS]),
        sweep_found=float(gi[G_FOUND]),
        sweep_taken=float(gi[G_TAKEN]),
        sweep_stale=float(gi[G_STALE]),
        sweep_passes=float(gi[G_PASSES] + gi[G_PASSES + 1]),
        walker_young=float(gi[G_YOUNG]),
        lookaround_young=float(gi[G_LOOK]),
        w_promoted=float(gi[G_WWIN]),
        w_evicted=float(gi[G_WLOST]),
        cost_anon_ns=float(refault_cost.py_func(s, ANON_T)),
        cost_file_ns=float(refault_cost.py_func(s, FILE_T)),
        waits_anon=float(s.gf[F_WAIT_N + ANON_T]),
        waits_file=float(s.gf[F_WAIT_N + FILE_T]),
        estimate_swappiness=float(estimate_swappiness.py_func(s)),
        swapout_ns=float(gi[G_SWAPOUT]),
        swapout_cost_ns=float(miss_cost.py_func(s, ANON_T) - refault_cost.py_func(s, ANON_T)),
        swapouts=float(s.gf[F_OUT_N]),
        zram_pages=float(gi[G_ZRAM]),
        queue_anon=float(gi[GI_SWAP_QUEUE]),
        queue_file=float(gi[GI_FILE_QUEUE]),
        miss_cost_anon_ns=float(miss_cost.py_func(s, ANON_T)),
        miss_cost_file_ns=float(miss_cost.py_func(s, FILE_T)),
        enabled=float(gi[G_ENABLED]),
        decay_auto=float(gi[G_DAUTO]),
        split_auto=float(gi[G_SAUTO]),
        split_permille=float(gi[G_SPLIT]),
        anon_share_permille=float(anon_share.py_func(s)),
        press_swappiness=float(gi[G_PRESS]),
        split_moves=float(gi[G_SMOVE]),
        clean_min_ratio=float(gi[G_CLEANMIN]),
        floor_held=float(gi[G_FLOOR]),
        balance_anon=float(gi[G_BAL]),
        balance_file=float(gi[G_BAL + 1]),
        balance_none=float(gi[G_BAL + 2]),
        balance_both=float(gi[G_BAL + 3]),
        walker=float(gi[G_WALKER]),
        kcompressd=float(gi[G_KCOMP]),
        sample_rate=float(gi[G_RATE]) / 65536.0,
        tune_ticks=float(gi[G_TICKS]),
    )
    for t, name in ((ANON_T, "anon"), (FILE_T, "file")):
        out[f"sample_{name}"] = float(gi[G_NSAMP + t])
        out[f"sample_events_{name}"] = float(gi[G_EVENTS + t])
        out[f"sim_cap_{name}"] = float(gi[G_SCAP + t])
        out[f"decay_moves_{name}"] = float(gi[G_DMOVE + t])
        out[f"w_moves_{name}"] = float(gi[G_WMOVE + t])
        for i in range(N_SIM_T):
            j = t * N_SIM_T + i
            v = G_SIM + j * SIM_NS
            tag = f"d{i}" if i < 9 else ("wminus" if i == 9 else "wplus")
            out[f"sim_{name}_{tag}_misses"] = float(gi[v + S_MISS]) if gi[v + S_ON] else -1.0
        for k in range(1, 11):
            out[f"mrc_{name}_{k}0pct_misses"] = float(mrc_misses.py_func(s, t, k))
    for k in range(1, 10):
        out[f"split_cost_{k}0pct"] = float(s.gf[F_SPLIT_COST + k - 1])
    for k, name in enumerate(COST_KINDS):
        n = float(s.gf[F_ALL_N + k])
        out[f"all_{name}"] = n
        out[f"all_{name}_ns"] = float(s.gf[F_ALL_SUM + k]) / n if n > 0 else 0.0
    return out


def queue_lines(r: dict[str, float]) -> list[str]:
    """The seed's per-queue lines of ``estimate`` from :func:`cast_readouts`: ``cpu:`` then
    ``bdi N:`` for each block device, each with every anon refault, file refault and anon
    write-out served there since the start (mean ns and number; never halved).

    A type's waits are served where its device is (``queue_anon``: the swap device, which
    also takes anon's write-outs; ``queue_file``: the file device): the CPU for zram, else
    the device's bdi number (:data:`pagesim.core.state.GI_SWAP_QUEUE`); the ``cpu:`` line
    is always shown, as the seed's.
    """
    where = {"anon": int(r["queue_anon"]), "file": int(r["queue_file"])}
    where["swap-out"] = where["anon"]
    queues = sorted({q for q in where.values() if q > QUEUE_CPU})
    lines = []
    for q in (QUEUE_CPU, *queues):
        parts = []
        for label, name in zip(("anon", "file", "swap-out"), COST_KINDS):
            mine = where[label] == q
            ns = round(r[f"all_{name}_ns"]) if mine else 0
            n = round(r[f"all_{name}"]) if mine else 0
            parts.append(f"{label} {ns} ns ({n})")
        lines.append(("cpu: " if q == QUEUE_CPU else f"bdi {q}: ") + " ".join(parts))
    return lines


def describe_text(s: Any) -> str:
    """The seed's ``estimate`` and ``tune`` readouts as text, as far as pagesim has them."""
    gi = s.gi
    r = cast_readouts(s)
    lines = [
        "estimate:",
        f"share {int(r['anon_share_permille'])}/1000 (split {int(r['split_permille'])}/1000)",
        f"swappiness {round(r['estimate_swappiness'])}",
        f"cost anon {round(r['cost_anon_ns'])} ns ({round(r['waits_anon'])} waits) "
        f"file {round(r['cost_file_ns'])} ns ({round(r['waits_file'])} waits)",
        f"swap-out {round(r['swapout_cost_ns'])} ns ({round(r['swapouts'])} pages)",
        "in flight 0",
        *queue_lines(r),
        "tune:",
    ]
    lines.append(f"decay_auto {int(gi[G_DAUTO])}")
    for t, name in ((ANON_T, "anon"), (FILE_T, "file")):
        lines.append(
            f"{name} decay {int(gi[G_LE + t])} w_permille {int(gi[G_WPM + t])} "
            f"sample {int(gi[G_NSAMP + t])} cap {int(gi[G_SCAP + t])} | " + _sims_text(gi, t)
        )
    return "\n".join(lines)


def _sims_text(gi: Any, t: int) -> str:
    """Type ``t``'s simulated caches as ``misses/reads`` per decay level (``le``) and W share
    (``w``); with ``decay_auto`` 0 the controllers do not run and the sims read nothing."""
    if gi[G_DAUTO] == 0:
        return "sims idle (decay_auto 0: decay and w_permille as set)"
    sims = []
    for i in range(N_SIM_T):
        v = G_SIM + (t * N_SIM_T + i) * SIM_NS
        if gi[v + S_ON] == 0:
            continue
        label = f"le {int(gi[v + S_LE])}" if i < 9 else f"w {int(gi[v + S_WPM])}"
        sims.append(f"{label}: {int(gi[v + S_MISS])}/{int(gi[v + S_ACC])}")
    return "sims misses/reads: " + " ".join(sims)
