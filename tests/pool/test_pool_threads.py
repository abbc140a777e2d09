"""Many threads on a small pool: a connection is lent to one thread at a time, and each finds
it as the pool promises (no row of the previous borrower's transaction)."""

from __future__ import annotations

import random
import threading

import pytest

from .support import session_of

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
