"""``AsyncConnection`` and ``connect``: a ``fastodbc.Connection`` whose driver calls run on a
thread of its own, awaited. Derived from the sync connection by tables, as ``AsyncCursor``."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

from .. import errors
from ..connection import Connection
from .cursor import AsyncCursor
from .worker import ConnectionThread, Worker

__all__ = ["AsyncConnection", "connect"]

# Coroutines returning the sync method's result.
_AWAITED = ("commit", "rollback", "getinfo", "set_attr")
# No driver call: forwarded to the sync connection as they are.
_FORWARDED = (
    "closed",
    "timeout",
    "read_ahead",
    "fetch_buffer_bytes",
    "memory_budget",
    "maxwrite",
    "setdecoding",
    "getdecoding",
    "setencoding",
    "add_output_converter",
    "remove_output_converter",
    "get_output_converter",
    "clear_output_converters",
)
# Written by hand below.
_OWN = ("cursor", "execute", "close", "autocommit", "searchescape")


class AsyncConnection(errors.WithErrorClasses):
    """An open connection for asyncio (``await fastodbc.aio.connect(...)``). Its calls run on
    a thread of its own, one at a time; the event loop never waits on the driver.
    ``async with cnxn:`` commits on success and rolls back on error, as the sync connection.
    """

    def __init__(self, connection: Connection, thread: ConnectionThread | None = None) -> None:
        """Wraps an open connection; make it with ``connect`` (or a pool), which also reads
        what the properties below need from the driver on the connection's thread."""
        self._sync = connection
        thread = thread or ConnectionThread()
        self._worker = Worker(thread, connection.close)
        # The last result was read as rows, not Arrow: the next execute reads its first rows
        # with it (aio/cursor.py, HELD_ROWS).
        self._reads_rows = True
        # Closed (or dropped without close()): the connection is closed on its own thread,
        # never where this object is dropped (the event loop, beside a call running there);
        # then the thread ends.
        self._release = weakref.finalize(self, _close_on, thread, connection)

    @property
    def sync_connection(self) -> Connection:
        """The ``fastodbc.Connection`` underneath (use it only from the connection's thread,
        e.g. inside ``run_sync``)."""
        return self._sync

    @property
    def broken(self) -> bool:
        """The connection cannot be used again: a cancelled call did not stop within
        ``cancel_timeout`` (the connection was closed), or its link to the server was lost or
        given up past a timeout (every call raises ``OperationalError`` at once)."""
        return self._worker.broken or self._sync._broken

    @property
    def cancel_timeout(self) -> float:
        """Seconds a cancelled statement may take to stop after SQLCancel (default 5) before the
        connection is closed and marked ``broken``."""
        return self._worker.cancel_timeout

    @cancel_timeout.setter
    def cancel_timeout(self, value: float) -> None:
        self._worker.cancel_timeout = float(value)

    @property
    def autocommit(self) -> bool:
        return self._sync.autocommit

    @autocommit.setter
    def autocommit(self, value: bool) -> None:
        raise AttributeError("an AsyncConnection's autocommit is set with 'await cnxn.set_autocommit(value)'")

    async def set_autocommit(self, value: bool) -> None:
        """Turns autocommit on or off (a driver call)."""
        await self._worker.run(setattr, self._sync, "autocommit", value)

    @property
    def searchescape(self) -> str:
        """The driver's escape character for catalog search patterns, read at connect."""
        return self._sync.searchescape

    def cursor(self) -> AsyncCursor:
        """A new cursor (its statement is allocated at its first call)."""
        self._worker.check_usable()
        return AsyncCursor(self, self._sync.cursor())

    async def execute(self, sql: str, *params: Any) -> AsyncCursor:
        """A new cursor, after ``await cursor.execute(sql, *params)``."""
        return await self.cursor().execute(sql, *params)

    async def run_sync(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` on the connection's thread, in turn with its other calls
        (for code written for the sync connection: ``fn`` gets ``sync_connection``'s objects)."""
        return await self._worker.run(fn, *args, **kwargs)

    async def close(self) -> None:
        """Closes the connection (and so its cursors) and ends its thread."""
        try:
            if not self._worker.broken:  # else it is being closed already
                await self._worker.run(self._sync.close)
        finally:
            self._release()  # the close on its thread again if the one above was cancelled

    def _call_blocking(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the connection's thread, this thread waiting (a pool's background
        thread, for a connection no task holds)."""
        self._worker.check_usable()
        return self._worker.thread.submit(fn, *args).result()

    def _close_blocking(self) -> None:
        """Closes it from another thread (a pool's background thread), on its own thread."""
        try:
            if not self._worker.broken:  # else it is being closed already
                self._call_blocking(self._sync.close)
        finally:
            self._release()

    async def __aenter__(self) -> AsyncConnection:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if self._sync.closed or self._sync.autocommit or self._worker.broken:
            return
        if exc_type is None:
            await self.commit()  # type: ignore[attr-defined]
        else:
            await self.rollback()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"<AsyncConnection {'closed' if self._sync.closed else 'open'}>"


def _awaited(name: str) -> Callable[..., Any]:
    async def method(self: AsyncConnection, *args: Any, **kwargs: Any) -> Any:
        return await self._worker.run(getattr(self._sync, name), *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``await``-able ``fastodbc.Connection.{name}``, run on the connection's thread."
    return method


def _forwarded(name: str) -> Any:
    attr = getattr(Connection, name)
    if callable(attr) and not isinstance(attr, property) and not hasattr(attr, "__set__"):
        return lambda self, *args, **kwargs: getattr(self._sync, name)(*args, **kwargs)

    def get(self: AsyncConnection) -> Any:
        return getattr(self._sync, name)

    def set_(self: AsyncConnection, value: Any) -> None:
        setattr(self._sync, name, value)

    return property(get, set_, doc=f"``fastodbc.Connection.{name}``.")


for _name in _AWAITED:
    setattr(AsyncConnection, _name, _awaited(_name))
for _name in _FORWARDED:
    setattr(AsyncConnection, _name, _forwarded(_name))

TABLES = {"awaited": _AWAITED, "forwarded": _FORWARDED, "own": _OWN}


async def connect(connstring: str | None = None, /, **kwargs: Any) -> AsyncConnection:
    """``fastodbc.connect(connstring, **kwargs)`` on the new connection's own thread. Cancelled
    while connecting, the connection is closed as soon as the driver has made it."""
    from .. import connect as sync_connect

    thread = ConnectionThread()
    job = thread.submit(_connect_described, sync_connect, connstring, **kwargs)
    try:
        connection = await asyncio.shield(asyncio.wrap_future(job))
    except asyncio.CancelledError:
        if not job.cancel():
            thread.submit(_close_made, job)  # after the connect, on the same thread
        thread.stop()
        raise
    except BaseException:
        thread.stop()
        raise
    return AsyncConnection(connection, thread)


def _close_on(thread: ConnectionThread, connection: Connection) -> None:
    thread.release(connection.close)
    thread.stop()


def _connect_described(connect: Callable[..., Connection], *args: Any, **kwargs: Any) -> Connection:
    """Connects, then reads on this thread what the async properties serve from cache."""
    connection = connect(*args, **kwargs)
    describe(connection)
    return connection


def describe(connection: Connection) -> None:
    """What ``AsyncConnection`` reads without a driver call later: ``searchescape`` (one
    SQLGetInfo, cached by the sync connection)."""
    try:
        connection.searchescape  # noqa: B018 - read to cache it
    except Exception:
        connection.close()
        raise


def _close_made(job: Any) -> None:
    if job.done() and not job.cancelled() and job.exception() is None:
        job.result().close()
