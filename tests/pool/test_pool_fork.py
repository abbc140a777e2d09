"""After ``os.fork()`` the child never uses its parent's connections (docs/pool-and-async.md,
"fork"): the pool connects its own, and whatever the child does with the pool (use it, close
it, drop it) leaves the parent's sessions working."""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import time
import traceback

import pytest

from fastodbc.pool import ConnectionPool
from profiles import backends_where

from .support import session_of

pytestmark = [
    pytest.mark.fastodbc_only(reason="fastodbc.pool is fastodbc's own"),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform"),
]


def run_in_child(fn, timeout: float = 60.0):
    """Runs fn() in a forked child; returns what it returned (JSON), or fails with the child's
    traceback. A child that hangs is killed after ``timeout`` s."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(r)
            try:
                result = {"value": fn()}
            except BaseException:  # noqa: BLE001 - sent to the parent
                result = {"error": traceback.format_exc()}
            data = json.dumps(result).encode()
            while data:
                data = data[os.write(w, data) :]
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([r], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                pytest.fail(f"the child hangs after {timeout} s")
            chunk = os.read(r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(r)
        os.waitpid(pid, 0)
    outcome = json.loads(b"".join(chunks) or b"{}")
    assert "error" not in outcome, "in the child:\n" + outcome["error"]
    assert "value" in outcome, "the child died without an answer"
    return outcome["value"]


def test_child_gets_connections_of_its_own(db, backend, make_pool):
    n = 2
    pool = make_pool(min_size=n)
    pool.wait(timeout=30)
    parents = [pool.getconn() for _ in range(n)]  # kept: no id below can be reused
    parent_ids = [id(c) for c in parents]
    parent_sessions = [session_of(backend, c) for c in parents]
    lent, idle = parents
    pool.putconn(idle)

    def child():
        held = [pool.getconn(timeout=20) for _ in range(n)]  # as many as the parent had
        out = {
            "ids": [id(c) for c in held],
            "sessions": [session_of(backend, c) for c in held],
            "values": [c.cursor().execute("SELECT 1").fetchval() for c in held],
        }
        for c in held:
            pool.putconn(c)
        with pool.connection(timeout=20) as c:
            out["ids"].append(id(c))
            out["values"].append(c.cursor().execute("SELECT 2").fetchval())
        pool.close()
        return out

    for attempt in range(2):
        got = run_in_child(child)
        assert not set(got["ids"]) & set(parent_ids), f"attempt {attempt}: the child got a parent's connection"
        assert got["values"] == [1] * n + [2]
        if backend.session_id_sql:
            assert not set(got["sessions"]) & set(parent_sessions), f"attempt {attempt}: a parent's session"
        # The parent's connections still work, on the same sessions.
        assert lent.cursor().execute("SELECT 3").fetchval() == 3
        assert session_of(backend, lent) == parent_sessions[0]
        with pool.connection(timeout=10) as cnxn:
            assert cnxn is idle
            assert cnxn.cursor().execute("SELECT 4").fetchval() == 4
            assert session_of(backend, cnxn) == parent_sessions[1]
    pool.putconn(lent)


@pytest.mark.parametrize("backend", backends_where(lambda p: p.session_id_sql), indirect=True)
@pytest.mark.parametrize("ending", ["close", "drop"])
def test_child_leaves_the_parent_sessions_alive(db, backend, ending):
    # Nothing holds the parent's connections but the pool: in the child, the pool lets them go
    # (closed, or dropped and collected), and the parent's sessions must live on.
    n = 2
    box = [ConnectionPool(backend.connstr, min_size=n, timeout=10)]
    try:
        box[0].wait(timeout=30)
        parent_sessions = sessions(backend, box[0], n)

        def child():
            mine = sessions(backend, box[0], n)
            if ending == "close":
                box[0].close()
            box.clear()
            gc.collect()
            return mine

        for attempt in range(2):
            mine = run_in_child(child)
            assert not set(mine) & set(parent_sessions), f"attempt {attempt}: the child used a parent's session"
            assert sessions(backend, box[0], n) == parent_sessions, f"attempt {attempt}: the parent's sessions changed"
            with box[0].connection(timeout=10) as cnxn:
                assert cnxn.cursor().execute("SELECT 5").fetchval() == 5
    finally:
        for pool in box:
            pool.close()


def sessions(backend, pool, n: int) -> list[int]:
    """The sessions of the pool's n connections, all lent at once, then given back."""
    held = [pool.getconn(timeout=20) for _ in range(n)]
    try:
        return sorted(session_of(backend, c) for c in held)
    finally:
        for c in held:
            pool.putconn(c)
