"""odbc-floor (bench/floor), the real binary on SQLite through unixODBC: every row counted, with the
rows' plan and with the typed columns' plan (``--typed``, the Arrow reader's), which fetches number
columns in rowsets where the rows' plan fetches them one row per SQLFetch. Skipped where the binary
is not built (``make bench`` builds it)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

FLOOR = Path(__file__).resolve().parents[2] / "target" / "release" / "odbc-floor"

pytestmark = pytest.mark.skipif(not FLOOR.exists(), reason="odbc-floor is not built (make bench builds it)")


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("floor") / "floor.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (i INTEGER, x REAL, s VARCHAR(20))")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i, i / 4, f"row {i}") for i in range(1, 5001)])
    con.commit()
    con.close()
    return f"Driver=SQLite3;Database={path}"


def floor(cs: str, sql: str, *flags: str) -> dict:
    env = dict(os.environ)
    root = Path(__file__).resolve().parents[2]
    env.setdefault("ODBCSYSINI", str(root / "build" / "odbc"))
    env.setdefault("ODBCINI", str(root / "build" / "odbc" / "odbc.ini"))
    proc = subprocess.run(
        [str(FLOOR), "--connect", cs, "--sql", sql, "--rowset-rows", "1024", *flags],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("sql", "rows_plan_rowwise", "typed_rowwise"),
    [
        # Numbers only: SQLite's number text may be long stored text; typed columns refuse it.
        ("SELECT i, x FROM t", True, False),
        # A text column: its long values can only be re-read on their row, whatever the reader.
        ("SELECT i, s FROM t", True, True),
    ],
)
def test_the_typed_plan_fetches_number_columns_in_rowsets(database, sql, rows_plan_rowwise, typed_rowwise):
    rows = floor(database, sql)
    typed = floor(database, sql, "--typed")
    assert rows["rows"] == typed["rows"] == 5000
    assert (rows["typed"], typed["typed"]) == (False, True)
    assert (rows["row_at_a_time"], typed["row_at_a_time"]) == (rows_plan_rowwise, typed_rowwise)
