"""The policy interface: a class of compiled hooks over a :class:`~pagesim.core.state.State`.

A policy is cache_ext's ``struct cache_ext_ops`` (Zussman et al., SOSP 2025, Fig. 3; spec §2.1)
as a Python class whose hooks are static functions ``hook(s, a)`` in numba's subset:

======== ==================================================================================
init     once, before the first access; create lists (``list_create``); return 0 for success
admit    on a miss, before anything is evicted; return 1 to insert the page, 0 to bypass
         the cache (cache_ext's ``admit_folio`` returns the opposite: true = bypass)
added    the page ``a[A_PAGE]`` was just inserted; put it in a list
accessed the resident page ``a[A_PAGE]`` was accessed (a hit)
evict    write up to 32 candidates into ``s.cand`` and return how many; ``a[A_REQUEST]``
         pages are wanted; the framework validates each and falls back on a shortfall
removed  the page ``r[A_PAGE]`` is leaving memory (``r[A_REASON]`` says why); the framework
         unlinks it from its list right after
======== ==================================================================================

Missing hooks are no-ops (``evict`` proposing nothing leaves every eviction to the default
policy). Per-page and global state live in ``s.pm``, ``s.pf``, ``s.gi``, ``s.gf`` with the columns
the class declares. Parameters are instance attributes, written into the globals by
:meth:`Policy.configure` before ``init`` runs, so one compiled engine serves every parameter set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.state import GI_USER, State


@kernel
def noop_hook(s, a):  # type: ignore[no-untyped-def]
    """A hook that does nothing and returns 0."""
    return 0


@kernel
def admit_all(s, a):  # type: ignore[no-untyped-def]
    """The default admission: every missed page is inserted."""
    return 1


HOOK_NAMES = ("init", "admit", "added", "accessed", "evict", "removed")


class Policy:
    """Base class of every policy, built-in or a user's.

    Class attributes
    ----------------
    name : str
        Registry name (``lru``); a user's policy defaults to its class name in lower case.
    description : str
        One line for ``pagesim policies``.
    int_fields, float_fields : tuple of str
        Names of the per-page metadata columns in ``s.pm`` / ``s.pf``; the policy indexes
        them by position.
    int_globals, float_globals : int
        Number of global slots needed beyond ``GI_USER`` (int) and from 0 (float).
    needs_next_access : bool
        True for clairvoyant policies (Belady): the engine then fills ``a[A_NEXT]``.
    proposes_batches : bool
        True if ``evict`` proposes up to ``a[A_REQUEST]`` pages per call (kernel policies,
        cache_ext's). False for policies written for cache mode, which propose one: kernel
        mode then asks them once per page of a reclaim batch.
    uses_fallback : bool
        True for cache_ext-style policies: when they free too little, the framework's default
        policy evicts the rest. False for the kernel's own policies (linux-lru, mglru, CAST),
        which have nothing under them: a short batch makes reclaim retry at a higher priority
        and, when nothing gives at all, the OOM killer acts.
    never_with : tuple of str
        Names of policies never on in the same node at once with this one (CAST and MGLRU:
        switching one on while the other is on is refused); kernel mode refuses such a run.
    params : dict
        Parameter names and defaults; ``Policy(**kw)`` overrides them, unknown names raise.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    int_fields: ClassVar[tuple[str, ...]] = ()
    float_fields: ClassVar[tuple[str, ...]] = ()
    int_globals: ClassVar[int] = 8
    float_globals: ClassVar[int] = 8
    needs_next_access: ClassVar[bool] = False
    proposes_batches: ClassVar[bool] = False
    uses_fallback: ClassVar[bool] = True
    never_with: ClassVar[tuple[str, ...]] = ()
    params: ClassVar[dict[str, Any]] = {}

    init: Callable[..., Any] = staticmethod(noop_hook)
    admit: Callable[..., Any] = staticmethod(admit_all)
    added: Callable[..., Any] = staticmethod(noop_hook)
    accessed: Callable[..., Any] = staticmethod(noop_hook)
    evict: Callable[..., Any] = staticmethod(noop_hook)
    removed: Callable[..., Any] = staticmethod(noop_hook)

    def __init__(self, **overrides: Any) -> None:
        unknown = sorted(set(overrides) - set(self.params))
        if unknown:
            known = ", ".join(sorted(self.params)) or "none"
            raise ValueError(
                f"policy {self.policy_name()!r} has no parameter {', '.join(unknown)}; known: {known}"
            )
        self.values: dict[str, Any] = {**self.params, **overrides}

    @classmethod
    def policy_name(cls) -> str:
        """The registry name, or the class name in lower case."""
        return cls.name or cls.__name__.lower()

    @classmethod
    def has_admit(cls) -> bool:
        """True if the class overrides ``admit``."""
        return cls.admit is not Policy.admit

    def label(self) -> str:
        """Display name carrying the parameters that differ from the defaults, each named:
        ``s3fifo-small=0.1``, ``cast-walker=0-decay=1`` (booleans as 0 and 1), so that runs of
        one policy with different parameters never share a label; array parameters (W-TinyLFU's
        ``keys``) are left out."""
        changed = [
            f"{k}={_shown(v)}"
            for k, v in self.values.items()
            if not isinstance(v, (np.ndarray, list, tuple)) and self.params.get(k) != v
        ]
        return "-".join([self.policy_name(), *changed])

    def state_shape(self) -> dict[str, int]:
        """Sizes for :func:`~pagesim.core.state.make_state` (except ``n_pages``, ``n_cgroups``)."""
        return {
            "n_int_fields": max(len(self.int_fields), 1),
            "n_float_fields": max(len(self.float_fields), 1),
            "n_int_globals": GI_USER + self.int_globals,
            "n_float_globals": max(self.float_globals, 1),
        }

    def configure(self, s: State, capacity: int) -> None:
        """Write parameters into ``s`` before ``init``; the default does nothing.

        Parameters
        ----------
        s : State
            Freshly allocated state.
        capacity : int
            The cache's capacity in its units (pages, or bytes with size-aware traces).
        """

    def switches(self) -> list[tuple[int, Policy | None]]:
        """Run-time switches of the cgroup this policy runs (kernel mode; CAST's ``enabled``).

        Returns
        -------
        list of (int, Policy or None)
            ``(at, policy)``: once ``at`` accesses have run (``at`` >= 0, increasing), the
            cgroup's pages pass to ``policy``, or back to this one when None (with a fresh
            state); :mod:`pagesim.engine.switch`. The default: none.
        """
        return []

    def readouts(self, s: State) -> dict[str, float]:
        """The policy's own state worth plotting over time (MGLRU's max_seq, CAST's decay...).

        Kernel mode samples it into ``KernelResult.series``; the default has none.
        """
        return {}

    def describe(self, s: State) -> str:
        """The policy's readouts as text for a person (CAST: the seed's ``estimate`` and ``tune``
        layout); the default has none and returns ""."""
        return ""

    def check_invariants(self, s: State) -> None:
        """Raise AssertionError if the policy's own structures are inconsistent (tests)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.values.items())})"


class SpeedHints:
    """Capability: knobs that change cache mode's speed only, never a decision.

    A policy class that wants them inherits this beside :class:`Policy` (``class ARC(SpeedHints,
    Policy)``); the engine reads them through :func:`hooks_inlined` and :func:`link_columns`, so
    a policy without the capability runs with none.

    Class attributes
    ----------------
    inline_hooks : tuple of str
        Hooks (names from ``HOOK_NAMES``) that cache mode's runner inlines at numba IR level
        instead of calling: a call passes the ``State`` (14 arrays) by value, which can cost
        more than a small hook's work (LLVM inlines only the smallest hooks by itself). Each
        call site gets a copy, which lengthens the runner's first compile, so policies list
        the hooks whose speed matters; kernel mode always calls. Decisions are the same.
    prefetch_links : tuple of str
        Links whose targets an access to the page will likely write, which cache mode's loop
        then prefetches a few accesses ahead (reading the page's own row and node, prefetched
        before): at most two ``int_fields`` holding a page id or -1 (the neighbours in a list
        the policy keeps in ``pm``: their ``pm`` rows), and/or ``"list"`` (the page's
        neighbours in its eviction list: their list nodes; for policies that move a page on a
        hit). Speed only; decisions are the same.
    """

    inline_hooks: ClassVar[tuple[str, ...]] = ()
    prefetch_links: ClassVar[tuple[str, ...]] = ()


def hooks_inlined(cls: type) -> tuple[str, ...]:
    """The hooks cache mode's runner inlines for ``cls`` (:class:`SpeedHints`; none without it)."""
    return tuple(getattr(cls, "inline_hooks", ()))


def link_columns(cls: type) -> tuple[int, ...]:
    """The ``pm`` columns of ``cls``'s ``prefetch_links``, in order (``"list"`` left out; none
    without :class:`SpeedHints`).

    Raises
    ------
    ValueError
        If a name is neither in ``int_fields`` nor ``"list"``, or more than two fields are given.
    """
    links = tuple(getattr(cls, "prefetch_links", ()))
    fields = [f for f in links if f != "list"]
    int_fields = tuple(getattr(cls, "int_fields", ()))
    if any(f not in int_fields for f in fields) or len(fields) > 2:
        raise ValueError(
            f"{cls.__qualname__}.prefetch_links: at most two of int_fields and 'list', got {links}"
        )
    return tuple(int_fields.index(f) for f in fields)


def links_list(cls: type) -> bool:
    """True if ``cls``'s ``prefetch_links`` name ``"list"`` (:class:`SpeedHints`)."""
    return "list" in tuple(getattr(cls, "prefetch_links", ()))


class AsksKcompressd:
    """Capability: a policy that asks kernel mode's node for a kcompressd thread (CAST's
    ``kcompressd`` knob). The engine asks through :func:`kcompressd_depth` and
    :func:`kcompressd_while_off`; a policy without the capability asks for none, as a stock
    kernel has none. Subclasses override both methods."""

    def kcompressd_depth(self) -> int:
        """Queue depth of the node's kcompressd this policy asks for (0: none); used when
        ``KernelConfig.kcompressd`` is left at None."""
        return 0

    def kcompressd_while_off(self) -> int:
        """kcompressd's depth while another policy runs in this one's place (``switches``)."""
        return 0


def kcompressd_depth(policy: object) -> int:
    """The kcompressd depth ``policy`` asks for: :meth:`AsksKcompressd.kcompressd_depth`, else 0."""
    return policy.kcompressd_depth() if isinstance(policy, AsksKcompressd) else 0


def kcompressd_while_off(policy: object) -> int:
    """kcompressd's depth while ``policy`` is switched off: :meth:`AsksKcompressd.kcompressd_while_off`,
    else 0."""
    return policy.kcompressd_while_off() if isinstance(policy, AsksKcompressd) else 0


def hooks_of(policy_cls: type[Policy]) -> dict[str, Callable[..., Any]]:
    """The six hooks of a policy class, by name."""
    return {h: getattr(policy_cls, h) for h in HOOK_NAMES}


def empty_int64() -> np.ndarray:
    """A zero-length int64 array (for absent optional columns)."""
    return np.zeros(0, dtype=np.int64)


def _shown(value: object) -> str:
    """A parameter's value in a label: booleans as 0 and 1, everything else as ``str`` gives it."""
    return str(int(value)) if isinstance(value, bool) else str(value)
