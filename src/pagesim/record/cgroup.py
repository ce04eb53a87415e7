"""Memory cgroups on the running machine: find the controller, create a limited group, remove it.

Works with cgroup v2 (a ``cgroup2`` mount whose ``cgroup.controllers`` lists ``memory``; the
limit is ``memory.max``) and with the v1 memory controller (a ``cgroup`` mount with the ``memory``
option; the limit is ``memory.limit_in_bytes``). Groups are created directly under the mount's
root and named ``pagesim-check-<pid>-<n>``, so that a group left behind by a process that was
killed with SIGKILL can be recognised and removed by the next check (:func:`remove_stale`).
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import signal
import time
from dataclasses import dataclass

__all__ = [
    "Cgroup",
    "CheckUnavailable",
    "MemoryController",
    "find_memory_controller",
    "parse_stat",
    "remove_stale",
]

#: Prefix of the cgroups (and temporary directories) a check creates.
PREFIX = "pagesim-check-"

_counter = itertools.count()


class CheckUnavailable(RuntimeError):
    """This machine cannot run a kernel check (not root, no memory controller, tmpfs only...).

    The message says why, in one line.
    """


@dataclass(frozen=True)
class MemoryController:
    """Where the memory controller is mounted.

    Attributes
    ----------
    root : str
        The mount point (``/sys/fs/cgroup`` or ``/sys/fs/cgroup/memory``).
    version : int
        1 or 2.
    """

    root: str
    version: int

    @property
    def limit_file(self) -> str:
        """The file holding a group's limit: ``memory.max`` (v2) or ``memory.limit_in_bytes`` (v1)."""
        return "memory.max" if self.version == 2 else "memory.limit_in_bytes"


def _mounts(path: str = "/proc/self/mounts") -> list[tuple[str, str, list[str]]]:
    out = []
    try:
        with open(path) as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 4:
                    mount_point = parts[1].replace("\\040", " ")
                    out.append((mount_point, parts[2], parts[3].split(",")))
    except OSError:
        pass
    return out


def find_memory_controller() -> MemoryController:
    """The memory controller of this machine, v2 preferred.

    Returns
    -------
    MemoryController

    Raises
    ------
    CheckUnavailable
        If the process is not root, or no mounted hierarchy has the memory controller.
    """
    if os.geteuid() != 0:
        raise CheckUnavailable(
            "kernel-check needs root (it creates a memory cgroup and moves a process into it); "
            f"running as uid {os.geteuid()}"
        )
    mounts = _mounts()
    for mount_point, fstype, _ in mounts:
        if fstype != "cgroup2":
            continue
        try:
            with open(os.path.join(mount_point, "cgroup.controllers")) as fh:
                if "memory" in fh.read().split():
                    return MemoryController(mount_point, 2)
        except OSError:
            continue
    for mount_point, fstype, options in mounts:
        if fstype == "cgroup" and "memory" in options:
            if os.path.exists(os.path.join(mount_point, "memory.limit_in_bytes")):
                return MemoryController(mount_point, 1)
    raise CheckUnavailable(
        "no memory cgroup controller is mounted (neither a cgroup2 mount listing 'memory' in "
        "cgroup.controllers nor a cgroup v1 'memory' hierarchy in /proc/self/mounts)"
    )


def parse_stat(text: str) -> dict[str, int]:
    """``memory.stat`` text -> ``{name: value}`` (bytes or counts, as the kernel writes them)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and re.fullmatch(r"-?[0-9]+", parts[1]):
            out[parts[0]] = int(parts[1])
    return out


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _procs(path: str) -> list[int]:
    try:
        with open(os.path.join(path, "cgroup.procs")) as fh:
            return [int(x) for x in fh.read().split()]
    except (OSError, ValueError):
        return []


def _rmdir(path: str, timeout: float = 5.0) -> None:
    """Remove a cgroup directory, killing what is left in it and retrying while it is busy."""
    deadline = time.monotonic() + timeout
    while True:
        for pid in _procs(path):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class Cgroup:
    """A memory cgroup with a limit, created on construction; :meth:`remove` deletes it.

    Parameters
    ----------
    controller : MemoryController
    limit_bytes : int
        The group's limit in bytes (``memory.max`` or ``memory.limit_in_bytes``).

    Raises
    ------
    CheckUnavailable
        If the group cannot be created or limited (read-only cgroupfs, a v2 root that does not
        delegate the memory controller).
    """

    def __init__(self, controller: MemoryController, limit_bytes: int) -> None:
        self.controller = controller
        self.path = os.path.join(controller.root, f"{PREFIX}{os.getpid()}-{next(_counter)}")
        if controller.version == 2:
            self._delegate_memory()
        try:
            os.mkdir(self.path)
        except OSError as exc:
            raise CheckUnavailable(f"cannot create cgroup {self.path}: {exc.strerror}") from None
        try:
            with open(os.path.join(self.path, controller.limit_file), "w") as fh:
                fh.write(str(int(limit_bytes)))
            if controller.version == 1:
                self._write_optional("memory.swappiness", "0")
        except OSError as exc:
            self.remove()
            raise CheckUnavailable(
                f"cannot set {controller.limit_file} of {self.path}: {exc.strerror}"
            ) from None

    def _delegate_memory(self) -> None:
        control = os.path.join(self.controller.root, "cgroup.subtree_control")
        try:
            with open(control) as fh:
                if "memory" in fh.read().split():
                    return
            with open(control, "w") as fh:
                fh.write("+memory")
        except OSError as exc:
            raise CheckUnavailable(
                f"the memory controller is not enabled in {control} and cannot be: {exc.strerror}"
            ) from None

    def _write_optional(self, name: str, value: str) -> None:
        try:
            with open(os.path.join(self.path, name), "w") as fh:
                fh.write(value)
        except OSError:
            pass

    @property
    def procs_file(self) -> str:
        """``cgroup.procs`` of the group: a process writes its pid there to join."""
        return os.path.join(self.path, "cgroup.procs")

    @property
    def stat_file(self) -> str:
        """The group's ``memory.stat``."""
        return os.path.join(self.path, "memory.stat")

    def stat(self) -> dict[str, int]:
        """The group's ``memory.stat`` now, parsed."""
        with open(self.stat_file) as fh:
            return parse_stat(fh.read())

    def remove(self) -> None:
        """Kill any process left in the group and remove it (idempotent)."""
        _rmdir(self.path)


def remove_stale(controller: MemoryController) -> list[str]:
    """Remove the groups of earlier checks whose process is gone; returns their paths."""
    removed = []
    try:
        names = os.listdir(controller.root)
    except OSError:
        return removed
    for name in names:
        m = re.fullmatch(re.escape(PREFIX) + r"([0-9]+)-[0-9]+", name)
        if not m or _pid_alive(int(m.group(1))):
            continue
        path = os.path.join(controller.root, name)
        try:
            _rmdir(path)
            removed.append(path)
        except OSError:
            pass
    return removed
