"""bench/worker.py's Arrow operations (issue 18) on a small SQLite copy of the `mixed` set: each
fetches every row, the pandas check finds fetch_df's values equal to read_sql's, and a failing
peer is a result with its error."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest
from bench_modules import BENCH, load

import fastodbc

worker = load("worker")
datasets = worker.datasets

ROWS = 300

needs_arrow = pytest.mark.skipif(
    not hasattr(fastodbc.Cursor, "fetch_arrow_table"), reason="fastodbc has no Arrow fetch in this build"
)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A spec's database fields for a SQLite file holding ROWS rows of the mixed set."""
    path = tmp_path_factory.mktemp("arrow") / "mixed.sqlite"
    con = sqlite3.connect(path, isolation_level=None)
    ds = datasets.DATASETS["mixed"]
    datasets._sqlite_create(con, "mixed", ds)
    marks = ", ".join("?" * len(ds.columns))
    con.executemany(
        f"INSERT INTO mixed VALUES ({marks})", [tuple(map(datasets.sqlite_value, r)) for r in ds.rows(ROWS)]
    )
    con.close()
    return {"backend": "sqlite", "cs": f"Driver={{SQLite3}};Database={path};", "sql": "SELECT * FROM mixed"}


def measure(spec: dict) -> int:
    try:
        return worker.prepare(spec)()
    finally:
        worker.KEPT.clear()


@needs_arrow
@pytest.mark.parametrize(("op", "extra"), [("arrow", {}), ("record_batch", {"batch_rows": 64}), ("record_batch", {})])
def test_fastodbc_arrow_operations_fetch_every_row(mixed: dict, op: str, extra: dict) -> None:
    pytest.importorskip("pyarrow")
    assert measure(dict(mixed, op=op, peer="fastodbc", **extra)) == ROWS


@needs_arrow
def test_fetch_df_and_read_sql_fetch_every_row_with_equal_values(mixed: dict) -> None:
    pytest.importorskip("pandas")
    for peer in ("fastodbc", "pyodbc"):
        assert measure(dict(mixed, op="df", peer=peer)) == ROWS
    assert worker.check_df(dict(mixed)) == {"equal": True, "detail": None, "rows": ROWS}


def test_arrow_odbc_arrow_operations(mixed: dict) -> None:
    pytest.importorskip("arrow_odbc")
    assert measure(dict(mixed, op="arrow", peer="arrow-odbc")) == ROWS
    assert measure(dict(mixed, op="record_batch", peer="arrow-odbc", batch_rows=64)) == ROWS


def test_a_failing_peer_is_a_result_with_its_error(mixed: dict) -> None:
    spec = dict(mixed, op="arrow", peer="fastodbc", sql="SELECT * FROM no_such_table")
    out = subprocess.run([sys.executable, str(BENCH / "worker.py"), json.dumps(spec)], capture_output=True, text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["seconds"] is None and result["error"]
    check = subprocess.run(
        [sys.executable, str(BENCH / "worker.py"), json.dumps(dict(spec, op="df-check"))],
        capture_output=True,
        text=True,
    )
    assert json.loads(check.stdout.strip().splitlines()[-1])["error"]
