"""``ConnectionPool``: the pool for threads (the rules are ``PoolCore``'s)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

from ..connection import Connection
from .core import PoolCore
from .errors import PoolTimeout, checkout_timeout, is_lost
from .slot import Slot
from .steps import CommitFailure, probe, run_blocking
from .waiter import ThreadWaiter

__all__ = ["ConnectionPool", "connect_with"]

_names = itertools.count(1)


def connect_with(
    conninfo: str, kwargs: Mapping[str, Any] | None, connect: Callable[..., Any] | None
) -> Callable[[], Any]:
    """The pool's way of opening a connection: ``connect(conninfo, **kwargs)``."""
    if connect is None:
        from .. import connect as fastodbc_connect

        connect = fastodbc_connect
    args = dict(kwargs or {})
    return lambda: connect(conninfo, **args)


class _Lent:
    """``ConnectionPool.connection()``'s context manager (a class: a checkout is cheaper
    without contextlib's generator)."""

    __slots__ = ("_conn", "_pool", "_timeout")

    def __init__(self, pool: ConnectionPool, timeout: float | None) -> None:
        self._pool = pool
        self._timeout = timeout
        self._conn: Connection | None = None

    def __enter__(self) -> Connection:
        self._conn = self._pool.getconn(self._timeout)
        return self._conn

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        pool = self._pool
        if exc is not None:
            if is_lost(exc):
                pool._core.slot_of(conn).lost = True
            pool._put(conn, None)
            return
        commit = CommitFailure()
        pool._put(conn, commit)
        if commit.error is not None:
            raise commit.error


class _ThreadFront:
    loop = None

    def wrap(self, raw: Connection) -> Connection:
        return raw

    def close(self, slot: Slot) -> None:
        slot.raw.close()

    def driver(self, slot: Slot) -> None:
        return None


class ConnectionPool:
    """A pool of ``fastodbc`` connections for threads, with psycopg_pool's parameters.

    ``with pool.connection() as cnxn:`` lends a connection for the block and takes it back
    (rolled back, its cursors closed, its settings restored); ``getconn`` / ``putconn`` do the
    same in two calls. Connections are opened, checked and closed by the pool's background
    threads; ``getconn`` waits at most ``timeout`` seconds, then raises ``PoolTimeout``. A
    connection idle longer than ``check_idle_after`` seconds (0.5; None: never) is validated
    before it is handed out, and a dead one replaced unseen. See docs/pool-and-async.md.
    """

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
        check: Callable[[Connection], Any] | None = None,
        configure: Callable[[Connection], Any] | None = None,
        reset: Callable[[Connection], Any] | None = None,
        kwargs: Mapping[str, Any] | None = None,
        name: str | None = None,
        open: bool = True,
        reconnect_failed: Callable[[ConnectionPool], None] | None = None,
        num_workers: int = 2,
        connect: Callable[..., Connection] | None = None,
    ) -> None:
        self.conninfo = conninfo
        self.kwargs = dict(kwargs or {})
        self._core = PoolCore(
            _ThreadFront(),
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
            name=name or f"pool-{next(_names)}",
            num_workers=num_workers,
        )
        if open:
            self.open()

    # -- what psycopg_pool exposes as attributes
    @property
    def name(self) -> str:
        return self._core.name

    @property
    def min_size(self) -> int:
        return self._core.min_size

    @property
    def max_size(self) -> int:
        return self._core.max_size

    @property
    def timeout(self) -> float:
        return self._core.timeout

    @property
    def closed(self) -> bool:
        """True before ``open`` and after ``close``."""
        return self._core.closed

    @staticmethod
    def check_connection(conn: Connection) -> None:
        """A ``check`` callback: one round trip (``SELECT 1``, or the database's form of it)."""
        probe(conn)

    def open(self, wait: bool = False, timeout: float = 30.0) -> None:
        """Starts connecting ``min_size`` connections in the background; with ``wait``, until
        they are ready (``PoolTimeout`` after ``timeout`` seconds)."""
        self._core.open()
        if wait:
            self.wait(timeout)

    def wait(self, timeout: float = 30.0) -> None:
        """Waits until ``min_size`` connections are ready; else closes the pool and raises
        ``PoolTimeout``."""
        self._core.wait(timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Closes the idle connections and stops the background threads (waiting up to
        ``timeout`` seconds for them); connections still out are closed when they come back."""
        self._core.close(timeout)

    def getconn(self, timeout: float | None = None) -> Connection:
        """A connection for the caller alone until ``putconn``; ``PoolTimeout`` if none is
        ready within ``timeout`` seconds (the pool's ``timeout`` by default)."""
        core = self._core
        wait = core.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        failure: BaseException | None = None  # the last check that failed
        while True:
            got = core.acquire(ThreadWaiter)
            if isinstance(got, ThreadWaiter):
                slot = None
                try:
                    slot = got.wait(deadline, wait)
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
                usable = run_blocking(core.checkout(slot, deadline))
            except BaseException:  # KeyboardInterrupt in a check: the slot is not the caller's
                core.discard(slot, lost=False)
                raise
            if usable:
                return slot.conn
            failure = slot.failure or failure
            core.discard(slot, lost=True)
            if time.monotonic() >= deadline:
                raise checkout_timeout(PoolTimeout(f"couldn't get a working connection after {wait:.2f} sec"), failure)

    def putconn(self, conn: Connection) -> None:
        """Takes back a connection from ``getconn``: cursors closed, transaction rolled back,
        settings restored, ``reset`` called; a lost or broken one is replaced instead."""
        self._put(conn, None)

    def _put(self, conn: Connection, commit: CommitFailure | None) -> None:
        core = self._core
        slot = core.slot_of(conn)
        try:
            ok = run_blocking(core.returning(slot, commit))
        except BaseException:
            core.discard(slot, lost=False)
            raise
        core.give_back(slot, ok)

    def connection(self, timeout: float | None = None) -> _Lent:
        """``with pool.connection() as cnxn:``: a connection for the block, which is a
        transaction (as psycopg_pool's): committed when the block ends normally (a failed
        commit is raised once the connection is back), rolled back when it raises."""
        return _Lent(self, timeout)

    def check(self) -> None:
        """A round trip on every idle connection (``check``, else ``check_connection``); the
        ones that fail are replaced."""
        self._core.check_idle()

    def drain(self) -> None:
        """Replaces every connection: idle ones now, the ones out when they come back."""
        self._core.drain()

    def resize(self, min_size: int, max_size: int | None = None) -> None:
        """New bounds: connections are added now, idle ones beyond ``max_size`` closed."""
        self._core.resize(min_size, max_size)

    def get_stats(self) -> dict[str, int]:
        """psycopg_pool's measures: ``pool_size``, ``pool_available``, ``requests_waiting``...
        and the counters since the last ``pop_stats``."""
        return self._core.stats(reset=False)

    def pop_stats(self) -> dict[str, int]:
        """``get_stats``, then the counters start again from zero."""
        return self._core.stats(reset=True)

    def __enter__(self) -> ConnectionPool:
        self.open()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {'closed' if self.closed else 'open'}>"
