"""``stream-ws``: a working set read every period while a stream allocates until the OOM killer takes it.

Source: the CAST seed. A 300 MB working set (of 8 GB) read every 100 ms while ``tail /dev/zero``
buffers its input without end: task 0 reads its anonymous working set once per period; task 1
writes ``stream_pages_per_period`` new anonymous pages per period and never touches them again.
"""

from __future__ import annotations

import numpy as np

from pagesim.trace import KIND_ANON, OP_READ, OP_WRITE, Trace
from pagesim.workloads.kernel.common import SCALED_MEMORY_PAGES, _anon_ids


def stream_ws(
    memory_pages: int = SCALED_MEMORY_PAGES,
    ws_ratio: float = 300 / 8192,
    stream_pages_per_period: int | None = None,
    swap_ratio: float = 1.0,
    extra_periods: int = 20,
    period_ms: float | None = None,
    seed: int = 0,
) -> Trace:
    """A working set read every period while a streaming allocation grows until it is killed.

    Parameters
    ----------
    memory_pages : int
        Pages of the node.
    ws_ratio : float
        The working set, as a share of memory (300 MB of 8 GiB).
    stream_pages_per_period : int, optional
        Pages the stream allocates per period (default memory / 80: ~100 MB per 100 ms at
        8 GiB).
    swap_ratio : float
        Swap size as a share of memory that the stream must exhaust before the OOM killer
        acts; the stream grows until it has written memory * (1 + swap_ratio) pages, then
        ``extra_periods`` more.
    extra_periods : int
        Periods appended after that (the working set alone once the stream is gone).
    period_ms : float, optional
        Model time between two reads of the working set (default 100 ms scaled with the node:
        100 * memory_pages / 2,097,152, so 1.5625 ms at 1/64). Each read of the working set is
        released at the start of its period; the stream's pages at its nominal rate,
        ``stream_pages_per_period`` per period (about 1 GB/s at 8 GiB): both go slower only when
        they wait. The ``time`` column holds these release times (ns).
    seed : int
        Draws which of the two tasks comes first within each period in trace order. Under
        ``KernelConfig(schedule="time")`` (the default) the release times decide the order, so
        ``seed`` changes nothing there: the workload is deterministic (the two runs the CAST
        document reports differ by timing the model does not have). It matters under ``schedule="trace"``.

    Returns
    -------
    Trace
        Tag 0: the working set (anon reads, first touch a write); tag 1: the stream (anon writes).
    """
    ws = max(int(round(memory_pages * ws_ratio)), 1)
    grow = stream_pages_per_period or max(memory_pages // 80, 1)
    periods = int(np.ceil(memory_pages * (1 + swap_ratio) / grow)) + extra_periods
    rng = np.random.default_rng(seed)
    ws_ids = _anon_ids(0, np.arange(ws))
    parts_ids: list[np.ndarray] = []
    parts_tag: list[np.ndarray] = []
    parts_op: list[np.ndarray] = []
    parts_when: list[np.ndarray] = []
    period_ns = int(round((period_ms if period_ms is not None else 100.0 * memory_pages / 2097152) * 1e6))
    if period_ns <= 0:
        raise ValueError("period_ms must be positive")
    written = 0
    for period in range(periods):
        stream = _anon_ids(1, np.arange(written, written + grow))
        stream_when = period * period_ns + (np.arange(grow, dtype=np.int64) * period_ns) // grow
        written += grow
        order = [0, 1] if rng.random() < 0.5 else [1, 0]
        for who in order:
            if who == 0:
                parts_ids.append(ws_ids)
                parts_tag.append(np.zeros(ws, np.int32))
                parts_op.append(np.full(ws, OP_WRITE if period == 0 else OP_READ, np.uint8))
                parts_when.append(np.full(ws, period * period_ns, np.int64))
            else:
                parts_ids.append(stream)
                parts_tag.append(np.ones(grow, np.int32))
                parts_op.append(np.full(grow, OP_WRITE, np.uint8))
                parts_when.append(stream_when)
    ids = np.concatenate(parts_ids)
    return Trace.from_ids(
        ids,
        kind=np.full(ids.size, KIND_ANON, np.uint8),
        op=np.concatenate(parts_op),
        tag=np.concatenate(parts_tag),
        time=np.concatenate(parts_when),
        source={
            "format": "workload",
            "workload": "stream-ws",
            "params": {
                "memory_pages": memory_pages,
                "ws_ratio": ws_ratio,
                "stream_pages_per_period": grow,
                "swap_ratio": swap_ratio,
                "extra_periods": extra_periods,
                "period_ms": period_ns / 1e6,
                "seed": seed,
            },
            "memory_pages": memory_pages,
            "time_unit": "ns",
            "time_is_release": True,
            "ws_pages": ws,
            "periods": periods,
            "groups": {"working set": [0], "stream": [1]},
        },
    )
