"""``AsyncCursor``: a ``fastodbc.Cursor`` whose driver calls are awaited.

Derived from the sync cursor by tables: the methods that reach the driver become coroutines
that run the sync method on the connection's thread (``_AWAITED``, ``_AWAITED_SELF``); the
attributes that don't are forwarded (``_FORWARDED``). ``tests/aio`` checks that every public
member of ``fastodbc.Cursor`` is in exactly one table, so a new sync method can't be missed.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from ..cursor import Cursor
from ..errors import ProgrammingError

if TYPE_CHECKING:
    from .._native import Row
    from .connection import AsyncConnection

__all__ = ["AsyncCursor", "AsyncRecordBatchReader"]

# Rows fetched per call on the connection's thread by fetchall / fetchmany / async iteration:
# between two calls the event loop gets the GIL, so a long fetch never holds it for more than
# converting this many rows.
FETCH_SLICE = 1024

# Rows read with an execute, in the same call on the connection's thread, where the
# connection's last result was read as rows (not Arrow): a fetchone or a small fetchmany after
# the execute is then served on the loop, without a second thread hop (about half of an
# ``await`` execute + fetchone). At most the first block's rows: those not served go back to
# the sync cursor before its next call (``Cursor._unread_held``), so a result read as Arrow
# after all still gets every row.
HELD_ROWS = 64

# Coroutines returning the sync method's result.
_AWAITED = (
    "executemany",
    "nextset",
    "fetch_arrow_table",
    "fetch_df",
    "fetch_polars",
    "ingest",
    "ingest_parquet",
    "ingest_csv",
    "ingest_plan",
    "commit",
    "rollback",
)
# Coroutines returning the async cursor itself (the sync ones return the cursor, for chaining).
_AWAITED_SELF = (
    "execute",
    "tables",
    "columns",
    "primaryKeys",
    "foreignKeys",
    "statistics",
    "rowIdColumns",
    "rowVerColumns",
    "procedures",
    "procedureColumns",
    "getTypeInfo",
)
# The sync cursor's state is locked while a call runs on the connection's thread, and its
# attributes wait for that lock: so the event loop reads none of them. Settings live on the
# async cursor and reach the sync one on that thread, before its next call; what a call leaves
# (description, rowcount, messages) is read there as the call ends.
_SETTINGS = ("arraysize", "fast_executemany", "noscan")
_DEFERRED = ("setinputsizes", "setoutputsize")
_SNAPSHOT = ("description", "rowcount", "messages")
# Read on the sync cursor: no lock, no driver call.
_FORWARDED = ("closed",)
# Written by hand below: fetchmany / fetchall (sliced), close, cancel, fetch_record_batch,
# connection, iteration.
_OWN = ("fetchone", "fetchval", "skip", "fetchmany", "fetchall", "close", "cancel", "fetch_record_batch", "connection")
# What starts over: rows fetched ahead for iteration belong to the result these end.
_NEW_RESULT = frozenset(_AWAITED_SELF + ("executemany", "nextset"))
# What reads the rest of the result itself: refused while rows fetched ahead wait.
_READS_REST = frozenset(("fetch_arrow_table", "fetch_df", "fetch_polars"))


class AsyncCursor:
    """A cursor of an ``AsyncConnection``: ``await cur.execute(...)``, ``await
    cur.fetchall()``, ``async for row in cur``, ``async for batch in
    cur.fetch_record_batch()``. A cancelled task cancels its statement (SQLCancel). One
    dropped without ``close()`` (a cancelled task's) has its statement freed on the
    connection's thread, never where it is dropped."""

    fetch_slice = FETCH_SLICE

    def __init__(self, connection: AsyncConnection, cursor: Cursor) -> None:
        self._connection = connection
        self._sync = cursor
        self._rows: deque[Any] = deque()  # fetched for iteration, not served yet
        # ``_rows`` holds rows read with the execute (``HELD_ROWS``), which can go back to the
        # sync cursor; ``_unread``: such rows handed back at the next call; ``_pending``: the
        # error reading them met, raised by the next call that reads the result.
        self._held = False
        self._unread: list[Any] | None = None
        self._pending: BaseException | None = None
        # A new cursor: nothing runs on it yet, so its state is read here once.
        self._settings = {name: getattr(cursor, name) for name in _SETTINGS}
        self._changed: dict[str, Any] = {}
        self._deferred: list[tuple[str, tuple[Any, ...]]] = []
        self._snapshot: tuple[Any, int, list[tuple[str, str]]] = (None, -1, [])
        # Dropped without close(): the sync cursor is closed on the connection's thread, which
        # then holds its last reference. Freed where this is dropped (the loop, say), its
        # statement would be freed beside the call running on that thread: the driver reads
        # the rest of an unfinished result from the socket that call uses (MariaDB: a crash
        # or a hang), and the loop waits meanwhile.
        self._release = weakref.finalize(self, connection._worker.thread.release, cursor.close)

    @property
    def connection(self) -> AsyncConnection:
        return self._connection

    async def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        changed, self._changed = self._changed, {}
        deferred, self._deferred = self._deferred, []
        unread, self._unread = self._unread, None
        result, self._snapshot = await self._connection._worker.run(
            self._on_thread, changed, deferred, unread, fn, args, kwargs, cancel=self._sync.cancel
        )
        return result

    async def _read(self, fn: Callable[..., Any], *args: Any, _as_rows: bool = True, **kwargs: Any) -> Any:
        """A call reading the current result (as rows, or as Arrow): the error met reading
        rows with the execute is raised first; what it reads as is remembered for the next
        execute (``HELD_ROWS``)."""
        self._connection._reads_rows = _as_rows
        if self._pending is not None:
            error, self._pending = self._pending, None
            raise error
        return await self._call(fn, *args, **kwargs)

    def _hand_back(self) -> None:
        """Rows read with the execute, not served: back to the sync cursor at the next call."""
        if self._held and self._rows:
            self._unread = list(self._rows)
            self._rows.clear()

    def _on_thread(
        self,
        changed: dict[str, Any],
        deferred: list[tuple[str, tuple[Any, ...]]],
        unread: list[Any] | None,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> tuple[Any, tuple[Any, int, list[tuple[str, str]]]]:
        cursor = self._sync
        for name, value in changed.items():
            setattr(cursor, name, value)
        for name, call_args in deferred:
            getattr(cursor, name)(*call_args)
        try:
            if unread:
                cursor._unread_held(unread)
            return fn(*args, **kwargs), _snapshot_of(cursor)
        except BaseException:
            self._snapshot = _snapshot_of(cursor)
            raise

    def _execute_holding(
        self, execute: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[Any], BaseException | None]:
        """On the connection's thread: the execute, then up to ``HELD_ROWS`` rows of its
        result, and the error reading them met (raised by the read that gets to it, as the
        sync cursor raises it from its fetch, not from the execute)."""
        execute(*args, **kwargs)
        try:
            return self._sync._read_held(HELD_ROWS), None
        except Exception as e:
            return [], e

    async def fetchone(self) -> Row | None:
        """The next row, or None."""
        if self._rows:
            self._connection._reads_rows = True
            return self._rows.popleft()
        return await self._read(self._sync.fetchone)

    async def fetchval(self) -> Any:
        """The first column of the next row, or None (as ``Cursor.fetchval``)."""
        row = await self.fetchone()
        return None if row is None else row[0]

    async def skip(self, count: int) -> None:
        """Skips ``count`` rows."""
        served = len(self._take(count))
        if count > served:
            await self._read(self._sync.skip, count - served)

    async def fetchmany(self, size: int | None = None) -> list[Row]:
        """Up to ``size`` rows (``arraysize`` by default), fetched ``fetch_slice`` at a time."""
        want = self._settings["arraysize"] if size is None else size
        rows = self._take(want)
        while len(rows) < want:
            got = await self._fetch(min(want - len(rows), self.fetch_slice))
            rows.extend(got)
            if not got:
                break
        return rows

    async def fetchall(self) -> list[Row]:
        """The rest of the result, fetched ``fetch_slice`` rows per call on the connection's
        thread, so the event loop runs between slices. The cyclic garbage collector pauses
        meanwhile, as during the sync ``fetchall``: each full collection would walk every row
        kept so far (about 6 ms at a million rows) and stall the loop with it."""
        rows = self._take(len(self._rows))
        with _GC_PAUSE:
            while True:
                got = await self._fetch(self.fetch_slice)
                rows.extend(got)
                if len(got) < self.fetch_slice:
                    return rows

    async def _fetch(self, n: int) -> list[Any]:
        # Rows already fetched for iteration stay: fetchmany continues after them.
        return await self._read(self._sync.fetchmany, n)

    def _take(self, n: int) -> list[Any]:
        if n and self._rows:
            self._connection._reads_rows = True
        return [self._rows.popleft() for _ in range(min(n, len(self._rows)))]

    def __aiter__(self) -> AsyncCursor:
        return self

    async def __anext__(self) -> Row:
        if not self._rows:
            rows = await self._fetch(self.fetch_slice)
            if not rows:
                raise StopAsyncIteration
            self._rows.extend(rows)
            self._held = False
        return self._rows.popleft()

    async def close(self) -> None:
        """Closes the cursor (its statement freed on the connection's thread)."""
        self._forget_result()
        await self._connection._worker.run(self._sync.close)
        self._release.detach()

    async def cancel(self) -> None:
        """SQLCancel on the statement running (from a thread of its own: the connection's is
        busy running it)."""
        import asyncio

        await asyncio.get_running_loop().run_in_executor(None, self._sync.cancel)

    def fetch_record_batch(
        self, batch_rows: int | None = None, batch_bytes: int | None = None
    ) -> AsyncRecordBatchReader:
        """The rest of the result as record batches: ``async for batch in
        cur.fetch_record_batch():`` (each batch built on the connection's thread)."""
        self._hand_back()
        if self._rows:
            raise ProgrammingError("HY010", "fetch_record_batch: rows fetched ahead for iteration are not served yet")
        return AsyncRecordBatchReader(self, batch_rows, batch_bytes)

    def _forget_result(self) -> None:
        self._rows.clear()
        self._held = False
        self._unread = self._pending = None

    async def __aenter__(self) -> AsyncCursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class AsyncRecordBatchReader:
    """``fastodbc.RecordBatchReader`` read with ``async for`` (pyarrow record batches)."""

    def __init__(self, cursor: AsyncCursor, batch_rows: int | None, batch_bytes: int | None) -> None:
        self._cursor = cursor
        self._args = (batch_rows, batch_bytes)
        self._reader: Any = None

    async def _open(self) -> Any:
        if self._reader is None:
            reader = await self._cursor._read(self._cursor._sync.fetch_record_batch, *self._args, _as_rows=False)
            # The reader holds the statement until it is read or closed: dropped, it is closed
            # on the connection's thread (as AsyncCursor's).
            self._release = weakref.finalize(self, self._cursor._connection._worker.thread.release, reader.close)
            self._reader = reader
        return self._reader

    def __aiter__(self) -> AsyncIterator[Any]:
        return self

    async def __anext__(self) -> Any:
        reader = await self._open()
        batch = await self._cursor._call(_next_or_none, reader)
        if batch is None:
            raise StopAsyncIteration
        return batch

    async def read_all(self) -> Any:
        """The rest as one ``pyarrow.Table``."""
        return await self._cursor._call((await self._open()).read_all)

    async def close(self) -> None:
        if self._reader is not None:
            await self._cursor._call(self._reader.close)
            self._release.detach()


class _GcPause:
    """Pauses the cyclic collector while any fetchall runs, and resumes it (if it was on)
    when the last one ends. Also without a GIL (3.13t), where each collection stops every
    thread: the event loop's included."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._resume = False

    def __enter__(self) -> None:
        with self._lock:
            if self._count == 0:
                self._resume = gc.isenabled()
                if self._resume:
                    # The young generations collected now (normally well under 1 ms): the rows
                    # list, made just before, is old when collection resumes, so the first
                    # young collection after the fetch doesn't walk a million rows (~20 ms).
                    gc.collect(1)
                    gc.disable()
            self._count += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._count -= 1
            if self._count == 0 and self._resume:
                gc.enable()


_GC_PAUSE = _GcPause()


def _snapshot_of(cursor: Cursor) -> tuple[Any, int, list[tuple[str, str]]]:
    if cursor.closed:
        return (None, -1, [])
    return (cursor.description, cursor.rowcount, cursor.messages)


def _next_or_none(reader: Any) -> Any:
    return next(reader, None)


def _awaited(name: str, returns_self: bool) -> Callable[..., Any]:
    new_result, reads_rest, holds = name in _NEW_RESULT, name in _READS_REST, name == "execute"

    async def method(self: AsyncCursor, *args: Any, **kwargs: Any) -> Any:
        if new_result:
            self._forget_result()
        elif reads_rest:
            self._hand_back()
            if self._rows:
                raise ProgrammingError("HY010", f"{name}: rows fetched ahead for async iteration are not served yet")
            return await self._read(getattr(self._sync, name), *args, _as_rows=False, **kwargs)
        if holds and self._connection._reads_rows:
            rows, self._pending = await self._call(self._execute_holding, self._sync.execute, args, kwargs)
            self._rows.extend(rows)
            self._held = True
            return self
        result = await self._call(getattr(self._sync, name), *args, **kwargs)
        return self if returns_self else result

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``await``-able ``fastodbc.Cursor.{name}``, run on the connection's thread."
    return method


def _forwarded(name: str) -> Any:
    def get(self: AsyncCursor) -> Any:
        return getattr(self._sync, name)

    return property(get, doc=f"``fastodbc.Cursor.{name}``.")


def _setting(name: str) -> Any:
    def get(self: AsyncCursor) -> Any:
        return self._settings[name]

    def set_(self: AsyncCursor, value: Any) -> None:
        self._settings[name] = value
        self._changed[name] = value

    return property(get, set_, doc=f"``fastodbc.Cursor.{name}`` (given to it before the next call).")


def _deferred(name: str) -> Any:
    def method(self: AsyncCursor, *args: Any) -> None:
        self._deferred.append((name, args))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``fastodbc.Cursor.{name}``, applied on the connection's thread before the next call."
    return method


def _snapshotted(index: int, name: str) -> Any:
    def get(self: AsyncCursor) -> Any:
        return self._snapshot[index]

    return property(get, doc=f"``fastodbc.Cursor.{name}`` as the last call left it.")


for _name in _AWAITED:
    setattr(AsyncCursor, _name, _awaited(_name, returns_self=False))
for _name in _AWAITED_SELF:
    setattr(AsyncCursor, _name, _awaited(_name, returns_self=True))
for _name in _FORWARDED:
    setattr(AsyncCursor, _name, _forwarded(_name))
for _name in _SETTINGS:
    setattr(AsyncCursor, _name, _setting(_name))
for _name in _DEFERRED:
    setattr(AsyncCursor, _name, _deferred(_name))
for _index, _name in enumerate(_SNAPSHOT):
    setattr(AsyncCursor, _name, _snapshotted(_index, _name))

TABLES = {
    "awaited": _AWAITED,
    "awaited_self": _AWAITED_SELF,
    "forwarded": _FORWARDED,
    "settings": _SETTINGS,
    "deferred": _DEFERRED,
    "snapshot": _SNAPSHOT,
    "own": _OWN,
}
