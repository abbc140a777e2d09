"""executemany: parameter arrays (fast_executemany) and the row-by-row path must agree."""

import datetime
import os
from decimal import Decimal

import pytest

from profiles import backends_where

PYODBC_FAST_SEGFAULT = pytest.mark.fastodbc_only(
    where=lambda p: p.pyodbc_fast_executemany_crashes,
    reason="pyodbc's fast_executemany segfaults inside sqliteodbc's SQLExecute",
)

# The backends on which executemany takes each of fastodbc's bulk INSERT paths.
COLUMN_ARRAYS = backends_where(lambda p: p.bulk_insert == "column_arrays")
COMPILED_ONCE = backends_where(lambda p: p.bulk_insert == "compiled_once")

# fast_executemany on/off; the oracle cannot run the fast path where it crashes (sqliteodbc).
FAST = [
    pytest.param(False, id="rowwise"),
    pytest.param(True, id="fast", marks=PYODBC_FAST_SEGFAULT),
]

# For data pyodbc's fast path gets wrong on either backend (psqlODBC: bytea parameters fail
# with HY090, text longer than the described 8190 fails, Decimal('1.50') is sent as '1.5',
# timestamps lose their fraction).
FAST_PYODBC_WRONG = [
    pytest.param(False, id="rowwise"),
    pytest.param(
        True,
        id="fast",
        marks=pytest.mark.fastodbc_only(reason="pyodbc's fast_executemany mishandles this data"),
    ),
]


def rows_of(cursor, sql, *params):
    return [tuple(r) for r in cursor.execute(sql, *params).fetchall()]


@pytest.mark.fastodbc_only(reason="pyodbc's default is False")
def test_fast_executemany_defaults_true(cursor):
    assert cursor.fast_executemany is True


def test_fast_executemany_settable(cursor):
    cursor.fast_executemany = False
    assert cursor.fast_executemany is False
    cursor.fast_executemany = True
    assert cursor.fast_executemany is True


@pytest.mark.parametrize("fast", FAST)
def test_basic(backend, cursor, table, fast):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(50)')}")
    cursor.fast_executemany = fast
    data = [(1, "a"), (2, "b"), (3, "ü😀")]
    # DB-API leaves the return value open: pyodbc returns None, returning the cursor is fine.
    assert cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", data) in (None, cursor)
    assert rows_of(cursor, f"SELECT id, v FROM {t} ORDER BY id") == data


@pytest.mark.parametrize("fast", FAST)
def test_rowcount(backend, cursor, table, fast):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(50)')}")
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(i, str(i)) for i in range(25)])
    # DB-API leaves executemany's rowcount open: the total, or -1 (pyodbc).
    assert cursor.rowcount in (-1, 25)
    cursor.executemany(f"UPDATE {t} SET v = ? WHERE id < ?", [("x", 5), ("y", 2), ("z", -1)])
    assert cursor.rowcount in (-1, 7)
    sql = f"SELECT v, COUNT(*) FROM {t} GROUP BY v HAVING v IN ('x', 'y') ORDER BY v"
    assert rows_of(cursor, sql) == [("x", 3), ("y", 2)]


@pytest.mark.parametrize("fast", FAST_PYODBC_WRONG)
def test_nulls(backend, cursor, table, fast):
    ddl = backend.ddl
    t = table(
        f"id {ddl('int')}, i {ddl('bigint')}, s {ddl('varchar(50)')}, f {ddl('float')}, "
        f"n {ddl('numeric(18,4)')}, b {ddl('bytes')}, d {ddl('date')}, ts {ddl('timestamp')}, "
        f"flag {ddl('bool')}"
    )
    full = (
        5,
        "s",
        1.5,
        Decimal("2.5"),
        b"\x01",
        datetime.date(2024, 1, 2),
        datetime.datetime(2024, 1, 2, 3, 4, 5),
        True,
    )
    data = [
        (0, *([None] * 8)),
        (1, *full),
        (2, *([None] * 8)),
        (3, None, "x", None, Decimal("1"), None, datetime.date(2000, 1, 1), None, False),
    ]
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", data)
    got = rows_of(cursor, f"SELECT * FROM {t} ORDER BY id")
    num = (lambda d: float(d)) if backend.numeric_is_float else (lambda d: d)
    want = [
        data[0],
        (
            1,
            5,
            "s",
            1.5,
            num(Decimal("2.5")),
            b"\x01",
            datetime.date(2024, 1, 2),
            datetime.datetime(2024, 1, 2, 3, 4, 5),
            backend.fetched_bool(True),
        ),
        data[2],
        (3, None, "x", None, num(Decimal("1")), None, datetime.date(2000, 1, 1), None, backend.fetched_bool(False)),
    ]
    assert got == want
    for g, w in zip(got[1], want[1], strict=True):
        assert type(g) is type(w)


@pytest.mark.parametrize("fast", FAST_PYODBC_WRONG)
def test_all_null_column(backend, cursor, table, fast):
    t = table(f"id {backend.ddl('int')}, b {backend.ddl('bytes')}, s {backend.ddl('text')}")
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", [(i, None, None) for i in range(5)])
    want = [(i, None, None) for i in range(5)]
    assert rows_of(cursor, f"SELECT id, b, s FROM {t} ORDER BY id") == want


@pytest.mark.parametrize("fast", FAST_PYODBC_WRONG)
def test_mixed_types_down_a_column(backend, cursor, table, fast):
    ddl = backend.ddl
    t = table(f"id {ddl('int')}, s {ddl('varchar(50)')}, f {ddl('float')}, b {ddl('bigint')}")
    data = [
        (0, 1, 1, 1),
        (1, 2.5, 2.5, 2**40),
        (2, None, None, None),
        (3, "abc", Decimal("4.25"), -(2**63)),
        (4, Decimal("1.50"), 7, True),
    ]
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?)", data)
    got = rows_of(cursor, f"SELECT id, s, f, b FROM {t} ORDER BY id")
    assert got == [
        (0, "1", 1.0, 1),
        (1, "2.5", 2.5, 2**40),
        (2, None, None, None),
        (3, "abc", 4.25, -(2**63)),
        (4, "1.50", 7.0, 1),
    ]
    assert [type(r[2]) for r in got if r[2] is not None] == [float] * 4
    assert [type(r[3]) for r in got if r[3] is not None] == [int] * 4


@pytest.mark.parametrize("fast", FAST_PYODBC_WRONG)
def test_growing_values_down_a_column(backend, cursor, table, fast):
    # Buffers sized from the first row (or from SQLDescribeParam) must grow.
    t = table(f"id {backend.ddl('int')}, s {backend.ddl('text')}, b {backend.ddl('bytes')}")
    data = [
        (0, "a", b"\x01"),
        (1, "b" * 5000, b"\x02" * 5000),
        (2, "ü" * 100_000, b"\x03" * 100_000),
        (3, "", b""),
        (4, "😀" * 20_000, bytes(range(256)) * 300),
    ]
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", data)
    assert rows_of(cursor, f"SELECT id, s, b FROM {t} ORDER BY id") == data


@pytest.mark.parametrize("fast", FAST_PYODBC_WRONG)
def test_timestamp_fractions(backend, cursor, table, fast):
    t = table(f"id {backend.ddl('int')}, ts {backend.ddl('timestamp')}")
    data = [
        (0, datetime.datetime(2020, 1, 1, 1, 1, 1, 123456)),
        (1, datetime.datetime(2020, 1, 1, 1, 1, 1)),
        (2, datetime.datetime(1999, 12, 31, 23, 59, 59, 999999)),
    ]
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", data)
    got = rows_of(cursor, f"SELECT id, ts FROM {t} ORDER BY id")
    assert got == [(i, backend.timestamp_roundtrip(v)) for i, v in data]


@pytest.mark.parametrize("fast", FAST)
def test_ten_thousand_rows(backend, cursor, table, fast):
    t = table(
        f"id {backend.ddl('int')}, s {backend.ddl('varchar(50)')}, f {backend.ddl('float')}, "
        f"d {backend.ddl('date')}"
    )
    base = datetime.date(2000, 1, 1)
    data = [
        (i, None if i % 11 == 0 else f"v{i}é", i / 4, base + datetime.timedelta(days=i % 3000))
        for i in range(10_000)
    ]
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?)", data)
    assert rows_of(cursor, f"SELECT id, s, f, d FROM {t} ORDER BY id") == data


@pytest.mark.fastodbc_only(
    reason="pyodbc's fast_executemany segfaults on sqliteodbc and fails on bytea (HY090)"
)
def test_fast_and_rowwise_give_identical_results(backend, cnxn, table):
    ddl = backend.ddl
    cols = (
        f"id {ddl('int')}, s {ddl('varchar(255)')}, x {ddl('text')}, f {ddl('float')}, "
        f"n {ddl('numeric(18,4)')}, b {ddl('bytes')}, d {ddl('date')}, flag {ddl('bool')}, "
        f"i {ddl('bigint')}"
    )
    t_fast = table(cols, suffix="_f")
    t_slow = table(cols, suffix="_s")
    data = []
    for i in range(300):
        data.append(
            (
                i,
                None if i % 13 == 0 else f"s{i}Добрый😀",
                "long" * (i % 50),
                None if i % 17 == 0 else i * 1.25,
                Decimal(i) / 8,
                bytes([i % 256]) * (i % 40),
                datetime.date(2024, 1, 1) + datetime.timedelta(days=i),
                i % 2 == 0,
                -(2**62) + i,
            )
        )
    sql = "INSERT INTO {} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    c1 = cnxn.cursor()
    c1.fast_executemany = True
    c1.executemany(sql.format(t_fast), data)
    c2 = cnxn.cursor()
    c2.fast_executemany = False
    c2.executemany(sql.format(t_slow), data)
    got_fast = rows_of(c1, f"SELECT * FROM {t_fast} ORDER BY id")
    got_slow = rows_of(c2, f"SELECT * FROM {t_slow} ORDER BY id")
    assert got_fast == got_slow
    assert len(got_fast) == 300
    assert got_fast[1][1] == "s1Добрый😀"


EMPTY_SEQUENCES = {"list": lambda: [], "tuple": lambda: ()}
EMPTY_ITERATORS = {"iterator": lambda: iter([]), "generator": lambda: (r for r in [(1,)] if False)}


@pytest.mark.parametrize("fast", FAST)
@pytest.mark.parametrize("rows", EMPTY_SEQUENCES.values(), ids=EMPTY_SEQUENCES.keys())
def test_empty_sequence_is_refused(db, backend, cursor, table, fast, rows):
    t = table(f"id {backend.ddl('int')}")
    cursor.fast_executemany = fast
    with pytest.raises(db.ProgrammingError, match="must not be empty"):
        cursor.executemany(f"INSERT INTO {t} VALUES (?)", rows())
    assert cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 0


@pytest.mark.parametrize("fast", FAST)
@pytest.mark.parametrize("rows", EMPTY_ITERATORS.values(), ids=EMPTY_ITERATORS.keys())
def test_empty_iterator_runs_nothing(db, backend, cursor, table, fast, rows):
    t = table(f"id {backend.ddl('int')}")
    cursor.fast_executemany = fast
    cursor.execute(f"INSERT INTO {t} VALUES (1)")
    assert cursor.rowcount == 1
    # As pyodbc: no error, nothing prepared (not even a statement that could not run), and
    # the row count of the statement before forgotten.
    assert cursor.executemany(f"INSERT INTO {t} VALUES (?)", rows()) in (None, cursor)
    assert cursor.rowcount == -1
    cursor.executemany(f"INSERT INTO {t}_missing VALUES (?)", rows())
    assert cursor.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 1


@pytest.mark.parametrize("fast", FAST)
def test_generator_of_rows(backend, cursor, table, fast):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(50)')}")
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", ((i, f"g{i}") for i in range(7)))
    assert rows_of(cursor, f"SELECT id, v FROM {t} ORDER BY id") == [(i, f"g{i}") for i in range(7)]


@pytest.mark.parametrize("fast", FAST)
def test_rows_as_lists(backend, cursor, table, fast):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(50)')}")
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", [[1, "a"], [2, "b"]])
    assert rows_of(cursor, f"SELECT id, v FROM {t} ORDER BY id") == [(1, "a"), (2, "b")]


@pytest.mark.parametrize("fast", FAST)
def test_wrong_row_length(db, backend, cursor, table, fast):
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(50)')}")
    cursor.fast_executemany = fast
    with pytest.raises(db.ProgrammingError):
        cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(1, "a"), (2,)])


@pytest.mark.parametrize("fast", FAST)
def test_failing_row_raises_and_connection_survives(db, backend, cnxn, table, fast):
    t = table(f"id {backend.ddl('int')} NOT NULL PRIMARY KEY")
    cur = cnxn.cursor()
    cur.fast_executemany = fast
    exc_name = backend.unique_violation[1]
    with pytest.raises(getattr(db, exc_name)):
        cur.executemany(f"INSERT INTO {t} VALUES (?)", [(1,), (2,), (1,), (3,)])
    cnxn.rollback()
    assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 0
    cur.executemany(f"INSERT INTO {t} VALUES (?)", [(1,), (2,)])
    cnxn.commit()
    assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 2


@pytest.mark.parametrize("fast", FAST)
def test_executemany_then_select_on_same_cursor(backend, cursor, table, fast):
    t = table(f"id {backend.ddl('int')}")
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?)", [(1,), (2,)])
    cursor.execute(f"SELECT SUM(id) FROM {t}")
    assert cursor.fetchone()[0] == 3


FIXED_SIZE_VALUES = {
    "bool": lambda k: k % 3 == 0,
    "smallint": lambda k: k - 150,
    "int": lambda k: k * 1000,
    "bigint": lambda k: k * 2**40,
    "float": lambda k: k / 8,
    "date": lambda k: datetime.date(2000, 1, 1) + datetime.timedelta(days=k * 37),
    "time": lambda k: datetime.time(k % 24, k % 60, (k * 7) % 60),
    "timestamp": lambda k: datetime.datetime(2001, 1, 1) + datetime.timedelta(seconds=k * 3607),
}


@pytest.mark.parametrize("fast", FAST)
@pytest.mark.parametrize("kind", sorted(FIXED_SIZE_VALUES))
def test_fixed_size_type_param_arrays(backend, cursor, table, fast, kind):
    # Column-wise parameter arrays of fixed-size C types use the C struct's size as the
    # stride (SQL_C_BIT 1 byte, DATE_STRUCT 6...). A NULL first row must not fix the type.
    t = table(f"id {backend.ddl('int')}, v {backend.ddl(kind)}")
    rows = [(k, None if k % 10 in (0, 9) else FIXED_SIZE_VALUES[kind](k)) for k in range(200)]
    cursor.fast_executemany = fast
    cursor.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
    got = [tuple(r) for r in cursor.execute(f"SELECT id, v FROM {t} ORDER BY id")]
    assert got == rows


# --------------------------------------------------------------------------- bulk INSERT
# A single-row INSERT ... VALUES run by executemany is sent in blocks: on PostgreSQL as one
# array parameter per column (INSERT ... SELECT unnest(?), ...), elsewhere as parameter
# arrays. Whatever the path, the stored values must be those the row-by-row path stores.

BULK_ROWS = 150  # above the size at which the array path is taken


def _tricky_text(i: int) -> str | None:
    samples = ['a"b', "back\\slash", "{braces}", "a,b", "NULL", "", " padded ", "Добрый😀", "'q'"]
    return None if i % 10 == 9 else samples[i % len(samples)] + str(i)


def _tricky_floats(backend) -> list[float]:
    out = [0.1, -1e300, 5e-324, 1.7976931348623157e308, 123456789.125]
    if backend.supports_nan:
        out += [float("inf"), float("-inf")]
    if backend.keeps_negative_zero:
        out.append(-0.0)
    return out


@pytest.mark.fastodbc_only(reason="pyodbc's fast_executemany segfaults on sqliteodbc and fails on bytea")
def test_bulk_insert_stores_what_execute_stores(backend, cnxn, table):
    ddl = backend.ddl
    cols = (
        f"id {ddl('int')}, s {ddl('varchar(255)')}, f {ddl('float')}, n {ddl('numeric(18,4)')}, "
        f"b {ddl('bytes')}, d {ddl('date')}, ts {ddl('timestamp')}, tm {ddl('time')}, "
        f"flag {ddl('bool')}, i {ddl('bigint')}"
    )
    t_bulk = table(cols, suffix="_b")
    t_rows = table(cols, suffix="_r")
    floats = _tricky_floats(backend)
    data = [
        (
            k,
            _tricky_text(k),
            None if k % 7 == 6 else floats[k % len(floats)],
            None if k % 5 == 4 else Decimal("-12345678901234.5678") / (k + 1) if k % 2 else Decimal(k) / 8,
            None if k % 6 == 5 else bytes([0, 0x5C, 0x22, 0x2C, 0x7B, k % 256]) * (k % 4),
            backend.min_date if k == 1 else backend.max_date if k == 2 else datetime.date(2024, 2, 29),
            datetime.datetime(1999, 12, 31, 23, 59, 59, k * 997 % 1_000_000),
            datetime.time(k % 24, 59, 58, 123456 if k % 2 else 0),
            None if k % 9 == 8 else k % 3 == 0,
            -(2**63) if k == 3 else 2**63 - 1 if k == 4 else k * 2**40,
        )
        for k in range(BULK_ROWS)
    ]
    sql = "INSERT INTO {} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    bulk = cnxn.cursor()
    bulk.fast_executemany = True
    bulk.executemany(sql.format(t_bulk), data)
    assert bulk.rowcount in (-1, BULK_ROWS)
    rowwise = cnxn.cursor()
    for row in data:
        rowwise.execute(sql.format(t_rows), row)
    got = rows_of(bulk, f"SELECT * FROM {t_bulk} ORDER BY id")
    want = rows_of(rowwise, f"SELECT * FROM {t_rows} ORDER BY id")
    assert len(got) == BULK_ROWS
    assert got == want
    assert [r[1] for r in got] == [_tricky_text(k) for k in range(BULK_ROWS)]


@pytest.mark.fastodbc_only(reason="the bulk path is fastodbc's")
def test_bulk_insert_column_list_names_and_defaults(backend, cnxn, table):
    ddl = backend.ddl
    mixed = backend.quote("Mixed Case")
    t = table(f"id {ddl('int')}, {mixed} {ddl('varchar(50)')}, note {ddl('varchar(50)')} DEFAULT 'dflt'")
    cur = cnxn.cursor()
    data = [(f"v{k}", k) for k in range(BULK_ROWS)]
    cur.executemany(f"INSERT INTO {backend.schema}.{t} ({mixed}, ID) VALUES (?, ?)", iter(data))
    got = rows_of(cur, f"SELECT id, {mixed}, note FROM {t} ORDER BY id")
    assert got == [(k, f"v{k}", "dflt") for k in range(BULK_ROWS)]


@pytest.mark.fastodbc_only(reason="the bulk path is fastodbc's")
def test_bulk_insert_never_truncates(db, backend, cnxn, table):
    if not backend.enforces_varchar_length:
        pytest.skip(f"{backend.name} does not enforce VARCHAR lengths")
    t = table(f"id {backend.ddl('int')}, s VARCHAR(5)")
    cur = cnxn.cursor()
    data = [(k, "12345") for k in range(BULK_ROWS)]
    data[100] = (100, "123456")
    with pytest.raises(db.DataError) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", data)
    assert info.value.sqlstate == "22001"
    cnxn.rollback()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", data[:100])
    assert cur.execute(f"SELECT COUNT(*), MAX(LENGTH(s)) FROM {t}").fetchone() == (100, 5)


def _statement_log(cur, t: str) -> str:
    """A statement-level trigger recording the text of every INSERT into ``t``."""
    cur.execute(f"CREATE TABLE {t}_log (q text)")
    cur.execute(
        f"CREATE FUNCTION {t}_f() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN INSERT INTO {t}_log VALUES (current_query()); RETURN NULL; END $$"
    )
    cur.execute(f"CREATE TRIGGER {t}_tr AFTER INSERT ON {t} FOR EACH STATEMENT EXECUTE FUNCTION {t}_f()")
    return f"{t}_log"


@pytest.mark.fastodbc_only(reason="the bulk path is fastodbc's")
@pytest.mark.parametrize("backend", COLUMN_ARRAYS, indirect=True)
def test_bulk_insert_statements_on_postgresql(backend, cnxn, table):
    t = table(f"id {backend.ddl('int')}, s {backend.ddl('varchar(50)')}")
    cur = cnxn.cursor()
    log = _statement_log(cur, t)
    try:
        # 25,000 rows: three statements of at most 10,000 rows, each one INSERT ... unnest.
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", ((k, str(k)) for k in range(25_000)))
        assert cur.rowcount == 25_000
        queries = [r[0] for r in cur.execute(f"SELECT q FROM {log}")]
        assert len(queries) == 3
        assert all("unnest(" in q for q in queries)
        cur.execute(f"DELETE FROM {log}")
        # A handful of rows: one multi-row VALUES statement, no catalog look-up first.
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(k, "x") for k in range(10)])
        queries = [r[0] for r in cur.execute(f"SELECT q FROM {log}")]
        assert len(queries) == 1 and "unnest" not in queries[0]
        assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 25_010
    finally:
        cnxn.rollback()
        cur.execute(f"DROP TABLE IF EXISTS {log}")
        cur.execute(f"DROP TRIGGER IF EXISTS {t}_tr ON {t}")
        cur.execute(f"DROP FUNCTION IF EXISTS {t}_f()")
        cnxn.commit()


def _sqlite_prepares(trace: str, t: str) -> list[str]:
    """The INSERTs into ``t`` that sqliteodbc compiled, from its trace file (an ``EXPLAIN`` of
    one, which lists its program without running it, is not one of them)."""
    with open(trace, encoding="utf-8") as f:
        return [
            line
            for line in f
            if line.startswith("-- sqlite3_prepare") and f"INSERT INTO {t} " in line and "EXPLAIN " not in line
        ]


@pytest.mark.fastodbc_only(reason="the bulk path is fastodbc's")
@pytest.mark.parametrize("backend", COMPILED_ONCE, indirect=True)
def test_bulk_insert_compiled_once_on_sqlite(backend, connect, table, tmp_path):
    t = table(f"id {backend.ddl('int')}, s {backend.ddl('varchar(50)')}")
    trace = str(tmp_path / "trace.sql")
    cnxn = connect(f"{backend.connstr}Tracefile={trace};")
    cur = cnxn.cursor()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(k, str(k)) for k in range(1000)])
    assert cur.rowcount == 1000
    prepares = _sqlite_prepares(trace, t)
    assert len(prepares) == 1 and "WITH fastodbc_compiled_once" in prepares[0]
    # Below the bulk threshold the statement goes as written: one compile per row.
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(k, "x") for k in range(1000, 1010)])
    assert cur.rowcount == 10
    assert len(_sqlite_prepares(trace, t)) == 1 + 10
    cnxn.commit()
    assert cur.execute(f"SELECT COUNT(*), SUM(id) FROM {t}").fetchone() == (1010, sum(range(1010)))


@pytest.mark.fastodbc_only(reason="the bulk path is fastodbc's")
@pytest.mark.parametrize("backend", COMPILED_ONCE, indirect=True)
def test_bulk_insert_rowcount_counts_rows_stored_on_sqlite(backend, cnxn, table):
    t = table("id INTEGER PRIMARY KEY ON CONFLICT IGNORE, s TEXT")
    cur = cnxn.cursor()
    # 300 rows, 100 distinct keys: the other 200 are ignored and not counted.
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(k % 100, str(k)) for k in range(300)])
    assert cur.rowcount == 100
    assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 100


@pytest.mark.fastodbc_only(reason="the bulk path is fastodbc's")
@pytest.mark.parametrize("backend", COMPILED_ONCE, indirect=True)
@pytest.mark.parametrize("trigger", ["TRIGGER", "TEMP TRIGGER"])
def test_bulk_insert_into_table_with_trigger_on_sqlite(backend, connect, table, tmp_path, trigger):
    t = table(f"id {backend.ddl('int')}")
    log = table("id INTEGER", suffix="_log")
    trace = str(tmp_path / "trace.sql")
    cnxn = connect(f"{backend.connstr}Tracefile={trace};")
    cur = cnxn.cursor()
    cur.execute(f"CREATE {trigger} {t}_tr AFTER INSERT ON {t} BEGIN INSERT INTO {log} VALUES (new.id); END")
    cur.executemany(f"INSERT INTO {t} VALUES (?)", [(k,) for k in range(100)])
    # The trigger's rows are not the statement's: the count is the plain path's, 100 not 200.
    assert cur.rowcount == 100
    assert not any("fastodbc_compiled_once" in p for p in _sqlite_prepares(trace, t))
    assert cur.execute(f"SELECT COUNT(*) FROM {log}").fetchone()[0] == 100


@pytest.mark.fastodbc_only(reason="the bulk path is fastodbc's")
@pytest.mark.parametrize("backend", COLUMN_ARRAYS, indirect=True)
def test_bulk_insert_postgresql_type_input(backend, cnxn, table):
    # Values reach each column's own input function: a delimiter other than ',' (box), a bare
    # `bit` type name that must not become bit(1), char padding, numeric rounding, json text.
    cols = "id int, bx box, bits bit(8), c char(3), n numeric(6,2), j json, u uuid, tags text[]"
    t_bulk = table(cols, suffix="_b")
    t_rows = table(cols, suffix="_r")
    data = [
        (k, f"({k},{k + 1}),(0,0)", format(k, "08b"), "ab", Decimal(k) / 3, f'{{"k": "{k}\\"q"}}', None, None)
        for k in range(BULK_ROWS)
    ]
    cur = cnxn.cursor()
    sql = "INSERT INTO {} (id, bx, bits, c, n, j, u) VALUES (?, ?, ?, ?, ?, ?, ?)"
    cur.executemany(sql.format(t_bulk), [r[:7] for r in data])
    for row in data:
        cur.execute(sql.format(t_rows), row[:7])
    select = "SELECT id, bx::text, bits::text, c, n, j::text, u FROM {} ORDER BY id"
    got = rows_of(cur, select.format(t_bulk))
    assert got == rows_of(cur, select.format(t_rows))
    assert got[5][1:5] == ("(5,6),(0,0)", "00000101", "ab ", Decimal("1.67"))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("fast", FAST)
@pytest.mark.parametrize("rows", [10, 63, 64, 1000])
def test_executemany_beside_an_uncommitted_writer(backend, connect, table, rows, fast):
    # A holds an uncommitted INSERT; B's executemany into the same table waits for A's locks
    # (on SQLite, the whole database), then A commits: A's commit must not wait for B, and B
    # then stores its rows. Catalog reads an INSERT path makes before writing must not hold a
    # lock that A's commit waits for while B waits for A.
    import threading

    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(10)')}")
    a, b = connect(), connect()
    a.cursor().execute(f"INSERT INTO {t} VALUES (?, ?)", -1, "a")
    outcome = {}

    def load():
        try:
            cur = b.cursor()
            cur.fast_executemany = fast
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(i, "b") for i in range(rows)])
            b.commit()
            outcome["b"] = "ok"
        except Exception as e:  # reported below, in the test's thread
            outcome["b"] = e

    loader = threading.Thread(target=load)
    loader.start()
    loader.join(0.5)  # B is waiting for A's lock (SQLite) or done (row-locking databases)
    a.commit()
    loader.join(30)
    assert not loader.is_alive()
    assert outcome["b"] == "ok"
    got = a.cursor().execute(f"SELECT COUNT(*), SUM(id) FROM {t}").fetchone()
    assert tuple(got) == (rows + 1, sum(range(rows)) - 1)


def _rss_after_trim() -> int:
    """Resident bytes after glibc returned its free memory: what is left is in use."""
    ctypes = pytest.importorskip("ctypes")
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except AttributeError:
        pytest.skip("not glibc: no malloc_trim")
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.fastodbc_only(reason="pyodbc's parameter arrays keep what the driver keeps")
def test_parameter_arrays_of_dates_keep_no_memory(backend, cursor, table):
    # MariaDB Connector/ODBC 3.1.15 never frees the MYSQL_TIME it allocates for each date or
    # timestamp of a parameter array (~85 bytes a row here; docs/driver-quirks.md): four more
    # loads of 30,000 rows would keep ~10 MB.
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("no /proc")
    t = table(f"d {backend.ddl('date')}, ts {backend.ddl('timestamp')}")
    base = datetime.datetime(2001, 2, 3, 4, 5, 6)
    data = [
        (base.date() + datetime.timedelta(days=i % 9000), base + datetime.timedelta(seconds=i)) for i in range(30_000)
    ]
    sql = f"INSERT INTO {t} VALUES (?, ?)"

    def load() -> None:
        cursor.executemany(sql, data)
        cursor.execute(f"DELETE FROM {t}")
        cursor.commit()

    load()
    before = _rss_after_trim()
    for _ in range(4):
        load()
    grown = _rss_after_trim() - before
    assert grown < 3 * 2**20, f"RSS grew by {grown / 2**20:.1f} MB over four loads"
