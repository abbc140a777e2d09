"""Arrow fetch, the reader: row counts around blocks and batches, batch budgets (rows and
bytes), every batch's columns of one length (property test), the rest of a result after
fetchone, nextset, the cursor refused while a reader is alive, and a reader released early."""

from __future__ import annotations

import gc

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arrowcheck import assert_matches_rows, assert_schema_names, batches_of, check_batch, edge_values
from profiles import backends_where

pytestmark = pytest.mark.fastodbc_only(reason="Arrow fetch is fastodbc's")

DEFAULT_BATCH_ROWS = 65_536


@pytest.fixture
def numbers(backend, table, cnxn):
    """numbers(n) -> SQL of n rows (0 too) of declared columns: an integer id from 1, its text,
    and a bigint NULL every 7th row. (A computed column's type may depend on its first value:
    sqliteodbc describes one from the first row.)"""
    made = {}

    def sql(n: int) -> str:
        size = next((k for k in sorted(made) if k >= n), max(n, 10))
        if size not in made:
            t = table(f"i {backend.ddl('int')} NOT NULL, s {backend.ddl('varchar(50)')}, n {backend.ddl('bigint')}")
            label = backend.concat("'row-'", "CAST(i AS VARCHAR(20))")
            cur = cnxn.cursor()
            cur.execute(f"INSERT INTO {t} (i, s, n) SELECT i, {label}, CASE WHEN i % 7 = 0 THEN NULL ELSE i * 2 END "
                        f"FROM ({backend.series(size)}) q")
            cnxn.commit()
            made[size] = t
        return f"SELECT i, s, n FROM {made[size]} WHERE i <= {n} ORDER BY i"

    return sql


def read_both(cur, sql: str, **budget):
    """(batches, rows) of one query: through fetch_record_batch and through fetchall."""
    rows = cur.execute(sql).fetchall()
    reader = cur.execute(sql).fetch_record_batch(**budget)
    batches = batches_of(reader)
    assert_schema_names(reader.schema, cur.description)
    return batches, rows, reader.schema


@pytest.mark.parametrize("n", [0, 1, 2, 4095, 4096, 4097, 70_000])
def test_row_counts(cursor, numbers, n):
    sql = numbers(n)
    batches, rows, schema = read_both(cursor, sql)
    assert len(rows) == n
    table = pa.Table.from_batches(batches, schema=schema)
    assert_matches_rows(table, rows, f"{n} rows")
    assert all(b.num_rows <= DEFAULT_BATCH_ROWS for b in batches)
    assert len(batches) >= -(-n // DEFAULT_BATCH_ROWS)
    # The same through fetch_arrow_table, and its schema whatever the count.
    again = cursor.execute(sql).fetch_arrow_table()
    assert again.num_rows == n
    assert again.schema == schema
    assert again.schema == cursor.execute(numbers(3)).fetch_arrow_table().schema


@pytest.mark.parametrize("n", [6, 7, 8, 1000, 4097])
@pytest.mark.parametrize("batch_rows", [1, 7])
def test_batch_rows(cursor, numbers, n, batch_rows):
    batches, rows, schema = read_both(cursor, numbers(n), batch_rows=batch_rows)
    for b in batches:
        check_batch(b, batch_rows)
    assert sum(b.num_rows for b in batches) == n
    assert len(batches) >= -(-n // batch_rows)
    assert_matches_rows(pa.Table.from_batches(batches, schema=schema), rows, f"batch_rows={batch_rows}")


@pytest.mark.parametrize("batch_bytes", [1, 4096, 64 * 1024])
def test_batch_bytes(cursor, numbers, batch_bytes):
    """Small byte budgets give many batches; none passes its budget by more than one fetched
    block (2 MiB)."""
    n = 20_000
    batches, rows, schema = read_both(cursor, numbers(n), batch_bytes=batch_bytes)
    assert_matches_rows(pa.Table.from_batches(batches, schema=schema), rows, f"batch_bytes={batch_bytes}")
    if batch_bytes <= 4096:
        assert len(batches) > 1
    for b in batches:
        assert b.nbytes <= batch_bytes + (2 << 20), b.nbytes


def test_fetchone_then_the_rest(cursor, numbers):
    sql = numbers(5000)
    want = cursor.execute(sql).fetchall()
    cursor.execute(sql)
    first = [cursor.fetchone(), cursor.fetchone(), *cursor.fetchmany(998)]
    assert [tuple(r) for r in first] == [tuple(r) for r in want[:1000]]
    assert_matches_rows(cursor.fetch_arrow_table(batch_rows=333), want[1000:], "after 1000 rows")
    assert cursor.fetchone() is None
    # The same with a reader, and after skip().
    cursor.execute(sql)
    cursor.skip(4999)
    assert_matches_rows(pa.Table.from_batches(batches_of(cursor.fetch_record_batch())), want[4999:], "last")
    # All rows fetched: an empty table of the result's columns.
    cursor.execute(sql).fetchall()
    rest = cursor.fetch_arrow_table()
    assert rest.num_rows == 0 and rest.schema.names == ["i", "s", "n"]


def test_nextset_after_a_drained_reader(cursor, numbers):
    reader = cursor.execute(numbers(10)).fetch_record_batch(batch_rows=3)
    assert sum(b.num_rows for b in reader) == 10
    assert not cursor.nextset()
    assert cursor.execute("SELECT 1").fetchone()[0] == 1


@pytest.mark.parametrize("backend", backends_where(lambda p: p.multiple_statements), indirect=True)
def test_nextset_moves_to_the_next_result(cursor, numbers):
    cursor.execute(f"{numbers(5)}; SELECT 'second' AS w; {numbers(3)}")
    assert cursor.fetch_arrow_table().column("i").to_pylist() == [1, 2, 3, 4, 5]
    assert cursor.fetchone() is None
    assert cursor.nextset()
    assert cursor.fetch_arrow_table().to_pydict() == {"w": ["second"]}
    assert cursor.nextset()
    sizes = [b.num_rows for b in cursor.fetch_record_batch(batch_rows=2)]
    assert sum(sizes) == 3 and max(sizes) <= 2
    assert not cursor.nextset()


def uses_of_the_cursor(cur):
    return {
        "execute": lambda: cur.execute("SELECT 1"),
        "fetchone": cur.fetchone,
        "fetchmany": lambda: cur.fetchmany(2),
        "fetchall": cur.fetchall,
        "next": lambda: next(cur),
        "skip": lambda: cur.skip(1),
        "nextset": cur.nextset,
        "fetch_record_batch": cur.fetch_record_batch,
        "fetch_arrow_table": cur.fetch_arrow_table,
        "cursor capsule": cur.__arrow_c_stream__,
    }


def test_cursor_refused_while_a_reader_is_alive(db, cnxn, numbers):
    cur = cnxn.cursor()
    sql = numbers(2000)
    want = cur.execute(sql).fetchall()
    reader = cur.execute(sql).fetch_record_batch(batch_rows=100)
    it = iter(reader)
    got = [next(it)]
    for name, use in uses_of_the_cursor(cur).items():
        with pytest.raises(db.ProgrammingError):
            use()
        got.append(next(it))  # the refused use left the reader as it was
        assert got[-1].num_rows, name
    # Another cursor of the connection works meanwhile.
    assert cnxn.cursor().execute("SELECT 2").fetchone()[0] == 2
    got.extend(it)
    assert_matches_rows(pa.Table.from_batches(got), want, "around refused uses")
    # Drained: the cursor works again.
    assert cur.fetchone() is None
    assert cur.execute("SELECT 3").fetchone()[0] == 3


@pytest.mark.parametrize("how", ["close", "del", "with", "close before reading"])
@pytest.mark.parametrize("option", ["", "server cursor"])
def test_reader_released_early(db, backend, connect, numbers, how, option):
    """Releasing a reader closes the cursor's result; the cursor and connection stay usable."""
    if option and not backend.server_cursor_attributes:
        pytest.skip(f"{backend.name} reads whole results at execute (Profile.server_cursor_attributes)")
    attrs = ";" + backend.server_cursor_attributes.format(n=100) if option else ""
    cnxn = connect(backend.connstr.rstrip(";") + attrs)
    cur = cnxn.cursor()
    sql = numbers(50_000)
    for _ in range(2):
        if how == "with":
            with cur.execute(sql).fetch_record_batch(batch_rows=100) as reader:
                assert next(iter(reader)).num_rows == 100
        else:
            reader = cur.execute(sql).fetch_record_batch(batch_rows=100)
            if how != "close before reading":
                assert next(iter(reader)).num_rows == 100
            if how == "del":
                del reader
                gc.collect()
            else:
                reader.close()
                reader.close()  # twice: nothing more
        # The result is closed: no row of it comes after (ProgrammingError or None).
        try:
            after = cur.fetchone()
        except db.ProgrammingError:
            after = None
        assert after is None, after
        assert cur.execute("SELECT 4").fetchone()[0] == 4
        assert cnxn.cursor().execute("SELECT 5").fetchone()[0] == 5
        cnxn.commit()
    assert cur.execute(numbers(10)).fetch_arrow_table().num_rows == 10


def test_reader_api(cursor, numbers):
    sql = numbers(30)
    want = cursor.execute(sql).fetchall()
    reader = cursor.execute(sql).fetch_record_batch(batch_rows=10)
    schema = reader.schema
    assert isinstance(schema, pa.Schema) and schema.names == ["i", "s", "n"]
    assert pa.schema(reader) == schema  # __arrow_c_schema__
    first = reader.read_next_batch()
    assert isinstance(first, pa.RecordBatch) and first.num_rows == 10
    rest = reader.read_all()
    assert isinstance(rest, pa.Table) and rest.schema == schema
    assert_matches_rows(pa.concat_tables([pa.Table.from_batches([first]), rest]), want, "read_next_batch + read_all")
    assert list(reader) == []  # exhausted stays exhausted


def test_readers_one_after_another(backend, table, cnxn):
    """Results of different layouts back to back on one cursor, and short results among long."""
    ks = ["int", "varchar(50)", "bytes", "timestamp", "float"]
    t = table(f"id {backend.ddl('int')}, " + ", ".join(f"c{i} {backend.ddl(k)}" for i, k in enumerate(ks)))
    cur = cnxn.cursor()
    rows = [(i, *[edge_values(backend, k)[i % len(edge_values(backend, k))] for k in ks]) for i in range(300)]
    cur.executemany(f"INSERT INTO {t} VALUES ({', '.join('?' * (len(ks) + 1))})", rows)
    cnxn.commit()
    queries = [f"SELECT id, c{i} FROM {t} WHERE id < {n} ORDER BY id" for i in range(len(ks)) for n in (1, 300)]
    queries += [f"SELECT * FROM {t} WHERE id = ?"] * 2
    for sql in queries * 2:
        params = (7,) if "?" in sql else ()
        want = cur.execute(sql, *params).fetchall()
        assert_matches_rows(cur.execute(sql, *params).fetch_arrow_table(batch_rows=64), want, sql)


def test_catalog_results(backend, table, cnxn):
    t = table(f"id {backend.ddl('int')} NOT NULL, v {backend.ddl('varchar(50)')}")
    cur = cnxn.cursor()
    for call in (lambda: cur.tables(table=t), lambda: cur.columns(table=t)):
        want = call().fetchall()
        got = call().fetch_arrow_table()
        assert_schema_names(got, cur.description)
        assert_matches_rows(got, want, "catalog")
        assert got.num_rows >= 1


def test_no_result(db, backend, table, cnxn):
    cur = cnxn.cursor()
    with pytest.raises(db.ProgrammingError):
        cur.fetch_arrow_table()
    t = table(f"id {backend.ddl('int')}")
    cur.execute(f"INSERT INTO {t} VALUES (1)")
    with pytest.raises(db.ProgrammingError):
        cur.fetch_record_batch()
    cur.close()
    with pytest.raises(db.ProgrammingError):
        cur.fetch_arrow_table()


# ------------------------------------------------------------------------ property test

KINDS = st.sampled_from(["int", "bigint", "float", "numeric(18,4)", "varchar(50)", "text", "bytes", "date",
                         "time", "timestamp", "bool"])


@st.composite
def cases(draw):
    return dict(
        kinds=draw(st.lists(KINDS, min_size=1, max_size=6)),
        n_rows=draw(st.sampled_from([0, 1, 2, 7, 8, 15, 16, 17, 144, 145, 1000, 1169, 4097])),
        nulls=draw(st.sampled_from([0, 10, 50, 100])),
        seed=draw(st.integers(0, 1000)),
        batch_rows=draw(st.sampled_from([None, 1, 2, 7, 64, 1000])),
        batch_bytes=draw(st.sampled_from([None, 1, 100, 4096, 65_536])),
        block_bytes=draw(st.sampled_from([1, 700, 8192, 2 << 20])),
        read_ahead=draw(st.booleans()),
        where_param=draw(st.booleans()),
    )


@pytest.mark.timeout(300)
def test_every_batch_is_whole(backend, table, connect):
    """Generated tables read in batches of generated budgets: every batch's columns are as long
    as the batch (at most batch_rows), and the batches together are the rows path's rows."""
    cnxn = connect()
    name = table()

    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(case=cases())
    def run(case):
        kinds = case["kinds"]
        cur = cnxn.cursor()
        cur.execute(f"DROP TABLE IF EXISTS {name}")
        cols = ", ".join(f"c{i} {backend.ddl(k)}" for i, k in enumerate(kinds))
        cur.execute(f"CREATE TABLE {name} (id {backend.ddl('int')} NOT NULL, {cols})")
        pools = [edge_values(backend, k) for k in kinds]
        rows = []
        for r in range(case["n_rows"]):
            mix = (r * 7919 + case["seed"]) % 100
            rows.append((r, *[None if (mix + 13 * j) % 100 < case["nulls"] else p[(r + case["seed"]) % len(p)]
                              for j, p in enumerate(pools)]))
        if rows:
            cur.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * (len(kinds) + 1))})", rows)
        cnxn.commit()
        cnxn.fetch_buffer_bytes = case["block_bytes"]
        cnxn.read_ahead = case["read_ahead"]
        where = "WHERE id >= ?" if case["where_param"] else ""
        params = (0,) if case["where_param"] else ()
        sql = f"SELECT {', '.join(f'c{i}' for i in range(len(kinds)))}, id FROM {name} {where} ORDER BY id"
        want = cur.execute(sql, *params).fetchall()
        assert len(want) == case["n_rows"]
        reader = cur.execute(sql, *params).fetch_record_batch(batch_rows=case["batch_rows"],
                                                             batch_bytes=case["batch_bytes"])
        batches = []
        for b in reader:
            check_batch(b, case["batch_rows"] or DEFAULT_BATCH_ROWS)
            assert b.schema == reader.schema
            batches.append(b)
        assert_matches_rows(pa.Table.from_batches(batches, schema=reader.schema), want, repr(case))

    run()


@pytest.mark.parametrize("n", [1, 20, 5_000])
def test_a_reader_that_read_nothing_leaves_the_rows_as_they_were(cursor, numbers, n):
    """A reader plans the result for typed columns (integers bound where the rows path reads
    their text, number columns in rowsets): one dropped before its first batch leaves the
    result to the rows path, planned for rows again, every value as fetchall gives it. Then an
    Arrow read of the same result matches those rows."""
    sql = numbers(n)
    want = cursor.execute(sql).fetchall()
    reader = cursor.execute(sql).fetch_record_batch()
    assert reader.schema.names == ["i", "s", "n"]
    del reader
    gc.collect()
    assert cursor.fetchall() == want
    cursor.execute(sql)
    first = cursor.fetchone()
    reader = cursor.fetch_record_batch()
    del reader
    gc.collect()
    assert [first, *cursor.fetchall()] == want
    assert_matches_rows(cursor.execute(sql).fetch_arrow_table(), want, f"{n} rows")
