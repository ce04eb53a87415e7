"""The cache_ext paper's experiments at a larger scale, with the paper's ratios beside pagesim's.

Not a test: run by hand (see bench/README.md). Runs every experiment of
:mod:`pagesim.analysis.experiments` (YCSB A-F/uniform/uniform-rw, Twitter stand-ins, file
search, GET-SCAN, isolation, admission) at ``--scale`` of the paper's setup, prints each table
(every metric relative to linux-lru, the paper's ratio beside), saves the figures and ends with
the shape checks of issue 5: the YCSB ordering LFU > LHD > S3-FIFO > default > FIFO > MGLRU > MRU
per workload, file search MRU ~1.8x, GET-SCAN GET throughput ~1.7x with P99 about halved, and
isolation's tailored pair ahead of every global policy for both tenants.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pagesim.analysis import experiments as E
from pagesim.report.experiments import experiment_figure, experiment_table

PAPER_ORDER = ("ce-lfu", "ce-lhd", "ce-s3fifo", "linux-lru", "ce-fifo", "mglru", "ce-mru")


def _scale(text: str) -> float:
    num, _, den = text.partition("/")
    return float(num) / float(den) if den else float(num)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="1/1024", help="of the paper's setup (default 1/1024)")
    parser.add_argument(
        "--twitter-scale",
        default=None,
        help="twitter's scale (default 16 x --scale: its cgroup has a 70 MiB floor)",
    )
    parser.add_argument(
        "--search-scale", default=None, help="file search's scale (default 16 x --scale: its cgroup is 1 GiB)"
    )
    parser.add_argument("--clusters", default="17,18,24,34,52", help="twitter's clusters")
    parser.add_argument("--ycsb", default=",".join(E.YCSB_WORKLOADS), help="YCSB workloads")
    parser.add_argument("--experiments", default=",".join(E.EXPERIMENTS))
    parser.add_argument("--figures", default="bench-figures", help="folder for the figures")
    parser.add_argument(
        "--device",
        default=E.QUEUED_DEVICE,
        help=f"file device of get-scan and admission (default {E.QUEUED_DEVICE}, queued; ssd: unqueued)",
    )
    parser.add_argument(
        "--ycsb-compactions",
        choices=("none", "seek", "both"),
        default="none",
        help="ycsb: LevelDB's seek compactions (build_ycsb compactions='seek'; seek and both are the "
        "same: each policy runs without them first, which paces its compactions; default none: the "
        "experiment as before)",
    )
    parser.add_argument(
        "--ycsb-policies",
        default=None,
        help="ycsb with --ycsb-compactions: policies (default the experiment's, and lfu)",
    )
    args = parser.parse_args()
    scale = _scale(args.scale)
    own_scale = {
        "twitter": _scale(args.twitter_scale) if args.twitter_scale else scale * 16,
        "file-search": _scale(args.search_scale) if args.search_scale else scale * 16,
    }
    console = Console(width=200)
    folder = Path(args.figures)
    folder.mkdir(parents=True, exist_ok=True)
    chosen = args.experiments.split(",")

    def say(text: str) -> None:
        print(f"  running {text}", file=sys.stderr, flush=True)

    results: dict[str, E.Experiment] = {}
    for name in chosen:
        t0 = time.perf_counter()
        if name == "ycsb" and args.ycsb_compactions != "none":
            default = [*E.EXPERIMENT_POLICIES["ycsb"], "lfu"]
            policies = args.ycsb_policies.split(",") if args.ycsb_policies else default
            exp = E.ycsb_experiment(
                workloads=args.ycsb.split(","),
                policies=policies,
                scale=scale,
                progress=say,
                compactions="seek",
            )
        elif name == "ycsb":
            exp = E.ycsb_experiment(workloads=args.ycsb.split(","), scale=scale, progress=say)
        elif name == "twitter":
            clusters = [int(c) for c in args.clusters.split(",")]
            exp = E.twitter_experiment(clusters=clusters, scale=own_scale[name], progress=say)
        elif name == "file-search":
            exp = E.EXPERIMENTS[name](scale=own_scale[name], progress=say)
        elif name in ("get-scan", "admission"):
            exp = E.EXPERIMENTS[name](scale=scale, progress=say, device=args.device)
        else:
            exp = E.EXPERIMENTS[name](scale=scale, progress=say)
        results[name] = exp
        console.print(experiment_table(exp))
        _print_extra(exp)
        path = experiment_figure(exp, folder / f"{name}.png")
        console.print(f"{name}: {time.perf_counter() - t0:.0f} s, figure {path}\n")

    summary = Table(title=f"issue 5's shape checks at scale {args.scale}", title_justify="left")
    for col in ("check", "paper", "pagesim", "holds"):
        summary.add_column(col)
    if "ycsb" in results:
        exp = results["ycsb"]
        for w in exp.workloads():
            group = "client" if args.ycsb_compactions != "none" else "all"
            ours = sorted((r for r in exp.runs if r.workload == w), key=lambda r: -r.throughput[group])
            order = [r.policy for r in ours if r.policy in PAPER_ORDER]
            ratios = " ".join(f"{r.policy}={exp.ratio(r, 'throughput', group):.2f}" for r in ours)
            paper = exp.paper.get(w, {})
            paper_txt = " ".join(f"{p}={paper[p]['ops/s']:.2f}" for p in PAPER_ORDER if p in paper)
            summary.add_row(f"{w} order", paper_txt, ratios, "yes" if tuple(order) == PAPER_ORDER else "no")
    if "file-search" in results:
        exp = results["file-search"]
        r = exp.find("file-search", "ce-mru")
        ratio = exp.ratio(r, "throughput", "search")
        summary.add_row("file search MRU speed-up", "1.80x", f"{ratio:.2f}x", "yes" if ratio > 1.3 else "no")
    if "get-scan" in results:
        exp = results["get-scan"]
        r = exp.find("get-scan", "get-scan")
        thr = exp.ratio(r, "throughput", "get")
        p99 = exp.ratio(r, "p99_ms", "get")
        summary.add_row("GET-SCAN GET ops/s", "1.70x", f"{thr:.2f}x", "yes" if thr > 1.0 else "no")
        summary.add_row("GET-SCAN GET P99", "0.43x", f"{p99:.2f}x", "yes" if p99 < 0.95 else "no")
    if "isolation" in results:
        exp = results["isolation"]
        tailored = exp.find("isolation", "ce-lfu/ce-mru")
        for r in exp.runs:
            if r is tailored:
                continue
            y = tailored.throughput["ycsb"] / r.throughput["ycsb"]
            s = tailored.throughput["search"] / r.throughput["search"]
            ok = "yes" if y > 1 and s > 1 else "no"
            summary.add_row(
                f"isolation tailored vs {r.policy}", "both > 1", f"ycsb {y:.2f}x, search {s:.2f}x", ok
            )
    if "admission" in results:
        exp = results["admission"]
        r = exp.find(E.ADMISSION_WORKLOAD, "admit-compaction")
        p99 = exp.ratio(r, "p99_ms", "foreground")
        txt = f"{p99:.2f}x" if math.isfinite(p99) else "-"
        summary.add_row("admission foreground P99", "0.83x", txt, "yes" if p99 < 0.95 else "no")
    console.print(summary)


def _print_extra(exp: E.Experiment) -> None:
    """P99 and mean latency in ms by group, and the device's queueing, for each run."""
    for r in exp.runs:
        lat = " ".join(f"{g} p99 {r.p99_ms[g]:.4f} mean {r.mean_ms[g]:.4f}" for g in r.p99_ms)
        thr = " ".join(f"{g} {v:,.0f}/s" for g, v in r.throughput.items())
        c = r.counters
        print(
            f"  {r.policy}: {thr}; {lat}; pgpgin {r.disk_read_pages:,} pgpgout {r.disk_write_pages:,}; "
            f"bypassed {c.get('bypassed', 0):,}; queued {c.get('device_queued', 0):,} reads, "
            f"{c.get('device_queue_ns', 0) / 1e6:,.1f} ms in all",
            flush=True,
        )


if __name__ == "__main__":
    main()
