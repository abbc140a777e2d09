"""Module globals: DB-API 2.0 attributes, type objects and constructors, SQL_* constants."""

import datetime
import re
import time

import pytest

EXCEPTIONS = [
    "Warning",
    "Error",
    "InterfaceError",
    "DatabaseError",
    "DataError",
    "OperationalError",
    "IntegrityError",
    "InternalError",
    "ProgrammingError",
    "NotSupportedError",
]


def test_apilevel(db):
    assert db.apilevel == "2.0"


def test_threadsafety(db):
    # pyodbc: 1 (threads may share the module, not connections).
    assert db.threadsafety in (1, 2, 3)
    assert type(db.threadsafety) is int


def test_paramstyle(db):
    assert db.paramstyle == "qmark"


def test_version_string(db):
    assert isinstance(db.version, str)
    assert re.match(r"^\d+\.\d+\.\d+", db.version), db.version


@pytest.mark.fastodbc_only(reason="fastodbc's own version")
def test_version_matches_package_metadata(db):
    from importlib.metadata import version

    assert db.version == version("fastodbc")


@pytest.mark.parametrize("name", EXCEPTIONS)
def test_exception_classes_exist(db, name):
    cls = getattr(db, name)
    assert isinstance(cls, type)
    assert issubclass(cls, Exception)


def test_connection_and_cursor_classes_exported(db):
    assert isinstance(db.Connection, type)
    assert isinstance(db.Cursor, type)
    assert isinstance(db.Row, type)


# ------------------------------------------------------------------------ constructors


def test_date_time_timestamp_constructors(db):
    assert db.Date(2024, 2, 29) == datetime.date(2024, 2, 29)
    assert type(db.Date(2024, 2, 29)) is datetime.date
    assert db.Time(12, 34, 56) == datetime.time(12, 34, 56)
    assert type(db.Time(12, 34, 56)) is datetime.time
    ts = db.Timestamp(2024, 2, 29, 12, 34, 56)
    assert ts == datetime.datetime(2024, 2, 29, 12, 34, 56)
    assert type(ts) is datetime.datetime
    assert db.Timestamp(2024, 2, 29, 12, 34, 56, 789) == datetime.datetime(
        2024, 2, 29, 12, 34, 56, 789
    )


@pytest.mark.parametrize("ticks", [0, 86399, 951782400, 1700000000])
def test_from_ticks_constructors(db, ticks):
    # PEP 249: ticks are seconds since the epoch, in local time.
    local = datetime.datetime.fromtimestamp(ticks)
    assert db.DateFromTicks(ticks) == local.date()
    assert type(db.DateFromTicks(ticks)) is datetime.date
    assert db.TimeFromTicks(ticks) == local.time()
    assert type(db.TimeFromTicks(ticks)) is datetime.time
    assert db.TimestampFromTicks(ticks) == local
    assert type(db.TimestampFromTicks(ticks)) is datetime.datetime


def test_from_ticks_now(db):
    now = int(time.time())
    assert db.TimestampFromTicks(now) == datetime.datetime.fromtimestamp(now)


def test_binary_constructor(db):
    b = db.Binary(b"\x00\x01\xff")
    assert bytes(b) == b"\x00\x01\xff"
    assert isinstance(b, (bytes, bytearray))
    assert bytes(db.Binary(b"")) == b""


# ------------------------------------------------------------------------ type objects


def _type_code(cursor, sql):
    cursor.execute(sql)
    return cursor.description[0][1]


def test_type_objects_exist_and_are_distinct(db):
    objs = [db.STRING, db.BINARY, db.NUMBER, db.DATETIME, db.ROWID]
    for o in objs:
        assert o is not None
    for i, a in enumerate(objs):
        for b in objs[i + 1 :]:
            assert a != b


def test_type_objects_against_description(db, backend, cursor, table):
    t = table(
        f"s {backend.ddl('varchar(50)')}, b {backend.ddl('bytes')}, "
        f"f {backend.ddl('float')}, ts {backend.ddl('timestamp')}"
    )
    cursor.execute(f"SELECT s, b, f, ts FROM {t}")
    s, b, f, ts = (d[1] for d in cursor.description)
    assert s == db.STRING
    assert s != db.BINARY
    assert s != db.NUMBER
    assert b == db.BINARY
    assert b != db.STRING
    assert f == db.NUMBER
    assert f != db.STRING
    assert ts == db.DATETIME
    assert ts != db.NUMBER


@pytest.mark.fastodbc_only(reason="pyodbc.NUMBER is float and pyodbc.DATETIME is datetime only")
def test_type_objects_cover_all_numeric_and_temporal_codes(db, backend, cursor, table):
    t = table(
        f"i {backend.ddl('int')}, n {backend.ddl('numeric(18,4)')}, d {backend.ddl('date')}, "
        f"tm {backend.ddl('time')}, txt {backend.ddl('text')}"
    )
    cursor.execute(f"SELECT i, n, d, tm, txt FROM {t}")
    i, n, d, tm, txt = (x[1] for x in cursor.description)
    assert i == db.NUMBER
    assert n == db.NUMBER
    assert d == db.DATETIME
    assert tm == db.DATETIME
    assert txt == db.STRING


# ------------------------------------------------------------------------ SQL_* constants

try:
    import pyodbc as _pyodbc
except ImportError:  # pragma: no cover - pyodbc is a dev requirement
    _pyodbc = None

PYODBC_SQL_NAMES = sorted(n for n in dir(_pyodbc) if n.startswith("SQL_")) if _pyodbc else []


@pytest.mark.skipif(_pyodbc is None, reason="pyodbc is not installed (no free-threaded wheel)")
def test_pyodbc_exports_sql_constants():
    # Guard: the parametrized test below must not silently become empty (where pyodbc is).
    assert len(PYODBC_SQL_NAMES) > 200


@pytest.mark.fastodbc_only(reason="compares the module under test against pyodbc")
def test_sql_constants_match_pyodbc(db):
    missing = [n for n in PYODBC_SQL_NAMES if not hasattr(db, n)]
    wrong = {}
    for n in PYODBC_SQL_NAMES:
        if not hasattr(db, n):
            continue
        ours, theirs = getattr(db, n), getattr(_pyodbc, n)
        if ours != theirs or type(ours) is not type(theirs):
            wrong[n] = (ours, theirs)
    assert not missing, f"{len(missing)} SQL_* names missing: {missing}"
    assert not wrong, f"SQL_* values differ from pyodbc (ours, pyodbc's): {wrong}"


def test_common_sql_constants_values(db):
    # Values fixed by the ODBC spec, checked independently of pyodbc.
    assert db.SQL_VARCHAR == 12
    assert db.SQL_WVARCHAR == -9
    assert db.SQL_INTEGER == 4
    assert db.SQL_BIGINT == -5
    assert db.SQL_TYPE_TIMESTAMP == 93
    assert db.SQL_GUID == -11
    assert db.SQL_DRIVER_NAME == 6
    assert db.SQL_DBMS_NAME == 17
