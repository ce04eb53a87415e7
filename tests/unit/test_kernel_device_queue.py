"""Devices with a queue in kernel mode (``Device.channels``, ``link_page_ns``; pagesim.engine.memory).

Each case is one or two tasks on a 1,000-page node, no readahead unless said: a file read costs
100 ns of CPU plus what the task waits for the device (80 us for a one-page SSD read alone).
"""

from __future__ import annotations

import numpy as np
import pytest

from pagesim.analysis.experiments import ADMISSION_WORKLOAD, admission_experiment
from pagesim.engine.kernel import KernelRun, simulate_kernel
from pagesim.engine.memory import DEV_SSD, DEVICES, Device, KernelConfig
from pagesim.policies.cast.layout import (
    FILE_T,
    GF,
)
from pagesim.policies.cast.policy import CAST
from pagesim.policies.registry import make_policy
from pagesim.trace import KIND_FILE, OP_READ, OP_WRITE, Trace


def _ssd(**queue: float) -> Device:
    return Device("test", DEV_SSD, 80_000.0, 4_000.0, 0.0, 0.0, **queue)  # type: ignore[arg-type]


def _reads(ids, tags, release=None) -> Trace:  # type: ignore[no-untyped-def]
    n = len(ids)
    cols = {
        "kind": np.full(n, KIND_FILE, np.uint8),
        "op": np.full(n, OP_READ, np.uint8),
        "tag": np.asarray(tags, np.int32),
    }
    if release is not None:
        cols["time"] = np.asarray(release, np.int64)
        cols["source"] = {"time_unit": "ns", "time_is_release": True}
    return Trace.from_ids(np.asarray(ids, np.int64), **cols)


def _two_reads_at_once(device: Device | str) -> dict:  # type: ignore[type-arg]
    """Tasks 0 and 1 each read one page at model time 0 (task 0 first: trace order)."""
    cfg = KernelConfig(memory_pages=1000, readahead_pages=1, file_device=device)
    r = simulate_kernel(_reads([0, 500], [0, 1]), make_policy("lru"), cfg)
    return {"time": r.tasks["time_ns"], "queue": r.node["device_queue_ns"], "queued": r.node["device_queued"]}


def test_on_one_channel_the_second_of_two_reads_waits_for_the_first() -> None:
    """One channel: task 0's read runs 0-80 us; task 1's, issued at 0 too, starts at 80 us and
    ends at 160 us. Each task's time is 100 ns of CPU plus its wait."""
    got = _two_reads_at_once(_ssd(channels=1))
    assert got["time"] == [80_100.0, 160_100.0]
    assert got["queue"] == 80_000 and got["queued"] == 1


def test_two_channels_or_the_default_ssd_time_each_read_alone() -> None:
    """With two channels, or unlimited ones (the ``ssd`` preset's default), neither read waits
    for the other."""
    for device in (_ssd(channels=2), "ssd"):
        got = _two_reads_at_once(device)
        assert got["time"] == [80_100.0, 80_100.0]
        assert got["queue"] == 0 and got["queued"] == 0
    assert not DEVICES["ssd"].queued and DEVICES["sata-ssd"].queued


def test_the_link_moves_one_request_at_a_time() -> None:
    """Unlimited channels, a link of 100 us per page: a one-page read alone takes max(80, 100)
    = 100 us; the second read's transfer follows the first's: it ends at 200 us."""
    got = _two_reads_at_once(_ssd(link_page_ns=100_000.0))
    assert got["time"] == [100_100.0, 200_100.0]
    assert got["queue"] == 100_000 and got["queued"] == 1


def test_the_flushers_write_back_delays_a_later_read() -> None:
    """One channel, a write occupies it 50 us. Task 0 writes pages 0 and 1 of a file (whole
    pages: nothing read) at 0 and 100 ns; the background threshold is 1 page (0.1 % of 1,000),
    so the second write makes the flusher write page 0 back, a request from 100 ns to 50.1 us
    nobody waits for. Task 1's read of page 500, released at 200 ns, starts when the channel is
    free (50.1 us) and ends at 130.1 us: its task's time is 100 ns + 129.9 us."""
    trace = Trace.from_ids(
        np.asarray([0, 1, 500], np.int64),
        kind=np.full(3, KIND_FILE, np.uint8),
        op=np.asarray([OP_WRITE, OP_WRITE, OP_READ], np.uint8),
        tag=np.asarray([0, 0, 1], np.int32),
        time=np.asarray([0, 0, 200], np.int64),
        source={"time_unit": "ns", "time_is_release": True},
    )
    cfg = KernelConfig(
        memory_pages=1000,
        readahead_pages=1,
        dirty_background_ratio=0.1,
        file_device=_ssd(channels=1, write_busy_ns=50_000.0),
    )
    r = simulate_kernel(trace, make_policy("lru"), cfg)
    assert r.counters["flusher_writeback"] == 1
    assert r.tasks["time_ns"] == [200.0, 130_000.0]
    assert r.node["device_queue_ns"] == 49_900


def test_a_bypassed_sequential_read_fetches_its_readahead_window_in_one_request() -> None:
    """admit-compaction with compaction tag 0 reads pages 0..99 of one file (readahead up to
    32): nothing enters the cache, but each miss reads the window a miss would have read, in
    one request, and the next reads of that window are served from it. With 6.6's rules
    (``ondemand_readahead``): page 0 alone (no state), 1-4 (``get_init_ra_size``: 4), 5-28 (8
    pushed on, and ``readit`` takes in the next 16 since the mark would fall on page 5), 29-60
    and 61-92 (32, the maximum), 93-99 (the file ends): 100 pages read in 6 waits of 80 us + 4 us
    a further page, 6 * 80 + 4 * 94 = 856 us."""
    cfg = KernelConfig(memory_pages=1000, readahead_pages=32)
    policy = make_policy("admit-compaction", compaction_tags="0")
    r = simulate_kernel(_reads(range(100), [0] * 100), policy, cfg)
    c = r.counters
    assert c["bypassed"] == 100 and c["pgpgin"] == 100 and r.node["resident_file"] == 0
    assert r.tasks["waits"] == [6]
    assert r.tasks["time_ns"] == [pytest.approx(100 * 100 + 6 * 80_000 + 94 * 4_000)]


def test_a_cached_page_inside_a_bypassed_window_is_not_read_again() -> None:
    """As above, but task 0 reads page 50 into the cache first. Task 1's fourth request (pages
    29..60) reads 31 pages, not page 50; page 50 is a cache hit (no admit, no bypass) and page
    51 is still served from the request: 99 bypassed reads, 6 waits, 93 further pages."""
    cfg = KernelConfig(memory_pages=1000, readahead_pages=32)
    trace = _reads([50, *range(100)], [0] + [1] * 100)
    r = simulate_kernel(trace, make_policy("admit-compaction", compaction_tags="1"), cfg)
    c = r.counters
    assert c["bypassed"] == 99 and c["pgpgin"] == 1 + 99 and r.node["resident_file"] == 1
    assert r.tasks["waits"] == [1, 6]
    assert r.tasks["time_ns"][1] == pytest.approx(100 * 100 + 6 * 80_000 + 93 * 4_000)


def test_a_refault_tells_the_policy_the_reads_service_not_its_queueing() -> None:
    """Two tasks read loops of 40 file pages each, three passes, in a cgroup of 50 pages, on one
    channel: the reads queue behind each other's (device_queued > 0) and the second and third
    passes refault. CAST's refault cost samples (``a[A_WAIT_NS]``) are each one read's
    service alone, 80 us: their sum is 80,000 ns times their number (halving keeps the ratio)."""
    ids = np.concatenate([np.tile(np.arange(40), 3), np.tile(np.arange(1000, 1040), 3)])
    tags = np.repeat([0, 1], 120)
    trace = _reads(ids, tags)
    cfg = KernelConfig(memory_pages=1000, readahead_pages=1, file_device=_ssd(channels=1))
    run = KernelRun(trace, CAST(), cfg, cgroup_limits=[50])
    run.advance()
    assert run.result().node["device_queued"] > 0
    gf = run.state.gf
    assert gf[GF.wait_n + FILE_T] > 0
    assert gf[GF.wait_sum + FILE_T] == 80_000.0 * gf[GF.wait_n + FILE_T]


def test_a_negative_channel_count_is_refused() -> None:
    with pytest.raises(ValueError, match="channels"):
        KernelConfig(file_device=_ssd(channels=-1)).validated()


def test_on_the_queued_ssd_the_admission_filter_lowers_the_foregrounds_p99() -> None:
    """The admission experiment at 1/4096 on ``sata-ssd`` (its default): compaction's I/O
    queues the foreground's reads on the link, and with the filter they queue less (measured:
    P99 0.69x; 1/1024: 0.76x, docs/experiments.md). GET-SCAN's P99 falls at 1/1024 (0.68x)
    but not at this scale (0.99x), so it is not asserted here."""
    pols = ["linux-lru", "admit-compaction"]
    exp = admission_experiment(policies=pols, scale=1 / 4096, latency_window=5000)
    assert exp.params["device"] == "sata-ssd"
    ac = exp.find(ADMISSION_WORKLOAD, "admit-compaction")
    assert exp.ratio(ac, "p99_ms", "foreground") < 0.9
    assert exp.find(ADMISSION_WORKLOAD, "linux-lru").counters["device_queued"] > 0
