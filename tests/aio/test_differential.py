"""The async API returns what the sync API returns: the same query read by each fetch method,
across row counts at the edges of the async cursor's slices and the fetch blocks."""

from __future__ import annotations

import pyarrow as pa
import pytest

from .support import opened, run

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.aio is fastodbc's own")

# 0, 1, a block's first rows, one slice (1,024) and its neighbours, many slices.
ROW_COUNTS = [0, 1, 16, 1023, 1024, 1025, 5000]
METHODS = ["fetchall", "fetchmany", "fetchone", "iterate", "fetchval", "arrow", "record_batches"]


def query(backend, n: int) -> str:
    label = backend.concat("'row-'", "CAST(i AS VARCHAR(12))")
    return (
        f"SELECT i, {label} AS label, i * 0.5 AS half, "
        f"CASE WHEN i % 3 = 0 THEN NULL ELSE i END AS sparse "
        f"FROM ({backend.series(max(n, 1))}) q WHERE i <= {n} ORDER BY i"
    )


def read_sync(cur, method: str):
    if method == "fetchall":
        return [tuple(r) for r in cur.fetchall()]
    if method == "fetchmany":
        out = []
        while chunk := cur.fetchmany(100):
            out.append([tuple(r) for r in chunk])
        return out
    if method == "fetchone":
        return [tuple(r) for r in iter(cur.fetchone, None)]
    if method == "iterate":
        return [tuple(r) for r in cur]
    if method == "fetchval":
        return cur.fetchval()
    if method == "arrow":
        return cur.fetch_arrow_table()
    return list(cur.fetch_record_batch(batch_rows=500))


async def read_async(cur, method: str):
    if method == "fetchall":
        return [tuple(r) for r in await cur.fetchall()]
    if method == "fetchmany":
        out = []
        while chunk := await cur.fetchmany(100):
            out.append([tuple(r) for r in chunk])
        return out
    if method == "fetchone":
        out = []
        while (row := await cur.fetchone()) is not None:
            out.append(tuple(row))
        return out
    if method == "iterate":
        return [tuple(r) async for r in cur]
    if method == "fetchval":
        return await cur.fetchval()
    if method == "arrow":
        return await cur.fetch_arrow_table()
    return [b async for b in cur.fetch_record_batch(batch_rows=500)]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", ROW_COUNTS)
def test_async_reads_equal_sync_reads(db, backend, connect, n, method):
    sql = query(backend, n)
    cur = connect().cursor()
    cur.execute(sql)
    description = cur.description
    expected = read_sync(cur, method)

    async def main():
        async with opened(backend.connstr) as cnxn:
            acur = cnxn.cursor()
            await acur.execute(sql)
            assert acur.description == description
            return await read_async(acur, method)

    got = run(main)
    if isinstance(expected, pa.Table):
        assert got.equals(expected), (got.schema, expected.schema)
    elif method == "record_batches":
        # The same batches: the budget cuts them at the same rows.
        assert [b.num_rows for b in got] == [b.num_rows for b in expected]
        assert all(g.equals(e) for g, e in zip(got, expected, strict=True))
        assert sum(b.num_rows for b in got) == n
    else:
        assert got == expected
    if method in ("fetchall", "iterate"):
        assert len(got) == n


def test_rows_of_two_cursors_read_alternately(db, backend, connect):
    # Two results open on one connection at once, read a slice at a time in turn.
    n = 3000
    sql_a = query(backend, n)
    sql_b = f"SELECT i * 2 AS d FROM ({backend.series(n)}) q ORDER BY i"
    sync = connect()
    expected_a = [tuple(r) for r in sync.cursor().execute(sql_a).fetchall()]
    expected_b = [tuple(r) for r in sync.cursor().execute(sql_b).fetchall()]

    async def main():
        async with opened(backend.connstr) as cnxn:
            a, b = cnxn.cursor(), cnxn.cursor()
            await a.execute(sql_a)
            await b.execute(sql_b)
            got_a, got_b = [], []
            while True:
                chunk_a = await a.fetchmany(700)
                chunk_b = await b.fetchmany(900)
                got_a += [tuple(r) for r in chunk_a]
                got_b += [tuple(r) for r in chunk_b]
                if not chunk_a and not chunk_b:
                    return got_a, got_b

    got_a, got_b = run(main)
    assert got_a == expected_a
    assert got_b == expected_b


@pytest.mark.parametrize("last_read", ["rows", "arrow"])
def test_rows_read_with_the_execute_then_any_reader(db, backend, connect, last_read):
    # Where the connection's last result was read as rows, the execute reads the first rows of
    # its own (aio/cursor.py, HELD_ROWS). Some of them served by fetchone, the rest by each
    # fetch method: the rows, tables and batches of the sync cursor, whichever reader takes
    # over from the rows the execute read (an Arrow reader reads the unserved ones again).
    cases = [(n, served, method) for n in (0, 1, 16, 100, 2000) for served in (0, 1, 3) for method in METHODS]
    sync = connect()
    expected = {}
    for n, served, method in cases:
        cur = sync.cursor().execute(query(backend, n))
        first = [cur.fetchone() for _ in range(served)]
        expected[n, served, method] = ([None if r is None else tuple(r) for r in first], read_sync(cur, method))
        cur.close()

    async def main():
        got = {}
        async with opened(backend.connstr) as cnxn:
            for n, served, method in cases:
                prior = await cnxn.execute(query(backend, 2))
                await (prior.fetchall() if last_read == "rows" else prior.fetch_arrow_table())
                await prior.close()
                acur = await cnxn.cursor().execute(query(backend, n))
                first = [await acur.fetchone() for _ in range(served)]
                served_rows = [None if r is None else tuple(r) for r in first]
                got[n, served, method] = (served_rows, await read_async(acur, method))
                await acur.close()
        return got

    got = run(main)
    for case, (first, rest) in expected.items():
        got_first, got_rest = got[case]
        assert got_first == first, case
        if isinstance(rest, pa.Table):
            assert got_rest.equals(rest), (case, got_rest.schema, rest.schema)
        elif case[2] == "record_batches":
            assert [b.num_rows for b in got_rest] == [b.num_rows for b in rest], case
            assert all(g.equals(e) for g, e in zip(got_rest, rest, strict=True)), case
        else:
            assert got_rest == rest, case
