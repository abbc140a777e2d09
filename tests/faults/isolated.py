"""Fault scenarios run in a child process, where a driver may crash (psqlODBC's SQLFetch after a
reset mid-fetch): the crash then fails one test instead of ending the run. Run as
``python -m faults.isolated <scenario> <json args>`` (tests/ on the path); prints one JSON line.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def _error(e: BaseException) -> list[Any]:
    return [type(e).__name__, str(e.args[0]) if e.args else "", str(e)[:300]]


def fetch(connstr: str, sql: str, batch: int) -> dict[str, Any]:
    """Executes ``sql`` (one integer column 1..n) and fetches it all, ``batch`` rows a call; then
    one more statement on the same connection, timed."""
    import fastodbc

    cnxn = fastodbc.connect(connstr)
    cur = cnxn.cursor()
    rows: list[int] = []
    out: dict[str, Any] = {"error": None}
    try:
        cur.execute(sql)
        while chunk := cur.fetchmany(batch):
            rows.extend(r[0] for r in chunk)
    except fastodbc.Error as e:
        out["error"] = _error(e)
    out["rows"] = len(rows)
    out["in_order"] = rows == list(range(1, len(rows) + 1))
    started = time.monotonic()
    try:
        cnxn.cursor().execute("SELECT 1").fetchall()
        out["next"] = None
    except fastodbc.Error as e:
        out["next"] = _error(e)
    out["next_s"] = time.monotonic() - started
    return out


if __name__ == "__main__":
    scenario = {"fetch": fetch}[sys.argv[1]]
    print(json.dumps(scenario(**json.loads(sys.argv[2]))), flush=True)
