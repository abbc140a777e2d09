"""Arrow fetch, the type table: every column kind of a profile (Profile.arrow_types) comes as
its Arrow type, with the values the rows path gives for the same query, NULLs included; long
values come whole; SQLite's values of another type than declared as the rows path reads them
or DataError."""

from __future__ import annotations

import pyarrow as pa
import pytest

from arrowcheck import arrow_type, assert_matches_rows, assert_schema_names, batches_of, check_batch, edge_values
from profiles import PROFILES, backends_where

pytestmark = pytest.mark.fastodbc_only(reason="Arrow fetch is fastodbc's")

# Every kind some profile has; a backend without one skips it.
ALL_KINDS = sorted({k for p in PROFILES for k in p.arrow_types})


def fill(cnxn, t: str, columns: list[str], rows: list[tuple]) -> None:
    cur = cnxn.cursor()
    marks = ", ".join("?" * len(columns))
    for row in rows:
        cur.execute(f"INSERT INTO {t} ({', '.join(columns)}) VALUES ({marks})", *row)
    cnxn.commit()


def kinds(backend) -> list[str]:
    return sorted(backend.arrow_types)


def arrow_and_rows(cur, sql: str, *params):
    """(table, rows) of the same query: through fetch_arrow_table and through fetchall."""
    table = cur.execute(sql, *params).fetch_arrow_table()
    description = cur.description
    rows = cur.execute(sql, *params).fetchall()
    assert_schema_names(table, description)
    return table, rows


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_type_table(backend, table, cnxn, kind):
    """The kind's Arrow type, and its edge values and NULL equal the rows path's."""
    if kind not in backend.arrow_types:
        pytest.skip(f"{backend.name} has no {kind} column (Profile.arrow_types)")
    t = table(f"id {backend.ddl('int')} NOT NULL, v {backend.ddl(kind)}")
    values = edge_values(backend, kind)
    fill(cnxn, t, ["id", "v"], [(i, x) for i, x in enumerate([*values, None])])
    cur = cnxn.cursor()
    got, rows = arrow_and_rows(cur, f"SELECT v, id FROM {t} ORDER BY id")
    assert got.schema.field("v").type == arrow_type(backend.arrow_types[kind]), got.schema
    assert got.schema.field("id").type == arrow_type(backend.arrow_types["int"])
    assert_matches_rows(got, rows, kind)
    assert got.column("v").null_count == 1
    assert got.num_rows == len(values) + 1


@pytest.mark.parametrize("kind", [k for k in ALL_KINDS if k.endswith(" unsigned")])
def test_unsigned_integers_whole(backend, table, cnxn, kind):
    """An unsigned column's values past the signed range (2**63 .. 2**64-1 in BIGINT UNSIGNED)
    are the values stored, compared with what was inserted (not with the rows path)."""
    if kind not in backend.arrow_types:
        pytest.skip(f"{backend.name} has no {kind} column (Profile.arrow_types)")
    t = table(f"id {backend.ddl('int')} NOT NULL, v {backend.ddl(kind)}")
    values = edge_values(backend, kind)
    fill(cnxn, t, ["id", "v"], [(i, x) for i, x in enumerate(values)])
    got = cnxn.cursor().execute(f"SELECT v FROM {t} ORDER BY id").fetch_arrow_table()
    assert got.column("v").to_pylist() == values


def test_every_kind_in_one_result(backend, table, cnxn):
    """All kinds side by side, rows of values and rows of NULLs alternating, in batches of 3."""
    ks = kinds(backend)
    names = [f"c{i}" for i in range(len(ks))]
    ddl = ", ".join(f"{n} {backend.ddl(k)}" for n, k in zip(names, ks, strict=True))
    t = table(f"id {backend.ddl('int')} NOT NULL, {ddl}")
    columns = {k: edge_values(backend, k) for k in ks}
    rows = []
    for i in range(12):
        if i % 3 == 2:
            rows.append((i, *[None] * len(ks)))
        else:
            rows.append((i, *[columns[k][i % len(columns[k])] for k in ks]))
    fill(cnxn, t, ["id", *names], rows)
    cur = cnxn.cursor()
    sql = f"SELECT {', '.join(names)}, id FROM {t} ORDER BY id"
    want = cur.execute(sql).fetchall()
    batches = batches_of(cur.execute(sql).fetch_record_batch(batch_rows=3))
    assert sum(b.num_rows for b in batches) == 12 and all(b.num_rows <= 3 for b in batches)
    got = pa.Table.from_batches(batches)
    assert_matches_rows(got, want, "every kind")
    for name, k in zip(names, ks, strict=True):
        assert got.schema.field(name).type == arrow_type(backend.arrow_types[k]), (k, got.schema)
        assert got.column(name).null_count == 4, k


def test_output_converters_do_not_apply(db, backend, table, cnxn):
    t = table(f"i {backend.ddl('int')}, s {backend.ddl('varchar(50)')}")
    fill(cnxn, t, ["i", "s"], [(1, "a"), (2, None)])
    for sql_type in (db.SQL_INTEGER, db.SQL_BIGINT, db.SQL_VARCHAR, db.SQL_WVARCHAR):
        cnxn.add_output_converter(sql_type, lambda raw: "converted")
    cur = cnxn.cursor()
    got = cur.execute(f"SELECT i, s FROM {t} ORDER BY i").fetch_arrow_table()
    assert got.column("i").to_pylist() == [1, 2]
    assert got.column("s").to_pylist() == ["a", None]


# ------------------------------------------------------------------------ long values


def long_text(size: int) -> str:
    unit = "abc-äöü-€-😀-\U0010fffd-"
    return (unit * (size // len(unit) + 1))[:size]


def test_long_text_and_binary_come_whole(backend, table, cnxn):
    t = table(f"id {backend.ddl('int')}, body {backend.ddl('text')}, data {backend.ddl('bytes')}, "
              f"n {backend.ddl('int')}")
    text = long_text(100 * 1024)
    if backend.wide_fetch_max_codepoint < 0x10FFFF:
        text = text.replace("\U0010fffd", "\U0001f600")  # beyond what its UTF-16 fetch keeps
    blob64 = bytes((i * 7 + i // 256) % 256 for i in range(64 * 1024))
    blob1m = bytes((i * 31 + 5) % 256 for i in range(1 << 20))
    rows = [(1, "short", b"s", 1), (2, text, blob64, 2), (3, None, None, 3), (4, text[:70_000], blob1m, 4),
            (5, "", b"", 5)]
    fill(cnxn, t, ["id", "body", "data", "n"], rows)
    cur = cnxn.cursor()
    sql = f"SELECT id, body, data, n FROM {t} ORDER BY id"
    want = cur.execute(sql).fetchall()
    assert [tuple(r) for r in want] == rows  # the rows path's own values are right
    for batch_rows in (None, 1, 2):
        got = cur.execute(sql).fetch_arrow_table(batch_rows=batch_rows)
        assert got.schema.field("body").type == pa.string()
        assert got.schema.field("data").type == pa.binary()
        assert_matches_rows(got, want, f"batch_rows={batch_rows}")
        assert len(got.column("body")[1].as_py()) == len(text)
        assert len(got.column("data")[3].as_py()) == 1 << 20


def test_long_values_after_short_ones_in_a_later_batch(backend, table, cnxn):
    """A column whose first rows are short and a later one long: the long one comes whole."""
    t = table(f"id {backend.ddl('int')}, body {backend.ddl('text')}, data {backend.ddl('bytes')}")
    rows = [(i, f"v{i}", bytes([i % 256])) for i in range(3000)]
    rows[2500] = (2500, long_text(300_000), bytes(range(256)) * 1024)
    cur = cnxn.cursor()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", rows)
    cnxn.commit()
    sql = f"SELECT id, body, data FROM {t} ORDER BY id"
    want = cur.execute(sql).fetchall()
    for batch_rows, batch_bytes in ((None, None), (7, None), (None, 4096)):
        reader = cur.execute(sql).fetch_record_batch(batch_rows=batch_rows, batch_bytes=batch_bytes)
        got = pa.Table.from_batches(batches_of(reader), schema=reader.schema)
        assert_matches_rows(got, want, f"batch_rows={batch_rows} batch_bytes={batch_bytes}")


# ------------------------------------------------------------------------ SQLite's values of another type

# Values an INTEGER or REAL column of SQLite holds (tests/test_types.py's list).
SQLITE_VALUES = ["3.7", "-2.5e-7", "1e20", "'abc'", "'12abc'", "'0x1F'", "'007'",
                 "9223372036854775807", "-9223372036854775808", "0", "NULL", "2.0"]


def fits(type_: pa.DataType, value) -> bool:
    """The Arrow type holds the rows path's value exactly."""
    if value is None:
        return True
    if pa.types.is_integer(type_):
        return type(value) is int
    if pa.types.is_floating(type_):
        return type(value) is float or (type(value) is int and float(value) == value)
    return True


@pytest.mark.parametrize("backend", backends_where(lambda p: p.columns_hold_any_type), indirect=True)
@pytest.mark.parametrize(("ddl", "kind"), [("INTEGER", "int"), ("BIGINT", "bigint"), ("REAL", "real"),
                                           ("DOUBLE", "float")])
def test_sqlite_values_of_another_type(db, backend, table, cnxn, ddl, kind):
    """As the rows path reads them where the Arrow type holds them exactly; else DataError
    naming the column."""
    t = table(f"k INTEGER, held_value {ddl}")
    cur = cnxn.cursor()
    for k, v in enumerate(SQLITE_VALUES):
        cur.execute(f"INSERT INTO {t} VALUES ({k}, {v})")
    cnxn.commit()
    type_ = arrow_type(backend.arrow_types[kind])
    for k, literal in enumerate(SQLITE_VALUES):
        sql = f"SELECT held_value FROM {t} WHERE k = {k}"
        row_value = cur.execute(sql).fetchone()[0]
        if fits(type_, row_value):
            got = cur.execute(sql).fetch_arrow_table()
            assert got.schema.field("held_value").type == type_
            assert_matches_rows(got, [(row_value,)], f"{ddl} holding {literal}")
        else:
            with pytest.raises(db.DataError) as err:
                cur.execute(sql).fetch_arrow_table()
            assert "held_value" in str(err.value), (literal, err.value)
        assert cur.execute("SELECT 1").fetchone()[0] == 1


@pytest.mark.parametrize("backend", backends_where(lambda p: p.columns_hold_any_type), indirect=True)
def test_sqlite_text_in_integer_column_after_many_rows(db, backend, table, cnxn):
    """A value the Arrow type cannot hold after thousands of good rows: DataError naming the
    column, never a shorter table; the connection stays usable."""
    t = table("k INTEGER, amount INTEGER")
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} SELECT i, i FROM ({backend.series(10_000)}) q")
    cur.execute(f"UPDATE {t} SET amount = 'abc' WHERE k = 9000")
    cnxn.commit()
    sql = f"SELECT k, amount FROM {t} ORDER BY k"
    with pytest.raises(db.DataError) as err:
        cur.execute(sql).fetch_arrow_table()
    assert "amount" in str(err.value) and "abc" in str(err.value), err.value
    reader = cur.execute(sql).fetch_record_batch(batch_rows=1000)
    seen = 0
    with pytest.raises(db.DataError):
        for batch in reader:
            check_batch(batch)
            assert batch.column(1).to_pylist() == list(range(seen + 1, seen + batch.num_rows + 1))
            seen += batch.num_rows
    reader.close()
    assert seen < 9000
    assert cur.execute("SELECT COUNT(*) FROM " + t).fetchone()[0] == 10_000


@pytest.mark.parametrize("backend", backends_where(lambda p: p.numeric_outgrows_description), indirect=True)
def test_decimal_that_does_not_fit_its_description(db, backend, connect):
    """Never rounded: a NUMERIC value with more decimals than the column's described scale
    raises DataError naming the column and the value; read whole, every value fits."""
    attributes, sql = backend.numeric_outgrows_description
    cur = connect().cursor()
    want = cur.execute(sql).fetchall()
    got = cur.execute(sql).fetch_arrow_table()
    assert pa.types.is_decimal(got.schema.field("amount").type), got.schema
    assert_matches_rows(got, want, "described by all its values")
    streamed = connect(backend.connstr.rstrip(";") + attributes).cursor()
    assert [tuple(r) for r in streamed.execute(sql).fetchall()] == [tuple(r) for r in want]
    with pytest.raises(db.DataError) as err:
        streamed.execute(sql).fetch_arrow_table()
    assert "amount" in str(err.value) and "1.123456789" in str(err.value), err.value
    assert streamed.execute("SELECT 1").fetchone()[0] == 1
