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


def test_duckdb(cursor, mixed):
    duckdb = pytest.importorskip("duckdb")
    sql, want = mixed
    con = duckdb.connect()
    try:
        got = con.from_arrow(cursor.execute(sql).fetch_record_batch(batch_rows=100)).fetchall()
        assert got == [tuple(r) for r in want]
        assert con.from_arrow(cursor.execute(sql)).fetchall() == got
        # A pyarrow reader made from the capsule, found by name by DuckDB's replacement scan.
        rel = pa.RecordBatchReader.from_stream(cursor.execute(sql).fetch_record_batch())  # noqa: F841
        [(count, total)] = con.sql("SELECT count(*), sum(id) FROM rel").fetchall()
        assert (count, total) == (N, N * (N - 1) // 2)
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
    sys.modules["pyarrow"] = None  # import pyarrow fails, as when it is not installed
    import fastodbc
    import nanoarrow as na

    cnxn = fastodbc.connect(sys.argv[1])
    cur = cnxn.cursor()
    sql = sys.argv[2]
    for method in ("fetch_arrow_table", "fetch_df"):
        try:
            getattr(cur.execute(sql), method)()
        except ImportError as e:
            assert "fastodbc[" in str(e), str(e)
        else:
            raise AssertionError(method + " without pyarrow")
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
