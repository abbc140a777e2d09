"""The event loop never waits on the driver: a 1 ms ticker keeps ticking (its largest delay
well under LOOP_LAG_LIMIT_S) while a long statement runs, a long result is fetched (rows,
iteration, Arrow), a connection opens and closes, and a pool request waits."""

from __future__ import annotations

import asyncio
import time

import pytest

from fastodbc.aio import AsyncConnectionPool, PoolTimeout

from .support import Ticker, opened, run

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.aio is fastodbc's own")

#: Rows of the long fetches: seconds of work for the connection's thread.
LONG = 300_000


def long_query(backend) -> str:
    label = backend.concat("'row-'", "CAST(i AS VARCHAR(12))")
    return f"SELECT i, {label} AS label FROM ({backend.series(LONG)}) q"


def test_loop_runs_while_a_statement_executes(db, backend):
    async def main():
        async with opened(backend.connstr) as cnxn:
            cur = cnxn.cursor()
            async with Ticker() as ticker:
                started = time.perf_counter()
                await cur.execute(backend.sleep(1))
                await cur.fetchall()
                busy = time.perf_counter() - started
            assert busy > 0.3, f"the statement took {busy:.2f} s: too short to tell"
            ticker.assert_never_blocked("execute")

    run(main)


@pytest.mark.parametrize("read", ["fetchall", "iterate", "fetchmany", "arrow", "record_batches"])
def test_loop_runs_while_a_long_result_is_fetched(db, backend, read):
    async def main():
        async with opened(backend.connstr) as cnxn:
            cur = cnxn.cursor()
            await cur.execute(long_query(backend))
            async with Ticker() as ticker:
                if read == "fetchall":
                    n = len(await cur.fetchall())
                elif read == "iterate":
                    n = 0
                    async for _ in cur:
                        n += 1
                elif read == "fetchmany":
                    n = 0
                    while rows := await cur.fetchmany(50_000):
                        n += len(rows)
                elif read == "arrow":
                    n = (await cur.fetch_arrow_table()).num_rows
                else:
                    n = 0
                    async for batch in cur.fetch_record_batch(batch_rows=20_000):
                        n += batch.num_rows
            assert n == LONG
            ticker.assert_never_blocked(read)

    run(main, timeout=110)


def test_loop_runs_while_connecting_executing_and_closing(db, backend):
    async def main():
        async with Ticker() as ticker:
            for _ in range(5):
                cnxn = await asyncio.wait_for(asyncio.ensure_future(_connect(backend)), 30)
                cur = cnxn.cursor()
                await cur.execute("SELECT 1")
                assert await cur.fetchval() == 1
                await cnxn.commit()
                await cnxn.close()
        ticker.assert_never_blocked("connect / close")

    run(main)


async def _connect(backend):
    import fastodbc.aio

    return await fastodbc.aio.connect(backend.connstr)


def test_loop_runs_while_a_pool_request_waits(db, backend):
    async def main():
        async with AsyncConnectionPool(backend.connstr, min_size=1, timeout=10) as pool:
            await pool.wait(timeout=30)
            held = await pool.getconn()
            async with Ticker() as ticker:
                started = time.monotonic()
                with pytest.raises(PoolTimeout):
                    await pool.getconn(timeout=1.0)
                assert time.monotonic() - started >= 0.9
            ticker.assert_never_blocked("a pool request waiting")
            await pool.putconn(held)

    run(main)


def test_loop_runs_while_ingest_and_executemany_write(db, backend, connect, table):
    import pyarrow as pa

    t = table("id INTEGER, name VARCHAR(20)")
    n = 100_000
    data = pa.table({"id": pa.array(range(n), pa.int32()), "name": [f"n{i}" for i in range(n)]})

    async def main():
        async with opened(backend.connstr) as cnxn:
            cur = cnxn.cursor()
            async with Ticker() as ticker:
                assert await cur.ingest(t, data) == n
                await cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(-i, "x") for i in range(1, 20_001)])
                await cnxn.commit()
            ticker.assert_never_blocked("ingest / executemany")

    run(main)
    assert connect().cursor().execute(f"SELECT COUNT(*) FROM {t}").fetchval() == n + 20_000
