"""The GIL is released while the driver works, and cancel() from another thread stops a query."""

import threading
import time

import pytest


def _run_in_thread(fn):
    outcome = {}

    def target():
        started = time.perf_counter()
        try:
            outcome["value"] = fn()
        except Exception as e:  # noqa: BLE001 - handed to the test thread
            outcome["error"] = e
        outcome["seconds"] = time.perf_counter() - started

    t = threading.Thread(target=target)
    t.start()
    return t, outcome


@pytest.mark.fastodbc_only(reason="measures fastodbc's GIL release")
def test_other_threads_run_while_the_driver_executes(backend, connect):
    cur = connect().cursor()
    t, outcome = _run_in_thread(lambda: cur.execute(backend.sleep(1)).fetchall())
    ticks = 0
    deadline = time.perf_counter() + 0.3
    while time.perf_counter() < deadline:
        ticks += 1
    t.join(60)
    assert "error" not in outcome, outcome.get("error")
    # With the GIL held by the driver call, this loop would barely run at all.
    assert ticks > 100_000
    assert outcome["seconds"] > 0.3


@pytest.mark.fastodbc_only(reason="cancel() semantics are fastodbc's")
def test_cancel_from_another_thread_stops_the_query(db, backend, connect):
    # Repeated, as the fault tests are (cancel() during a fetch: tests/test_faults.py).
    for attempt in range(3):
        cnxn = connect(autocommit=True)
        cur = cnxn.cursor()
        t, outcome = _run_in_thread(lambda cur=cur: cur.execute(backend.sleep(30)).fetchall())
        time.sleep(0.5)
        cur.cancel()
        t.join(60)
        # psqlODBC reports the server's 57014 (query_canceled), sqliteodbc every error as HY000.
        cls, states = backend.cancelled
        assert isinstance(outcome.get("error"), getattr(db, cls)), f"attempt {attempt}: {outcome}"
        assert outcome["error"].args[0] in states
        assert outcome["seconds"] < 10
        # The cursor and the connection are still usable.
        assert cur.execute("SELECT 1").fetchval() == 1
        assert cnxn.cursor().execute("SELECT 2").fetchval() == 2
    assert connect().cursor().execute("SELECT 3").fetchval() == 3


def test_long_fetches_in_several_threads_at_once(backend, connect):
    # Each long fetch reads ahead on a fetch thread of its own, taken from those parked or
    # started: four at once get four, and every thread gets its own rows, in order.
    n = 40_000
    series = backend.series(n)
    label = backend.concat("'row-'", "CAST(i AS VARCHAR(12))")
    connections = [connect() for _ in range(4)]
    sqls = [
        f"SELECT i, i * {k + 2}, {label} FROM ({series}) q ORDER BY i"
        for k in range(4)
    ]
    runs = [
        _run_in_thread(lambda c=c, q=q: [tuple(r) for r in c.cursor().execute(q).fetchall()])
        for c, q in zip(connections, sqls, strict=True)
    ]
    for k, (t, outcome) in enumerate(runs):
        t.join(120)
        assert "error" not in outcome, outcome.get("error")
        assert outcome["value"] == [(i, i * (k + 2), f"row-{i}") for i in range(1, n + 1)]
