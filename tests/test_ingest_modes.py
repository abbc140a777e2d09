"""Bulk load, where it goes: ADBC's modes (create, append, replace, create_append), tables
created with the database's own types, columns matched by name or mapped, names quoted; and
the transaction (tests/test_ingest_transactions.py has the rest): nothing kept on an error, a
table the load created dropped again, ``commit_every`` (an error says how much was committed),
a load inside the caller's transaction."""

from __future__ import annotations

import datetime
import decimal
import re

import pyarrow as pa
import pytest

pytestmark = pytest.mark.fastodbc_only(reason="ingest is fastodbc's")


def every_type(n: int = 50) -> pa.Table:
    """One column of each Arrow type ``create`` makes a column for, NULLs in each."""

    def col(values, t):
        return pa.array([None if i % 9 == 4 else values(i) for i in range(n)], t)

    return pa.table(
        {
            "i8": col(lambda i: i - 25, pa.int8()),
            "i16": col(lambda i: i * 1000 - 25_000, pa.int16()),
            "i32": col(lambda i: i * 40_000_000 - 2**31 + 1, pa.int32()),
            "i64": col(lambda i: i * 10**17 - 2**62, pa.int64()),
            "u8": col(lambda i: 255 - i, pa.uint8()),
            "u32": col(lambda i: 2**32 - 1 - i, pa.uint32()),
            "f32": col(lambda i: i / 4, pa.float32()),
            "f64": col(lambda i: i / 3, pa.float64()),
            "dec": col(lambda i: decimal.Decimal(i * 12345) / 1000, pa.decimal128(12, 3)),
            "s": col(lambda i: "é😀" * (i % 5) + str(i), pa.string()),
            "b": col(lambda i: bytes(range(i % 7)) + b"\x00", pa.binary()),
            "d": col(lambda i: datetime.date(1 + i * 150, 1 + i % 12, 28), pa.date32()),
            "ts": col(lambda i: datetime.datetime(2001, 2, 3, 4, 5, 6, i * 1000), pa.timestamp("us")),
            "t": col(lambda i: datetime.time(i % 24, i, 59, i * 10_000), pa.time64("us")),
            "flag": col(lambda i: i % 2 == 0, pa.bool_()),
        }
    )


def read_rows(cursor, name: str, t: pa.Table, quote: str) -> list[dict]:
    cols = ", ".join(f"{quote}{c}{quote}" for c in t.column_names)
    return [dict(zip(t.column_names, r, strict=True)) for r in cursor.execute(f"SELECT {cols} FROM {name}").fetchall()]


def normalised(rows: list[dict], backend) -> list[dict]:
    """What the rows path gives back for the input's values where a database keeps another
    form: SQLite's NUMERIC is a double, MariaDB's BOOLEAN-like BIT comes back as bool."""
    out = []
    for r in rows:
        r = dict(r)
        if backend.numeric_is_float and r["dec"] is not None:
            r["dec"] = float(r["dec"])
        for k in ("f32", "f64"):
            if r[k] is not None:
                r[k] = float(f"{r[k]:.{backend.float_digits}g}")
        out.append(r)
    return out


def test_create_makes_a_table_that_holds_every_type(backend, cursor, table):
    name = table()
    t = every_type()
    plan = cursor.ingest_plan(name, t, mode="create")
    assert plan.create_sql and plan.create_sql.startswith("CREATE TABLE")
    assert [c.source for c in plan.columns] == t.column_names
    assert cursor.ingest(name, t, mode="create") == t.num_rows

    def key(r):
        return (r["i8"] is None, r["i8"] or 0, r["s"] or "")

    got = sorted(normalised(read_rows(cursor, name, t, backend.identifier_quote), backend), key=key)
    want = sorted(normalised(t.to_pylist(), backend), key=key)
    assert got == want
    # Arrow back: the same values (types as the database holds them).
    back = cursor.execute(f"SELECT * FROM {name}").fetch_arrow_table()
    assert back.num_rows == t.num_rows and back.column_names == t.column_names


def test_modes_create_append_replace_create_append(db, backend, cursor, table):
    name = table()
    first = pa.table({"id": pa.array([1, 2], pa.int32()), "v": ["a", "b"]})
    second = pa.table({"id": pa.array([3], pa.int32()), "v": ["c"]})
    with pytest.raises(db.ProgrammingError, match="does not exist"):
        cursor.ingest(name, first, mode="append")
    assert cursor.ingest(name, first, mode="create_append") == 2
    with pytest.raises(db.ProgrammingError, match="exists already"):
        cursor.ingest(name, first, mode="create")
    assert cursor.ingest(name, second, mode="create_append") == 1
    assert cursor.ingest(name, second) == 1
    assert sorted(cursor.execute(f"SELECT id FROM {name}").fetchall()) == [(1,), (2,), (3,), (3,)]
    other = pa.table({"x": pa.array([1.5], pa.float64())})
    # A replace's DROP commits by itself on some databases: not inside this open transaction.
    cursor.connection.commit()
    assert cursor.ingest(name, other, mode="replace") == 1
    assert [tuple(r) for r in cursor.execute(f"SELECT * FROM {name}").fetchall()] == [(1.5,)]
    with pytest.raises(db.ProgrammingError, match="mode must be"):
        cursor.ingest(name, other, mode="upsert")


def test_columns_match_by_name_in_any_order_case_or_mapping(db, backend, cursor, table):
    name = table("id INTEGER, label VARCHAR(20), extra INTEGER")
    t = pa.table({"LABEL": ["x", "y"], "Id": pa.array([1, 2], pa.int32()), "junk": [0.5, 0.25]})
    with pytest.raises(db.ProgrammingError, match="junk"):
        cursor.ingest(name, t)
    assert cursor.ingest(name, t, columns={"junk": None}) == 2
    assert cursor.ingest(name, t, columns={"junk": None, "Id": "extra"}) == 2
    rows = sorted((tuple(r) for r in cursor.execute(f"SELECT id, label, extra FROM {name}").fetchall()), key=str)
    assert rows == sorted([(1, "x", None), (2, "y", None), (None, "x", 1), (None, "y", 2)], key=str)
    with pytest.raises(db.ProgrammingError, match="lacks"):
        cursor.ingest(name, t, columns={"nope": "id"})


def test_names_needing_quotes(backend, cursor, table):
    name = table() + " Mixed"
    t = pa.table({"order": pa.array([1], pa.int32()), "two words": ["a"], "CamelCase": [True]})
    try:
        assert cursor.ingest(name, t, mode="create") == 1
        q = backend.identifier_quote
        got = cursor.execute(f"SELECT {q}two words{q}, {q}order{q} FROM {q}{name}{q}").fetchall()
        assert [tuple(r) for r in got] == [("a", 1)]
    finally:
        cursor.connection.rollback()
        cursor.execute(f"DROP TABLE IF EXISTS {backend.identifier_quote}{name}{backend.identifier_quote}")
        cursor.connection.commit()


def test_a_failed_create_leaves_no_table(db, backend, cursor, table):
    name = table()
    t = pa.table({"v": pa.array(["ok"] * 3000 + ["x" * 300], pa.string())})
    bad = pa.table({"v": pa.array([1.5, None], pa.float64()), "w": pa.array([None, None], pa.null())})
    # A NULL into the NOT NULL column the schema asks for.
    schema = pa.schema([pa.field("v", pa.int32(), nullable=False)])
    with pytest.raises(db.IntegrityError):
        cursor.ingest(name, pa.table({"v": pa.array([1, None], pa.int32())}, schema=schema), mode="create")
    assert not _exists(cursor, name)
    assert cursor.ingest(name, t, mode="create") == 3001  # the name is free
    del bad


def _exists(cursor, name: str) -> bool:
    return any(r[2] == name for r in cursor.connection.cursor().tables(table=name).fetchall())


@pytest.mark.parametrize("autocommit", [False, True])
def test_one_transaction_restores_autocommit_and_keeps_nothing_on_error(db, backend, connect, table, autocommit):
    cnxn = connect(autocommit=autocommit)
    cursor = cnxn.cursor()
    name = table("id INTEGER NOT NULL")
    ids = list(range(5000))
    ids[4321] = None
    with pytest.raises(db.IntegrityError, match="input row 4322"):
        cursor.ingest(name, pa.table({"id": pa.array(ids, pa.int32())}), batch_rows=100)
    assert cnxn.autocommit == autocommit
    assert cursor.execute(f"SELECT COUNT(*) FROM {name}").fetchval() == 0
    assert cursor.ingest(name, pa.table({"id": pa.array(range(10), pa.int32())})) == 10
    assert cnxn.autocommit == autocommit
    if not autocommit:
        # Part of the connection's transaction: committed only by its commit().
        assert connect(autocommit=True).cursor().execute(f"SELECT COUNT(*) FROM {name}").fetchval() == 0
        cnxn.commit()
    assert connect(autocommit=True).cursor().execute(f"SELECT COUNT(*) FROM {name}").fetchval() == 10


@pytest.mark.parametrize("autocommit", [False, True])
def test_commit_every_says_how_much_was_committed(db, backend, connect, table, autocommit):
    cursor = connect(autocommit=autocommit).cursor()
    name = table("id INTEGER NOT NULL")
    ids = list(range(5000))
    ids[1700] = None
    with pytest.raises(db.IntegrityError) as err:
        # With autocommit off, commits ask for commit=True (they commit the open transaction).
        cursor.ingest(
            name, pa.table({"id": pa.array(ids, pa.int32())}), batch_rows=500, commit_every=500, commit=not autocommit
        )
    committed = int(re.search(r"(\d+) input rows were committed", str(err.value)).group(1))
    assert committed == 1500
    fresh = connect().cursor()
    assert fresh.execute(f"SELECT COUNT(*) FROM {name}").fetchval() == committed


def test_commit_false_loads_inside_the_callers_transaction(db, backend, connect, table):
    cnxn = connect(autocommit=False)
    cursor = cnxn.cursor()
    name = table("id INTEGER")
    assert cursor.ingest(name, pa.table({"id": pa.array([1, 2], pa.int32())}), commit=False) == 2
    assert cursor.execute(f"SELECT COUNT(*) FROM {name}").fetchval() == 2
    cnxn.rollback()
    assert cursor.execute(f"SELECT COUNT(*) FROM {name}").fetchval() == 0


def test_the_plan_describes_and_writes_nothing(backend, cursor, table):
    name = table()
    plan = cursor.ingest_plan(name, every_type().schema, mode="create")
    text = str(plan)
    assert "CREATE TABLE" in text and "INSERT INTO" in text and "decimal128(12, 3)" in text
    assert not _exists(cursor, name)


def test_a_failed_replace_keeps_the_old_table(db, backend, cursor, table):
    name = table()
    assert cursor.ingest(name, pa.table({"id": pa.array([1, 2], pa.int32())}), mode="create") == 2
    cursor.connection.commit()
    bad = pa.table({"id": pa.array([3, None], pa.int32())}, schema=pa.schema([pa.field("id", pa.int32(), False)]))
    with pytest.raises(db.Error):
        cursor.ingest(name, bad, mode="replace")
    assert sorted(cursor.execute(f"SELECT id FROM {name}").fetchall()) == [(1,), (2,)]
    assert not _exists(cursor, name + "__fastodbc_load")
    cursor.connection.commit()
    assert cursor.ingest(name, pa.table({"id": pa.array([7], pa.int64())}), mode="replace") == 1
    assert [tuple(r) for r in cursor.execute(f"SELECT id FROM {name}").fetchall()] == [(7,)]
