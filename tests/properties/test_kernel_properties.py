"""Kernel mode's invariants on random mixed traces, for every kind of policy (Hypothesis).

After every few accesses: memory is conserved (resident + zram's share + free = the node),
free never goes negative, every listed page is resident and on one list (``check_lists``),
swap-ins never exceed swap-outs, a cgroup never stays above its limit; and the same input gives
the same result.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pagesim.core.lists import check_lists
from pagesim.engine.kernel import KernelRun
from pagesim.engine.kernel_loop import (
    N,
    _free_pages,
)
from pagesim.engine.memory import KernelConfig
from pagesim.policies.registry import make_policy
from pagesim.trace import Trace

POLICIES = ("lru", "linux-lru", "mglru")

access = st.tuples(
    st.integers(0, 299),  # page
    st.sampled_from([0, 1]),  # kind: file, anon
    st.sampled_from([0, 0, 0, 1, 1, 2]),  # op: read, write, free (rarely)
    st.integers(0, 2),  # task
)


def _trace(rows: list[tuple[int, int, int, int]]) -> Trace:
    ids = np.array([p + (10_000 if k else 0) for p, k, _, _ in rows], dtype=np.int64)
    return Trace.from_ids(
        ids,
        kind=np.array([k for _, k, _, _ in rows], np.uint8),
        op=np.array([o for _, _, o, _ in rows], np.uint8),
        tag=np.array([t for _, _, _, t in rows], np.int32),
    )


@settings(max_examples=25, deadline=None)
@given(rows=st.lists(access, min_size=1, max_size=600), name=st.sampled_from(POLICIES))
def test_kernel_invariants_hold_after_every_step(rows: list[tuple[int, int, int, int]], name: str) -> None:
    trace = _trace(rows)
    cfg = KernelConfig(memory_pages=128, swap_pages=256, readahead_pages=8)
    run = KernelRun(trace, make_policy(name), cfg, cgroup_limits=[100])
    while run.done < run.n:
        run.advance(7)
        fw, s = run.framework, run.state
        free = int(_free_pages(fw))
        assert free >= 0
        assert int(fw.node[N.resident]) + math.ceil(fw.node[N.zram_stored] / 3) + free == 128
        assert int(np.count_nonzero(s.resident)) == int(fw.node[N.resident])
        assert int(check_lists(s)) == 0
        assert fw.used[0] <= 100
        c = run.counters
        assert c["pswpin"] <= c["pswpout"]
    again = KernelRun(trace, make_policy(name), cfg, cgroup_limits=[100])
    again.advance()
    assert again.counters == run.counters
