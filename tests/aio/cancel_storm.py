"""Tasks cancelled at random while they execute a long query and fetch it as Arrow: run in a
process of its own by tests/aio/test_release.py, so that a crash fails a test instead of
killing pytest. Usage: ``python cancel_storm.py SECONDS ROWS`` with the connection string in
``CANCEL_STORM_CONNSTR`` and the query (``{n}``: rows) in ``CANCEL_STORM_SQL``. Prints one
JSON line: how many tasks ran, how they ended, and how long the event loop took to drop their
cursors."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time
from collections import Counter

import fastodbc.aio

TASKS = 10  # at once, per round
CANCEL_AFTER_S = 0.05  # each task is cancelled after a random 0 - 50 ms


async def query(cnxn, sql: str, drops: list[tuple[float, float]]) -> None:
    cur = cnxn.cursor()
    try:
        await cur.execute(sql)
        await cur.fetch_arrow_table()
    finally:
        # The last reference goes a moment later, on the loop, usually with the result
        # unfinished and another task's call running on the connection's thread.
        held = [cur]
        del cur
        asyncio.get_running_loop().call_later(random.uniform(0, CANCEL_AFTER_S), drop, held, drops)


def drop(held: list, drops: list[tuple[float, float]]) -> None:
    """Drops a cursor, noting the loop's wall time and its thread's CPU time in the drop (the
    wall time also holds waits for the GIL the other threads hold, up to the switch interval
    several times over on a loaded machine)."""
    started, cpu = time.perf_counter(), time.thread_time()
    held.clear()
    drops.append((time.perf_counter() - started, time.thread_time() - cpu))


async def on_pool(pool, sql: str, drops: list[tuple[float, float]]) -> None:
    async with pool.connection() as cnxn:
        await query(cnxn, sql, drops)


async def storm(seconds: float, rows: int) -> dict:
    connstr = os.environ["CANCEL_STORM_CONNSTR"]
    sql = os.environ["CANCEL_STORM_SQL"].format(n=rows)
    drops: list[tuple[float, float]] = []
    ends: Counter[str] = Counter()
    shared = await fastodbc.aio.connect(connstr, autocommit=True)
    pool = fastodbc.aio.AsyncConnectionPool(connstr, min_size=2, max_size=4, kwargs={"autocommit": True})
    await pool.open(wait=True, timeout=60)
    deadline = time.monotonic() + seconds
    rounds = 0
    while time.monotonic() < deadline:
        # Three rounds in four share one connection (a dropped cursor's statement beside another
        # task's call), the others take pooled ones (a connection returned with a cursor open).
        if rounds % 4:
            work = [query(shared, sql, drops) for _ in range(TASKS)]
        else:
            work = [on_pool(pool, sql, drops) for _ in range(TASKS)]
        tasks = [asyncio.create_task(asyncio.wait_for(w, random.uniform(0, CANCEL_AFTER_S))) for w in work]
        for outcome in await asyncio.gather(*tasks, return_exceptions=True):
            ends[type(outcome).__name__ if isinstance(outcome, BaseException) else "done"] += 1
        rounds += 1
    await asyncio.sleep(2 * CANCEL_AFTER_S)  # the last drops
    # Both still work after the storm.
    cur = await shared.execute("SELECT 1")
    assert await cur.fetchval() == 1
    async with pool.connection() as cnxn:
        cur = await cnxn.execute("SELECT 2")
        assert await cur.fetchval() == 2
    await pool.close()
    await shared.close()
    walls = sorted(wall for wall, _ in drops) or [0.0]
    return {
        "tasks": sum(ends.values()),
        "ends": dict(ends),
        "drops": len(drops),
        "max_drop_s": walls[-1],
        "p99_drop_s": walls[int(len(walls) * 0.99)],
        "max_drop_cpu_s": max((cpu for _, cpu in drops), default=0.0),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(storm(float(sys.argv[1]), int(sys.argv[2])))))
