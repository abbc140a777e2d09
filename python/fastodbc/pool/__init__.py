"""Connection pools: ``ConnectionPool`` for threads (``fastodbc.aio.AsyncConnectionPool``
for asyncio), with psycopg_pool's parameters and meanings. See docs/pool-and-async.md."""

from __future__ import annotations

from .errors import PoolClosed, PoolTimeout, TooManyRequests
from .threads import ConnectionPool

__all__ = ["ConnectionPool", "PoolClosed", "PoolTimeout", "TooManyRequests"]
