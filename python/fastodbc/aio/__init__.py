"""asyncio for fastodbc: ``await connect(...)`` gives an ``AsyncConnection`` whose driver calls
run on a thread of its own (ODBC drivers block), so the event loop never waits on the driver;
``AsyncConnectionPool`` pools them. Cancelling a task cancels its statement (SQLCancel). See
docs/pool-and-async.md."""

from __future__ import annotations

from ..pool.errors import PoolClosed, PoolTimeout, TooManyRequests
from .connection import AsyncConnection, connect
from .cursor import AsyncCursor, AsyncRecordBatchReader
from .pool import AsyncConnectionPool

__all__ = [
    "AsyncConnection",
    "AsyncConnectionPool",
    "AsyncCursor",
    "AsyncRecordBatchReader",
    "PoolClosed",
    "PoolTimeout",
    "TooManyRequests",
    "connect",
]
