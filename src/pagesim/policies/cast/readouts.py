"""CAST's readouts: the seed's figures as numbers (:func:`cast_readouts`) and its ``estimate`` and
``tune`` blocks as text (:func:`describe_text`, :func:`queue_lines`), then the walker's counts
and the ``version`` knob.

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
from pagesim.policies.cast.knobs import VERSION
from pagesim.policies.cast.layout import (
    ANON_T,
    FILE_T,
    GF,
    GI,
    N_SIM_T,
    SIM_NS,
    SIM_VARS,
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
        out[f"decay_{name}"] = float(gi[GI.le + t])
        out[f"w_permille_{name}"] = float(gi[GI.wpm + t])
        out[f"w_{name}"] = float(s.lhd[int(gi[GI.list + t]), LEN])
        out[f"m_{name}"] = float(gi[GI.msize + t])
        out[f"quantile_{name}"] = float(gi[GI.q + t])
        out[f"taken_{name}"] = float(gi[GI.pick + t])
    out.update(
        clock_in=float(gi[GI.taken_in]),
        clock_evicted=float(gi[GI.out]),
        clock_freed=float(gi[GI.freed]),
        clock_tick=float(gi[GI.now]),
        sweep_runs=float(gi[GI.sweeps]),
        sweep_frames=float(gi[GI.frames]),
        sweep_words=float(gi[GI.words]),
        sweep_frame_words=float(gi[GI.fwords]),
        sweep_keys=float(gi[GI.keys]),
        sweep_cpu_ns=float(s.gf[GF.sweep_ns]),
        sweep_found=float(gi[GI.found]),
        sweep_taken=float(gi[GI.taken]),
        sweep_stale=float(gi[GI.stale]),
        sweep_passes=float(gi[GI.passes + ANON_T] + gi[GI.passes + FILE_T]),
        walker_young=float(gi[GI.young]),
        lookaround_young=float(gi[GI.look]),
        walker_walks=float(gi[GI.walks]),
        walker_ptes=float(gi[GI.wptes]),
        walker_pmds=float(gi[GI.wpmds]),
        walker_tables=float(gi[GI.wtables]),
        walker_skip_mm=float(gi[GI.skipmm]),
        walker_skip_pmd=float(gi[GI.skippmd]),
        walker_skip_bloom=float(gi[GI.skipbloom]),
        walker_cpu_ns=float(s.gf[GF.walk_ns]),
        lookaround_ptes=float(gi[GI.lptes]),
        lookaround_cpu_ns=float(s.gf[GF.look_ns]),
        w_promoted=float(gi[GI.wwin]),
        w_evicted=float(gi[GI.wlost]),
        cost_anon_ns=float(refault_cost.py_func(s, ANON_T)),
        cost_file_ns=float(refault_cost.py_func(s, FILE_T)),
        waits_anon=float(s.gf[GF.wait_n + ANON_T]),
        waits_file=float(s.gf[GF.wait_n + FILE_T]),
        estimate_swappiness=float(estimate_swappiness.py_func(s)),
        swapout_ns=float(gi[GI.swapout]),
        swapout_cost_ns=float(miss_cost.py_func(s, ANON_T) - refault_cost.py_func(s, ANON_T)),
        swapouts=float(s.gf[GF.out_n]),
        zram_pages=float(gi[GI.zram]),
        queue_anon=float(gi[GI_SWAP_QUEUE]),
        queue_file=float(gi[GI_FILE_QUEUE]),
        miss_cost_anon_ns=float(miss_cost.py_func(s, ANON_T)),
        miss_cost_file_ns=float(miss_cost.py_func(s, FILE_T)),
        enabled=float(gi[GI.enabled]),
        decay_auto=float(gi[GI.dauto]),
        split_auto=float(gi[GI.sauto]),
        split_permille=float(gi[GI.split]),
        anon_share_permille=float(anon_share.py_func(s)),
        press_swappiness=float(gi[GI.press]),
        split_moves=float(gi[GI.smove]),
        clean_min_ratio=float(gi[GI.cleanmin]),
        floor_held=float(gi[GI.floor]),
        balance_anon=float(gi[GI.bal_anon]),
        balance_file=float(gi[GI.bal_file]),
        balance_none=float(gi[GI.bal_none]),
        balance_both=float(gi[GI.bal_both]),
        walker=float(gi[GI.walker]),
        walker_simd=float(gi[GI.simd]),
        kcompressd=float(gi[GI.kcomp]),
        sample_rate=float(gi[GI.rate]) / 65536.0,
        tune_ticks=float(gi[GI.ticks]),
    )
    for t, name in ((ANON_T, "anon"), (FILE_T, "file")):
        out[f"sample_{name}"] = float(gi[GI.nsamp + t])
        out[f"sample_events_{name}"] = float(gi[GI.events + t])
        out[f"sim_cap_{name}"] = float(gi[GI.scap + t])
        out[f"decay_moves_{name}"] = float(gi[GI.dmove + t])
        out[f"w_moves_{name}"] = float(gi[GI.wmove + t])
        for i in range(N_SIM_T):
            j = t * N_SIM_T + i
            v = GI.sim + j * SIM_NS
            tag = f"d{i}" if i < 9 else ("wminus" if i == 9 else "wplus")
            out[f"sim_{name}_{tag}_misses"] = float(gi[v + SIM_VARS.miss]) if gi[v + SIM_VARS.on] else -1.0
        for k in range(1, 11):
            out[f"mrc_{name}_{k}0pct_misses"] = float(mrc_misses.py_func(s, t, k))
    for k in range(1, 10):
        out[f"split_cost_{k}0pct"] = float(s.gf[GF.split_cost + k - 1])
    for k, name in enumerate(COST_KINDS):
        n = float(s.gf[GF.all_n + k])
        out[f"all_{name}"] = n
        out[f"all_{name}_ns"] = float(s.gf[GF.all_sum + k]) / n if n > 0 else 0.0
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
    lines.append(f"decay_auto {int(gi[GI.dauto])}")
    for t, name in ((ANON_T, "anon"), (FILE_T, "file")):
        lines.append(
            f"{name} decay {int(gi[GI.le + t])} w_permille {int(gi[GI.wpm + t])} "
            f"sample {int(gi[GI.nsamp + t])} cap {int(gi[GI.scap + t])} | " + _sims_text(gi, t)
        )
    lines += [
        "walker:",
        f"walks {int(r['walker_walks'])} tables {int(r['walker_tables'])} "
        f"PTEs {int(r['walker_ptes'])} PMDs {int(r['walker_pmds'])} young {int(r['walker_young'])} "
        f"cpu {round(r['walker_cpu_ns'])} ns",
        f"skipped tables: mm {int(r['walker_skip_mm'])} pmd {int(r['walker_skip_pmd'])} "
        f"bloom {int(r['walker_skip_bloom'])}",
        f"look-around PTEs {int(r['lookaround_ptes'])} young {int(r['lookaround_young'])} "
        f"cpu {round(r['lookaround_cpu_ns'])} ns",
        f"version {VERSION}",
    ]
    return "\n".join(lines)


def _sims_text(gi: Any, t: int) -> str:
    """Type ``t``'s simulated caches as ``misses/reads`` per decay level (``le``) and W share
    (``w``); with ``decay_auto`` 0 the controllers do not run and the sims read nothing."""
    if gi[GI.dauto] == 0:
        return "sims idle (decay_auto 0: decay and w_permille as set)"
    sims = []
    for i in range(N_SIM_T):
        v = GI.sim + (t * N_SIM_T + i) * SIM_NS
        if gi[v + SIM_VARS.on] == 0:
            continue
        label = f"le {int(gi[v + SIM_VARS.le])}" if i < 9 else f"w {int(gi[v + SIM_VARS.wpm])}"
        sims.append(f"{label}: {int(gi[v + SIM_VARS.miss])}/{int(gi[v + SIM_VARS.acc])}")
    return "sims misses/reads: " + " ".join(sims)
