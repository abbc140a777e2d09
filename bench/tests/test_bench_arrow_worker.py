"""bench/worker.py's Arrow operations (issue 18) on a small SQLite copy of the `mixed` set: each
fetches every row (the native anchors of issue 33 too), the pandas check finds fetch_df's values
equal to read_sql's, the Arrow case records each peer's types, and a failing peer is a result
with its error."""

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
    return {
        "backend": "sqlite",
        "cs": f"Driver={{SQLite3}};Database={path};",
        "sqlite_path": str(path),
        "sql": "SELECT * FROM mixed",
    }


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


@pytest.mark.parametrize(("peer", "module"), [("connectorx", "connectorx"), ("adbc", "adbc_driver_sqlite")])
def test_native_anchors_fetch_every_row(mixed: dict, peer: str, module: str) -> None:
    pytest.importorskip(module)
    assert measure(dict(mixed, op="arrow", peer=peer)) == ROWS
    # The Arrow case only: they have no rows API here.
    with pytest.raises(ValueError, match=f"{peer} has no fetchall on sqlite"):
        measure(dict(mixed, op="fetchall", peer=peer))


def worker_result(spec: dict) -> dict:
    out = subprocess.run([sys.executable, str(BENCH / "worker.py"), json.dumps(spec)], capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_arrow_case_records_each_peers_arrow_types(mixed: dict) -> None:
    pytest.importorskip("adbc_driver_sqlite")
    result = worker_result(dict(mixed, op="arrow", peer="adbc"))
    assert result["error"] is None and result["rows"] == ROWS
    # ADBC's SQLite driver returns what SQLite stores (see bench/worker.py on the anchors' types).
    assert result["arrow_types"][:2] == ["id: int64", "big: int64"]
    assert {"d: string", "ts: string", "flag: int64"} <= set(result["arrow_types"])
    # Other operations record none.
    assert "arrow_types" not in worker_result(dict(mixed, op="fetchall", peer="pyodbc"))
    pa = pytest.importorskip("pyarrow")
    assert worker.arrow_types([[(1,)], pa.table({"a": [1], "b": ["x"]})]) == ["a: int64", "b: string"]
    assert worker.arrow_types([]) is None and worker.arrow_types([[(1,)]]) is None


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
