"""Multi-Gen LRU (MGLRU, ``lru_gen``): Linux's generation-based page reclaim, one instance per lruvec.

The policy, its rules and sources: :mod:`.policy` (:class:`MGLRU`). Its parts: :mod:`.layout`
(constants, per-page columns, globals), :mod:`.lists` (generation lists), :mod:`.tiers` (refs,
tiers, the PID controller), :mod:`.gens` (aging, generations), :mod:`.walk` (address space,
page-table walk, Bloom filters, look-around), :mod:`.evict` (type and tier choice, the scan),
:mod:`.hooks` (the hooks, refaults, kswapd's priority).
"""

from pagesim.policies.mglru.policy import MGLRU

__all__ = ["MGLRU"]
