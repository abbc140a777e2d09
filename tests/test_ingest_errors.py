"""Bulk load, bad input: a type pair that would lose information refused before anything is
sent, naming both types; a value that doesn't fit its column refused naming the column, the
input row and the value; never a silent cut. Each error leaves nothing of the load behind and
the connection usable. Where a database keeps any value in any column (SQLite), the value
must come back whole instead."""

from __future__ import annotations

import datetime
import decimal

import pyarrow as pa
import pytest

pytestmark = pytest.mark.fastodbc_only(reason="ingest is fastodbc's")

N = 3000
BAD_ROW = 1234  # counted from 1, as the messages count input rows


def table_with(values: pa.Array, bad=None) -> pa.Table:
    """N rows of ``values`` cycled, ``bad`` planted at input row BAD_ROW."""
    items = values.to_pylist()
    column = [items[i % len(items)] for i in range(N)]
    if bad is not None:
        column[BAD_ROW - 1] = bad
    return pa.table({"id": pa.array(range(N), pa.int32()), "v": pa.array(column, values.type)})


def assert_unchanged_and_usable(cursor, name: str, autocommit: bool) -> None:
    assert cursor.execute(f"SELECT COUNT(*) FROM {name}").fetchval() == 0
    assert cursor.connection.autocommit == autocommit
    assert cursor.execute("SELECT 1").fetchval() == 1


REFUSED_TYPES = [
    # (column kind, Arrow values, words the message holds)
    ("int", pa.array([1.5, 2.0], pa.float64()), ("double", "INTEGER")),
    ("int", pa.array(["1", "2"], pa.string()), ("string", "INTEGER")),
    ("date", pa.array([datetime.datetime(2020, 1, 1, 5)], pa.timestamp("us")), ("timestamp[us]", "DATE")),
    ("varchar(50)", pa.array([1.5], pa.float64()), ("double", "VARCHAR")),
    ("int", pa.array([[1]], pa.list_(pa.int64())), ("list",)),
]


@pytest.mark.parametrize(("kind", "values", "words"), REFUSED_TYPES, ids=lambda x: str(x)[:30])
def test_lossy_type_pairs_are_refused_before_anything_is_sent(db, backend, cursor, table, kind, values, words):
    name = table(f"id INTEGER, v {backend.ddl(kind)}")
    autocommit = cursor.connection.autocommit
    with pytest.raises(db.DataError) as err:
        cursor.ingest(name, table_with(values))
    message = str(err.value)
    assert '"v"' in message and "input column" in message, message
    for w in words:
        assert w.lower() in message.lower(), message
    assert_unchanged_and_usable(cursor, name, autocommit)


def test_a_scale_the_column_would_cut_is_refused(db, backend, cursor, table):
    name = table(f"id INTEGER, v {backend.ddl('numeric(18,4)')}")
    values = pa.array([decimal.Decimal("1.123456")], pa.decimal128(18, 6))
    if backend.numeric_is_float:
        # NUMERIC is a double there: decimals of up to 15 significant digits come back equal.
        cursor.ingest(name, table_with(values))
        assert cursor.execute(f"SELECT v FROM {name} WHERE id = 0").fetchval() == 1.123456
        return
    with pytest.raises(db.DataError, match=r"decimal128\(18, 6\).*NUMERIC\(18,4\).*keeps 4 digits after"):
        cursor.ingest(name, table_with(values))
    assert_unchanged_and_usable(cursor, name, cursor.connection.autocommit)


# (column kind, valid values, a bad value, the SQLSTATE, words naming the value)
BAD_VALUES = [
    ("varchar(10)", pa.array(["abc", "ÆØÅ😀", None], pa.string()), "ÆØÅ😀abcdefg", "22001", "11 characters"),
    ("smallint", pa.array([1, -32768, 32767, None], pa.int64()), 40_000, "22003", "40000"),
    ("int", pa.array([7, None], pa.uint64()), 2**32, "22003", "4294967296"),
    (
        "timestamp(0)",
        pa.array([datetime.datetime(2020, 1, 1, 1, 2, 3), None], pa.timestamp("us")),
        datetime.datetime(2020, 1, 1, 1, 2, 3, 500_000),
        "22008",
        "fractional",
    ),
    (
        "numeric(18,4)",
        pa.array([decimal.Decimal("1.5"), None], pa.decimal128(30, 4)),
        decimal.Decimal("123456789012345.5"),
        "22003",
        "123456789012345.5",
    ),
]


@pytest.mark.parametrize(("kind", "values", "bad", "sqlstate", "words"), BAD_VALUES, ids=lambda x: str(x)[:20])
def test_a_value_that_does_not_fit_names_column_row_and_value(
    db, backend, cursor, table, kind, values, bad, sqlstate, words
):
    name = table(f"id INTEGER, v {backend.ddl(kind)}")
    data = table_with(values, bad)
    autocommit = cursor.connection.autocommit
    if backend.columns_hold_any_type and not (kind.startswith("numeric") and backend.numeric_is_float):
        # No declared size or range is a limit: the value is kept whole.
        assert cursor.ingest(name, data) == N
        got = cursor.execute(f"SELECT v FROM {name} WHERE id = ?", BAD_ROW - 1).fetchval()
        assert got == (float(bad) if isinstance(bad, decimal.Decimal) and backend.numeric_is_float else bad)
        return
    with pytest.raises(db.DataError) as err:
        cursor.ingest(name, data)
    message = str(err.value)
    assert err.value.args[0] == sqlstate, message
    # A double keeps 15 significant digits: the value is refused for having more.
    words = "16 significant digits" if backend.numeric_is_float and kind.startswith("numeric") else words
    assert '"v"' in message and f"input row {BAD_ROW}" in message and words in message, message
    assert_unchanged_and_usable(cursor, name, autocommit)


def test_null_into_not_null_is_an_integrity_error_naming_the_row(db, backend, cursor, table):
    name = table(f"id INTEGER, v {backend.ddl('varchar(50)')} NOT NULL")
    data = table_with(pa.array(["a", "b"]), None)
    column = data.column("v").to_pylist()
    column[BAD_ROW - 1] = None
    data = data.set_column(1, "v", pa.array(column))
    autocommit = cursor.connection.autocommit
    with pytest.raises(db.IntegrityError) as err:
        cursor.ingest(name, data)
    assert f"input row {BAD_ROW}" in str(err.value) and "NOT NULL" in str(err.value)
    assert_unchanged_and_usable(cursor, name, autocommit)


# The chunk after the failing one may be converted already (the load converts one chunk ahead
# of the one being sent): the first, a middle and the last of six chunks.
@pytest.mark.parametrize("dup_at", [3, 1234, N - 1])
def test_an_error_from_the_database_rolls_the_whole_load_back(db, backend, cursor, table, dup_at):
    name = table("id INTEGER PRIMARY KEY, v INTEGER")
    ids = list(range(N))
    ids[dup_at] = dup_at - 1  # a duplicate key
    autocommit = cursor.connection.autocommit
    sqlstate, class_name = backend.unique_violation
    with pytest.raises(getattr(db, class_name)) as err:
        cursor.ingest(name, pa.table({"id": ids, "v": ids}), batch_rows=500)
    assert err.value.args[0].startswith(sqlstate)
    assert_unchanged_and_usable(cursor, name, autocommit)


def test_single_precision_columns_refuse_doubles(db, backend, cursor, table):
    name = table(f"id INTEGER, v {backend.ddl('real')}")
    doubles = table_with(pa.array([0.1, None], pa.float64()))
    if backend.columns_hold_any_type:
        assert cursor.ingest(name, doubles) == N  # REAL is 8 bytes there
        return
    with pytest.raises(db.DataError, match="single precision"):
        cursor.ingest(name, doubles)
    assert cursor.ingest(name, doubles.cast(pa.schema([("id", pa.int32()), ("v", pa.float32())]))) == N
