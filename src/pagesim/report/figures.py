"""The sweep report's miss-ratio curves as PNG and SVG files, drawn with matplotlib (for papers)."""

from __future__ import annotations

import os
import re
from typing import Any

import pandas as pd

from pagesim.report.sweep_data import OPT, report_sections

__all__ = ["write_figures"]


def _file_name(title: str, index: int) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", title).strip("_")[:80] or "trace"
    return f"{index:02d}-{stem}"


def _draw(section: dict[str, Any], ax: Any) -> None:
    for label in section["labels"]:
        points = section["curves"][label]
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        if label == OPT:
            if section["mode"] == "cache" and len(xs) > 1:
                ax.fill_between(xs, ys, 0, color="black", alpha=0.07, linewidth=0)
            ax.plot(xs, ys, "k--", marker=".", linewidth=1.8, label="opt (floor)")
        else:
            ax.plot(xs, ys, marker=".", linewidth=1.4, label=label)
    ax.set_xlabel("cache size (pages)")
    ax.set_ylabel("miss ratio")
    ax.set_ylim(bottom=0)
    ax.set_title(section["title"], fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def write_figures(frame: pd.DataFrame, folder: str, baseline: str = "fifo") -> list[str]:
    """One PNG and one SVG per report section in ``folder`` (created); the paths written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(folder, exist_ok=True)
    sections, _ = report_sections(frame, baseline)
    written = []
    for i, section in enumerate(sections):
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        _draw(section, ax)
        fig.tight_layout()
        for ext in ("png", "svg"):
            path = os.path.join(folder, f"{_file_name(section['title'], i)}.{ext}")
            fig.savefig(path, dpi=150 if ext == "png" else None)
            written.append(path)
        plt.close(fig)
    return written
