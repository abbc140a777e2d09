"""A forked child never ends its parent's session: closing, or dropping, a connection it
inherited sends nothing on the shared socket (no ROLLBACK, no disconnect), and its statements
are not freed there either. (Pools after fork: tests/pool/test_pool_fork.py.)"""

from __future__ import annotations

import gc
import os

import pytest

from profiles import backends_where

pytestmark = [
    pytest.mark.fastodbc_only(reason="pyodbc disconnects an inherited connection"),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform"),
]


def in_child(fn) -> int:
    """Runs fn() in a forked child; its exit status (0: fn returned, 1: it raised)."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            fn()
            status = 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@pytest.mark.parametrize("backend", backends_where(lambda p: p.session_id_sql), indirect=True)
@pytest.mark.parametrize("ending", ["close", "drop", "close_cursor"])
def test_child_leaves_the_parent_transaction_and_session(db, backend, connect, table, ending):
    t = table("id INTEGER")
    for attempt in range(3):
        # Held only by `box` (not by the `connect` fixture), so that clearing it in the child
        # drops them there.
        box = {"cnxn": db.connect(backend.connstr)}
        box["writer"] = box["cnxn"].cursor()
        box["writer"].execute(f"INSERT INTO {t} VALUES (?)", attempt)  # a ROLLBACK would undo it
        box["reader"] = box["cnxn"].cursor()
        box["reader"].execute(f"SELECT id FROM {t}")  # a result open on the server's side too

        def child(box=box):
            if ending == "close":
                box["cnxn"].close()
            elif ending == "close_cursor":
                box["reader"].close()
                box["writer"].close()
            box.clear()
            gc.collect()

        try:
            assert in_child(child) == 0
            assert box["reader"].fetchall() is not None
            box["cnxn"].commit()
            assert box["cnxn"].cursor().execute("SELECT 1").fetchval() == 1
        finally:
            box["cnxn"].close()
        got = sorted(r[0] for r in connect().cursor().execute(f"SELECT id FROM {t}").fetchall())
        assert got == list(range(attempt + 1)), f"attempt {attempt}: {got}"
