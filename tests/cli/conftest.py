"""Fixtures of the command line's tests."""

from __future__ import annotations

import pytest

pytest.importorskip("pyarrow")

#: Rows of the `orders` table.
ORDERS = 2_500


@pytest.fixture
def orders(backend, cursor, table):
    """A committed table of ORDERS rows: id, city (text with NULLs, non-ASCII), amount (NUMERIC)."""
    name = table(f"id INTEGER, city VARCHAR(20), amount {backend.ddl('numeric(18,4)')}")
    cursor.executemany(
        f"INSERT INTO {name} VALUES (?, ?, ?)",
        [(i, ["Zürich", "東京", None, ""][i % 4], i * 1.5) for i in range(ORDERS)],
    )
    cursor.connection.commit()
    return name
