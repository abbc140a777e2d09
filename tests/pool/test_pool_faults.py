"""The pool under faults (issue 20): sessions killed server-side (while lent, while idle, every
one at once), the test server stopped and started again, a database that can't be reached.
The pool never lends a dead connection where it can know, raises PoolTimeout within its timeout
while the server is away, and recovers by itself once it is back. Each scenario repeats."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from fastodbc.pool import ConnectionPool, PoolTimeout
from profiles import backends_where, with_attributes

from .support import REPEAT, TIMEOUT_SLACK_S, assert_lost, check_for, session_of, wait_until

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.pool is fastodbc's own")


def works(cnxn) -> bool:
    return cnxn.cursor().execute("SELECT 1").fetchval() == 1


def sessions_of_all(backend, pool, n: int) -> set[int]:
    """The sessions of the pool's n connections (all lent at once, then given back)."""
    held = [pool.getconn(timeout=30) for _ in range(n)]
    try:
        return {session_of(backend, c) for c in held}
    finally:
        for c in held:
            pool.putconn(c)


def all_work(backend, pool, n: int, timeout: float = 30) -> set[int]:
    """Lends n connections at once, each must run a statement; their sessions."""
    return {session_of(backend, c) for c in lend_all(pool, n, timeout)}


def lend_all(pool, n: int, timeout: float = 30) -> list:
    """Lends n connections at once, each must run a statement; gives them back, returns them."""
    held = [pool.getconn(timeout=timeout) for _ in range(n)]
    try:
        assert all(works(c) for c in held)
        return held
    finally:
        for c in held:
            pool.putconn(c)


@pytest.mark.parametrize("lent_by", ["getconn", "connection"])
def test_connection_that_lost_its_session_is_discarded_not_lent_again(
    db, backend, make_pool, admin, kills, lent_by
):
    pool = make_pool(min_size=1)
    for attempt in range(REPEAT):
        if lent_by == "getconn":
            cnxn = pool.getconn(timeout=30)
            session = backend.session_id(cnxn)
            backend.kill_session(admin, session)
            with pytest.raises(db.Error) as exc:
                cnxn.cursor().execute("SELECT 1").fetchall()
            assert_lost(db, backend, exc.value)
            pool.putconn(cnxn)
        else:
            with pytest.raises(db.Error) as exc:
                with pool.connection(timeout=30) as cnxn:
                    session = backend.session_id(cnxn)
                    backend.kill_session(admin, session)
                    cnxn.cursor().execute("SELECT 1").fetchall()
            assert_lost(db, backend, exc.value)
        wait_until(lambda cnxn=cnxn: cnxn.closed, 10, f"attempt {attempt}: the dead connection is closed")
        with pool.connection(timeout=30) as fresh:
            assert fresh is not cnxn, f"attempt {attempt}: the dead connection was lent again"
            assert backend.session_id(fresh) != session
            assert works(fresh)
    assert pool.get_stats().get("returns_bad", 0) >= REPEAT


def test_lost_connection_noticed_on_a_closed_cursor_is_discarded(db, backend, make_pool, admin, kills):
    # The loss was raised by a cursor the user closed before giving the connection back.
    pool = make_pool(min_size=1)
    for attempt in range(REPEAT):
        cnxn = pool.getconn(timeout=30)
        session = backend.session_id(cnxn)
        backend.kill_session(admin, session)
        cur = cnxn.cursor()
        with pytest.raises(db.Error) as exc:
            cur.execute("SELECT 1").fetchall()
        assert_lost(db, backend, exc.value)
        cur.close()
        pool.putconn(cnxn)
        with pool.connection(timeout=30) as fresh:
            assert fresh is not cnxn, f"attempt {attempt}"
            assert works(fresh)


@pytest.mark.parametrize("found_by", ["validation", "check"])
def test_idle_connections_whose_sessions_were_killed_are_never_lent(db, backend, make_pool, admin, kills, found_by):
    # Every session of the pool killed server-side while idle, just after use: the pool finds
    # them dead and lends new ones, with nothing done by the user. Found by its own validation
    # (here at every checkout: check_idle_after=0; SQL_ATTR_CONNECTION_DEAD where the driver
    # asks the server, else a round trip), or by the check callback.
    n = 3
    if found_by == "validation":
        pool = make_pool(min_size=n, check_idle_after=0.0)
    else:
        pool = make_pool(min_size=n, check=ConnectionPool.check_connection)
    pool.wait(timeout=30)
    for attempt in range(REPEAT):
        killed = sessions_of_all(backend, pool, n)
        assert len(killed) == n
        for session in killed:
            backend.kill_session(admin, session)
        fresh = all_work(backend, pool, n)
        assert not fresh & killed, f"attempt {attempt}: a killed session was lent"


def test_pool_check_replaces_idle_connections_whose_sessions_were_killed(db, backend, make_pool, admin, kills):
    n = 2
    pool = make_pool(min_size=n)  # no check callback: pool.check() does the round trips
    pool.wait(timeout=30)
    for attempt in range(REPEAT):
        killed = sessions_of_all(backend, pool, n)
        for session in killed:
            backend.kill_session(admin, session)
        pool.check()
        fresh = all_work(backend, pool, n)
        assert not fresh & killed, f"attempt {attempt}: a killed session was lent after check()"


def test_check_connection_finds_a_killed_session(db, backend, connect, admin, kills):
    for _ in range(REPEAT):
        cnxn = connect()
        ConnectionPool.check_connection(cnxn)
        backend.kill_session(admin, backend.session_id(cnxn))
        with pytest.raises(db.Error) as exc:
            ConnectionPool.check_connection(cnxn)
        assert_lost(db, backend, exc.value)


@pytest.mark.timeout(400)
def test_server_restart_pool_times_out_then_recovers_by_itself(db, backend, make_pool, server):
    n = 2
    timeout = 2.0
    # Every checkout validated (check_idle_after=0): the server stops right after the
    # connections were used, within the default window.
    pool = make_pool(min_size=n, timeout=timeout, check=check_for(backend), check_idle_after=0.0)
    pool.wait(timeout=30)
    # Connections, not sessions, are compared: a restarted server numbers its sessions again
    # (MariaDB's ids start over at 1). They are all kept, so no id() is reused.
    seen = lend_all(pool, n)
    before = seen
    for attempt in range(REPEAT):
        server.halt()
        try:
            # The server is gone: a request ends in PoolTimeout within the pool's timeout,
            # never a dead connection lent, never a hang.
            for ask in (pool.getconn, lambda: pool.connection().__enter__()):
                started = time.monotonic()
                with pytest.raises(PoolTimeout):
                    cnxn = ask()
                    pytest.fail(f"attempt {attempt}: lent {cnxn!r} with the server stopped")
                elapsed = time.monotonic() - started
                assert elapsed < timeout + TIMEOUT_SLACK_S, f"attempt {attempt}: {elapsed:.1f} s"
        finally:
            server.resume()
        # Back: the pool reconnects in the background; the user only asks for connections.
        after = lend_all(pool, n, timeout=90)
        assert not any(a is b for a in after for b in before), f"attempt {attempt}: a connection from before"
        before = after
        seen += after
    stats = pool.get_stats()
    assert stats["pool_size"] <= n


@pytest.mark.timeout(300)
def test_server_restart_with_connections_lent(db, backend, make_pool, server):
    # Connections lent across the restart fail with a lost connection and are discarded when
    # given back; the pool then lends working ones.
    n = 2
    pool = make_pool(min_size=n, check=check_for(backend))
    for attempt in range(REPEAT):
        held = [pool.getconn(timeout=90) for _ in range(n)]
        server.halt()
        server.resume()
        for cnxn in held:
            with pytest.raises(db.Error) as exc:
                cnxn.cursor().execute("SELECT 1").fetchall()
            assert_lost(db, backend, exc.value)
            pool.putconn(cnxn)
        fresh = [pool.getconn(timeout=90) for _ in range(n)]
        assert not {id(c) for c in fresh} & {id(c) for c in held}, f"attempt {attempt}"
        assert all(works(c) for c in fresh)
        for cnxn in fresh:
            pool.putconn(cnxn)


def test_reconnect_failed_is_called_after_reconnect_timeout(db, backend, make_pool):
    failed = threading.Event()
    seen = []

    def reconnect_failed(pool):
        seen.append(pool)
        failed.set()

    pool = make_pool(backend.unreachable_connstr, min_size=1, reconnect_timeout=2.0, reconnect_failed=reconnect_failed)
    started = time.monotonic()
    with pytest.raises(PoolTimeout):
        pool.getconn(timeout=0.5)
    assert time.monotonic() - started < 0.5 + TIMEOUT_SLACK_S
    assert failed.wait(30), "reconnect_failed was not called"
    assert seen[0] is pool
    # Still a pool: a request is refused within its timeout, not by a hang.
    started = time.monotonic()
    with pytest.raises(PoolTimeout):
        pool.getconn(timeout=0.5)
    assert time.monotonic() - started < 0.5 + TIMEOUT_SLACK_S


@pytest.mark.parametrize("backend", backends_where(lambda p: p.is_server), indirect=True)
def test_server_that_never_answers_still_gives_pool_timeout(db, backend, make_pool):
    # A listener that accepts connections and never answers: the driver's connect blocks.
    # Requests still end in PoolTimeout within the timeout, and close() returns.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
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
    silent = with_attributes(backend.connstr, Server="127.0.0.1", Port=str(listener.getsockname()[1]))
    try:
        pool = make_pool(silent, min_size=1, timeout=1.0)
        for _ in range(REPEAT):
            started = time.monotonic()
            with pytest.raises(PoolTimeout):
                pool.getconn()
            assert time.monotonic() - started < 1.0 + TIMEOUT_SLACK_S
        assert accepted, "the driver never reached the listener"
        started = time.monotonic()
        pool.close(timeout=2.0)
        assert time.monotonic() - started < 2.0 + TIMEOUT_SLACK_S
        # wait() that fails closes the pool, not waiting for threads stuck in the driver.
        other = make_pool(silent, min_size=1, timeout=1.0)
        started = time.monotonic()
        with pytest.raises(PoolTimeout):
            other.wait(timeout=1.0)
        assert time.monotonic() - started < 1.0 + TIMEOUT_SLACK_S
        assert other.closed
    finally:
        stop.set()
        acceptor.join(5)
        for s in accepted:
            s.close()
        listener.close()
