"""Helpers shared by the pool's and the asyncio front's tests (tests/pool, tests/aio)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: The number of times a restart / kill / cancel scenario runs (as tests/test_faults.py's REPEAT).
REPEAT = 3

#: Slack on top of a pool's ``timeout`` for PoolTimeout to arrive: correctness on a loaded
#: 2-core machine, not speed.
TIMEOUT_SLACK_S = 2.0

#: The keys psycopg_pool's get_stats() may hold (measures and counters).
STATS_KEYS = frozenset(
    {
        "pool_min",
        "pool_max",
        "pool_size",
        "pool_available",
        "requests_waiting",
        "requests_num",
        "requests_queued",
        "requests_wait_ms",
        "requests_errors",
        "usage_ms",
        "returns_bad",
        "connections_num",
        "connections_ms",
        "connections_errors",
        "connections_lost",
    }
)

#: The measures (not counters): always present, never reset by pop_stats().
MEASURES = frozenset({"pool_min", "pool_max", "pool_size", "pool_available", "requests_waiting"})


def wait_until(condition: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    """Polls ``condition`` until it is true (returning its value); fails after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(interval)


def session_of(backend, cnxn) -> int | None:
    """The server's id of the session behind ``cnxn`` (None where the database has none)."""
    if backend.session_id_sql is None:
        return None
    return backend.session_id(cnxn)


def count_rows(admin, table: str) -> int:
    return admin.cursor().execute(f"SELECT COUNT(*) FROM {table}").fetchval()


def check_for(backend):
    """A ``check`` for tests written before ``check_idle_after``: none where the driver's
    SQL_ATTR_CONNECTION_DEAD asks the server, else a round trip at every checkout. (The pool
    validates a connection idle past the window by itself, whatever the driver.)"""
    from fastodbc.pool import ConnectionPool

    return None if backend.reports_killed_session_dead else ConnectionPool.check_connection


def assert_lost(db, backend, error: BaseException) -> None:
    """``error`` reports a lost connection: OperationalError with a connection SQLSTATE."""
    assert isinstance(error, db.OperationalError), repr(error)
    assert error.args[0].startswith(backend.lost_connection_states), error.args
