"""Real programs and the real kernel: record a command's file accesses, check the model.

* :func:`record` (``pagesim record``): run a command under ``strace -f`` and make a trace of
  the file pages it read and wrote (:mod:`pagesim.record.strace`).
* :func:`kernel_check` (``pagesim kernel-check``): replay a trace as page reads inside a memory
  cgroup of this machine and put the kernel's counters beside ``linux-lru``'s model
  (:mod:`pagesim.record.check`); :func:`make_pattern` builds its built-in patterns.
"""

from pagesim.record.cgroup import CheckUnavailable, find_memory_controller
from pagesim.record.check import CheckResult, Metric, kernel_check
from pagesim.record.patterns import PATTERNS, make_pattern
from pagesim.record.strace import RecordError, RecordResult, parse_strace, record

__all__ = [
    "PATTERNS",
    "CheckResult",
    "CheckUnavailable",
    "Metric",
    "RecordError",
    "RecordResult",
    "find_memory_controller",
    "kernel_check",
    "make_pattern",
    "parse_strace",
    "record",
]
