"""CAST's controllers: the interface, and for now what stands in for them.

The seed's controllers run a sample of about 15,000 pages (chosen by block) through simulated
copies of the main cache: nine decays (the current level and +-1, 2, 4, 8 steps, a sign test on
the accesses where they disagree, two standard deviations), two W shares (10 % of the type's
pages smaller and larger, a sequential test of the gradient), and each type's miss-ratio curve
at 1/10 .. 10/10 of memory for the anon/file split, misses weighed by each type's measured
refault cost. None of that is built yet (issue 4, items 8-9). What is here:

* :func:`decay_level` and :func:`w_share` return the level and share the policy holds
  (parameters ``decay`` and ``w_permille``): the hand-set values, as with ``decay_auto`` = 0;
* :func:`pressure_swappiness`: the swappiness reclaim presses the two types with. Without the
  split controller it is ``vm.swappiness`` (or the ``swappiness_override`` parameter) held
  within 1..199, except for the three promises: 0 (file only), 1 (file first), 200 (anon
  first), which the caller keeps;
* the refault cost estimate (item 10): per type the waits' sum and number, halved once there
  have been as many waits as the LRUs hold pages, and
  ``cost = (prior + sum) / (1 + waits)`` with the prior one sample in the ratio
  ``anon : file = (200 - s) : s`` of ``vm.swappiness`` s, scaled so that the two priors add up
  to ``2 * PRIOR_NS`` (a choice: the seed gives the ratio, not the scale);
  :func:`estimate_swappiness` is the swappiness the two costs amount to, ``200 * file / (anon
  + file)``. The engine's ``a[A_WAIT_NS]`` feeds it; the split does not read it yet.
"""

from __future__ import annotations

from pagesim.core.jit import kernel
from pagesim.core.state import GI_SWAPPINESS
from pagesim.policies.cast.layout import ANON_T, F_WAIT_N, F_WAIT_SUM, G_LE, G_SWP, G_WPM

MAX_SWAPPINESS = 200
#: The prior's scale: the mean of the two priors, ns (between a zram swap-in and an SSD read).
PRIOR_NS = 100_000.0


@kernel
def decay_level(s, t):  # type: ignore[no-untyped-def]
    """The decay level (1..14) type ``t`` ranks by."""
    return s.gi[G_LE + t]


@kernel
def w_share(s, t):  # type: ignore[no-untyped-def]
    """W's share of type ``t``'s pages, permille."""
    return s.gi[G_WPM + t]


@kernel
def node_swappiness(s):  # type: ignore[no-untyped-def]
    """vm.swappiness, or the policy's override."""
    if s.gi[G_SWP] >= 0:
        return s.gi[G_SWP]
    return s.gi[GI_SWAPPINESS]


@kernel
def pressure_swappiness(s):  # type: ignore[no-untyped-def]
    """The swappiness reclaim presses anon and file with, held within 1..199."""
    sw = node_swappiness(s)
    return min(max(sw, 1), MAX_SWAPPINESS - 1)


@kernel
def note_wait(s, t, wait_ns, lru_pages):  # type: ignore[no-untyped-def]
    """One refault wait of type ``t``; both sums halve once waits reach the LRUs' pages."""
    s.gf[F_WAIT_SUM + t] += wait_ns
    s.gf[F_WAIT_N + t] += 1.0
    if s.gf[F_WAIT_N + t] >= max(lru_pages, 1):
        s.gf[F_WAIT_SUM + t] *= 0.5
        s.gf[F_WAIT_N + t] *= 0.5


@kernel
def refault_cost(s, t):  # type: ignore[no-untyped-def]
    """``(prior + sum of waits) / (1 + waits)``, ns (writing anon out not yet added)."""
    sw = node_swappiness(s)
    share = (MAX_SWAPPINESS - sw) if t == ANON_T else sw
    prior = 2.0 * PRIOR_NS * share / MAX_SWAPPINESS
    return (prior + s.gf[F_WAIT_SUM + t]) / (1.0 + s.gf[F_WAIT_N + t])


@kernel
def estimate_swappiness(s):  # type: ignore[no-untyped-def]
    """The swappiness the measured costs amount to: 200 * file / (anon + file)."""
    ca = refault_cost(s, 0)
    cf = refault_cost(s, 1)
    if ca + cf <= 0.0:
        return float(node_swappiness(s))
    return MAX_SWAPPINESS * cf / (ca + cf)
