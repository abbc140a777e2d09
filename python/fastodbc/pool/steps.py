"""What the pool does to a connection, written once as generators of calls.

A step yields a ``DriverCall`` (a call that reaches the driver: it runs on the connection's own
thread under asyncio) or a ``UserCall`` (``check`` / ``configure`` / ``reset``: a plain function,
or a coroutine function in the async pool) and gets its result back. ``run_blocking`` runs the
calls on the current thread (the sync pool, and every pool's background threads);
``fastodbc.aio`` runs them with ``await``. So the rules live here once, and each front only
says how a call is made.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable, Generator
from typing import Any

from ..connection import Connection
from ..constants import SQL_DBMS_NAME
from ..errors import OperationalError
from .errors import is_lost
from .slot import Slot

__all__ = [
    "CommitFailure",
    "DriverCall",
    "Ended",
    "advance",
    "Steps",
    "UserCall",
    "checkout_steps",
    "configure_steps",
    "probe",
    "probe_sql",
    "return_steps",
    "run_blocking",
    "validation",
]

log = logging.getLogger("fastodbc.pool")


class DriverCall:
    """``fn(*args)``, a call into the driver. ``inline``: it answers from the driver's memory
    (a status read), so the async pool makes it where it is instead of hopping to the
    connection's thread."""

    __slots__ = ("args", "fn", "inline")

    def __init__(self, fn: Callable[..., Any], *args: Any, inline: bool = False) -> None:
        self.fn = fn
        self.args = args
        self.inline = inline


class UserCall:
    """A user's callback on the connection handed out; its result may be awaitable."""

    __slots__ = ("arg", "fn")

    def __init__(self, fn: Callable[[Any], Any], arg: Any) -> None:
        self.fn = fn
        self.arg = arg


Steps = Generator["DriverCall | UserCall", Any, bool]


class Ended:
    """The steps' answer, once they have run to the end."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = bool(value)


def advance(steps: Steps, result: Any, error: BaseException | None) -> DriverCall | UserCall | Ended:
    """Hands the last call's result (or error) to ``steps``: their next call, or ``Ended``."""
    try:
        return steps.throw(error) if error is not None else steps.send(result)
    except StopIteration as stop:
        return Ended(stop.value)


def run_blocking(
    steps: Steps,
    loop: asyncio.AbstractEventLoop | None = None,
    timeout: float | None = None,
    driver: Callable[..., Any] | None = None,
) -> bool:
    """Runs ``steps`` on this thread. A coroutine a callback returns runs on ``loop`` (the async
    pool's), and this thread waits for it, at most ``timeout`` seconds (a stopped loop never
    runs it): never call this on that loop's own thread. ``driver(fn, *args)``, if given,
    makes the driver calls (the async pool's: on the connection's own thread)."""
    result: Any = None
    error: BaseException | None = None
    while not isinstance(call := advance(steps, result, error), Ended):
        result, error = None, None
        try:
            if isinstance(call, DriverCall):
                result = call.fn(*call.args) if driver is None or call.inline else driver(call.fn, *call.args)
            else:
                result = call.fn(call.arg)
                if inspect.isawaitable(result):
                    if loop is None:
                        raise TypeError(f"{call.fn!r} returned an awaitable outside an async pool")
                    pending = asyncio.run_coroutine_threadsafe(_awaited(result), loop)
                    try:
                        result = pending.result(timeout)
                    finally:
                        pending.cancel()  # still running after the timeout: stopped
        except Exception as e:  # handed to the step, which decides
            error = e
    return call.value


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def configure_steps(slot: Slot, configure: Callable[[Any], Any] | None) -> Steps:
    """A new connection: ``configure`` once; what it leaves is what every return restores."""
    if configure is not None:
        yield UserCall(configure, slot.conn)
    slot.remember_state()
    return True


def checkout_steps(
    slot: Slot,
    check: Callable[[Any], Any] | None,
    read_dead: bool,
    validate: bool = False,
    deadline: float | None = None,
) -> Steps:
    """Whether ``slot`` may be handed out: the driver does not call it dead, ``check`` passes;
    without ``check``, a connection that idled (``slot.stale``) is validated with the cheapest
    check its driver answers truthfully (``validation``, given up at ``deadline``), as is every
    one with ``validate`` (a pool's ``check()``). A failure is kept in ``slot.failure``."""
    slot.failure = None
    if read_dead and (yield _dead_read(slot)):
        log.info("pool: discarding a connection the driver reports dead")
        slot.failure = _dead_error()
        return False
    try:
        if check is not None:
            yield UserCall(check, slot.conn)
        elif (validate or slot.stale) and not (yield from validation(slot, deadline)):
            log.info("pool: discarding an idle connection the driver reports dead")
            return False
    except Exception as e:
        slot.failure = e
        log.warning("pool: discarding a connection that failed its check: %s", e)
        return False
    return True


# The least time a validation is given, however little of the checkout's timeout is left: a
# connection reached at the deadline is not condemned for want of time.
VALIDATION_FLOOR_S = 0.5


def validation(slot: Slot, deadline: float | None = None) -> Generator[DriverCall, Any, bool]:
    """Whether a connection that idled is alive, asked the cheapest way its driver answers
    truthfully (docs/driver-quirks.md, "What a connection pool meets"): MariaDB's
    SQL_ATTR_CONNECTION_DEAD pings the server; an in-process database's status is the truth
    (read already, as every checkout's); anything else (psqlODBC's status is blind to a
    session the server ended) takes a statement's round trip, which raises if it is gone.
    Its driver calls are given up at ``deadline`` (a round trip on a dead link otherwise waits
    on the server with no end): the connection is then broken and fails its validation."""
    if slot.liveness == "local":
        return True
    raw = slot.raw
    if deadline is not None:
        raw._limit_calls(max(deadline - time.monotonic(), VALIDATION_FLOOR_S))
    try:
        if slot.liveness == "probe":
            if (yield DriverCall(raw._connection_dead)):
                slot.failure = _dead_error()
                return False
        else:
            yield DriverCall(probe, raw)
    finally:
        if deadline is not None:
            raw._limit_calls(None)
    return True


def _dead_read(slot: Slot) -> DriverCall:
    return DriverCall(slot.raw._connection_dead, inline=slot.liveness in ("status", "local"))


def _dead_error() -> BaseException:
    return OperationalError("08S01", "the driver reports the connection dead (SQL_ATTR_CONNECTION_DEAD)")


class CommitFailure:
    """Where ``return_steps`` leaves a failed commit, for the caller to raise once the
    connection is back (or discarded)."""

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: BaseException | None = None


def return_steps(
    slot: Slot, reset: Callable[[Any], Any] | None, read_dead: bool, commit: CommitFailure | None = None
) -> Steps:
    """A connection coming back: committed first if ``commit`` is given (a ``connection()``
    block that ended normally; a failure is kept there), then cursors closed, transaction
    rolled back, state restored, ``reset``; false (discard it) if it is lost or any of that
    fails."""
    raw = slot.raw
    if slot.lost or raw.closed:
        return False
    # A transaction a COMMIT ended needs no ROLLBACK (a round trip on MariaDB).
    ended = raw.autocommit
    if commit is not None and not ended:
        try:
            yield DriverCall(raw.commit)
            ended = True
        except Exception as e:
            commit.error = e
            slot.lost = is_lost(e)
            if slot.lost:
                return False
    try:
        if (yield DriverCall(slot.tidy, ended, read_dead)):
            slot.lost = True
            return False
        if reset is not None:
            yield UserCall(reset, slot.conn)
    except Exception as e:
        slot.lost = is_lost(e)
        log.warning("pool: discarding a connection that could not be reset: %s", e)
        return False
    return True


# A round trip's statement, by SQL_DBMS_NAME: the databases whose SELECT needs a FROM; else
# `SELECT 1`. (SQLGetInfo is no round trip: drivers answer it from what they read at connect.)
_PROBES = (
    ("oracle", "SELECT 1 FROM DUAL"),
    ("db2", "VALUES 1"),
    ("firebird", "SELECT 1 FROM RDB$DATABASE"),
    ("informix", "SELECT 1 FROM systables WHERE tabid = 1"),
)


def probe_sql(raw: Connection) -> str:
    dbms = str(raw.getinfo(SQL_DBMS_NAME)).lower()
    return next((sql for key, sql in _PROBES if key in dbms), "SELECT 1")


def probe(raw: Connection) -> None:
    """A round trip on ``raw``: raises if the session is gone. Outside autocommit it is rolled
    back after (drivers open a transaction with it: psqlODBC's ``BEGIN;SELECT 1``), so the
    connection is handed out with no transaction begun, as HikariCP does after its test
    query."""
    cursor = raw.cursor()
    try:
        cursor.execute(probe_sql(raw)).fetchall()
    finally:
        cursor.close()
    if not raw.autocommit:
        raw.rollback()
