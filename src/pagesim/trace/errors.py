"""Errors raised by trace readers."""

from __future__ import annotations

import os

__all__ = ["TraceFormatError"]

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
