"""Dead links (issue 29): through a proxy that stops forwarding (the server's host gone, its
packets dropped; tests/faults/proxy.py), a call with a timeout returns within the timeout plus the
watchdog's grace with OperationalError, and the connection is broken (later calls raise at
once, without reaching the driver); close() from another thread returns promptly, timeout or
not; a link the driver reported lost is never used again. A database in a file has no link:
these run on servers.
"""

from __future__ import annotations

import threading
import time

import pytest

from fastodbc.pool import ConnectionPool

pytestmark = pytest.mark.fastodbc_only(reason="dead links hang pyodbc: the watchdog is fastodbc's")

TIMEOUT = 2
GRACE = 2  # fastodbc_core::link::GRACE
CLOSE_BOUND = 2  # fastodbc_core::link::CLOSE_BOUND: each call of a close
STUCK_CALL_WAIT = 1  # fastodbc-py: how long close() waits for a call before giving it up
SLACK = 1.5  # a loaded host's scheduling
SQL_ATTR_CONNECTION_TIMEOUT = 113


@pytest.fixture
def proxied(backend, fault_proxy):
    """proxied(attributes="") -> a connection string through the fault proxy (forwarding
    again), ending with ``attributes``."""

    def make(attributes: str = "") -> str:
        fault_proxy.forward()
        return backend.at(fault_proxy.host, fault_proxy.port).rstrip(";") + attributes

    return make


def timed(fn) -> tuple[BaseException | None, float]:
    started = time.monotonic()
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - returned to the test
        return e, time.monotonic() - started
    return None, time.monotonic() - started


def assert_broken(db, cnxn) -> None:
    """Later calls raise OperationalError 08S01 at once; a pool reads the connection dead."""
    for call in (lambda: cnxn.cursor().execute("SELECT 1").fetchall(), cnxn.commit):
        error, seconds = timed(call)
        assert isinstance(error, db.OperationalError), repr(error)
        assert error.args[0] == "08S01", error.args
        assert seconds < 0.5, seconds
    assert cnxn._broken and cnxn._connection_dead()
    error, seconds = timed(cnxn.close)
    assert error is None and seconds < CLOSE_BOUND + SLACK, (error, seconds)


def stall_during(db, backend, connect, proxied, proxy, step: str):
    """Connects through a proxy, timeout TIMEOUT, starts `step`, stalls the link under it;
    returns (connection, error, seconds of the stalled call)."""
    attributes = backend.slow_fetch[0] if step == "fetch" else ""
    kwargs = {"attrs_before": {SQL_ATTR_CONNECTION_TIMEOUT: TIMEOUT}} if step == "commit" else {}
    cnxn = connect(proxied(attributes), **kwargs)
    cur = cnxn.cursor()
    assert cur.execute("SELECT 1").fetchval() == 1
    if step == "execute":
        cnxn.timeout = TIMEOUT
        proxy.stall()
        return cnxn, *timed(lambda: cur.execute("SELECT 2").fetchall())
    if step == "fetch":
        cnxn.timeout = TIMEOUT
        cur.execute(backend.series(200_000))
        assert len(cur.fetchmany(500)) == 500
        proxy.stall()
        return cnxn, *timed(cur.fetchall)
    cur.execute("SELECT 3").fetchall()
    proxy.stall()
    return cnxn, *timed(cnxn.commit)


@pytest.mark.parametrize("step", ["execute", "fetch", "commit"])
def test_a_call_with_a_timeout_returns_on_a_stalled_link(db, backend, connect, proxied, fault_proxy, step):
    # execute and fetch: the query timeout (cnxn.timeout); commit: SQL_ATTR_CONNECTION_TIMEOUT.
    if step == "fetch" and backend.slow_fetch is None:
        pytest.skip(f"{backend.name}'s driver reads whole results at execute")
    for attempt in range(2):
        cnxn, error, seconds = stall_during(db, backend, connect, proxied, fault_proxy, step)
        assert isinstance(error, db.OperationalError), f"attempt {attempt}: {error!r}"
        assert error.args[0] == ("HYT01" if step == "commit" else "HYT00"), error.args
        assert TIMEOUT <= seconds < TIMEOUT + GRACE + SLACK, (attempt, seconds)
        assert_broken(db, cnxn)
    assert connect().cursor().execute("SELECT 4").fetchval() == 4


def test_login_through_a_deaf_listener_times_out(db, backend, connect, proxied, fault_proxy):
    # The listener completes TCP handshakes and never answers: the login waits for a greeting.
    connstr = proxied()
    fault_proxy.deaf()
    for attempt in range(2):
        error, seconds = timed(lambda: connect(connstr, timeout=TIMEOUT))
        assert isinstance(error, db.OperationalError), f"attempt {attempt}: {error!r}"
        # The watchdog's login timeout (HYT00), or the driver's own (08001), or the end of a
        # handshake the listener's backlog dropped (08S01).
        assert error.args[0].startswith(("HYT00", "08")), error.args
        assert seconds < TIMEOUT + GRACE + SLACK, (attempt, seconds)
    assert connect().cursor().execute("SELECT 1").fetchval() == 1


@pytest.mark.parametrize("busy", ["execute", "fetch"])
def test_close_from_another_thread_returns_on_a_stalled_link(db, backend, connect, proxied, fault_proxy, busy):
    # No timeout: the call would wait forever. close() cancels it (bounded), then gives it up.
    if busy == "fetch" and backend.slow_fetch is None:
        pytest.skip(f"{backend.name}'s driver reads whole results at execute")
    for attempt in range(2):
        cnxn = connect(proxied(backend.slow_fetch[0] if busy == "fetch" else ""))
        cur = cnxn.cursor()
        if busy == "fetch":
            cur.execute(backend.series(200_000))
            cur.fetchmany(500)
        fault_proxy.stall()
        outcome: dict = {}

        def use(cur=cur, outcome=outcome):
            call = cur.fetchall if busy == "fetch" else lambda: cur.execute("SELECT 2").fetchall()
            outcome["error"], _ = timed(call)

        user = threading.Thread(target=use, daemon=True)
        user.start()
        time.sleep(0.5)
        assert user.is_alive(), outcome
        error, seconds = timed(cnxn.close)
        assert error is None, error
        assert seconds < 2 * CLOSE_BOUND + STUCK_CALL_WAIT + SLACK, (attempt, seconds)
        user.join(5)
        assert not user.is_alive(), f"attempt {attempt}: the stuck call never returned"
        # The call that was given up fails as any call on a closed connection.
        assert isinstance(outcome["error"], db.Error), outcome
        assert cnxn.closed
    assert connect().cursor().execute("SELECT 3").fetchval() == 3


@pytest.mark.parametrize("step", ["execute", "commit"])
def test_a_lost_link_is_never_used_again(db, backend, connect, proxied, fault_proxy, step):
    # The link is reset under an idle connection holding a transaction: the call that finds
    # it lost reports so, and after it no call reaches the driver (psqlODBC crashed when
    # called again on a connection it lost): each raises 08S01 at once, close only frees.
    for attempt in range(2):
        cnxn = connect(proxied())
        cur = cnxn.cursor()
        cur.execute("SELECT 1").fetchall()
        fault_proxy.drop("reset")
        error, _ = timed(cnxn.commit if step == "commit" else lambda cur=cur: cur.execute("SELECT 2").fetchall())
        assert isinstance(error, db.OperationalError), f"attempt {attempt}: {error!r}"
        assert error.args[0].startswith(backend.lost_connection_states), error.args
        assert_broken(db, cnxn)
    assert connect().cursor().execute("SELECT 1").fetchval() == 1


def test_a_pool_drops_a_connection_a_timeout_broke(db, backend, proxied, fault_proxy):
    pool = ConnectionPool(proxied(), min_size=1, max_size=1, timeout=10)
    try:
        for attempt in range(2):
            started = time.monotonic()
            with pytest.raises(db.OperationalError) as exc:
                with pool.connection() as cnxn:
                    cnxn.timeout = TIMEOUT
                    fault_proxy.stall()
                    cnxn.cursor().execute("SELECT 1").fetchall()
            seconds = time.monotonic() - started
            assert exc.value.args[0] == "HYT00", f"attempt {attempt}: {exc.value.args}"
            assert seconds < TIMEOUT + GRACE + SLACK, (attempt, seconds)
            fault_proxy.forward()
            # The next request gets a new connection, never the broken one.
            with pool.connection() as cnxn:
                assert cnxn.cursor().execute("SELECT 2").fetchval() == 2
    finally:
        pool.close(timeout=5)


def test_cancel_on_a_stalled_link_returns_and_breaks_the_connection(db, backend, connect, proxied, fault_proxy):
    # No timeout. SQLCancel reaches the server over a new connection (psqlODBC, MariaDB),
    # which the dead route swallows too: the cancel is given up after CLOSE_BOUND, and with it
    # the execution it was to stop.
    for attempt in range(2):
        cnxn = connect(proxied())
        cur = cnxn.cursor()
        assert cur.execute("SELECT 1").fetchval() == 1
        fault_proxy.stall()
        outcome: dict = {}

        def use(cur=cur, outcome=outcome):
            outcome["error"], outcome["seconds"] = timed(lambda: cur.execute("SELECT 2").fetchall())

        user = threading.Thread(target=use, daemon=True)
        user.start()
        time.sleep(0.5)
        error, seconds = timed(cur.cancel)
        assert error is None and seconds < CLOSE_BOUND + SLACK, (attempt, error, seconds)
        user.join(5)
        assert not user.is_alive(), f"attempt {attempt}: the execution still waits"
        assert isinstance(outcome["error"], db.OperationalError), outcome
        assert_broken(db, cnxn)
