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
    assert connstr == "DRIVER={PostgreSQL Unicode};Server=db.example,5433;Database=shop;UID=u;PWD={p;w}"
    assert pg.dialect.dbapi.__name__ == "fastodbc"
    mysql = sqlalchemy.create_engine("mysql+fastodbc://u:p@db.example/shop")
    assert mysql.dialect.name == "mysql" and mysql.dialect.driver == "fastodbc"
    assert sqlalchemy.create_engine("mariadb+fastodbc://u:p@db.example/shop").dialect.is_mariadb
    mssql = sqlalchemy.create_engine("mssql+fastodbc://u:p@db.example/shop")
    (connstr,), _ = mssql.dialect.create_connect_args(mssql.url)
    assert connstr.startswith("DRIVER={ODBC Driver 18 for SQL Server};")
    # pyodbc's dialect reads fastodbc's 0.x as a pyodbc older than 2.1.8 and sends decimals as
    # strings; fastodbc's binds them, and binds executemany as arrays.
    assert mssql.dialect._need_decimal_fix is False
    assert mssql.dialect.fast_executemany is True
    for engine in (pg, mysql, mssql):
        assert engine.dialect.is_disconnect(fastodbc_error("08S01"), None, None)
        assert not engine.dialect.is_disconnect(fastodbc_error("42S02"), None, None)


def fastodbc_error(sqlstate: str):
    return fastodbc.OperationalError(sqlstate, f"[{sqlstate}] a diagnostic")
