"""What zram holds in memory: each stored page's compressed size, from what its data is like.

zram stores a swapped-out page compressed (zsmalloc), and a page whose every word is the same
value (a zero page above all) in no memory at all: its table entry keeps the value
(``ZRAM_SAME``, drivers/block/zram/zram_drv.c, ``zram_write_page``). How well a page compresses
depends on its data, not on the device: lz4 on typical anonymous memory gives about 2-3:1
(pagesim's default 3:1, :data:`~pagesim.engine.memory.DEVICES`), a region written with a
constant or a short pattern far more.

So a workload may state its anonymous data's compressibility per task (``Trace.source
["anon_compression"]``, a list of ``{"tag": T, "ratio": R, "same_filled": F}``): task ``T``'s
anon pages (the task that touched a page first owns it) compress ``R``:1 (None or missing: the
node's zram ratio), and a share ``F`` of them are same-filled and cost nothing. Which pages
are same-filled is fixed, spread evenly over the task's pages in the order it first touched
them: its ``k``-th page (from 0) is one iff ``floor((k + 1) F) > floor(k F)``, so its first
``n`` pages hold ``floor(n F)`` of them. Pages of tasks not listed compress at the node's ratio
(``KernelConfig.zram_ratio``, default the device's 3:1), none same-filled: by default every
stored page takes a third of a page, ``ceil(stored / 3)`` pages in all.

Counting (what :func:`zram_costs` hands the engine): each ratio ``R`` is taken as the nearest
fraction ``p/q`` with ``q <= 1000`` (3 -> 3/1, 6.5 -> 13/2), so a page costs ``q/p`` of a page
of memory; with ``L`` the least common multiple of the ``p`` in use, a page's cost is the
integer ``L * q / p`` (0 if same-filled) and zram's memory is ``ceil(sum of the stored pages'
costs / L)`` pages -- the exact sum of ``1 / R`` over the stored pages, rounded up once for the
whole store (zsmalloc's size classes and its per-page overhead are not modelled). With every
page at 3:1 that is ``ceil(stored / 3)``, pagesim's count before the per-page costs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

#: Denominators a ratio is approximated with (``Fraction.limit_denominator``).
RATIO_DENOMINATOR = 1000
#: The largest cost scale: ``scale * pages`` must stay far inside int64.
MAX_SCALE = 1 << 40
#: Keys of one ``source["anon_compression"]`` entry.
COMPRESSION_KEYS = ("tag", "ratio", "same_filled")


def ratio_fraction(ratio: float) -> Fraction:
    """``ratio`` as the nearest fraction with a denominator of at most 1,000.

    Raises
    ------
    ValueError
        If ``ratio`` is below 1 (zram keeps a page that does not compress as it is) or not finite.

    Examples
    --------
    >>> ratio_fraction(6.5)
    Fraction(13, 2)
    """
    if not math.isfinite(ratio) or ratio < 1:
        raise ValueError(f"a zram compression ratio must be a finite number >= 1, got {ratio!r}")
    return Fraction(ratio).limit_denominator(RATIO_DENOMINATOR)


def same_filled_mask(n: int, share: float) -> np.ndarray:
    """Which of ``n`` pages are same-filled when a share ``share`` of them are, spread evenly.

    Page ``k`` is iff ``floor((k + 1) share) > floor(k share)`` (``share`` taken as a fraction
    with denominator <= 1,000,000), so the first ``m`` pages hold ``floor(m share)``.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)

    Raises
    ------
    ValueError
        If ``share`` is outside [0, 1].

    Examples
    --------
    >>> same_filled_mask(4, 0.5).tolist()
    [False, True, False, True]
    """
    if not 0 <= share <= 1:
        raise ValueError(f"same_filled must be within [0, 1], got {share!r}")
    f = Fraction(share).limit_denominator(1_000_000)
    k = np.arange(n, dtype=np.int64)
    return (k + 1) * f.numerator // f.denominator > k * f.numerator // f.denominator


def compression_entries(source: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A trace source's ``anon_compression`` entries, checked (empty if it states none).

    Raises
    ------
    ValueError
        For an entry that is not a mapping, has unknown keys or no ``tag``, a tag given twice,
        a ratio below 1 or a same-filled share outside [0, 1].
    """
    entries = source.get("anon_compression") or []
    if isinstance(entries, Mapping) or isinstance(entries, str) or not isinstance(entries, Sequence):
        raise ValueError("source['anon_compression'] must be a list of {tag, ratio, same_filled}")
    checked: list[dict[str, Any]] = []
    for e in entries:
        if not isinstance(e, Mapping) or "tag" not in e or set(e) - set(COMPRESSION_KEYS):
            raise ValueError(f"an anon_compression entry has keys {', '.join(COMPRESSION_KEYS)}: got {e!r}")
        ratio = e.get("ratio")
        if ratio is not None:
            ratio_fraction(float(ratio))
        same = float(e.get("same_filled") or 0.0)
        same_filled_mask(0, same)
        ratio = None if ratio is None else float(ratio)
        checked.append({"tag": int(e["tag"]), "ratio": ratio, "same_filled": same})
    tags = [e["tag"] for e in checked]
    if len(set(tags)) != len(tags):
        raise ValueError(f"anon_compression names a tag twice: {tags}")
    return checked


def zram_costs(
    page: np.ndarray,
    kind: np.ndarray,
    tag: np.ndarray,
    n_pages: int,
    node_ratio: float,
    entries: Sequence[Mapping[str, Any]] = (),
) -> tuple[np.ndarray, int]:
    """Each page's cost in zram and the scale it is counted in (module docstring).

    Parameters
    ----------
    page, kind, tag : numpy.ndarray, shape (n,)
        The trace's dense page ids (int64), kinds (uint8, 1 anon) and tasks (int32).
    n_pages : int
        Pages of the trace (the costs' length).
    node_ratio : float
        The node's zram ratio, for pages whose task states none (>= 1).
    entries : sequence of mappings
        :func:`compression_entries` of the trace.

    Returns
    -------
    cost : numpy.ndarray of int64, shape (n_pages,)
        What a page adds to zram while stored, in ``1/scale`` pages of memory.
    scale : int
        zram's memory is ``ceil(sum of the stored pages' cost / scale)`` pages.

    Raises
    ------
    ValueError
        For a ratio below 1, or ratios whose common scale exceeds 2**40.
    """
    default = ratio_fraction(node_ratio)
    per_tag = {int(e["tag"]): e for e in entries}
    ratios = {t: ratio_fraction(float(e["ratio"])) for t, e in per_tag.items() if e.get("ratio") is not None}
    scale = math.lcm(default.numerator, *(r.numerator for r in ratios.values()))
    if scale > MAX_SCALE:
        raise ValueError(f"zram ratios {sorted(map(float, ratios.values()))} need too fine a scale ({scale})")
    cost = np.full(max(n_pages, 1), scale * default.denominator // default.numerator, dtype=np.int64)
    if not per_tag or page.size == 0:
        return cost, scale
    _, first_row = np.unique(page, return_index=True)  # each page's first access (its row)
    first_row = np.sort(first_row)  # pages in the order they were first touched
    first_row = first_row[kind[first_row] == 1]
    for t, e in per_tag.items():
        rows = first_row[tag[first_row] == t]
        pages = page[rows]
        r = ratios.get(t, default)
        cost[pages] = scale * r.denominator // r.numerator
        cost[pages[same_filled_mask(pages.size, float(e.get("same_filled") or 0.0))]] = 0
    return cost, scale


__all__ = ["compression_entries", "ratio_fraction", "same_filled_mask", "zram_costs"]
