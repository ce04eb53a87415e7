"""The Trace: columnar numpy arrays, one row per page access.

A Trace is what every reader returns and what the engine consumes. Its invariants, checked when one
is constructed:

- all per-access columns have the same length ``n_requests``;
- ``page`` holds dense ids in first-occurrence order: the first access in the trace is to page 0,
  and each page ``p > 0`` is first accessed after page ``p - 1`` was; hence
  ``0 <= page < n_pages`` and every id in that range occurs;
- ``original_id[p]`` is the id that page ``p`` had in the source (block number, object id, hash);
- ``kind`` is KIND_FILE or KIND_ANON, ``op`` is OP_READ, OP_WRITE or OP_FREE;
- ``size`` and ``time`` are either None (the source has no such column) or full columns.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit, types

from ._jit import JIT
from .remap import remap

__all__ = [
    "KIND_ANON",
    "KIND_FILE",
    "NEVER",
    "OP_FREE",
    "OP_READ",
    "OP_WRITE",
    "Trace",
]

KIND_FILE = 0  #: a page of the page cache (file-backed)
KIND_ANON = 1  #: an anonymous page (heap, stack; swap-backed)
OP_READ = 0  #: the page is read
OP_WRITE = 1  #: the page is written (dirtied)
OP_FREE = 2  #: the page is freed (unmapped, deleted, truncated)

#: `Trace.next_access` value of an access that has no later access to the same page.
NEVER = np.iinfo(np.int64).max

#: Per-access columns: name -> (dtype, optional).
_COLUMNS: dict[str, tuple[np.dtype, bool]] = {
    "page": (np.dtype(np.int64), False),
    "kind": (np.dtype(np.uint8), False),
    "op": (np.dtype(np.uint8), False),
    "cgroup": (np.dtype(np.uint16), False),
    "tag": (np.dtype(np.int32), False),
    "size": (np.dtype(np.int64), True),
    "time": (np.dtype(np.int64), True),
}
_MAX_VALUE = {"kind": KIND_ANON, "op": OP_FREE}

_I64C = types.Array(types.int64, 1, "C")
_I64C_RO = types.Array(types.int64, 1, "C", readonly=True)


@njit([_I64C(_I64C, types.int64), _I64C(_I64C_RO, types.int64)], **JIT)
def _next_access(page, n_pages):
    """Index of the next access to the same page, `NEVER` if none; see `Trace.next_access`."""
    n = page.size
    last = np.full(n_pages, NEVER, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        p = page[i]
        out[i] = last[p]
        last[p] = i
    return out


@njit([types.int64(_I64C, types.int64), types.int64(_I64C_RO, types.int64)], **JIT)
def _first_violation(page, n_pages):
    """Index of the first access breaking dense first-occurrence order; -1 if none.

    Returns ``page.size`` when the order holds but fewer than `n_pages` distinct pages occur.
    """
    next_new = 0
    for i in range(page.size):
        p = page[i]
        if p < 0 or p > next_new:
            return i
        if p == next_new:
            next_new += 1
    if next_new != n_pages:
        return page.size
    return -1


def _coerce(name: str, value: Any, dtype: np.dtype, n: int | None) -> np.ndarray:
    """`value` as a contiguous 1-D array of `dtype`, checking length and value range."""
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise ValueError(f"Trace: column {name!r} must be one-dimensional, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(
            f"Trace: column {name!r} has {arr.shape[0]} rows, expected {n} (the length of 'page')"
        )
    if arr.dtype != dtype:
        if arr.size and arr.dtype.kind not in "iub":
            raise ValueError(f"Trace: column {name!r} must hold integers, got dtype {arr.dtype}")
        if arr.size and arr.dtype.kind in "iu" and not np.can_cast(arr.dtype, dtype):
            info = np.iinfo(dtype)
            lo, hi = int(arr.min()), int(arr.max())
            if lo < info.min or hi > info.max:
                raise ValueError(
                    f"Trace: column {name!r} holds values in [{lo}, {hi}], outside the range of {dtype}"
                )
        arr = arr.astype(dtype)
    return np.ascontiguousarray(arr)


@dataclass(eq=False)
class Trace:
    """A sequence of page accesses as columnar numpy arrays, one row per access.

    Parameters
    ----------
    page : numpy.ndarray of int64, shape (n_requests,)
        Dense page ids in first-occurrence order (see the module docstring); use `Trace.from_ids`
        to build a Trace from arbitrary ids.
    original_id : numpy.ndarray of int64, shape (n_pages,)
        Id of each dense page in the source (block number, object id, or a 64-bit hash of a string
        id); uint64 ids are stored bit for bit.
    kind : numpy.ndarray of uint8, shape (n_requests,), optional
        KIND_FILE (0, default) or KIND_ANON (1).
    op : numpy.ndarray of uint8, shape (n_requests,), optional
        OP_READ (0, default), OP_WRITE (1) or OP_FREE (2).
    cgroup : numpy.ndarray of uint16, shape (n_requests,), optional
        Control group of the access; 0 by default.
    tag : numpy.ndarray of int32, shape (n_requests,), optional
        Thread, process or role of the access, for application-informed policies; 0 by default.
    size : numpy.ndarray of int64, shape (n_requests,), or None
        Object size in bytes at each access, when the source has sizes (object caches).
    time : numpy.ndarray of int64, shape (n_requests,), or None
        Timestamp of each access, in the unit named by ``source["time_unit"]`` when known.
    source : dict
        JSON-serialisable metadata: ``path``, ``format``, reader ``options``, ``compression``,
        ``time_unit``, ``block_bytes``, ``slice``... Copied, never shared.

    Raises
    ------
    ValueError
        If a column is not one-dimensional, has the wrong length or non-integer values, holds
        values out of range of its dtype or of its codes, if `page` is not dense in
        first-occurrence order with respect to `original_id`, or if `source` is not
        JSON-serialisable.

    Notes
    -----
    Integer columns are converted to their dtype (with a range check), so ``Trace(page=[0, 1, 0],
    original_id=[5, 9])`` works. Validation is O(n) and compiled. Uniqueness of `original_id` is
    assumed, not checked (`from_ids` guarantees it).

    Examples
    --------
    >>> t = Trace.from_ids([7, 3, 7, 9, 3])
    >>> t.page, t.original_id, t.n_requests, t.n_pages
    (array([0, 1, 0, 2, 1]), array([7, 3, 9]), 5, 3)
    >>> t.next_access()
    array([                  2,                   4, 9223372036854775807,
           9223372036854775807, 9223372036854775807])
    """

    page: np.ndarray
    original_id: np.ndarray
    kind: np.ndarray | None = None
    op: np.ndarray | None = None
    cgroup: np.ndarray | None = None
    tag: np.ndarray | None = None
    size: np.ndarray | None = None
    time: np.ndarray | None = None
    source: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.page = _coerce("page", self.page, _COLUMNS["page"][0], None)
        n = self.page.shape[0]
        orig = np.asarray(self.original_id)
        if orig.dtype.kind == "u" and orig.dtype.itemsize == 8:
            orig = orig.view(np.int64)
        self.original_id = _coerce("original_id", orig, np.dtype(np.int64), None)
        for name, (dtype, optional) in _COLUMNS.items():
            if name == "page":
                continue
            value = getattr(self, name)
            if value is None:
                if not optional:
                    setattr(self, name, np.zeros(n, dtype=dtype))
                continue
            arr = _coerce(name, value, dtype, n)
            if name in _MAX_VALUE and arr.size and int(arr.max()) > _MAX_VALUE[name]:
                bad = int(np.argmax(arr > _MAX_VALUE[name]))
                raise ValueError(
                    f"Trace: column {name!r} holds {int(arr[bad])} at row {bad}; "
                    f"valid codes are 0..{_MAX_VALUE[name]}"
                )
            setattr(self, name, arr)
        n_pages = self.original_id.shape[0]
        bad = int(_first_violation(self.page, n_pages))
        if bad == n:
            raise ValueError(
                f"Trace: 'page' uses {int(self.page.max()) + 1 if n else 0} distinct pages but "
                f"'original_id' has {n_pages} entries"
            )
        if bad >= 0:
            raise ValueError(
                f"Trace: 'page' is not dense in first-occurrence order at row {bad} (page "
                f"{int(self.page[bad])}); build the Trace with Trace.from_ids(ids) to remap"
            )
        if not isinstance(self.source, dict):
            raise ValueError(f"Trace: source must be a dict, got {type(self.source).__name__}")
        try:
            self.source = json.loads(json.dumps(self.source, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"Trace: source must be JSON-serialisable: {exc}") from None

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_ids(cls, ids: Any, **columns: Any) -> Trace:
        """A Trace from arbitrary integer ids, remapped densely in first-occurrence order.

        Parameters
        ----------
        ids : array_like of int, shape (n_requests,)
            Source ids (int64, or uint64 reinterpreted bit for bit).
        **columns
            Any of ``kind``, ``op``, ``cgroup``, ``tag``, ``size``, ``time`` (shape
            (n_requests,)) and ``source`` (dict), as for the constructor.

        Returns
        -------
        Trace
            ``page`` from `remap`, ``original_id`` the distinct ids in first-occurrence order.

        Raises
        ------
        ValueError
            As `remap` and the constructor; also for an unknown keyword.
        """
        unknown = set(columns) - (set(_COLUMNS) | {"source"}) | ({"page", "original_id"} & set(columns))
        if unknown:
            raise ValueError(f"Trace.from_ids: unknown column(s) {sorted(unknown)}")
        page, original_id = remap(ids)
        return cls(page=page, original_id=original_id, **columns)

    # ------------------------------------------------------------------ shape

    @property
    def n_requests(self) -> int:
        """Number of accesses (rows)."""
        return int(self.page.shape[0])

    @property
    def n_pages(self) -> int:
        """Number of distinct pages; dense ids are ``0 .. n_pages - 1``."""
        return int(self.original_id.shape[0])

    def __len__(self) -> int:
        return self.n_requests

    def __repr__(self) -> str:
        fmt = self.source.get("format", "?")
        path = self.source.get("path", "")
        return f"Trace(n_requests={self.n_requests}, n_pages={self.n_pages}, format={fmt!r}, path={path!r})"

    def columns(self) -> dict[str, np.ndarray | None]:
        """The per-access columns by name (``page`` .. ``time``); optional ones may be None."""
        return {name: getattr(self, name) for name in _COLUMNS}

    # ------------------------------------------------------------------ sub-traces

    def slice(self, start: int | None = None, stop: int | None = None) -> Trace:
        """Accesses ``start:stop`` as a new Trace, pages remapped densely again.

        Parameters
        ----------
        start, stop : int or None
            Python slice bounds over accesses (negative values count from the end); step 1.

        Returns
        -------
        Trace
            Own copies of the columns; ``original_id`` still names the source's ids; ``source``
            gains ``slice = {"start": s, "stop": e}`` relative to the trace read from the file.
        """
        s, e, _ = slice(start, stop).indices(self.n_requests)
        e = max(e, s)
        page, sub = remap(self.page[s:e])
        source = copy.deepcopy(self.source)
        base = source.get("slice", {}).get("start", 0)
        source["slice"] = {"start": base + s, "stop": base + e}
        cols = {
            name: (None if getattr(self, name) is None else getattr(self, name)[s:e].copy())
            for name in _COLUMNS
            if name != "page"
        }
        return Trace(page=page, original_id=self.original_id[sub], source=source, **cols)

    def head(self, n: int) -> Trace:
        """The first `n` accesses (all of them if fewer); see `slice`."""
        if n < 0:
            raise ValueError(f"Trace.head: n must be >= 0, got {n}")
        return self.slice(0, n)

    # ------------------------------------------------------------------ derived arrays

    def next_access(self) -> np.ndarray:
        """Index of the next access to the same page, for every access.

        Returns
        -------
        numpy.ndarray of int64, shape (n_requests,)
            ``out[i] = min{j > i : page[j] == page[i]}``, or `NEVER` (``2**63 - 1``) if there is
            none; what Belady's OPT evicts by.

        Notes
        -----
        One backward pass, O(n_requests + n_pages) time; kernel `_next_access`.

        Examples
        --------
        >>> Trace.from_ids([0, 1, 0, 2, 1]).next_access()[:2]
        array([2, 4])
        """
        return _next_access(self.page, self.n_pages)

    # ------------------------------------------------------------------ comparison

    def equals(self, other: object) -> bool:
        """True if `other` is a Trace with identical columns (values, dtypes, None-ness) and source."""
        if not isinstance(other, Trace):
            return False
        for name in [*_COLUMNS, "original_id"]:
            a, b = getattr(self, name), getattr(other, name)
            if (a is None) != (b is None):
                return False
            if a is not None and (a.dtype != b.dtype or not np.array_equal(a, b)):
                return False
        return self.source == other.source
