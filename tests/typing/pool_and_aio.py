"""Code as users write it against fastodbc.pool and fastodbc.aio, type-checked by mypy
(tests/test_typing.py); never run. The lines marked `# error:` must be reported."""

from __future__ import annotations

from fastodbc import Row, aio
from fastodbc.pool import ConnectionPool, PoolTimeout


async def rows_and_arrow() -> list[Row]:
    cnxn = await aio.connect("DSN=sales", autocommit=False)
    cur = cnxn.cursor()
    cur.arraysize = 100
    rows = await (await cur.execute("SELECT id FROM t WHERE x = ?", 1)).fetchall()
    one: Row | None = await cur.fetchone()
    some: list[Row] = await cur.fetchmany(10)
    count: int = cur.rowcount
    table = await cur.fetch_arrow_table()
    async for row in cur:
        print(row[0], one, some, count)
    async for batch in cur.fetch_record_batch(batch_rows=1000):
        print(batch)
    written: int = await cur.ingest("t2", table, mode="create")
    print(written)
    cnxn.timeout = 5
    await cnxn.set_autocommit(True)
    try:
        await cnxn.commit()
    except cnxn.OperationalError:
        pass
    await cnxn.close()
    return rows


async def pooled() -> None:
    async with aio.AsyncConnectionPool("DSN=sales", min_size=1, max_size=4) as pool:
        async with pool.connection(timeout=2.0) as cnxn:
            await cnxn.execute("SELECT 1")
        print(pool.get_stats()["pool_size"])


def threads() -> None:
    with ConnectionPool("DSN=sales", min_size=1, check=ConnectionPool.check_connection) as pool:
        try:
            with pool.connection() as cnxn:
                cnxn.cursor().execute("SELECT 1").fetchall()
        except PoolTimeout:
            pass


async def mistakes() -> None:
    cnxn = await aio.connect("DSN=sales")
    cur = cnxn.cursor()
    await cur.no_such_method()  # error: attr-defined
    wrong: str = await cur.fetchall()  # error: assignment
    print(wrong)
    cur.execute("SELECT 1").fetchall()  # error: attr-defined

