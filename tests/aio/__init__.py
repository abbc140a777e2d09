"""Tests of ``fastodbc.aio`` (issue 20): AsyncConnection, AsyncCursor and AsyncConnectionPool on
every backend, against the behaviour docs/pool-and-async.md describes. No pytest-asyncio: each
test drives its coroutine with ``run`` (asyncio.run)."""
