"""A connection idle longer than ``check_idle_after`` is validated at checkout (issue 29, item
4; HikariCP's rule): sessions the server ended while the pool held them (killed, a server
restart) cost no request, on the thread pool and the asyncio pool alike; a connection used
within the window is handed out unchecked; a check that fails while the server is down ends
in ``PoolTimeout`` at the timeout, naming the failure."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from fastodbc.aio import AsyncConnectionPool
from fastodbc.pool import ConnectionPool, PoolTimeout

from .support import REPEAT, TIMEOUT_SLACK_S, session_of

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.pool is fastodbc's own")

WINDOW_S = 0.5  # the default check_idle_after
REQUESTS, WORKERS = 24, 4


class ThreadFront:
    """A ``ConnectionPool``, used from threads."""

    def __init__(self, backend, **kwargs):
        self.backend = backend
        self.pool = ConnectionPool(backend.connstr, kwargs={"autocommit": True}, **kwargs)

    def sessions(self, n: int) -> set:
        """Lends n connections at once; their sessions."""
        held = [self.pool.getconn(timeout=30) for _ in range(n)]
        try:
            return {session_of(self.backend, c) for c in held}
        finally:
            for c in held:
                self.pool.putconn(c)

    def request(self, timeout: float | None = 30) -> object:
        """One request: a connection for a statement (waited for ``timeout`` seconds; None:
        the pool's); the session that served it."""
        with self.pool.connection(timeout=timeout) as cnxn:
            assert cnxn.cursor().execute("SELECT 1").fetchval() == 1
            return session_of(self.backend, cnxn)

    def checkout(self) -> None:
        """A connection lent and given back, nothing run on it."""
        self.pool.putconn(self.pool.getconn(timeout=30))

    def requests(self, n: int, workers: int) -> tuple[set, list]:
        """n requests from ``workers`` threads: the sessions that served them, the failures."""
        served, failures = set(), []

        def one(_):
            try:
                served.add(self.request())
            except Exception as e:  # noqa: BLE001 - counted
                failures.append(e)

        with ThreadPoolExecutor(workers) as ex:
            list(ex.map(one, range(n)))
        return served, failures

    def close(self) -> None:
        self.pool.close()


class AsyncFront(ThreadFront):
    """An ``AsyncConnectionPool`` on an event loop of its own thread, used from its tasks."""

    def __init__(self, backend, **kwargs):
        self.backend = backend
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.pool = self.call(self._open(kwargs))

    def call(self, coro, timeout: float = 120):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _open(self, kwargs):
        pool = AsyncConnectionPool(self.backend.connstr, kwargs={"autocommit": True}, **kwargs)
        await pool.open()
        return pool

    async def _session(self, cnxn):
        if self.backend.session_id_sql is None:
            return None
        return int(await (await cnxn.execute(self.backend.session_id_sql)).fetchval())

    def sessions(self, n: int) -> set:
        async def lend():
            held = [await self.pool.getconn(timeout=30) for _ in range(n)]
            try:
                return {await self._session(c) for c in held}
            finally:
                for c in held:
                    await self.pool.putconn(c)

        return self.call(lend())

    async def _request(self, timeout: float | None = 30):
        async with self.pool.connection(timeout=timeout) as cnxn:
            assert await (await cnxn.execute("SELECT 1")).fetchval() == 1
            return await self._session(cnxn)

    def request(self, timeout: float | None = 30) -> object:
        return self.call(self._request(timeout))

    def checkout(self) -> None:
        async def lend():
            await self.pool.putconn(await self.pool.getconn(timeout=30))

        self.call(lend())

    def requests(self, n: int, workers: int) -> tuple[set, list]:
        async def many():
            gate = asyncio.Semaphore(workers)

            async def one():
                async with gate:
                    return await self._request()

            return await asyncio.gather(*(one() for _ in range(n)), return_exceptions=True)

        outcomes = self.call(many())
        return {o for o in outcomes if not isinstance(o, BaseException)}, [
            o for o in outcomes if isinstance(o, BaseException)
        ]

    def close(self) -> None:
        try:
            self.call(self.pool.close())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()


@pytest.fixture(params=["threads", "asyncio"])
def make_front(request, backend):
    made: list[ThreadFront] = []

    def make(**kwargs) -> ThreadFront:
        kwargs.setdefault("timeout", 30.0)
        front = (ThreadFront if request.param == "threads" else AsyncFront)(backend, **kwargs)
        made.append(front)
        return front

    yield make
    for front in reversed(made):
        try:
            front.close()
        except Exception:
            pass


def activity(backend, admin, session: int):
    return admin.cursor().execute(backend.session_activity_sql.format(id=int(session))).fetchval()


@pytest.mark.timeout(300)
def test_sessions_killed_while_idle_cost_no_request(db, backend, admin, kills, make_front):
    # The default pool (no check callback): every pooled session is killed once the
    # connections have idled past the window; then requests from several threads / tasks.
    n = 3
    front = make_front(min_size=n)
    for attempt in range(REPEAT):
        killed = front.sessions(n)
        assert len(killed) == n
        time.sleep(WINDOW_S + 0.2)
        for session in killed:
            backend.kill_session(admin, session)
        served, failures = front.requests(REQUESTS, WORKERS)
        assert failures == [], f"attempt {attempt}: {len(failures)} of {REQUESTS} requests failed: {failures[:3]}"
        assert not served & killed, f"attempt {attempt}: a killed session served a request"


@pytest.mark.timeout(400)
def test_server_restart_costs_no_request(db, backend, server, make_front):
    n = 3
    front = make_front(min_size=n)
    for attempt in range(REPEAT):
        front.sessions(n)
        used = time.monotonic()
        server.halt()
        server.resume()
        # A connection used within the window is trusted (a restart quicker than the window
        # may cost the request it is lent to, as in HikariCP): the requests start once the
        # connections have idled past it.
        time.sleep(max(0.0, used + WINDOW_S + 0.1 - time.monotonic()))
        # Requests that start once the server is back all succeed: the pool's connections
        # are all dead, found so at checkout, and replaced unseen.
        served, failures = front.requests(REQUESTS, WORKERS)
        assert failures == [], f"attempt {attempt}: {len(failures)} of {REQUESTS} requests failed: {failures[:3]}"


@pytest.mark.timeout(120)
def test_connection_used_within_the_window_is_not_checked(db, backend, admin, make_front):
    # Where the server can tell: a check (a statement, a ping) is a command the session gets.
    if backend.session_activity_sql is None:
        pytest.skip(f"{backend.name} can't tell whether a session got a command")
    trusting = make_front(min_size=1, max_size=1, check_idle_after=60.0)
    (session,) = trusting.sessions(1)
    before = activity(backend, admin, session)
    for _ in range(3):
        trusting.checkout()
    assert activity(backend, admin, session) == before, "a connection used within the window was checked"
    # The same with no window: each checkout is validated, and the server sees it.
    checking = make_front(min_size=1, max_size=1, check_idle_after=0.0)
    (session,) = checking.sessions(1)
    for attempt in range(3):
        before = activity(backend, admin, session)
        checking.checkout()
        assert activity(backend, admin, session) != before, f"attempt {attempt}: not checked"


@pytest.mark.timeout(300)
def test_check_failing_while_the_server_is_down_ends_in_pool_timeout(db, backend, server, make_front):
    timeout = 3.0
    front = make_front(min_size=2, timeout=timeout)
    front.sessions(2)
    time.sleep(WINDOW_S + 0.2)
    server.halt()
    try:
        for attempt in range(REPEAT):
            started = time.monotonic()
            with pytest.raises(PoolTimeout) as exc:
                front.request(timeout=None)
            elapsed = time.monotonic() - started
            # The dead connections are replaced unseen while the deadline allows: the request
            # waits its whole timeout for a new one, then says why the last check failed.
            assert timeout - 0.1 <= elapsed < timeout + TIMEOUT_SLACK_S, f"attempt {attempt}: {elapsed:.2f} s"
            if attempt == 0:
                assert isinstance(exc.value.__cause__, db.OperationalError), repr(exc.value.__cause__)
                assert "last connection checked failed" in str(exc.value)
    finally:
        server.resume()
    served, failures = front.requests(REQUESTS, WORKERS)
    assert failures == [], f"{len(failures)} of {REQUESTS} requests failed after the restart: {failures[:3]}"


def test_check_idle_after_is_checked(db, backend):
    for bad in (-1, float("nan")):
        with pytest.raises(ValueError):
            ConnectionPool(backend.connstr, check_idle_after=bad, open=False)
        with pytest.raises(ValueError):
            AsyncConnectionPool(backend.connstr, check_idle_after=bad)
