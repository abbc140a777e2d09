"""The backends' native clients (stdlib sqlite3, psycopg, PyMySQL), for the untimed work around a
measurement: creating, emptying and counting tables, reading a load back. A case's connection
fields (backend_profiles.Backend.connection) say where; the client is its backend's ``native``.
"""

from __future__ import annotations

from typing import Any

import backend_profiles as profiles


def connect(spec: dict[str, Any]) -> Any:
    """An autocommit connection of the native client of ``spec``'s backend."""
    client = profiles.of(spec).native
    if client == "sqlite3":
        import sqlite3

        return sqlite3.connect(spec["sqlite_path"], isolation_level=None)
    if client == "psycopg":
        import psycopg

        return psycopg.connect(spec["pg_dsn"], autocommit=True)
    if client == "pymysql":
        import pymysql

        return pymysql.connect(**spec["mariadb"], charset="utf8mb4", autocommit=True)
    raise ValueError(f"no native client {client}")


def execute(spec: dict[str, Any], *statements: str) -> None:
    con = connect(spec)
    try:
        cur = con.cursor()
        for sql in statements:
            cur.execute(sql)
    finally:
        con.close()


def query(spec: dict[str, Any], sql: str) -> list[tuple]:
    con = connect(spec)
    try:
        cur = con.cursor()
        cur.execute(sql)
        return [tuple(r) for r in cur.fetchall()]
    finally:
        con.close()


def empty_table(spec: dict[str, Any], table: str) -> None:
    """Empties ``table`` (untimed, before a load), as its backend's empty_table_sql says."""
    execute(spec, *(sql.format(table=table) for sql in profiles.of(spec).empty_table_sql))


def create_table(spec: dict[str, Any], table: str, columns: Any) -> None:
    """(Re)creates ``table`` empty, with ``columns``' types (bench/datasets.py Column) on its backend."""
    backend = profiles.of(spec)
    cols = ", ".join(f"{c.name} {backend.column_type(c)}" for c in columns)
    execute(spec, f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} ({cols})")
