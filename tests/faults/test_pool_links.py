"""Network faults under the connection pool and under asyncio, through the fault proxy: the
links of a pool's idle connections cut or dead when it lends one, a link lost under a lent
connection, a link lost or dead under an asyncio task. (test_links.py: the same faults on a
plain connection.)"""

from __future__ import annotations

import asyncio
import time

import pytest

from fastodbc import aio
from fastodbc.pool import ConnectionPool, PoolTimeout

from .support import AT_ONCE_S, GRACE_S, TIMEOUT_S, assert_lost, bounded, sqlstate

pytestmark = [
    pytest.mark.fastodbc_only(reason="fastodbc.pool and fastodbc.aio are fastodbc's own"),
    pytest.mark.timeout(90),
]

POOL_SIZE = 3
IDLE_S = 0.6  # past the idle time after which a pool validates a connection it lends (0.5 s)
ROWS = 200_000


@pytest.fixture
def through(backend, fault_proxy):
    return backend.at(fault_proxy.host, fault_proxy.port)


@pytest.fixture
def pool(through):
    p = ConnectionPool(through, min_size=POOL_SIZE, max_size=POOL_SIZE, timeout=10, name="faults")
    p.wait(30)
    yield p
    p.close(timeout=5)


def lend_all(pool) -> None:
    """Every connection of the pool out at once, each used, then back: all idle and open."""
    held = [pool.getconn(timeout=10) for _ in range(POOL_SIZE)]
    try:
        for c in held:
            assert c.cursor().execute("SELECT 1").fetchval() == 1
    finally:
        for c in held:
            pool.putconn(c)


def test_pool_replaces_connections_whose_links_were_cut_while_idle(db, pool, fault_proxy):
    for attempt in range(2):
        lend_all(pool)
        assert fault_proxy.cut() == POOL_SIZE, f"attempt {attempt}"
        time.sleep(IDLE_S)
        # Requests that start after the loss never see it.
        failures = []
        for _ in range(2 * POOL_SIZE):
            try:
                with pool.connection(timeout=10) as c:
                    assert c.cursor().execute("SELECT 1").fetchval() == 1
            except db.Error as e:
                failures.append(e)
        assert not failures, f"attempt {attempt}: {failures}"


def test_pool_drops_a_connection_whose_link_was_lost_while_lent(db, backend, pool, fault_proxy):
    for attempt in range(2):
        with pytest.raises(db.Error) as exc:
            with pool.connection(timeout=10) as lent:
                fault_proxy.cut()
                lent.cursor().execute("SELECT 1").fetchall()
        assert_lost(db, backend, exc.value)
        # Back in the pool it is closed, never lent again.
        deadline = time.monotonic() + 10
        while not lent.closed:
            assert time.monotonic() < deadline, f"attempt {attempt}: the lost connection is still open"
            time.sleep(0.05)
        with pool.connection(timeout=10) as fresh:
            assert fresh is not lent
            assert fresh.cursor().execute("SELECT 1").fetchval() == 1


def test_pool_checkout_on_dead_links_is_bounded_by_its_timeout(db, pool, fault_proxy):
    lend_all(pool)
    fault_proxy.stall()  # idle links dead; new ones too (accepted, never answered)
    time.sleep(IDLE_S)
    try:
        # Nothing can be lent that works: PoolTimeout within the pool's timeout, never a
        # connection whose first statement then waits on the dead link.
        out = bounded(lambda: pool.getconn(timeout=TIMEOUT_S), TIMEOUT_S + GRACE_S)
        assert out.returned, "getconn still waits on a dead link"
        assert isinstance(out.error, PoolTimeout), f"getconn gave {out.value!r} / {out.error!r}"
    finally:
        fault_proxy.drop()
        fault_proxy.forward()
    # Once the server is reachable again, the pool lends working connections.
    with pool.connection(timeout=30) as c:
        assert c.cursor().execute("SELECT 1").fetchval() == 1


# --------------------------------------------------------------------------- asyncio


def test_async_pool_checkout_on_dead_links_is_bounded_by_its_timeout(db, through, fault_proxy):
    from fastodbc.aio import AsyncConnectionPool

    async def main() -> tuple[float, BaseException | None, int]:
        pool = AsyncConnectionPool(through, min_size=POOL_SIZE, max_size=POOL_SIZE, timeout=10, name="faults-aio")
        await pool.open(wait=True, timeout=30)
        try:
            held = [await pool.getconn(timeout=10) for _ in range(POOL_SIZE)]
            for c in held:
                assert await (await c.execute("SELECT 1")).fetchval() == 1
            for c in held:
                await pool.putconn(c)
            fault_proxy.stall()
            await asyncio.sleep(IDLE_S)
            started = time.monotonic()
            error = None
            try:
                await pool.getconn(timeout=TIMEOUT_S)
            except BaseException as e:  # noqa: BLE001 - checked below
                error = e
            elapsed = time.monotonic() - started
            fault_proxy.drop()
            fault_proxy.forward()
            async with pool.connection(timeout=30) as c:
                value = await (await c.execute("SELECT 1")).fetchval()
            return elapsed, error, value
        finally:
            await pool.close(timeout=5)

    out = bounded(lambda: asyncio.run(main()), TIMEOUT_S + GRACE_S + 40)
    assert out.returned, "the event loop still waits on a dead link"
    if out.error is not None:
        raise out.error
    elapsed, error, value = out.value
    assert isinstance(error, PoolTimeout), f"getconn gave {error!r}"
    assert elapsed < TIMEOUT_S + GRACE_S, f"{elapsed:.1f} s"
    assert value == 1


def test_link_lost_under_an_asyncio_task(db, backend, through, fault_proxy):
    async def main() -> tuple[BaseException | None, float, BaseException | None, float]:
        conn = await aio.connect(through)
        try:
            cur = conn.cursor()
            fault_proxy.arm("down", "cut-before", after_bytes=300_000)

            async def read() -> None:
                await cur.execute(backend.series(ROWS))
                while await cur.fetchmany(5000):
                    pass

            started = time.monotonic()
            task = asyncio.create_task(read())
            error = None
            try:
                await asyncio.wait_for(task, GRACE_S)
            except db.Error as e:
                error = e
            elapsed = time.monotonic() - started
            started = time.monotonic()
            after = None
            try:
                await asyncio.wait_for(conn.execute("SELECT 1"), GRACE_S)
            except db.Error as e:
                after = e
            return error, elapsed, after, time.monotonic() - started
        finally:
            await conn.close()

    error, elapsed, after, after_s = asyncio.run(main())
    assert fault_proxy.fired()
    assert error is not None, "the task's fetch never saw the loss"
    assert_lost(db, backend, error)
    assert elapsed < GRACE_S
    assert after is not None, "a statement after the loss succeeded"
    assert_lost(db, backend, after)
    assert after_s < AT_ONCE_S


def test_task_cancelled_on_a_dead_link_returns_and_breaks_the_connection(db, backend, through, fault_proxy):
    # The driver's cancel cannot reach a dead server either: after cancel_timeout the
    # connection is closed and broken, and the task's caller is not kept waiting.
    cancel_timeout = 1.0

    async def main() -> tuple[float, bool, str]:
        conn = await aio.connect(through)
        conn.cancel_timeout = cancel_timeout
        try:
            assert await (await conn.execute("SELECT 1")).fetchval() == 1
            fault_proxy.stall()
            started = time.monotonic()
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(conn.execute("SELECT 1"), TIMEOUT_S)
            elapsed = time.monotonic() - started
            state = ""
            try:
                await asyncio.wait_for(conn.execute("SELECT 1"), AT_ONCE_S + GRACE_S)
            except db.Error as e:
                state = sqlstate(e)
            return elapsed, conn.broken, state
        finally:
            fault_proxy.drop()
            await asyncio.wait_for(conn.close(), 10)

    out = bounded(lambda: asyncio.run(main()), TIMEOUT_S + cancel_timeout + 2 * GRACE_S + 10)
    assert out.returned, "the event loop is still waiting on a dead link"
    if out.error is not None:
        raise out.error
    elapsed, broken, state = out.value
    assert elapsed < TIMEOUT_S + cancel_timeout + GRACE_S, f"{elapsed:.1f} s"
    assert broken, "the connection whose cancel never finished is not marked broken"
    assert state, "a statement on the broken connection succeeded"
