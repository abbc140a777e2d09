"""AsyncConnectionPool: ConnectionPool's behaviour for asyncio (lending, PoolTimeout, return
restores the state, lost connections discarded), ``check`` / ``configure`` / ``reset`` as
coroutine functions, and a task cancelled while it waits for a connection takes none."""

from __future__ import annotations

import asyncio
import time

import pytest

from fastodbc.aio import AsyncConnection, AsyncConnectionPool, PoolClosed, PoolTimeout, TooManyRequests
from pool.support import MEASURES, STATS_KEYS, TIMEOUT_SLACK_S, assert_lost

from .support import run, wait_for_condition

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.aio is fastodbc's own")

REPEAT = 3


async def works(cnxn) -> bool:
    cur = cnxn.cursor()
    await cur.execute("SELECT 1")
    return await cur.fetchval() == 1


def make(backend, **kwargs) -> AsyncConnectionPool:
    kwargs.setdefault("min_size", 1)
    kwargs.setdefault("timeout", 10.0)
    return AsyncConnectionPool(backend.connstr, **kwargs)


def test_connection_block_and_getconn_putconn(db, backend):
    async def main():
        async with make(backend, min_size=2) as pool:
            assert not pool.closed
            await pool.wait(timeout=30)
            assert pool.get_stats()["pool_available"] == 2
            async with pool.connection() as cnxn:
                assert isinstance(cnxn, AsyncConnection)
                assert await works(cnxn)
                assert pool.get_stats()["pool_available"] == 1
            assert pool.get_stats()["pool_available"] == 2
            a = await pool.getconn()
            b = await pool.getconn()
            assert a is not b and await works(a) and await works(b)
            stats = pool.get_stats()
            assert (stats["pool_size"], stats["pool_available"]) == (2, 0)
            await pool.putconn(a)
            await pool.putconn(b)
            stats = pool.get_stats()
            assert set(stats) <= STATS_KEYS and MEASURES <= set(stats)
            assert (stats["pool_size"], stats["pool_available"]) == (2, 2)
            assert stats["requests_num"] == 3
        assert pool.closed
        with pytest.raises(PoolClosed):
            await pool.getconn()

    run(main)


def test_connection_block_commits_on_success_and_rolls_back_on_error(db, backend, connect, table):
    t = table("id INTEGER")

    def count() -> int:
        return connect(autocommit=True).cursor().execute(f"SELECT COUNT(*) FROM {t}").fetchval()

    async def main():
        async with make(backend) as pool:
            async with pool.connection() as cnxn:
                await cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
            assert count() == 1
            with pytest.raises(ZeroDivisionError):
                async with pool.connection() as cnxn:
                    await cnxn.cursor().execute(f"INSERT INTO {t} VALUES (2)")
                    1 / 0  # noqa: B018
            assert count() == 1

    run(main)


def test_exhausted_pool_raises_pool_timeout_within_timeout(db, backend):
    async def main():
        async with make(backend, min_size=1, max_waiting=1) as pool:
            held = await pool.getconn()
            started = time.monotonic()
            with pytest.raises(PoolTimeout):
                await pool.getconn(timeout=0.5)
            elapsed = time.monotonic() - started
            assert 0.45 <= elapsed < 0.5 + TIMEOUT_SLACK_S
            waiter = asyncio.create_task(pool.getconn(timeout=30))
            await wait_for_condition(lambda: pool.get_stats()["requests_waiting"] == 1, 10, "a request waits")
            with pytest.raises(TooManyRequests):
                await pool.getconn(timeout=30)
            await pool.putconn(held)
            got = await asyncio.wait_for(waiter, 10)
            assert got is held and await works(got)
            await pool.putconn(got)

    run(main)


def test_return_closes_cursors_and_restores_state(db, backend):
    async def main():
        async with make(backend, min_size=1) as pool:
            cnxn = await pool.getconn()
            before = (cnxn.autocommit, cnxn.timeout, cnxn.read_ahead, cnxn.fetch_buffer_bytes)
            reading = cnxn.cursor()
            await reading.execute(backend.series(3000))
            await reading.fetchone()
            await cnxn.set_autocommit(not before[0])
            cnxn.timeout = before[1] + 5
            cnxn.read_ahead = not before[2]
            cnxn.fetch_buffer_bytes = 64 * 1024 if before[3] != 64 * 1024 else 128 * 1024
            changed = (cnxn.autocommit, cnxn.timeout, cnxn.read_ahead, cnxn.fetch_buffer_bytes)
            assert all(a != b for a, b in zip(changed, before, strict=True))
            await pool.putconn(cnxn)
            assert reading.closed
            again = await pool.getconn()
            assert again is cnxn
            assert (again.autocommit, again.timeout, again.read_ahead, again.fetch_buffer_bytes) == before
            assert await works(again)
            await pool.putconn(again)

    run(main)


def test_open_transaction_rolled_back_on_return(db, backend, connect, table):
    t = table("id INTEGER")

    async def main():
        async with make(backend, min_size=1) as pool:
            cnxn = await pool.getconn()
            assert cnxn.autocommit is False
            await cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
            await pool.putconn(cnxn)
            admin = connect(autocommit=True)
            assert admin.cursor().execute(f"SELECT COUNT(*) FROM {t}").fetchval() == 0
            admin.cursor().execute(f"INSERT INTO {t} VALUES (2)")
            again = await pool.getconn()
            assert again is cnxn
            cur = again.cursor()
            await cur.execute(f"SELECT id FROM {t}")
            assert [r[0] for r in await cur.fetchall()] == [2]
            await pool.putconn(again)

    run(main)


def test_coroutine_callbacks(db, backend):
    calls: dict[str, list] = {"check": [], "configure": [], "reset": []}

    async def configure(cnxn):
        assert isinstance(cnxn, AsyncConnection)
        calls["configure"].append(cnxn)
        await cnxn.set_autocommit(True)
        await asyncio.sleep(0)

    async def check(cnxn):
        calls["check"].append(cnxn)
        await asyncio.sleep(0)
        if len(calls["check"]) == 1:
            raise RuntimeError("the first check fails")
        assert await works(cnxn)

    async def reset(cnxn):
        calls["reset"].append((cnxn, cnxn.autocommit))
        await asyncio.sleep(0)

    async def main():
        async with make(backend, min_size=2, check=check, configure=configure, reset=reset) as pool:
            await pool.wait(timeout=30)
            first = await pool.getconn()
            assert calls["check"][0] is not first, "the connection whose check failed was lent"
            # The lent connection passed a check; the failed one also had the idle ones checked in
            # the background (a lost connection may mean a restarted server), so checks of other
            # connections may come after it.
            assert any(c is first for c in calls["check"][1:])
            assert first.autocommit is True  # configured
            await first.set_autocommit(False)
            await pool.putconn(first)
            assert calls["reset"][-1] == (first, True)  # reset after the state is restored
            for _ in range(6):
                async with pool.connection() as cnxn:
                    assert cnxn.autocommit is True
                    assert any(c is cnxn for c in calls["configure"])
            configured = calls["configure"]
            assert len(configured) == len({id(c) for c in configured})  # once per connection
            assert len(calls["reset"]) == 7
            await wait_for_condition(lambda: calls["check"][0].closed, 10, "the failed connection is closed")

    run(main)


def test_failing_coroutine_check_ends_in_pool_timeout_at_the_deadline(db, backend):
    async def check(cnxn):
        await asyncio.sleep(0)
        raise RuntimeError("never healthy")

    async def main():
        async with make(backend, min_size=1, check=check, timeout=1.5) as pool:
            started = time.monotonic()
            with pytest.raises(PoolTimeout):
                await pool.getconn()
            elapsed = time.monotonic() - started
            assert 1.5 * 0.9 <= elapsed < 1.5 + TIMEOUT_SLACK_S, elapsed

    run(main)


def test_cancelled_while_waiting_takes_no_connection(db, backend):
    async def main():
        async with make(backend, min_size=1) as pool:
            await pool.wait(timeout=30)
            held = await pool.getconn()
            for attempt in range(REPEAT):
                task = asyncio.create_task(pool.getconn(timeout=30))
                await wait_for_condition(lambda: pool.get_stats()["requests_waiting"] == 1, 10, "a request waits")
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                assert pool.get_stats()["requests_waiting"] == 0, f"attempt {attempt}"
            await pool.putconn(held)
            stats = pool.get_stats()
            assert (stats["pool_size"], stats["pool_available"]) == (1, 1)
            again = await pool.getconn(timeout=2)
            assert again is held and await works(again)
            await pool.putconn(again)

    run(main)


def test_cancelled_as_the_connection_arrives_takes_none(db, backend):
    # The cancel lands around the moment the connection is handed to the waiting task: either
    # the task has it (and gives it back) or the pool has it back; never lost.
    async def main():
        async with make(backend, min_size=1) as pool:
            await pool.wait(timeout=30)
            for attempt in range(30):
                held = await pool.getconn(timeout=10)
                task = asyncio.create_task(pool.getconn(timeout=30))
                await wait_for_condition(lambda: pool.get_stats()["requests_waiting"] == 1, 10, "a request waits")
                giving = asyncio.create_task(pool.putconn(held))
                for _ in range(attempt % 6):
                    await asyncio.sleep(0)
                task.cancel()
                await giving
                try:
                    got = await task
                except asyncio.CancelledError:
                    pass
                else:
                    assert got is held
                    await pool.putconn(got)
                await wait_for_condition(
                    lambda: pool.get_stats()["pool_available"] == 1, 5, f"attempt {attempt}: the connection is back"
                )
                assert pool.get_stats()["pool_size"] == 1, f"attempt {attempt}"
            async with pool.connection(timeout=2) as cnxn:
                assert await works(cnxn)

    run(main)


def test_connection_that_lost_its_session_is_discarded(db, backend, connect):
    if backend.kill_session_sql is None:
        pytest.skip(f"{backend.name} has no server session to kill")
    admin = connect(autocommit=True)

    async def session(cnxn) -> int:
        cur = cnxn.cursor()
        await cur.execute(backend.session_id_sql)
        return int(await cur.fetchval())

    async def main():
        async with make(backend, min_size=1) as pool:
            for attempt in range(REPEAT):
                cnxn = await pool.getconn(timeout=30)
                sid = await session(cnxn)
                await asyncio.to_thread(backend.kill_session, admin, sid)
                with pytest.raises(db.Error) as exc:
                    await cnxn.cursor().execute("SELECT 1")
                assert_lost(db, backend, exc.value)
                await pool.putconn(cnxn)
                fresh = await pool.getconn(timeout=30)
                assert fresh is not cnxn, f"attempt {attempt}: the dead connection was lent again"
                assert await session(fresh) != sid and await works(fresh)
                await pool.putconn(fresh)

    run(main)


def test_statement_cancelled_in_a_pool_connection(db, backend):
    # A task cancelled during a statement on a lent connection: the connection goes back
    # usable (or is replaced), never lent broken.
    async def main():
        async with make(backend, min_size=1) as pool:
            for attempt in range(REPEAT):
                with pytest.raises(asyncio.TimeoutError):
                    async with pool.connection(timeout=30) as cnxn:
                        await asyncio.wait_for(cnxn.cursor().execute(backend.sleep(30)), 0.5)
                async with pool.connection(timeout=30) as again:
                    assert not again.broken and await works(again), f"attempt {attempt}"

    run(main)


def test_many_tasks_on_a_small_pool(db, backend):
    # 60 tasks, a pool of 3: a connection is lent to one task at a time, and each task reads
    # its own rows.
    lent: dict[int, int] = {}

    async def task(pool, k: int):
        for r in range(3):
            async with pool.connection(timeout=60) as cnxn:
                assert id(cnxn) not in lent, f"task {k} got the connection task {lent.get(id(cnxn))} uses"
                lent[id(cnxn)] = k
                try:
                    cur = cnxn.cursor()
                    await cur.execute(f"SELECT i * {k} FROM ({backend.series(50)}) q ORDER BY i")
                    rows = [row[0] for row in await cur.fetchall()]
                    assert rows == [i * k for i in range(1, 51)], f"task {k}, round {r}"
                    await asyncio.sleep(0)
                finally:
                    del lent[id(cnxn)]

    async def main():
        async with make(backend, min_size=1, max_size=3, timeout=60) as pool:
            await asyncio.gather(*(task(pool, k) for k in range(60)))
            stats = pool.get_stats()
            assert stats["requests_num"] == 180
            assert stats["pool_size"] <= 3

    run(main)


def test_check_drain_and_resize(db, backend):
    async def main():
        async with make(backend, min_size=2) as pool:
            await pool.wait(timeout=30)
            held = [await pool.getconn() for _ in range(2)]
            for c in held:
                await pool.putconn(c)
            await pool.check()
            assert pool.get_stats()["pool_available"] == 2
            pool.drain()
            await wait_for_condition(lambda: all(c.closed for c in held), 10, "drained connections closed")
            fresh = [await pool.getconn(timeout=30) for _ in range(2)]
            assert not {id(c) for c in fresh} & {id(c) for c in held}
            assert all([await works(c) for c in fresh])
            for c in fresh:
                await pool.putconn(c)
            pool.resize(3, 4)
            assert (pool.min_size, pool.max_size) == (3, 4)
            await wait_for_condition(lambda: pool.get_stats()["pool_available"] >= 3, 30, "grown to 3")
            more = [await pool.getconn(timeout=30) for _ in range(4)]
            with pytest.raises(PoolTimeout):
                await pool.getconn(timeout=0.3)
            for c in more:
                await pool.putconn(c)

    run(main)


@pytest.mark.timeout(300)
def test_server_restart_pool_times_out_then_recovers_by_itself(db, backend):
    if backend.server_script is None:
        pytest.skip(f"{backend.name} has no server to restart")
    server = backend.server_control()
    if server is None:
        pytest.skip(f"{backend.server_script} does not run this {backend.name} server")
    from pool.support import check_for

    sync_check = check_for(backend)
    check = None if sync_check is None else AsyncConnectionPool.check_connection
    n, timeout = 2, 2.0

    async def all_work(pool) -> None:
        held = [await pool.getconn(timeout=90) for _ in range(n)]
        try:
            assert all([await works(c) for c in held])
        finally:
            for c in held:
                await pool.putconn(c)

    async def main():
        # Every checkout validated: the server stops right after use, within the default window.
        async with make(backend, min_size=n, timeout=timeout, check=check, check_idle_after=0.0) as pool:
            await pool.wait(timeout=30)
            for attempt in range(REPEAT):
                await asyncio.to_thread(server.halt)
                try:
                    started = time.monotonic()
                    with pytest.raises(PoolTimeout):
                        await pool.getconn()
                    elapsed = time.monotonic() - started
                    assert elapsed < timeout + TIMEOUT_SLACK_S, f"attempt {attempt}: {elapsed:.1f} s"
                finally:
                    await asyncio.to_thread(server.resume)
                await all_work(pool)

    try:
        run(main, timeout=280)
    finally:
        server.resume()


def test_cancelled_while_checking_takes_no_connection(db, backend):
    # The task is cancelled while the pool runs its (slow) check on the connection for it:
    # the connection is not lost (it goes back, or is replaced).
    checking = asyncio.Event()

    async def check(cnxn):
        checking.set()
        await asyncio.sleep(0.5)

    async def main():
        async with make(backend, min_size=1, check=check) as pool:
            await pool.wait(timeout=30)
            for attempt in range(REPEAT):
                checking.clear()
                task = asyncio.create_task(pool.getconn(timeout=30))
                await asyncio.wait_for(checking.wait(), 10)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                await wait_for_condition(
                    lambda: pool.get_stats()["pool_available"] == 1, 10, f"attempt {attempt}: a connection is back"
                )
                assert pool.get_stats()["pool_size"] == 1, f"attempt {attempt}"
            async with pool.connection(timeout=10) as cnxn:
                assert await works(cnxn)

    run(main)
