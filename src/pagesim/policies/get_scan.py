"""GET-SCAN (get-scan): application-informed; pages a scan thread brings in get a small quota and go first.

Source      cache_ext spec §4.7 (cache_ext repo ``policies/``, ``cache_ext_get_scan``, its
            loader, and the My-YCSB ``leveldb-scan`` driver that writes the scan thread's
            TID into ``scan_pids``), §5.5 (the GET-SCAN workload), §6 item 14; Zussman et al.,
            "cache_ext: Customizing the Page Cache with eBPF", SOSP 2025, §5 and Fig. 10.
Structures  Two eviction lists, oldest at the head: GENERAL and SCAN. ``pm[page, ACCESSES]``
            (accesses since insertion), ``pm[page, IS_SCAN]``; a count of resident scan pages.
            The scan threads are the access tags listed in ``scan_tags`` (cache_ext's
            ``scan_pids`` map of thread ids, at most 100).
Rules       added: a page brought in by a scan tag (``a[A_TAG]``) goes to SCAN's tail and counts
            as a scan page; any other to GENERAL's tail. accesses := 1, and 2 in cache mode
            with ``fault_read`` (the read that missed, as cache_ext sees ``added`` then
            ``accessed``).
            accessed: accesses += 1; the page stays in its list even when a GET thread hits a
            scan page (cache_ext's re-classification is commented out).
            removed: ``list_del``; a scan page leaves the count.
            evict: no scan page resident -> nothing proposed in cache_ext (see Parameters,
            ``own_fallback``); at least ``scan_quota`` scan pages -> sample SCAN, else sample
            GENERAL, each with ``list_sample`` and sample size 5 (score = accesses, lowest of
            each group of 5 proposed, the sampled window rotates to the tail; no eligibility
            check).
Parameters  scan_tags = "0" (comma-separated tags): the scan threads (the ``get-scan``
            workload's SCAN thread is tag 0, its GET threads 1-3).
            scan_quota = 5000 (pages): scan pages kept before SCAN is evicted from (cache_ext's
            hard-coded 1000 x 5, about 20 MB).
            sample_size = 5 (pages per group): cache_ext's S.
            own_fallback = True: where cache_ext proposes nothing and leaves the eviction to the
            kernel's default policy (no scan page resident; or the chosen list empty), sample
            the other list instead. False: cache_ext's rule, and the framework's fallback (CLOCK
            over page ids here, the kernel's LRU there) evicts.
            partial = True: a list shorter than ``request * sample_size`` is sampled as it is
            (False: cache_ext's ``list_sample`` yields nothing then).
            fault_read = True: count the missed access as the first read (cache mode only).
Complexity  O(1) per hit; O(request x S) per eviction; O(number of scan tags) per insertion.
            Per page: one list node and two int64.
Deviations  1. ``own_fallback`` (default on): without scan pages cache_ext's GET-SCAN is the
               kernel's default policy; pagesim's default policy is not the kernel's LRU, so the
               module keeps evicting by its own sampled LFU of GENERAL, the rule it applies as
               soon as one scan page is resident.
            2. The +100 000 score of a file's last page (LevelDB's SST index) needs files; cache
               mode has none: not modelled.
            3. ``partial`` as in ce-lfu: cache_ext's ``list_sample`` refuses a list shorter than
               the sample.
Peers       ce-lfu (the same windowed sampled LFU inside each list); no simulator has GET-SCAN.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from pagesim.core.jit import kernel
from pagesim.core.lists import list_add_tail, list_create, list_del, list_len, list_pages, list_sample
from pagesim.core.state import A_CGROUP, A_MODE, A_PAGE, A_REQUEST, A_TAG, GI_USER, MODE_CACHE
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

ACCESSES = 0  #: pm column
IS_SCAN = 1  #: pm column: 1 if a scan tag brought the page in

G_GENERAL = GI_USER
G_SCAN = GI_USER + 1
G_SCAN_PAGES = GI_USER + 2  #: resident scan pages
G_QUOTA = GI_USER + 3
G_SAMPLE = GI_USER + 4
G_OWN_FALLBACK = GI_USER + 5
G_PARTIAL = GI_USER + 6
G_FAULT_READ = GI_USER + 7
G_N_TAGS = GI_USER + 8
G_TAGS = GI_USER + 9  #: the scan tags, G_N_TAGS of them
MAX_SCAN_TAGS = 100  #: cache_ext's scan_pids map holds at most 100 entries


def parse_tags(value: Any, limit: int, who: str) -> list[int]:
    """A tag set given as an int, a comma-separated string or an iterable of ints.

    Raises
    ------
    ValueError
        If a tag is not a non-negative integer or there are more than ``limit``.
    """
    if isinstance(value, str):
        items: Iterable[Any] = [x for x in value.replace(" ", "").split(",") if x]
    elif isinstance(value, Iterable):
        items = value
    else:
        items = [value]
    try:
        tags = sorted({int(x) for x in items})
    except (TypeError, ValueError):
        raise ValueError(f"{who}: tags are integers, comma-separated, got {value!r}") from None
    if any(t < 0 for t in tags) or len(tags) > limit:
        raise ValueError(f"{who}: at most {limit} tags, each >= 0, got {value!r}")
    return tags


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[G_GENERAL] = list_create(s, a[A_CGROUP])
    s.gi[G_SCAN] = list_create(s, a[A_CGROUP])
    s.gi[G_SCAN_PAGES] = 0
    return 0 if s.gi[G_GENERAL] >= 0 and s.gi[G_SCAN] >= 0 else -1


@kernel
def _is_scan_tag(s, tag):  # type: ignore[no-untyped-def]
    for i in range(s.gi[G_N_TAGS]):
        if s.gi[G_TAGS + i] == tag:
            return True
    return False


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if _is_scan_tag(s, a[A_TAG]):
        list_add_tail(s, s.gi[G_SCAN], p)
        s.gi[G_SCAN_PAGES] += 1
        s.pm[p, IS_SCAN] = 1
    else:
        list_add_tail(s, s.gi[G_GENERAL], p)
        s.pm[p, IS_SCAN] = 0
    s.pm[p, ACCESSES] = 1
    if s.gi[G_FAULT_READ] != 0 and a[A_MODE] == MODE_CACHE:
        s.pm[p, ACCESSES] += 1
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    s.pm[a[A_PAGE], ACCESSES] += 1
    return 0


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    list_del(s, p)
    if s.pm[p, IS_SCAN] != 0:
        s.gi[G_SCAN_PAGES] -= 1
    s.pm[p, IS_SCAN] = 0
    s.pm[p, ACCESSES] = 0
    return 0


@kernel
def _score(s, a, page):  # type: ignore[no-untyped-def]
    return s.pm[page, ACCESSES]


@kernel
def _sample(s, a, lid):  # type: ignore[no-untyped-def]
    return max(list_sample(s, a, lid, _score, a[A_REQUEST], s.gi[G_SAMPLE], s.gi[G_PARTIAL] != 0), 0)


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    own = s.gi[G_OWN_FALLBACK] != 0
    if s.gi[G_SCAN_PAGES] == 0:
        if not own:
            return 0
        return _sample(s, a, s.gi[G_GENERAL])
    if s.gi[G_SCAN_PAGES] >= s.gi[G_QUOTA]:
        first = s.gi[G_SCAN]
        other = s.gi[G_GENERAL]
    else:
        first = s.gi[G_GENERAL]
        other = s.gi[G_SCAN]
    if list_len(s, first) == 0 and own:
        return _sample(s, a, other)
    return _sample(s, a, first)


class GetScan(Policy):
    """cache_ext's GET-SCAN policy; see the module docstring."""

    name = "get-scan"
    description = "GET-SCAN (cache_ext): scan threads' pages get a 5000-page quota, then go first"
    params = defaults("get-scan")  # policies/params.toml
    int_fields = ("accesses", "is_scan")
    int_globals = 9 + MAX_SCAN_TAGS
    proposes_batches = True
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Write the scan tags and parameters into the globals."""
        tags = parse_tags(self.values["scan_tags"], MAX_SCAN_TAGS, "get-scan: scan_tags")
        quota = int(self.values["scan_quota"])
        size = int(self.values["sample_size"])
        if quota < 0:
            raise ValueError(f"get-scan: scan_quota must be >= 0, got {quota}")
        if not 1 <= size <= 64:
            raise ValueError(f"get-scan: sample_size must be in 1..64, got {size}")
        s.gi[G_N_TAGS] = len(tags)
        s.gi[G_TAGS : G_TAGS + len(tags)] = tags
        s.gi[G_QUOTA] = quota
        s.gi[G_SAMPLE] = size
        s.gi[G_OWN_FALLBACK] = int(bool(self.values["own_fallback"]))
        s.gi[G_PARTIAL] = int(bool(self.values["partial"]))
        s.gi[G_FAULT_READ] = int(bool(self.values["fault_read"]))

    def check_invariants(self, s: Any) -> None:
        """GENERAL + SCAN = resident set; scan pages counted and all in SCAN."""
        general = list_pages(s, int(s.gi[G_GENERAL])).tolist()
        scan = list_pages(s, int(s.gi[G_SCAN])).tolist()
        assert sorted(general + scan) == np.flatnonzero(s.resident).tolist(), "lists != resident"
        assert int(s.gi[G_SCAN_PAGES]) == len(scan), "scan page count"
        assert sorted(scan) == np.flatnonzero(s.pm[:, IS_SCAN]).tolist(), "scan flags"
