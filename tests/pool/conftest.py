"""Fixtures of the pool's tests: pools closed after the test, an admin connection, the test
server's control."""

from __future__ import annotations

import pytest

from fastodbc.pool import ConnectionPool


@pytest.fixture
def make_pool(backend):
    """make_pool(conninfo=None, **kwargs) -> a ConnectionPool on the backend (min_size 1 and
    timeout 10 s unless given), closed after the test."""
    created: list[ConnectionPool] = []

    def make(conninfo: str | None = None, **kwargs) -> ConnectionPool:
        kwargs.setdefault("min_size", 1)
        kwargs.setdefault("timeout", 10.0)
        pool = ConnectionPool(conninfo or backend.connstr, **kwargs)
        created.append(pool)
        return pool

    yield make
    for pool in reversed(created):
        try:
            pool.close(timeout=5)
        except Exception:
            pass


@pytest.fixture
def admin(connect):
    """An autocommit connection outside any pool: kills sessions, counts committed rows."""
    return connect(autocommit=True)


@pytest.fixture
def kills(backend):
    if backend.kill_session_sql is None:
        pytest.skip(f"{backend.name} has no server session to kill")


@pytest.fixture
def server(backend):
    """The test server's control; the server is running again after the test, whatever happens."""
    if backend.server_script is None:
        pytest.skip(f"{backend.name} has no server to restart")
    control = backend.server_control()
    if control is None:
        pytest.skip(f"{backend.server_script} does not run this {backend.name} server")
    yield control
    control.resume()
