"""Insert paths: rows written by fastodbc with execute or executemany, every strategy
executemany has (README: parameter arrays, multi-row VALUES and column arrays on PostgreSQL,
the WITH-prefixed INSERT on SQLite from 64 rows; fast_executemany on and off; rows from an
iterator), and parameter text as UTF-16 or UTF-8."""

from __future__ import annotations

import dataclasses
import decimal
from typing import Any

from hypothesis import strategies as st

from . import reading, schema
from . import values as v

# Row counts around the executemany strategies' thresholds: 64 rows switch a single-row
# INSERT to the rewritten statement; multi-row VALUES statements hold at most 7,000
# parameters; column arrays go in blocks of 10,000 rows.
MANY_COUNTS = (0, 1, 2, 63, 64, 65, 10_000, 10_001)
VALUES_PARAMS = 7_000
EXECUTE_MAX_ROWS = 70  # one execute per row: enough to cross 64 without taking seconds


@dataclasses.dataclass
class WritePath:
    method: str  # "execute" | "executemany"
    fast: bool  # cursor.fast_executemany
    iterator: bool  # executemany rows from a generator
    column_list: bool  # INSERT INTO t (cols) VALUES ... (else all columns, table order)
    order: list[int]  # the column list's order (-1: id), when column_list
    encoding: str  # setencoding(...)
    chunks: int  # executemany calls the rows are split into
    # Columns whose values go as another Python type fastodbc takes for them (VARIANTS).
    variants: dict[int, str] = dataclasses.field(default_factory=dict)


def _as_int(x):
    """An integral float or Decimal as int (a column then mixes kinds: runs of each); -0
    stays (an int has no sign to keep)."""
    if isinstance(x, float) and x.is_integer() and 0 < abs(x) < 2**53:
        return int(x)
    if isinstance(x, decimal.Decimal) and x == x.to_integral_value() and 0 < abs(x) < 10**18:
        return int(x)
    return x


# Per kind of column, other Python types for its values (README's type table).
VARIANTS = {
    "bytes": {"bytearray": bytearray, "memoryview": memoryview},
    "float": {"int": _as_int},
    "real": {"int": _as_int},
    "numeric(p,s)": {"int": _as_int},
}


def row_counts(n_columns: int) -> st.SearchStrategy[int]:
    per_statement = VALUES_PARAMS // (n_columns + 1)
    edges = {*MANY_COUNTS, per_statement - 1, per_statement, per_statement + 1}
    return st.one_of(st.sampled_from(sorted(edges)), st.integers(0, 40))


@st.composite
def write_cases(draw, profile, budget: int):
    """(table, write path): the rows fastodbc inserts are the table's."""
    method = draw(st.sampled_from(["execute", "executemany", "executemany"]))
    rules = v.Rules(nul=profile.text_keeps_nul)
    cols = draw(schema.columns(profile))
    if method == "execute":
        n_rows = draw(st.integers(0, EXECUTE_MAX_ROWS))
    else:
        n_rows = draw(row_counts(len(cols)))
    table = draw(schema.table_rows(profile, cols, rules, n_rows, [], budget))
    order = list(range(len(cols))) + [-1]
    path = WritePath(
        method=method,
        fast=draw(st.booleans()),
        iterator=draw(st.booleans()),
        column_list=draw(st.booleans()),
        order=draw(st.permutations(order)),
        encoding=draw(st.sampled_from(reading.text_types(profile))),
        chunks=draw(st.sampled_from([1, 1, 2, 3])),
    )
    for i, c in enumerate(cols):
        if c.kind in VARIANTS and draw(st.booleans()):
            path.variants[i] = draw(st.sampled_from(sorted(VARIANTS[c.kind])))
    return table, path


def insert_sql(name: str, table: schema.Table, path: WritePath) -> str:
    if not path.column_list:
        marks = ", ".join(["?"] * (len(table.columns) + 1))
        return f"INSERT INTO {name} VALUES ({marks})"
    names = ", ".join("id" if i < 0 else table.columns[i].name for i in path.order)
    return f"INSERT INTO {name} ({names}) VALUES ({', '.join(['?'] * len(path.order))})"


def params(table: schema.Table, path: WritePath) -> list[tuple[Any, ...]]:
    rows = table.rows()
    if path.variants:
        # rows() puts the id first: column i is at i + 1.
        fns = {i + 1: VARIANTS[table.columns[i].kind][name] for i, name in path.variants.items()}
        rows = [tuple(x if x is None or j not in fns else fns[j](x) for j, x in enumerate(r))
                for r in rows]
    if not path.column_list:
        return rows
    # rows() puts the id first: index -1 of the order is position 0 of the row.
    return [tuple(r[i + 1] for i in path.order) for r in rows]


def write(cnxn, name: str, table: schema.Table, path: WritePath) -> None:
    """Inserts the table's rows through fastodbc and commits."""
    cnxn.setencoding(encoding=path.encoding)
    cur = cnxn.cursor()
    cur.fast_executemany = path.fast
    sql = insert_sql(name, table, path)
    rows = params(table, path)
    if path.method == "execute":
        for r in rows:
            cur.execute(sql, r)
    else:
        size = -(-len(rows) // path.chunks) if rows else 0
        parts = [rows[i : i + size] for i in range(0, len(rows), size)] if size else [[]]
        for part in parts:
            # No rows: an empty generator runs nothing, an empty list is refused (as pyodbc).
            if part or path.iterator:
                cur.executemany(sql, (r for r in part) if path.iterator else part)
    cnxn.commit()


def has_nul(table: schema.Table) -> bool:
    return any(isinstance(x, str) and "\x00" in x for r in table.rows() for x in r)
