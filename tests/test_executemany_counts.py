"""executemany ends with as many rows as it was given, or raises: never a shorter table.

Rows of a statement without parameter markers (MariaDB's driver ran such a statement once
per parameter array, whatever its size) and rows with markers, at the chunk boundaries of
every route (1,000 rows a parameter array; 2,500 rows: 1,000 + 1,000 + 500), with
fast_executemany on and off, on every backend."""

from __future__ import annotations

import pytest

# 1,000: one full chunk (PARAM_CHUNK_ROWS); 2,500: two full chunks and a part.
COUNTS = [1, 2, 3, 1000, 2500]

PYODBC_FAST_SEGFAULT = pytest.mark.fastodbc_only(
    where=lambda p: p.pyodbc_fast_executemany_crashes,
    reason="pyodbc's fast_executemany segfaults inside sqliteodbc's SQLExecute",
)

FAST = [
    pytest.param(False, id="rowwise"),
    pytest.param(True, id="fast", marks=PYODBC_FAST_SEGFAULT),
]

# Without markers pyodbc's fast_executemany loses rows where the driver ignores the array.
FAST_MARKERLESS = [
    pytest.param(False, id="rowwise"),
    pytest.param(
        True,
        id="fast",
        marks=[
            PYODBC_FAST_SEGFAULT,
            pytest.mark.fastodbc_only(
                where=lambda p: p.paramset_ignored_without_markers,
                reason="pyodbc's fast_executemany stores one row of each parameter array",
            ),
        ],
    ),
]

# Rows without markers: the profile's row-of-defaults forms and a row of literals.
LITERAL_ROW = "INSERT INTO {t} (id, v) VALUES (7, 8)"

# Rows with markers: the shape the bulk INSERT routes rewrite (column arrays, compiled once)
# and one they leave as it is (parameter arrays on every driver).
MARKED = {
    "bulk_shape": ("INSERT INTO {t} (id, v) VALUES (?, ?)", lambda i: (i, i % 7)),
    "marker_and_literal": ("INSERT INTO {t} (id, v) VALUES (?, 5)", lambda i: (i,)),
}


def rows_in(cursor, t):
    return cursor.execute(f"SELECT COUNT(*), COUNT(DISTINCT id), SUM(id) FROM {t}").fetchone()


def markerless_sources(n):
    """The same n empty rows as a list of tuples and as a generator of lists."""
    return {"list": lambda: [()] * n, "generator": lambda: ([] for _ in range(n))}


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("fast", FAST_MARKERLESS)
def test_rows_without_markers_are_each_stored(backend, cnxn, table, fast, n):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('int')} DEFAULT 5")
    cur = cnxn.cursor()
    cur.fast_executemany = fast
    for form in (*backend.default_row_inserts, LITERAL_ROW):
        sql = form.format(t=t)
        for source, rows in markerless_sources(n).items():
            cur.executemany(sql, rows())
            # DB-API leaves executemany's rowcount open: the total, or -1 (pyodbc).
            assert cur.rowcount in (-1, n), (sql, source)
            assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchval() == n, (sql, source)
            cur.execute(f"DELETE FROM {t}")
            cnxn.commit()


@pytest.mark.fastodbc_only(reason="pyodbc's executemany rowcount is -1")
@pytest.mark.parametrize("n", [3, 2500])
@pytest.mark.parametrize("fast", FAST)
def test_rowcount_of_rows_without_markers_is_the_rows_stored(backend, cursor, table, fast, n):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('int')} DEFAULT 5")
    cursor.fast_executemany = fast
    for form in (*backend.default_row_inserts, LITERAL_ROW):
        cursor.executemany(form.format(t=t), [()] * n)
        assert cursor.rowcount == n, form
    stored = cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchval()
    assert stored == n * (len(backend.default_row_inserts) + 1)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("fast", FAST)
@pytest.mark.parametrize("statement", MARKED.values(), ids=MARKED.keys())
def test_rows_with_markers_are_each_stored_and_deleted(backend, cursor, table, fast, n, statement):
    sql, row = statement
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('int')}")
    cursor.fast_executemany = fast
    cursor.executemany(sql.format(t=t), [row(i) for i in range(n)])
    assert cursor.rowcount in (-1, n)
    assert tuple(rows_in(cursor, t)) == (n, n, n * (n - 1) // 2)
    # Each DELETE matches one row: every parameter set must run.
    cursor.executemany(f"DELETE FROM {t} WHERE id = ?", [(i,) for i in range(n)])
    assert cursor.rowcount in (-1, n)
    assert cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchval() == 0


@pytest.mark.parametrize("fast", FAST_MARKERLESS)
def test_rows_with_and_without_markers_in_one_transaction(backend, cnxn, table, fast):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('int')} DEFAULT 5")
    cur = cnxn.cursor()
    cur.fast_executemany = fast
    cur.executemany(f"INSERT INTO {t} (id, v) VALUES (?, ?)", [(i, i) for i in range(1001)])
    cur.executemany(backend.default_row_inserts[0].format(t=t), [()] * 1001)
    cur.executemany(f"UPDATE {t} SET v = ? WHERE id IS NULL", [(i,) for i in range(3)])
    cnxn.commit()
    counts = cur.execute(f"SELECT COUNT(*), COUNT(id), SUM(CASE WHEN v = 2 THEN 1 ELSE 0 END) FROM {t}")
    assert tuple(counts.fetchone()) == (2002, 1001, 1001 + 1)
