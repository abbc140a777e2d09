"""Fixtures of the command line's tests."""

from __future__ import annotations

import pyarrow as pa
import pytest

#: Rows of the `orders` table, and its columns.
ORDERS = 2_500
COLUMNS = "id, city, amount"


def fetch(connect, sql: str) -> pa.Table:
    """A query's result through a connection of its own (a fresh snapshot: MariaDB's
    REPEATABLE READ would keep showing an older one to a connection that read before)."""
    return connect(autocommit=True).cursor().execute(sql).fetch_arrow_table()


def orders_ddl(backend) -> str:
    return f"id INTEGER, city VARCHAR(20), amount {backend.ddl('numeric(18,4)')}"


@pytest.fixture
def orders(backend, cursor, table):
    """A committed table of ORDERS rows: id, city (text with NULLs, non-ASCII), amount (NUMERIC)."""
    name = table(orders_ddl(backend))
    cursor.executemany(
        f"INSERT INTO {name} VALUES (?, ?, ?)",
        [(i, ["Zürich", "東京", None, ""][i % 4], i * 1.5) for i in range(ORDERS)],
    )
    cursor.connection.commit()
    return name
