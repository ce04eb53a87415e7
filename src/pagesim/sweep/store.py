"""A sweep's results in one SQLite file: one row per run, each written in one transaction.

The database runs in WAL mode (readers never block the writer). Only the sweep's parent process
writes; each run's row (or the rows of one pass over several sizes) is inserted in a single
transaction, so a sweep killed at any moment (SIGINT or SIGKILL) leaves whole rows only, and a
key is the primary key, so a row is never duplicated. A failed run's row is replaced when a
later sweep runs it again.

Tables
------
``runs``
    One row per run: ``key`` (primary key, :func:`pagesim.sweep.keys.run_key`), ``status``
    (``ok`` or ``failed``), ``error``, the run's identity (``trace``, ``trace_digest``,
    ``policy``, ``params`` JSON, ``label``, ``size``, ``size_pages``, ``mode``, ``warmup``,
    ``seed``), ``method`` (``simulate`` or ``one-pass``; ``read`` and ``create`` for failed rows of
    an unreadable trace and of a policy whose constructor raised), ``requests``, ``hits``, ``misses``,
    ``miss_ratio``, ``counters`` (JSON of every counter, vmstat-named ones in kernel mode),
    ``seconds`` (simulation loop), ``prepare_seconds``, ``cpu_seconds``, ``wall_seconds`` (the
    whole run in its worker), ``peak_rss_bytes`` (the worker's peak so far), ``worker``,
    ``finished_at`` (UTC, ISO 8601) and ``version`` (pagesim's).
``traces``
    What was learnt reading each trace: ``spec``, file ``bytes`` and ``mtime_ns`` (to know
    it unchanged), ``digest``, ``n_requests``, ``n_pages``, ``pgt`` (the mapped copy).
"""

from __future__ import annotations

import datetime
import json
import os
import sqlite3
from collections.abc import Iterable
from typing import Any

import pagesim

__all__ = ["RUN_COLUMNS", "Store"]

#: Columns of ``runs``, in order, with their SQL types.
RUN_COLUMNS: dict[str, str] = {
    "key": "TEXT PRIMARY KEY", "status": "TEXT NOT NULL", "error": "TEXT",
    "trace": "TEXT", "trace_digest": "TEXT", "policy": "TEXT", "params": "TEXT", "label": "TEXT",
    "size": "TEXT", "size_pages": "INTEGER", "mode": "TEXT", "warmup": "INTEGER", "seed": "INTEGER",
    "method": "TEXT", "requests": "INTEGER", "hits": "INTEGER", "misses": "INTEGER", "miss_ratio": "REAL",
    "counters": "TEXT", "seconds": "REAL", "prepare_seconds": "REAL", "cpu_seconds": "REAL",
    "wall_seconds": "REAL", "peak_rss_bytes": "INTEGER", "worker": "TEXT", "finished_at": "TEXT",
    "version": "TEXT",
}  # fmt: skip

_TRACE_COLUMNS = {"spec": "TEXT PRIMARY KEY", "bytes": "INTEGER", "mtime_ns": "INTEGER", "digest": "TEXT",
                  "n_requests": "INTEGER", "n_pages": "INTEGER", "pgt": "TEXT"}  # fmt: skip


def _copy_in_memory(path: str) -> sqlite3.Connection:
    """An in-memory database holding a copy of the file ``path``'s (empty if it does not exist)."""
    memory = sqlite3.connect(":memory:", isolation_level=None)
    if os.path.exists(path):
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60.0)
        try:
            source.backup(memory)
        except sqlite3.DatabaseError as exc:
            memory.close()
            raise ValueError(f"{path}: not a results database ({exc})") from None
        finally:
            source.close()
    return memory


def _create(table: str, columns: dict[str, str]) -> str:
    return f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(f'{k} {v}' for k, v in columns.items())})"


class Store:
    """The results database of a sweep (created if absent).

    Parameters
    ----------
    path : str
        The SQLite file (``results.db``).

    Raises
    ------
    ValueError
        If the file exists but is not a pagesim results database.
    """

    def __init__(self, path: str, *, scratch: str | None = None) -> None:
        self.path = path
        self._scratch = scratch
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"no such folder for the results database: {folder}")
        if scratch is None:
            self.conn = sqlite3.connect(path, timeout=60.0, isolation_level=None)
        else:
            self.conn = _copy_in_memory(path)
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute(_create("runs", RUN_COLUMNS))
            self.conn.execute(_create("traces", _TRACE_COLUMNS))
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise ValueError(f"{path}: not a results database ({exc})") from None

    @classmethod
    def scratch_copy(cls, path: str, scratch: str) -> Store:
        """A copy of the database at ``path`` in memory (empty if there is no file), for a plan.

        Everything a plan writes (the traces it reads, their ``.pgt`` copies, made in the folder
        ``scratch``) goes to the copy; the file and its ``<database>-traces`` folder are left as
        they are, and nothing is created.

        Raises
        ------
        ValueError
            If the file exists but is not a pagesim results database.
        FileNotFoundError
            If the database's folder does not exist.
        """
        return cls(path, scratch=scratch)

    @property
    def trace_folder(self) -> str:
        """Where the sweep keeps its mapped ``.pgt`` copies: ``<database>-traces`` (a scratch
        copy's own folder)."""
        if self._scratch is not None:
            return self._scratch
        return os.path.abspath(self.path) + "-traces"

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def done_keys(self) -> set[str]:
        """Keys of the runs stored with status ``ok``."""
        return {k for (k,) in self.conn.execute("SELECT key FROM runs WHERE status = 'ok'")}

    def put(self, rows: Iterable[dict[str, Any]]) -> int:
        """Insert (or replace) ``rows`` in ONE transaction; the number written.

        Each row is a dict of :data:`RUN_COLUMNS` names (missing ones NULL; ``counters`` may be a
        dict, stored as JSON); ``finished_at`` and ``version`` are filled in.
        """
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        values = []
        for row in rows:
            record = {**row, "finished_at": now, "version": pagesim.__version__}
            if isinstance(record.get("counters"), dict):
                record["counters"] = json.dumps(record["counters"], sort_keys=True)
            values.append(tuple(record.get(name) for name in RUN_COLUMNS))
        marks = ", ".join("?" for _ in RUN_COLUMNS)
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.executemany(f"INSERT OR REPLACE INTO runs VALUES ({marks})", values)
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
        return len(values)

    def forget(self, key: str) -> None:
        """Delete the row of ``key`` if there is one (one transaction)."""
        with self.conn:
            self.conn.execute("DELETE FROM runs WHERE key = ?", (key,))

    def known_trace(self, spec: str) -> dict[str, Any] | None:
        """The stored facts of trace file ``spec`` if the file is unchanged and its copy exists."""
        row = self.conn.execute(
            f"SELECT {', '.join(_TRACE_COLUMNS)} FROM traces WHERE spec = ?", (spec,)
        ).fetchone()
        if row is None:
            return None
        facts = dict(zip(_TRACE_COLUMNS, row))
        if not os.path.exists(facts["pgt"] or ""):
            return None
        if os.path.exists(spec):
            st = os.stat(spec)
            if (st.st_size, st.st_mtime_ns) != (facts["bytes"], facts["mtime_ns"]):
                return None
        return facts

    def remember_trace(self, spec: str, digest: str, n_requests: int, n_pages: int, pgt: str) -> None:
        """Store what reading trace ``spec`` gave (one transaction)."""
        size, mtime = (
            (os.stat(spec).st_size, os.stat(spec).st_mtime_ns) if os.path.exists(spec) else (None, None)
        )
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO traces VALUES (?, ?, ?, ?, ?, ?, ?)",
                (spec, size, mtime, digest, n_requests, n_pages, pgt),
            )
