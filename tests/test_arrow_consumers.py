"""Arrow fetch, its consumers: pyarrow, polars, pandas, DuckDB and nanoarrow read fastodbc's
readers and cursors through the Arrow PyCapsule interface (or fastodbc's own fetch_df /
fetch_polars) and see the rows path's values; without pyarrow the capsule stream still works
and the pyarrow methods say which extra to install."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import textwrap

import pyarrow as pa
import pytest

from arrowcheck import assert_matches_rows, table_rows
from conftest import ROOT

pytestmark = pytest.mark.fastodbc_only(reason="Arrow fetch is fastodbc's")

N = 1000


@pytest.fixture
def mixed(backend, table, cnxn):
    """(sql, rows): N rows of an integer, text, a double, a date, and a bigint NULL every 5th."""
    t = table(f"id {backend.ddl('int')} NOT NULL, s {backend.ddl('varchar(50)')}, f {backend.ddl('float')}, "
              f"d {backend.ddl('date')}, n {backend.ddl('bigint')}")
    day = datetime.date(2024, 1, 1)
    rows = [(i, f"v{i}-é😀", i / 4, day + datetime.timedelta(days=i), None if i % 5 == 0 else i * 3)
            for i in range(N)]
    cur = cnxn.cursor()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?)", rows)
    cnxn.commit()
    sql = f"SELECT id, s, f, d, n FROM {t} ORDER BY id"
    return sql, cur.execute(sql).fetchall()


def test_pyarrow_from_the_cursor(cursor, mixed):
    sql, want = mixed
    assert_matches_rows(pa.table(cursor.execute(sql)), want, "pa.table(cursor)")
    assert_matches_rows(pa.RecordBatchReader.from_stream(cursor.execute(sql)).read_all(), want, "from_stream(cursor)")


def test_pyarrow_from_the_reader(cursor, mixed):
    sql, want = mixed
    reader = pa.RecordBatchReader.from_stream(cursor.execute(sql).fetch_record_batch(batch_rows=64))
    batches = list(reader)
    assert all(b.num_rows <= 64 for b in batches) and len(batches) >= N // 64
    assert_matches_rows(pa.Table.from_batches(batches), want, "from_stream(reader)")
    # The capsule with the schema it has, asked for.
    reader = cursor.execute(sql).fetch_record_batch()
    schema = reader.schema
    capsule = reader.__arrow_c_stream__(schema.__arrow_c_schema__())
    assert type(capsule).__name__ == "PyCapsule"
    assert_matches_rows(pa.RecordBatchReader._import_from_c_capsule(capsule).read_all(), want, "requested schema")


def test_capsule_consumes_the_reader(db, cursor, mixed):
    sql, want = mixed
    reader = cursor.execute(sql).fetch_record_batch()
    stream = pa.RecordBatchReader.from_stream(reader)
    # The stream holds the result now: the cursor is refused until it is read.
    with pytest.raises(db.ProgrammingError):
        cursor.execute("SELECT 1")
    assert_matches_rows(stream.read_all(), want, "stream")
    assert cursor.execute("SELECT 1").fetchone()[0] == 1


def test_polars(cursor, mixed):
    pl = pytest.importorskip("polars")
    sql, want = mixed
    df = cursor.execute(sql).fetch_polars()
    assert isinstance(df, pl.DataFrame)
    assert df.rows() == [tuple(r) for r in want]
    assert df.columns == ["id", "s", "f", "d", "n"]
    assert pl.DataFrame(cursor.execute(sql)).equals(df)
    assert pl.DataFrame(cursor.execute(sql).fetch_record_batch(batch_rows=100)).equals(df)
    # from_arrow over a capsule stream gives a struct Series: its fields are the columns.
    assert pl.from_arrow(cursor.execute(sql).fetch_record_batch()).struct.unnest().equals(df)
    assert pl.from_arrow(cursor.execute(sql).fetch_arrow_table()).equals(df)


def test_pandas(cursor, mixed):
    pd = pytest.importorskip("pandas")
    sql, want = mixed
    df = cursor.execute(sql).fetch_df()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["id", "s", "f", "d", "n"]
    pd.testing.assert_frame_equal(df, cursor.execute(sql).fetch_arrow_table().to_pandas())
    # Equal to the rows, NULL as pandas has it (NaN in a float column).
    for got, row in zip(df.itertuples(index=False, name=None), want, strict=True):
        assert got[:4] == tuple(row)[:4]
        assert (pd.isna(got[4]) and row[4] is None) or got[4] == row[4], (got, row)


def test_duckdb_over_a_pyarrow_reader(cursor, mixed):
    duckdb = pytest.importorskip("duckdb")
    sql, want = mixed
    con = duckdb.connect()
    try:
        # A pyarrow reader made from the capsule, found by name by DuckDB's replacement scan.
        rel = pa.RecordBatchReader.from_stream(cursor.execute(sql).fetch_record_batch(batch_rows=100))  # noqa: F841
        [(count, total)] = con.sql("SELECT count(*), sum(id) FROM rel").fetchall()
        assert (count, total) == (N, N * (N - 1) // 2)
        rel = pa.RecordBatchReader.from_stream(cursor.execute(sql))
        assert con.from_arrow(rel).fetchall() == [tuple(r) for r in want]
    finally:
        con.close()


@pytest.mark.parametrize("source", ["reader", "cursor"])
def test_duckdb_from_arrow_directly(cursor, mixed, source):
    """DuckDB takes any object with __arrow_c_stream__ (it may ask for the stream more than once:
    for the schema, then for the scan)."""
    duckdb = pytest.importorskip("duckdb")
    sql, want = mixed
    con = duckdb.connect()
    try:
        cursor.execute(sql)
        obj = cursor.fetch_record_batch(batch_rows=100) if source == "reader" else cursor
        assert con.from_arrow(obj).fetchall() == [tuple(r) for r in want]
    finally:
        con.close()


def test_nanoarrow(cursor, mixed):
    na = pytest.importorskip("nanoarrow")
    sql, want = mixed
    got = na.ArrayStream(cursor.execute(sql).fetch_record_batch(batch_rows=100)).read_all()
    assert [tuple(r.values()) for r in got.to_pylist()] == [tuple(r) for r in want]
    with cursor.execute(sql).fetch_record_batch() as reader:
        schema = na.c_schema(reader)
    assert [schema.child(i).name for i in range(schema.n_children)] == ["id", "s", "f", "d", "n"]


WITHOUT_PYARROW = textwrap.dedent(
    """
    import sys
    # import fails, as when they are not installed
    sys.modules["pyarrow"] = sys.modules["polars"] = sys.modules["pandas"] = None
    import fastodbc
    import nanoarrow as na

    cnxn = fastodbc.connect(sys.argv[1])
    cur = cnxn.cursor()
    sql = sys.argv[2]
    uses = {
        "fetch_arrow_table": lambda: cur.execute(sql).fetch_arrow_table(),
        "fetch_df": lambda: cur.execute(sql).fetch_df(),
        "fetch_polars": lambda: cur.execute(sql).fetch_polars(),
        "iteration": lambda: next(iter(cur.execute(sql).fetch_record_batch())),
        "read_all": lambda: cur.execute(sql).fetch_record_batch().read_all(),
        "schema": lambda: cur.execute(sql).fetch_record_batch().schema,
    }
    for name, use in uses.items():
        try:
            use()
        except ImportError as e:
            assert "fastodbc[" in str(e), (name, str(e))
        else:
            raise AssertionError(name + " without pyarrow")
        assert cur.execute("SELECT 1").fetchone()[0] == 1, name
    got = na.ArrayStream(cur.execute(sql).fetch_record_batch(batch_rows=2)).read_all().to_pylist()
    assert [r["i"] for r in got] == [1, 2, 3], got
    got = na.ArrayStream(cur.execute(sql)).read_all().to_pylist()
    assert [r["i"] for r in got] == [1, 2, 3], got
    print("ok")
    """
)


def test_without_pyarrow(backend):
    pytest.importorskip("nanoarrow")
    sql = f"SELECT i FROM ({backend.series(3)}) q ORDER BY i"
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_PYARROW, backend.connstr, sql],
        capture_output=True, text=True, timeout=60, cwd=ROOT, env=dict(os.environ),
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_table_rows_helper_sees_repeated_names(cursor):
    """Columns of one name (SELECT 1 AS a, 2 AS a) are both kept, in order."""
    got = cursor.execute("SELECT 1 AS a, 2 AS a").fetch_arrow_table()
    assert got.schema.names == ["a", "a"]
    assert table_rows(got) == [(1, 2)]
