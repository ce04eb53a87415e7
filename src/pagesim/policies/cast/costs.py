"""CAST's costs of a miss per type and the press (a swappiness from a type's excess over its share).

The press (seed: "a page of each type is pressed by how far its type is over its share, as a
swappiness held within 1-199"): with anon's share ``a`` and the split ``x`` (permille),
``oa = (a / x)^P``, ``of = ((1000 - a) / (1000 - x))^P``, ``sw = 200 oa / (oa + of)`` held within
1..199: 100 at the split (both pressed in proportion to their pages), rising steeply as anon goes
over. ``P`` = ``PRESS_POWER`` = 64 (parameter ``press_power``): a type 2.5 % of its share under
it is pressed at 13 instead of 100. At the power 8 a type with little intake (anon beside a
file loop's readahead) sits 7-8 % of its share under the split (37 % at 40 %: 11,158 swap-ins
where 50 % has 484); at 64 the share holds within ~2 %, and on the 13-condition subset P = 32
gives +8.5 % / +36.8 %, 64 +6.9 % / +26.7 %. (With the power 2 a type whose pages are evicted
for good sinks far below its share while every other type churns.)

The costs (seed: "cost = (prior + sum of waits) / (1 + waits) [+ the cost of writing a page
out, for anon]"): per type the waits' sum and number (``a[A_WAIT_NS]`` of each refault),
halved once there have been as many as the LRUs hold pages; the prior one sample in the ratio
``(200 - s) : s`` of vm.swappiness, scaled so the two priors average 100 us (a choice). The cost
of writing anon out is measured: kernel mode tells ``removed`` what writing
the page out cost its writer (``r[A_WAIT_NS]``: zram's compression, 0 for a write queued to a
disk), and :func:`miss_cost` adds ``(swapout_ns + sum) / (1 + n)`` to anon's, the parameter
``swapout_ns`` (default 2,500 ns, zram's documented compression time) being its prior. What a
swap-in costs the study's measure (``node["total_ns"]``: every access's CPU and waits, direct
reclaim's stalls included; kswapd's and kcompressd's work not) is more: on study condition 14
(200,000 accesses) the fixed split 40 % against 50 % cost 19.1 ms more for 1,689 more
swap-ins, 11.3 us each, of which 13.0 ms was the file reader's direct reclaim (5.2 us per
swap-out it wrote) and 4.5 us per swap-in the anon task's own wait; CAST weighs anon's miss at
3.7 + 2.5 = 6.2 us. Reclaim's work beyond writing the page out is not in the seed's cost.

The walker's CPU (:func:`walk_cost_ns`, walk.py): each PMD entry read costs ``walk_pmd_ns`` and
each PTE read ``walk_pte_ns`` (both 10 ns by default: the engine's ``walk_ns_per_pte``, what
MGLRU's walker is charged per PTE, a PMD entry being the same 64-bit read). With
``walker_simd`` (the seed: "a whole table at once with AVX-512, AVX2 or SSE2") the young bits
of a cache line of 8 PTEs are tested in one step, one PTE read's cost per line, and each young
PTE found then costs a PTE read's handling (its page's word); without, every PTE costs one.
The sweep's CPU (:func:`sweep_cost_ns`, sweep.py; the seed: "M's lowest is found by sweeping
the state words in PFN order", "Every page frame has one 32-bit word in a flat array indexed
by its PFN"): the words are read in sequence, 16 to a 64-byte line, and a line costs
``sweep_line_ns`` (default 8 ns: one core streaming out of DRAM is bound by its L1 miss
buffers, the bound the seed puts on its own prefetch, "as far ahead as the CPU's miss buffers
allow"; by Little's law 10 buffers of 64 B over an 80 ns DRAM latency carry 8 GB/s, 8 ns a
line, 0.5 ns a word). Only the words of pages in memory are counted: the seed's array has a
word per frame, the model's a word per page id. Each word of the swept type's M is keyed
(16 log2(score) from a table by the count and gap classes, the last read's tick, a shift and
an add), compared with the 128th candidate's key and recorded for the pass's quantile:
``sweep_key_ns`` (default 10 ns, one state word handled, what the walker is charged for a
young PTE's word, ``walk_pte_ns``). The two are added (no overlap of the stream with the
keying is assumed). What the sweep proposes is charged by the engine as the folios any
reclaim isolates (``reclaim_ns_per_page``), and reclaim's check of a mapped candidate as a
reverse-map walk (``rmap_ns_per_page``; walk.check_young), as the legacy LRU's and MGLRU's.
``prefetch`` (the seed's two prefetch distances) has no modelled effect: the model charges fixed
per-operation costs with no memory hierarchy, so what a prefetch hides (a cache miss's latency)
is not in it.
"""

from __future__ import annotations

from pagesim.core.state import GI_SWAPPINESS
from pagesim.policies.cast.core import (
    cast_kernel,
)
from pagesim.policies.cast.layout import (
    ANON_T,
    GF,
    GI,
    SWAPOUT_K,
)
from pagesim.policies.cast.sample import type_pages

MAX_SWAPPINESS = 200


#: The prior's scale: the mean of the two priors, ns (between a zram swap-in and an SSD read).
PRIOR_NS = 100_000.0


PRESS_POWER = 64  #: how steeply the press rises with a type's excess over its share


@cast_kernel
def node_swappiness(s):  # type: ignore[no-untyped-def]
    """vm.swappiness, or the policy's override."""
    if s.gi[GI.swp] >= 0:
        return s.gi[GI.swp]
    return s.gi[GI_SWAPPINESS]


@cast_kernel
def anon_share(s):  # type: ignore[no-untyped-def]
    """Anon's share of memory, permille (500 when there is none): anon's pages on the lists and
    the memory zram holds compressed (``gi[GI.zram]``, kernel mode), against those and file's
    pages on the lists. The seed: "Anon's part of memory counts what zram or zswap holds
    compressed as well as its pages on the lists -- a page swapped to zram frees only what
    compressing it saves." Each lruvec counts what zram holds for its own pages (those its
    cgroup swapped out; the kernel charges zswap, not zram, to a cgroup, but the seed's share
    is the lruvec's own anon), so with one cgroup all of it."""
    a = type_pages(s, ANON_T) + s.gi[GI.zram]
    f = type_pages(s, 1)
    if a + f <= 0:
        return 500
    return (1000 * a) // (a + f)


@cast_kernel
def press_of(share, split):  # type: ignore[no-untyped-def]
    """The swappiness that presses anon (share ``share`` permille) toward ``split``: 1..199."""
    return press_pow(share, split, PRESS_POWER)


@cast_kernel
def press_pow(share, split, power):  # type: ignore[no-untyped-def]
    """:func:`press_of` with the power ``power``."""
    x = min(max(split, 1), 999)
    oa = (share / x) ** power
    of = ((1000.0 - share) / (1000.0 - x)) ** power
    sw = 200.0 * oa / (oa + of)
    return int(min(max(round(sw), 1), MAX_SWAPPINESS - 1))


@cast_kernel
def pressure_swappiness(s):  # type: ignore[no-untyped-def]
    """The swappiness reclaim presses anon and file with, held within 1..199.

    Toward the split once one is set (chosen or fixed); before that vm.swappiness (held).
    """
    if s.gi[GI.split] >= 0:
        return press_pow(anon_share(s), s.gi[GI.split], s.gi[GI.presspow])
    sw = node_swappiness(s)
    return min(max(sw, 1), MAX_SWAPPINESS - 1)


@cast_kernel
def note_wait(s, t, wait_ns, lru_pages):  # type: ignore[no-untyped-def]
    """One cost sample of kind ``t``: a refault wait of type ``t`` (0 anon, 1 file) or, kind
    ``SWAPOUT_K`` (2), what writing an anon page out cost. The kind's sum and number halve once
    the number reaches the LRUs' pages; every sample is also kept unhalved (``gf[F_ALL_*]``, the
    seed's per-queue lines)."""
    s.gf[GF.all_sum + t] += wait_ns
    s.gf[GF.all_n + t] += 1.0
    i_sum = GF.out_sum if t == SWAPOUT_K else GF.wait_sum + t
    i_n = GF.out_n if t == SWAPOUT_K else GF.wait_n + t
    s.gf[i_sum] += wait_ns
    s.gf[i_n] += 1.0
    if s.gf[i_n] >= max(lru_pages, 1):
        s.gf[i_sum] *= 0.5
        s.gf[i_n] *= 0.5


@cast_kernel
def refault_cost(s, t):  # type: ignore[no-untyped-def]
    """``(prior + sum of waits) / (1 + waits)``, ns: the wait alone (see :func:`miss_cost`)."""
    sw = node_swappiness(s)
    share = (MAX_SWAPPINESS - sw) if t == ANON_T else sw
    prior = 2.0 * PRIOR_NS * share / MAX_SWAPPINESS
    return (prior + s.gf[GF.wait_sum + t]) / (1.0 + s.gf[GF.wait_n + t])


@cast_kernel
def miss_cost(s, t):  # type: ignore[no-untyped-def]
    """What a miss of type ``t`` costs, ns: its refault wait, plus for anon writing a page out,
    ``(swapout_ns + sum of write-outs) / (1 + write-outs)``: the parameter is the prior, one
    sample, as vm.swappiness is the waits' (the seed: "that time is measured too, on every path
    that writes anon out, and added to anon's cost")."""
    c = refault_cost(s, t)
    if t == ANON_T:
        c += (float(s.gi[GI.swapout]) + s.gf[GF.out_sum]) / (1.0 + s.gf[GF.out_n])
    return c


@cast_kernel
def estimate_swappiness(s):  # type: ignore[no-untyped-def]
    """The swappiness the measured costs amount to: 200 * file / (anon + file)."""
    ca = miss_cost(s, 0)
    cf = miss_cost(s, 1)
    if ca + cf <= 0.0:
        return float(node_swappiness(s))
    return MAX_SWAPPINESS * cf / (ca + cf)


PTES_PER_LINE = 8  #: 64-bit PTEs in a 64-byte cache line: what one SIMD step tests


@cast_kernel
def walk_cost_ns(s, ptes, pmds, young):  # type: ignore[no-untyped-def]
    """The modelled CPU, ns, of reading ``pmds`` PMD entries and ``ptes`` PTEs of which ``young``
    had their young bit set (walker_simd: a line of 8 PTEs per step, then each young one)."""
    pte = float(s.gi[GI.ptens])
    if s.gi[GI.simd] != 0:
        steps = (ptes + PTES_PER_LINE - 1) // PTES_PER_LINE + young
    else:
        steps = ptes
    return pmds * float(s.gi[GI.pmdns]) + steps * pte


WORDS_PER_LINE = 16  #: 32-bit state words in a 64-byte cache line


@cast_kernel
def sweep_cost_ns(s, fwords, keys):  # type: ignore[no-untyped-def]
    """The modelled CPU, ns, of a sweep that read ``fwords`` state words of frames (page ids in
    memory: the seed's array is indexed by PFN) and keyed ``keys`` of them (words of the swept
    type's M): ``sweep_line_ns`` per 16 words, ``sweep_key_ns`` per key."""
    return fwords * float(s.gi[GI.linens]) / WORDS_PER_LINE + keys * float(s.gi[GI.keyns])
