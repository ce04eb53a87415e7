"""GET-SCAN (get-scan): application-informed; pages a scan thread brings in get a small quota and go first.

Source      cache_ext spec §4.7 (cache_ext repo ``policies/``, ``cache_ext_get_scan``, its
            loader, and the My-YCSB ``leveldb-scan`` driver that writes the scan thread's
            TID into ``scan_pids``), §5.5 (the GET-SCAN workload), §6 item 14; Zussman et al.,
            "cache_ext: Customizing the Page Cache with eBPF", SOSP 2025, §5 and Fig. 10.
Structures  Two eviction lists, oldest at the head: GENERAL and SCAN. ``pm[page, PM.accesses]``
            (accesses since insertion), ``pm[page, PM.is_scan]``; a count of resident scan pages.
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
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_add_tail, list_create, list_del, list_len, list_pages, list_sample
from pagesim.core.state import A_CGROUP, A_MODE, A_PAGE, A_REQUEST, A_TAG, MODE_CACHE
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

MAX_SCAN_TAGS = 100  #: cache_ext's scan_pids map holds at most 100 entries
STATE = Layout(
    "get-scan",
    pm=(
        field("accesses", "accesses", "accesses since insertion"),
        field("is_scan", "flag", "1 if a scan tag brought the page in"),
    ),
    gi=(
        field("general", "list id", "the general list"),
        field("scan", "list id", "the scan list"),
        field("scan_pages", "pages", "resident scan pages"),
        field("quota", "pages", "parameter: the scan list's quota"),
        field("sample", "pages", "parameter sample_size"),
        field("own_fallback", "flag", "parameter own_fallback"),
        field("partial", "flag", "parameter partial"),
        field("fault_read", "flag", "parameter fault_read"),
        field("n_tags", "tags", "scan tags held"),
        field("tags", "tag", "the scan tags, GI.n_tags of them", count=MAX_SCAN_TAGS),
    ),
)
PM, GI = STATE.pm, STATE.gi


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
    s.gi[GI.general] = list_create(s, a[A_CGROUP])
    s.gi[GI.scan] = list_create(s, a[A_CGROUP])
    s.gi[GI.scan_pages] = 0
    return 0 if s.gi[GI.general] >= 0 and s.gi[GI.scan] >= 0 else -1


@kernel
def _is_scan_tag(s, tag):  # type: ignore[no-untyped-def]
    for i in range(s.gi[GI.n_tags]):
        if s.gi[GI.tags + i] == tag:
            return True
    return False


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if _is_scan_tag(s, a[A_TAG]):
        list_add_tail(s, s.gi[GI.scan], p)
        s.gi[GI.scan_pages] += 1
        s.pm[p, PM.is_scan] = 1
    else:
        list_add_tail(s, s.gi[GI.general], p)
        s.pm[p, PM.is_scan] = 0
    s.pm[p, PM.accesses] = 1
    if s.gi[GI.fault_read] != 0 and a[A_MODE] == MODE_CACHE:
        s.pm[p, PM.accesses] += 1
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    s.pm[a[A_PAGE], PM.accesses] += 1
    return 0


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    list_del(s, p)
    if s.pm[p, PM.is_scan] != 0:
        s.gi[GI.scan_pages] -= 1
    s.pm[p, PM.is_scan] = 0
    s.pm[p, PM.accesses] = 0
    return 0


@kernel
def _score(s, a, page):  # type: ignore[no-untyped-def]
    return s.pm[page, PM.accesses]


@kernel
def _sample(s, a, lid):  # type: ignore[no-untyped-def]
    return max(list_sample(s, a, lid, _score, a[A_REQUEST], s.gi[GI.sample], s.gi[GI.partial] != 0), 0)


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    own = s.gi[GI.own_fallback] != 0
    if s.gi[GI.scan_pages] == 0:
        if not own:
            return 0
        return _sample(s, a, s.gi[GI.general])
    if s.gi[GI.scan_pages] >= s.gi[GI.quota]:
        first = s.gi[GI.scan]
        other = s.gi[GI.general]
    else:
        first = s.gi[GI.general]
        other = s.gi[GI.scan]
    if list_len(s, first) == 0 and own:
        return _sample(s, a, other)
    return _sample(s, a, first)


class GetScan(Policy):
    """cache_ext's GET-SCAN policy; see the module docstring."""

    name = "get-scan"
    description = "GET-SCAN (cache_ext): scan threads' pages get a 5000-page quota, then go first"
    params = defaults("get-scan")  # policies/params.toml
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
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
        s.gi[GI.n_tags] = len(tags)
        s.gi[GI.tags : GI.tags + len(tags)] = tags
        s.gi[GI.quota] = quota
        s.gi[GI.sample] = size
        s.gi[GI.own_fallback] = int(bool(self.values["own_fallback"]))
        s.gi[GI.partial] = int(bool(self.values["partial"]))
        s.gi[GI.fault_read] = int(bool(self.values["fault_read"]))

    def check_invariants(self, s: Any) -> None:
        """GENERAL + SCAN = resident set; scan pages counted and all in SCAN."""
        general = list_pages(s, int(s.gi[GI.general])).tolist()
        scan = list_pages(s, int(s.gi[GI.scan])).tolist()
        assert sorted(general + scan) == np.flatnonzero(s.resident).tolist(), "lists != resident"
        assert int(s.gi[GI.scan_pages]) == len(scan), "scan page count"
        assert sorted(scan) == np.flatnonzero(s.pm[:, PM.is_scan]).tolist(), "scan flags"
