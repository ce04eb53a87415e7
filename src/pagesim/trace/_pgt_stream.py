"""`PgtStream`: a ``.pgt`` file's columns read ``chunk`` accesses at a time (see `stream`)."""

from __future__ import annotations

import os
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import numpy as np

from ._stream import DECOMPRESSION_ERRORS, ZstdStream
from .errors import CompressedDataError, TraceFormatError
from .readers import native
from .stream import TraceChunk, TraceStream, _dense_violation

#: Columns a streamed run reads, besides ``page``.
_READ = ("size", "cgroup", "tag", "op")


def _meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    if not os.path.exists(path):
        raise FileNotFoundError(f"trace file not found: {os.fspath(path)}")
    try:
        with zipfile.ZipFile(path, "r") as zf:
            meta = native._read_meta(zf, path)
    except (zipfile.BadZipFile, EOFError, ValueError, OSError) as exc:
        raise CompressedDataError(path, "zip", f"{exc} (a .pgt file is a zip archive)") from None
    if meta.get("compression") not in ("zstd", "none"):
        raise TraceFormatError(
            path, None, f"compression {meta.get('compression')!r}", "compression 'zstd' or 'none'"
        )
    for key in ("n_requests", "n_pages"):
        value = meta.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TraceFormatError(
                path, None, f"{key} {value!r}", "counts of accesses and pages in meta.json"
            )
    for name, dtype in meta["columns"].items():
        if name in native._DTYPES and dtype is not None and dtype != native._DTYPES[name]:
            raise TraceFormatError(path, None, f"{name} of dtype {dtype!r}", f"dtype {native._DTYPES[name]}")
    if meta["columns"].get("page") is None:
        raise TraceFormatError(path, None, "no page column", "a 'page' column in meta.json")
    return meta


def pgt_column_bytes(path: str | os.PathLike[str]) -> int:
    """Bytes the columns of the ``.pgt`` file at `path` take in memory (from its meta.json)."""
    meta = _meta(path)
    per_access = sum(np.dtype(d).itemsize for d in meta["columns"].values() if d is not None)
    return int(meta["n_requests"]) * per_access + 8 * int(meta["n_pages"])


class _Column:
    """One ``.npy`` member of an open archive, read `count` values at a time."""

    def __init__(
        self, zf: zipfile.ZipFile, path: Any, member: str, compressed: bool, dtype: np.dtype, n: int
    ):
        self.path, self.member, self.dtype = path, member, dtype
        self._raw = zf.open(member)
        self._fh: Any = ZstdStream(self._raw, closefd=False) if compressed else self._raw
        head = self._read(native._NPY_HEAD)
        _, start = native._npy_header(path, member, head, dtype, n)
        self._carry = head[start:]
        self.left = n

    def _read(self, n: int) -> bytes:
        try:
            return native._read_full(self._fh, n)
        except (zipfile.BadZipFile, zlib.error, *DECOMPRESSION_ERRORS) as exc:
            raise CompressedDataError(self.path, "zip", f"{exc} in member {self.member!r}") from None

    def read(self, count: int) -> np.ndarray:
        """The next `count` values (fewer at the end); after the last, the member must end."""
        count = min(count, self.left)
        need = count * self.dtype.itemsize
        data = self._carry[:need]
        self._carry = self._carry[need:]
        if len(data) < need:
            data += self._read(need - len(data))
        if len(data) < need:
            raise TraceFormatError(
                self.path, None, f"member {self.member!r} ends early", f"{need} more data bytes"
            )
        self.left -= count
        if self.left == 0 and (self._carry or self._read(1)):
            raise TraceFormatError(
                self.path, None, f"member {self.member!r}: more bytes", "no data after the array"
            )
        return np.frombuffer(data, dtype=self.dtype).copy()

    def close(self) -> None:
        self._raw.close()


class PgtStream(TraceStream):
    """A ``.pgt`` file, `chunk` accesses at a time (see `pagesim.trace.stream`).

    Raises
    ------
    FileNotFoundError, TraceFormatError
        As `pagesim.trace.readers.native.read`; the dense order of page ids, the op codes and
        the members' lengths and checksums are checked as the chunks are read.
    """

    def __init__(self, path: str | os.PathLike[str], chunk: int) -> None:
        meta = _meta(path)
        self.path = path
        self.chunk = chunk
        self._compressed = meta["compression"] == "zstd"
        self._columns = {k: v for k, v in meta["columns"].items() if v is not None}
        self.n_requests = int(meta["n_requests"])
        self.n_pages = int(meta["n_pages"])
        self.has_size = "size" in self._columns
        self.has_op = "op" in self._columns
        self.has_tag = "tag" in self._columns
        self.has_cgroup = "cgroup" in self._columns
        self.n_cgroups = 1
        if self.has_cgroup:
            for (cg,) in self._read_columns(("cgroup",)):
                if cg.size:
                    self.n_cgroups = max(self.n_cgroups, int(cg.max()) + 1)
        self.source = {**native._source(path, meta.get("source", {}), self._compressed), "streamed": True}

    def _read_columns(self, names: tuple[str, ...]) -> Iterator[list[np.ndarray]]:
        suffix = ".npy.zst" if self._compressed else ".npy"
        try:
            with ExitStack() as stack:
                zf = stack.enter_context(zipfile.ZipFile(self.path, "r"))
                members = set(zf.namelist())
                cols = []
                for name in names:
                    if name + suffix not in members:
                        raise TraceFormatError(
                            self.path, None, f"no member {name + suffix!r}", f"member {name + suffix!r}"
                        )
                    col = _Column(
                        zf,
                        self.path,
                        name + suffix,
                        self._compressed,
                        np.dtype(self._columns[name]),
                        self.n_requests,
                    )
                    stack.callback(col.close)
                    cols.append(col)
                for _ in range(0, self.n_requests, self.chunk):
                    yield [c.read(self.chunk) for c in cols]
        except (TraceFormatError, GeneratorExit):
            raise
        except native._CORRUPTION_ERRORS as exc:
            raise TraceFormatError(
                self.path, None, f"{type(exc).__name__}: {exc}", "an intact pagesim .pgt archive"
            ) from None

    def _chunks(self) -> Iterator[TraceChunk]:
        names = ("page", *[c for c in _READ if c in self._columns])
        next_new = np.zeros(1, dtype=np.int64)
        start = 0
        for arrays in self._read_columns(names):
            cols = dict(zip(names, arrays))
            page = cols["page"]
            bad = int(_dense_violation(page, next_new))
            if bad >= 0:
                raise TraceFormatError(
                    self.path, None, f"page {int(page[bad])} at access {start + bad}",
                    "page ids dense in first-occurrence order",
                )  # fmt: skip
            op = cols.get("op")
            if op is not None and op.size and int(op.max()) > 2:
                i = int(np.argmax(op > 2))
                raise TraceFormatError(
                    self.path, None, f"op {int(op[i])} at access {start + i}", "op codes 0..2"
                )
            yield TraceChunk(start, page, cols.get("size"), cols.get("cgroup"), cols.get("tag"), op)
            start += page.shape[0]
        if int(next_new[0]) != self.n_pages:
            raise TraceFormatError(
                self.path, None, f"{int(next_new[0])} distinct pages", f"{self.n_pages} (as meta.json says)"
            )
