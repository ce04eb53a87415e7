"""LRFU: evicts the page whose combined recency-frequency (PF.crf) is smallest; λ slides LRU <-> LFU.

Source      Lee, Choi, Kim, Noh, Min, Cho, Kim, "LRFU: A Spectrum of Policies that Subsumes the
            Least Recently Used and Least Frequently Used Policies", IEEE Transactions on
            Computers 50(12), 2001, doi:10.1109/TC.2001.970573 (§2: F(x) = (1/2)^(λx); §3: the
            PF.crf of a block is updated from its value at the last reference alone).
Structures  Per page: ``pf[page, PF.crf]`` the PF.crf at its last reference, ``pm[page, PM.t_last]`` the
            time of that reference (the access index). The shared indexed min-heap
            (:mod:`pagesim.core.heap`) of the resident pages in ``pm[:, PM.heap_pos / PM.heap]``,
            the key beside each slot in ``pf[slot, PF.heap_key]``; ``gi[GI.size]`` its size.
            No framework list is used.
Rules       CRF_t(p) = sum over p's references t_i since it was inserted of (1/2)^(λ(t - t_i)),
            kept as C(p) = PF.crf at its last reference: a reference at t sets
            C := 1 + C · (1/2)^(λ(t - t_last)), t_last := t (a newcomer: C := 1).
            The victim minimises CRF_t(p) = C · 2^(-λ(t - t_last)), i.e. minimises the key
            log2 C + λ · t_last (the current time adds the same -λt to every page), which does
            not change while a page is not referenced: the heap never needs re-keying.
            added: push with key 0 + λt. accessed: new C, the key grows, sift away from the
            root. evict: propose the root. removed: take the page out; its history is dropped.
            λ = 1 (half-life 1): C < 2 so the key lies in [t_last, t_last + 1): exactly LRU.
            λ -> 0: C counts references and λ·t_last breaks ties in favour of the older last
            reference: LFU with LRU ties (pagesim's and libCacheSim's LFU); λ = 0 exactly
            leaves ties to the heap's order.
Parameters  lam = 0.001 (1/accesses): λ, the paper's decay exponent (the paper sweeps 1e-4 .. 1;
            0.001 sits in its best range for the database and file traces it studies).
            half_life = None (accesses): if given, λ := 1 / half_life (the age at which a
            reference weighs 1/2, CAST's parameterisation); overrides ``lam``.
Complexity  O(log n) per access and per eviction (one sift); per page 3 int64 and 2 float64.
Deviations  1. The paper keeps history only for cached blocks in its main algorithm; so does
               this module (a returning page starts again at C = 1).
            2. Keys are float64: for λ·t beyond ~1e12 the ordering of pages whose CRFs differ by
               less than about 1e-4 could be lost (never reached by traces of realistic length).
Peers       none in libCacheSim 0.3.5; checked against pagesim's ``lru`` (λ = 1) and ``lfu``
            (λ = 1e-12) on random traces, and a naive O(n) reference (tests/unit).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pagesim.core.heap import heap_clear, heap_push, heap_remove, heap_update
from pagesim.core.jit import kernel
from pagesim.core.layout import Layout, field
from pagesim.core.state import A_PAGE, A_TIME
from pagesim.policies.base import Policy
from pagesim.policies.params import defaults

STATE = Layout(
    "lrfu",
    pm=(
        field("t_last", "accesses", "page row: time of the last reference"),
        field("heap_pos", "slot", "page row: heap slot, -1 if not in the heap"),
        field("heap", "page id", "slot row: page in heap slot ``row``"),
    ),
    pf=(
        field("crf", "1", "page row: CRF at the last reference"),
        field("key", "log2", "page row: log2 CRF + λ t_last"),
        field("heap_key", "log2", "slot row: the key of the page in that slot"),
    ),
    gi=(field("size", "pages", "pages in the heap"),),
    gf=(field("lam", "1/access", "λ"),),
)
PM, PF, GI, GF = STATE.pm, STATE.pf, STATE.gi, STATE.gf


@kernel
def _init(s, a):  # type: ignore[no-untyped-def]
    heap_clear(s.pm[:, PM.heap], s.pm[:, PM.heap_pos])
    s.gi[GI.size] = 0
    return 0


@kernel
def _added(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    t = a[A_TIME]
    s.pf[p, PF.crf] = 1.0
    s.pm[p, PM.t_last] = t
    s.pf[p, PF.key] = s.gf[GF.lam] * t
    s.gi[GI.size] = heap_push(
        s.pm[:, PM.heap], s.pf[:, PF.heap_key], s.pm[:, PM.heap_pos], s.gi[GI.size], p, s.pf[p, PF.key]
    )
    return 0


@kernel
def _accessed(s, a):  # type: ignore[no-untyped-def]
    p = a[A_PAGE]
    if s.pm[p, PM.heap_pos] < 0:
        return 0
    t = a[A_TIME]
    lam = s.gf[GF.lam]
    crf = 1.0 + s.pf[p, PF.crf] * np.exp2(-lam * (t - s.pm[p, PM.t_last]))
    s.pf[p, PF.crf] = crf
    s.pm[p, PM.t_last] = t
    s.pf[p, PF.key] = np.log2(crf) + lam * t
    heap_update(
        s.pm[:, PM.heap], s.pf[:, PF.heap_key], s.pm[:, PM.heap_pos], s.gi[GI.size], p, s.pf[p, PF.key]
    )
    return 0


@kernel
def _evict(s, a):  # type: ignore[no-untyped-def]
    if s.gi[GI.size] == 0:
        return 0
    s.cand[0] = s.pm[0, PM.heap]
    return 1


@kernel
def _removed(s, r):  # type: ignore[no-untyped-def]
    p = r[A_PAGE]
    s.gi[GI.size] = heap_remove(
        s.pm[:, PM.heap], s.pf[:, PF.heap_key], s.pm[:, PM.heap_pos], s.gi[GI.size], p
    )
    s.pf[p, PF.crf] = 0.0
    return 0


class LRFU(Policy):
    """LRFU with a fixed λ (IEEE TC 2001); see the module docstring."""

    name = "lrfu"
    description = "LRFU: evict the smallest combined recency-frequency (lam: LRU 1 .. 0 LFU)"
    params = defaults("lrfu")  # policies/params.toml
    int_fields = STATE.int_fields
    float_fields = STATE.float_fields
    int_globals = STATE.int_globals
    float_globals = STATE.float_globals
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def lam(self) -> float:
        """λ in effect: ``1 / half_life`` if a half-life is given, else ``lam``."""
        half_life = self.values["half_life"]
        if half_life is not None:
            if not float(half_life) > 0.0:
                raise ValueError(f"lrfu: half_life must be > 0, got {half_life}")
            return 1.0 / float(half_life)
        lam = float(self.values["lam"])
        if not (0.0 <= lam <= 1.0 and math.isfinite(lam)):
            raise ValueError(f"lrfu: lam must be in [0, 1], got {lam}")
        return lam

    def configure(self, s: Any, capacity: int) -> None:
        """Write λ into ``gf``."""
        s.gf[GF.lam] = self.lam()

    def check_invariants(self, s: Any) -> None:
        """Heap holds exactly the resident pages, keys current, parent key <= child key."""
        n = int(s.gi[GI.size])
        pm, pf = s.pm, s.pf
        lam = float(s.gf[GF.lam])
        heap = pm[:n, PM.heap]
        assert sorted(heap.tolist()) == np.flatnonzero(s.resident).tolist(), "heap != resident set"
        assert (pm[n:, PM.heap] == -1).all(), "stale heap slots beyond the size"
        for slot in range(n):
            page = int(heap[slot])
            assert int(pm[page, PM.heap_pos]) == slot, f"page {page}: position != slot {slot}"
            assert pf[slot, PF.heap_key] == pf[page, PF.key], f"slot {slot}: stale key"
            want = math.log2(pf[page, PF.crf]) + lam * int(pm[page, PM.t_last])
            assert abs(pf[page, PF.key] - want) <= 1e-9 * max(1.0, abs(want)), f"page {page}: key"
            assert pf[page, PF.crf] >= 1.0, f"page {page}: PF.crf below 1"
            if slot:
                parent = int(heap[(slot - 1) // 2])
                assert pf[parent, PF.key] <= pf[page, PF.key], f"heap order broken at {slot}"
        off = s.resident == 0
        assert (pm[off, PM.heap_pos] == -1).all(), "a non-resident page has a heap position"
