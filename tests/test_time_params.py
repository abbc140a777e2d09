"""datetime.time and datetime.datetime parameters keep their microseconds (issue 16, defect 3:
MariaDB Connector/ODBC refused a TIME parameter with a fraction, 22008), in every way a
parameter is sent, and come back with them where the column keeps a fraction.

The stored value is checked by the database itself (a comparison with a literal), not only by
fetching it back."""

from __future__ import annotations

import datetime

import pytest

from profiles import backends_where

TIMES = [
    datetime.time(1, 2, 3, 456789),
    datetime.time(1, 2, 3, 654321),
    datetime.time(23, 59, 59, 999999),
    datetime.time(0, 0, 0, 1),
    datetime.time(12, 0, 0),
]
TIMESTAMPS = [
    datetime.datetime(2024, 1, 2, 3, 4, 5, 678901),
    datetime.datetime(2024, 2, 29, 23, 59, 59, 999999),
    datetime.datetime(1999, 12, 31, 0, 0, 0, 1),
    datetime.datetime(2024, 1, 2, 3, 4, 5),
]
HOWS = ["execute", "executemany", "fast_executemany"]


def insert(cnxn, t: str, rows: list[tuple], how: str) -> None:
    cur = cnxn.cursor()
    if how == "execute":
        for row in rows:
            cur.execute(f"INSERT INTO {t} VALUES (?, ?)", *row)
    else:
        cur.fast_executemany = how == "fast_executemany"
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
    cnxn.commit()


@pytest.mark.fastodbc_only(reason="pyodbc binds datetime.time without its fraction")
@pytest.mark.parametrize("how", HOWS)
def test_time_with_microseconds_stored_and_fetched(backend, table, cnxn, how):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('time')}")
    rows = list(enumerate(TIMES))
    insert(cnxn, t, rows, how)
    cur = cnxn.cursor()
    got = [tuple(r) for r in cur.execute(f"SELECT id, v FROM {t} ORDER BY id").fetchall()]
    assert got == [(i, backend.time_roundtrip(v)) for i, v in rows]
    for i, v in rows:
        literal = f"'{backend.time_roundtrip(v).isoformat()}'"
        assert cur.execute(f"SELECT id FROM {t} WHERE v = {literal}").fetchall() == [(i,)], v


@pytest.mark.fastodbc_only(reason="pyodbc binds datetime.time without its fraction")
@pytest.mark.parametrize("how", HOWS)
def test_time_into_a_column_without_fraction(backend, table, cnxn, how):
    # Never an error for a valid value: the database keeps what its TIME(0) keeps (rounded on
    # PostgreSQL, truncated on MariaDB, as given on SQLite).
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('time(0)')}")
    rows = [(i, v) for i, v in enumerate(TIMES) if v.hour < 23]  # PostgreSQL: no 24:00:00
    insert(cnxn, t, rows, how)
    got = cnxn.cursor().execute(f"SELECT id, v FROM {t} ORDER BY id").fetchall()
    assert [tuple(r) for r in got] == [(i, backend.time_scale0_roundtrip(v)) for i, v in rows]


@pytest.mark.fastodbc_only(reason="pyodbc binds datetime.time without its fraction")
@pytest.mark.parametrize("value", TIMES, ids=str)
def test_select_time_parameter(backend, cursor, value):
    got = cursor.execute("SELECT ?", value).fetchone()[0]
    as_text = backend.time_param_is_text or (backend.time_fraction_param_is_text and value.microsecond)
    assert got == (value.isoformat() if as_text else value)


WHOLE_SECONDS = [datetime.time(12, 57, 18), datetime.time(0, 0, 0), datetime.time(23, 59, 59)]


@pytest.mark.fastodbc_only(
    where=lambda p: p.pyodbc_time_param_is_text, reason="psqlODBC gives pyodbc's SQL_C_TYPE_TIME back as text"
)
@pytest.mark.parametrize("backend", backends_where(lambda p: not p.time_param_is_text), indirect=True)
@pytest.mark.parametrize("value", WHOLE_SECONDS, ids=str)
def test_select_whole_second_time_is_a_time(backend, cursor, value):
    """A time of whole seconds comes back from ``SELECT ?`` as a ``datetime.time`` on every
    backend with a time type, as through pyodbc (issue 29: MariaDB gave the text
    '12:57:18')."""
    got = cursor.execute("SELECT ?", value).fetchone()[0]
    assert type(got) is datetime.time and got == value


@pytest.mark.fastodbc_only(reason="pyodbc binds datetime.time without its fraction (a value 1 µs away matches)")
@pytest.mark.parametrize("value", [*WHOLE_SECONDS, *TIMES], ids=str)
def test_time_parameter_finds_its_row(backend, table, cnxn, value):
    """The database compares a time parameter as a time: a TIME(6) column's row is found by
    its value, with or without a fraction, and a value one microsecond away finds nothing."""
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('time')}")
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (1, ?)", value)
    cnxn.commit()
    stored = backend.time_roundtrip(value)
    assert cur.execute(f"SELECT v FROM {t}").fetchval() == stored
    assert cur.execute(f"SELECT id FROM {t} WHERE v = ?", stored).fetchall() == [(1,)]
    other = (datetime.datetime.combine(datetime.date(2000, 1, 1), stored) + datetime.timedelta(microseconds=1)).time()
    assert cur.execute(f"SELECT id FROM {t} WHERE v = ?", other).fetchall() == []


@pytest.mark.fastodbc_only(reason="pyodbc drops the fraction of timestamps on MariaDB")
@pytest.mark.parametrize("how", HOWS)
def test_timestamp_with_microseconds_stored_and_fetched(backend, table, cnxn, how):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('timestamp')}")
    rows = list(enumerate(TIMESTAMPS))
    insert(cnxn, t, rows, how)
    cur = cnxn.cursor()
    got = [tuple(r) for r in cur.execute(f"SELECT id, v FROM {t} ORDER BY id").fetchall()]
    assert got == [(i, backend.timestamp_roundtrip(v)) for i, v in rows]
    for i, v in rows:
        literal = f"'{backend.timestamp_roundtrip(v).isoformat(sep=' ')}'"
        assert cur.execute(f"SELECT id FROM {t} WHERE v = {literal}").fetchall() == [(i,)], v
    for v in TIMESTAMPS:
        assert cur.execute("SELECT ?", v).fetchone()[0] in (v, v.isoformat(sep=" ")), v
