"""``pagesim trace info`` and ``pagesim trace convert``."""

from __future__ import annotations

import json
import sys

import typer

from pagesim.analysis.reuse import trace_stats
from pagesim.cli._common import FORMAT_NAMES, READER_HELP, handled_errors, load_trace, reader_options, stdout
from pagesim.cli._help import Command, Group
from pagesim.report.trace import stats_table
from pagesim.trace import WRITE_FORMATS, write_trace

app = typer.Typer(help="Inspect and convert traces.", no_args_is_help=True, add_completion=False, cls=Group)

FORMAT_HELP = f"Input format, one of: {FORMAT_NAMES}. Detected from name and content by default."


@app.command("info", cls=Command)
def info_command(
    trace: str = typer.Argument(..., metavar="TRACE", help="Trace file, or workload:NAME[?key=value&...]."),
    fmt: str | None = typer.Option(None, "--format", "-f", metavar="FORMAT", help=FORMAT_HELP),
    reader: list[str] | None = typer.Option(None, "--reader", metavar="KEY=VALUE", help=READER_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as one JSON object."),
) -> None:
    """Requests, unique pages, footprint, one-hit wonders and reuse-distance quantiles."""
    with handled_errors():
        stats = trace_stats(load_trace(trace, fmt, reader_options(reader)))
        if as_json:
            sys.stdout.write(json.dumps({"trace": trace, **stats}, allow_nan=False) + "\n")
        else:
            console = stdout()
            console.print(trace, soft_wrap=True, markup=False, highlight=False)  # whole, however long
            console.print(stats_table(stats))


@app.command("convert", cls=Command)
def convert_command(
    source: str = typer.Argument(..., metavar="IN", help="Trace file, or workload:NAME[?key=value&...]."),
    dest: str = typer.Argument(..., metavar="OUT", help="Output file (overwritten)."),
    fmt: str | None = typer.Option(None, "--format", "-f", metavar="FORMAT", help=FORMAT_HELP),
    reader: list[str] | None = typer.Option(None, "--reader", metavar="KEY=VALUE", help=READER_HELP),
    to: str | None = typer.Option(
        None,
        "--to",
        metavar="FORMAT",
        help=f"Output format: {', '.join(WRITE_FORMATS)}; by OUT's extension, else pagesim.",
    ),
) -> None:
    """Convert a trace, by default to pagesim's lossless format (.pgt)."""
    with handled_errors():
        if to is not None and to not in WRITE_FORMATS:
            raise ValueError(f"cannot write format {to!r}; writable: {', '.join(WRITE_FORMATS)}")
        t = load_trace(source, fmt, reader_options(reader))
        write_trace(t, dest, format=to)
        stdout().print(f"wrote {t.n_requests:,} accesses over {t.n_pages:,} pages to {dest}")
