"""The connection pool and asyncio cases of issue 20, built for bench/run.py (measured by
bench/worker_pool.py, reported by bench/report_pool.py).

- ``pool`` (SQLite, PostgreSQL, MariaDB): a pool checkout + ``SELECT 1`` + return
  (``fastodbc.pool.ConnectionPool``, its connections with autocommit off as by default, and on)
  against a cold ``fastodbc.connect`` + ``SELECT 1`` + close, and ``SELECT 1`` with a new cursor
  on a connection kept open (a pool costing nothing: the bound of the speedup); on PostgreSQL
  psycopg's cold connect and ``psycopg_pool`` beside them.
- ``aio_concurrency``: ``TASKS`` concurrent asyncio tasks, each ``QUERIES_PER_TASK`` x (checkout,
  ``SELECT 1``, return) on an ``AsyncConnectionPool`` of ``POOL_SIZE``, against the same work by
  ``TASKS`` threads on a ``ConnectionPool`` of ``POOL_SIZE``, and sequentially (one thread, through
  the pool, and on one connection); psycopg_pool's async and thread pools on PostgreSQL.
- ``aio_lag``: the event loop's lag while a ``LAG_ROWS``-row result is fetched (``await
  cur.fetchall()``, ``async for row in cur``; a sync cursor's fetchall in ``asyncio.to_thread``
  and psycopg's ``AsyncCursor.fetchall`` beside them): the delay of a 1 ms ticker task, max and
  p99; the sync fetchall (no loop) gives the time the fetch takes without asyncio.
- ``aio_overhead``: ``await cur.execute("SELECT 1")`` (and + ``await cur.fetchone()``) against
  the same sync calls on the same connection, interleaved in one process; psycopg's
  ``AsyncConnection`` against its ``Connection`` on PostgreSQL.
- ``fairness`` (issue 33): while one thread iterates the lag case's result row by row (``for row
  in cur``: the hog), another thread's ``SELECT 1`` + ``fetchone`` on a second connection, each
  call's latency (p50, p99, max), against the same calls with no hog; the hog's rows/s with and
  without them. fastodbc and pyodbc, the same code through each.

Select them with ``bench/run.py --only pool --only aio --only fairness``. Nothing to load:
PostgreSQL and MariaDB generate the lag result (``generate_series``, the ``seq_1_to_N`` table of
MariaDB's Sequence engine); SQLite reads a table written once to bench/data/pool.sqlite.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import backend_profiles as profiles
import datasets

OPS = ("pool", "aio_concurrency", "aio_lag", "aio_overhead", "fairness")
#: Repetitions: the per-operation cases are milliseconds a peer and sit on 2 noisy cores.
REPS = {"pool": 7, "aio_concurrency": 5, "aio_lag": 5, "aio_overhead": 7, "fairness": 5}
SQLITE_PATH = datasets.DATA_DIR / "pool.sqlite"
SELECT1 = "SELECT 1"

#: The pool of the concurrency case and its load (issue 20: 100 tasks on a pool of 8).
POOL_SIZE = 8
TASKS = 100
#: Each task's checkouts, per scale: ~0.3-2 s of work a measurement.
QUERIES_PER_TASK = {"full": 30, "quick": 10}
#: The lag case's result (issue 20: a 1M-row fetch).
LAG_ROWS = {"full": 1_000_000, "quick": 200_000}
#: The ticker's period, seconds.
TICK = 0.001
#: Issue 20's bar for the ticker's delay, seconds.
LAG_BAR = 0.005
#: Issue 33's bar for the fairness case's ``SELECT 1`` at p99 while another thread iterates:
#: ``sys.getswitchinterval()``'s default, what a thread coming back from a driver call may wait
#: for the GIL each time it takes it back.
FAIRNESS_BAR = 0.005
#: Seconds of the fairness case's ``SELECT 1`` loop with no hog (the reference latency), per scale.
FAIRNESS_REFERENCE_S = {"full": 1.0, "quick": 0.5}
#: The fairness case's first calls of each loop left out: the hog's first block and the loop's
#: own start, not the steady state.
FAIRNESS_SKIP = 3
# Checkouts (or connects) per measurement of the ``pool`` case (~0.2-1 s each) and the
# aio_overhead case's calls: each backend's pool_inner and overhead_calls.

#: The pool and asyncio peers of a native client with a pool and an async API of its own,
#: beside fastodbc's: {client: {case: peers}} ("inner" of a pool peer: "cold" or "warm").
NATIVE_POOL_PEERS: dict[str, dict[str, list[dict[str, Any]]]] = {
    "psycopg": {
        "pool": [
            {"peer": "psycopg", "how": "cold", "label": "psycopg connect", "inner": "cold"},
            {"peer": "psycopg", "how": "pool", "label": "psycopg_pool ConnectionPool", "inner": "warm"},
        ],
        "aio_concurrency": [
            {"peer": "psycopg", "how": "async", "label": "psycopg_pool AsyncConnectionPool, tasks"},
            {"peer": "psycopg", "how": "threads", "label": "psycopg_pool ConnectionPool, threads"},
        ],
        "aio_lag": [{"peer": "psycopg", "how": "fetchall", "label": "psycopg await fetchall"}],
        "aio_overhead": [{"peer": "psycopg", "label": "psycopg"}],
    },
}


def native_peers(backend: str, op: str) -> list[dict[str, Any]]:
    return [dict(p) for p in NATIVE_POOL_PEERS.get(profiles.BY_NAME[backend].native, {}).get(op, [])]


def pool_peers(backend: str, inner: dict[str, int]) -> list[dict[str, Any]]:
    peers = [
        {"peer": "fastodbc", "how": "cold", "label": "fastodbc connect", "inner": inner["cold"]},
        {"peer": "fastodbc", "how": "pool", "label": "fastodbc ConnectionPool", "inner": inner["warm"]},
        # Connections in autocommit: no transaction for the pool to end (a commit at the end of
        # the block, a rollback at the return: round trips on some drivers).
        {
            "peer": "fastodbc",
            "how": "pool",
            "autocommit": True,
            "label": "fastodbc ConnectionPool, autocommit",
            "inner": inner["warm"],
        },
        {"peer": "fastodbc", "how": "open", "label": "fastodbc open connection", "inner": inner["warm"]},
        # The pool's floor with autocommit off: the same transaction on a connection kept open
        # and no pool (the query, then COMMIT: two round trips on PostgreSQL and MariaDB).
        {
            "peer": "fastodbc",
            "how": "open_commit",
            "label": "fastodbc open connection, commit",
            "inner": inner["warm"],
        },
    ]
    return peers + [dict(p, inner=inner[p["inner"]]) for p in native_peers(backend, "pool")]


def concurrency_peers(backend: str) -> list[dict[str, Any]]:
    peers = [
        {"peer": "fastodbc", "how": "async", "label": "fastodbc AsyncConnectionPool, tasks"},
        {"peer": "fastodbc", "how": "threads", "label": "fastodbc ConnectionPool, threads"},
        {"peer": "fastodbc", "how": "sequential", "label": "fastodbc ConnectionPool, sequential"},
        {"peer": "fastodbc", "how": "connection", "label": "fastodbc one connection, sequential"},
    ]
    return peers + native_peers(backend, "aio_concurrency")


def lag_peers(backend: str) -> list[dict[str, Any]]:
    peers = [
        {"peer": "fastodbc", "how": "fetchall", "label": "fastodbc await fetchall"},
        {"peer": "fastodbc", "how": "iterate", "label": "fastodbc async for"},
        {"peer": "fastodbc", "how": "to_thread", "label": "fastodbc to_thread(fetchall)"},
        {"peer": "fastodbc", "how": "sync", "label": "fastodbc fetchall, no loop"},
    ]
    return peers + native_peers(backend, "aio_lag")


def overhead_peers(backend: str) -> list[dict[str, Any]]:
    peers = [{"peer": "fastodbc", "label": "fastodbc"}]
    return peers + native_peers(backend, "aio_overhead")


def fairness_peers() -> list[dict[str, Any]]:
    """The same code through fastodbc and through pyodbc (what a user has today)."""
    return [{"peer": "fastodbc", "label": "fastodbc"}, {"peer": "pyodbc", "label": "pyodbc"}]


def lag_sql(backend: str, rows: int) -> str:
    """``rows`` rows of (integer, double, short text) on each backend: its series_sql, else a
    table written once (``prepare``)."""
    series = profiles.BY_NAME[backend].series_sql
    return series.format(rows=rows) if series else f"SELECT i, x, s FROM {lag_table(rows)}"


def lag_table(rows: int) -> str:
    return f"lag_{rows}"


def base(backend: str) -> dict[str, Any]:
    return profiles.BY_NAME[backend].connection(SQLITE_PATH)


def prepare(scale: str, backends: list[str], log: Any = print) -> None:
    """The lag table of a backend that generates no series (SQLite's), written once (in
    bench/data/pool.sqlite: the stdlib's sqlite3 writes it)."""
    if not any(p.series_sql is None for p in profiles.selected(backends)):
        return
    rows = LAG_ROWS[scale]
    SQLITE_PATH.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(SQLITE_PATH)
    table = lag_table(rows)
    try:
        have = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    except sqlite3.OperationalError:
        have = None
    if have != rows:
        log(f"pool: writing {table} to {SQLITE_PATH.name}")
        con.execute(f"DROP TABLE IF EXISTS {table}")
        con.execute(f"CREATE TABLE {table} (i INTEGER, x DOUBLE, s VARCHAR(20))")
        con.execute(
            f"INSERT INTO {table} WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < {rows})"
            " SELECT i, i * 0.5, 'row ' || i FROM g"
        )
        con.commit()
    con.close()


def build_cases(scale: str, backends: list[str]) -> list[dict[str, Any]]:
    cases = []

    def case(op: str, backend: str, peers: list[dict], sql: str, **kw: Any) -> None:
        cases.append(dict(base(backend), op=op, dataset="", peers=peers, variant="", inner=1, sql=sql, **kw))

    for profile in profiles.selected(backends):
        backend = profile.name
        case("pool", backend, pool_peers(backend, profile.pool_inner[scale]), sql=SELECT1)
        per_task = QUERIES_PER_TASK[scale]
        case(
            "aio_concurrency",
            backend,
            concurrency_peers(backend),
            sql=SELECT1,
            pool_size=POOL_SIZE,
            tasks=TASKS,
            per_task=per_task,
            expected_rows=TASKS * per_task,
        )
        rows = LAG_ROWS[scale]
        case("aio_lag", backend, lag_peers(backend), sql=lag_sql(backend, rows), expected_rows=rows, tick=TICK)
        case("aio_overhead", backend, overhead_peers(backend), sql=SELECT1, calls=profile.overhead_calls[scale])
        # The hog reads the lag case's result: issue 33's long read, generated by the servers (nothing to load).
        case(
            "fairness",
            backend,
            fairness_peers(),
            sql=lag_sql(backend, rows),
            probe_sql=SELECT1,
            expected_rows=rows,
            reference_s=FAIRNESS_REFERENCE_S[scale],
            skip=FAIRNESS_SKIP,
        )
    return cases
