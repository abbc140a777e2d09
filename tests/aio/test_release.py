"""What an async connection's cursors hold of the driver is released on the connection's thread
(issue 29, item 7), never where the cursor is dropped: a cursor of a cancelled task, one never
closed, one left open when its connection closes or goes back to its pool, an Arrow reader
dropped part way. Freed on the event loop, a statement with an unfinished result was freed
beside the call running on the connection's thread (MariaDB: ``free(): corrupted unsorted
chunks``, SIGSEGV, or both threads reading one socket forever) and the loop waited for it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fastodbc.aio
from fastodbc.aio import AsyncConnectionPool

from .support import collector_seconds, opened, run

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.aio is fastodbc's own")

#: How long the cancelled-task storm runs, and the rows of its query.
STORM_S = 12.0
STORM_ROWS = 30_000

#: The longest a dropped cursor may keep the event loop: a finalizer putting a job in a queue
#: (microseconds), not a statement freed (tens of milliseconds for a 2,000,000-row result).
#: Of the storm's thousands of drops the longest is bounded in the loop thread's CPU time, and
#: in wall time the 99th percentile: with six threads on two loaded cores, a drop's wall time
#: also holds waits for the GIL (a switch interval is 5 ms).
DROP_STALL_LIMIT_S = 0.005

#: An unfinished result whose freeing takes the driver long enough to see on the loop.
BIG_ROWS = 2_000_000


def test_tasks_cancelled_at_random_never_crash_or_hang(db, backend):
    # Tasks cancelled 0-50 ms into a long query and its Arrow fetch, on one shared connection
    # and on a pool, for STORM_S seconds, in a process of its own: a crash is a failed test.
    env = {**os.environ, "CANCEL_STORM_CONNSTR": backend.connstr, "CANCEL_STORM_SQL": backend.long_result_sql}
    script = Path(__file__).with_name("cancel_storm.py")
    limit = STORM_S + 90  # the storm, connecting, and a loaded machine; a hang waits forever
    try:
        done = subprocess.run(
            [sys.executable, str(script), str(STORM_S), str(STORM_ROWS)],
            env=env,
            capture_output=True,
            text=True,
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the storm hung: not done after {limit:.0f} s")
    assert done.returncode == 0, f"exit status {done.returncode}:\n{done.stderr[-3000:]}"
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["tasks"] >= 100, report
    # Every task ended by finishing or by its cancellation, nothing else.
    assert set(report["ends"]) <= {"done", "TimeoutError", "CancelledError"}, report
    assert report["max_drop_cpu_s"] < DROP_STALL_LIMIT_S, report
    assert report["p99_drop_s"] < DROP_STALL_LIMIT_S, report


async def _unfinished(cnxn, sql: str):
    cur = cnxn.cursor()
    await cur.execute(sql)
    assert await cur.fetchone() is not None
    return cur


def _dropped(holder: list) -> float:
    """Seconds the loop spent dropping the only reference to a cursor (in ``holder``), the
    free-threaded collector's pauses left out (``support.collector_seconds``)."""
    started, collected = time.perf_counter(), collector_seconds()
    holder.clear()
    return time.perf_counter() - started - (collector_seconds() - collected)


async def _works(cnxn) -> None:
    cur = await cnxn.execute("SELECT 7")
    assert await cur.fetchval() == 7
    await cur.close()


@pytest.mark.timeout(300)
def test_cursor_never_closed_is_released_off_the_loop(db, backend):
    sql = backend.long_result(BIG_ROWS)

    async def main():
        async with opened(backend.connstr, autocommit=True) as cnxn:
            held = [await _unfinished(cnxn, sql)]
            stall = _dropped(held)
            await _works(cnxn)  # after the release, in turn on the connection's thread
            assert stall < DROP_STALL_LIMIT_S, f"the loop waited {stall * 1000:.1f} ms for a dropped cursor"
            # An Arrow reader dropped part way with its cursor: it holds the statement.
            cur = cnxn.cursor()
            await cur.execute(sql)
            reader = cur.fetch_record_batch(batch_rows=1000)
            await reader.__anext__()
            held = [cur, reader]
            del cur, reader
            stall = _dropped(held)
            await _works(cnxn)
            assert stall < DROP_STALL_LIMIT_S, f"the loop waited {stall * 1000:.1f} ms for a dropped reader"

    run(main)


@pytest.mark.timeout(300)
def test_cursor_open_when_its_connection_closes(db, backend):
    sql = backend.long_result(BIG_ROWS)

    async def main():
        async with opened(backend.connstr, autocommit=True) as cnxn:
            held = [await _unfinished(cnxn, sql)]
        assert held[0].closed  # closed with the connection, on its thread
        stall = _dropped(held)
        assert stall < DROP_STALL_LIMIT_S, f"the loop waited {stall * 1000:.1f} ms"

    run(main)


@pytest.mark.timeout(300)
def test_cursor_open_when_the_pool_takes_its_connection_back(db, backend):
    # The connection goes back with the cursor open (closed by the return, on its thread); the
    # next task gets the same connection and works while the old cursor is dropped.
    sql = backend.long_result(BIG_ROWS)

    async def main():
        async with AsyncConnectionPool(backend.connstr, min_size=1, kwargs={"autocommit": True}) as pool:
            async with pool.connection() as cnxn:
                held = [await _unfinished(cnxn, sql)]
            assert held[0].closed
            async with pool.connection() as again:
                assert again is cnxn
                busy = asyncio.create_task(again.execute(backend.long_result(1000)))
                stall = _dropped(held)
                cur = await busy
                assert len(await cur.fetchall()) == 1000
                await _works(again)
        assert stall < DROP_STALL_LIMIT_S, f"the loop waited {stall * 1000:.1f} ms"

    run(main)


def test_calls_after_close_raise_instead_of_waiting_forever(db, backend):
    # The connection's thread ends with close(): a call made later must not wait for it.
    async def main():
        cnxn = await fastodbc.aio.connect(backend.connstr)
        cur = cnxn.cursor()
        await cur.execute("SELECT 1")
        await cnxn.close()
        for call in (lambda: cur.execute("SELECT 1"), cur.fetchall, cnxn.commit):
            with pytest.raises(db.ProgrammingError):
                await asyncio.wait_for(call(), 10)
        await asyncio.wait_for(cur.close(), 10)
        await asyncio.wait_for(cnxn.close(), 10)

    run(main)
