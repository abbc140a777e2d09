"""fastodbc's SQLAlchemy dialects as ``create_engine`` finds them (their entry points), no
server needed: the connection string a URL makes, the capabilities they declare where
SQLAlchemy's pyodbc dialects infer them from a pyodbc version, and a lost connection
recognised by its SQLSTATE. With servers: tests/test_sqlalchemy.py."""

from __future__ import annotations

import pytest

import fastodbc

sqlalchemy = pytest.importorskip("sqlalchemy")

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc's own dialects")


def test_the_dialects_load_through_their_entry_points_with_fastodbc_s_capabilities():
    # No server: what create_engine builds from a URL.
    pg = sqlalchemy.create_engine("postgresql+fastodbc://u:p%3Bw@db.example:5433/shop")
    (connstr,), _ = pg.dialect.create_connect_args(pg.url)
    assert connstr == "DRIVER={PostgreSQL Unicode};Server=db.example;Database=shop;UID=u;PWD={p;w};port=5433"
    assert pg.dialect.dbapi.__name__ == "fastodbc"
    mysql = sqlalchemy.create_engine("mysql+fastodbc://u:p@db.example/shop")
    assert mysql.dialect.name == "mysql" and mysql.dialect.driver == "fastodbc"
    assert sqlalchemy.create_engine("mariadb+fastodbc://u:p@db.example/shop").dialect.is_mariadb
    (connstr,), _ = mysql.dialect.create_connect_args(sqlalchemy.engine.make_url("mysql+fastodbc://u:p@h:3307/s"))
    assert connstr == "DRIVER={MariaDB Unicode};Server=h;Database=s;UID=u;PWD=p;port=3307;OPTION=2"
    url = sqlalchemy.engine.make_url("mysql+fastodbc://u:p@h/s?Option=67108866")
    assert mysql.dialect.create_connect_args(url)[0][0].endswith(";Option=67108866")
    mssql = sqlalchemy.create_engine("mssql+fastodbc://u:p@db.example:1433/shop")
    (connstr,), _ = mssql.dialect.create_connect_args(mssql.url)
    assert connstr.startswith("DRIVER={ODBC Driver 18 for SQL Server};Server=db.example,1433;")
    # pyodbc's dialect reads fastodbc's 0.x as a pyodbc older than 2.1.8 and sends decimals as
    # strings; fastodbc's binds them, and binds executemany as arrays.
    assert mssql.dialect._need_decimal_fix is False
    assert mssql.dialect.fast_executemany is True
    for engine in (pg, mysql, mssql):
        assert engine.dialect.is_disconnect(fastodbc_error("08S01"), None, None)
        assert not engine.dialect.is_disconnect(fastodbc_error("42S02"), None, None)


def fastodbc_error(sqlstate: str):
    return fastodbc.OperationalError(sqlstate, f"[{sqlstate}] a diagnostic")


@pytest.mark.parametrize(
    "text, items",
    [
        ("{}", []),
        ("{1,2,3}", ["1", "2", "3"]),
        ('{"a b",NULL,"NULL","x\\"y","c,d",""}', ["a b", None, "NULL", 'x"y', "c,d", ""]),
        ("{{1,2},{3,4}}", [["1", "2"], ["3", "4"]]),
        ("{{},{}}", [[], []]),
        ("[0:1]={a,b}", ["a", "b"]),
        ('{"{}","\\\\"}', ["{}", "\\"]),
    ],
)
def test_postgresql_arrays_read_from_their_text_form(text, items):
    # psqlODBC returns an array as text; the PostgreSQL dialect reads lists (reflection's
    # conkey, indkey and names among them).
    from fastodbc.sqlalchemy.pg_array import parse

    assert parse(text) == items


@pytest.mark.parametrize("text", ["", "{", "{1,2", "1,2", "{1}x", '{"a}'])
def test_a_malformed_array_raises_naming_it(text):
    from fastodbc.sqlalchemy.pg_array import parse

    with pytest.raises(ValueError, match="not a PostgreSQL array"):
        parse(text)


def test_array_items_come_back_as_their_type():
    import datetime
    import decimal

    from sqlalchemy.dialects.postgresql import ARRAY

    dialect = sqlalchemy.create_engine("postgresql+fastodbc://").dialect
    cases = [
        (sqlalchemy.Integer, "{1,NULL,-3}", [1, None, -3]),
        (sqlalchemy.Numeric(10, 2), "{1.50,2}", [decimal.Decimal("1.50"), decimal.Decimal("2")]),
        (sqlalchemy.Boolean, "{t,f}", [True, False]),
        (sqlalchemy.Date, '{2024-02-29,"2024-03-01"}', [datetime.date(2024, 2, 29), datetime.date(2024, 3, 1)]),
        (sqlalchemy.Text, '{"a,b",c}', ["a,b", "c"]),
        (sqlalchemy.Integer, "{{1,2},{3,4}}", [[1, 2], [3, 4]]),
    ]
    for item_type, text, expected in cases:
        dims = 2 if text.startswith("{{") else None
        process = ARRAY(item_type, dimensions=dims).dialect_impl(dialect).result_processor(dialect, None)
        assert process(text) == expected, (item_type, text)
        assert process(None) is None
