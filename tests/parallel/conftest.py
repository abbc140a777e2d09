"""Fixtures of the partitioned reads' tests: tables of generated keys, and the oracle (the same
query read whole over one connection)."""

from __future__ import annotations

import datetime
import decimal
import random
from typing import Any

import pytest

#: Key kinds a plan splits on (the profile's DDL for each), and a generator of their values.
KEY_KINDS = ("int", "bigint", "numeric(18,4)", "float", "date", "timestamp", "varchar(50)")


def key_value(kind: str, rng: random.Random, spread: int) -> Any:
    """A key of ``kind`` from ``spread`` distinct values (skewed: most of them low)."""
    i = int(rng.paretovariate(1.2) * 3) % spread if spread > 1 else 0
    if kind in ("int", "bigint"):
        return i * 7 - 40 + (2**40 if kind == "bigint" else 0)
    if kind == "numeric(18,4)":
        return decimal.Decimal(i * 13 - 100) / 8
    if kind == "float":
        return i * 0.375 - 11.5
    if kind == "date":
        return datetime.date(1999, 12, 1) + datetime.timedelta(days=i * 3)
    if kind == "timestamp":
        return datetime.datetime(2020, 2, 28, 23) + datetime.timedelta(minutes=i * 97)
    if kind == "varchar(50)":
        # Mixed case: a case-insensitive collation orders these unlike Python.
        word = "".join(rng.choice("aBcD") for _ in range(2))
        return f"{word}{i:03d}"
    raise ValueError(kind)


def fill(cnxn: Any, name: str, keys: list[Any]) -> None:
    """Rows (id, k, v) of ``name``: id 1..n, k the given keys, v a text; committed."""
    cur = cnxn.cursor()
    if keys:
        cur.executemany(
            f"INSERT INTO {name} (id, k, v) VALUES (?, ?, ?)",
            [(i + 1, k, f"row{i + 1}") for i, k in enumerate(keys)],
        )
    cnxn.commit()


@pytest.fixture
def keyed(backend, table, cnxn):
    """keyed(kind, keys) -> the name of a new table (id INTEGER, k <kind>, v VARCHAR(20))
    holding ``keys`` (None: NULL), committed."""

    def make(kind: str, keys: list[Any], suffix: str = "") -> str:
        name = table(f"id INTEGER NOT NULL, k {backend.ddl(kind)}, v VARCHAR(20)", suffix=suffix)
        fill(cnxn, name, keys)
        return name

    return make


def generated_keys(kind: str, n: int, *, seed: int, spread: int = 60, null_share: float = 0.1) -> list[Any]:
    rng = random.Random(seed)
    return [None if rng.random() < null_share else key_value(kind, rng, spread) for _ in range(n)]


def whole(cnxn: Any, query: str) -> Any:
    """The oracle: ``query`` read over one connection, as a pyarrow.Table."""
    return cnxn.cursor().execute(query).fetch_arrow_table()


def rows(table: Any) -> list[tuple[Any, ...]]:
    """A table's rows, in the order of their values' text (a unique id first: its order)."""
    data = table.to_pydict()
    found = zip(*(data[n] for n in table.column_names), strict=True)
    return sorted(found, key=lambda r: (r[0] is None, r[0] or 0, repr(r)))
