"""Ctrl-C during a command's work: the statement is cancelled, not waited for.

Python delivers KeyboardInterrupt to the main thread only, between bytecodes: a main thread
blocked in the driver (a long execute, the GIL released) or in pyarrow (a CSV reader waiting for
stdin) would see it only once that call returns. So all of the work, from connecting on, runs
on a worker thread; the main thread waits for it (and refreshes the progress display), and at
Ctrl-C calls ``cursor.cancel()``, which sends SQLCancel to an
execution in progress, or stops the result being read at its next block (see
crates/fastodbc-py/src/cancel.rs). The worker also checks between batches (``check``), which
stops work that is in pyarrow or in the input rather than in the driver.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import Error

T = TypeVar("T")

#: How long the main thread waits, after cancelling, for the worker to stop. A worker blocked
#: where no cancel reaches (reading a stdin that stays open) is then left behind: the process
#: exits and the server rolls back the connection's open transaction.
GRACE_S = 3.0

#: How often the waiting main thread wakes (progress refresh; a join with a timeout also keeps
#: the wait interruptible).
TICK_S = 0.1


class Interrupted(Exception):
    """Ctrl-C stopped the work; ``finished``: the worker thread has ended (else it is stuck)."""

    def __init__(self, finished: bool = True):
        super().__init__("interrupted")
        self.finished = finished


class Cancellable:
    """Runs work on a worker thread, cancelling its cursor (``attach``) at Ctrl-C."""

    def __init__(self) -> None:
        self.cursor: Any = None
        #: The worker did not stop within GRACE_S of the cancel: its connection is not closed
        #: under it (the process exits instead).
        self.stuck = False
        self._stop = threading.Event()
        self._attached = threading.Event()

    def attach(self, cursor: Any) -> None:
        """For the worker: the cursor Ctrl-C cancels from now on (Interrupted if it came
        already)."""
        self.cursor = cursor
        self._attached.set()
        self.check()

    def check(self) -> None:
        """For the worker, between batches: raises Interrupted once Ctrl-C was pressed."""
        if self._stop.is_set():
            raise Interrupted()

    def run(
        self,
        work: Callable[[], T],
        tick: Callable[[], None] = lambda: None,
        meanwhile: Callable[[], None] = lambda: None,
    ) -> T:
        """``work()``'s result, or its error; Interrupted at Ctrl-C, unless the work completed
        anyway (an import committed is reported as such). ``tick`` runs on the main thread
        about every TICK_S while it waits; ``meanwhile`` once the work has connected and
        attached its cursor, not before (what the work will need later, prepared while it
        executes with the GIL released; started sooner, an import holding the GIL made the
        worker wait between the calls of its connect, and a failed connect paid for it)."""
        outcome: dict[str, Any] = {}
        # The work's end, told by the work itself. Not Thread.join / is_alive: Python 3.11's
        # join interrupted by Ctrl-C can mark a running thread as stopped (CPython gh-90882),
        # and the command then ended without waiting for the load's rollback.
        done = threading.Event()

        def target() -> None:
            try:
                outcome["value"] = work()
            except BaseException as e:  # noqa: BLE001 - handed to the main thread
                outcome["error"] = e
            finally:
                done.set()

        with _CtrlC() as presses:
            worker = threading.Thread(target=target, name="fastodbc-cli-work", daemon=True)
            worker.start()
            while not done.is_set() and not presses.count and not self._attached.wait(TICK_S):
                tick()
            if self._attached.is_set() and not presses.count:
                meanwhile()
            while not presses.count and not done.wait(TICK_S):
                tick()
            if presses.count:
                self._stop.set()
                self._cancel()
                # A second Ctrl-C stops the wait for the worker.
                deadline = time.monotonic() + GRACE_S
                while presses.count < 2 and (left := deadline - time.monotonic()) > 0:
                    if done.wait(min(TICK_S, left)):
                        break
                if "value" in outcome:
                    return outcome["value"]
                self.stuck = not done.is_set()
                raise Interrupted(finished=not self.stuck)
        tick()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    def _cancel(self) -> None:
        if self.cursor is None:
            return  # still connecting: nothing to cancel, the worker stops at attach
        try:
            self.cursor.cancel()
        except Error:
            pass  # e.g. the cursor was closed as the work ended


class _CtrlC:
    """Counts Ctrl-C (SIGINT) while the main thread waits, instead of raising KeyboardInterrupt
    there. An exception raised asynchronously in ``Event.wait`` can land between the wait and
    its Condition's re-acquire of its lock; leaving the ``with`` then releases a lock it does not
    hold, and the command failed with "release unlocked lock" (exit 1) instead of rolling back
    (exit 130). The handler only counts: it runs on the main thread between bytecodes, possibly
    inside that Condition, so it must take no lock. Outside the main thread (no signals arrive
    there) nothing is installed."""

    def __init__(self) -> None:
        self.count = 0
        self._previous: Any = None
        self._installed = False

    def _pressed(self, signum: int, frame: Any) -> None:
        self.count += 1

    def __enter__(self) -> _CtrlC:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._pressed)
            self._installed = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            # None: a handler not set from Python; Python's own is the closest stand-in.
            signal.signal(signal.SIGINT, self._previous if self._previous is not None else signal.default_int_handler)
