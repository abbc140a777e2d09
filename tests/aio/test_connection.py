"""``await fastodbc.aio.connect(...)``: AsyncConnection and AsyncCursor mirror the sync API
(execute, executemany, the fetches, ``async for``, the Arrow methods, ingest, the async context
managers)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import fastodbc
import fastodbc.aio
from fastodbc.aio import AsyncConnection, AsyncCursor

from .support import opened, run

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.aio is fastodbc's own")


def count_rows(connect, table: str) -> int:
    other = connect(autocommit=True)
    return other.cursor().execute(f"SELECT COUNT(*) FROM {table}").fetchval()


def test_public_api_of_the_sync_classes_is_on_the_async_ones():
    # Mirroring the sync API includes the DB-API's optional extension: the exception classes
    # as attributes of the connection (`except cnxn.Error`).
    for sync, asynchronous in ((fastodbc.Cursor, AsyncCursor), (fastodbc.Connection, AsyncConnection)):
        public = {n for n in dir(sync) if not n.startswith("_")}
        missing = sorted(n for n in public if not hasattr(asynchronous, n))
        assert not missing, f"{asynchronous.__name__} lacks {missing}"


def test_connect_execute_and_fetch(db, backend):
    async def main():
        cnxn = await fastodbc.aio.connect(backend.connstr)
        assert isinstance(cnxn, AsyncConnection)
        assert not cnxn.closed and not cnxn.broken
        cur = cnxn.cursor()
        assert isinstance(cur, AsyncCursor)
        assert cur.connection is cnxn
        await cur.execute(f"SELECT i, i * 10 AS tens FROM ({backend.series(10)}) q ORDER BY i")
        assert [d[0].lower() for d in cur.description] == ["i", "tens"]
        first = await cur.fetchone()
        assert isinstance(first, fastodbc.Row)
        assert tuple(first) == (1, 10) and first.tens == 10
        assert [tuple(r) for r in await cur.fetchmany(3)] == [(2, 20), (3, 30), (4, 40)]
        assert [tuple(r) for r in await cur.fetchall()] == [(i, i * 10) for i in range(5, 11)]
        assert await cur.fetchone() is None
        assert await cur.fetchall() == []
        await cur.execute("SELECT ?", 42)
        assert int(await cur.fetchval()) == 42
        again = await cnxn.execute("SELECT 7")
        assert isinstance(again, AsyncCursor)
        assert await again.fetchval() == 7
        assert (await cur.execute("SELECT 8")) is cur  # chained, as the sync execute
        assert await cur.fetchval() == 8
        await cnxn.close()
        assert cnxn.closed
        with pytest.raises(db.ProgrammingError):
            await cnxn.cursor().execute("SELECT 1")

    run(main)


def test_async_for_reads_every_row_in_order(db, backend):
    n = 5000  # several of the cursor's slices

    async def main():
        async with opened(backend.connstr) as cnxn:
            cur = cnxn.cursor()
            await cur.execute(f"SELECT i FROM ({backend.series(n)}) q ORDER BY i")
            seen = [row[0] async for row in cur]
            assert seen == list(range(1, n + 1))
            # Iteration, then the other fetches, on one result.
            await cur.execute(f"SELECT i FROM ({backend.series(n)}) q ORDER BY i")
            head = []
            async for row in cur:
                head.append(row[0])
                if len(head) == 10:
                    break
            rest = [r[0] for r in await cur.fetchall()]
            assert head + rest == list(range(1, n + 1))

    run(main)


def test_executemany_and_transactions(db, backend, connect, table):
    t = table("id INTEGER, name VARCHAR(20)")
    rows = [(i, f"name-{i}") for i in range(300)]

    async def main():
        async with opened(backend.connstr) as cnxn:
            assert cnxn.autocommit is False
            cur = cnxn.cursor()
            await cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
            assert cur.rowcount == len(rows)
            await cnxn.rollback()
            assert count_rows(connect, t) == 0
            await cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows[:10])
            await cnxn.commit()
            assert count_rows(connect, t) == 10
            await cur.execute(f"SELECT id, name FROM {t} ORDER BY id")
            assert [tuple(r) for r in await cur.fetchall()] == rows[:10]
            await cnxn.commit()

    run(main)


def test_async_with_commits_on_success_and_rolls_back_on_error(db, backend, connect, table):
    t = table("id INTEGER")

    async def main():
        async with opened(backend.connstr) as cnxn:
            async with cnxn:
                await cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
            assert count_rows(connect, t) == 1
            with pytest.raises(ZeroDivisionError):
                async with cnxn:
                    await cnxn.cursor().execute(f"INSERT INTO {t} VALUES (2)")
                    1 / 0  # noqa: B018
            assert count_rows(connect, t) == 1
            assert not cnxn.closed  # `async with` ends the transaction, not the connection

    run(main)


def test_autocommit_connection(db, backend, connect, table):
    t = table("id INTEGER")

    async def main():
        async with opened(backend.connstr, autocommit=True) as cnxn:
            assert cnxn.autocommit is True
            await cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
            assert count_rows(connect, t) == 1

    run(main)


def test_arrow_methods_are_awaitables(db, backend, connect):
    label = backend.concat("'row-'", "CAST(i AS VARCHAR(12))")
    sql = f"SELECT i, {label} AS label FROM ({backend.series(3000)}) q ORDER BY i"
    expected = connect().cursor().execute(sql).fetch_arrow_table()

    async def main():
        async with opened(backend.connstr) as cnxn:
            cur = cnxn.cursor()
            await cur.execute(sql)
            table = await cur.fetch_arrow_table()
            assert isinstance(table, pa.Table)
            assert table.equals(expected)
            await cur.execute(sql)
            batches = [b async for b in cur.fetch_record_batch(batch_rows=700)]
            assert all(isinstance(b, pa.RecordBatch) and b.num_rows <= 700 for b in batches)
            assert len(batches) >= 5
            assert pa.Table.from_batches(batches).equals(expected)
            # The cursor runs the next statement after its reader was read to the end.
            await cur.execute("SELECT 1")
            assert await cur.fetchval() == 1

    run(main)


def test_ingest_is_awaited(db, backend, connect, table):
    t = table("id INTEGER, name VARCHAR(20)")
    data = pa.table({"id": pa.array(range(500), pa.int32()), "name": [f"n{i}" for i in range(500)]})

    async def main():
        async with opened(backend.connstr) as cnxn:
            cur = cnxn.cursor()
            written = await cur.ingest(t, data)
            assert written == 500
            await cnxn.commit()  # ingest follows the connection's transaction

    run(main)
    rows = connect().cursor().execute(f"SELECT id, name FROM {t} ORDER BY id").fetchall()
    assert [tuple(r) for r in rows] == [(i, f"n{i}") for i in range(500)]


def test_errors_are_the_sync_api_errors(db, backend):
    async def main():
        async with opened(backend.connstr) as cnxn:
            cur = cnxn.cursor()
            with pytest.raises(db.Error) as exc:
                await cur.execute("SELECT * FROM no_such_table_aio")
            prefix, class_name = backend.missing_table
            assert isinstance(exc.value, getattr(db, class_name)), exc.value
            assert exc.value.args[0].startswith(prefix)
            await cnxn.rollback()
            await cur.execute("SELECT 1")
            assert await cur.fetchval() == 1

    run(main)
