"""Traces: the columnar `Trace`, its readers and writers, and dense remapping.

>>> from pagesim.trace import read_trace
>>> t = read_trace("sprite.trace.gz")            # doctest: +SKIP
>>> t.n_requests, t.n_pages                      # doctest: +SKIP
(133996, 7075)
"""

from .advice import FADVISE_HINTS, FileAdvice, hint_code
from .errors import TraceFormatError
from .io import FORMATS, WRITE_FORMATS, detect_format, read_trace, write_trace
from .remap import remap
from .trace import KIND_ANON, KIND_FILE, NEVER, OP_FREE, OP_READ, OP_WRITE, Trace

__all__ = [
    "FADVISE_HINTS",
    "FORMATS",
    "FileAdvice",
    "KIND_ANON",
    "KIND_FILE",
    "NEVER",
    "OP_FREE",
    "OP_READ",
    "OP_WRITE",
    "WRITE_FORMATS",
    "Trace",
    "TraceFormatError",
    "detect_format",
    "hint_code",
    "read_trace",
    "remap",
    "write_trace",
]
