"""What the bulk load and export cases (issue 19, bench/bulk.py) moved, checked untimed after
every measurement, so that a fast wrong load or export cannot win.

A loaded table is read back through the backend's native client (stdlib sqlite3, psycopg,
PyMySQL: no ODBC, and exact - sqliteodbc hands a REAL over as 15 digits, so pyodbc would see a
double stored exactly as changed) ordered by ``id`` and compared value by value with the rows
the loader was given. An exported Parquet file is read with pyarrow, each column cast to the
reference's type (the exporters pick different Arrow types for the same SQL type; the casts are
safe casts, so a value that would change fails the check) and compared with the reference
table: the generator's rows of the exported table, written once to bench/data.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import native_clients

#: The columns of ``mixed`` in table order (bench/datasets.py).
MIXED_COLUMNS = ("id", "big", "num", "dbl", "s50", "s200", "d", "ts", "flag")


def same(stored: object, source: object) -> bool:
    """One value as read back against the value loaded. ``==`` already holds for a BOOLEAN
    kept as an integer (SQLite, MariaDB: True == 1) and a DECIMAL read at another scale. SQLite
    keeps what it was sent: dates and timestamps as text (any ISO 8601 form a loader chose is
    the same value), a NUMERIC as a REAL (up to 15 significant digits; the ``mixed`` rows have at
    most 14), compared through its shortest decimal form."""
    if stored == source:
        return True
    if isinstance(stored, float) and isinstance(source, Decimal):
        return Decimal(repr(stored)) == source
    if isinstance(stored, str) and isinstance(source, (dt.date, Decimal)):
        parse = type(source).fromisoformat if isinstance(source, dt.date) else Decimal
        try:
            return parse(stored) == source
        except (ValueError, ArithmeticError):  # decimal.InvalidOperation is an ArithmeticError
            return False
    return False


def first_row_difference(stored: Sequence[Sequence], source: Sequence[Sequence], names: Sequence[str]) -> str | None:
    """The first difference between the rows read back and the rows loaded (both in ``id``
    order), or None."""
    if len(stored) != len(source):
        return f"the table holds {len(stored)} rows, {len(source)} were loaded"
    for i, (got, want) in enumerate(zip(stored, source, strict=True)):
        for name, g, w in zip(names, got, want, strict=True):
            if not same(g, w):
                return f"row {i} column {name}: stored {g!r}, loaded {w!r}"
    return None


def read_back(spec: dict[str, Any], table: str) -> list[tuple]:
    """Every row of ``table`` in ``id`` order, through the native client of ``spec``'s backend."""
    return native_clients.query(spec, f"SELECT {', '.join(MIXED_COLUMNS)} FROM {table} ORDER BY id")


def loaded_table_differs(spec: dict[str, Any], table: str, source: Sequence[Sequence]) -> str | None:
    """The first difference between ``table`` and the rows loaded into it, or None."""
    return first_row_difference(read_back(spec, table), source, MIXED_COLUMNS)


def rows_of_table(table: Any) -> list[tuple]:
    """A pyarrow Table's rows as Python tuples (the values pyarrow converts them to)."""
    return list(zip(*(c.to_pylist() for c in table.columns), strict=True))


# ---------------------------------------------------------------------------------------------
# Exported files


def schema_text(schema: Any) -> str:
    """``name: type`` of every field, on one line (the report shows what each exporter chose)."""
    return ", ".join(f"{f.name}: {f.type}" for f in schema)


def conformed(table: Any, reference: Any) -> tuple[Any | None, str | None]:
    """``table`` with the reference's column names and types (names matched case-insensitively,
    safe casts), or the reason it cannot be."""
    import pyarrow as pa

    by_name = {n.lower(): i for i, n in enumerate(table.column_names)}
    columns = []
    for field in reference.schema:
        i = by_name.get(field.name.lower())
        if i is None:
            return None, f"no column {field.name} (has {', '.join(table.column_names)})"
        col = table.column(i)
        if col.type != field.type:
            try:
                col = col.cast(field.type, safe=True)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                return None, f"column {field.name}: {col.type} does not cast to {field.type}: {e}"
        columns.append(col)
    return pa.Table.from_arrays(columns, schema=reference.schema), None


def table_differs(table: Any, reference: Any, double_tolerance: float | None = None) -> str | None:
    """The first difference between an exported table and the reference (row order kept, as
    both come from ``SELECT *`` of a table loaded in ``id`` order), or None. Doubles are equal
    within ``double_tolerance`` (relative) where it is given."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if table.num_rows != reference.num_rows:
        return f"{table.num_rows} rows, expected {reference.num_rows}"
    got, why = conformed(table, reference)
    if got is None:
        return why
    for name in reference.column_names:
        a, b = got.column(name), reference.column(name)
        if a.equals(b):
            continue
        # Where they differ: value or NULL-ness (equal() of two NULLs is NULL, not True).
        if double_tolerance and pa.types.is_floating(b.type):
            eq = pc.less_equal(pc.abs(pc.subtract(a, b)), pc.multiply(pc.abs(b), double_tolerance))
        else:
            eq = pc.equal(a, b)
        same = pc.or_(pc.fill_null(eq, False), pc.and_(pc.is_null(a), pc.is_null(b)))
        if pc.all(same).as_py():
            continue
        i = pc.index(same, False).as_py()
        return f"column {name} row {i}: {a[i].as_py()!r}, expected {b[i].as_py()!r}"
    return None


def export_differs(path: str, reference_path: str, double_tolerance: float | None = None) -> dict[str, Any]:
    """Compares an exported Parquet file with the reference: {"rows", "schema", "detail"}
    (detail None: same values). ``double_tolerance``: the relative difference a driver's
    doubles may have (sqliteodbc's)."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    reference = pq.read_table(reference_path)
    detail = table_differs(table, reference, double_tolerance)
    return {"rows": table.num_rows, "schema": schema_text(table.schema), "detail": detail}
