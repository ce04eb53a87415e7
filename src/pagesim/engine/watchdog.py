"""Stop a run whose policy stops making progress (``--policy-timeout``).

The loop runs in a worker thread while the calling thread watches the access index the loop
writes into the event array (``a[A_TIME]``) for every access. When it has not moved for
``timeout`` seconds, a hook is stuck: :func:`call_watched` raises :class:`PolicyTimeout`.

What can be stopped, honestly:

* an interpreted hook (plain Python) is stopped: the worker thread receives the exception
  asynchronously (CPython's ``PyThreadState_SetAsyncExc``) at its next bytecode;
* a compiled hook cannot be interrupted from Python (numba's machine code never checks for
  signals or exceptions). The run is abandoned: the caller gets its error at once and goes on
  with other runs, while the worker thread keeps spinning on one core, on arrays nobody reads,
  until the process exits (the thread is a daemon: exiting does not wait for it).

The watched call also makes Ctrl-C work during a compiled run: the calling thread waits in
short ``join`` calls, which Python interrupts.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable

#: Seconds between two looks at the access index.
POLL_SECONDS = 0.1


class PolicyTimeout(RuntimeError):
    """A hook did not return within the timeout (no access completed for ``timeout`` s)."""


def _interrupt(thread: threading.Thread) -> None:
    """Raise :class:`PolicyTimeout` in ``thread`` at its next Python bytecode (if it runs any)."""
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(thread.ident), ctypes.py_object(PolicyTimeout)
        )


def call_watched(call: Callable[[], None], progress: Callable[[], int], timeout: float) -> float:
    """Run ``call()`` in a daemon thread; raise :class:`PolicyTimeout` if ``progress()`` stays
    the same for ``timeout`` seconds while it runs.

    Parameters
    ----------
    call : callable
        The loop over one chunk of accesses.
    progress : callable returning int
        Read from the calling thread: the index of the access being processed.
    timeout : float
        Seconds without progress before the call is given up (> 0).

    Returns
    -------
    float
        CPU seconds the worker thread spent in ``call``.

    Raises
    ------
    PolicyTimeout
        On a timeout (the message says whether the worker could be stopped).
    Exception
        Whatever ``call`` raised, re-raised in the calling thread.
    """
    box: dict[str, object] = {}

    def work() -> None:
        c0 = time.thread_time()
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 -- handed to the calling thread
            box["error"] = exc
        finally:
            box["cpu"] = time.thread_time() - c0

    worker = threading.Thread(target=work, name="pagesim-policy", daemon=True)
    worker.start()
    last = progress()
    since = time.monotonic()
    while True:
        worker.join(POLL_SECONDS)
        if not worker.is_alive():
            break
        now = progress()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= timeout:
            _interrupt(worker)
            worker.join(POLL_SECONDS * 5)
            fate = (
                "it was stopped"
                if not worker.is_alive()
                else "compiled code cannot be interrupted: its thread is left running on one core "
                "until the process exits"
            )
            raise PolicyTimeout(f"no access completed for {timeout:g} s (--policy-timeout); {fate}")
    error = box.get("error")
    if isinstance(error, BaseException):
        raise error
    return float(box.get("cpu", 0.0))  # type: ignore[arg-type]
