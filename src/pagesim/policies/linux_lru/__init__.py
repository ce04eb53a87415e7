"""Linux's legacy two-list LRU (active/inactive, per lruvec).

The policy, its rules and sources: :mod:`.policy` (:class:`LinuxLRU`). Its parts: :mod:`.layout`
(lists, per-page columns, globals, constants, shadow-entry fields), :mod:`.balance`
(``inactive_is_low``, ``get_scan_count``), :mod:`.shrink` (shrinking the lists), :mod:`.hooks`.
"""

from pagesim.policies.linux_lru.balance import inactive_is_low_counts, scan_fractions
from pagesim.policies.linux_lru.policy import LinuxLRU, lru_lists

__all__ = ["LinuxLRU", "inactive_is_low_counts", "lru_lists", "scan_fractions"]
