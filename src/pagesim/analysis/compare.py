"""Compare policies on one trace at several cache sizes, against Belady's OPT.

This is the library behind ``pagesim compare`` and ``pagesim run``: it resolves sizes given as
page counts or percentages, warm-up given as a count or a fraction, runs every (size, policy)
pair through the engine (:class:`pagesim.engine.simulate.Run`), and annotates each
:class:`~pagesim.engine.Result` with the misses Belady's OPT makes at the same size.

Terms
-----
*Misses above OPT* of a run: its misses minus the misses of the offline optimum of its kind on
the same trace, size and warm-up, absolute and as a percentage of the optimum's. With equal-size
pages Belady's OPT (``opt``, demand fetch: every miss is inserted) is a lower bound for every
demand-paging policy; a policy that may bypass (one that defines ``admit``, such as
``admit-compaction``) can beat it, so it is compared with MIN with bypass (``opt-bypass``), the
lower bound when a miss may be served without inserting (:func:`bound_for`). The value is then
>= 0 for every policy. With object sizes (``capacity_unit="bytes"``) evicting the furthest next
use is not optimal (size-aware offline policies miss less), so there the value compares with a
strong heuristic, not a bound (:func:`opt_is_bound`). Stored in ``result.params["opt_misses"]``
(with the optimum's name in ``result.params["opt_policy"]``) and read by
:func:`misses_above_opt`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pagesim.engine import PolicyError, Result
from pagesim.engine.simulate import CHUNK, Run
from pagesim.engine.warm import compile_ahead, pending
from pagesim.policies.base import Policy
from pagesim.policies.registry import UnknownPolicyError, instantiate, policy_class, policy_names
from pagesim.trace import Trace
from pagesim.trace.stream import TraceStream

__all__ = [
    "DEFAULT_POLICIES",
    "OPT",
    "OPT_BYPASS",
    "bound_for",
    "compare",
    "compile_in_parallel",
    "misses_above_opt",
    "opt_is_bound",
    "parse_size",
    "resolve_policies",
    "resolve_size",
    "resolve_warmup",
    "split_policy_names",
]

#: Policies compared when none are named; those not registered (yet) are skipped silently.
DEFAULT_POLICIES = ("lru", "fifo", "clock", "mru", "lfu", "opt")
#: Cache sizes of ``pagesim run`` and ``pagesim compare`` when none is given: shares of the unique pages.
DEFAULT_SIZES = ("1%", "5%", "10%")

#: Registry name of Belady's OPT (demand fetch), the baseline of the "misses above OPT" column.
OPT = "opt"
#: Registry name of MIN with bypass, the baseline of policies that may bypass (define ``admit``).
OPT_BYPASS = "opt-bypass"

_SIZE = re.compile(r"^\s*(?P<num>[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(?P<pct>%?)\s*$")


def parse_size(text: str | int) -> tuple[float, bool]:
    """Check the syntax of a size: ``(value, is_percentage)``.

    Parameters
    ----------
    text : str or int
        ``5000``, ``1e4`` or ``10%``.

    Returns
    -------
    tuple of (float, bool)
        The number (> 0) and whether it is a percentage.

    Raises
    ------
    ValueError
        If it is not a number or percentage, is <= 0, or is a fractional count.
    """
    raw = str(text)
    m = _SIZE.match(raw)
    if m is None:
        raise ValueError(f"size must be a positive count or a percentage like 10%, got {raw!r}")
    value = float(m.group("num"))
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"size must be > 0, got {raw!r}")
    percent = bool(m.group("pct"))
    if not percent and value != int(value):
        raise ValueError(f"size must be a whole count or a percentage, got {raw!r}")
    return value, percent


def resolve_size(text: str | int, trace: Trace | TraceStream, capacity_unit: str = "pages") -> int:
    """A cache size from ``5000`` or ``10%``.

    Parameters
    ----------
    text : str or int
        A positive count (pages, or bytes with ``capacity_unit="bytes"``; ``1e4`` is accepted if
        integral) or a positive percentage: of the trace's unique pages, or of its footprint
        in bytes (sum of the largest size seen per object) with the bytes unit.
    trace : Trace or TraceStream
        The trace the size refers to (a stream's footprint in bytes takes one pass over it).
    capacity_unit : {"pages", "bytes"}

    Returns
    -------
    int
        The capacity, >= 1. A percentage is rounded to the nearest unit and raised to 1 if it
        rounds to 0 (an empty trace, or a tiny percentage).

    Raises
    ------
    ValueError
        As :func:`parse_size`; or if the bytes unit is asked for a trace without sizes.
    """
    value, percent = parse_size(text)
    streamed = isinstance(trace, TraceStream)
    if capacity_unit == "bytes" and not (trace.has_size if streamed else trace.size is not None):
        raise ValueError("--capacity-unit bytes needs a trace with object sizes")
    if not percent:
        return int(value)
    if capacity_unit == "bytes" and streamed:
        whole = trace.footprint_bytes()
    elif capacity_unit == "bytes":
        biggest = np.zeros(trace.n_pages, dtype=np.int64)
        np.maximum.at(biggest, trace.page, trace.size)
        whole = int(biggest.sum())
    else:
        whole = trace.n_pages
    return max(1, int(round(whole * value / 100.0)))


def resolve_warmup(text: str | int | float | None, n_requests: int) -> int:
    """Warm-up accesses from a count (``100000``) or a fraction of the trace (``0.1``, ``10%``).

    Parameters
    ----------
    text : str, int, float or None
        None or ``0``: no warm-up. An integer (``5000``, or a float with an integral value
        written without a decimal point such as ``1e4``): that many accesses. A value with a
        decimal point (``0.1``, ``1.0``) or a float: that fraction of the trace; a percentage
        (``10%``): that share of it. Fractions are rounded down.
    n_requests : int
        Length of the trace.

    Returns
    -------
    int
        Warm-up accesses, ``0 <= warmup < n_requests`` (or 0).

    Raises
    ------
    ValueError
        If the value is negative or not a number, if a fraction is >= 1 (or a percentage
        >= 100%), or if the warm-up would cover the whole trace (nothing would be counted).
    """
    if text is None:
        return 0
    raw = str(text).strip()
    percent = raw.endswith("%")
    number = raw[:-1].strip() if percent else raw
    try:
        value = float(number)
    except ValueError:
        raise ValueError(
            f"warm-up must be a count (5000), a fraction (0.1) or a percentage (10%), got {text!r}"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"warm-up must be >= 0, got {text!r}")
    fraction = percent or isinstance(text, float) or "." in number
    if fraction:
        share = value / 100.0 if percent else value
        if share >= 1:
            raise ValueError(
                f"warm-up {raw} covers the whole trace: give a fraction below 1 (0.1 or 10%) "
                "or a count of accesses"
            )
        count = int(share * n_requests)
    else:
        if value != int(value):
            raise ValueError(f"warm-up must be a whole count, a fraction or a percentage, got {text!r}")
        count = int(value)
    if count and count >= n_requests:
        raise ValueError(
            f"warm-up of {count:,} accesses covers the whole trace ({n_requests:,} requests): "
            "nothing would be counted"
        )
    return count


def split_policy_names(names: Sequence[str] | None) -> list[str] | None:
    """The policy names of ``--policy`` values: comma-separated items flattened, blanks dropped.

    Parameters
    ----------
    names : sequence of str or None
        As given on the command line (each item may be a comma-separated list).

    Returns
    -------
    list of str or None
        None when nothing was given (None or an empty sequence): use the defaults.

    Raises
    ------
    ValueError
        If values were given but name no policy at all (``--policy ''``).
    """
    if not names:
        return None
    wanted = [p.strip() for item in names for p in str(item).split(",") if p.strip()]
    if not wanted:
        raise ValueError(
            "the policy list is empty: name at least one policy (pagesim policies lists them), "
            "or leave --policy out for the defaults"
        )
    return wanted


def resolve_policies(names: Sequence[str] | None) -> list[type[Policy]]:
    """Policy classes for the given names, or for the registered defaults.

    Parameters
    ----------
    names : sequence of str or None
        Registry names or ``path/to/file.py:ClassName`` specs; each item may itself be a
        comma-separated list. None or an empty sequence: :data:`DEFAULT_POLICIES` that are
        registered.

    Returns
    -------
    list of type of Policy
        In the order given, duplicates removed.

    Raises
    ------
    UnknownPolicyError
        If an explicitly named policy is not registered (the message lists the known ones).
    FileNotFoundError, ValueError
        If a user policy file is missing or has no such Policy class, or if ``names`` holds
        only blanks (see :func:`split_policy_names`).
    Exception
        Whatever a user's policy file raises while it is imported.
    """
    wanted = split_policy_names(names)
    if wanted is None:
        known = set(policy_names())
        wanted = [p for p in DEFAULT_POLICIES if p in known]
    seen: set[str] = set()
    out: list[type[Policy]] = []
    for name in wanted:
        key = name.lower() if ".py:" not in name else name
        if key in seen:
            continue
        seen.add(key)
        out.append(policy_class(name))
    return out


def _bound_class(name: str) -> type[Policy] | None:
    try:
        return policy_class(name)
    except UnknownPolicyError:
        return None


def _as_factory(policy: str | type[Policy] | Policy) -> tuple[type[Policy], dict[str, Any]]:
    if isinstance(policy, Policy):
        return type(policy), dict(policy.values)
    if isinstance(policy, type):
        return policy, {}
    return policy_class(policy), {}


def bound_for(cls: type[Policy]) -> str:
    """Registry name of the offline optimum that bounds policy class `cls` from below.

    :data:`OPT_BYPASS` (MIN with bypass) for a policy that may bypass (one that defines
    ``admit``), :data:`OPT` (demand-fetch MIN) for every other: with equal-size pages each is
    the least number of misses any policy of that kind can make.
    """
    return OPT_BYPASS if cls.has_admit() else OPT


def compile_in_parallel(
    classes: Sequence[type[Policy]], on_stage: Callable[[str, str], None] | None = None
) -> None:
    """Compile the cache-mode runners of ``classes`` not cached yet, in parallel processes, before
    runs load them (:func:`pagesim.engine.warm.compile_ahead`; only when two or more are
    missing); ``on_stage("compile", "lru, fifo")`` is called first with their names.

    The processes are spawned, which re-imports the calling script's main module: library
    functions call this only when asked (``parallel_compile=True``).
    """
    todo = pending(classes)
    if len(todo) < 2:
        return
    if on_stage is not None:
        on_stage("compile", ", ".join(c.policy_name() for c in todo))
    compile_ahead(todo)


def compare(
    trace: Trace | TraceStream,
    policies: Sequence[str | type[Policy] | Policy],
    sizes: Sequence[int],
    *,
    warmup: int = 0,
    capacity_unit: str = "pages",
    baseline: bool = True,
    progress: Callable[[int, int], None] | None = None,
    interpreted: bool = False,
    on_stage: Callable[[str, str], None] | None = None,
    failures: list[PolicyError] | None = None,
    parallel_compile: bool = False,
    writes: str = "access",
    checked: bool = False,
    policy_timeout: float | None = None,
) -> list[Result]:
    """Simulate every policy at every size on one trace.

    Parameters
    ----------
    trace : Trace or TraceStream
        The trace (possibly empty); a stream is read again for each run, one chunk at a time.
    policies : sequence of str, Policy subclasses or Policy instances
        Names (see :func:`resolve_policies`), classes or configured instances; each run gets a
        fresh instance, with default parameters for names and classes and with the instance's
        parameter values for instances.
    sizes : sequence of int
        Capacities, in ``capacity_unit``, each > 0 (see :func:`resolve_size`).
    warmup : int
        Accesses that fill the cache without being counted (see :func:`resolve_warmup`).
    capacity_unit : {"pages", "bytes"}
    baseline : bool
        Also run the offline optimum that bounds each policy (:func:`bound_for`: Belady's OPT,
        and MIN with bypass when a policy may bypass) at each size, unless it is among
        ``policies`` with its default parameters, and store its misses in each result's
        ``params["opt_misses"]`` and its name in ``params["opt_policy"]``. A bound that is not
        registered is skipped. The bounds run first at each size, so results that finish
        before a failing policy carry them too.
    progress : callable ``(done, total)``, optional
        Called as runs advance; ``done`` and ``total`` count accesses over all runs
        (baseline runs included).
    interpreted : bool
        Run every policy as plain Python (slow; for debugging).
    writes, checked, policy_timeout
        As for :func:`pagesim.engine.simulate`: how writes are served, whether the framework's
        arrays are verified after every hook, and the seconds an access may take (a run that
        times out is a failure like a hook that raises).
    parallel_compile : bool
        Compile the runners not cached yet first, in parallel processes
        (:func:`pagesim.engine.warm.compile_ahead`; two or more of them, one cgroup). Off by
        default: the processes are spawned, which re-imports the calling script's main module
        (a script without an ``if __name__ == "__main__"`` guard would run again); the
        ``pagesim`` command turns it on.
    on_stage : callable ``(stage, label)``, optional
        Called with ``("compile", "lru, fifo")`` before the runners compile in parallel,
        with ``("prepare", label)`` before a run compiles or loads its runner and calls
        ``init``, and with ``("simulate", label)`` once it starts on the accesses.
    failures : list or None
        When a list, a run whose policy raises is appended to it as its `PolicyError` (with
        ``policy_class`` and ``capacity``) and the other runs go on; its result is left out.
        When None, the first failure is raised (see Raises).

    Returns
    -------
    list of Result
        Size-major: for each size in order, one result per policy in order (those that did not
        fail). Each result's ``params`` gains ``size`` (the capacity), ``bypasses`` (whether the
        policy defines ``admit``) and, with a baseline, ``opt_misses`` and ``opt_policy``.

    Raises
    ------
    ValueError
        If a size is <= 0 or a warm-up is negative.
    UnknownPolicyError
        For an unknown policy name.
    pagesim.engine.PolicyError
        If a policy's hook raises and `failures` is None. The exception gains ``results`` (the
        results that finished before it, in the order above), ``policy_class`` and
        ``capacity`` (of the failing run).
    """
    factories = [_as_factory(p) for p in policies]
    for size in sizes:
        if int(size) <= 0:
            raise ValueError(f"size must be > 0, got {size}")
    wanted = {bound_for(c) for c, _ in factories} if baseline else set()
    if baseline:
        wanted.add(OPT)  # the demand-fetch bound is always shown
    bounds = [c for c in (_bound_class(n) for n in (OPT, OPT_BYPASS) if n in wanted) if c is not None]
    # A bound in the list with its default parameters doubles as the baseline.
    slots = {
        bound: next((i for i, (c, v) in enumerate(factories) if c is bound and not v), None)
        for bound in bounds
    }
    extra = sum(1 for bound in bounds if slots[bound] is None)
    n = trace.n_requests
    total = n * len(sizes) * (len(factories) + extra)
    done = 0
    one_cgroup = (
        trace.n_cgroups == 1
        if isinstance(trace, TraceStream)
        else trace.cgroup is None or not np.any(trace.cgroup)
    )
    if parallel_compile and not interpreted and one_cgroup:
        compile_in_parallel([b for b in bounds if slots[b] is None] + [c for c, _ in factories], on_stage)

    def run(cls: type[Policy], values: dict[str, Any], size: int) -> Result:
        nonlocal done
        base = done
        try:
            policy = instantiate(cls, **values)
            if on_stage is not None:
                on_stage("prepare", policy.label())
            sim = Run(
                trace,
                policy,
                int(size),
                warmup=warmup,
                capacity_unit=capacity_unit,
                interpreted=interpreted,
                writes=writes,
                checked=checked,
                policy_timeout=policy_timeout,
            )
            if on_stage is not None:
                on_stage("simulate", policy.label())
            while sim.done < sim.n:
                sim.advance(CHUNK)
                if progress is not None:
                    progress(base + sim.done, total)
        finally:
            done = base + n
        result = sim.result()
        result.params["size"] = int(size)
        result.params["bypasses"] = cls.has_admit()
        return result

    results: list[Result] = []
    for size in sizes:
        bound_results: dict[str, Result] = {}
        current: tuple[type[Policy], int] | None = None
        try:
            for bound in bounds:
                current = (bound, size)
                try:
                    bound_results[bound.policy_name()] = run(bound, {}, size)
                except PolicyError as err:
                    if failures is None:
                        raise
                    err.policy_class, err.capacity = bound, size  # type: ignore[attr-defined]
                    failures.append(err)
            for i, (cls, values) in enumerate(factories):
                current = (cls, size)
                own = next((b for b in bounds if slots[b] == i), None)
                if own is not None and own.policy_name() in bound_results:
                    result = bound_results[own.policy_name()]
                else:
                    try:
                        result = run(cls, values, size)
                    except PolicyError as err:
                        if failures is None:
                            raise
                        err.policy_class, err.capacity = cls, size  # type: ignore[attr-defined]
                        failures.append(err)
                        continue
                bound_name = bound_for(cls)
                if bound_name not in bound_results and bound_name == OPT_BYPASS:
                    bound_name = OPT  # no bypass bound registered: the comparison is no bound
                if bound_name in bound_results:
                    result.params["opt_misses"] = bound_results[bound_name].misses
                    result.params["opt_policy"] = bound_name
                results.append(result)
        except PolicyError as err:
            err.results = results  # type: ignore[attr-defined]
            err.policy_class, err.capacity = current or (None, size)  # type: ignore[attr-defined]
            raise
    if progress is not None:
        progress(total, total)
    return results


def opt_is_bound(result: Result) -> bool:
    """Whether the misses in ``result.params["opt_misses"]`` are a lower bound for this run.

    True with equal-size pages when the comparison is with the bound of the policy's kind
    (:func:`bound_for`): demand-fetch OPT for a policy that inserts every miss, MIN with bypass
    for one that may bypass. False with object sizes (``capacity_unit="bytes"``: evicting the
    furthest next use is then a heuristic), without a baseline, or when a policy that bypasses
    was compared with demand-fetch OPT.
    """
    if result.capacity_unit == "bytes" or result.params.get("opt_misses") is None:
        return False
    kind = OPT_BYPASS if result.params.get("bypasses", False) else OPT
    return bool(result.params.get("opt_policy", OPT) == kind)  # results from before: OPT


def misses_above_opt(result: Result) -> tuple[int, float] | None:
    """Misses above Belady's OPT: ``(misses - opt, 100 * (misses - opt) / opt)``.

    Parameters
    ----------
    result : Result
        A result from :func:`compare` with a baseline.

    Returns
    -------
    tuple of (int, float) or None
        None if no OPT baseline was computed. The percentage is 0.0 when both counts are 0 and
        ``inf`` when OPT missed nothing but the policy did.
    """
    opt: Any = result.params.get("opt_misses")
    if opt is None:
        return None
    above = result.misses - int(opt)
    if opt == 0:
        return above, (0.0 if above == 0 else math.inf)
    return above, 100.0 * above / int(opt)
