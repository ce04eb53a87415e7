"""``pagesim policies`` and ``pagesim workloads``: what can be named on the command line."""

from __future__ import annotations

from typing import Any

import typer

from pagesim.cli._common import stdout
from pagesim.policies.params import every_param
from pagesim.policies.registry import policy_class, policy_names
from pagesim.report.listing import params_table, policies_table, workloads_table
from pagesim.workloads import WORKLOADS
from pagesim.workloads.kernel import KERNEL_WORKLOADS

#: Remarks shown under a policy's description in ``pagesim policies``.
NOTES = {
    "opt": "A bound only with equal-size pages: with --capacity-unit bytes (object sizes) "
    "evicting the furthest next use is not optimal, and the table says 'over Belady'.",
    "opt-bypass": "The bound for policies that may bypass (define admit); compare uses it for them. "
    "Like opt, a bound only with equal-size pages.",
}


def policies_command(
    params: bool = typer.Option(
        False, "--params", help="Every parameter with its default, unit, meaning and source."
    ),
) -> None:
    """List every built-in policy with its one-line description (``--params``: its parameters)."""
    if params:
        stdout().print(
            params_table([(p.policy, p.name, p.default, p.unit, p.meaning, p.source) for p in every_param()])
        )
        return
    rows: list[tuple[str, str, dict[str, Any]]] = []
    for name in policy_names():
        try:
            cls = policy_class(name)
            rows.append((name, cls.description or "-", dict(cls.params)))
        except Exception as exc:  # a broken module must not hide the others  # noqa: BLE001
            rows.append((name, f"(cannot load: {type(exc).__name__}: {exc})", {}))
    stdout().print(policies_table(rows, notes=NOTES))


def workloads_command() -> None:
    """List every built-in workload with its parameters and defaults."""
    rows = [(name, w.description, w.defaults) for name, w in WORKLOADS.items()]
    stdout().print(workloads_table(rows))
    kernel_rows = [(name, w.description, w.defaults) for name, w in KERNEL_WORKLOADS.items()]
    stdout().print(
        workloads_table(
            kernel_rows,
            title="kernel-mode workloads (pagesim run NAME or NAME?key=value&...; anon and file pages)",
        )
    )
