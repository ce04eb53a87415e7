"""cache_ext LHD (ce-lhd): integer Least Hit Density; of 16 pages sampled the least likely to earn hits goes.

Source      cache_ext spec §4.5 (cache_ext repo ``policies/``, ``cache_ext_lhd``, its
            "syscall"-type reconfiguration program and the loader that triggers it),
            §2.6c (``list_sample``), §6 item 12; Zussman et al., "cache_ext: Customizing the Page
            Cache with eBPF", SOSP 2025, §5 (integers because eBPF has no floating point); after
            Beckmann, Chen, Cidon, "LHD: Improving Cache Hit Rate by Maximizing Hit Density",
            NSDI 2018.
Structures  One eviction list, oldest insertion at the head. Per page (``pm``), packed in one
            int64: last access time (bits 18 and up: timestamps below 2^45), last hit age
            (14 bits) and the class of it and the hit age before it (4 bits; updated with
            them, so that scoring a sampled page reads one word; the hit age before the last
            one is only needed for the class, so it is not kept). The app class is always 1.
            Globals
            (``gi``): a timestamp (+1 per insertion and per access), resident objects, the
            countdown to reconfiguration (kept as the timestamp at which it ends: the
            timestamp counts the same events), the age shift, two EWMAs, and for each of the 16
            classes of app 1 (cache_ext's classes 16..31; 0..15 are never used) 16 384 age
            buckets of hits, evictions and hit densities, all scaled by 2^20.
Rules       class = hit_age_class(last hit age + the one before): 0 for a sum of 0, else the
            doublings the sum needs to reach 16 384, at most 15 (old reuse: low class). A new
            page has hit ages 0 and 16 384: class 0.
            age = (timestamp - last access) >> shift, at most 16 383.
            added: to the list's tail; hit ages 0 and 16 384, last access := timestamp;
            timestamp + 1; objects + 1; countdown. In cache mode with ``fault_read`` the read
            that missed follows as an access (cache_ext: ``added`` then ``accessed``).
            accessed: hits[class][age] += 2^20 (old metadata); hit ages shift (before := last,
            last := age); last access := timestamp; timestamp + 1; countdown.
            removed: evictions[class][age] += 2^20; objects - 1.
            evict: ``list_sample`` with sample size 16, score = hit density[class][age], 0 when
            the age is saturated (16 383), INT64_MAX for a page that may not be evicted (DIRTY
            in kernel mode); the lowest of each group of 16 is proposed.
            Reconfiguration when the countdown (2^20 events) reaches 0, here synchronously:
            (1) every hits and evictions entry x 9 / 10; (2) EWMAs of objects x 2^20 and of a
            mass counter (x 9 / 10, + value); on reconfigurations #5 and #25 only: shift :=
            smallest s >= 1 with 2^s >= average objects x 100 / 16 384, histograms compressed
            (shift grew) or stretched (shrank), both EWMAs x 8; (3) per class, ages from old to
            young: H = hits[last], E = hits[last] + evictions[last], L = E; then for each
            younger age a: H += hits[a], E += evictions[a] (hits of younger ages are not events:
            cache_ext's deviation from LHD), L += E, density[a] = H x 2^20 / L if E > 10, else
            0. The oldest bucket's density is never rewritten.
            Initial densities (a GDSF-like prior): density[i][j] = 2^20 (i + 1) / (j + 1) for
            cache_ext's class number i (16..31) and age j; the saturated age's entry is stored
            as 0 instead (never read for a density: it holds that age's score, so scoring
            reads the table without a test).
Parameters  sample_size = 16 (pages per group): cache_ext's S (the paper's N = 512 = 32 x 16).
            reconfigure_events = 1048576 (2^20 events): the countdown.
            shift = 10: the initial age coarsening.
            partial = True: a list shorter than ``request * sample_size`` is sampled as it is
            (False: cache_ext's ``list_sample`` yields nothing then; see ce-lfu).
            fault_read = True: the missed access also counts as a read (cache mode only).
Complexity  O(1) per access; O(request x S) per eviction; O(16 x 16 384) per reconfiguration,
            once every 2^20 events. The list's order is also kept by position (``pm`` columns
            ring and slot) so that ``core.indexed.list_sample_indexed`` reads the sampled pages
            without walking the links one at a time (same candidates). Memory: three int64 per
            page in a 32-byte row (``core.state.row_width`` pads it; two rows a cache line,
            where the six columns this policy had before took one and a half); 3 x 16 x 16 384
            int64 (6 MiB).
Deviations  1. Reconfiguration runs synchronously when the countdown expires; cache_ext's
               userspace loader polls a ring buffer and runs it a little later, racing with the
               hooks (spec §7 suggests the synchronous model).
            2. The stretch of the histograms (shift shrinks at reconfiguration #5 or #25)
               follows the idea, not cache_ext's arithmetic, which the spec calls buggy without
               giving it: bucket a takes old bucket a >> d divided by 2^d, and the last bucket
               also takes the mass of old buckets whose ages no longer fit.
            3. The EWMA of victims' hit density, computed in cache_ext's ``evicted`` and never
               used, is not kept. Object sizes are ignored, as in cache_ext (all 4 KiB).
            4. Densities are computed with unsigned 64-bit products (H x 2^20) like the u64 BPF
               code; values stay within int64.
            5. ``partial``: as ce-lfu.
Peers       libCacheSim 0.3.5 ``LHD`` is the NSDI paper's floating-point LHD with random
            sampling of 64 objects over the whole cache (results vary between runs); not the same
            rule. tests/crosscheck/test_ce_vs_libcachesim.py shows both beat FIFO on a Zipf trace
            and checks the documented differences.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros
from numba.extending import overload

from pagesim.core.indexed import (
    INDEX_GLOBALS,
    index_add_tail,
    index_removed,
    index_reset,
    list_sample_indexed,
)
from pagesim.core.jit import kernel, kernel_inline
from pagesim.core.layout import Layout, field
from pagesim.core.lists import list_create, list_pages
from pagesim.core.state import A_CGROUP, A_MODE, A_PAGE, A_REQUEST, DIRTY, MODE_CACHE, NEVER
from pagesim.policies.base import HOOK_NAMES, Policy, SpeedHints
from pagesim.policies.params import defaults

HIT_AGE_CLASSES = 16
APP = 1  #: the only app class cache_ext uses
MAX_AGE = 16384
SCALE = 1 << 20  #: fixed-point scale of hits, evictions, densities and object counts
DENSITY_THRESHOLD = SCALE // 100000  #: events needed for a density (10 scaled units)

TABLE = HIT_AGE_CLASSES * MAX_AGE
STATE = Layout(
    "ce-lhd",
    pm=(
        field("packed", "packed", "last access << 18 | last hit age << 4 | class (see _pack)"),
        field("slot", "position", "the page's position in RING"),
        field(
            "ring", "page id", "the list's order by position (the index of core.indexed.list_sample_indexed)"
        ),
    ),
    gi=(
        field("list", "list id", "the list"),
        field("time", "events", "timestamp"),
        field("objects", "pages", "objects counted (scaled)"),
        field("reconfigure_at", "events", "the timestamp at which the next reconfiguration runs"),
        field("reconfigs", "reconfigurations", "reconfigurations so far"),
        field("shift", "bits", "age coarsening shift"),
        field("ewma_objects", "SCALE", "ewma objects"),
        field("ewma_mass", "SCALE", "ewma mass"),
        field("period", "events", "parameter reconfigure_events"),
        field("sample", "pages", "parameter sample_size"),
        field("partial", "flag", "parameter partial"),
        field("fault_read", "flag", "parameter fault_read"),
        field("order", "core.indexed", "the index's globals (core.indexed)", count=INDEX_GLOBALS),
        field("hits", "SCALE", "hits[class * MAX_AGE + age]", count=TABLE),
        field("evictions", "SCALE", "evictions[class * MAX_AGE + age]", count=TABLE),
        field("density", "SCALE", "hit densities[class * MAX_AGE + age]", count=TABLE),
    ),
)
PM, GI = STATE.pm, STATE.gi
CLASS_BITS = 4
HIT_AGE_BITS = 14  #: hit ages are below MAX_AGE = 2^14
TIME_SHIFT = CLASS_BITS + HIT_AGE_BITS


def _leading_zeros(x):  # type: ignore[no-untyped-def]
    """The zero bits above the highest set bit of the int64 ``x`` >= 0 (64 for 0); plain Python
    here, one ``lzcnt`` compiled (the overload below)."""
    return 64 - int(x).bit_length()


@overload(_leading_zeros)
def _leading_zeros_compiled(x):  # type: ignore[no-untyped-def]
    def impl(x):  # type: ignore[no-untyped-def]
        return leading_zeros(x)

    return impl


@kernel_inline
def hit_age_class(x):  # type: ignore[no-untyped-def]
    """0 for 0; else the doublings ``x`` needs to reach MAX_AGE (14 - floor(log2 x)), at least 0.

    floor(log2 x) = 63 - leading zeros (this runs on every access, without a branch or a loop).
    """
    if x <= 0:
        return 0
    return max(_leading_zeros(x) - (63 - HIT_AGE_BITS), 0)


@kernel_inline
def _pack(last_access, last_hit_age, cls):  # type: ignore[no-untyped-def]
    """A page's metadata in one int64: scoring reads one word, and a row is three columns."""
    return (last_access << TIME_SHIFT) | (last_hit_age << CLASS_BITS) | cls


@kernel_inline
def _class_of(packed):  # type: ignore[no-untyped-def]
    return packed & ((1 << CLASS_BITS) - 1)


@kernel_inline
def _hit_age_of(packed):  # type: ignore[no-untyped-def]
    return (packed >> CLASS_BITS) & (MAX_AGE - 1)


@kernel_inline
def _cell(table, cls, age):  # type: ignore[no-untyped-def]
    """The ``gi`` index of ``table``'s entry for class ``cls`` and age bucket ``age``; unsigned, so
    that the compiled index has no negative-index fix-up (likewise ``_row``)."""
    return np.uint64(table + (cls << HIT_AGE_BITS) + age)


@kernel_inline
def _row(page):  # type: ignore[no-untyped-def]
    return np.uint64(page)


@kernel_inline
def _age(s, packed):  # type: ignore[no-untyped-def]
    """The age bucket of a page whose packed word is ``packed``."""
    age = (s.gi[GI.time] - (packed >> TIME_SHIFT)) >> s.gi[GI.shift]
    return MAX_AGE - 1 if age >= MAX_AGE else age


@kernel
def _rescale(s, base, grew, d):  # type: ignore[no-untyped-def]
    """Compress (``grew``) or stretch one histogram of MAX_AGE buckets at ``s.gi[base:]`` by ``d``."""
    if grew:
        for a in range(MAX_AGE):
            v = s.gi[base + a]
            s.gi[base + a] = 0
            s.gi[base + (a >> d)] += v
        return
    overflow = 0
    for a in range(MAX_AGE >> d, MAX_AGE):
        overflow += s.gi[base + a]
    for a in range(MAX_AGE - 1, -1, -1):
        s.gi[base + a] = s.gi[base + (a >> d)] >> d
    s.gi[base + MAX_AGE - 1] += overflow


@kernel
def _reconfigure(s):  # type: ignore[no-untyped-def]
    s.gi[GI.reconfigs] += 1
    for i in range(2 * TABLE):
        s.gi[GI.hits + i] = s.gi[GI.hits + i] * 9 // 10
    s.gi[GI.ewma_objects] = s.gi[GI.ewma_objects] * 9 // 10 + s.gi[GI.objects] * SCALE
    s.gi[GI.ewma_mass] = s.gi[GI.ewma_mass] * 9 // 10 + SCALE
    n = s.gi[GI.reconfigs]
    if n == 5 or n == 25:
        avg = s.gi[GI.ewma_objects] // s.gi[GI.ewma_mass]
        shift = 1
        while (1 << shift) * MAX_AGE < avg * 100:
            shift += 1
        old = s.gi[GI.shift]
        if shift != old:
            for c in range(HIT_AGE_CLASSES):
                _rescale(s, GI.hits + c * MAX_AGE, shift > old, abs(shift - old))
                _rescale(s, GI.evictions + c * MAX_AGE, shift > old, abs(shift - old))
        s.gi[GI.shift] = shift
        s.gi[GI.ewma_objects] *= 8
        s.gi[GI.ewma_mass] *= 8
    scale = np.uint64(SCALE)
    for c in range(HIT_AGE_CLASSES):
        hits = GI.hits + c * MAX_AGE
        evs = GI.evictions + c * MAX_AGE
        hd = GI.density + c * MAX_AGE
        h = s.gi[hits + MAX_AGE - 1]
        e = h + s.gi[evs + MAX_AGE - 1]
        life = e
        for a in range(MAX_AGE - 2, -1, -1):
            h += s.gi[hits + a]
            e += s.gi[evs + a]
            life += e
            if e > DENSITY_THRESHOLD:
                s.gi[hd + a] = np.int64(np.uint64(h) * scale // np.uint64(life))
            else:
                s.gi[hd + a] = 0


@kernel_inline
def _tick(s):  # type: ignore[no-untyped-def]
    """The countdown to reconfiguration, after the timestamp moved on: the timestamp counts the
    same events, so the countdown is the distance to a timestamp (no counter of its own)."""
    if s.gi[GI.time] >= s.gi[GI.reconfigure_at]:
        _reconfigure(s)
        s.gi[GI.reconfigure_at] = s.gi[GI.time] + s.gi[GI.period]


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    s.gi[GI.list] = list_create(s, a[A_CGROUP])
    index_reset(s, s.gi[GI.list], GI.order, PM.slot)
    return 0 if s.gi[GI.list] >= 0 else -1


@kernel_inline
def _access(s, p):  # type: ignore[no-untyped-def]
    packed = s.pm[_row(p), PM.packed]
    age = _age(s, packed)
    s.gi[_cell(GI.hits, _class_of(packed), age)] += SCALE
    # the hit ages shift: the class is that of the new last and the old last (now the one before)
    s.pm[_row(p), PM.packed] = _pack(s.gi[GI.time], age, hit_age_class(age + _hit_age_of(packed)))
    s.gi[GI.time] += 1
    _tick(s)


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    _access(s, a[A_PAGE])
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    index_add_tail(s, s.gi[GI.list], p, GI.order, PM.ring, PM.slot)
    s.pm[_row(p), PM.packed] = _pack(s.gi[GI.time], 0, hit_age_class(0 + MAX_AGE))  # hit ages 0 and MAX_AGE
    s.gi[GI.time] += 1
    s.gi[GI.objects] += 1
    _tick(s)
    if s.gi[GI.fault_read] != 0 and a[A_MODE] == MODE_CACHE:
        _access(s, p)
    return 0


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    packed = s.pm[_row(p), PM.packed]
    s.gi[_cell(GI.evictions, _class_of(packed), _age(s, packed))] += SCALE
    s.gi[GI.objects] -= 1
    index_removed(s, s.gi[GI.list], p, GI.order, PM.ring, PM.slot)
    s.pm[_row(p), PM.packed] = 0  # last access 0, hit ages 0 and 0: class 0
    return 0


@kernel_inline
def _score(s, a, page):  # type: ignore[no-untyped-def]
    if a[A_MODE] != MODE_CACHE and s.resident[page] & DIRTY:  # no dirty pages in cache mode
        return NEVER
    packed = s.pm[_row(page), PM.packed]
    # a saturated age scores 0: its entry holds 0 (set by configure, never rewritten)
    return s.gi[_cell(GI.density, _class_of(packed), _age(s, packed))]


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    n = list_sample_indexed(
        s,
        a,
        s.gi[GI.list],
        _score,
        a[A_REQUEST],
        s.gi[GI.sample],
        s.gi[GI.partial] != 0,
        GI.order,
        PM.ring,
        PM.slot,
    )
    return max(n, 0)


def initial_densities() -> np.ndarray:
    """The prior table, shape (16, MAX_AGE): 2^20 (i + 1) // (j + 1), i = 16 + class, j = age;
    0 for the saturated age (its score)."""
    i = np.arange(APP * HIT_AGE_CLASSES, (APP + 1) * HIT_AGE_CLASSES, dtype=np.int64)[:, None]
    j = np.arange(MAX_AGE, dtype=np.int64)[None, :]
    prior = SCALE * (i + 1) // (j + 1)
    prior[:, MAX_AGE - 1] = 0
    return prior


class CeLHD(SpeedHints, Policy):
    """cache_ext's integer LHD; see the module docstring."""

    name = "ce-lhd"
    description = "cache_ext LHD: integer hit densities per class and age, sampled groups of 16"
    params = defaults("ce-lhd")  # policies/params.toml
    int_fields = STATE.int_fields
    int_globals = STATE.int_globals
    float_globals = STATE.float_globals
    proposes_batches = True
    inline_hooks = HOOK_NAMES
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def configure(self, s: Any, capacity: int) -> None:
        """Parameters, counters and the prior density table."""
        size = int(self.values["sample_size"])
        period = int(self.values["reconfigure_events"])
        shift = int(self.values["shift"])
        if not 1 <= size <= 64:
            raise ValueError(f"ce-lhd: sample_size must be in 1..64, got {size}")
        if period < 1 or not 0 <= shift < 40:
            raise ValueError(f"ce-lhd: reconfigure_events >= 1 and 0 <= shift < 40, got {period}, {shift}")
        s.gi[GI.sample] = size
        s.gi[GI.partial] = int(bool(self.values["partial"]))
        s.gi[GI.fault_read] = int(bool(self.values["fault_read"]))
        s.gi[GI.period] = period
        s.gi[GI.reconfigure_at] = s.gi[GI.time] + period
        s.gi[GI.shift] = shift
        s.gi[GI.density : GI.density + TABLE] = initial_densities().ravel()

    def check_invariants(self, s: Any) -> None:
        """The list holds the resident pages; the object count agrees."""
        pages = list_pages(s, int(s.gi[GI.list])).tolist()
        resident = np.flatnonzero(s.resident).tolist()
        assert sorted(pages) == resident, "list != resident set"
        assert int(s.gi[GI.objects]) == len(resident), "object count"
        packed = s.pm[:, PM.packed]
        assert not packed[s.resident == 0].any(), "metadata of a page not resident"
        for p in resident:
            w = int(packed[p])
            assert 0 <= w >> TIME_SHIFT < int(s.gi[GI.time]), "last access"
            # the class is that of (last hit age + the one before) >= last hit age
            last = int(_hit_age_of(w))
            assert last == 0 or int(_class_of(w)) <= hit_age_class(last), "class"
