"""The conditions of a CAST-style split study over :func:`~.mix.mix`: 90 stationary ones and 20
that change during the run (:data:`MIX_CHANGES`).
"""

from __future__ import annotations

from typing import Any

from pagesim.workloads.kernel.mix_workload import MIX_FILE_PATTERNS

#: The changing conditions of :func:`mix_study_conditions` (``changing=True``): name -> the two
#: stages it alternates between (keys of a ``mix`` stage over the base condition: zipf file, anon
#: 40 % of memory, file 1.5x memory). Of the 90 stationary conditions the nearest to each stage
#: had different best fixed splits (`python bench/cast_split_study.py --accesses 2000000`).
MIX_CHANGES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # anon's loop busy, then quiet (stationary zipf/loop/0.6: best 50 %; zipf/loop/0.1: 10 %)
    "anon-cools": (
        {"anon_pattern": "loop", "anon_accesses": 0.6},
        {"anon_pattern": "loop", "anon_accesses": 0.1},
    ),
    # anon quiet, then busy over its whole region (zipf/uniform/0.1: best 10 %; 0.6: 50 %)
    "anon-heats": (
        {"anon_pattern": "uniform", "anon_accesses": 0.1},
        {"anon_pattern": "uniform", "anon_accesses": 0.6},
    ),
    # anon hot beside a file no size helps much, then a skewed file beside quiet anon
    "hot-swaps": (
        {"anon_pattern": "zipf", "anon_accesses": 0.6, "file_pattern": "uniform"},
        {"anon_pattern": "zipf", "anon_accesses": 0.05, "file_pattern": "zipf"},
    ),
    # the file's working set grows from 0.45x memory (fits beside anon) to 1.5x
    "file-grows": (
        {"anon_pattern": "loop", "anon_accesses": 0.3, "file_ws": 0.3},
        {"anon_pattern": "loop", "anon_accesses": 0.3, "file_ws": 1.0},
    ),
    # scans through a skewed file beside busy, then quiet anon (scan/uniform/0.5: 50 %; 0.1: 10 %)
    "scan-anon-cools": (
        {"anon_pattern": "uniform", "anon_accesses": 0.5, "file_pattern": "scan"},
        {"anon_pattern": "uniform", "anon_accesses": 0.1, "file_pattern": "scan"},
    ),
    # anon's loop shrinks from its region (40 % of memory) to a quarter of it, as busy
    "anon-shrinks": (
        {"anon_pattern": "loop", "anon_accesses": 0.5, "anon_ws": 1.0},
        {"anon_pattern": "loop", "anon_accesses": 0.5, "anon_ws": 0.25},
    ),
    # stages whose wrong split costs more than the six above: anon's loop takes 90 %
    # of the accesses beside a uniform file (400,000 accesses alone: fixed 10 % 1.12x fixed 50 %),
    # then a skewed file beside quiet anon (zipf/loop/0.05: fixed 50 % 1.19x fixed 10 %)
    "anon-loop-then-file": (
        {"anon_pattern": "loop", "anon_accesses": 0.9, "file_pattern": "uniform"},
        {"anon_pattern": "loop", "anon_accesses": 0.05, "file_pattern": "zipf"},
    ),
    # scans beside anon's loop at 80 % of the accesses (alone: 10 % 1.15x 50 %), then at 5 %
    "scan-anon-loop-cools": (
        {"anon_pattern": "loop", "anon_accesses": 0.8, "file_pattern": "scan"},
        {"anon_pattern": "loop", "anon_accesses": 0.05, "file_pattern": "scan"},
    ),
    # the file's working set shrinks from 1.5x memory to 0.45x (file-grows reversed)
    "file-shrinks": (
        {"anon_pattern": "loop", "anon_accesses": 0.3, "file_ws": 1.0},
        {"anon_pattern": "loop", "anon_accesses": 0.3, "file_ws": 0.3},
    ),
    # a uniform file beside quiet anon, then anon's loop at 90 % (anon-loop-then-file reversed)
    "file-then-anon-loop": (
        {"anon_pattern": "loop", "anon_accesses": 0.05, "file_pattern": "uniform"},
        {"anon_pattern": "loop", "anon_accesses": 0.9, "file_pattern": "uniform"},
    ),
}


def mix_study_conditions(
    accesses: int = 2_000_000, seed: int = 0, changing: bool = False
) -> list[dict[str, Any]]:
    """The 90 conditions of a CAST-style split study, as keyword arguments of :func:`mix`.

    Five file patterns x three anon patterns (zipf, loop, uniform) x six anon shares of the
    accesses (0.1 to 0.6), anon 40 % of memory beside a file 1.5x memory, ``accesses`` each
    (the seed's study: 90 conditions of 2 million accesses). Each condition gets its own seed.

    With ``changing=True``: 20 conditions whose best split changes during the run instead, for
    each of the ten changes of :data:`MIX_CHANGES` (in that order) the two stages once (A, B:
    a change at half the run) and twice (A, B, A, B: every quarter), as ``stages`` of
    :func:`mix`; zipf file (unless a stage sets another), anon 40 % of memory, file 1.5x memory,
    ``accesses`` each, seeds ``seed + 1000 + k``.
    """
    if changing:
        return [
            {
                "anon_share": 0.4,
                "file_factor": 1.5,
                "file_pattern": "zipf",
                "anon_pattern": stage_a.get("anon_pattern", "zipf"),
                "anon_accesses": stage_a.get("anon_accesses", 0.0),
                "accesses": accesses,
                "seed": seed + 1000 + 2 * i + j,
                "stages": [dict(stage_a), dict(stage_b)] * repeat,
            }
            for i, (stage_a, stage_b) in enumerate(MIX_CHANGES.values())
            for j, repeat in enumerate((1, 2))
        ]
    out = []
    k = 0
    for file_pattern in MIX_FILE_PATTERNS:
        for anon_pattern in ("zipf", "loop", "uniform"):
            for anon_accesses in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
                out.append(
                    {
                        "anon_share": 0.4,
                        "file_factor": 1.5,
                        "file_pattern": file_pattern,
                        "anon_pattern": anon_pattern,
                        "anon_accesses": anon_accesses,
                        "accesses": accesses,
                        "seed": seed + k,
                    }
                )
                k += 1
    return out
