"""Errors raised by trace readers."""

from __future__ import annotations

import os

__all__ = ["CompressedDataError", "TraceFormatError"]

_MAX_FOUND = 80


class TraceFormatError(ValueError):
    """A trace file does not hold what its format promises.

    The message reads like a compiler diagnostic, ``<path>:<line>: expected <what>, found '<text>'``
    for text formats and ``<path>: byte <offset>: expected <what>, found <text>`` for binary ones,
    so that editors and terminals can jump to the offending place.

    Parameters
    ----------
    path : str or os.PathLike
        The trace file, as the caller named it.
    line_no : int or None
        1-based line number of the malformed line; None for binary formats.
    found_text : str
        What was found there (the offending line, stripped, shortened to 80 characters).
    expected : str
        What the format expects there, as a noun phrase ("an integer page id").
    offset : int or None, optional
        Byte offset (0-based, in the decompressed stream) for binary formats.

    Attributes
    ----------
    path, line_no, found_text, expected, offset
        The constructor's arguments, for programs that handle the error.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        line_no: int | None,
        found_text: str,
        expected: str,
        *,
        offset: int | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.line_no = line_no
        self.found_text = found_text
        self.expected = expected
        self.offset = offset
        found = found_text if len(found_text) <= _MAX_FOUND else found_text[: _MAX_FOUND - 3] + "..."
        if line_no is not None:
            where = f"{self.path}:{line_no}"
            found_repr = repr(found)
        elif offset is not None:
            where = f"{self.path}: byte {offset}"
            found_repr = found
        else:
            where = self.path
            found_repr = found
        super().__init__(f"{where}: expected {expected}, found {found_repr}")

    def __reduce__(self):  # keep the error picklable across process pools
        return (_rebuild, (self.path, self.line_no, self.found_text, self.expected, self.offset))


def _rebuild(path, line_no, found_text, expected, offset):  # pragma: no cover - pickling helper
    return TraceFormatError(path, line_no, found_text, expected, offset=offset)


class CompressedDataError(TraceFormatError):
    """A compressed trace (or a compressed member of one) is truncated or corrupt.

    The message reads ``<path>: truncated or corrupt <compression> data at compressed byte <n>:
    <detail> (after <m> decompressed bytes)``; "near" replaces "at" when the decompressor only
    tells which block of input it failed on.

    Parameters
    ----------
    path : str or os.PathLike
        The trace file.
    compression : str
        ``"gzip"``, ``"xz"``, ``"zstd"``, ``"bz2"`` or ``"zip"``.
    detail : str
        What the decompressor reported ("file ends inside a zstd frame").
    compressed_offset : int or None, optional
        Byte offset in the file where the problem was found, when known.
    offset : int or None, optional
        Decompressed bytes read successfully before it.
    exact : bool, optional
        Whether `compressed_offset` is exact (True) or the start of the input block that failed.

    Attributes
    ----------
    compression, detail, compressed_offset
        As given; `offset`, `path`, `expected`, `found_text` as in `TraceFormatError`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        compression: str,
        detail: str,
        *,
        compressed_offset: int | None = None,
        offset: int | None = None,
        exact: bool = True,
    ) -> None:
        self.path = os.fspath(path)
        self.line_no = None
        self.compression = compression
        self.detail = " ".join(str(detail).split())  # one line whatever the decompressor said
        self.compressed_offset = compressed_offset
        self.offset = offset
        self.exact = exact
        self.expected = f"complete {compression} data"
        self.found_text = f"truncated or corrupt {compression} data"
        msg = f"{self.path}: {self.found_text}"
        if compressed_offset is not None:
            msg += f" {'at' if exact else 'near'} compressed byte {compressed_offset}"
        msg += f": {self.detail}"
        if offset is not None:
            msg += f" (after {offset} decompressed bytes)"
        ValueError.__init__(self, msg)

    def __reduce__(self):  # keep the error picklable across process pools
        return (
            _rebuild_compressed,
            (self.path, self.compression, self.detail, self.compressed_offset, self.offset, self.exact),
        )


def _rebuild_compressed(path, compression, detail, compressed_offset, offset, exact):  # pragma: no cover
    return CompressedDataError(
        path, compression, detail, compressed_offset=compressed_offset, offset=offset, exact=exact
    )
