"""``pagesim experiment NAME``: one of the cache_ext paper's experiments, its table and figure."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from pagesim.analysis.experiments import (
    BASELINE,
    EXPERIMENT_POLICIES,
    EXPERIMENTS,
    SMALL_SCALE,
    YCSB_WORKLOADS,
    overhead_summary,
)
from pagesim.cli._common import handled_errors, stderr_line
from pagesim.engine.memory import DEVICES
from pagesim.policies.registry import policy_class
from pagesim.report.experiments import experiment_figure, experiment_table


def _scale(text: str) -> float:
    """``1/4096``, ``0.001`` -> float in (0, 1]."""
    num, slash, den = text.partition("/")
    try:
        value = float(num) / float(den) if slash else float(num)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"cannot read scale {text!r}: give a fraction like 1/4096 or 0.001") from None
    if not 0 < value <= 1:
        raise ValueError(f"scale must be within (0, 1], got {text!r}")
    return value


def _cluster(text: str) -> int:
    """``"24"`` -> 24: a Twitter cluster number (a positive integer)."""
    if not text.strip().isdigit() or int(text) <= 0:
        raise ValueError(f"cannot read cluster {text!r}: give a Twitter cluster number like 24")
    return int(text)


def _require_baseline(name: str, policies: list[str]) -> None:
    """Refuse a ``--policy`` list without the default, which every ratio of the table divides by.

    Raises
    ------
    ValueError
        Naming what is expected (for isolation, also how it reads names and ``A/B`` pairs).
    """
    if BASELINE in policies or f"{BASELINE}/{BASELINE}" in policies:
        return
    text = (
        f"experiment {name}: the table's ratios are to the default, {BASELINE}: include it in "
        f"--policy (e.g. -p {BASELINE},{','.join(policies)})"
    )
    if name == "isolation":
        text += (
            "; isolation runs a name as one policy in both cgroups and A/B as A for YCSB, B for the search"
        )
    raise ValueError(text)


#: ``--layout`` keys of the ycsb experiment -> how their values are read
LAYOUT_KEYS = ("levels", "table_cache", "filters")


def _layout(items: list[str]) -> dict[str, Any]:
    """``--layout`` items, e.g. ``["levels=0", "table_cache=none,filters=1"]``, as build_ycsb's
    keyword arguments: ``{"levels": 0, "table_cache": None, "filters": True}``.

    Raises
    ------
    ValueError
        For an item without ``=``, an unknown key (the known ones listed) or an unreadable value.
    """
    out: dict[str, Any] = {}
    for item in (part for text in items for part in text.split(",") if part):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip().lower()
        if not eq:
            raise ValueError(f"--layout takes KEY=VALUE, got {item!r}; keys: {', '.join(LAYOUT_KEYS)}")
        if key not in LAYOUT_KEYS:
            raise ValueError(f"unknown --layout key {key!r}; known: {', '.join(LAYOUT_KEYS)}")
        if key == "filters":
            if value not in ("0", "1", "true", "false", "yes", "no"):
                raise ValueError(f"--layout filters takes 0 or 1, got {value!r}")
            out[key] = value in ("1", "true", "yes")
        elif key == "table_cache" and value in ("none", "off"):
            out[key] = None
        else:
            try:
                out[key] = int(value)
            except ValueError:
                raise ValueError(f"--layout {key} takes an integer, got {value!r}") from None
    return out


def free_figure_path(name: str, folder: Path | None = None) -> Path:
    """``pagesim-NAME.png`` in ``folder`` (default: the working directory), or the first of
    ``pagesim-NAME-2.png``, ``-3``... that does not exist: an earlier run's figure is kept."""
    base = folder if folder is not None else Path.cwd()
    path = base / f"pagesim-{name}.png"
    n = 2
    while path.exists():
        path = base / f"pagesim-{name}-{n}.png"
        n += 1
    return path


#: Experiments that are not the cache_ext paper's (their own table and figure)
OTHER_EXPERIMENTS = ("auto", "cast-split")


def _conditions(text: str) -> slice:
    """``0:90:10`` (start:stop:step), ``5`` (one) -> a slice of the 90 conditions."""
    parts = text.split(":")
    try:
        nums = [int(x) if x.strip() else None for x in parts]
    except ValueError:
        raise ValueError(f"cannot read --conditions {text!r}: give start:stop:step like 0:90:10") from None
    if len(nums) == 1 and nums[0] is not None:
        return slice(nums[0], nums[0] + 1)
    if not 2 <= len(nums) <= 3:
        raise ValueError(f"cannot read --conditions {text!r}: give start:stop:step like 0:90:10")
    return slice(*nums)


def _cast_split(
    scale: str | None, conditions: str | None, workers: int, figure: str | None, as_json: bool
) -> None:
    """``pagesim experiment cast-split``: run, print the tables (or JSON), save the figure."""
    from pagesim.analysis.experiments.cast_split import cast_split_experiment
    from pagesim.report.cast_split import split_condition_table, split_figure, split_summary_table
    from pagesim.sweep.local import LocalExecutor

    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    kwargs: dict[str, Any] = {"progress": lambda text: stderr_line(f"pagesim: {text}")}
    if scale is not None:
        kwargs["scale"] = _scale(scale)
    if conditions is not None:
        kwargs["conditions"] = _conditions(conditions)
    pool = LocalExecutor(workers) if workers > 1 else None
    try:
        study = cast_split_experiment(mapper=pool.imap if pool else None, **kwargs)
    finally:
        if pool is not None:
            pool.close()
    path = split_figure(study, figure or free_figure_path("cast-split"))
    if as_json:
        print(json.dumps({**study.to_dict(), "figure": str(path)}))
        return
    width = max(shutil.get_terminal_size().columns, 160)
    out = Console(file=sys.stdout, width=width, soft_wrap=False, emoji=False)
    out.print(split_condition_table(study))
    out.print(split_summary_table(study))
    out.print(f"figure: {path}")


def experiment_command(
    name: str = typer.Argument(
        ..., metavar="NAME", help=f"One of: {', '.join([*EXPERIMENTS, *OTHER_EXPERIMENTS])}."
    ),
    scale: str | None = typer.Option(
        None,
        "--scale",
        metavar="FRACTION",
        help="Of the paper's setup (1 = a 100 GiB database in a 10 GiB cgroup), 1/4096 or 0.001; "
        f"default 1/{round(1 / SMALL_SCALE)} "
        "(file-search and twitter 16x that, get-scan 4x: at 1/4096 a GET's P99 is one device "
        "read under any policy): seconds per run. cast-split: of the seed's 2,000,000 accesses "
        "per condition (default 1; 1/10 runs in minutes).",
    ),
    policy: list[str] | None = typer.Option(
        None,
        "--policy",
        "-p",
        metavar="POLICY",
        help=f"Policies to compare, {BASELINE} among them (comma-separated or repeated; isolation "
        "takes names, one policy in both cgroups, and A/B pairs); default: "
        + "; ".join(f"{name}: {', '.join(names)}" for name, names in EXPERIMENT_POLICIES.items())
        + ".",
    ),
    workload: list[str] | None = typer.Option(
        None,
        "--workload",
        "-w",
        metavar="W",
        help=f"ycsb, overhead: which of {', '.join(YCSB_WORKLOADS)} (default all); auto: which of kernel, "
        "phases, traces (default all).",
    ),
    layout: list[str] | None = typer.Option(
        None,
        "--layout",
        metavar="KEY=VALUE",
        help="ycsb: the LevelDB layout, levels=N (default 5; 0: two levels), table_cache=N|none "
        "(default 990 tables), filters=0|1 (default 0); comma-separated or repeated.",
    ),
    compactions: str | None = typer.Option(
        None,
        "--compactions",
        metavar="KIND",
        help="ycsb: none (default) or seek: LevelDB's seek compactions, each policy also run "
        "without them (rows W and W-seek; client threads' metrics).",
    ),
    trace: str | None = typer.Option(
        None,
        "--trace",
        metavar="CSV",
        help="twitter: a twitter/cache-trace CSV (default: synthetic clusters).",
    ),
    cluster: list[str] | None = typer.Option(
        None,
        "--cluster",
        metavar="N",
        help="twitter: which clusters' stand-ins (17, 18, 24, 34, 52; default all), or with --trace "
        "the one cluster the CSV is, so that the paper's ratios stand beside it.",
    ),
    device: str | None = typer.Option(
        None,
        "--device",
        metavar="DEV",
        help="get-scan, admission: the file device (default sata-ssd, the paper's disk with its "
        "queue; ssd: each request timed alone).",
    ),
    fadvise: str | None = typer.Option(
        None,
        "--fadvise",
        metavar="HINTS",
        help="get-scan: the fadvise baselines run beside the policies, linux-lru with the scan "
        "thread's hints (comma-separated of SEQUENTIAL, NOREUSE, DONTNEED, NORMAL, RANDOM; default "
        "the paper's SEQUENTIAL,NOREUSE,DONTNEED; none: no such rows).",
    ),
    figure: str | None = typer.Option(
        None,
        "--figure",
        metavar="PATH",
        help="Where to save the figure (default ./pagesim-NAME.png, or -2, -3... if that exists).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print the runs as one JSON object instead of a table."
    ),
    conditions: str | None = typer.Option(
        None,
        "--conditions",
        metavar="START:STOP:STEP",
        help="cast-split: which of the 90 conditions (default all), e.g. 0:90:10 or 5.",
    ),
    workers: int = typer.Option(
        1, "--workers", "-j", metavar="N", help="cast-split: runs in N worker processes (default 1)."
    ),
) -> None:
    """Run a cache_ext experiment in kernel mode: the suite against linux-lru (the paper's default) and mglru.

    Prints throughput, P99 latency and disk reads relative to the default, beside the paper's
    ratios, and saves a figure. ``cast-split`` is CAST's split study instead (the seed's 90
    conditions; --scale is of its 2,000,000 accesses per condition, default 1): every way of
    splitting against the best fixed split in hindsight; ``auto`` runs the auto policy beside its
    fixed candidates, relative to the best fixed policy per workload (docs/auto.md).
    """
    with handled_errors():
        if name == "cast-split":
            _cast_split(scale, conditions, workers, figure, as_json)
            return
        if name == "auto":
            _auto_command(scale, policy, workload, figure, as_json)
            return
        if conditions is not None or workers != 1:
            raise ValueError("--conditions and --workers apply to the cast-split experiment only")
        if name not in EXPERIMENTS:
            raise ValueError(
                f"unknown experiment {name!r}; known: {', '.join([*EXPERIMENTS, *OTHER_EXPERIMENTS])}"
            )
        kwargs: dict[str, Any] = {}
        if scale is not None:
            kwargs["scale"] = _scale(scale)
        if policy:
            kwargs["policies"] = [p for item in policy for p in item.split(",") if p]
            for name_or_pair in kwargs["policies"]:  # unknown names fail before any run
                for one in name_or_pair.split("/"):
                    policy_class(one)
            _require_baseline(name, kwargs["policies"])
        if workload:
            if name not in ("ycsb", "overhead"):
                raise ValueError("--workload applies to the ycsb and overhead experiments only")
            kwargs["workloads"] = [w for item in workload for w in item.split(",") if w]
        if layout:
            if name != "ycsb":
                raise ValueError("--layout applies to the ycsb experiment only")
            kwargs.update(_layout(layout))
        if compactions is not None:
            if name != "ycsb":
                raise ValueError("--compactions applies to the ycsb experiment only")
            kwargs["compactions"] = compactions.strip().lower()
        if trace is not None:
            if name != "twitter":
                raise ValueError("--trace applies to the twitter experiment only")
            kwargs["path"] = trace
        if cluster:
            if name != "twitter":
                raise ValueError("--cluster applies to the twitter experiment only")
            kwargs["clusters"] = [_cluster(c) for item in cluster for c in item.split(",") if c]
        if device is not None:
            if name not in ("get-scan", "admission"):
                raise ValueError("--device applies to the get-scan and admission experiments only")
            if device not in DEVICES:
                raise ValueError(f"unknown --device {device!r}; known: {', '.join(DEVICES)}")
            kwargs["device"] = device
        if fadvise is not None:
            if name != "get-scan":
                raise ValueError(
                    "--fadvise applies to the get-scan experiment only (the paper ran no hint in the others)"
                )
            text = fadvise.strip()
            kwargs["fadvise"] = [] if text.lower() == "none" else [h for h in text.split(",") if h.strip()]
        exp = EXPERIMENTS[name](progress=lambda text: stderr_line(f"pagesim: running {text}"), **kwargs)
        path = experiment_figure(exp, figure or free_figure_path(name))
        if as_json:
            print(json.dumps({**exp.to_dict(), "figure": str(path)}))
            return
        out = Console(
            file=sys.stdout, width=max(shutil.get_terminal_size().columns, 160), soft_wrap=False, emoji=False
        )
        out.print(experiment_table(exp))
        for note in exp.notes:
            out.print(f"note: {note}")
        if name == "overhead":
            out.print(_overhead_table(exp))
        out.print(f"figure: {path}")


def _overhead_table(exp: Any) -> Any:
    """The overhead experiment's summary beside the paper's figures."""
    from rich.table import Table

    table = Table(title="overhead: pagesim beside the paper (§6.3, Tables 4 and 5)", title_justify="left")
    for col in ("quantity", "pagesim", "paper"):
        table.add_column(col, justify="left" if col == "quantity" else "right")
    for row in overhead_summary(exp):
        table.add_row(*row)
    return table


def _auto_command(
    scale: str | None, policy: list[str] | None, workload: list[str] | None, figure: str | None, as_json: bool
) -> None:
    """``pagesim experiment auto``: auto beside its fixed candidates (``--policy``: the candidates,
    ``--workload``: the parts), relative to the best fixed policy per workload."""
    from pagesim.analysis.experiments.auto import PARTS, auto_experiment
    from pagesim.report.auto import auto_figure, auto_table

    kwargs: dict[str, Any] = {}
    if scale is not None:
        kwargs["scale"] = _scale(scale)
    if policy:
        kwargs["candidates"] = [p for item in policy for p in item.split(",") if p]
        for one in kwargs["candidates"]:
            policy_class(one)
    if workload:
        kwargs["parts"] = [w for item in workload for w in item.split(",") if w]
        unknown = sorted(set(kwargs["parts"]) - set(PARTS))
        if unknown:
            raise ValueError(f"auto: unknown part {unknown[0]!r}; known: {', '.join(PARTS)}")
    exp = auto_experiment(progress=lambda text: stderr_line(f"pagesim: running {text}"), **kwargs)
    path = auto_figure(exp, figure or free_figure_path("auto"))
    if as_json:
        print(json.dumps({**exp.to_dict(), "figure": str(path)}, default=str))
        return
    out = Console(
        file=sys.stdout, width=max(shutil.get_terminal_size().columns, 160), soft_wrap=False, emoji=False
    )
    out.print(auto_table(exp))
    out.print(f"figure: {path}")
