"""Cancellation (docs/pool-and-async.md, "asyncio"): a task cancelled (``task.cancel()``,
``asyncio.wait_for``) while it awaits a statement or a fetch ends promptly, the statement stops
on the server, and the connection runs the next statement; two tasks on one connection are
serialised; a cancelled connect leaves no session and no thread behind. Each scenario repeats."""

from __future__ import annotations

import asyncio
import secrets
import socket
import threading
import time
import uuid

import pytest

import fastodbc.aio
from profiles import backends_where, with_attributes, with_credentials

from .support import CANCEL_PROMPT_S, Ticker, opened, run

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.aio is fastodbc's own")

REPEAT = 3


def sleeping(backend, marker: str, seconds: float = 30) -> str:
    """A statement that runs ``seconds`` on the server, its text holding ``marker``."""
    return f"SELECT * FROM ({backend.sleep(seconds)}) AS {marker}"


async def running(backend, admin, marker: str) -> int:
    """How many statements holding ``marker`` the server runs now (read on a thread: the admin
    connection is a sync one)."""
    return await asyncio.to_thread(backend.running_statements, admin, marker)


async def assert_usable(cnxn, cur) -> None:
    assert not cnxn.broken
    await cur.execute("SELECT 1")
    assert await cur.fetchval() == 1
    other = cnxn.cursor()
    await other.execute("SELECT 2")
    assert await other.fetchval() == 2


@pytest.mark.parametrize("how", ["wait_for", "task_cancel"])
def test_cancelled_statement_stops_and_the_connection_stays_usable(db, backend, connect, how):
    admin = connect(autocommit=True)
    sees_statements = backend.running_statements_sql is not None

    async def main():
        async with opened(backend.connstr, autocommit=True) as cnxn:
            cur = cnxn.cursor()
            for attempt in range(REPEAT):
                marker = f"aio_cancel_{uuid.uuid4().hex[:10]}"
                sql = sleeping(backend, marker)
                started = time.perf_counter()
                async with Ticker() as ticker:
                    if how == "wait_for":
                        with pytest.raises(asyncio.TimeoutError):
                            await asyncio.wait_for(cur.execute(sql), 0.5)
                    else:
                        task = asyncio.create_task(cur.execute(sql))
                        if sees_statements:
                            await wait_for_condition_async(lambda marker=marker: running(backend, admin, marker), 10)
                        else:
                            await asyncio.sleep(0.5)
                        task.cancel()
                        with pytest.raises(asyncio.CancelledError):
                            await task
                elapsed = time.perf_counter() - started
                limit = (0.5 if how == "wait_for" else 10) + CANCEL_PROMPT_S
                assert elapsed < limit, f"attempt {attempt}: {elapsed:.1f} s"
                ticker.assert_never_blocked(f"attempt {attempt}: cancelling")
                if sees_statements:
                    # The server stopped it (it would sleep on, its client gone).
                    for _ in range(300):
                        if not await running(backend, admin, marker):
                            break
                        await asyncio.sleep(0.01)
                    else:
                        pytest.fail(f"attempt {attempt}: the statement still runs on the server")
                await assert_usable(cnxn, cur)

    run(main)


async def wait_for_condition_async(condition, timeout: float):
    deadline = time.monotonic() + timeout
    while not await condition():
        assert time.monotonic() < deadline, f"not within {timeout} s"
        await asyncio.sleep(0.01)


def test_cancelled_statement_in_a_transaction_leaves_the_connection_usable(db, backend, connect, table):
    # Not autocommit: after the cancel, the transaction can be rolled back and the next one
    # commits.
    t = table("id INTEGER")

    async def main():
        async with opened(backend.connstr) as cnxn:
            cur = cnxn.cursor()
            for attempt in range(REPEAT):
                await cur.execute(f"INSERT INTO {t} VALUES (?)", -attempt - 1)
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(cur.execute(sleeping(backend, "aio_txn")), 0.5)
                assert not cnxn.broken
                await cnxn.rollback()
                await cur.execute(f"INSERT INTO {t} VALUES (?)", attempt)
                await cnxn.commit()

    run(main)
    rows = connect(autocommit=True).cursor().execute(f"SELECT id FROM {t} ORDER BY id").fetchall()
    assert [r[0] for r in rows] == list(range(REPEAT))


def test_task_cancelled_during_async_iteration(db, backend):
    n = 300_000

    async def main():
        async with opened(backend.connstr, autocommit=True) as cnxn:
            for attempt in range(REPEAT):
                cnxn.fetch_buffer_bytes = 32 * 1024  # many blocks
                cur = cnxn.cursor()
                await cur.execute(f"SELECT i FROM ({backend.series(n)}) q ORDER BY i")
                seen: list[int] = []

                task = asyncio.create_task(read_then_cancel(cur, seen, 1000 + 5000 * attempt))
                with pytest.raises(asyncio.CancelledError):
                    await task
                assert seen == list(range(1, len(seen) + 1)), f"attempt {attempt}"
                assert len(seen) < n, f"attempt {attempt}: the cancel came after the last row"
                await assert_usable(cnxn, cnxn.cursor())

    run(main)


async def read_then_cancel(cur, seen: list[int], rows: int) -> None:
    """Iterates ``cur`` into ``seen``; after ``rows`` rows the task cancels itself (its next
    await, a fetch, is what the cancel meets)."""
    async for row in cur:
        seen.append(row[0])
        if len(seen) == rows:
            asyncio.current_task().cancel()


@pytest.mark.parametrize("read", ["fetchall", "fetch_arrow_table", "record_batches"])
def test_fetch_cancelled_by_wait_for(db, backend, read):
    # A long result, and a deadline a quarter of the way through its fetch (measured by a
    # first fetch not cancelled). An attempt whose fetch ended first says nothing; two of six
    # must be conclusive.
    n = 1_000_000
    label = backend.concat("'row-'", "CAST(i AS VARCHAR(12))")
    sql = f"SELECT i, {label} AS label FROM ({backend.series(n)}) q"

    async def fetch(cur):
        if read == "fetchall":
            return len(await cur.fetchall())
        if read == "fetch_arrow_table":
            return (await cur.fetch_arrow_table()).num_rows
        count = 0
        async for batch in cur.fetch_record_batch(batch_rows=10_000):
            count += batch.num_rows
        return count

    async def main():
        conclusive = 0
        async with opened(backend.connstr, autocommit=True) as cnxn:
            cur = cnxn.cursor()
            await cur.execute(sql)
            started = time.perf_counter()
            assert await fetch(cur) == n
            deadline = max(0.005, (time.perf_counter() - started) / 4)
            for attempt in range(6):
                cur = cnxn.cursor()
                await cur.execute(sql)
                started = time.perf_counter()
                try:
                    got = await asyncio.wait_for(fetch(cur), deadline)
                except asyncio.TimeoutError:
                    elapsed = time.perf_counter() - started
                    assert elapsed < deadline + CANCEL_PROMPT_S, f"attempt {attempt}: {elapsed:.1f} s"
                    conclusive += 1
                else:
                    assert got == n
                await assert_usable(cnxn, cnxn.cursor())
                if conclusive == 2:
                    return
        pytest.fail(f"only {conclusive} of 6 fetches were still running at the deadline ({deadline:.3f} s)")

    run(main)


def test_two_tasks_on_one_connection_are_serialised(db, backend):
    n = 2000

    async def work(cnxn, k: int) -> list:
        cur = cnxn.cursor()
        out = []
        for _ in range(4):
            await cur.execute(f"SELECT i, i * {k} FROM ({backend.series(n)}) q ORDER BY i")
            out.append([tuple(r) for r in await cur.fetchall()])
            await cur.execute(f"SELECT {k}")
            out.append(await cur.fetchval())
        return out

    async def main():
        async with opened(backend.connstr, autocommit=True) as cnxn:
            results = await asyncio.gather(*(work(cnxn, k) for k in range(2, 10)))
            for k, out in zip(range(2, 10), results, strict=True):
                expected = [(i, i * k) for i in range(1, n + 1)]
                assert out == [expected, k] * 4, f"task {k}"
            # One cursor shared by two tasks: each fetch is one call, in turn; between them,
            # every row once.
            cur = cnxn.cursor()
            await cur.execute(f"SELECT i FROM ({backend.series(n)}) q ORDER BY i")
            a, b = await asyncio.gather(cur.fetchmany(n // 2 + 7), cur.fetchall())
            assert sorted(r[0] for r in a + b) == list(range(1, n + 1))

    run(main)


def test_cancelled_connect_leaves_no_thread(db, backend):
    # Cancelled at every moment of connecting: before, during, after the driver's connect.
    async def main():
        for delay in [0, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1] * 2:
            try:
                cnxn = await asyncio.wait_for(fastodbc.aio.connect(backend.connstr), delay)
            except asyncio.TimeoutError:
                continue
            await cnxn.close()

    before = threading.active_count()
    run(main)
    deadline = time.monotonic() + 15
    while threading.active_count() > before:
        left = [t.name for t in threading.enumerate()]
        assert time.monotonic() < deadline, f"threads left by cancelled connects: {left}"
        time.sleep(0.1)


@pytest.mark.parametrize("backend", backends_where(lambda p: p.own_sessions_sql and p.create_login_sql), indirect=True)
def test_cancelled_connect_leaves_no_session(db, backend):
    user = f"fdbaio{secrets.token_hex(3)}"
    password = "pw" + secrets.token_hex(6)

    def admin_run(sql: str) -> None:
        c = db.connect(backend.connstr, autocommit=True)
        try:
            c.cursor().execute(sql)
        finally:
            c.close()

    admin_run(backend.drop_login_sql.format(user=user))
    admin_run(backend.create_login_sql.format(user=user, password=password, database=backend.database))
    login = with_credentials(backend.connstr, user, password)
    try:

        async def main():
            made = 0
            for delay in [0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1] * 2:
                try:
                    cnxn = await asyncio.wait_for(fastodbc.aio.connect(login), delay)
                except asyncio.TimeoutError:
                    continue
                made += 1
                await cnxn.close()
            return made

        run(main)

        def others() -> int:
            c = db.connect(login, autocommit=True)
            try:
                return int(c.cursor().execute(backend.own_sessions_sql).fetchval())
            finally:
                c.close()

        deadline = time.monotonic() + 15
        while (left := others()) != 0:
            assert time.monotonic() < deadline, f"{left} sessions of cancelled connects are still open"
            time.sleep(0.1)
    finally:
        admin_run(backend.drop_login_sql.format(user=user))


@pytest.mark.parametrize("backend", backends_where(lambda p: p.is_server), indirect=True)
def test_connect_cancelled_while_the_server_does_not_answer(db, backend):
    # A listener that accepts and never answers: the driver's connect blocks. The task's
    # cancel returns at once, the loop runs on, and once the driver gives up (the listener
    # goes away) the connection's thread ends.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    silent = with_attributes(backend.connstr, Server="127.0.0.1", Port=str(port))

    before = threading.active_count()
    try:

        async def main():
            for attempt in range(REPEAT):
                async with Ticker() as ticker:
                    started = time.perf_counter()
                    with pytest.raises(asyncio.TimeoutError):
                        await asyncio.wait_for(fastodbc.aio.connect(silent), 0.3)
                    elapsed = time.perf_counter() - started
                assert elapsed < 0.3 + CANCEL_PROMPT_S, f"attempt {attempt}: {elapsed:.1f} s"
                ticker.assert_never_blocked(f"attempt {attempt}: a connect cancelled")

        run(main)
        assert len(accepted) >= 1, "the driver never reached the listener"
    finally:
        stop.set()
        acceptor.join(5)
        for s in accepted:
            s.close()
        listener.close()
    deadline = time.monotonic() + 30
    while threading.active_count() > before:
        left = [t.name for t in threading.enumerate()]
        assert time.monotonic() < deadline, f"threads left by cancelled connects: {left}"
        time.sleep(0.1)


def test_call_not_stopped_within_cancel_timeout_breaks_the_connection(db, backend, connect):
    # A driver call that SQLCancel does not reach (a statement run through run_sync, as code
    # written for the sync connection does) outlives cancel_timeout: the task still ends
    # promptly, the connection is closed and marked broken, later calls raise
    # OperationalError, and the statement stops on the server.
    admin = connect(autocommit=True)
    sees_statements = backend.running_statements_sql is not None

    async def main():
        for attempt in range(REPEAT):
            cnxn = await fastodbc.aio.connect(backend.connstr, autocommit=True)
            try:
                cnxn.cancel_timeout = 0.5
                marker = f"aio_broken_{uuid.uuid4().hex[:10]}"
                sql = sleeping(backend, marker, 20)
                sync = cnxn.sync_connection
                started = time.perf_counter()
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(cnxn.run_sync(read_all, sync, sql), 0.3)
                elapsed = time.perf_counter() - started
                assert elapsed < 0.3 + 0.5 + CANCEL_PROMPT_S, f"attempt {attempt}: {elapsed:.1f} s"
                assert cnxn.broken, f"attempt {attempt}"
                with pytest.raises(db.OperationalError):
                    await cnxn.cursor().execute("SELECT 1")
                deadline = time.monotonic() + 15
                while not cnxn.closed:
                    assert time.monotonic() < deadline, f"attempt {attempt}: the broken connection is not closed"
                    await asyncio.sleep(0.05)
                if sees_statements:
                    for _ in range(1000):
                        if not await running(backend, admin, marker):
                            break
                        await asyncio.sleep(0.01)
                    else:
                        pytest.fail(f"attempt {attempt}: the statement still runs on the server")
            finally:
                await cnxn.close()

    run(main)


def read_all(cnxn, sql: str) -> list:
    return cnxn.cursor().execute(sql).fetchall()


def test_cancelling_one_task_lets_the_next_one_run(db, backend):
    # Task A runs a long statement; task B waits for the connection behind it. A is cancelled:
    # its statement stops and B's runs at once, with its own result.
    async def main():
        async with opened(backend.connstr, autocommit=True) as cnxn:
            for attempt in range(REPEAT):
                a = asyncio.create_task(cnxn.cursor().execute(sleeping(backend, "aio_first")))
                await asyncio.sleep(0.3)

                b = asyncio.create_task(select_value(cnxn, attempt + 10))
                await asyncio.sleep(0.2)
                assert not b.done(), f"attempt {attempt}: B ran beside A"
                started = time.perf_counter()
                a.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await a
                assert await asyncio.wait_for(b, CANCEL_PROMPT_S) == attempt + 10
                assert time.perf_counter() - started < CANCEL_PROMPT_S
                assert not cnxn.broken

    run(main)


async def select_value(cnxn, value: int):
    cur = cnxn.cursor()
    await cur.execute(f"SELECT {int(value)}")
    return await cur.fetchval()
