"""SIEVE, S3-FIFO and W-TinyLFU against libCacheSim 0.3.5 (its C core), unit-size objects.

Traces (../shared/traces, see PROVENANCE.md): cloudPhysicsIO.oracleGeneral.bin as shipped; the
LIRS traces multi2, sprite and 2_pools converted to oracleGeneral with pagesim's writer (the
ids written are the traces' own, so libCacheSim hashes the same keys). libCacheSim reports
only miss ratios: misses = round(ratio * requests).

* SIEVE and S3-FIFO: identical miss counts at every size (S3-FIFO at >= 20 pages: below that
  libCacheSim's small queue of one object refuses every insertion, see s3fifo.py).
* W-TinyLFU with ``sketch="cbf", keys=trace.original_id``: libCacheSim's counting Bloom filter
  with its XXH64 hashes reproduced, identical miss counts wherever libCacheSim's SLRU segments
  (``int(0.2 * main)``, ``int(0.8 * main)``) add up to main. At capacity 100 (main 99: 19 + 79)
  they do not, libCacheSim's probation runs one page over and a later hit in main evicts a page
  in the middle of a hit, which a cache_ext-style policy cannot do; those counts are pinned as
  a known difference (up to 10 %, sprite and 2_pools).
* W-TinyLFU with the default ``sketch="cms"`` (the paper's 4-bit count-min sketch, every
  access recorded, halved every 10 x capacity records) is a different sketch, not a hash
  difference: its counts are pinned and stay within 15 % of libCacheSim's.
"""

from __future__ import annotations

import lcs
import pytest

from pagesim.engine import simulate
from pagesim.policies.s3fifo import S3FIFO
from pagesim.policies.sieve import Sieve
from pagesim.policies.wtinylfu import WTinyLFU
from pagesim.trace import Trace

pytestmark = pytest.mark.realtrace

#: trace -> (path under TRACES, {capacity: (sieve, s3fifo, w-tinylfu cbf, w-tinylfu cms)});
#: the first three agreed by both simulators (except W-TinyLFU at 100, see KNOWN_DIFF).
EXPECTED: dict[str, tuple[str, dict[int, tuple[int, int, int, int]]]] = {
    "cloudPhysicsIO": (
        "libcachesim/cloudPhysicsIO.oracleGeneral.bin",
        {
            100: (98130, 97332, 98779, 98784),
            1000: (93975, 94005, 94911, 94528),
            5000: (89798, 85689, 88109, 90995),
            10000: (81059, 75564, 77281, 82366),
        },
    ),
    "multi2": (
        "lirs/multi2.trace.gz",
        {
            500: (16902, 13219, 13323, 14569),
            2000: (12908, 8260, 7771, 8317),
            4000: (7061, 6289, 5756, 5749),
        },
    ),
    "sprite": (
        "lirs/sprite.trace.gz",
        {
            100: (100686, 94919, 101923, 93999),
            1000: (17459, 14328, 26494, 26478),
            2000: (10828, 9743, 15867, 18058),
            5000: (8231, 7628, 8505, 8280),
        },
    ),
    "2_pools": (
        "lirs/2_pools.trace.gz",
        {
            100: (52105, 55371, 51305, 55469),
            1000: (45639, 45640, 45579, 45546),
            2000: (40654, 40757, 40751, 40661),
            5000: (26950, 27055, 27076, 26969),
        },
    ),
}

#: (trace, capacity) -> libCacheSim's W-TinyLFU misses where its segments leave a page over.
KNOWN_DIFF = {("cloudPhysicsIO", 100): 98799, ("sprite", 100): 94258, ("2_pools", 100): 56537}

CMS_TOLERANCE = 0.15  #: the paper's sketch vs libCacheSim's: |ours - theirs| / theirs


def segments_fill_main(capacity: int) -> bool:
    """True if libCacheSim's SLRU segment sizes add up to its main cache at this capacity."""
    main = capacity - int(capacity * 0.01)
    return int(1 / 5 * main) + int(4 / 5 * main) == main


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """trace name -> (pagesim Trace, path of an oracleGeneral file libCacheSim can read)."""
    return lcs.prepare_traces(tmp_path_factory, {name: rel for name, (rel, _) in EXPECTED.items()})


CASES = [(t, c) for t, (_, table) in EXPECTED.items() for c in table]


@pytest.mark.parametrize(("trace_name", "capacity"), CASES)
def test_sieve_and_s3fifo_equal_libcachesim(prepared, trace_name, capacity):
    trace, oracle = prepared[trace_name]
    want_sieve, want_s3, _, _ = EXPECTED[trace_name][1][capacity]
    for policy, peer, want in ((Sieve(), "Sieve", want_sieve), (S3FIFO(), "S3FIFO", want_s3)):
        ours = simulate(trace, policy, capacity)
        assert ours.counters["fallback_evictions"] == 0
        theirs = lcs.misses(peer, oracle, capacity, trace.n_requests)
        assert (ours.misses, theirs) == (want, want), peer


@pytest.mark.parametrize(("trace_name", "capacity"), CASES)
def test_wtinylfu_cbf_equals_libcachesim(prepared, trace_name, capacity):
    trace, oracle = prepared[trace_name]
    want = EXPECTED[trace_name][1][capacity][2]
    ours = simulate(trace, WTinyLFU(sketch="cbf", keys=trace.original_id), capacity)
    assert ours.counters["fallback_evictions"] == 0
    theirs = lcs.misses("WTinyLFU", oracle, capacity, trace.n_requests)
    assert ours.misses == want
    if segments_fill_main(capacity):
        assert theirs == want
    else:
        assert theirs == KNOWN_DIFF[(trace_name, capacity)]


@pytest.mark.parametrize(("trace_name", "capacity"), CASES)
def test_wtinylfu_paper_sketch_close_to_libcachesim(prepared, trace_name, capacity):
    trace, oracle = prepared[trace_name]
    want = EXPECTED[trace_name][1][capacity][3]
    ours = simulate(trace, WTinyLFU(), capacity).misses
    theirs = lcs.misses("WTinyLFU", oracle, capacity, trace.n_requests)
    assert ours == want
    assert abs(ours - theirs) <= CMS_TOLERANCE * theirs, (ours, theirs)


def test_segment_rounding_explains_the_known_differences():
    """The sizes pinned in KNOWN_DIFF are exactly those whose segments fall short of main."""
    short = {c for _, table in EXPECTED.values() for c in table if not segments_fill_main(c)}
    assert short == {100}
    assert {c for _, c in KNOWN_DIFF} == short


def test_s3fifo_small_capacities_libcachesim_caches_nothing(tmp_path):
    """At 10..19 pages libCacheSim's S is one object and it refuses every insertion into S."""
    ids = [1, 2, 1, 2, 1, 2, 3, 1, 2]
    path = tmp_path / "small.oracleGeneral.bin"
    lcs.write_oracle(ids, path)
    assert lcs.misses("S3FIFO", path, 12, len(ids)) == len(ids)
    assert simulate(Trace.from_ids(ids), S3FIFO(), 12).misses == 3
