"""Reading a sweep's results: a pandas DataFrame, filtered, exported to Parquet or CSV.

:func:`load_results` returns one row per run with the columns of the ``runs`` table
(:mod:`pagesim.sweep.store`) minus the ``counters`` JSON, which is spread into one column per
counter (``evictions``, ``pgscan_kswapd``...; missing where a mode or a one-pass run has no such
counter), and ``params`` parsed back into a dict.
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

import pandas as pd

__all__ = ["RESULT_ORDER", "export_results", "load_results"]

#: Leading columns of a results table, in order.
RESULT_ORDER = ["trace", "policy", "params", "label", "size", "size_pages", "mode", "warmup", "seed",
                "requests", "hits", "misses", "miss_ratio", "status", "error", "method"]  # fmt: skip


def load_results(database: str, where: str | None = None) -> pd.DataFrame:
    """The runs of a results database as a DataFrame.

    Parameters
    ----------
    database : str
        A ``results.db`` written by a sweep.
    where : str, optional
        An SQL condition over the ``runs`` columns (``policy = 'lru' AND size_pages > 100``,
        ``status = 'failed'``, ``json_extract(counters, '$.evictions') > 0``).

    Returns
    -------
    pandas.DataFrame
        Sorted by trace, policy, label, mode, warm-up, seed and size; ``params`` as dicts.

    Raises
    ------
    FileNotFoundError
        If ``database`` does not exist.
    ValueError
        If it is not a results database, or ``where`` is not valid SQL for it (sqlite's message).
    """
    if not os.path.exists(database):
        raise FileNotFoundError(f"results database not found: {database}")
    conn = sqlite3.connect(f"file:{os.path.abspath(database)}?mode=ro", uri=True)
    try:
        query = "SELECT * FROM runs" + (f" WHERE {where}" if where else "")
        try:
            frame = pd.read_sql_query(query, conn)
        except (sqlite3.DatabaseError, pd.errors.DatabaseError) as exc:
            raise ValueError(f"{database}: {' '.join(str(exc).split())}") from None
    finally:
        conn.close()
    return _tidy(frame)


def _tidy(frame: pd.DataFrame) -> pd.DataFrame:
    counters = [json.loads(c) if isinstance(c, str) and c else {} for c in frame.get("counters", [])]
    spread = (
        pd.DataFrame.from_records(counters, index=frame.index)
        if counters
        else pd.DataFrame(index=frame.index)
    )
    spread = spread.drop(columns=[c for c in spread.columns if c in frame.columns], errors="ignore")
    frame = pd.concat([frame.drop(columns=["counters"], errors="ignore"), spread], axis=1)
    frame["params"] = [_params(p) for p in frame.get("params", [])]
    lead = [c for c in RESULT_ORDER if c in frame.columns]
    frame = frame[lead + [c for c in frame.columns if c not in lead]]
    order = [
        c for c in ("trace", "policy", "label", "mode", "warmup", "seed", "size_pages") if c in frame.columns
    ]
    if len(frame):
        frame = frame.sort_values(order, kind="stable", na_position="first").reset_index(drop=True)
    return frame


def _params(text: Any) -> dict[str, Any]:
    if isinstance(text, str) and text:
        return dict(json.loads(text))
    return {}


def export_results(frame: pd.DataFrame, path: str) -> None:
    """Write ``frame`` as Parquet (``.parquet``, with pyarrow) or CSV (``.csv``).

    ``params`` is written as JSON text. Raises ValueError for another extension.
    """
    out = frame.copy()
    out["params"] = [json.dumps(p, sort_keys=True) for p in out["params"]]
    lower = path.lower()
    if lower.endswith(".parquet"):
        out.to_parquet(path, engine="pyarrow", index=False)
    elif lower.endswith(".csv"):
        out.to_csv(path, index=False)
    else:
        raise ValueError(f"cannot export to {path!r}: give a .parquet or .csv file")
