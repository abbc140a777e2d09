"""Bulk load, what goes in: every input form ``ingest`` takes (pyarrow, polars, pandas, DuckDB,
nanoarrow, iterables of batches, Parquet and CSV files), the Arrow layouts of one logical type
(chunks, large / view strings, dictionaries), row counts across chunk boundaries and batch
budgets; each load read back equal to its input."""

from __future__ import annotations

import datetime
import decimal
import os
import subprocess
import sys
import threading

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastodbc

pytestmark = pytest.mark.fastodbc_only(reason="ingest is fastodbc's")

COLUMNS = "id BIGINT, name {varchar}, amount {numeric}, day {date}, at {timestamp}"


def sample(n: int, start: int = 0) -> pa.Table:
    """n rows of every common kind, NULLs in each column but id."""
    ids = list(range(start, start + n))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": [None if i % 7 == 3 else f"name {i} é😀" for i in ids],
            "amount": pa.array(
                [None if i % 5 == 1 else decimal.Decimal(i * 37 % 100_000) / 100 for i in ids], pa.decimal128(18, 4)
            ),
            "day": [
                None if i % 11 == 2 else datetime.date(2000, 1, 1) + datetime.timedelta(days=i % 9000) for i in ids
            ],
            "at": pa.array(
                [
                    None
                    if i % 13 == 4
                    else datetime.datetime(2020, 5, 17, 1, 2, 3)
                    + datetime.timedelta(seconds=i, microseconds=i % 1000 * 1000)
                    for i in ids
                ],
                pa.timestamp("us"),
            ),
        }
    )


def make_table(backend, table) -> str:
    return table(
        COLUMNS.format(
            varchar=backend.ddl("varchar(255)"),
            numeric=backend.ddl("numeric(18,4)"),
            date=backend.ddl("date"),
            timestamp=backend.ddl("timestamp"),
        )
    )


def read_back(cursor, name: str) -> list[tuple]:
    return [tuple(r) for r in cursor.execute(f"SELECT id, name, amount, day, at FROM {name} ORDER BY id").fetchall()]


def expected(t: pa.Table, backend) -> list[tuple]:
    rows = []
    for r in t.to_pylist():
        amount = r["amount"]
        if amount is not None and backend.numeric_is_float:
            amount = float(amount)
        rows.append((r["id"], r["name"], amount, r["day"], r["at"]))
    return rows


def assert_loaded(cursor, name: str, t: pa.Table, backend) -> None:
    assert read_back(cursor, name) == expected(t, backend)


INPUTS = {
    "table": lambda t: t,
    "table of many chunks": lambda t: (
        pa.Table.from_batches(t.to_batches(max_chunksize=333), t.schema) if t.num_rows else t
    ),
    "record batch": lambda t: (
        t.combine_chunks().to_batches()[0] if t.num_rows else pa.RecordBatch.from_pylist([], t.schema)
    ),
    "reader": lambda t: pa.RecordBatchReader.from_batches(t.schema, t.to_batches(max_chunksize=1000)),
    "list of batches": lambda t: t.to_batches(max_chunksize=700) or [pa.RecordBatch.from_pylist([], t.schema)],
    "generator of batches": lambda t: iter(
        t.to_batches(max_chunksize=4096) or [pa.RecordBatch.from_pylist([], t.schema)]
    ),
}


@pytest.mark.parametrize("n", [0, 1, 999, 1001, 10_001])
@pytest.mark.parametrize("form", sorted(INPUTS))
def test_every_input_form_loads_every_row(backend, cursor, table, form, n):
    name = make_table(backend, table)
    t = sample(n)
    assert cursor.ingest(name, INPUTS[form](t)) == n
    assert cursor.rowcount == n
    assert_loaded(cursor, name, t, backend)


@pytest.mark.parametrize(
    ("batch_rows", "batch_bytes"), [(1, None), (7, None), (None, 1), (None, 5000), (4096, 1 << 20)]
)
def test_batch_budgets_split_the_load_not_the_values(backend, cursor, table, batch_rows, batch_bytes):
    name = make_table(backend, table)
    t = sample(2500 if batch_rows != 1 and batch_bytes != 1 else 300)
    assert cursor.ingest(name, t, batch_rows=batch_rows, batch_bytes=batch_bytes) == t.num_rows
    assert_loaded(cursor, name, t, backend)


def test_string_layouts_and_dictionaries_load_as_their_values(backend, cursor, table):
    name = table(
        f"id INTEGER, a {backend.ddl('varchar(50)')}, b {backend.ddl('varchar(50)')}, "
        f"c {backend.ddl('varchar(50)')}, d {backend.ddl('varchar(50)')}"
    )
    values = ["x", None, "", "ÆØÅ", "😀 astral", "x"] * 50
    t = pa.table(
        {
            "id": pa.array(range(len(values)), pa.int32()),
            "a": pa.array(values, pa.large_string()),
            "b": pa.array(values, pa.string_view()),
            "c": pa.array(values, pa.string()).dictionary_encode(),
            "d": pa.array(values, pa.large_string()).dictionary_encode(),
        }
    )
    assert cursor.ingest(name, t) == len(values)
    rows = cursor.execute(f"SELECT a, b, c, d FROM {name} ORDER BY id").fetchall()
    # SQLite keeps '' as given; a database may not distinguish it: compare as stored by executemany.
    assert [tuple(r) for r in rows] == [(v, v, v, v) for v in values]


def test_unsigned_and_narrow_integers(backend, cursor, table):
    name = table(f"id INTEGER, a {backend.ddl('smallint')}, b {backend.ddl('int')}, c {backend.ddl('bigint')}")
    t = pa.table(
        {
            "id": pa.array([1, 2, 3], pa.int8()),
            "a": pa.array([0, 255, None], pa.uint8()),
            "b": pa.array([0, 65_535, None], pa.uint16()),
            "c": pa.array([0, 4_294_967_295, None], pa.uint32()),
        }
    )
    assert cursor.ingest(name, t) == 3
    assert [tuple(r) for r in cursor.execute(f"SELECT id, a, b, c FROM {name} ORDER BY id").fetchall()] == [
        (1, 0, 0, 0),
        (2, 255, 65_535, 4_294_967_295),
        (3, None, None, None),
    ]


def test_polars_pandas_duckdb_and_nanoarrow_inputs(backend, cursor, table):
    t = sample(1234)
    converts = _foreign_inputs()
    # Tables first: a read leaves SQLite's file locked for another connection's DDL.
    names = [make_table(backend, table) for _ in converts]
    for name, convert in zip(names, converts, strict=True):
        assert cursor.ingest(name, convert(t)) == t.num_rows, convert.__name__
        assert_loaded(cursor, name, t, backend)


def _foreign_inputs():
    def polars_df(t):
        pl = pytest.importorskip("polars")
        return pl.from_arrow(t)

    def pandas_df(t):
        pytest.importorskip("pandas")
        # pandas keeps the Arrow types in ArrowDtype columns; its C stream gives them back.
        import pandas as pd

        return t.to_pandas(types_mapper=pd.ArrowDtype)

    def duckdb_relation(t):
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        con.register("t", t)
        return con.sql("SELECT * FROM t")

    def nanoarrow_stream(t):
        na = pytest.importorskip("nanoarrow")
        return na.ArrayStream(t)

    return [polars_df, pandas_df, duckdb_relation, nanoarrow_stream]


def test_parquet_and_csv_files_stream_in_batches(backend, cursor, table, tmp_path):
    t = sample(5000)
    pq.write_table(t, tmp_path / "in.parquet", row_group_size=1000)
    name = make_table(backend, table)
    csv_name = table(f"id BIGINT, name {backend.ddl('varchar(255)')}")
    assert cursor.ingest_parquet(name, tmp_path / "in.parquet", batch_rows=700) == 5000
    assert_loaded(cursor, name, t, backend)
    # CSV, as pyarrow writes it: NULL an empty unquoted field, text quoted; read back by
    # fastodbc's CSV rules (fastodbc/csvfile.py) as the same values.
    pacsv.write_csv(pa.table({"id": t["id"], "name": t["name"]}), tmp_path / "in.csv")
    assert cursor.ingest_csv(csv_name, tmp_path / "in.csv", batch_bytes=4096) == 5000
    got = cursor.execute(f"SELECT id, name FROM {csv_name} ORDER BY id").fetchall()
    assert [tuple(r) for r in got] == list(zip(t["id"].to_pylist(), t["name"].to_pylist(), strict=True))


def test_csv_null_tokens(backend, cursor, table, tmp_path):
    # Only an empty unquoted field is NULL unless null_values names more (pyarrow's defaults
    # read NA, null, nan... as NULL); a quoted field never is.
    source = tmp_path / "in.csv"
    source.write_bytes(b'id,s\n1,NA\n2,null\n3,\n4,""\n5,"NA"\n6,nan\n')
    kept = table("id BIGINT, s VARCHAR(10)")
    assert cursor.ingest_csv(kept, source, commit=True) == 6
    named = table("id BIGINT, s VARCHAR(10)", suffix="_named")
    assert cursor.ingest_csv(named, source, null_values=["NA"], commit=True) == 6
    created = table(suffix="_created")
    assert cursor.ingest_csv(created, source, mode="create", commit=True) == 6
    for name, first in ((kept, "NA"), (named, None), (created, "NA")):
        got = cursor.execute(f"SELECT id, s FROM {name} ORDER BY id").fetchall()
        assert [tuple(r) for r in got] == [(1, first), (2, "null"), (3, None), (4, ""), (5, "NA"), (6, "nan")]
    cursor.connection.rollback()
    with pytest.raises(fastodbc.ProgrammingError, match="null_values"):
        cursor.ingest_csv(named, source, convert_options=pacsv.ConvertOptions(), null_values=["NA"])


# Reads a Parquet file the way ingest_parquet does, dropping each batch; prints the peak RSS
# above the RSS before the first batch, in MB.
READ_PARQUET = """
import os, resource, sys
from fastodbc.ingest import open_parquet, parquet_row_groups
f = open_parquet(sys.argv[1])
with open("/proc/self/statm") as statm:
    before = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
for batch in parquet_row_groups(f, 16_384):
    del batch
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before) / 2**20)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_parquet_read_memory_does_not_follow_the_file(tmp_path):
    """Issue 19: peak memory flat in the file's size. A file of 8 row groups against one of the
    same row group, each read in a fresh process; mimalloc's timed purge turned off, so what
    the reader gives back is what it releases itself (before: 35 -> 79 MB; after: 31 -> 31)."""
    rows = 25_000
    text = [os.urandom(50 + i % 100).hex() for i in range(rows)]  # incompressible
    group = pa.table({"i": pa.array(range(rows), pa.int64()), "s": text})
    peaks = []
    for groups in (1, 8):
        path = tmp_path / f"g{groups}.parquet"
        pq.write_table(pa.concat_tables([group] * groups), path, row_group_size=rows)
        env = dict(os.environ, MIMALLOC_PURGE_DELAY="100000", PYTHONPATH=os.pathsep.join(sys.path))
        out = subprocess.run(
            [sys.executable, "-c", READ_PARQUET, str(path)], env=env, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr
        peaks.append(float(out.stdout))
    one, eight = peaks
    assert eight <= 1.25 * one + 5, f"peak ΔRSS {one:.1f} MB for one row group, {eight:.1f} MB for eight"


def test_an_input_is_read_once(backend, cursor, table):
    from fastodbc import _native

    name = make_table(backend, table)
    source = _native.IngestSource(sample(10))
    assert cursor.ingest(name, source) == 10
    with pytest.raises(Exception, match="read already"):
        cursor.ingest(name, source)


def test_cancel_stops_a_load_and_nothing_is_kept(backend, cursor, table, db):
    name = make_table(backend, table)
    started = threading.Event()

    def slow_batches():
        for k in range(1000):
            if k == 2:
                started.set()
            yield sample(50, start=k * 50).to_batches()[0]
            threading.Event().wait(0.01)

    autocommit = cursor.connection.autocommit
    timer = threading.Thread(target=lambda: (started.wait(10), cursor.cancel()))
    timer.start()
    with pytest.raises(db.Error) as err:
        cursor.ingest(name, slow_batches())
    timer.join()
    assert "HY008" in str(err.value) or "cancel" in str(err.value).lower()
    assert cursor.execute(f"SELECT COUNT(*) FROM {name}").fetchval() == 0
    assert cursor.connection.autocommit == autocommit


def test_zoned_timestamps_keep_their_instant(backend, cursor, table):
    """A zoned Arrow timestamp goes into a zoned column as its instant, whatever the session's
    zone; into a plain TIMESTAMP as its UTC time."""
    if "timestamptz" not in backend.ddl_map or not backend.set_time_zone_sql:
        pytest.skip(f"{backend.name} has no zoned timestamp type")
    zone = "Asia/Kolkata"  # +05:30, no daylight saving
    name = table(f"id INTEGER, z {backend.ddl('timestamptz')}, n {backend.ddl('timestamp')}")
    cursor.execute(backend.set_time_zone_sql.format(zone=zone))
    utc = [datetime.datetime(2024, 3, 1, 12, 0, 0, 250_000), datetime.datetime(1999, 12, 31, 23, 59, 59)]
    zoned = pa.array(utc, pa.timestamp("us", tz="UTC"))
    assert cursor.ingest(name, pa.table({"id": pa.array([1, 2], pa.int32()), "z": zoned, "n": zoned})) == 2
    local = [u + datetime.timedelta(hours=5, minutes=30) for u in utc]
    got = cursor.execute(f"SELECT z, n FROM {name} ORDER BY id").fetchall()
    assert [tuple(r) for r in got] == list(zip(local, utc, strict=True))
