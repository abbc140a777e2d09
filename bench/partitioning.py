"""The partitioned read cases (``fastodbc.partition`` / ``fastodbc.dask``), built for bench/run.py
(measured by bench/worker_parallel.py, reported by bench/report_parallel.py).

- ``parallel_read`` (SQLite, PostgreSQL, MariaDB; datasets ``int10`` split on ``c0``, ``mixed`` on
  ``id``): ``plan.read()`` of a plan of 1, 2, 4 and 8 partitions against one connection's
  ``cursor.execute(q).fetch_arrow_table()``, with the client's and the server's CPU time beside
  the wall time (/proc: bench/worker_parallel.py); and, with 4 partitions, ConnectorX
  (``read_sql(..., partition_on=, partition_num=, return_type="arrow")``), Dask's
  ``read_sql_table`` over SQLAlchemy (MariaDB: ``mysql+pyodbc``; PostgreSQL and SQLite have no
  pyodbc dialect: ``postgresql+psycopg`` and ``sqlite``) and ``fastodbc.dask.read_sql``, both
  computed on Dask's threaded scheduler, all interleaved in one case.
- ``parallel_to_sql`` (PostgreSQL, MariaDB): ``fastodbc.dask.to_sql`` of a 4-partition Dask frame
  of the insert case's ``mixed`` rows against one ``cursor.ingest`` of the same rows.

The partition key is indexed on every backend (``prepare``), as a key chosen for a partitioned
read is: without an index each partition scans the whole table and the server's CPU grows with
the partitions whoever the client is. MariaDB holds no fetch dataset otherwise: ``prepare``
loads ``int10`` and ``mixed`` there (PyMySQL, once per server: its data is thrown away with it).

Select them with ``bench/run.py --only parallel``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import backend_profiles as profiles
import bulk
import datasets
import native_clients

OPS = ("parallel_read", "parallel_to_sql")
DATASETS = ("int10", "mixed")
#: The partition key of each dataset (int10's values are uniform random 32-bit integers,
#: mixed's ``id`` counts up in the rows' physical order).
KEY = {"int10": "c0", "mixed": "id"}
#: The plans measured for the parallel efficiency (the issue's N = 1, 2, 4, 8).
PARTITIONS = (1, 2, 4, 8)
#: The partitions of the wall-time target and of the peers.
PEER_PARTITIONS = 4
#: Repetitions: every ratio is judged between peers of the same case on 2 noisy cores.
REPS = {"parallel_read": 5, "parallel_to_sql": 5}
#: The to_sql case's target table (never a fetch dataset's).
TO_SQL_TABLE = "par_mixed"

ONE = "fastodbc one connection"
CONNECTORX = f"ConnectorX, {PEER_PARTITIONS} partitions"
FASTODBC_DASK = f"fastodbc.dask.read_sql, {PEER_PARTITIONS} partitions"
TO_SQL = f"fastodbc.dask.to_sql, {PEER_PARTITIONS} partitions"
INGEST = "fastodbc ingest, one connection"


def plan_label(n: int) -> str:
    return f"fastodbc plan.read, {n} partition{'s' if n > 1 else ''}"


def dask_label(backend: str) -> str:
    # What the Dask peer reads through (SQLAlchemy's dialect and DBAPI).
    return f"Dask read_sql_table ({profiles.BY_NAME[backend].sqlalchemy_driver}), {PEER_PARTITIONS} partitions"


def read_peers(backend: str) -> list[dict[str, Any]]:
    peers: list[dict[str, Any]] = [{"peer": "fastodbc", "how": "one", "label": ONE}]
    peers += [{"peer": "fastodbc", "how": "plan", "partitions": n, "label": plan_label(n)} for n in PARTITIONS]
    n = PEER_PARTITIONS
    peers += [
        {"peer": "connectorx", "partitions": n, "label": CONNECTORX},
        {"peer": "dask-sqlalchemy", "partitions": n, "label": dask_label(backend)},
        {"peer": "fastodbc-dask", "partitions": n, "label": FASTODBC_DASK},
    ]
    return peers


def to_sql_peers() -> list[dict[str, Any]]:
    return [
        {"peer": "fastodbc-dask", "how": "to_sql", "partitions": PEER_PARTITIONS, "label": TO_SQL},
        {"peer": "fastodbc", "how": "ingest", "label": INGEST},
    ]


def base(backend: str) -> dict[str, Any]:
    return profiles.BY_NAME[backend].connection(datasets.SQLITE_PATH)


def build_cases(scale: str, backends: list[str]) -> list[dict[str, Any]]:
    rows = datasets.SCALES[scale]
    cases = []
    for backend in (p.name for p in profiles.selected(backends)):
        for key in DATASETS:
            table = datasets.table_name(key, scale)
            c = dict(base(backend), op="parallel_read", dataset=key, table=table, key=KEY[key], variant="", inner=1)
            c.update(peers=read_peers(backend), sql=f"SELECT * FROM {table}", expected_rows=rows[key])
            cases.append(c)
    for backend in (p.name for p in profiles.selected(backends) if p.to_sql_cases):
        n = rows["insert"]
        c = dict(base(backend), op="parallel_to_sql", dataset=f"mixed_{n}", table=TO_SQL_TABLE, variant="", inner=1)
        c.update(peers=to_sql_peers(), sql="", expected_rows=n, parquet_path=str(bulk.parquet_path(n)))
        cases.append(c)
    return cases


# ---------------------------------------------------------------------------------------------
# Preparation (untimed): MariaDB's datasets, the keys' indexes, the server processes, the input


def prepare(scale: str, cases: list[dict[str, Any]], log: Callable[[str], None] = print) -> None:
    """Everything the selected cases need beyond bench/datasets.py's loads (which run.py does
    for SQLite and PostgreSQL): MariaDB's tables, the indexes, the server's process id in
    each case (``server_pid``: where its CPU time is read), the to_sql input file."""
    read = {c["backend"] for c in cases if c["op"] == "parallel_read"}
    for profile in profiles.selected(sorted(read)):
        if profile.partitioning_loads:
            load_mariadb(profile, scale, log)
    for backend in sorted(read):
        index_keys(backend, scale)
    pids = {b: server_pid(b) for b in {c["backend"] for c in cases if c["op"] in OPS}}
    for c in cases:
        if c["op"] in OPS:
            c["server_pid"] = pids[c["backend"]]
            # A process a connection (PostgreSQL's, children of the postmaster), or threads of
            # one process (MariaDB's).
            c["server_tree"] = profiles.of(c).server_tree
    to_sql = sorted({c["backend"] for c in cases if c["op"] == "parallel_to_sql"})
    if to_sql:
        # The insert case's Parquet file (bench/bulk.py writes what is missing, once).
        bulk.prepare(scale, [], log=log)


def index_keys(backend: str, scale: str) -> None:
    """The partition keys' indexes, where missing (a backend without index_sql: the loader made them)."""
    profile = profiles.BY_NAME[backend]
    if not profile.index_sql:
        return
    conn = base(backend)
    for key in DATASETS:
        table, col = datasets.table_name(key, scale), KEY[key]
        index = f"{table}_{col}_idx"
        if native_clients.query(conn, str(profile.index_exists_sql).format(index=index))[0][0]:
            continue
        native_clients.execute(conn, *(sql.format(index=index, table=table, column=col) for sql in profile.index_sql))


#: How MariaDB's tables key the partition column: mixed's ``id`` is its table's natural key
#: (InnoDB clusters the rows on it, so a range of it is one sequential stretch); int10's ``c0``
#: is random and may repeat: a secondary index. (PostgreSQL's and SQLite's tables are shared
#: with the fetch cases, whose described nullability a primary key would change: an index.)
MARIADB_KEY = {"int10": "INDEX (c0)", "mixed": "PRIMARY KEY (id)"}
#: The generator's version and this layout's, as MariaDB's bench_meta keeps it.
MARIADB_VERSION = datasets.GENERATOR_VERSION * 1000 + 2


def load_mariadb(profile: profiles.Backend, scale: str, log: Callable[[str], None] = print) -> None:
    """int10 and mixed of ``scale`` into a backend without fetch cases (partitioning_loads:
    MariaDB, through PyMySQL), a ``bench_meta`` row per table, as the other loaders keep: a
    server kept between runs is not loaded again."""
    con = native_clients.connect(base(profile.name))
    with con.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS bench_meta (tbl VARCHAR(64) PRIMARY KEY, rows_ INT, version INT)")
        cur.execute("SELECT tbl, rows_, version FROM bench_meta")
        meta = {t: (r, v) for t, r, v in cur.fetchall()}
        for key in DATASETS:
            table, rows = datasets.table_name(key, scale), datasets.SCALES[scale][key]
            if meta.get(table) == (rows, MARIADB_VERSION):
                continue
            t0 = time.perf_counter()
            ds = datasets.DATASETS[key]
            cols = ", ".join(f"{c.name} {profile.column_type(c) or 'INT'}" for c in ds.columns)
            cur.execute(f"DROP TABLE IF EXISTS {table}")
            cur.execute(f"CREATE TABLE {table} ({cols}, {MARIADB_KEY[key]})")
            insert = f"INSERT INTO {table} VALUES ({', '.join(['%s'] * len(ds.columns))})"
            chunk: list[tuple] = []
            for r in ds.rows(rows):
                chunk.append(r)
                if len(chunk) == 5000:
                    cur.executemany(insert, chunk)
                    chunk = []
            if chunk:
                cur.executemany(insert, chunk)
            cur.execute(f"ANALYZE TABLE {table}")
            cur.fetchall()
            cur.execute("REPLACE INTO bench_meta VALUES (%s, %s, %s)", (table, rows, MARIADB_VERSION))
            log(f"parallel: mariadb {table}: {rows} rows loaded in {time.perf_counter() - t0:.1f} s")
    con.close()


def server_pid(backend: str) -> int | None:
    """The process whose CPU time is the server's: the parent of the session's process where
    each connection has its own (PostgreSQL's postmaster), else the process of the server's pid
    file (MariaDB's mariadbd); None where it is not on this host (or a file database)."""
    profile = profiles.BY_NAME[backend]
    if profile.server_pid_sql is None:
        return None
    answer = native_clients.query(base(backend), profile.server_pid_sql)[0][0]
    pid = None
    if profile.server_tree:
        stat = Path(f"/proc/{answer}/stat")
        if stat.exists():
            pid = int(stat.read_text().rsplit(")", 1)[1].split()[1])  # the session's parent
    elif Path(answer).exists():
        pid = int(Path(answer).read_text().split()[0])
    return pid if pid is not None and Path(f"/proc/{pid}/stat").exists() else None
