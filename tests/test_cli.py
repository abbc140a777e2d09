"""The ``fastodbc`` command line, run as an installed command in a subprocess (no terminal):
``export`` to Parquet, CSV and Arrow IPC equals ``fetch_arrow_table`` of the same query on every
backend; the connection from an argument, ``FASTODBC_CONNECTION`` or stdout output; distinct exit
codes for connection, SQL and data errors, with no partial file left behind."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
import pyarrow.csv as pacsv  # noqa: E402
import pyarrow.ipc as ipc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

FASTODBC = shutil.which("fastodbc", path=str(Path(sys.executable).parent)) or "fastodbc"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [FASTODBC, *args], capture_output=True, timeout=120, env={**os.environ, **(env or {})}
    )


@pytest.fixture
def orders(backend, cursor, table):
    name = table(f"id INTEGER, city VARCHAR(20), amount {backend.ddl('numeric(18,4)')}")
    cursor.executemany(
        f"INSERT INTO {name} VALUES (?, ?, ?)",
        [(i, ["Zürich", "東京", None][i % 3], i * 1.5) for i in range(2_500)],
    )
    cursor.connection.commit()
    return name


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".arrow"])
def test_export_writes_what_fetch_arrow_table_reads(backend, cursor, orders, tmp_path, suffix):
    out = tmp_path / f"orders{suffix}"
    sql = f"SELECT id, city, amount FROM {orders} ORDER BY id"
    done = run("export", backend.connstr, sql, str(out), "--batch-rows", "1000")
    assert done.returncode == 0, done.stderr.decode()
    assert b"2,500 rows" in done.stderr
    want = cursor.execute(sql).fetch_arrow_table()
    if suffix == ".parquet":
        got = pq.read_table(out)
    elif suffix == ".arrow":
        got = ipc.open_file(out).read_all()
    else:
        # NULL is an empty field; '' would be a quoted one.
        options = pacsv.ConvertOptions(
            column_types=want.schema, strings_can_be_null=True, quoted_strings_can_be_null=False
        )
        got = pacsv.read_csv(out, convert_options=options)
    assert got.num_rows == 2_500
    assert got.column_names == want.column_names
    assert got.to_pylist() == want.to_pylist()


def test_connection_from_the_environment_and_csv_to_stdout(backend, orders):
    sql = f"SELECT id FROM {orders} WHERE id < 3 ORDER BY id"
    done = run("export", sql, "-", "--format", "csv", "--quiet", env={"FASTODBC_CONNECTION": backend.connstr})
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split() == ['"id"', "0", "1", "2"]
    assert done.stderr == b""


def test_exit_codes_and_no_partial_file(backend, orders, tmp_path):
    out = tmp_path / "x.parquet"
    bad_sql = run("export", backend.connstr, "SELECT nosuchcolumn FROM nosuchtable", str(out))
    assert bad_sql.returncode == 4, bad_sql.stderr.decode()
    assert not out.exists()
    unreachable = run("export", backend.unreachable_connstr, "SELECT 1", str(out))
    assert unreachable.returncode == 3, unreachable.stderr.decode()
    assert not out.exists()
    usage = run("export", "only-one-argument")
    assert usage.returncode != 0 and not out.exists()


def test_drivers_and_python_dash_m(backend):
    listed = subprocess.run(
        [sys.executable, "-m", "fastodbc", "drivers"], capture_output=True, timeout=60
    )
    assert listed.returncode == 0
    assert backend.driver in listed.stdout.decode().splitlines()
