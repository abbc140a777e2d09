"""``Worker``: the thread an ``AsyncConnection``'s calls run on, and what happens when the task
awaiting one is cancelled.

ODBC drivers block (SQLite, psqlODBC and MariaDB Connector/ODBC have no asynchronous mode), so
each connection gets a thread of its own and the event loop only ever awaits a future. Calls
run one at a time, in order: an ``asyncio.Lock`` makes a second task wait its turn instead of
entering the driver beside the first.

A call is a ``LoopCall``: the thread runs it and hands the outcome to the loop with one
``call_soon_threadsafe``. That is the whole cost of a hop (about half of what
``run_in_executor`` / ``wrap_future`` cost: no concurrent future, no chained callbacks, no
shield), paid on every awaited call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ..errors import OperationalError

__all__ = ["ConnectionThread", "LoopCall", "Worker"]

log = logging.getLogger("fastodbc.aio")

T = TypeVar("T")

_QUEUED, _RUNNING, _DONE, _DROPPED = range(4)


class _Job(Protocol):
    def run(self) -> None: ...


class LoopCall:
    """``fn(*args, **kwargs)`` for a task on ``loop``: ``future`` gets its outcome."""

    __slots__ = ("args", "ended", "fn", "future", "kwargs", "loop", "state", "state_lock")

    def __init__(
        self, loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        self.loop = loop
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.future: asyncio.Future[Any] = loop.create_future()
        # Resolved when the call has ended, for a task that was cancelled while it ran.
        self.ended: asyncio.Future[None] | None = None
        self.state = _QUEUED
        self.state_lock = threading.Lock()

    def run(self) -> None:
        """On the connection's thread."""
        with self.state_lock:
            if self.state == _DROPPED:
                return
            self.state = _RUNNING
        result: Any = None
        error: BaseException | None = None
        try:
            result = self.fn(*self.args, **self.kwargs)
        except BaseException as e:
            error = e
        self.fn = self.args = self.kwargs = None  # type: ignore[assignment]
        try:
            self.loop.call_soon_threadsafe(self._finish, result, error)
        except RuntimeError:  # the loop is closed: nobody waits for this any more
            pass

    def _finish(self, result: Any, error: BaseException | None) -> None:
        """On the loop."""
        self.state = _DONE
        if not self.future.done():
            if error is None:
                self.future.set_result(result)
            else:
                self.future.set_exception(error)
        if self.ended is not None and not self.ended.done():
            self.ended.set_result(None)

    def drop_if_queued(self) -> bool:
        """True if it had not started (and now never will)."""
        with self.state_lock:
            if self.state == _QUEUED:
                self.state = _DROPPED
                return True
            return False


class _FutureJob:
    """A call with a ``concurrent.futures.Future``, for code not on the loop (``connect``)."""

    __slots__ = ("args", "fn", "future", "kwargs")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def run(self) -> None:
        if not self.future.set_running_or_notify_cancel():
            return
        try:
            result = self.fn(*self.args, **self.kwargs)
        except BaseException as e:
            self.future.set_exception(e)
        else:
            self.future.set_result(result)
        finally:
            self.fn = self.args = self.kwargs = None  # type: ignore[assignment]


class _Release:
    """``close()`` of a native object (a cursor, an Arrow reader, the connection) its owner
    dropped: on the connection's thread, whichever thread dropped the owner."""

    __slots__ = ("close",)

    def __init__(self, close: Callable[[], Any]) -> None:
        self.close: Callable[[], Any] | None = close

    def run(self) -> None:
        close, self.close = self.close, None
        try:
            if close is not None:
                close()
        except Exception as e:
            log.info("releasing a dropped %s failed: %s", type(getattr(close, "__self__", close)).__name__, e)


class ConnectionThread:
    """A daemon thread running submitted calls in order (a driver call that never returns
    must not keep the interpreter from exiting). Once it has ended (``stop``), a call runs
    where it is submitted: the connection is closed by then, so the call meets a closed
    connection (ProgrammingError), or frees nothing of the driver's; it never waits forever
    for a thread that is gone."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._ended = False
        self._ending = threading.Lock()
        self._thread = threading.Thread(target=self._serve, name="fastodbc-aio", daemon=True)
        self._thread.start()

    def put(self, job: _Job) -> None:
        with self._ending:
            if not self._ended:
                self._jobs.put(job)
                return
        job.run()

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> concurrent.futures.Future[T]:
        job = _FutureJob(fn, args, kwargs)
        self.put(job)
        return job.future

    def stop(self) -> None:
        """The thread ends after the calls already submitted."""
        self._jobs.put(None)

    def release(self, close: Callable[[], Any]) -> None:
        """``close()`` on this thread, in turn with the calls submitted, nobody waiting for
        it: what a finalizer does with the native object of something dropped (a driver call
        made where it was dropped would free a statement beside a call running here). The
        thread holds the last reference, so the object is freed here too. (Once the thread
        has ended, the connection was closed on it, and with it its cursors' statements: the
        object holds nothing of the driver's, and is closed where it was dropped.)"""
        self._jobs.put(_Release(close))

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                break
            job.run()
            # Nothing of the call outlives it here: its arguments (a cursor, its connection)
            # would stay alive until the next call, and an abandoned connection forever.
            del job
        # Calls submitted after stop() still run, here, in order; later ones where submitted.
        with self._ending:
            self._ended = True
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                return
            if job is not None:
                job.run()
            del job


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

    def check_usable(self) -> None:
        """``OperationalError`` once the connection is broken (whatever its close has done yet)."""
        if self.broken:
            raise OperationalError(
                "08003", "the connection was closed: a cancelled call did not stop within cancel_timeout"
            )

    async def run(self, fn: Callable[..., T], *args: Any, cancel: Callable[[], None] | None = None, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the connection's thread. If the awaiting task is
        cancelled meanwhile: ``cancel()`` (SQLCancel) from another thread, up to
        ``cancel_timeout`` seconds for the call to end, then ``CancelledError``."""
        async with self._lock:
            self.check_usable()
            call = LoopCall(asyncio.get_running_loop(), fn, args, kwargs)
            self.thread.put(call)
            try:
                return await call.future
            except asyncio.CancelledError:
                if call.state != _DONE and not call.drop_if_queued():
                    await self._stop(call, cancel)  # it runs: stop it before the next call may
                raise

    async def _stop(self, call: LoopCall, cancel: Callable[[], None] | None) -> None:
        loop = call.loop
        call.ended = loop.create_future()
        if cancel is not None:
            try:
                await loop.run_in_executor(None, cancel)
            except Exception as e:
                log.info("SQLCancel failed: %s", e)
        await asyncio.wait({call.ended}, timeout=self.cancel_timeout)
        if call.state == _DONE:
            return
        log.warning("a cancelled call did not stop within %.1f s: closing its connection", self.cancel_timeout)
        self.broken = True
        threading.Thread(target=self._close_quietly, name="fastodbc-aio-close", daemon=True).start()

    def _close_quietly(self) -> None:
        try:
            self._close()
        except Exception as e:
            log.info("closing a broken connection failed: %s", e)
