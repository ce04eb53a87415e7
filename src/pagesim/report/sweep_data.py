"""The figures and tables of a sweep report, as plain data (shared by HTML and matplotlib).

Input is the DataFrame of :func:`pagesim.sweep.results.load_results` (passed in by the caller:
this layer does not read databases). Only runs with status ``ok`` are used. A *section* is one
(trace, mode, warm-up, seed); in it:

curves
    For each policy label, its (size in pages, miss ratio) points in increasing size. OPT
    (``opt``) is the floor of the plot in cache mode: with equal-size pages no demand-paging
    policy misses less (Belady, 1966). In kernel mode it is a reference only.
table
    For each size: each policy's miss ratio, its *reduction against the baseline*
    ``100 × (1 − mr / mr_baseline)`` (%, positive = fewer misses than the baseline) and its
    *excess over OPT* ``100 × (mr / mr_opt − 1)`` (%, 0 = optimal); and the best policy (lowest
    miss ratio, OPT left out, ties named together).
vmstat
    In kernel mode, the /proc/vmstat-named counters of each run.
"""

from __future__ import annotations

import math
import os
from typing import Any

import pandas as pd

from pagesim.engine.counters import KERNEL_COUNTERS

__all__ = ["OPT", "report_sections", "section_title"]

OPT = "opt"


def _label(row: Any) -> str:
    return str(row["label"] or row["policy"])


def section_title(key: dict[str, Any]) -> str:
    """``trace (mode, warm-up N, seed S)`` with the defaults left out."""
    trace = str(key["trace"])
    name = trace if trace.startswith("workload:") else os.path.basename(trace)
    extra = []
    if key.get("mode") and key["mode"] != "cache":
        extra.append(f"{key['mode']} mode")
    if key.get("warmup"):
        extra.append(f"warm-up {int(key['warmup']):,}")
    if key.get("seed") is not None and not _missing(key.get("seed")):
        extra.append(f"seed {int(key['seed'])}")
    return f"{name} ({', '.join(extra)})" if extra else name


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _ratio(value: float, reference: float | None, kind: str) -> float | None:
    if reference is None:
        return None
    if kind == "reduction":
        return 100.0 * (1.0 - value / reference) if reference > 0 else (0.0 if value == 0 else None)
    return 100.0 * (value / reference - 1.0) if reference > 0 else (0.0 if value == 0 else None)


def _sizes_table(group: pd.DataFrame, labels: list[str], baseline: str) -> list[dict[str, Any]]:
    rows = []
    for pages, at in group.groupby("size_pages", sort=True):
        ratios = {_label(r): float(r["miss_ratio"]) for _, r in at.iterrows()}
        base = ratios.get(baseline)
        opt = ratios.get(OPT)
        cells = {}
        for label in labels:
            if label not in ratios:
                continue
            mr = ratios[label]
            cells[label] = {
                "mr": mr,
                "vs_base": _ratio(mr, base, "reduction"),
                "vs_opt": _ratio(mr, opt, "excess"),
            }
        contenders = {k: v for k, v in ratios.items() if k != OPT}
        best_mr = min(contenders.values()) if contenders else None
        best = sorted(k for k, v in contenders.items() if best_mr is not None and v <= best_mr + 1e-12)
        rows.append({"size_pages": int(pages), "size": str(at["size"].iloc[0]), "cells": cells, "best": best})
    return rows


def _vmstat(group: pd.DataFrame) -> dict[str, Any] | None:
    names = [n for n in KERNEL_COUNTERS if n in group.columns]
    if not names or (group["mode"] != "kernel").all():
        return None
    rows = []
    for _, r in group.sort_values(["size_pages", "label"]).iterrows():
        values = [None if _missing(r[n]) else int(r[n]) for n in names]
        rows.append({"label": _label(r), "size_pages": int(r["size_pages"]), "values": values})
    return {"names": names, "rows": rows}


def report_sections(frame: pd.DataFrame, baseline: str = "fifo") -> tuple[list[dict[str, Any]], list[str]]:
    """The report's sections and notes on what it could not show.

    Parameters
    ----------
    frame : pandas.DataFrame
        From :func:`pagesim.sweep.results.load_results`.
    baseline : str
        Policy label the reductions are measured against.

    Returns
    -------
    tuple of (list of dict, list of str)
        Sections (``title``, ``mode``, ``curves``: {label: [[pages, miss ratio], ...]},
        ``labels``, ``table``, ``vmstat``, ``has_opt``, ``has_baseline``) and notes.
    """
    notes: list[str] = []
    ok = frame[frame["status"] == "ok"] if len(frame) else frame
    failed = int((frame["status"] != "ok").sum()) if len(frame) else 0
    if failed:
        notes.append(f"{failed} failed run(s) left out (pagesim results DB --where \"status='failed'\")")
    sections = []
    keys = ["trace", "mode", "warmup", "seed"]
    for values, group in ok.groupby(keys, sort=True, dropna=False):
        key = dict(zip(keys, values))
        labels = sorted({_label(r) for _, r in group.iterrows()}, key=lambda s: (s == OPT, s))
        curves: dict[str, list[list[float]]] = {label: [] for label in labels}
        for _, r in group.sort_values("size_pages").iterrows():
            curves[_label(r)].append([int(r["size_pages"]), float(r["miss_ratio"])])
        sections.append({
            "title": section_title(key), "mode": key["mode"], "labels": labels, "curves": curves,
            "table": _sizes_table(group, labels, baseline), "vmstat": _vmstat(group),
            "has_opt": OPT in labels, "has_baseline": baseline in labels,
        })  # fmt: skip
    if sections and not any(s["has_baseline"] for s in sections):
        notes.append(f"baseline {baseline!r} is in no section: reductions against it are left out")
    if sections and not any(s["has_opt"] for s in sections):
        notes.append("no OPT runs: the curves have no floor and excess over OPT is left out")
    return sections, notes


def best_by_size(sections: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """Best policy per section and size text: (size texts in order, rows of {title, best})."""
    sizes: list[str] = []
    for section in sections:
        for row in section["table"]:
            if row["size"] not in sizes:
                sizes.append(row["size"])
    rows = []
    for section in sections:
        best = {row["size"]: ", ".join(row["best"]) for row in section["table"]}
        rows.append({"title": section["title"], "best": [best.get(s, "") for s in sizes]})
    return sizes, rows
