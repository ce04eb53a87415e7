"""The ``pagesim`` command: thin wrappers that parse options, call the library and print.

One small module per command group (``_compare``, ``_run``, ``_trace``, ``_listing``); what they
share (error reporting, trace loading, progress, printing comparisons) is in ``_common``.
"""

from __future__ import annotations

import typer

import pagesim
from pagesim.cli import _advise, _compare, _experiment, _listing, _mrc, _record, _run, _sweep, _trace, _warm
from pagesim.cli._help import Command, Group

app = typer.Typer(
    help="pagesim: a page-cache laboratory (cache_ext-style policies, Belady's OPT, real traces).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=Group,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"pagesim {pagesim.__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """pagesim: a page-cache laboratory."""


app.command("run", cls=Command)(_run.run_command)
app.command("compare", cls=Command)(_compare.compare_command)
app.command("mrc", cls=Command)(_mrc.mrc_command)
app.command("advise", cls=Command)(_advise.advise_command)
app.add_typer(_trace.app, name="trace")
app.command("policies", cls=Command)(_listing.policies_command)
app.command("workloads", cls=Command)(_listing.workloads_command)
app.command("kernel-check", cls=Command)(_record.kernel_check_command)
app.command("experiment", cls=Command)(_experiment.experiment_command)
app.command("sweep", cls=Command)(_sweep.sweep_command)
app.command("results", cls=Command)(_sweep.results_command)
app.command("report", cls=Command)(_sweep.report_command)
app.command("warm", cls=Command)(_warm.warm_command)
app.command("record", cls=Command, context_settings={"allow_interspersed_args": False})(
    _record.record_command
)

__all__ = ["app"]
