"""Many threads on a small pool: a connection is lent to one thread at a time, and each finds
it as the pool promises (no row of the previous borrower's transaction)."""

from __future__ import annotations

import random
import threading
import time

import pytest

from .support import check_for, session_of

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc.pool is fastodbc's own")


@pytest.mark.timeout(240)
def test_many_threads_never_share_a_connection(db, backend, make_pool):
    threads, rounds, max_size = 12, 15, 3

    def configure(cnxn):
        # A table of the session's own: what one borrower writes, only its session sees.
        cnxn.cursor().execute("CREATE TEMPORARY TABLE pool_owner (tid INTEGER)")
        cnxn.commit()

    pool = make_pool(min_size=2, max_size=max_size, configure=configure, timeout=90)
    lock = threading.Lock()
    in_use: dict[int, int] = {}  # id(connection) -> the thread using it
    sessions: set = set()
    failures: list[str] = []

    def borrow(tid: int, cnxn, rng: random.Random) -> None:
        with lock:
            if id(cnxn) in in_use:
                failures.append(f"thread {tid} got the connection thread {in_use[id(cnxn)]} uses")
            in_use[id(cnxn)] = tid
        try:
            cur = cnxn.cursor()
            left = cur.execute("SELECT COUNT(*) FROM pool_owner").fetchval()
            if left != 0:
                failures.append(f"thread {tid}: {left} rows of the previous borrower's transaction")
            cur.execute("INSERT INTO pool_owner VALUES (?)", tid)
            for _ in range(rng.randint(1, 3)):
                owners = [r[0] for r in cur.execute("SELECT tid FROM pool_owner").fetchall()]
                if owners != [tid]:
                    failures.append(f"thread {tid} reads {owners} in its session")
            with lock:
                sessions.add(session_of(backend, cnxn))
        finally:
            with lock:
                del in_use[id(cnxn)]

    def worker(tid: int) -> None:
        rng = random.Random(tid)
        try:
            for r in range(rounds):
                if r % 2:
                    cnxn = pool.getconn()
                    try:
                        borrow(tid, cnxn, rng)
                    finally:
                        pool.putconn(cnxn)  # rolls the row back
                else:
                    with pool.connection() as cnxn:
                        borrow(tid, cnxn, rng)
                        cnxn.rollback()  # the block would commit it
        except Exception as e:  # noqa: BLE001 - reported by the test thread
            failures.append(f"thread {tid}: {e!r}")

    workers = [threading.Thread(target=worker, args=(tid,), daemon=True) for tid in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(180)
    assert not any(t.is_alive() for t in workers), "a thread hangs"
    assert not failures, failures[:10]
    stats = pool.get_stats()
    assert stats["requests_num"] == threads * rounds
    assert stats["pool_size"] <= max_size
    if backend.session_id_sql:
        assert 1 <= len(sessions) <= max_size


@pytest.mark.timeout(240)
def test_threads_keep_working_while_sessions_are_killed(db, backend, make_pool, connect):
    # Threads borrow and give back while the server kills their sessions: each loss is the
    # lost-connection OperationalError of the borrower's statement, the pool replaces the
    # connection, and every thread finishes its rounds.
    if backend.kill_session_sql is None:
        pytest.skip(f"{backend.name} has no server session to kill")
    threads = 6
    pool = make_pool(min_size=2, max_size=3, timeout=90, check=check_for(backend))
    sessions: dict[int, int] = {}  # thread -> session it uses now
    failures: list[str] = []
    losses = []
    done = threading.Event()

    def lost(e: BaseException) -> bool:
        return isinstance(e, db.OperationalError) and e.args[0].startswith(backend.lost_connection_states)

    rounds = [0] * threads

    def worker(tid: int) -> None:
        try:
            while not done.is_set():
                try:
                    with pool.connection() as cnxn:
                        sessions[tid] = backend.session_id(cnxn)
                        got = cnxn.cursor().execute(f"SELECT {tid}").fetchval()
                        if got != tid:
                            failures.append(f"thread {tid} read {got}")
                    rounds[tid] += 1
                except db.Error as e:
                    if not lost(e):
                        raise
                    losses.append(tid)
                finally:
                    sessions.pop(tid, None)
        except Exception as e:  # noqa: BLE001 - reported by the test thread
            failures.append(f"thread {tid}: {e!r}")

    workers = [threading.Thread(target=worker, args=(tid,), daemon=True) for tid in range(threads)]
    for t in workers:
        t.start()
    killer = connect(autocommit=True)
    rng = random.Random("kills")
    killed = 0
    deadline = time.monotonic() + 60
    while killed < 8 and time.monotonic() < deadline and any(t.is_alive() for t in workers):
        time.sleep(rng.uniform(0.01, 0.05))
        current = list(sessions.values())
        if current:
            try:
                backend.kill_session(killer, rng.choice(current))
                killed += 1
            except db.Error:
                pass  # it went away by itself
    time.sleep(0.2)  # the last kill's loss reaches its thread
    done.set()
    for t in workers:
        t.join(180)
    assert not any(t.is_alive() for t in workers), "a thread hangs"
    assert not failures, failures[:10]
    assert killed >= 3, f"{killed} sessions killed"
    assert all(rounds), rounds  # every thread went on working
    with pool.connection(timeout=30) as cnxn:
        assert cnxn.cursor().execute("SELECT 1").fetchval() == 1
