"""The bulk load operations of issue 19 (cases: bench/bulk.py), run by bench/worker.py in a fresh
process per measurement like every other operation.

``ingest``: the insert case's rows of ``mixed`` (``datasets.insert_rows``, read from the Parquet
file bench/bulk.py wrote them to: a pyarrow Table, or its rows as Python tuples) into an existing
table of the right types, emptied untimed through the backend's native client; one transaction,
its commit inside the clock. The peers (``peer`` / ``how``):

- fastodbc / ingest: ``cursor.ingest(table, arrow_table, mode="append", commit=True)`` from a pyarrow Table;
- fastodbc / executemany: the same rows as Python tuples (``fast_executemany``, its default);
- arrow-odbc: ``Connection.insert_into_table`` of the Table's batches (what ``from_table_to_db``
  and the module's ``insert_into_table`` do, on an open connection as every other peer);
- psycopg-copy / text or binary: ``COPY ... FROM STDIN`` with ``write_row`` (PostgreSQL);
- sqlite3: the standard library's ``executemany`` into the same file (SQLite);
- pyodbc-fem: pyodbc with ``fast_executemany = True`` and ``setinputsizes`` of the target's
  types; pymysql: PyMySQL's ``executemany`` (multi-row INSERTs; MariaDB).

The clients given Python rows get them built before the clock: the conversion from the Arrow
table a caller of ``ingest`` holds is not charged to them.

``ingest_parquet``: ``cursor.ingest_parquet(table, path)`` of a Parquet file of the same rows
(bench/bulk.py writes them), whose peak memory must not grow with the file.

After the clock every row is read back and compared with what was loaded (bench/bulk_check.py):
the first difference is the measurement's ``wrong`` (its time is kept, flagged: a peer's wrong
load is still the time fastodbc is compared with; fastodbc's own fails its target).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import bulk_check
import native_clients

OPS = ("ingest", "ingest_parquet")
COLUMNS = ", ".join(bulk_check.MIXED_COLUMNS)
#: arrow-odbc's rows per round trip (its ``chunk_size``): its default, and on PostgreSQL (where
#: the 5x target is judged) the fastest of 1,000, 10,000 and 100,000 (BENCHMARKS.md, issue 19).
ARROW_ODBC_CHUNK = 1_000
#: psycopg's binary COPY needs the target's types.
PG_TYPES = ["int4", "int8", "numeric", "float8", "varchar", "varchar", "date", "timestamp", "bool"]

Timed = Callable[[], int]
Check = Callable[[int], str | None]


def mariadb_connect(spec: dict[str, Any]) -> Any:
    import pymysql

    return pymysql.connect(**spec["mariadb"], charset="utf8mb4", autocommit=False)


def empty_table(spec: dict[str, Any]) -> None:
    """Empties the target through the native client (untimed), as the insert case does."""
    native_clients.empty_table(spec, spec["table"])


def fastodbc_cursor(spec: dict[str, Any]) -> tuple[Any, Any]:
    import fastodbc

    conn = fastodbc.connect(spec["cs"], autocommit=False)
    return conn, conn.cursor()


def dbapi_executemany(spec: dict[str, Any], rows: list[tuple]) -> Timed:
    """executemany of Python rows (and the commit) by fastodbc, sqlite3, pyodbc or PyMySQL."""
    peer, table = spec["peer"], spec["table"]
    mark = "?"
    if peer == "fastodbc":
        conn, cur = fastodbc_cursor(spec)
    elif peer == "sqlite3":
        import sqlite3
        from decimal import Decimal

        sqlite3.register_adapter(Decimal, str)
        conn = sqlite3.connect(spec["sqlite_path"])
        cur = conn.cursor()
    elif peer == "pyodbc-fem":
        import pyodbc

        conn = pyodbc.connect(spec["cs"], autocommit=False)
        cur = conn.cursor()
        cur.fast_executemany = True
        # The target's types, as a user of MariaDB must give them: without, pyodbc 5.5 raises
        # MemoryError on these rows past ~200 and drops DATETIME(3)'s milliseconds before that.
        # (With them it still ends some non-ASCII strings with a stray character: the check
        # flags that load.)
        cur.setinputsizes(
            [
                (pyodbc.SQL_INTEGER, 0, 0),
                (pyodbc.SQL_BIGINT, 0, 0),
                (pyodbc.SQL_DECIMAL, 18, 4),
                (pyodbc.SQL_DOUBLE, 0, 0),
                (pyodbc.SQL_WVARCHAR, 50, 0),
                (pyodbc.SQL_WVARCHAR, 200, 0),
                (pyodbc.SQL_TYPE_DATE, 0, 0),
                (pyodbc.SQL_TYPE_TIMESTAMP, 23, 3),
                (pyodbc.SQL_BIT, 0, 0),
            ]
        )
    elif peer == "pymysql":
        conn = mariadb_connect(spec)
        cur = conn.cursor()
        mark = "%s"
    else:
        raise ValueError(f"no ingest peer {peer}")
    sql = f"INSERT INTO {table} ({COLUMNS}) VALUES ({', '.join([mark] * len(bulk_check.MIXED_COLUMNS))})"

    def run() -> int:
        cur.executemany(sql, rows)
        conn.commit()
        return len(rows)

    return run


def psycopg_copy(spec: dict[str, Any], rows: list[tuple]) -> Timed:
    import psycopg

    conn = psycopg.connect(spec["pg_dsn"])
    cur = conn.cursor()
    binary = spec.get("how") == "binary"
    sql = f"COPY {spec['table']} ({COLUMNS}) FROM STDIN" + (" (FORMAT BINARY)" if binary else "")

    def run() -> int:
        with cur.copy(sql) as cp:
            if binary:
                cp.set_types(PG_TYPES)
            for r in rows:
                cp.write_row(r)
        conn.commit()
        return len(rows)

    return run


def arrow_odbc_insert(spec: dict[str, Any], table: Any) -> Timed:
    import arrow_odbc
    import pyarrow as pa

    conn = arrow_odbc.connect(spec["cs"], autocommit=False)
    chunk = min(spec.get("chunk_size") or ARROW_ODBC_CHUNK, table.num_rows)

    def run() -> int:
        reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(chunk))
        conn.insert_into_table(reader=reader, chunk_size=chunk, table=spec["table"])
        conn.commit()
        return table.num_rows

    return run


def fastodbc_ingest(spec: dict[str, Any], table: Any) -> Timed:
    conn, cur = fastodbc_cursor(spec)
    if not hasattr(cur, "ingest"):
        raise NotImplementedError("fastodbc has no cursor.ingest in this build")

    def run() -> int:
        # commit=True: the load committed, as the other clients' loads are.
        return cur.ingest(spec["table"], table, mode="append", commit=True)

    return run


def check_against(spec: dict[str, Any], source: Callable[[], list[tuple]]) -> Check:
    """The check after the clock: the count returned, then every row read back. Returns the
    first difference, or None."""

    def check(returned: int) -> str | None:
        rows = source()
        if returned != len(rows):
            return f"the loader returned {returned}, {len(rows)} rows were given"
        return bulk_check.loaded_table_differs(spec, spec["table"], rows)

    return check


def prepare(spec: dict[str, Any]) -> tuple[Timed, Check]:
    """Everything untimed (the empty table, imports, connect, the input); returns the timed
    callable and the check to run after it."""
    empty_table(spec)
    if spec["op"] == "ingest_parquet":
        import pyarrow.parquet as pq

        path = spec["parquet_path"]
        conn, cur = fastodbc_cursor(spec)
        if not hasattr(cur, "ingest_parquet"):
            raise NotImplementedError("fastodbc has no cursor.ingest_parquet in this build")

        def run() -> int:
            return cur.ingest_parquet(spec["table"], path, commit=True)

        return run, check_against(spec, lambda: bulk_check.rows_of_table(pq.read_table(path)))
    import pyarrow.parquet as pq

    # The rows written once to Parquet by bench/bulk.py (generating them takes seconds).
    table = pq.read_table(spec["parquet_path"])
    rows = bulk_check.rows_of_table(table)
    check = check_against(spec, lambda: rows)
    peer = spec["peer"]
    if peer == "fastodbc" and spec.get("how") == "ingest":
        return fastodbc_ingest(spec, table), check
    if peer == "arrow-odbc":
        return arrow_odbc_insert(spec, table), check
    del table
    if peer == "psycopg-copy":
        return psycopg_copy(spec, rows), check
    return dbapi_executemany(spec, rows), check
