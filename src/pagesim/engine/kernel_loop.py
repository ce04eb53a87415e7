"""Kernel mode's compiled loop, by the import path the runner generator uses.

The code lives in :mod:`pagesim.engine.kmode`, one module per subsystem; every name of it is
re-exported here (``pagesim.engine.build`` imports :func:`run_kernel` from here and hashes this
file into the generated runner's key; numba's cache folder hashes every engine source, ``kmode``
included).
"""

from __future__ import annotations

from pagesim.engine.kmode.devices import (
    _occupy,
    _queued,
    _read_ns,
    _read_wait,
    _service_ns,
    _write_busy,
    _write_ns,
)
from pagesim.engine.kmode.eviction import (
    _evict_page,
    _evictable,
    _kremove,
    _pick_fallback,
)
from pagesim.engine.kmode.fadvise import _fadvise, _set_mode, _write_back
from pagesim.engine.kmode.framework import (
    FILE_DEV,
    FMODE_NOREUSE,
    FMODE_RANDOM,
    MAX_FRUITLESS_BATCHES,
    MAX_RECLAIM_RETRIES,
    N_LAT_BUCKETS,
    RA,
    SWAP_CLUSTER_MAX,
    SWAP_DEV,
    F,
    KFramework,
    N,
    _free_pages,
    _zram_pages,
    _zram_pages_of,
)
from pagesim.engine.kmode.loop import run_kernel
from pagesim.engine.kmode.oom import _kill_rest, _oom_victim
from pagesim.engine.kmode.readahead import (
    _async_plan,
    _bypassed_read,
    _commit,
    _context_window,
    _count_window,
    _expected,
    _init_window,
    _next_window,
    _page_at,
    _pages_needed,
    _plan_window,
    _readit,
    _sequential,
    _sync_plan,
)
from pagesim.engine.kmode.reclaim import _pick_cgroup, _reclaim, _reclaim_step, _room_needed, _wake_kswapd
from pagesim.engine.kmode.scheduler import (
    _actor_row,
    _before,
    _finish_access,
    _heap_down,
    _heap_fix,
    _heap_push,
    _heap_remove,
    _heap_set,
    _heap_up,
    _next_task_access,
    _start_schedule,
    _stop_all,
)
from pagesim.engine.kmode.swapout import _release_swap, _swap_out_ns
from pagesim.engine.kmode.writeback import _dirtied, _flush

__all__ = [
    "F",
    "N",
    "RA",
    "_actor_row",
    "_before",
    "_async_plan",
    "_bypassed_read",
    "_commit",
    "_context_window",
    "_count_window",
    "_dirtied",
    "_expected",
    "_evict_page",
    "_evictable",
    "_fadvise",
    "_finish_access",
    "_flush",
    "_free_pages",
    "_heap_down",
    "_heap_fix",
    "_heap_push",
    "_heap_remove",
    "_heap_set",
    "_heap_up",
    "_init_window",
    "_kill_rest",
    "_kremove",
    "_next_task_access",
    "_next_window",
    "_occupy",
    "_oom_victim",
    "_page_at",
    "_pages_needed",
    "_pick_cgroup",
    "_pick_fallback",
    "_plan_window",
    "_queued",
    "_read_ns",
    "_read_wait",
    "_readit",
    "_reclaim",
    "_reclaim_step",
    "_release_swap",
    "_room_needed",
    "_sequential",
    "_service_ns",
    "_set_mode",
    "_start_schedule",
    "_stop_all",
    "_swap_out_ns",
    "_sync_plan",
    "_wake_kswapd",
    "_write_back",
    "_write_busy",
    "_write_ns",
    "_zram_pages",
    "_zram_pages_of",
    "FILE_DEV",
    "FMODE_NOREUSE",
    "FMODE_RANDOM",
    "KFramework",
    "MAX_FRUITLESS_BATCHES",
    "MAX_RECLAIM_RETRIES",
    "N_LAT_BUCKETS",
    "run_kernel",
    "SWAP_CLUSTER_MAX",
    "SWAP_DEV",
]
