"""Server types a driver describes wrongly, read and loaded as the database holds them (issue 30):
PostgreSQL's unconstrained ``numeric`` (described NUMERIC(28,6)) and ``interval`` (VARCHAR(32));
MariaDB's ``TIMESTAMP NOT NULL`` (reported nullable, NULL stored as the current time), its
fixed-length ``BINARY(n)`` and its ``TIME``, a duration of up to 838 hours. Each test runs
where the profile names the type; the values are the database's own (psycopg / PyMySQL agree:
tests/test_differential.py)."""

from __future__ import annotations

import datetime
import decimal

import pyarrow as pa
import pytest

from profiles import backends_where

pytestmark = pytest.mark.fastodbc_only(reason="Arrow fetch and ingest are fastodbc's")

D = decimal.Decimal
# Values an unconstrained numeric holds that NUMERIC(28,6) does not: more digits after the
# point, more before it, and PostgreSQL's special values.
UNCONSTRAINED = [
    "1.5", "0.000000000001", "123456789012345678901234567890.123456789", "-2", "NaN", "Infinity", "-Infinity"
]


@pytest.mark.parametrize("backend", backends_where(lambda p: p.unconstrained_numeric_ddl), indirect=True)
def test_unconstrained_numeric_reads_whole(backend, cursor, table):
    t = table(f"id {backend.ddl('int')}, n {backend.unconstrained_numeric_ddl}")
    for i, v in enumerate(UNCONSTRAINED):
        cursor.execute(f"INSERT INTO {t} VALUES ({i}, '{v}')")
    sql = f"SELECT n FROM {t} ORDER BY id"
    assert [str(r[0]) for r in cursor.execute(sql).fetchall()] == [str(D(v)) for v in UNCONSTRAINED]
    got = cursor.execute(sql).fetch_arrow_table()
    # Its exact text: no decimal128 holds every value (nor NaN).
    assert got.schema.field("n").type == pa.string()
    assert [D(v) if not D(v).is_nan() else "NaN" for v in got.column("n").to_pylist()] == [
        D(v) if not D(v).is_nan() else "NaN" for v in UNCONSTRAINED
    ]


@pytest.mark.parametrize("backend", backends_where(lambda p: p.unconstrained_numeric_ddl), indirect=True)
def test_append_into_unconstrained_numeric_takes_what_the_database_takes(backend, cursor, table):
    """Described NUMERIC(28,6), the column was said to keep 6 digits after the point: the
    catalog says it declares none, so decimals of any scale and text (NaN too) go in."""
    t = table(f"id {backend.ddl('int')}, n {backend.unconstrained_numeric_ddl}")
    decimals = [D("0.12345678901234567890"), D("-12345678901234567.5"), None]
    wide = pa.array(decimals, pa.decimal128(38, 20))
    cursor.ingest(t, pa.table({"id": pa.array([0, 1, 2], pa.int32()), "n": wide}))
    texts = ["123456789012345678901234567890.123456789", "NaN", "1E-12"]
    cursor.ingest(t, pa.table({"id": pa.array([3, 4, 5], pa.int32()), "n": pa.array(texts, pa.string())}))
    cursor.connection.commit()
    got = [r[0] for r in cursor.execute(f"SELECT n FROM {t} ORDER BY id").fetchall()]
    assert got[:3] == decimals
    assert [str(v) for v in got[3:]] == ["123456789012345678901234567890.123456789", "NaN", "1E-12"]


@pytest.mark.parametrize("backend", backends_where(lambda p: not p.numeric_is_float), indirect=True)
def test_decimal_text_into_a_declared_numeric_is_checked(db, backend, cursor, table):
    t = table(f"id {backend.ddl('int')}, n {backend.ddl('numeric(18,4)')}")
    good = ["12.5", "-0.0001", "12345678901234.1200", None]
    cursor.ingest(t, pa.table({"id": pa.array(range(4), pa.int32()), "n": pa.array(good, pa.string())}))
    cursor.connection.commit()
    got = [r[0] for r in cursor.execute(f"SELECT n FROM {t} ORDER BY id").fetchall()]
    assert got == [None if v is None else D(v) for v in good]
    refused = [("1.00001", "after the point"), ("123456789012345", "left of the point"), ("NaN", "plain decimal")]
    for bad, words in refused:
        with pytest.raises(db.DataError) as err:
            texts = pa.array(["1", bad], pa.string())
            cursor.ingest(t, pa.table({"id": pa.array([9, 10], pa.int32()), "n": texts}))
        message = str(err.value)
        assert words in message and "input row 2" in message and repr(bad) in message.replace('"', "'"), message


@pytest.mark.parametrize("backend", backends_where(lambda p: p.interval_ddl), indirect=True)
def test_interval_reads_as_text_and_appends_what_the_database_parses(backend, cursor, table):
    t = table(f"id {backend.ddl('int')}, i {backend.interval_ddl}")
    values = ["1 year 2 mons 3 days 04:05:06.789", "-3 days", "838:59:59.999999", None]
    # 33 characters, described VARCHAR(32): refused before (22001).
    cursor.ingest(t, pa.table({"id": pa.array(range(4), pa.int32()), "i": pa.array(values, pa.string())}))
    cursor.connection.commit()
    want = ["1 year 2 mons 3 days 04:05:06.789", "-3 days", "838:59:59.999999", None]
    sql = f"SELECT i FROM {t} ORDER BY id"
    assert [r[0] for r in cursor.execute(sql).fetchall()] == want
    got = cursor.execute(sql).fetch_arrow_table()
    assert got.schema.field("i").type == pa.string() and got.column("i").to_pylist() == want
    # Its text goes back in unchanged: a round trip through Arrow.
    cursor.execute(f"DELETE FROM {t}")
    cursor.ingest(t, pa.table({"id": pa.array(range(4), pa.int32()), "i": got.column("i")}))
    assert [r[0] for r in cursor.execute(sql).fetchall()] == want


@pytest.mark.parametrize("backend", backends_where(lambda p: p.null_stamping_timestamp_ddl), indirect=True)
def test_null_into_a_stamping_timestamp_is_refused_by_a_load(db, backend, cursor, table):
    """The driver reports the column nullable and the database would store the current time:
    the load reads NOT NULL in the server's catalog and refuses the NULL by column and row;
    executemany sends the NULL as given, and the database stores the time (documented)."""
    t = table(f"id {backend.ddl('int')}, ts {backend.null_stamping_timestamp_ddl}")
    stamps = [datetime.datetime(2024, 1, 1), None]
    with pytest.raises(db.IntegrityError) as err:
        cursor.ingest(t, pa.table({"id": pa.array([1, 2], pa.int32()), "ts": pa.array(stamps, pa.timestamp("us"))}))
    assert "NOT NULL" in str(err.value) and '"ts"' in str(err.value) and "input row 2" in str(err.value)
    assert cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchval() == 0
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(1, stamps[0]), (2, None)])
    got = cursor.execute(f"SELECT ts FROM {t} WHERE id = 2").fetchval()
    assert got is not None and got.year >= 2025


@pytest.mark.parametrize("backend", backends_where(lambda p: p.fixed_binary_ddl), indirect=True)
def test_short_values_in_fixed_binary_come_back_as_the_database_keeps_them(backend, cursor, table):
    t = table(f"id {backend.ddl('int')}, b {backend.fixed_binary_ddl.format(n=4)}")
    values = [b"ab", b"abcd", b"", None]
    cursor.ingest(t, pa.table({"id": pa.array(range(4), pa.int32()), "b": pa.array(values, pa.binary())}))
    cursor.connection.commit()
    want = [None if v is None else (v.ljust(4, b"\0") if backend.fixed_binary_pads else v) for v in values]
    sql = f"SELECT b FROM {t} ORDER BY id"
    assert [None if r[0] is None else bytes(r[0]) for r in cursor.execute(sql).fetchall()] == want
    assert cursor.execute(sql).fetch_arrow_table().column("b").to_pylist() == want


@pytest.mark.parametrize("backend", backends_where(lambda p: p.time_duration_range), indirect=True)
def test_time_beyond_a_day_reads(backend, cursor, table):
    """A TIME that is a duration: rows give datetime.time within a day (as pyodbc) and
    datetime.timedelta outside it; Arrow gives duration[us] for the whole column."""
    lowest, highest = backend.time_duration_range
    t = table(f"id {backend.ddl('int')}, t {backend.ddl('time')}")
    texts = [lowest, "-00:00:01", "12:34:56.5", "24:00:00", highest, None]
    for i, v in enumerate(texts):
        cursor.execute(f"INSERT INTO {t} VALUES ({i}, {'NULL' if v is None else repr(v)})")
    cursor.connection.commit()

    def duration(text: str) -> datetime.timedelta:
        sign = -1 if text.startswith("-") else 1
        h, m, s = text.lstrip("-").split(":")
        return sign * datetime.timedelta(hours=int(h), minutes=int(m), seconds=float(s))

    sql = f"SELECT t FROM {t} ORDER BY id"
    rows = [r[0] for r in cursor.execute(sql).fetchall()]
    noon = datetime.time(12, 34, 56, 500000)
    assert rows == [duration(lowest), duration("-00:00:01"), noon, duration("24:00:00"), duration(highest), None]
    got = cursor.execute(sql).fetch_arrow_table()
    assert got.schema.field("t").type == pa.duration("us")
    assert got.column("t").to_pylist() == [None if v is None else duration(v) for v in texts]


@pytest.mark.parametrize("backend", backends_where(lambda p: p.nan_stored_as == "refused"), indirect=True)
def test_a_value_the_database_refuses_is_named_by_its_input_row(db, backend, cursor, table):
    """NaN in the third row of the load's second chunk (input row 7): the message names the
    input row and the value, not the row within the chunk the server counts."""
    t = table(f"id {backend.ddl('int')}, d {backend.ddl('float')}")
    values = [float(i) for i in range(10)]
    values[6] = float("nan")
    data = pa.table({"id": pa.array(range(10), pa.int32()), "d": pa.array(values, pa.float64())})
    with pytest.raises(db.Error) as err:
        cursor.ingest(t, data, batch_rows=4)
    assert "input row 7, value NaN" in err.value.args[1], err.value


def test_a_chunk_the_database_refuses_is_named_by_its_input_rows(db, backend, cursor, table):
    t = table(f"id {backend.ddl('int')} PRIMARY KEY")
    ids = [1, 2, 3, 4, 5, 6, 1, 8, 9, 10]  # input row 7 repeats an id
    # SQLite's errors are all HY000 (DatabaseError): the class is not what this test is about.
    with pytest.raises(db.DatabaseError) as err:
        cursor.ingest(t, pa.table({"id": pa.array(ids, pa.int32())}), batch_rows=4)
    message = err.value.args[1]
    assert "the load's input rows 5 to 8" in message or "the load's input row 7" in message, message
