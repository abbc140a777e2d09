"""ConnectionPool (docs/pool-and-async.md): lending and taking back connections, sizes, waiting,
timeouts, expiry, the check / configure / reset callbacks, resize, drain, wait, open and close,
statistics. What comes back is restored (tests/pool/test_return.py); faults, fork and threads
have files of their own."""

from __future__ import annotations

import threading
import time

import pytest

from fastodbc.pool import ConnectionPool, PoolClosed, PoolTimeout, TooManyRequests

from .support import MEASURES, STATS_KEYS, TIMEOUT_SLACK_S, count_rows, session_of, wait_until

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.pool is fastodbc's own")


def works(cnxn) -> bool:
    return cnxn.cursor().execute("SELECT 1").fetchval() == 1


def in_thread(fn):
    """Runs fn() on a thread; returns (thread, outcome) with outcome's "value" or "error"."""
    outcome: dict = {}

    def target():
        started = time.monotonic()
        try:
            outcome["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            outcome["error"] = e
        outcome["seconds"] = time.monotonic() - started

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, outcome


# --------------------------------------------------------------------------- lending


def test_connection_block_lends_a_working_connection(db, backend, make_pool):
    pool = make_pool(min_size=2)
    pool.wait(timeout=30)
    assert pool.get_stats()["pool_available"] == 2
    with pool.connection() as cnxn:
        assert isinstance(cnxn, db.Connection)
        assert not cnxn.closed
        assert cnxn.cursor().execute("SELECT 42").fetchval() == 42
        assert pool.get_stats()["pool_available"] == 1
    assert pool.get_stats()["pool_available"] == 2
    assert not cnxn.closed  # back in the pool, not closed


def test_connection_block_commits_on_success_and_rolls_back_on_error(db, backend, make_pool, table, admin):
    # psycopg_pool's connection(): the block is a transaction, as `with cnxn:` is.
    t = table("id INTEGER")
    pool = make_pool()
    with pool.connection() as cnxn:
        assert cnxn.autocommit is False
        cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    assert count_rows(admin, t) == 1
    with pytest.raises(ZeroDivisionError):
        with pool.connection() as cnxn:
            cnxn.cursor().execute(f"INSERT INTO {t} VALUES (2)")
            1 / 0  # noqa: B018
    assert count_rows(admin, t) == 1
    with pool.connection() as cnxn:
        assert count_rows(cnxn, t) == 1


def test_getconn_and_putconn(db, backend, make_pool):
    pool = make_pool(min_size=2)
    pool.wait(timeout=30)
    a = pool.getconn()
    b = pool.getconn()
    assert a is not b
    assert isinstance(a, db.Connection) and isinstance(b, db.Connection)
    assert works(a) and works(b)
    if backend.session_id_sql:
        assert session_of(backend, a) != session_of(backend, b)
    stats = pool.get_stats()
    assert (stats["pool_size"], stats["pool_available"]) == (2, 0)
    pool.putconn(a)
    assert pool.get_stats()["pool_available"] == 1
    again = pool.getconn()
    assert again is a  # the one idle connection
    pool.putconn(b)
    pool.putconn(again)
    stats = pool.get_stats()
    assert (stats["pool_size"], stats["pool_available"]) == (2, 2)


def test_putconn_of_a_foreign_connection_raises(db, backend, connect, make_pool):
    pool = make_pool()
    other = make_pool()
    pool.wait(timeout=30)
    other.wait(timeout=30)
    before = pool.get_stats()
    stranger = connect()
    with pytest.raises(db.ProgrammingError):
        pool.putconn(stranger)
    assert works(stranger)  # left as it was
    theirs = other.getconn()
    with pytest.raises(db.ProgrammingError):
        pool.putconn(theirs)
    assert works(theirs)
    other.putconn(theirs)  # its own pool takes it back
    assert other.get_stats()["pool_available"] == 1
    after = pool.get_stats()
    assert (after["pool_size"], after["pool_available"]) == (before["pool_size"], before["pool_available"])
    with pool.connection() as cnxn:
        assert cnxn is not stranger and cnxn is not theirs


# --------------------------------------------------------------------------- sizes and waiting


def test_pool_grows_from_min_size_to_max_size_on_demand(db, backend, make_pool):
    pool = make_pool(min_size=1, max_size=3)
    pool.wait(timeout=30)
    stats = pool.get_stats()
    assert (stats["pool_min"], stats["pool_max"], stats["pool_size"]) == (1, 3, 1)
    assert (pool.min_size, pool.max_size) == (1, 3)
    held = [pool.getconn(timeout=30) for _ in range(3)]
    assert len({id(c) for c in held}) == 3
    assert all(works(c) for c in held)
    if backend.session_id_sql:
        assert len({session_of(backend, c) for c in held}) == 3
    assert pool.get_stats()["pool_size"] == 3
    with pytest.raises(PoolTimeout):
        pool.getconn(timeout=0.5)  # never beyond max_size
    for c in held:
        pool.putconn(c)
    stats = pool.get_stats()
    assert (stats["pool_size"], stats["pool_available"]) == (3, 3)


def test_max_size_none_means_min_size(backend, make_pool):
    pool = make_pool(min_size=2, max_size=None)
    assert pool.max_size == 2
    held = [pool.getconn(timeout=30) for _ in range(2)]
    with pytest.raises(PoolTimeout):
        pool.getconn(timeout=0.5)
    for c in held:
        pool.putconn(c)


def test_exhausted_pool_raises_pool_timeout_within_timeout(db, backend, make_pool):
    pool = make_pool(min_size=1, timeout=1.0)
    held = pool.getconn(timeout=30)
    for ask, limit in [(lambda: pool.getconn(), 1.0), (lambda: pool.getconn(timeout=0.5), 0.5)]:
        started = time.monotonic()
        with pytest.raises(PoolTimeout) as exc:
            ask()
        elapsed = time.monotonic() - started
        assert limit * 0.9 <= elapsed < limit + TIMEOUT_SLACK_S, elapsed
        assert isinstance(exc.value, db.OperationalError)
    started = time.monotonic()
    with pytest.raises(PoolTimeout):
        with pool.connection(timeout=0.5):
            pass
    assert time.monotonic() - started < 0.5 + TIMEOUT_SLACK_S
    assert pool.get_stats().get("requests_errors", 0) >= 3
    pool.putconn(held)
    started = time.monotonic()
    with pool.connection(timeout=5) as cnxn:
        assert cnxn is held and works(cnxn)
    assert time.monotonic() - started < 1.0  # an idle connection is lent at once


def test_a_waiting_request_gets_the_connection_given_back(db, backend, make_pool):
    pool = make_pool(min_size=1)
    held = pool.getconn(timeout=30)
    t, outcome = in_thread(lambda: pool.getconn(timeout=30))
    wait_until(lambda: pool.get_stats()["requests_waiting"] == 1, 10, "the request waits")
    pool.putconn(held)
    t.join(30)
    assert "error" not in outcome, outcome
    assert outcome["value"] is held
    assert works(held)
    pool.putconn(held)


def test_max_waiting_refuses_requests_beyond_it(db, backend, make_pool):
    pool = make_pool(min_size=1, max_waiting=2)
    held = pool.getconn(timeout=30)

    def wait_and_use():
        cnxn = pool.getconn(timeout=60)
        try:
            return works(cnxn)
        finally:
            pool.putconn(cnxn)

    waiters = [in_thread(wait_and_use) for _ in range(2)]
    wait_until(lambda: pool.get_stats()["requests_waiting"] == 2, 10, "two requests wait")
    started = time.monotonic()
    with pytest.raises(TooManyRequests):
        pool.getconn(timeout=30)
    assert time.monotonic() - started < TIMEOUT_SLACK_S  # refused at once, not after the timeout
    assert pool.get_stats()["requests_waiting"] == 2
    pool.putconn(held)
    for t, outcome in waiters:
        t.join(60)
        assert outcome.get("value") is True, outcome
    assert pool.get_stats()["requests_waiting"] == 0
    with pool.connection(timeout=5) as cnxn:
        assert works(cnxn)


# --------------------------------------------------------------------------- expiry


def test_idle_connection_past_max_lifetime_is_never_lent(db, backend, make_pool):
    pool = make_pool(min_size=1, max_lifetime=1.0)
    pool.wait(timeout=30)
    old = pool.getconn()
    old_session = session_of(backend, old)
    pool.putconn(old)
    time.sleep(1.5)
    new = pool.getconn(timeout=30)
    assert new is not old
    assert works(new)
    if old_session is not None:
        assert session_of(backend, new) != old_session
    wait_until(lambda: old.closed, 10, "the expired connection is closed")
    pool.putconn(new)


def test_connection_out_past_max_lifetime_is_discarded_when_given_back(db, backend, make_pool):
    pool = make_pool(min_size=1, max_lifetime=1.0)
    old = pool.getconn(timeout=30)
    time.sleep(1.5)
    assert works(old)  # still the user's until given back
    pool.putconn(old)
    wait_until(lambda: old.closed, 10, "the expired connection is closed")
    with pool.connection(timeout=30) as new:
        assert new is not old and works(new)


def test_idle_connections_beyond_min_size_close_after_max_idle(db, backend, make_pool):
    pool = make_pool(min_size=1, max_size=3, max_idle=1.0)
    held = [pool.getconn(timeout=30) for _ in range(3)]
    for c in held:
        pool.putconn(c)
    assert pool.get_stats()["pool_size"] == 3
    wait_until(lambda: pool.get_stats()["pool_size"] == 1, 30, "the pool shrinks to min_size")
    wait_until(lambda: sum(c.closed for c in held) == 2, 10, "two idle connections closed")
    time.sleep(1.5)  # never below min_size
    stats = pool.get_stats()
    assert (stats["pool_size"], stats["pool_available"]) == (1, 1)
    with pool.connection(timeout=5) as cnxn:
        assert not cnxn.closed and works(cnxn)


# --------------------------------------------------------------------------- callbacks


def test_check_failing_once_discards_that_connection(db, backend, make_pool):
    checked = []

    def check(cnxn):
        checked.append(cnxn)
        if len(checked) == 1:
            raise RuntimeError("the first check fails")
        cnxn.cursor().execute("SELECT 1").fetchall()

    pool = make_pool(min_size=1, check=check)
    pool.wait(timeout=30)
    first = pool.get_stats()
    assert first["pool_available"] == 1
    cnxn = pool.getconn(timeout=30)
    assert len(checked) >= 2, checked
    assert checked[0] is not cnxn, "the connection whose check failed was lent"
    # Not necessarily the last check: the failed one has the idle connections checked in the
    # background too (a lost connection may mean a restarted server).
    assert any(c is cnxn for c in checked[1:]), "the lent connection was not checked"
    assert works(cnxn)
    wait_until(lambda: checked[0].closed, 10, "the connection whose check failed is closed")
    pool.putconn(cnxn)


def test_check_that_always_fails_ends_in_pool_timeout_at_the_deadline(db, backend, make_pool):
    # psycopg_pool #709: a failing check looped forever.
    calls = []

    def check(cnxn):
        calls.append(time.monotonic())
        raise RuntimeError("never healthy")

    pool = make_pool(min_size=1, max_size=2, timeout=2.0, check=check)
    for _ in range(2):
        started = time.monotonic()
        with pytest.raises(PoolTimeout):
            pool.getconn()
        elapsed = time.monotonic() - started
        assert 2.0 * 0.9 <= elapsed < 2.0 + TIMEOUT_SLACK_S, elapsed
    assert calls, "check was never called"
    assert pool.get_stats()["pool_size"] <= 2


def test_check_connection_passes_a_live_connection(db, backend, connect, make_pool):
    ConnectionPool.check_connection(connect())
    pool = make_pool(min_size=2, check=ConnectionPool.check_connection)
    for _ in range(3):
        with pool.connection(timeout=30) as cnxn:
            assert works(cnxn)


def test_configure_runs_once_per_connection_before_its_first_checkout(db, backend, make_pool):
    configured = []

    def configure(cnxn):
        assert not any(c is cnxn for c in configured), "configured twice"
        configured.append(cnxn)
        cnxn.autocommit = True
        cnxn.timeout = 7

    pool = make_pool(min_size=2, max_size=3, configure=configure)
    lent = []
    for i in range(12):
        held = [pool.getconn(timeout=30) for _ in range(1 + i % 3)]
        for cnxn in held:
            assert any(c is cnxn for c in configured), "lent before configure ran"
            assert (cnxn.autocommit, cnxn.timeout) == (True, 7)
            cnxn.autocommit = False  # the user's change: undone at return
            cnxn.timeout = 0
            lent.append(cnxn)
        for cnxn in held:
            pool.putconn(cnxn)
    assert {id(c) for c in lent} <= {id(c) for c in configured}
    assert len(configured) == len({id(c) for c in configured}) == 3


def test_reset_runs_at_every_return_after_the_state_is_restored(db, backend, make_pool, table):
    t = table("id INTEGER")
    seen = []

    def reset(cnxn):
        cur = cnxn.cursor()
        seen.append((cnxn, cnxn.autocommit, cur.execute(f"SELECT COUNT(*) FROM {t}").fetchval()))
        cnxn.rollback()

    pool = make_pool(min_size=1, reset=reset)
    cnxn = pool.getconn(timeout=30)
    cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1)")
    pool.putconn(cnxn)
    assert len(seen) == 1, "reset did not run in putconn"
    assert seen[0][0] is cnxn
    # In reset, the transaction is rolled back already.
    assert seen[0][2] == 0
    with pool.connection(timeout=30) as again:
        assert again is cnxn
        again.autocommit = True
    assert len(seen) == 2 and seen[1][0] is cnxn
    assert seen[1][1] is False  # autocommit restored before reset


def test_reset_that_raises_discards_the_connection(db, backend, make_pool):
    def reset(cnxn):
        raise RuntimeError("reset fails")

    pool = make_pool(min_size=1, reset=reset)
    cnxn = pool.getconn(timeout=30)
    try:
        pool.putconn(cnxn)
    except RuntimeError:
        pass  # reported or not, the connection must not come back
    wait_until(lambda: cnxn.closed, 10, "the connection whose reset failed is closed")
    other = pool.getconn(timeout=30)
    assert other is not cnxn and works(other)
    try:
        pool.putconn(other)
    except RuntimeError:
        pass


def test_kwargs_and_connect_make_the_connections(db, backend, make_pool):
    calls = []

    def opener(conninfo, **kwargs):
        calls.append((conninfo, kwargs))
        return db.connect(conninfo, **kwargs)

    pool = make_pool(min_size=2, kwargs={"autocommit": True}, connect=opener)
    pool.wait(timeout=30)
    assert len(calls) == 2
    assert all(c == (backend.connstr, {"autocommit": True}) for c in calls), calls
    with pool.connection() as cnxn:
        assert cnxn.autocommit is True and works(cnxn)
    plain = make_pool(min_size=1, kwargs={"autocommit": True})
    with plain.connection(timeout=30) as cnxn:
        assert cnxn.autocommit is True


# --------------------------------------------------------------------------- resize, drain, wait


def test_resize_grows_the_pool_and_changes_its_limits(db, backend, make_pool):
    pool = make_pool(min_size=1, max_size=1)
    pool.wait(timeout=30)
    pool.resize(3, 5)
    assert (pool.min_size, pool.max_size) == (3, 5)
    stats = pool.get_stats()
    assert (stats["pool_min"], stats["pool_max"]) == (3, 5)
    wait_until(lambda: pool.get_stats()["pool_available"] >= 3, 30, "three connections ready")
    held = [pool.getconn(timeout=30) for _ in range(5)]
    assert len({id(c) for c in held}) == 5 and all(works(c) for c in held)
    with pytest.raises(PoolTimeout):
        pool.getconn(timeout=0.5)
    for c in held:
        pool.putconn(c)
    pool.resize(2)
    assert (pool.min_size, pool.max_size) == (2, 2)
    with pytest.raises(ValueError):
        pool.resize(3, 2)
    assert (pool.min_size, pool.max_size) == (2, 2)


def test_drain_replaces_every_connection(db, backend, make_pool):
    pool = make_pool(min_size=2)
    pool.wait(timeout=30)
    out = pool.getconn()
    idle = pool.getconn()
    pool.putconn(idle)
    old_sessions = {session_of(backend, out), session_of(backend, idle)}
    pool.drain()
    wait_until(lambda: idle.closed, 10, "the idle connection is closed at drain()")
    assert not out.closed and works(out)  # the one in use is the user's until it comes back
    pool.putconn(out)
    wait_until(lambda: out.closed, 10, "the connection in use at drain() is closed when it comes back")
    held = [pool.getconn(timeout=30) for _ in range(2)]
    assert all(c is not out and c is not idle for c in held)
    assert all(works(c) for c in held)
    if backend.session_id_sql:
        assert not {session_of(backend, c) for c in held} & old_sessions
    for c in held:
        pool.putconn(c)


def test_wait_returns_once_min_size_connections_are_ready(backend, make_pool):
    pool = make_pool(min_size=3)
    pool.wait(timeout=30)
    stats = pool.get_stats()
    assert (stats["pool_size"], stats["pool_available"]) == (3, 3)


def test_wait_on_an_unreachable_database_raises_pool_timeout_and_closes(db, backend, make_pool):
    pool = make_pool(backend.unreachable_connstr, min_size=1)
    started = time.monotonic()
    with pytest.raises(PoolTimeout):
        pool.wait(timeout=1.0)
    assert time.monotonic() - started < 1.0 + TIMEOUT_SLACK_S
    assert pool.closed
    with pytest.raises(PoolClosed):
        pool.getconn(timeout=1)


# --------------------------------------------------------------------------- open and close


def test_pool_opened_later(db, backend, make_pool):
    pool = make_pool(min_size=1, open=False)
    assert pool.closed
    with pytest.raises(PoolClosed):
        pool.getconn(timeout=1)
    pool.open(wait=True, timeout=30)
    assert not pool.closed
    assert pool.get_stats()["pool_available"] == 1
    with pool.connection() as cnxn:
        assert works(cnxn)


def test_pool_as_a_context_manager_opens_and_closes(db, backend):
    with ConnectionPool(backend.connstr, min_size=1, open=False, timeout=10) as pool:
        assert not pool.closed
        with pool.connection() as cnxn:
            assert works(cnxn)
    assert pool.closed
    wait_until(lambda: cnxn.closed, 10, "the pool's connection is closed")


def test_close_closes_idle_connections_and_ends_their_sessions(db, backend, make_pool, admin):
    pool = make_pool(min_size=2, name="closing")
    assert pool.name == "closing"
    pool.wait(timeout=30)
    idle = [pool.getconn() for _ in range(2)]
    sessions = [session_of(backend, c) for c in idle]
    for c in idle:
        pool.putconn(c)
    pool.close()
    assert pool.closed
    wait_until(lambda: all(c.closed for c in idle), 10, "the idle connections are closed")
    for session in sessions:
        if session is not None:
            count = backend.session_count_sql.format(id=session)
            wait_until(lambda count=count: admin.cursor().execute(count).fetchval() == 0, 10, "the session ended")
    with pytest.raises(PoolClosed):
        pool.getconn()
    with pytest.raises(PoolClosed):
        with pool.connection():
            pass
    pool.close()  # again: nothing happens


def test_close_fails_waiting_requests_and_closes_connections_given_back(db, backend, make_pool):
    pool = make_pool(min_size=2)
    out = [pool.getconn(timeout=30) for _ in range(2)]
    waiter, outcome = in_thread(lambda: pool.getconn(timeout=30))
    wait_until(lambda: pool.get_stats()["requests_waiting"] == 1, 10, "a request waits")
    pool.close()
    waiter.join(10)
    assert isinstance(outcome.get("error"), PoolClosed), outcome  # the waiting request fails at once
    assert outcome["seconds"] < 10
    assert all(works(c) for c in out)  # the ones lent are the users' until given back
    for c in out:
        pool.putconn(c)
        wait_until(lambda c=c: c.closed, 10, "a connection given back to a closed pool is closed")


# --------------------------------------------------------------------------- statistics


def test_stats_have_psycopg_pool_keys_and_pop_stats_resets_the_counters(db, backend, make_pool):
    pool = make_pool(min_size=2, max_size=3)
    pool.wait(timeout=30)
    stats = pool.get_stats()
    assert set(stats) <= STATS_KEYS, set(stats) - STATS_KEYS
    assert MEASURES <= set(stats), MEASURES - set(stats)
    assert all(isinstance(v, int) for v in stats.values()), stats
    assert {k: stats[k] for k in MEASURES} == {
        "pool_min": 2, "pool_max": 3, "pool_size": 2, "pool_available": 2, "requests_waiting": 0
    }
    assert stats.get("connections_num", 0) >= 2
    for _ in range(5):
        with pool.connection():
            pass
    held = [pool.getconn() for _ in range(3)]
    with pytest.raises(PoolTimeout):
        pool.getconn(timeout=0.3)
    stats = pool.get_stats()
    assert stats["requests_num"] == 5 + 3 + 1
    assert stats.get("requests_errors", 0) >= 1
    assert (stats["pool_size"], stats["pool_available"]) == (3, 0)
    for c in held:
        pool.putconn(c)
    popped = pool.pop_stats()
    assert popped["requests_num"] == 9
    assert set(popped) <= STATS_KEYS
    after = pool.get_stats()
    assert after.get("requests_num", 0) == 0 and after.get("requests_errors", 0) == 0
    assert {k: after[k] for k in MEASURES} == {
        "pool_min": 2, "pool_max": 3, "pool_size": 3, "pool_available": 3, "requests_waiting": 0
    }
