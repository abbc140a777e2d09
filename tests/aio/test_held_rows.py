"""Rows read with the execute (aio/cursor.py, ``HELD_ROWS``): where the connection's last
result was read as rows, ``await cur.execute(...)`` brings the first rows of its result back
in the same trip to the connection's thread, so a following ``fetchone`` is served on the
loop. What is not served goes back to the sync cursor, so every reader after it (rows, Arrow)
gets the rows the sync cursor would give, and an error met reading them is raised where the
sync cursor raises it: by the fetch that reaches its row."""

from __future__ import annotations

import pytest

import fastodbc
from profiles import backends_where
from test_fetch import failing_converter

from .support import opened, run
from .test_differential import query

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.aio is fastodbc's own")

#: Every text type a driver may describe the query's label column with.
TEXT_TYPES = (1, 12, -1, -8, -9, -10)


class TripCounter:
    """Counts the calls an async connection sends to its thread."""

    def __init__(self, cnxn) -> None:
        self.count = 0
        thread = cnxn._worker.thread
        put = thread.put

        def counted(job) -> None:
            self.count += 1
            put(job)

        thread.put = counted


async def read_as(cnxn, backend, kind: str) -> None:
    """A result read as rows or as Arrow: what the next execute goes by."""
    cur = await cnxn.execute(query(backend, 3))
    if kind == "rows":
        await cur.fetchall()
    else:
        await cur.fetch_arrow_table()
    await cur.close()


def test_execute_then_fetchone_is_one_trip_after_rows_two_after_arrow(db, backend):
    sql = query(backend, 5)

    async def main():
        async with opened(backend.connstr) as cnxn:
            trips = TripCounter(cnxn)
            seen = []
            for last in ("rows", "arrow", "rows", "arrow"):
                await read_as(cnxn, backend, last)
                cur = cnxn.cursor()
                before = trips.count
                await cur.execute(sql)
                first = await cur.fetchone()
                seen.append((last, trips.count - before, first[0]))
                await cur.close()
            return seen

    assert run(main) == [("rows", 1, 1), ("arrow", 2, 1), ("rows", 1, 1), ("arrow", 2, 1)]


def fetchone_steps(fetchone, go_on: bool) -> list:
    """Each fetchone's first value, or the class of the error it raised, to the result's end
    (or to its first error, unless ``go_on``)."""
    steps: list = []
    while len(steps) < 70:
        try:
            row = fetchone()
        except Exception as e:
            steps.append(type(e).__name__)
            if go_on:
                continue
            break
        if row is None:
            break
        steps.append(row[0])
    return steps


async def fetchone_steps_async(fetchone, go_on: bool) -> list:
    """``fetchone_steps`` of an async cursor's ``fetchone``."""
    steps: list = []
    while len(steps) < 70:
        try:
            row = await fetchone()
        except Exception as e:
            steps.append(type(e).__name__)
            if go_on:
                continue
            break
        if row is None:
            break
        steps.append(row[0])
    return steps


@pytest.mark.parametrize("fail_at", [1, 2, 7])
@pytest.mark.parametrize("then", ["fetchone", "fetchall", "arrow"])
def test_a_converter_error_in_the_rows_read_with_the_execute_waits_for_its_row(db, backend, connect, fail_at, then):
    # The label column's converter fails on row ``fail_at``, which the execute reads. The rows
    # before it are served, then the error, then the rows after it, as from the sync cursor;
    # an Arrow read (no converters) gets every row, the failed one too.
    sql = query(backend, 10)
    sync = connect()
    for sql_type in TEXT_TYPES:
        sync.add_output_converter(sql_type, failing_converter(fail_at))
    cur = sync.cursor().execute(sql)
    expected = read(cur.fetchone, cur, then)

    async def main():
        async with opened(backend.connstr) as cnxn:
            for sql_type in TEXT_TYPES:
                cnxn.sync_connection.add_output_converter(sql_type, failing_converter(fail_at))
            acur = await cnxn.cursor().execute(sql)
            if then == "fetchone":
                return await fetchone_steps_async(acur.fetchone, go_on=True)
            if then == "fetchall":
                try:
                    return await acur.fetchall()
                except ValueError as e:
                    return [str(e), [r[0] for r in await acur.fetchall()]]
            return (await acur.fetch_arrow_table()).column(0).to_pylist()

    assert run(main) == expected


def read(fetchone, cur, then: str):
    if then == "fetchone":
        return fetchone_steps(fetchone, go_on=True)
    if then == "fetchall":
        try:
            return cur.fetchall()
        except ValueError as e:
            return [str(e), [r[0] for r in cur.fetchall()]]
    return cur.fetch_arrow_table().column(0).to_pylist()


@pytest.mark.parametrize("backend", backends_where(lambda p: p.server_cursor_attributes), indirect=True)
@pytest.mark.parametrize("fails_at", [1, 9, 40])
def test_a_fetch_error_met_reading_with_the_execute_is_raised_by_the_fetch(db, backend, connect, fails_at):
    # A server-side cursor fetching 4 rows at a time: the row ``fails_at`` divides by zero when
    # its block is fetched. The async cursor raises it where the sync one does (the execute,
    # the first fetch, or the fetch of a later block: fastodbc's first block holds 16 rows),
    # and the same rows come before it.
    connstr = backend.connstr + ";" + backend.server_cursor_attributes.format(n=4)
    sql = f"SELECT i, 10 / (i - {fails_at}) AS q FROM ({backend.series(60)}) s"
    expected = outcome_steps_sync(connect(connstr), sql)

    async def main():
        async with opened(connstr) as cnxn:
            await read_as(cnxn, backend, "rows")
            try:
                cur = await cnxn.cursor().execute(sql)
            except Exception as e:
                return [f"execute: {type(e).__name__}"]
            return await fetchone_steps_async(cur.fetchone, go_on=False)

    got = run(main)
    assert got == expected
    assert isinstance(got[-1], str), got  # the error was met


def outcome_steps_sync(cnxn, sql: str) -> list:
    try:
        cur = cnxn.cursor().execute(sql)
    except Exception as e:
        return [f"execute: {type(e).__name__}"]
    return fetchone_steps(cur.fetchone, go_on=False)


@pytest.mark.parametrize("then", ["fetchone", "fetchmany", "fetchall", "iterate", "arrow_table", "record_batches"])
def test_rows_read_by_any_reader_since_cannot_be_handed_back(db, backend, connect, then):
    # Whatever read the result after the execute's rows consumed them: handing them back then
    # would serve rows twice, so it is refused, and the reader's rows stand.
    cur = connect().cursor().execute(query(backend, 10))
    held = cur._read_held(4)
    assert len(held) == 4
    if then == "fetchone":
        read_after = [cur.fetchone()]
    elif then == "fetchmany":
        read_after = cur.fetchmany(3)
    elif then == "fetchall":
        read_after = cur.fetchall()
    elif then == "iterate":
        read_after = list(cur)
    elif then == "arrow_table":
        read_after = cur.fetch_arrow_table().column(0).to_pylist()
    else:
        read_after = [v for b in cur.fetch_record_batch() for v in b.column(0).to_pylist()]
    assert read_after
    with pytest.raises(fastodbc.ProgrammingError, match="not the last ones read"):
        cur._unread_held(held[-1:])
