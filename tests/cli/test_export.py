"""``fastodbc export``, run as the installed command without a terminal: Parquet, CSV and Arrow
IPC equal ``fetch_arrow_table`` of the same query on every backend, whole or split into numbered
parts; the connection from an argument or ``FASTODBC_CONNECTION``; stdout; distinct exit codes
for usage, connection, SQL and data errors, with no partial file left behind."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from profiles import backends_where

from .conftest import COLUMNS, ORDERS
from .files import SUFFIXES, parts, read
from .invocation import run


@pytest.mark.parametrize("fmt", SUFFIXES)
def test_export_writes_what_fetch_arrow_table_reads(backend, cursor, orders, tmp_path, fmt):
    out = tmp_path / f"orders{SUFFIXES[fmt]}"
    sql = f"SELECT id, city, amount FROM {orders} ORDER BY id"
    done = run("export", backend.connstr, sql, str(out), "--batch-rows", "1000")
    assert done.returncode == 0, done.stderr.decode()
    assert f"{ORDERS:,} rows".encode() in done.stderr
    want = cursor.execute(sql).fetch_arrow_table()
    got = read(out, want.schema)
    assert got.num_rows == ORDERS
    assert got.column_names == want.column_names
    assert got.to_pylist() == want.to_pylist()


@pytest.mark.parametrize("fmt", SUFFIXES)
@pytest.mark.parametrize(
    ("limit", "value", "batch_rows"), [("--rows-per-file", 700, 300), ("--max-file-bytes", 2_000, 200)]
)
def test_split_parts_together_equal_the_query(backend, cursor, orders, tmp_path, fmt, limit, value, batch_rows):
    out = tmp_path / f"orders{SUFFIXES[fmt]}"
    sql = f"SELECT id, city, amount FROM {orders} ORDER BY id"
    done = run("export", backend.connstr, sql, str(out), limit, str(value), "--batch-rows", str(batch_rows))
    assert done.returncode == 0, done.stderr.decode()
    want = cursor.execute(sql).fetch_arrow_table()
    files = parts(out)
    assert not out.exists()
    assert [f.name for f in files] == [f"orders-{i:05d}{SUFFIXES[fmt]}" for i in range(len(files))]
    tables = [read(f, want.schema) for f in files]
    if limit == "--rows-per-file":
        # Parts cut batches: each holds exactly N rows, the last the rest.
        assert [t.num_rows for t in tables] == [700, 700, 700, ORDERS - 2_100]
    else:
        # A part ends at the first batch that takes it to the limit.
        assert len(files) > 1
        sizes = [f.stat().st_size for f in files]
        assert all(s >= value for s in sizes[:-1]), sizes
        assert all(t.num_rows % batch_rows == 0 for t in tables[:-1])
    together = pa.concat_tables(t.cast(want.schema) for t in tables)
    assert together.to_pylist() == want.to_pylist()
    assert f"{ORDERS:,} rows written to {len(files)} files".encode() in done.stderr


def test_split_of_an_empty_result_is_one_part_with_the_schema(backend, cursor, orders, tmp_path):
    out = tmp_path / "none.parquet"
    sql = f"SELECT id, city FROM {orders} WHERE id < 0"
    done = run("export", backend.connstr, sql, str(out), "--rows-per-file", "10")
    assert done.returncode == 0, done.stderr.decode()
    [only] = parts(out)
    got = read(only, None)
    assert got.num_rows == 0
    assert got.schema == cursor.execute(sql).fetch_arrow_table().schema


def test_connection_from_the_environment_and_csv_to_stdout(backend, orders):
    sql = f"SELECT id FROM {orders} WHERE id < 3 ORDER BY id"
    done = run("export", sql, "-", "--format", "csv", "--quiet", env={"FASTODBC_CONNECTION": backend.connstr})
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split() == ['"id"', "0", "1", "2"]
    assert done.stderr == b""


def test_exit_codes_and_no_partial_file(backend, orders, tmp_path):
    outputs = tmp_path / "out"
    outputs.mkdir()
    out = outputs / "x.parquet"
    bad_sql = run("export", backend.connstr, "SELECT nosuchcolumn FROM nosuchtable", str(out))
    assert bad_sql.returncode == 4, bad_sql.stderr.decode()
    unreachable = run("export", backend.unreachable_connstr, "SELECT 1", str(out))
    assert unreachable.returncode == 3, unreachable.stderr.decode()
    for usage in (
        ["export", "only-one-argument"],
        ["export", backend.connstr, "SELECT 1", str(outputs / "x.unknown")],
        ["export", backend.connstr, "SELECT 1", "-", "--format", "csv", "--rows-per-file", "5"],
        ["export", backend.connstr, "SELECT 1", str(out), "--max-file-bytes", "0"],
    ):
        done = run(*usage)
        assert done.returncode == 2, (usage, done.stderr.decode())
        assert b"Traceback" not in done.stderr
    assert list(outputs.iterdir()) == []


@pytest.mark.parametrize("backend", backends_where(lambda p: p.numeric_outgrows_description), indirect=True)
def test_data_error_after_some_parts_exits_5_and_removes_them(backend, tmp_path):
    # The first rows describe the column; a later value does not fit it (DataError) after
    # parts were written: none is left.
    attributes, sql = backend.numeric_outgrows_description
    out = tmp_path / "amounts.csv"
    done = run(
        "export", backend.connstr + attributes, sql, str(out), "--rows-per-file", "1", "--batch-rows", "1"
    )
    assert done.returncode == 5, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    assert parts(out) == [] and not out.exists()


def test_drivers_and_python_dash_m(backend):
    listed = subprocess.run(
        [sys.executable, "-m", "fastodbc", "drivers"], capture_output=True, timeout=60
    )
    assert listed.returncode == 0
    assert backend.driver in listed.stdout.decode().splitlines()


def test_split_export_replaces_the_parts_of_an_earlier_longer_one(backend, cursor, orders, tmp_path):
    # An earlier export made 5 parts; this one makes 3: a glob must not read the earlier 2.
    out = tmp_path / "orders.parquet"
    sql = f"SELECT id, city, amount FROM {orders} ORDER BY id"
    done = run("export", backend.connstr, sql, str(out), "--rows-per-file", "500", "--quiet")
    assert done.returncode == 0, done.stderr.decode()
    assert len(parts(out)) == 5
    # Names that are not parts of OUTPUT, and OUTPUT itself, stay.
    others = [tmp_path / n for n in ("orders.parquet", "orders-1.parquet", "orders-000004.parquet", "orders-00001.csv")]
    for other in others:
        other.write_bytes(b"not a part")
    # A failed export writes nothing: the earlier parts stay whole.
    failed = run("export", backend.connstr, "SELECT nosuchcolumn FROM nosuchtable", str(out), "--rows-per-file", "9")
    assert failed.returncode == 4, failed.stderr.decode()
    assert [f.name for f in parts(out) if f not in others] == [f"orders-{i:05d}.parquet" for i in range(5)]
    done = run("export", backend.connstr, sql, str(out), "--rows-per-file", "1000")
    assert done.returncode == 0, done.stderr.decode()
    assert b"removed 5 parts of an earlier export (orders-00000.parquet to orders-00004.parquet)" in done.stderr
    files = [f for f in parts(out) if f not in others]
    assert [f.name for f in files] == [f"orders-{i:05d}.parquet" for i in range(3)]
    assert all(f.read_bytes() == b"not a part" for f in others)
    want = cursor.execute(sql).fetch_arrow_table()
    together = pa.concat_tables(read(f, want.schema).cast(want.schema) for f in files)
    assert together.to_pylist() == want.to_pylist()


def test_an_output_that_cannot_be_written_is_a_usage_error(backend, orders, tmp_path):
    # Exit 2 (documented: usage), before connecting: no query runs for an output that cannot
    # be kept. A directory that is missing, a file where the directory should be, a directory
    # where the output should be.
    (tmp_path / "a-file").write_bytes(b"")
    (tmp_path / "a-directory.parquet").mkdir()
    sql = f"SELECT id, city FROM {orders}"
    for out, reason in (
        (tmp_path / "missing-directory" / "orders.parquet", b"no such directory"),
        (tmp_path / "a-file" / "orders.parquet", b"no such directory"),
        (tmp_path / "a-directory.parquet", b"is a directory"),
    ):
        for split in ([], ["--rows-per-file", "100"]):
            done = run("export", backend.connstr, sql, str(out), "--batch-rows", "100", *split)
            assert done.returncode == 2, done.stderr.decode()
            assert reason in done.stderr and b"Traceback" not in done.stderr


def test_parquet_keeps_a_dictionary_only_where_values_repeat(backend, cursor, tmp_path):
    # One row group of 30,000 rows, uncompressed so that page sizes are the values' own: `i`
    # is all distinct, and its dictionary stops at 64 KiB (pyarrow's default, 1 MiB, would hold
    # all of it, 120-240 KB) with the rest written plain; `k` has five values and stays
    # dictionary-encoded throughout (a few bits a value).
    n = 30_000
    sql = f"SELECT i, i % 5 AS k FROM ({backend.series(n)}) s ORDER BY i"
    out = tmp_path / "series.parquet"
    done = run("export", backend.connstr, sql, str(out), "--batch-rows", str(n), "--compression", "none")
    assert done.returncode == 0, done.stderr.decode()
    assert read(out, None).to_pylist() == cursor.execute(sql).fetch_arrow_table().to_pylist()
    group = pq.ParquetFile(out).metadata.row_group(0)
    assert group.num_rows == n
    distinct, repeated = group.column(0), group.column(1)
    assert distinct.has_dictionary_page and repeated.has_dictionary_page
    dictionary_bytes = distinct.data_page_offset - distinct.dictionary_page_offset
    assert 32 * 1024 < dictionary_bytes < 80 * 1024, dictionary_bytes
    assert distinct.total_uncompressed_size > n * 4  # the values after the dictionary: plain
    assert repeated.total_uncompressed_size < n // 2, repeated.total_uncompressed_size


@pytest.mark.skipif(importlib.util.find_spec("numpy") is None, reason="numpy is not installed here")
def test_the_command_does_not_import_numpy(backend, orders, tmp_path):
    # pyarrow imports numpy when it can, and the command never needs it. Python lists every
    # import on stderr with PYTHONPROFILEIMPORTTIME.
    out = tmp_path / "orders.parquet"
    sql = f"SELECT {COLUMNS} FROM {orders}"
    done = run("export", backend.connstr, sql, str(out), env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert done.returncode == 0, done.stderr.decode()
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.decode().splitlines() if "|" in line]
    assert "pyarrow.parquet" in imported
    assert not [name for name in imported if name.split(".")[0] == "numpy"]
    assert pq.read_table(out).num_rows == ORDERS


@pytest.mark.parametrize(
    ("fmt", "flags", "sizes"),
    [
        ("parquet", (), [131_072, 8_928]),  # a row group per batch: Parquet's own default
        ("parquet", ("--batch-rows", "100000"), [100_000, 40_000]),
        ("parquet", ("--batch-bytes", "400000"), None),  # the bytes end batches first
        ("arrow", (), [65_536, 65_536, 8_928]),  # the reader's default
    ],
)
def test_batch_limits_by_format(backend, tmp_path, fmt, flags, sizes):
    n = 140_000
    sql = f"SELECT i FROM ({backend.series(n)}) s ORDER BY i"
    out = tmp_path / f"series{SUFFIXES[fmt]}"
    done = run("export", backend.connstr, sql, str(out), *flags)
    assert done.returncode == 0, done.stderr.decode()
    if fmt == "parquet":
        meta = pq.ParquetFile(out).metadata
        got = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
    else:
        reader = pa.ipc.open_file(out)
        got = [reader.get_batch(b).num_rows for b in range(reader.num_record_batches)]
    assert sum(got) == n
    if sizes is None:
        # 400,000 bytes hold 50,000-100,000 integers of 8 or 4 bytes (the limit is checked
        # after each block of at most 4,096 rows): below the 131,072 rows of the default.
        assert len(got) >= 2 and max(got) <= 100_000 + 4_096, got
    else:
        assert got == sizes
    assert read(out, None).column(0).to_pylist() == list(range(1, n + 1))
