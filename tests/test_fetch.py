"""Fetching: large results across many fetch blocks, long columns mixed with bound ones,
values longer than the size the driver describes."""

import datetime
import gc
import os
import time
import uuid

import pytest

from profiles import backends_where

N_LARGE = 50_000


@pytest.fixture
def series_table(backend, table, cnxn):
    t = table(
        f"id {backend.ddl('int')} NOT NULL, s {backend.ddl('varchar(50)')}, "
        f"n {backend.ddl('bigint')}"
    )
    cur = cnxn.cursor()
    label = backend.concat("'row-'", "CAST(i AS VARCHAR(20))")
    cur.execute(
        f"INSERT INTO {t} (id, s, n) "
        f"SELECT i, {label}, "
        f"CASE WHEN i % 7 = 0 THEN NULL ELSE i * 2 END FROM ({backend.series(N_LARGE)}) q"
    )
    assert cur.rowcount in (-1, N_LARGE)
    cnxn.commit()
    return t


def exp_row(i):
    return (i, f"row-{i}", None if i % 7 == 0 else i * 2)


def test_large_result_fetchall(cursor, series_table):
    got = cursor.execute(f"SELECT id, s, n FROM {series_table} ORDER BY id").fetchall()
    assert len(got) == N_LARGE
    for i, row in enumerate(got, 1):
        assert tuple(row) == exp_row(i)
    assert type(got[0][0]) is int
    assert type(got[0][2]) is int


def test_large_result_iteration(cursor, series_table):
    cursor.execute(f"SELECT id, s, n FROM {series_table} ORDER BY id")
    count = 0
    for i, row in enumerate(cursor, 1):
        assert tuple(row) == exp_row(i)
        count += 1
    assert count == N_LARGE


def test_large_result_fetchmany_and_fetchone_interleaved(cursor, series_table):
    cursor.execute(f"SELECT id, s, n FROM {series_table} ORDER BY id")
    i = 0
    sizes = [1, 999, 1000, 1001, 4096, 3, 10_000]
    k = 0
    while True:
        if k % 2:
            row = cursor.fetchone()
            if row is None:
                break
            i += 1
            assert tuple(row) == exp_row(i)
        else:
            batch = cursor.fetchmany(sizes[k % len(sizes)])
            if not batch:
                break
            for row in batch:
                i += 1
                assert tuple(row) == exp_row(i)
        k += 1
    assert i == N_LARGE


def test_large_result_generated_directly(backend, cursor):
    cursor.execute(f"SELECT i FROM ({backend.series(N_LARGE)}) q ORDER BY i")
    got = [row[0] for row in cursor.fetchall()]
    assert got == list(range(1, N_LARGE + 1))


def test_large_text_result(backend, cursor, table, cnxn):
    # Multi-byte text in every row, many rows: exercises text buffers and decoding.
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(255)')}")
    values = [f"ü{i}€😀Добрый{'x' * (i % 90)}" for i in range(5000)]
    cur = cnxn.cursor()
    for batch_start in range(0, 5000, 250):
        # A multi-row INSERT per batch keeps this fast on both without executemany.
        params = []
        for i in range(batch_start, batch_start + 250):
            params.extend((i, values[i]))
        placeholders = ", ".join(["(?, ?)"] * 250)
        cur.execute(f"INSERT INTO {t} (id, v) VALUES {placeholders}", params)
    cnxn.commit()
    got = cursor.execute(f"SELECT id, v FROM {t} ORDER BY id").fetchall()
    assert [tuple(r) for r in got] == list(enumerate(values))


# ------------------------------------------------------------------------ long columns


def long_text(i, size):
    unit = f"<{i}:äö😀>"
    return (unit * (size // len(unit) + 1))[:size]


def long_bytes(i, size):
    return bytes((i * 31 + k) % 256 for k in range(size))


def test_mixed_bound_and_long_columns(backend, cursor, table, cnxn):
    t = table(
        f"id {backend.ddl('int')}, name {backend.ddl('varchar(50)')}, body {backend.ddl('text')}, "
        f"data {backend.ddl('bytes')}, after {backend.ddl('int')}, ts {backend.ddl('timestamp')}"
    )
    size = 100 * 1024
    rows = []
    for i in range(24):
        body = long_text(i, size) if i % 5 else (None if i % 10 == 0 else "")
        blob = long_bytes(i, size + i) if i % 4 else (None if i % 8 == 0 else b"")
        rows.append((i, f"name-{i}", body, blob, i * 1000, datetime.datetime(2024, 1, 1, 0, 0, i)))
    cur = cnxn.cursor()
    for r in rows:
        cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", *r)
    cnxn.commit()

    sql = f"SELECT id, name, body, data, after, ts FROM {t} ORDER BY id"
    got = cursor.execute(sql).fetchall()
    assert len(got) == len(rows)
    for g, want in zip(got, rows, strict=True):
        assert tuple(g) == want
        if want[3] is not None:
            assert type(g[3]) is bytes

    cursor.execute(sql)
    for want in rows:
        assert tuple(cursor.fetchone()) == want
    assert cursor.fetchone() is None

    cursor.execute(sql)
    got = []
    while batch := cursor.fetchmany(7):
        got.extend(tuple(r) for r in batch)
    assert got == rows


def test_long_column_first(backend, cursor, table, cnxn):
    t = table(f"body {backend.ddl('text')}, id {backend.ddl('int')}")
    cur = cnxn.cursor()
    values = [long_text(i, 70_000 + i) for i in range(3)]
    for i, v in enumerate(values):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", v, i)
    got = cur.execute(f"SELECT body, id FROM {t} ORDER BY id").fetchall()
    assert [tuple(r) for r in got] == [(v, i) for i, v in enumerate(values)]


@pytest.mark.parametrize("size", [0, 1, 254, 255, 256, 4095, 4096, 4097, 65535, 65536, 200_000])
def test_blob_sizes(backend, cursor, table, cnxn, size):
    # sqliteodbc describes BLOB as SQL_BINARY(255) and psqlODBC bytea as size 0: both lie.
    t = table(f"id {backend.ddl('int')}, b {backend.ddl('bytes')}")
    value = long_bytes(size, size)
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", 1, value)
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", 2, b"\x01")
    got = cur.execute(f"SELECT b, id FROM {t} ORDER BY id").fetchall()
    assert tuple(got[0]) == (value, 1)
    assert tuple(got[1]) == (b"\x01", 2)


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 8190, 8191, 65536, 300_000])
def test_text_sizes(backend, cursor, table, cnxn, size):
    # psqlODBC describes text as 8190, sqliteodbc TEXT as 65536: values may be longer.
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('text')}")
    value = long_text(size, size)
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", 1, value)
    got = cur.execute(f"SELECT v FROM {t}").fetchone()[0]
    assert len(got) == size
    assert got == value


# ------------------------------------------------------------------------ described size lies


def whole_or_data_error(db, fn, want):
    """The value must come back whole, or the fetch must raise DataError: never truncated."""
    try:
        got = fn()
    except db.DataError:
        return False
    assert got == want
    return True


@pytest.mark.parametrize("backend", backends_where(lambda p: not p.enforces_varchar_length), indirect=True)
@pytest.mark.parametrize("size", [11, 50, 255, 256, 10_000])
@pytest.mark.parametrize("char", ["x", "é", "😀"])
def test_sqlite_value_longer_than_declared_varchar(db, backend, cursor, table, cnxn, size, char):
    # A database that keeps values longer than the declared VARCHAR size (SQLite).
    ddl = backend.ddl
    t = table(f"id {ddl('int')}, v {ddl('varchar(10)')}, after {ddl('int')}")
    value = char * size
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?)", 1, value, 7)
    cnxn.commit()
    # sqliteodbc describes v as VARCHAR(10) (see test_cursor.py::test_description).
    sql = f"SELECT id, v, after FROM {t}"
    whole_or_data_error(db, lambda: tuple(cur.execute(sql).fetchone()), (1, value, 7))


@pytest.mark.parametrize("backend", backends_where(lambda p: p.text_width_attributes), indirect=True)
@pytest.mark.parametrize("size", [6, 255, 256, 9000])
@pytest.mark.parametrize("sql_type", ["VARCHAR", "TEXT"])
def test_pg_value_longer_than_max_varchar_size(db, backend, connect, table, size, sql_type):
    # Attributes that make the driver describe text columns as 5 wide (psqlODBC's
    # MaxVarcharSize / MaxLongVarcharSize).
    t = table(f"id INTEGER, v {sql_type}, after INTEGER")
    value = ("abcdé😀" * size)[:size]
    c = connect(backend.connstr.rstrip(";") + backend.text_width_attributes)
    cur = c.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?)", 1, value, 7)
    c.commit()
    cur.execute(f"SELECT id, v, after FROM {t}")
    assert cur.description[1][3] == 5  # the driver says 5...
    sql = f"SELECT id, v, after FROM {t}"
    whole_or_data_error(db, lambda: tuple(cur.execute(sql).fetchall()[0]), (1, value, 7))


def test_fetch_repeated_execute_same_cursor(cursor, series_table):
    # Re-executing must reset buffers: the second result is not polluted by the first.
    for n in (10, 2000, 5):
        sql = f"SELECT id FROM {series_table} WHERE id <= ? ORDER BY id"
        got = cursor.execute(sql, n).fetchall()
        assert [r[0] for r in got] == list(range(1, n + 1))


# ------------------------------------------------------------------------ fixed-size types


FIXED_SIZE_VALUES = {
    "bool": lambda k: k % 3 == 0,
    "smallint": lambda k: k - 150,
    "int": lambda k: k * 1000,
    "bigint": lambda k: k * 2**40,
    "float": lambda k: k / 8,
    "real": lambda k: k * 0.5,
    "date": lambda k: datetime.date(2000, 1, 1) + datetime.timedelta(days=k * 37),
    "time": lambda k: datetime.time(k % 24, k % 60, (k * 7) % 60),
    "timestamp": lambda k: datetime.datetime(2001, 1, 1) + datetime.timedelta(seconds=k * 3607),
}


@pytest.mark.parametrize("kind", sorted(FIXED_SIZE_VALUES))
def test_fixed_size_type_in_multi_row_blocks(backend, cursor, table, cnxn, kind):
    # Column-wise bound arrays of fixed-size C types use the C struct's size as the stride
    # (SQL_C_BIT 1 byte, DATE_STRUCT 6, TIMESTAMP_STRUCT 16...): every row of a block must
    # come back, not just the first.
    t = table(f"id {backend.ddl('int')}, v {backend.ddl(kind)}")
    rows = [(k, None if k % 10 == 9 else FIXED_SIZE_VALUES[kind](k)) for k in range(300)]
    cur = cnxn.cursor()
    cur.fast_executemany = False
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
    cnxn.commit()
    got = [tuple(r) for r in cursor.execute(f"SELECT id, v FROM {t} ORDER BY id").fetchall()]
    assert got == rows


def test_fixed_size_types_together_in_multi_row_blocks(backend, cursor, table, cnxn):
    kinds = sorted(FIXED_SIZE_VALUES)
    t = table(f"id {backend.ddl('int')}, " + ", ".join(f"c_{k} {backend.ddl(k)}" for k in kinds))
    rows = [(k, *(FIXED_SIZE_VALUES[kind](k) for kind in kinds)) for k in range(300)]
    rows += [(k, *([None] * len(kinds))) for k in range(300, 303)]
    marks = ", ".join(["?"] * (len(kinds) + 1))
    cur = cnxn.cursor()
    cur.fast_executemany = False
    cur.executemany(f"INSERT INTO {t} VALUES ({marks})", rows)
    cnxn.commit()
    got = [tuple(r) for r in cursor.execute(f"SELECT * FROM {t} ORDER BY id").fetchall()]
    assert got == rows


def test_uuid_in_multi_row_blocks(backend, cursor, table, cnxn):
    if not backend.supports_uuid:
        pytest.skip(f"{backend.name} has no uuid type")
    t = table(f"id {backend.ddl('int')}, u {backend.ddl('uuid')}")
    values = [backend.storable_uuid(uuid.UUID(int=(k * 0x1234567890ABCDEF1234567) % 2**128)) for k in range(50)]
    cur = cnxn.cursor()
    for k, u in enumerate(values):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", k, u)
    got = cursor.execute(f"SELECT CAST(u AS VARCHAR(36)) FROM {t} ORDER BY id").fetchall()
    assert [r[0] for r in got] == [str(u) for u in values]


@pytest.mark.fastodbc_only(reason="pyodbc fetches uuid columns as str")
def test_uuid_objects_in_multi_row_blocks(backend, cursor, table, cnxn):
    if not backend.supports_uuid:
        pytest.skip(f"{backend.name} has no uuid type")
    t = table(f"id {backend.ddl('int')}, u {backend.ddl('uuid')}")
    values = [backend.storable_uuid(uuid.UUID(int=(k * 0x1234567890ABCDEF1234567) % 2**128)) for k in range(50)]
    values[7] = None
    cur = cnxn.cursor()
    for k, u in enumerate(values):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", k, u)
    got = cursor.execute(f"SELECT u FROM {t} ORDER BY id").fetchall()
    assert [r[0] for r in got] == [backend.fetched_uuid(u) for u in values]


# ------------------------------------------------------------------------ interleaving / cursors


def test_two_cursors_interleaved_over_large_results(cnxn, series_table):
    a = cnxn.cursor()
    b = cnxn.cursor()
    a.execute(f"SELECT id, s, n FROM {series_table} ORDER BY id")
    b.execute(f"SELECT id, s, n FROM {series_table} ORDER BY id DESC")
    i, j = 0, N_LARGE + 1
    while True:
        ra = a.fetchmany(1500)
        rb = b.fetchmany(700)
        for row in ra:
            i += 1
            assert tuple(row) == exp_row(i)
        for row in rb:
            j -= 1
            assert tuple(row) == exp_row(j)
        if not ra and not rb:
            break
    assert (i, j) == (N_LARGE, 1)


@pytest.mark.parametrize("backend", backends_where(lambda p: p.server_cursor_attributes), indirect=True)
def test_server_side_cursor_large_result(backend, connect, series_table):
    # Streamed through a server-side cursor (psqlODBC: UseDeclareFetch=1), bounded memory.
    c = connect(backend.connstr.rstrip(";") + ";" + backend.server_cursor_attributes.format(n=1000))
    cur = c.cursor()
    cur.execute(f"SELECT id, s, n FROM {series_table} ORDER BY id")
    count = 0
    while batch := cur.fetchmany(3333):
        for row in batch:
            count += 1
            assert tuple(row) == exp_row(count)
    assert count == N_LARGE
    c.rollback()


# ------------------------------------------------------------------------ reading ahead
# A long result fetches its next block on another thread while the current one is converted
# (Connection.read_ahead, on by default). Rows, their order and where errors surface must
# not depend on it.

SQL_VARCHAR, SQL_WVARCHAR = 12, -9


def drain(cursor, path):
    """Every remaining row, read the way `path` names."""
    if path == "fetchall":
        return cursor.fetchall()
    if path == "iteration":
        return list(cursor)
    if path == "fetchone":
        rows = []
        while (row := cursor.fetchone()) is not None:
            rows.append(row)
        return rows
    rows, sizes, k = [], [1, 777, 5000, 3], 0
    while batch := cursor.fetchmany(sizes[k % len(sizes)]):
        rows.extend(batch)
        # A fetchone between batches takes rows converted ahead by the one before.
        if (row := cursor.fetchone()) is not None:
            rows.append(row)
        k += 1
    return rows


@pytest.mark.parametrize("read_ahead", [True, False])
@pytest.mark.parametrize("path", ["fetchall", "iteration", "fetchone", "fetchmany"])
@pytest.mark.parametrize("buffer_bytes", [2000, 200_000])
def test_read_ahead_serves_every_row_in_order(cnxn, series_table, read_ahead, path, buffer_bytes):
    # Small buffers make blocks of a few rows (thousands of them, each read ahead), larger
    # ones blocks of hundreds.
    cnxn.read_ahead = read_ahead
    cnxn.fetch_buffer_bytes = buffer_bytes
    cur = cnxn.cursor()
    cur.execute(f"SELECT id, s, n FROM {series_table} ORDER BY id")
    got = drain(cur, path)
    assert [tuple(r) for r in got] == [exp_row(i) for i in range(1, N_LARGE + 1)]


def failing_converter(fail_at):
    """A converter of text columns that raises on its `fail_at`-th call (the row of that
    number, the converted column being one a row) and returns the raw bytes otherwise."""
    calls = 0

    def convert(raw):
        nonlocal calls
        calls += 1
        if calls == fail_at:
            raise ValueError(f"call {calls}")
        return raw

    return convert


@pytest.mark.parametrize("read_ahead", [True, False])
@pytest.mark.parametrize("path", ["iteration", "fetchone"])
def test_read_ahead_converter_error_at_its_row(cnxn, series_table, path, read_ahead):
    # Rows converted ahead wait for the consumer, and so does the error that stopped them:
    # rows 1..6999 come first, then the error; as in pyodbc the failing row is consumed and
    # the next call goes on with row 7001.
    for sql_type in (SQL_VARCHAR, SQL_WVARCHAR):
        cnxn.add_output_converter(sql_type, failing_converter(7000))
    cnxn.read_ahead = read_ahead
    cur = cnxn.cursor()
    cur.execute(f"SELECT id, s FROM {series_table} ORDER BY id")
    ids = []
    with pytest.raises(ValueError, match="call 7000"):
        while True:
            row = next(cur) if path == "iteration" else cur.fetchone()
            ids.append(row[0])
    assert ids == list(range(1, 7000))
    ids.extend(row[0] for row in cur)
    assert ids == [i for i in range(1, N_LARGE + 1) if i != 7000]


def test_read_ahead_converter_error_in_fetchmany_leaves_rows(cnxn, series_table):
    for sql_type in (SQL_VARCHAR, SQL_WVARCHAR):
        cnxn.add_output_converter(sql_type, failing_converter(7000))
    cur = cnxn.cursor()
    cur.execute(f"SELECT id, s FROM {series_table} ORDER BY id")
    # The rows after these are converted ahead to the end of their block.
    assert [next(cur)[0] for _ in range(3000)] == list(range(1, 3001))
    # The error falls inside this call: raised, with its row and the rows before it
    # consumed, as in pyodbc.
    with pytest.raises(ValueError, match="call 7000"):
        cur.fetchmany(5000)
    assert [row[0] for row in cur.fetchmany(N_LARGE)] == list(range(7001, N_LARGE + 1))


def test_read_ahead_converter_error_in_fetchall(cnxn, series_table):
    for sql_type in (SQL_VARCHAR, SQL_WVARCHAR):
        cnxn.add_output_converter(sql_type, failing_converter(30_000))
    cur = cnxn.cursor()
    cur.execute(f"SELECT id, s FROM {series_table} ORDER BY id")
    with pytest.raises(ValueError, match="call 30000"):
        cur.fetchall()
    assert cur.fetchone()[0] == 30_001
    # The cursor stays usable.
    assert cur.execute(f"SELECT COUNT(*) FROM {series_table}").fetchval() == N_LARGE


@pytest.mark.parametrize("backend", backends_where(lambda p: p.server_cursor_attributes), indirect=True)
@pytest.mark.parametrize("path", ["iteration", "fetchall"])
def test_read_ahead_driver_error_where_fetching_fails(db, backend, connect, path):
    # A server-side cursor computes rows as they are fetched: division by zero at row 20000
    # fails the SQLFetch of its block, here read ahead. The rows before that block are served
    # first, as many as without reading ahead; then the error, with its SQLSTATE.
    sql = f"SELECT i, 1 / (i - 20000) FROM ({backend.series(30_000)}) q"
    served = {}
    for read_ahead in (True, False):
        c = connect(backend.connstr.rstrip(";") + ";" + backend.server_cursor_attributes.format(n=1000))
        c.read_ahead = read_ahead
        cur = c.cursor()
        cur.execute(sql)
        ids = []
        with pytest.raises(db.DataError) as err:
            if path == "iteration":
                ids.extend(row[0] for row in cur)
            else:
                ids.extend(row[0] for row in cur.fetchall())
        assert err.value.args[0] == "22012"
        assert ids == list(range(1, len(ids) + 1))
        served[read_ahead] = len(ids)
        # Nothing of the failed block, nor of an earlier one, is served after the error.
        try:
            after = cur.fetchone()
        except db.Error:
            after = None
        assert after is None or after[0] > len(ids)
        c.rollback()
        assert cur.execute("SELECT 1").fetchval() == 1
    assert served[True] == served[False]
    if path == "iteration":
        assert 5000 < served[True] < 20_000


def test_read_ahead_result_abandoned(cnxn, series_table):
    # A block read ahead (and rows converted ahead) go with their result: a new execute, a
    # nextset and a close all find a clean cursor.
    cur = cnxn.cursor()
    sql = f"SELECT id, s, n FROM {series_table} ORDER BY id"
    cur.execute(sql)
    assert [tuple(next(cur)) for _ in range(10_000)][-1] == exp_row(10_000)
    got = cur.execute(f"SELECT id FROM {series_table} WHERE id <= 3 ORDER BY id").fetchall()
    assert [r[0] for r in got] == [1, 2, 3]
    cur.execute(sql)
    cur.fetchmany(20_000)
    assert cur.nextset() is False
    cur.execute(sql)
    assert len(cur.fetchmany(8000)) == 8000
    assert tuple(cur.fetchone()) == exp_row(8001)
    cur.close()
    cur = cnxn.cursor()
    assert len(cur.execute(sql).fetchall()) == N_LARGE


def test_read_ahead_rereads_values_longer_than_described(db, backend, connect, table):
    # Values the driver cuts short in a block are read again whole on their row: in blocks
    # read ahead too. SQLite keeps values longer than a VARCHAR's declared size; psqlODBC is
    # told to describe an unbounded VARCHAR as 5 wide.
    if backend.short_description is None:
        pytest.skip(f"{backend.name}'s driver describes columns as wide as their values")
    attributes, column_type = backend.short_description
    c = connect(backend.connstr.rstrip(";") + attributes)
    t = table(f"id {backend.ddl('int')}, v {column_type}")
    n = 6000
    values = [long_text(i, 300) if i % 997 == 0 else f"v{i % 10}" for i in range(n)]
    cur = c.cursor()
    for start in range(0, n, 500):
        params = [x for i in range(start, start + 500) for x in (i, values[i])]
        placeholders = ", ".join(["(?, ?)"] * 500)
        cur.execute(f"INSERT INTO {t} (id, v) VALUES {placeholders}", params)
    c.commit()
    cur.execute(f"SELECT id, v FROM {t} ORDER BY id")
    whole_or_data_error(db, lambda: [tuple(r) for r in cur.fetchall()], list(enumerate(values)))


@pytest.mark.parametrize("backend", backends_where(lambda p: p.invalid_utf8_text_sql), indirect=True)
@pytest.mark.parametrize("read_ahead", [True, False])
@pytest.mark.parametrize("path", ["iteration", "fetchall"])
def test_read_ahead_invalid_text_raises_at_its_row(db, backend, cnxn, series_table, path, read_ahead):
    # The read-ahead thread finds the shapes of text values in the blocks it reads; a value
    # that is not UTF-8 gets none, and the consumer's own decoding raises at its row. (A
    # database that stores such text: SQLite.)
    cnxn.read_ahead = read_ahead
    cur = cnxn.cursor()
    cur.execute(
        f"SELECT id, CASE WHEN id = 30000 THEN {backend.invalid_utf8_text_sql} ELSE s END "
        f"FROM {series_table} ORDER BY id"
    )
    ids = []
    with pytest.raises(db.DataError) as err:
        if path == "iteration":
            for row in cur:
                assert row[1] == f"row-{row[0]}"
                ids.append(row[0])
        else:
            cur.fetchall()
    assert err.value.args[0] == "22018"
    assert "UTF-8" in str(err.value)
    if path == "iteration":
        assert ids == list(range(1, 30_000))
        assert [row[0] for row in cur] == list(range(30_001, N_LARGE + 1))


@pytest.mark.fastodbc_only(reason="fastodbc pauses the cyclic collector while it builds rows")
@pytest.mark.parametrize("path", ["fetchall", "iteration", "fetchmany"])
def test_rows_are_built_without_collections(cnxn, series_table, path):
    # Rows are objects the cyclic collector counts (700 start a collection). Built by the
    # built-in converters they cannot form cycles, so the collector pauses while a block of
    # them is built, and is left as it was: on, or off.
    starts = []

    def count(phase, info):
        if phase == "start":
            starts.append(info["generation"])

    gc.callbacks.append(count)
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            cur = cnxn.cursor()
            cur.execute(f"SELECT id, s, n FROM {series_table} ORDER BY id")
            starts.clear()
            assert len(drain(cur, path)) == N_LARGE
            assert gc.isenabled() is enabled
            if not enabled or path == "fetchall":
                assert starts == []
            else:
                # Between blocks the caller's own objects may start one (without the pause:
                # one every 700 rows, ~70 here).
                assert len(starts) < N_LARGE // 700 // 4, starts
    finally:
        gc.callbacks.remove(count)
        gc.enable()


@pytest.mark.parametrize("read_ahead", [True, False])
def test_read_ahead_numbers_of_a_long_result(backend, cnxn, table, read_ahead):
    # SQLite's numbers and psqlODBC's integers are fetched as text; the thread reading ahead
    # parses them when it has time to spare. Every value must come back exact either way, the
    # longest float texts (read again whole on SQLite) included.
    n = 20_000
    extremes = [2**63 - 1, -(2**63), 0, -1]
    floats = [5e-324, -1.2345678901234567e-100, -2.2250738585072014e-308, 1.7976931348623157e308]

    def row(k):
        i = extremes[k % 4] if k % 1000 < 4 else k * 7919 - 10**9
        f = floats[k % 4] if k % 1000 < 4 else (k - n / 2) / 3.0
        return (k, i, None if k % 11 == 0 else f)

    t = table(f"k {backend.ddl('int')}, i {backend.ddl('bigint')}, f {backend.ddl('float')}")
    cur = cnxn.cursor()
    cur.fast_executemany = True
    cur.executemany(f"INSERT INTO {t} (k, i, f) VALUES (?, ?, ?)", [row(k) for k in range(n)])
    cnxn.commit()
    cnxn.read_ahead = read_ahead
    cnxn.fetch_buffer_bytes = 4000
    want = [
        (k, i, None if f is None else backend.float_roundtrip(f)) for k, i, f in map(row, range(n))
    ]
    got = [tuple(r) for r in cur.execute(f"SELECT k, i, f FROM {t} ORDER BY k").fetchall()]
    assert got == want
    assert {type(v) for r in got for v in r[1:]} == {int, float, type(None)}


@pytest.mark.fastodbc_only(reason="fastodbc's fetch threads")
def child_exit_code(pid, hung):
    """The exit code of forked child `pid`; the test fails with `hung` if it runs past 60 s."""
    deadline = time.monotonic() + 60
    while (done := os.waitpid(pid, os.WNOHANG)) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail(hung)
        time.sleep(0.05)
    return os.waitstatus_to_exitcode(done[1])


def test_read_ahead_in_a_forked_child(db, backend, cnxn, series_table):
    # Threads that fetched ahead park for the next long fetch. A child forked after one did
    # inherits the parked list but not the threads: its own long fetch must start threads of
    # its own, not hand its blocks to threads that do not exist and wait forever.
    cur = cnxn.cursor()
    assert len(cur.execute(f"SELECT id FROM {series_table}").fetchall()) == N_LARGE
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            child = db.connect(backend.connstr)
            rows = child.cursor().execute(f"SELECT id, s, n FROM {series_table} ORDER BY id")
            got = [tuple(r) for r in rows.fetchall()]
            code = 0 if got == [exp_row(i) for i in range(1, N_LARGE + 1)] else 2
            child.close()
        finally:
            os._exit(code)
    assert child_exit_code(pid, "the forked child's fetch never finished") == 0
    # The parent's threads still serve it.
    assert len(cur.execute(f"SELECT id FROM {series_table}").fetchall()) == N_LARGE


# ------------------------------------------------------------- iteration with the next block lent
# Iterating a long result leaves the next block's fetch running on a fetch thread while the rows
# converted from the current one are served (`Statement::lend`); whatever the cursor does next
# must take the statement back first.

ORDERED = "SELECT id, s, n FROM {t} ORDER BY id"


def iterate(cursor, count):
    """`count` rows through the iterator protocol, stopping there (the block goes on)."""
    it = iter(cursor)
    return [tuple(next(it)) for _ in range(count)]


@pytest.mark.parametrize("stop", [1500, 20_000])
def test_iteration_stopped_then_other_fetches_continue_in_order(cnxn, series_table, stop):
    cnxn.fetch_buffer_bytes = 20_000  # many blocks: read-ahead starts after three
    cur = cnxn.cursor().execute(ORDERED.format(t=series_table))
    got = iterate(cur, stop)
    got += [tuple(r) for r in cur.fetchmany(777)]
    got.append(tuple(cur.fetchone()))
    got += iterate(cur, 4000)
    got += [tuple(r) for r in cur.fetchall()]
    assert got == [exp_row(i) for i in range(1, N_LARGE + 1)]


def test_iteration_stopped_then_cursor_reused_dropped_or_closed(db, backend, cnxn, series_table):
    cnxn.fetch_buffer_bytes = 20_000
    cur = cnxn.cursor().execute(ORDERED.format(t=series_table))
    assert iterate(cur, 9000) == [exp_row(i) for i in range(1, 9001)]
    # A new statement on the same cursor, its description, then a second long iteration.
    assert cur.execute(f"SELECT COUNT(*) FROM {series_table}").fetchval() == N_LARGE
    cur.execute(ORDERED.format(t=series_table))
    assert [d[0] for d in cur.description] == ["id", "s", "n"]
    assert iterate(cur, 12_000)[-1] == exp_row(12_000)
    cur.close()
    with pytest.raises(db.ProgrammingError):
        cur.fetchone()
    # Dropped mid-iteration, and left so when the connection closes.
    dropped = cnxn.cursor().execute(ORDERED.format(t=series_table))
    iterate(dropped, 9000)
    del dropped
    gc.collect()
    left = cnxn.cursor().execute(ORDERED.format(t=series_table))
    iterate(left, 9000)
    cnxn.close()
    with pytest.raises(db.ProgrammingError):
        left.fetchone()


def test_iteration_stopped_while_the_connection_does_other_work(db, backend, connect, table, series_table):
    # Between two rows of an iteration, another cursor of the same connection writes and the
    # connection commits, while the next block may still be in the driver's hands.
    cnxn = connect()
    cnxn.fetch_buffer_bytes = 20_000
    t = table(f"id {backend.ddl('int')}")
    reader = cnxn.cursor().execute(ORDERED.format(t=series_table))
    writer = cnxn.cursor()
    it = iter(reader)
    got = []
    for k in range(N_LARGE):
        got.append(tuple(next(it)))
        if k % 5000 == 4999:
            writer.execute(f"INSERT INTO {t} VALUES (?)", k)
            cnxn.commit()
    assert next(it, None) is None
    assert got == [exp_row(i) for i in range(1, N_LARGE + 1)]
    assert writer.execute(f"SELECT COUNT(*) FROM {t}").fetchval() == N_LARGE // 5000


@pytest.mark.parametrize("slow", [False, True], ids=["fast", "slow"])
def test_fork_while_the_next_block_is_lent(db, backend, connect, series_table, slow):
    # The child inherits a cursor whose next block was being fetched by a thread that exists
    # only in the parent: closing the cursor there, or exiting, must not wait for it. "slow":
    # on PostgreSQL a server-side cursor sleeps 2 ms a row, so the fork surely comes while a
    # block is being fetched (otherwise the fetch may be over by then).
    if slow and backend.slow_fetch is None:
        pytest.skip(f"{backend.name}'s driver reads the whole result at execute")
    attributes, slow_condition = backend.slow_fetch or ("", "")
    cnxn = connect(backend.connstr.rstrip(";") + attributes)
    cnxn.fetch_buffer_bytes = 20_000
    query = ORDERED.format(t=series_table)
    if slow:
        # No ORDER BY: a sort would sleep through every row before the first fetch. The rows
        # come in insertion order.
        query = f"SELECT id, s, n FROM {series_table} WHERE {slow_condition}"
    cur = cnxn.cursor().execute(query)
    seen = 400 if slow else 9000  # read-ahead starts after ~300 rows here
    assert iterate(cur, seen)[-1] == exp_row(seen)
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            cur.close()
        finally:
            os._exit(0)
    assert child_exit_code(pid, "the forked child waited for its parent's fetch thread") == 0
    if slow:
        assert time.monotonic() - started < 1.0, "the child waited for a block"
        cur.close()  # the remaining rows would take 100 s
        return
    assert [tuple(r) for r in cur.fetchall()] == [exp_row(i) for i in range(9001, N_LARGE + 1)]


# ------------------------------------------------------------------ buffers kept between results
# A short result leaves its buffers bound for the next one on the same statement when the two
# are laid out alike (`KeptBuffers`); anything else must unbind them first.


@pytest.fixture
def kinds_table(backend, table, cnxn):
    """One row of every fixed-size kind plus text, binary and uuid (id 1), and one of NULLs
    (id 2). PostgreSQL's uuid (SQL_C_GUID) is as wide as its timestamp (TIMESTAMP_STRUCT)."""
    kinds = sorted(FIXED_SIZE_VALUES) + ["uuid"] * backend.supports_uuid
    t = table(
        f"id {backend.ddl('int')}, "
        + ", ".join(f"c_{k} {backend.ddl(k)}" for k in kinds)
        + f", c_text {backend.ddl('varchar(50)')}, c_bytes {backend.ddl('bytes')}"
    )
    values = {k: FIXED_SIZE_VALUES[k](5) for k in kinds if k != "uuid"}
    if backend.supports_uuid:
        values["uuid"] = backend.storable_uuid(uuid.UUID(int=0x0123456789ABCDEF0123456789ABCDEF))
    values["text"] = "kept-é-😀"
    values["bytes"] = b"\x00kept\xff"
    marks = ", ".join(["?"] * (len(values) + 1))
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES ({marks})", 1, *values.values())
    cur.execute(f"INSERT INTO {t} VALUES ({marks})", 2, *([None] * len(values)))
    cnxn.commit()
    return t, values


def comparable(kind, value):
    # pyodbc, the oracle, fetches uuid columns as upper-case str.
    return str(value).lower() if kind == "uuid" and value is not None else value


def test_consecutive_short_results_of_every_layout(cursor, kinds_table):
    # Every ordered pair of column kinds runs back to back on one cursor: results alike
    # reuse the buffers, the others must not, above all those of the same element size and
    # another C type (uuid and timestamp). NULL rows alternate with values, as do one and
    # two columns.
    t, values = kinds_table
    kinds = sorted(values)
    for a in kinds:
        for b in kinds:
            for kind, row_id in ((a, 1), (b, 2), (b, 1)):
                got = cursor.execute(f"SELECT c_{kind} FROM {t} WHERE id = ?", row_id).fetchall()
                want = comparable(kind, values[kind]) if row_id == 1 else None
                assert [comparable(kind, r[0]) for r in got] == [want], (a, b, kind)
        got = cursor.execute(f"SELECT c_{a}, c_text FROM {t} WHERE id = 1").fetchone()
        assert (comparable(a, got[0]), got[1]) == (comparable(a, values[a]), values["text"])
        assert cursor.fetchone() is None


def test_short_results_around_long_and_empty_ones(cursor, series_table):
    # A grown block is not kept; an empty result and a long one between two short ones
    # change nothing the next result reads.
    one = f"SELECT id, s, n FROM {series_table} WHERE id = ?"
    for i in (3, 7, 3):
        assert tuple(cursor.execute(one, i).fetchone()) == exp_row(i)
        assert cursor.execute(one, -i).fetchall() == []
        assert tuple(cursor.execute(one, i + 1).fetchone()) == exp_row(i + 1)
        got = cursor.execute(f"SELECT id, s, n FROM {series_table} ORDER BY id").fetchall()
        assert [tuple(r) for r in got] == [exp_row(k) for k in range(1, N_LARGE + 1)]
        assert tuple(cursor.execute(one, i + 2).fetchone()) == exp_row(i + 2)


@pytest.mark.fastodbc_only(
    where=lambda p: p.pyodbc_fast_executemany_crashes, reason="pyodbc's fast_executemany segfaults inside sqliteodbc"
)
def test_short_result_then_insert_batch_then_short_result(backend, cnxn, table):
    # A batch insert of enough rows first reads the catalog on the cursor's own statement with
    # SQLGetData (psqlODBC's array insert, sqliteodbc's compiled insert), after a SELECT left
    # its buffers bound. Those are unbound first, as ODBC asks of drivers without
    # SQL_GD_BOUND; these two drivers would also read past the bindings, so what this checks
    # is that every statement of the sequence still gets its own values.
    t = table(f"id {backend.ddl('int')}, s {backend.ddl('varchar(10)')}")
    cur = cnxn.cursor()
    cur.fast_executemany = True
    n = 100  # above the batch paths' minimum (64 rows)
    for round_ in range(3):
        assert cur.execute("SELECT 41 + 1").fetchone()[0] == 42
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(round_ * n + k, f"s{k}") for k in range(n)])
        assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == (round_ + 1) * n
        got = cur.execute(f"SELECT id, s FROM {t} WHERE id = ?", round_ * n + 3).fetchone()
        assert tuple(got) == (round_ * n + 3, "s3")


def test_short_results_across_result_sets(backend, cursor, kinds_table):
    if not backend.multiple_statements:
        pytest.skip(f"{backend.name} runs one statement per execute")
    t, values = kinds_table
    cursor.execute(f"SELECT c_date FROM {t} WHERE id = 1; SELECT c_time, c_text FROM {t} WHERE id = 1")
    assert cursor.fetchone()[0] == values["date"]
    assert cursor.nextset() is True
    assert tuple(cursor.fetchone()) == (values["time"], values["text"])
    cursor.execute(f"SELECT c_time FROM {t} WHERE id = 1; SELECT c_date FROM {t} WHERE id = 1")
    assert cursor.fetchone()[0] == values["time"]
    assert cursor.nextset() is True
    assert cursor.fetchone()[0] == values["date"]


@pytest.mark.parametrize("rows", [1_000, 1_169, 2_000, 10_001])
@pytest.mark.parametrize("layout", ["id_blob", "id_text_blob", "blob_only"])
def test_streamed_columns_in_blocks_read_ahead(backend, cnxn, table, rows, layout):
    # A long binary column is streamed with SQLGetData; the block read ahead into must carry
    # its storage as the first block does (a long result reads ahead after 1,168 rows).
    # Every fetch method, with and without read-ahead, reads the same table.
    columns = {
        "id_blob": ["id", "data"],
        "id_text_blob": ["id", "s", "data"],
        "blob_only": ["data"],
    }[layout]
    ddl = {"id": backend.ddl("int"), "s": backend.ddl("varchar(50)"), "data": backend.ddl("bytes")}
    t = table(", ".join(f"{c} {ddl[c]}" for c in columns))

    def value(i, c):
        if c == "id":
            return i
        if c == "s":
            return f"s{i}"
        return None if i % 11 == 0 else bytes([i % 256, 0, 1]) * (1 + i % 5)

    expected = [tuple(value(i, c) for c in columns) for i in range(rows)]
    cur = cnxn.cursor()
    cur.executemany(
        f"INSERT INTO {t} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", expected
    )
    cnxn.commit()
    order = "id" if "id" in columns else "data"

    def ordered(rs):
        return sorted(rs, key=lambda r: (r[0] is not None, r[0] or b""))

    for read_ahead in (True, False):
        cnxn.read_ahead = read_ahead
        for path in ("fetchall", "iteration", "fetchone", "fetchmany"):
            cur.execute(f"SELECT {', '.join(columns)} FROM {t} ORDER BY {order}")
            got = [tuple(r) for r in drain(cur, path)]
            if order == "id":
                assert got == expected, (read_ahead, path)
            else:
                assert ordered(got) == ordered(expected), (read_ahead, path)
