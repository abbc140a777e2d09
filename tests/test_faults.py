"""Faults: sessions the server kills (mid-fetch, in a transaction holding rows, during
executemany, during COMMIT), a server restarted under an idle connection, connecting to a
stopped server, and concurrent writers keeping a ledger while sessions are killed. (cancel(),
close() from another thread and query timeouts: tests/test_threads.py, tests/test_connect.py;
network faults through a TCP fault proxy: tests/faults/.)

Each scenario repeats (REPEAT) and asserts: a DB-API exception of the right class with its
SQLSTATE, never a crash or a hang (pytest-timeout fails a test that hangs), transactions all or
nothing, and that the next connection works. What differs per database (how to kill a session,
its id, a statement that runs until interrupted, how to restart the server) is profile data in
tests/profiles/; a database without such a thing skips the scenario.
"""

from __future__ import annotations

import random
import threading
import time

import pytest

pytestmark = pytest.mark.fastodbc_only(reason="fault behaviour is fastodbc's (pyodbc is the oracle elsewhere)")

REPEAT = 3


# --------------------------------------------------------------------------- helpers


def assert_lost(db, backend, error: BaseException) -> None:
    """`error` reports a lost connection: OperationalError with a connection SQLSTATE."""
    assert isinstance(error, db.OperationalError), repr(error)
    assert error.args[0].startswith(backend.lost_connection_states), error.args


def assert_next_connection_works(connect) -> None:
    assert connect().cursor().execute("SELECT 1").fetchval() == 1


def count(admin, sql: str, *params) -> int:
    return admin.cursor().execute(sql, *params).fetchval()


@pytest.fixture
def admin(connect):
    """An autocommit connection that kills sessions and checks what was committed."""
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


# --------------------------------------------------------------------------- killed sessions


@pytest.mark.parametrize("streaming", [False, True], ids=["buffered", "streaming"])
def test_session_killed_mid_fetch(db, backend, connect, admin, kills, streaming):
    # Streaming: the attributes with which rows come from the server as they are fetched.
    if streaming and backend.slow_fetch is None:
        pytest.skip(f"{backend.name}'s driver reads whole results at execute")
    connstr = backend.connstr.rstrip(";") + backend.slow_fetch[0] if streaming else None
    n = 20_000
    for attempt in range(REPEAT):
        victim = connect(connstr)
        session = backend.session_id(victim)
        cur = victim.cursor()
        cur.execute(backend.series(n))
        rows = [r[0] for r in cur.fetchmany(100 + 1500 * attempt)]
        backend.kill_session(admin, session)
        error = None
        try:
            rows += [r[0] for r in cur.fetchall()]
        except db.Error as e:
            error = e
        # Rows held by the driver are served; after them, the loss. Never a wrong row.
        assert rows == list(range(1, len(rows) + 1)), f"attempt {attempt}"
        if error is None:
            assert not streaming and len(rows) == n, f"attempt {attempt}: no error after {len(rows)} rows"
        else:
            assert_lost(db, backend, error)
        with pytest.raises(db.Error) as exc:
            victim.cursor().execute("SELECT 1").fetchall()
        assert_lost(db, backend, exc.value)
        victim.close()
    assert_next_connection_works(connect)


@pytest.mark.parametrize("then", ["commit", "close-commit", "execute", "select", "executemany"])
def test_session_killed_in_a_transaction_holding_rows(db, backend, connect, admin, table, kills, then):
    # psqlODBC reports the next statement's loss as a general error (HY000 "internal SAVEPOINT
    # failed"): it must still be OperationalError, or code retrying on a lost connection misses it.
    # close-commit: psqlODBC notices the loss freeing the cursor's prepared statement, and its
    # COMMIT then sent nothing and succeeded, the rows gone.
    t = table("id INTEGER, v VARCHAR(20)")
    for attempt in range(REPEAT):
        victim = connect()
        session = backend.session_id(victim)
        cur = victim.cursor()
        held = [(attempt * 100 + i, "held") for i in range(10)]
        if attempt % 2:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", held)
        else:  # one statement: psqlODBC's next one begins with its SAVEPOINT
            values = ", ".join(["(?, ?)"] * len(held))
            cur.execute(f"INSERT INTO {t} VALUES {values}", [v for row in held for v in row])
        backend.kill_session(admin, session)
        with pytest.raises(db.Error) as exc:
            if then == "commit":
                victim.commit()
            elif then == "close-commit":
                cur.close()
                victim.commit()
            elif then == "execute":
                cur.execute(f"INSERT INTO {t} VALUES (?, ?)", -1, "after")
            elif then == "select":
                cur.execute(f"SELECT COUNT(*) FROM {t}").fetchall()
            else:
                cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(-i, "after") for i in range(1, 5)])
        assert_lost(db, backend, exc.value)
        victim.close()
        assert count(admin, f"SELECT COUNT(*) FROM {t}") == 0, f"attempt {attempt}: rows survived the kill"
    assert_next_connection_works(connect)


@pytest.mark.parametrize("statement", ["insert", "update"])
def test_session_killed_during_executemany(db, backend, connect, table, kills, statement):
    t = table("id INTEGER, v VARCHAR(20)")
    sql = {
        "insert": f"INSERT INTO {t} (id, v) VALUES (?, ?)",  # rewritten or array INSERTs
        "update": f"UPDATE {t} SET v = ? WHERE id = ?",  # parameter arrays
    }[statement]
    rng = random.Random(f"executemany-{statement}")
    for attempt in range(REPEAT):
        victim = connect()
        session = backend.session_id(victim)
        killer = threading.Timer(rng.uniform(0.05, 0.3), backend.kill_session, (connect(autocommit=True), session))
        killer.start()
        # Far more rows than fit before the kill, generated as they are sent.
        rows = ((i, "x") if statement == "insert" else ("x", i) for i in range(5_000_000))
        try:
            with pytest.raises(db.Error) as exc:
                victim.cursor().executemany(sql, rows)
        finally:
            killer.join()
        assert_lost(db, backend, exc.value)
        victim.close()
        admin = connect(autocommit=True)
        assert count(admin, f"SELECT COUNT(*) FROM {t}") == 0, f"attempt {attempt}: rows survived the kill"
    assert_next_connection_works(connect)


def test_session_killed_during_commit(db, backend, connect, admin, table, kills):
    t = table("id INTEGER, v VARCHAR(20)")
    rows = 10
    # Where the server can be made to work at COMMIT, the kill lands inside it; elsewhere it
    # races the COMMIT, landing before, inside or after it.
    slow = bool(backend.slow_commit_ddl)
    try:
        for ddl in backend.slow_commit_ddl:
            admin.cursor().execute(ddl.format(t=t, s=0.1))
        rng = random.Random("commit")
        for attempt in range(REPEAT):
            victim = connect()
            session = backend.session_id(victim)
            victim.cursor().executemany(
                f"INSERT INTO {t} VALUES (?, ?)", [(attempt * 100 + i, "c") for i in range(rows)]
            )
            delay = 0.3 if slow else rng.uniform(0, 0.01)
            killer = threading.Timer(delay, backend.kill_session, (connect(autocommit=True), session))
            killer.start()
            try:
                victim.commit()
                committed = True
            except db.Error as e:
                assert_lost(db, backend, e)
                committed = False
            finally:
                killer.join()
            victim.close()
            n = count(admin, f"SELECT COUNT(*) FROM {t} WHERE id >= ? AND id < ?", attempt * 100, attempt * 100 + rows)
            # All or nothing; a COMMIT that failed may have been done by the server before the
            # loss, and only then.
            assert n == rows if committed else n in (0, rows), f"attempt {attempt}: {n} rows"
            if slow:
                assert not committed and n == 0, f"attempt {attempt}: the kill missed the COMMIT"
    finally:
        for ddl in backend.slow_commit_cleanup:
            admin.cursor().execute(ddl.format(t=t))
    assert_next_connection_works(connect)


# --------------------------------------------------------------------------- server restart


@pytest.mark.timeout(300)
def test_server_restarted_under_an_idle_connection(db, backend, connect, table, server):
    t = table("id INTEGER")
    for attempt in range(2):
        idle = connect()
        idle.cursor().execute(f"INSERT INTO {t} VALUES (?)", attempt)
        idle.commit()
        server.halt()
        try:
            # Connecting to a stopped server fails at once, as a connection failure.
            started = time.monotonic()
            with pytest.raises(db.Error) as exc:
                db.connect(backend.connstr).close()
            assert time.monotonic() - started < 5
            assert_lost(db, backend, exc.value)
        finally:
            server.resume()
        with pytest.raises(db.Error) as exc:
            idle.cursor().execute("SELECT 1").fetchall()
        assert_lost(db, backend, exc.value)
        idle.close()
        # What was committed before the restart is there.
        assert count(connect(), f"SELECT COUNT(*) FROM {t}") == attempt + 1
    assert_next_connection_works(connect)


# --------------------------------------------------------------------------- concurrent writers


@pytest.mark.timeout(180)
def test_concurrent_writers_keep_a_ledger(db, backend, connect, table):
    # 8 writers, each on its own connection, commit batches and note each one committed; on
    # servers, sessions are killed meanwhile. A writer whose COMMIT failed asks the database
    # whether the batch made it before trying it again. The table ends with exactly the
    # batches the ledger holds, each whole, none twice.
    t = table("writer INTEGER, batch INTEGER, item INTEGER")
    writers, batches, items = 8, 12, 10
    kills = backend.kill_session_sql is not None
    ledger: dict[int, list[int]] = {w: [] for w in range(writers)}
    sessions: dict[int, int] = {}
    unexpected: list[BaseException] = []
    insert = f"INSERT INTO {t} VALUES (?, ?, ?)"
    present = f"SELECT COUNT(*) FROM {t} WHERE writer = ? AND batch = ?"

    def batch_present(w: int, b: int) -> bool:
        c = db.connect(backend.connstr, autocommit=True)
        try:
            n = count(c, present, w, b)
        finally:
            c.close()
        assert n in (0, items), f"writer {w} batch {b}: {n} of {items} rows"
        return n == items

    def writer(w: int) -> None:
        cnxn = None
        b = 0
        while b < batches:
            try:
                if cnxn is None:
                    cnxn = db.connect(backend.connstr)
                    if kills:
                        sessions[w] = backend.session_id(cnxn)
                cnxn.cursor().executemany(insert, [(w, b, i) for i in range(items)])
                cnxn.commit()
                ledger[w].append(b)
                b += 1
            except db.Error as e:
                lost = isinstance(e, db.OperationalError) and e.args[0].startswith(backend.lost_connection_states)
                if not lost:
                    unexpected.append(e)
                try:
                    if cnxn is not None:
                        cnxn.close()
                except db.Error as e2:
                    unexpected.append(e2)
                cnxn = None
                if not lost:
                    return
                if batch_present(w, b):
                    ledger[w].append(b)
                    b += 1
        cnxn.close()

    threads = [threading.Thread(target=writer, args=(w,), daemon=True) for w in range(writers)]
    for th in threads:
        th.start()
    killed = 0
    if kills:
        killer = connect(autocommit=True)
        rng = random.Random("ledger")
        while any(th.is_alive() for th in threads) and killed < 6:
            time.sleep(rng.uniform(0.02, 0.1))
            if sessions:
                victim = rng.choice(sorted(sessions))
                try:
                    backend.kill_session(killer, sessions.pop(victim))
                    killed += 1
                except db.Error:
                    pass  # the session just went away by itself
    for th in threads:
        th.join(120)
    assert not any(th.is_alive() for th in threads), "a writer hangs"
    assert not unexpected, unexpected
    rows = [tuple(r) for r in connect().cursor().execute(f"SELECT writer, batch, item FROM {t}").fetchall()]
    assert len(rows) == len(set(rows)), "a row was committed twice"
    assert set(rows) == {(w, b, i) for w, done in ledger.items() for b in done for i in range(items)}
    assert all(sorted(done) == list(range(batches)) for done in ledger.values()), ledger
    assert_next_connection_works(connect)
