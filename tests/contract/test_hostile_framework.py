"""Policies that try to break the framework itself: what it owns, its buffers, its counters.

* writing ``s.resident`` (read-only for policies) is caught after the chunk in a normal run and
  after the very hook in a checked run (``checked=True``), which names it;
* a count of 2**40 returned by ``evict`` is one refused proposal, not 2**40;
* a user's compiled policy is bounds-checked: ``s.cand[40]`` raises, naming the hook.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _hostile import Hostile

from pagesim.core.state import GI_USER
from pagesim.engine import simulate
from pagesim.engine.simulate import PolicyError
from pagesim.policies import lru
from pagesim.policies.base import Policy
from pagesim.policies.registry import make_policy
from pagesim.report.compare import fallback_notes
from pagesim.trace import Trace

G = GI_USER
CAP = 8


def _trace() -> Trace:
    rng = np.random.default_rng(3)
    return Trace.from_ids((rng.zipf(1.2, 400) - 1) % 40)


def _lru_with(name: str, **hooks: Any) -> type[Policy]:
    body: dict[str, Any] = {
        "name": f"hostile-{name.lower()}",
        "int_globals": 1,
        "init": staticmethod(lru._init),
        "added": staticmethod(lru._added),
        "accessed": staticmethod(lru._accessed),
        "evict": staticmethod(lru._evict),
        "__module__": __name__,
        "__qualname__": name,
    }
    body.update({k: staticmethod(v) for k, v in hooks.items()})
    return type(name, (Policy,), body)


def test_writing_resident_is_caught_after_the_chunk() -> None:
    # Before: used 30 where 11 pages were resident, nothing reported.
    with pytest.raises(PolicyError, match=r"wrote s\.resident.*run with checked=True"):
        simulate(_trace(), Hostile(mode="writes-resident"), CAP)


@pytest.mark.parametrize("interpreted", [False, True])
def test_writing_resident_is_caught_after_the_hook_in_checked_mode(interpreted: bool) -> None:
    # the first hit calls accessed, which clears the page's residency: caught at that access
    trace = _trace()
    first_hit = next(i for i in range(1, trace.n_requests) if trace.page[i] in set(trace.page[:i].tolist()))
    with pytest.raises(PolicyError, match="after its 'accessed' hook") as err:
        simulate(trace, Hostile(mode="writes-resident"), CAP, checked=True, interpreted=interpreted)
    assert err.value.access_index == first_hit


@pytest.mark.parametrize("name", ["lru", "fifo", "clock", "arc", "s3fifo", "sieve"])
def test_built_in_policies_pass_the_checked_mode(name: str) -> None:
    checked = simulate(_trace(), make_policy(name), CAP, checked=True)
    plain = simulate(_trace(), make_policy(name), CAP)
    assert checked.counters == plain.counters


def test_a_huge_count_is_one_refused_proposal_per_call() -> None:
    # Before: "2,006,608,720,691,200 proposals rejected" (2**40 per call). Every call's proposal
    # is refused as a whole and the default policy evicts: rejected = evict calls.
    result = simulate(_trace(), Hostile(mode="huge-count"), CAP)
    c = result.counters
    assert c["evict_calls"] > 100
    assert c["rejected_overflow"] == c["rejected"] == c["proposed"] == c["evict_calls"]
    assert c["fallback_evictions"] == c["evict_calls"]
    assert fallback_notes([result])[0].endswith(f" {c['evict_calls']:,} proposals rejected")


@pytest.mark.parametrize("interpreted", [False, True])
def test_a_write_past_the_candidate_buffer_names_the_hook(interpreted: bool) -> None:
    # Before: the compiled hook wrote 64 bytes past the 32-slot buffer, silently.
    with pytest.raises(PolicyError, match=r"IndexError.*in its 'evict' hook at access index \d+"):
        simulate(_trace(), Hostile(mode="past-the-buffer"), CAP, interpreted=interpreted)


# ---- a hook that never returns ------------------------------------------------------------


def _evict_forever(s, a):  # type: ignore[no-untyped-def]
    while s.gi[G] >= -1:  # the list id is >= 0: never false
        s.scores[0] += 1
    return 0


Forever = _lru_with("Forever", evict=_evict_forever)


def test_an_endless_interpreted_hook_is_stopped_and_named() -> None:
    # LRU fills its 8 pages, then the first miss calls evict, which never returns.
    trace = _trace()
    before = threading.active_count()
    with pytest.raises(
        PolicyError, match=r"no access completed for 0.3 s.*it was stopped.*in its 'evict' hook"
    ):
        simulate(trace, Forever(), CAP, interpreted=True, policy_timeout=0.3)
    assert threading.active_count() == before


ENDLESS_POLICY = """
from pagesim.core.jit import kernel
from pagesim.core.state import GI_USER
from pagesim.policies import lru
from pagesim.policies.base import Policy


@kernel
def _evict(s, a):
    while s.gi[GI_USER] >= -1:
        s.scores[0] += 1
    return 0


class Endless(Policy):
    name = "endless"
    int_globals = 1
    init = staticmethod(lru._init)
    added = staticmethod(lru._added)
    accessed = staticmethod(lru._accessed)
    evict = staticmethod(_evict)
"""


def test_an_endless_compiled_hook_is_abandoned_and_the_others_are_kept(tmp_path: Path) -> None:
    # In its own process: the compiled loop cannot be stopped and spins until the process exits.
    policy = tmp_path / "endless.py"
    policy.write_text(ENDLESS_POLICY)
    trace = tmp_path / "t.txt"
    trace.write_text("\n".join(str(i % 20) for i in range(200)) + "\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", "from pagesim.cli import app; app()", "compare", str(trace),
         "-s", "8", "--no-opt", "--json", "-p", "lru", "-p", f"{policy}:Endless", "-p", "fifo",
         "--policy-timeout", "2"],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )  # fmt: skip
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [rec["policy"] for rec in lines] == ["lru", "fifo"]
    # 20 pages in a loop over 8: every access misses for LRU and FIFO
    assert [rec["misses"] for rec in lines] == [200, 200]
    assert done.returncode != 0
    assert "policy 'endless' raised PolicyTimeout: no access completed for 2 s" in done.stderr
    assert "compiled code cannot be interrupted" in done.stderr and "in its 'evict' hook" in done.stderr
