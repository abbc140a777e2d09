"""``AsyncConnectionPool``: the pool for asyncio. The rules are ``PoolCore``'s, shared with the
thread pool; here a request waits on an asyncio future, and what the pool does to a
connection (``fastodbc.pool.steps``) runs on the connection's own thread."""

from __future__ import annotations

import asyncio
import inspect
import itertools
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from ..connection import Connection
from ..pool.core import PoolCore
from ..pool.errors import PoolTimeout, checkout_timeout, is_lost
from ..pool.slot import Slot
from ..pool.steps import CommitFailure, DriverCall, Ended, Steps, UserCall, advance, probe
from ..pool.threads import connect_with
from ..pool.waiter import FutureWaiter
from .connection import AsyncConnection, describe

__all__ = ["AsyncConnectionPool"]

_names = itertools.count(1)


async def run_async(steps: Steps, conn: AsyncConnection) -> bool:
    """Runs the pool's ``steps`` for ``conn``: driver calls on the connection's thread, a run
    of them in one hop (a return is one or two); status reads (``inline``) and callbacks here on the
    loop, a callback awaited if it is a coroutine function."""
    result: Any = None
    error: BaseException | None = None
    while not isinstance(call := advance(steps, result, error), Ended):
        result, error = None, None
        if isinstance(call, DriverCall) and not call.inline:
            call = await conn._worker.run(_drive_from, steps, call)
            if isinstance(call, Ended):
                break
        try:
            if isinstance(call, DriverCall):
                result = call.fn(*call.args)
            else:
                result = call.fn(call.arg)
                if inspect.isawaitable(result):
                    result = await result
        except Exception as e:  # handed to the step, which decides
            error = e
    return call.value


def _drive_from(steps: Steps, call: DriverCall) -> UserCall | Ended:
    """On the connection's thread: ``call``, then the steps' next driver calls, up to a
    callback (returned for the loop to make) or the end."""
    while True:
        result: Any = None
        error: BaseException | None = None
        try:
            result = call.fn(*call.args)
        except Exception as e:
            error = e
        step = advance(steps, result, error)
        if not isinstance(step, DriverCall):
            return step
        call = step


class _AsyncFront:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None

    def wrap(self, raw: Connection) -> AsyncConnection:
        describe(raw)  # on the pool's background thread, not the loop
        return AsyncConnection(raw)

    def close(self, slot: Slot) -> None:
        slot.conn._close_blocking()

    def driver(self, slot: Slot) -> Callable[..., Any]:
        return slot.conn._call_blocking


class AsyncConnectionPool:
    """A pool of ``AsyncConnection`` objects with ``ConnectionPool``'s parameters (a connection
    idle longer than ``check_idle_after`` validated at checkout); ``check``, ``configure`` and
    ``reset`` may be coroutine functions. Open it with ``await pool.open()``
    or ``async with AsyncConnectionPool(...) as pool:``. See docs/pool-and-async.md."""

    def __init__(
        self,
        conninfo: str = "",
        *,
        min_size: int = 4,
        max_size: int | None = None,
        timeout: float = 30.0,
        max_waiting: int = 0,
        max_lifetime: float = 3600.0,
        max_idle: float = 600.0,
        check_idle_after: float | None = 0.5,
        reconnect_timeout: float = 300.0,
        check: Callable[[AsyncConnection], Any] | None = None,
        configure: Callable[[AsyncConnection], Any] | None = None,
        reset: Callable[[AsyncConnection], Any] | None = None,
        kwargs: Mapping[str, Any] | None = None,
        name: str | None = None,
        reconnect_failed: Callable[[AsyncConnectionPool], None] | None = None,
        num_workers: int = 2,
        connect: Callable[..., Connection] | None = None,
    ) -> None:
        self.conninfo = conninfo
        self.kwargs = dict(kwargs or {})
        self._front = _AsyncFront()
        self._core = PoolCore(
            self._front,
            self,
            connect=connect_with(conninfo, self.kwargs, connect),
            min_size=min_size,
            max_size=max_size,
            timeout=timeout,
            max_waiting=max_waiting,
            max_lifetime=max_lifetime,
            max_idle=max_idle,
            check_idle_after=check_idle_after,
            reconnect_timeout=reconnect_timeout,
            reconnect_failed=reconnect_failed,
            check=check,
            configure=configure,
            reset=reset,
            name=name or f"async-pool-{next(_names)}",
            num_workers=num_workers,
        )

    name = property(lambda self: self._core.name)
    min_size = property(lambda self: self._core.min_size)
    max_size = property(lambda self: self._core.max_size)
    timeout = property(lambda self: self._core.timeout)
    closed = property(lambda self: self._core.closed, doc="True before ``open`` and after ``close``.")

    @staticmethod
    async def check_connection(conn: AsyncConnection) -> None:
        """A ``check`` callback: one round trip (``SELECT 1``, or the database's form of it)."""
        await conn.run_sync(probe, conn.sync_connection)

    async def open(self, wait: bool = False, timeout: float = 30.0) -> None:
        """Starts connecting in the background (the pool belongs to the running event loop);
        with ``wait``, until ``min_size`` connections are ready."""
        self._front.loop = asyncio.get_running_loop()
        self._core.open()
        if wait:
            await self.wait(timeout)

    async def wait(self, timeout: float = 30.0) -> None:
        """Until ``min_size`` connections are ready; else closes the pool, ``PoolTimeout``."""
        await asyncio.to_thread(self._core.wait, timeout)

    async def close(self, timeout: float = 5.0) -> None:
        await asyncio.to_thread(self._core.close, timeout)

    async def getconn(self, timeout: float | None = None) -> AsyncConnection:
        """A connection for the caller alone until ``putconn``; ``PoolTimeout`` after
        ``timeout`` seconds. A task cancelled meanwhile takes none."""
        core = self._core
        loop = asyncio.get_running_loop()
        wait = core.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        failure: BaseException | None = None  # the last check that failed
        while True:
            got = core.acquire(partial(FutureWaiter, loop))
            if isinstance(got, FutureWaiter):
                slot = None
                try:
                    slot = await got.wait(deadline, wait)
                except PoolTimeout as e:
                    core.abandoned(got)
                    if failure is None:
                        raise
                    raise checkout_timeout(e, failure) from failure
                except BaseException:
                    core.abandoned(got)
                    raise
                finally:
                    core.waited(got, slot)
            else:
                slot = got
            try:
                ok = await run_async(core.checkout(slot, deadline), slot.conn)
            except BaseException:
                core.discard(slot, lost=False)
                raise
            if ok:
                return slot.conn
            failure = slot.failure or failure
            core.discard(slot, lost=True)
            if time.monotonic() >= deadline:
                raise checkout_timeout(PoolTimeout(f"couldn't get a working connection after {wait:.2f} sec"), failure)

    async def putconn(self, conn: AsyncConnection) -> None:
        """Takes back a connection from ``getconn`` (reset on its own thread)."""
        await self._put(conn, None)

    async def _put(self, conn: AsyncConnection, commit: CommitFailure | None) -> None:
        core = self._core
        slot = core.slot_of(conn)
        try:
            ok = await run_async(core.returning(slot, commit), conn)
        except BaseException:
            core.discard(slot, lost=False)
            raise
        core.give_back(slot, ok)

    @asynccontextmanager
    async def connection(self, timeout: float | None = None) -> AsyncIterator[AsyncConnection]:
        """``async with pool.connection() as cnxn:``: a connection for the block, which is a
        transaction: committed when the block ends normally (with the return, in one hop; a
        failed commit is raised once the connection is back), rolled back when it raises."""
        conn = await self.getconn(timeout)
        try:
            yield conn
        except BaseException as e:
            if is_lost(e) or conn.broken:
                self._core.slot_of(conn).lost = True
            await self._put(conn, None)
            raise
        commit = CommitFailure()
        await self._put(conn, commit)
        if commit.error is not None:
            raise commit.error

    async def check(self) -> None:
        """A round trip on every idle connection; the ones that fail are replaced."""
        await asyncio.to_thread(self._core.check_idle)

    def drain(self) -> None:
        """Replaces every connection: idle ones now, the ones out when they come back."""
        self._core.drain()

    def resize(self, min_size: int, max_size: int | None = None) -> None:
        self._core.resize(min_size, max_size)

    def get_stats(self) -> dict[str, int]:
        return self._core.stats(reset=False)

    def pop_stats(self) -> dict[str, int]:
        return self._core.stats(reset=True)

    async def __aenter__(self) -> AsyncConnectionPool:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {'closed' if self.closed else 'open'}>"
