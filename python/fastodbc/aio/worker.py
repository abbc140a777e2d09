"""``Worker``: the thread an ``AsyncConnection``'s calls run on, and what happens when the task
awaiting one is cancelled.

ODBC drivers block (SQLite, psqlODBC and MariaDB Connector/ODBC have no asynchronous mode), so
each connection gets a thread of its own and the event loop only ever awaits a future. Calls
run one at a time, in order: an ``asyncio.Lock`` makes a second task wait its turn instead of
entering the driver beside the first.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import OperationalError

__all__ = ["ConnectionThread", "Worker"]

log = logging.getLogger("fastodbc.aio")

T = TypeVar("T")

_Job = tuple["concurrent.futures.Future[Any]", Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class ConnectionThread:
    """A daemon thread running submitted calls in order (a driver call that never returns
    must not keep the interpreter from exiting)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="fastodbc-aio", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._jobs.put((future, fn, args, kwargs))
        return future

    def stop(self) -> None:
        """The thread ends after the calls already submitted."""
        self._jobs.put(None)

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, fn, args, kwargs = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as e:
                future.set_exception(e)
            else:
                future.set_result(result)
            # Nothing of the call outlives it here: its arguments (a cursor, its connection)
            # would stay alive until the next call, and an abandoned connection forever.
            del job, future, fn, args, kwargs
            result = None


class Worker:
    """Runs one connection's calls on its ``ConnectionThread``, one task at a time."""

    def __init__(self, thread: ConnectionThread, close: Callable[[], None]) -> None:
        self.thread = thread
        self._close = close
        self._lock = asyncio.Lock()
        self.broken = False
        # Seconds a cancelled call may take to stop after SQLCancel before the connection is
        # closed and marked broken.
        self.cancel_timeout = 5.0

    async def run(self, fn: Callable[..., T], *args: Any, cancel: Callable[[], None] | None = None, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the connection's thread. If the awaiting task is
        cancelled meanwhile: ``cancel()`` (SQLCancel) from another thread, up to
        ``cancel_timeout`` seconds for the call to end, then ``CancelledError``."""
        async with self._lock:
            if self.broken:
                raise OperationalError(
                    "08003", "the connection was closed: a cancelled call did not stop within cancel_timeout"
                )
            job = self.thread.submit(fn, *args, **kwargs)
            waited = asyncio.wrap_future(job)
            try:
                return await asyncio.shield(waited)
            except asyncio.CancelledError:
                if not job.cancel():  # it started: stop it before the next call may run
                    await self._stop(waited, cancel)
                raise

    async def _stop(self, running: asyncio.Future[Any], cancel: Callable[[], None] | None) -> None:
        loop = asyncio.get_running_loop()
        if cancel is not None:
            try:
                await loop.run_in_executor(None, cancel)
            except Exception as e:
                log.info("SQLCancel failed: %s", e)
        await asyncio.wait({running}, timeout=self.cancel_timeout)
        if running.done():
            if not running.cancelled():
                running.exception()  # retrieved: the caller sees CancelledError instead
            return
        log.warning("a cancelled call did not stop within %.1f s: closing its connection", self.cancel_timeout)
        self.broken = True
        running.add_done_callback(lambda f: f.cancelled() or f.exception())
        threading.Thread(target=self._close_quietly, name="fastodbc-aio-close", daemon=True).start()

    def _close_quietly(self) -> None:
        try:
            self._close()
        except Exception as e:
            log.info("closing a broken connection failed: %s", e)
