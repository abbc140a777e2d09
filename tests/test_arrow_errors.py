"""Arrow fetch, errors in the middle of a result: the DB-API exception when iterating in
Python, the consumer's own exception carrying the ODBC diagnostic through the capsule stream;
never a shorter table; the connection usable afterwards."""

from __future__ import annotations

import gc

import pyarrow as pa
import pytest

from arrowcheck import check_batch
from profiles import backends_where

pytestmark = pytest.mark.fastodbc_only(reason="Arrow fetch is fastodbc's")

N = 10_000
BAD_AT = 9_000
VALID = {"date": "'2024-01-02'", "timestamp": "'2024-01-02 03:04:05'"}


def capsule_consumers(cur, sql):
    """Ways a consumer reads a result through the capsule stream, each reading it all."""
    yield "pyarrow reader", lambda: pa.RecordBatchReader.from_stream(cur.execute(sql).fetch_record_batch()).read_all()
    yield "pyarrow small batches", lambda: pa.RecordBatchReader.from_stream(
        cur.execute(sql).fetch_record_batch(batch_rows=100)).read_all()
    yield "pa.table(cursor)", lambda: pa.table(cur.execute(sql))
    yield "nanoarrow", lambda: _nanoarrow_read(cur.execute(sql).fetch_record_batch())


def _nanoarrow_read(reader):
    na = pytest.importorskip("nanoarrow")
    return na.ArrayStream(reader).read_all()


def assert_fails_mid_stream(db, cnxn, sql: str, error_class, first_ids: int | None, words: tuple[str, ...]):
    """The rows path's error, raised through every Arrow path: the DB-API class and the rows
    path's SQLSTATE in Python; the Python exception's message (the driver's "[SQLSTATE] text",
    or fastodbc's naming column, row and value) and ``words`` in a consumer's message."""
    cur = cnxn.cursor()
    with pytest.raises(error_class) as rows_err:
        cur.execute(sql).fetchall()
    state = rows_err.value.args[0]
    cnxn.rollback()

    # Python iteration: the batches before the error are whole and right, then the exception.
    reader = cur.execute(sql).fetch_record_batch(batch_rows=500)
    seen = 0
    with pytest.raises(error_class) as err:
        for batch in reader:
            check_batch(batch, 500)
            assert batch.column(0).to_pylist() == list(range(seen + 1, seen + batch.num_rows + 1))
            seen += batch.num_rows
    reader.close()  # after its error (closing a reader that failed is allowed)
    states = [err.value.args[0]]
    text = err.value.args[1]
    for w in words:
        assert w in text, (w, err.value)
    if first_ids is not None:
        assert seen <= first_ids
    cnxn.rollback()

    with pytest.raises(error_class) as err:
        cur.execute(sql).fetch_arrow_table()
    states.append(err.value.args[0])
    cnxn.rollback()

    for name, read in capsule_consumers(cur, sql):
        with pytest.raises(Exception) as err:  # noqa: B017 - the consumer's own exception class
            got = read()
            pytest.fail(f"{name}: a table of {got.num_rows if hasattr(got, 'num_rows') else len(got)} rows")
        message = str(err.value)
        for w in (text, *words):
            assert w in message, (name, w, type(err.value), message)
        cnxn.rollback()
        assert cur.execute("SELECT 1").fetchone()[0] == 1, name
    assert cnxn.cursor().execute("SELECT 2").fetchone()[0] == 2
    # Last: the SQLSTATE of the rows path's error for the same value.
    assert states == [state, state], (states, "rows path:", rows_err.value.args)


@pytest.mark.parametrize("backend", backends_where(lambda p: p.unrepresentable_datetimes), indirect=True)
def test_datetime_arrow_cannot_hold_mid_result(db, backend, table, cnxn):
    """A date the rows path refuses (year 0, month 0, -infinity), after 9,000 good rows."""
    cur = cnxn.cursor()
    for kind, literal in backend.unrepresentable_datetimes:
        t = table(f"id {backend.ddl('int')}, stamp {backend.ddl(kind)}")
        cur.execute(f"INSERT INTO {t} (id) SELECT i FROM ({backend.series(N)}) q")
        cur.execute(f"UPDATE {t} SET stamp = {VALID[kind]}")
        cur.execute(f"UPDATE {t} SET stamp = {literal} WHERE id = {BAD_AT}")
        cnxn.commit()
        assert_fails_mid_stream(db, cnxn, f"SELECT id, stamp FROM {t} ORDER BY id", db.DataError, BAD_AT - 1, ())


# Stored text no number column of Arrow can hold: short, and longer than any number's text (the
# Arrow fetch reads number columns a rowset at a time and refuses that one at the fetch).
STORED_TEXT = {"short": ("abc", "abc"), "long": ("x" * 40, "CAST it in the query")}


@pytest.mark.parametrize("backend", backends_where(lambda p: p.columns_hold_any_type), indirect=True)
@pytest.mark.parametrize("stored", STORED_TEXT)
@pytest.mark.parametrize("column", ["INTEGER", "REAL"])
def test_value_arrow_cannot_hold_mid_result(db, backend, table, cnxn, stored, column):
    """Text in SQLite's INTEGER or REAL column after 9,000 numbers: DataError naming column,
    row and value (or, for text longer than any number, asking for a CAST); the rows path
    returns the text whole."""
    value, named = STORED_TEXT[stored]
    t = table(f"id INTEGER, amount {column}")
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} SELECT i, i FROM ({backend.series(N)}) q")
    cur.execute(f"UPDATE {t} SET amount = '{value}' WHERE id = {BAD_AT}")
    cnxn.commit()
    sql = f"SELECT id, amount FROM {t} ORDER BY id"
    assert cur.execute(sql).fetchall()[BAD_AT - 1][1] == value  # the rows path returns what it holds
    reader = cur.execute(sql).fetch_record_batch(batch_rows=500)
    with pytest.raises(db.DataError) as err:
        for _ in reader:
            pass
    reader.close()
    text = err.value.args[1]
    assert "amount" in text and named in text and f"row {BAD_AT}:" in text, err.value
    for name, read in capsule_consumers(cur, sql):
        with pytest.raises(Exception) as capsule_err:  # noqa: B017 - the consumer's own exception class
            read()
            pytest.fail(f"{name}: no error")
        for w in (text, "amount", named):
            assert w in str(capsule_err.value), (name, w, capsule_err.value)
    assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == N
    # The row is named by its place in the result, whatever was fetched as rows before.
    for served in (0, 1, 4_321):
        cur.execute(sql)
        cur.fetchmany(served)
        with pytest.raises(db.DataError) as err:
            cur.fetch_arrow_table()
        assert f"row {BAD_AT}:" in err.value.args[1] and named in err.value.args[1], (served, err.value)
    # A reader that only looked at the schema leaves the rows to the rows path: the text whole.
    reader = cur.execute(sql).fetch_record_batch()
    assert reader.schema.names == ["id", "amount"]
    del reader
    gc.collect()
    rows = cur.fetchall()
    assert len(rows) == N and rows[BAD_AT - 1][1] == value


@pytest.mark.parametrize(
    "backend", backends_where(lambda p: p.server_cursor_attributes and p.division_by_zero_raises), indirect=True
)
def test_driver_error_mid_result(db, backend, connect):
    """A server-side cursor computes rows as they are fetched: division by zero at row 5,000
    fails a fetch in the middle of the stream (no ORDER BY: a sort would compute every row at
    execute)."""
    cnxn = connect(backend.connstr.rstrip(";") + ";" + backend.server_cursor_attributes.format(n=1000))
    sql = f"SELECT i, 1 / (i - 5000) AS q FROM ({backend.series(N)}) s"
    assert_fails_mid_stream(db, cnxn, sql, db.DataError, 4999, ("22012",))
