"""The benchmark's backends: what differs between them, as data (as tests/profiles is for the tests).

A module asks a backend's fields (which cases it hosts, which peers run there, its DDL, the SQL
that empties a table, how a case connects), never its name. Adding a database is a ``Backend``
here, its server script (bench/*.sh) and the peers that name its native client.

Stdlib only: the workers import it, under the peers' own interpreters too (bench/run.py).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus


@dataclasses.dataclass(frozen=True)
class Streaming:
    """The connection option that makes the driver stream a result rather than buffer it whole
    (the fetchmany and record_batch memory cases run with it)."""

    variant: str  # the case's variant, as the reports find it
    attributes: str  # what the connection string gains
    label: str  # the variant as the reports' tables name it
    autocommit: bool = False


@dataclasses.dataclass(frozen=True)
class Backend:
    name: str
    # The native reference client (a DB-API module: sqlite3, psycopg, pymysql): it loads and
    # empties tables and reads loads back, untimed, and is a peer where it has the operation.
    native: str
    # A database in a file: the ODBC connection string of a path ("{path}"). A server: None,
    # and connstr_env holds its connection string.
    file_connstr: str | None = None
    connstr_env: str | None = None
    # psycopg's DSN, for the native client and the peers that speak libpq.
    dsn_env: str | None = None
    # The native client's connect() arguments are read off the ODBC string (PyMySQL's).
    native_args_from_cs: bool = False
    # The script running the benchmark's own server (bench/run.py starts and stops it), the file
    # in bench/data/ it writes the server's `export` lines to, and the names the benchmark takes
    # them by ({the file's: ours}; empty: every line as it is).
    server_script: str | None = None
    server_env_file: str = ""
    server_env_names: dict[str, str] = dataclasses.field(default_factory=dict)
    # The fetch, insert and small-operation cases of issue 3 and the export cases: the backends
    # bench/datasets.py loads the fetch datasets into (datasets.LOADERS, by native client).
    fetch_cases: bool = False
    # Per scale: how many times the short operations run inside one measurement.
    inner: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    # Per scale: the row cap of insert peers that send one row per round trip (their rows/s
    # is what is compared; uncapped they would dominate the run).
    insert_caps: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    # Insert peers beyond the common ones (psycopg's COPY).
    more_insert_peers: tuple[str, ...] = ()
    # The insert takes ~1 s a peer and its ratio sits near its target: the short operations'
    # repetitions (bench/run.py SHORT_REPS).
    insert_short_reps: bool = False
    streaming: Streaming | None = None
    # The bulk load peers beyond fastodbc's and arrow-odbc's (bench/worker_bulk.py names them).
    ingest_peers: tuple[dict[str, Any], ...] = ()
    # A double read through the driver may be this far from the one stored (the export check).
    double_tolerance: float | None = None
    # The pool case's checkouts (or connects) a measurement, per scale: {"cold": n, "warm": n}.
    pool_inner: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    # The aio_overhead case's calls a measurement, per scale.
    overhead_calls: dict[str, int] = dataclasses.field(default_factory=dict)
    # The asyncio lag case's result: rows ({rows}) of (integer, double, short text). None: a
    # table of the benchmark's own (bench/pooling.py writes it).
    series_sql: str | None = None
    # The partitioned reads' URIs of ConnectorX and SQLAlchemy, from connection_parts().
    connectorx_uri: str = ""
    # The native (non-ODBC) Arrow clients that are peers of the Arrow case here (ARROW_ANCHORS:
    # "connectorx" reads connectorx_uri, "adbc" the ADBC driver adbc_driver at adbc_uri), shown
    # beside the ODBC peers as anchors, not targets (bench/report_arrow.py).
    arrow_anchors: tuple[str, ...] = ()
    adbc_driver: str = ""  # the ADBC driver's Python package (its DB-API: <package>.dbapi)
    adbc_uri: str = ""  # what its dbapi.connect() takes, from connection_parts()
    sqlalchemy_uri: str = ""
    sqlalchemy_driver: str = ""  # what the Dask peer reads through, as its label names it
    # fastodbc.dask.to_sql against ingest (partitioned writes: the servers).
    to_sql_cases: bool = False
    # The partitioned read's datasets are loaded by bench/partitioning.py (no fetch cases there).
    partitioning_loads: bool = False
    # How the partition keys are indexed: SQL telling whether {index} exists, and the
    # statements making it (None: the loader creates it with the table).
    index_exists_sql: str | None = None
    index_sql: tuple[str, ...] = ()
    # The server's process: SQL returning the session's process id (server_tree: a process a
    # connection, the server's is its parent) or the server's pid file.
    server_pid_sql: str | None = None
    server_tree: bool = False
    # The server's version, as the results record it (machine.<name>_server).
    version_sql: str | None = None
    # Statements emptying {table} (untimed, between repetitions), through the native client.
    empty_table_sql: tuple[str, ...] = ("TRUNCATE TABLE {table}",)
    # The Column field (bench/datasets.py) holding its DDL type.
    column_type_field: str = ""

    @property
    def server(self) -> bool:
        """A server (not a file database): a server's CPU is apart from the client's, and a
        connection is a round trip away."""
        return self.file_connstr is None

    def column_type(self, column: Any) -> str:
        return getattr(column, self.column_type_field)

    def connection(self, path: Path | None = None) -> dict[str, Any]:
        """A case's connection fields: the ODBC string (``cs``) and the native client's (a file's
        path, psycopg's DSN, PyMySQL's arguments). ``path``: a file database's file."""
        if self.file_connstr is not None:
            assert path is not None, f"{self.name} is a file: which one?"
            return {"backend": self.name, "cs": self.file_connstr.format(path=path), "sqlite_path": str(path)}
        assert self.connstr_env is not None
        fields: dict[str, Any] = {"backend": self.name, "cs": os.environ[self.connstr_env]}
        if self.dsn_env:
            fields["pg_dsn"] = os.environ[self.dsn_env]
        if self.native_args_from_cs:
            fields["mariadb"] = odbc_attributes(fields["cs"])
        return fields


def odbc_attributes(cs: str) -> dict[str, Any]:
    """PyMySQL's connect() arguments from a Connector/ODBC connection string."""
    kv = {}
    for part in cs.split(";"):
        k, _, v = part.partition("=")
        kv[k.strip().lower()] = v.strip()
    return {
        "host": kv.get("server", "127.0.0.1"),
        "port": int(kv.get("port", "3306")),
        "user": kv.get("user") or kv.get("uid", ""),
        "password": kv.get("password") or kv.get("pwd", ""),
        "database": kv.get("database", ""),
    }


def connection_parts(spec: dict[str, Any]) -> dict[str, Any]:
    """A case's connection as the URI templates' fields: path (a file database's), host, port,
    database, auth (user[:password], quoted), cs_quoted (the ODBC string, for odbc_connect)."""
    parts: dict[str, Any] = {"path": spec.get("sqlite_path", ""), "cs_quoted": quote_plus(spec.get("cs", ""))}
    backend = of(spec)
    if not backend.server:
        return parts
    if backend.dsn_env:
        kv = dict(part.split("=", 1) for part in spec["pg_dsn"].split())
        user, password, host, port, database = kv["user"], kv.get("password"), kv["host"], kv["port"], kv["dbname"]
    else:
        p = odbc_attributes(spec["cs"])
        user, password, host, port, database = p["user"], p["password"], p["host"], p["port"], p["database"]
    auth = user + (f":{quote(password, safe='')}" if password else "")
    return dict(parts, host=host, port=port, database=database, auth=auth)


#: The native Arrow clients a backend's arrow_anchors may name (bench/worker.py runs them).
ARROW_ANCHORS: tuple[str, ...] = ("connectorx", "adbc")

SQLITE = Backend(
    name="sqlite",
    native="sqlite3",
    file_connstr="Driver={{SQLite3}};Database={path};",
    fetch_cases=True,
    inner={
        "full": {"small": 20, "select1": 3000, "connect": 200, "describe": 2000},
        "quick": {"small": 5, "select1": 1000, "connect": 50, "describe": 500},
    },
    insert_short_reps=True,
    # sqliteodbc buffers the whole result too, unless StepAPI=1 on an autocommit connection.
    streaming=Streaming("StepAPI=1, autocommit", "StepAPI=1;", "StepAPI=1, autocommit", autocommit=True),
    ingest_peers=({"peer": "sqlite3", "label": "sqlite3 executemany"},),
    # sqliteodbc hands a REAL over as SQLite's text of it (15 significant digits, not always
    # correctly rounded).
    double_tolerance=1e-14,
    pool_inner={"full": {"cold": 500, "warm": 5000}, "quick": {"cold": 150, "warm": 1500}},
    overhead_calls={"full": 4000, "quick": 1200},
    connectorx_uri="sqlite://{path}",
    arrow_anchors=ARROW_ANCHORS,
    adbc_driver="adbc_driver_sqlite",
    adbc_uri="{path}",
    sqlalchemy_uri="sqlite:///{path}",
    sqlalchemy_driver="sqlite (stdlib sqlite3)",
    index_exists_sql="SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '{index}'",
    index_sql=("CREATE INDEX {index} ON {table} ({column})",),
    # VACUUM gives the pages back: the next load starts from the same file size.
    empty_table_sql=("DELETE FROM {table}", "VACUUM"),
    column_type_field="sqlite",
)

POSTGRESQL = Backend(
    name="postgresql",
    native="psycopg",
    connstr_env="FASTODBC_BENCH_PG",
    dsn_env="FASTODBC_BENCH_PG_DSN",
    server_script="pg.sh",
    server_env_file="pg.env",
    fetch_cases=True,
    inner={
        "full": {"small": 20, "select1": 500, "connect": 30, "describe": 300},
        "quick": {"small": 5, "select1": 200, "connect": 10, "describe": 100},
    },
    insert_caps={"full": {"pyodbc": 20_000, "turbodbc": 20_000}, "quick": {"pyodbc": 5_000, "turbodbc": 5_000}},
    more_insert_peers=("psycopg-copy",),
    # psqlODBC buffers the whole result unless UseDeclareFetch=1 (server-side cursor).
    streaming=Streaming("UseDeclareFetch=1;Fetch=10000", ";UseDeclareFetch=1;Fetch=10000", "UseDeclareFetch=1"),
    ingest_peers=(
        {"peer": "psycopg-copy", "how": "text", "label": "psycopg COPY text"},
        {"peer": "psycopg-copy", "how": "binary", "label": "psycopg COPY binary"},
    ),
    # A cold connect is ~3-6 ms.
    pool_inner={"full": {"cold": 60, "warm": 2000}, "quick": {"cold": 20, "warm": 600}},
    overhead_calls={"full": 1500, "quick": 500},
    series_sql=(
        "SELECT i, i * 0.5::float8 AS x, ('row ' || i)::varchar(20) AS s FROM generate_series(1, {rows}) AS g(i)"
    ),
    connectorx_uri="postgresql://{auth}@{host}:{port}/{database}",
    arrow_anchors=ARROW_ANCHORS,
    adbc_driver="adbc_driver_postgresql",
    adbc_uri="postgresql://{auth}@{host}:{port}/{database}",
    # No pyodbc dialect for PostgreSQL in SQLAlchemy.
    sqlalchemy_uri="postgresql+psycopg://{auth}@{host}:{port}/{database}",
    sqlalchemy_driver="postgresql+psycopg",
    to_sql_cases=True,
    index_exists_sql="SELECT (to_regclass('{index}') IS NOT NULL)::int",
    index_sql=("CREATE INDEX {index} ON {table} ({column})", "VACUUM (ANALYZE) {table}"),
    server_pid_sql="SELECT pg_backend_pid()",
    # Each connection is served by a process of its own, a child of the postmaster.
    server_tree=True,
    version_sql="SHOW server_version",
    empty_table_sql=("TRUNCATE {table}",),
    column_type_field="pg",
)

MARIADB = Backend(
    name="mariadb",
    native="pymysql",
    connstr_env="FASTODBC_BENCH_MARIADB",
    native_args_from_cs=True,
    server_script="mariadb.sh",
    server_env_file="mariadb.env",
    # The tests' server script, run with the benchmark's env file (bench/mariadb.sh).
    server_env_names={"FASTODBC_TEST_MARIADB": "FASTODBC_BENCH_MARIADB"},
    ingest_peers=(
        {"peer": "pyodbc-fem", "label": "pyodbc fast_executemany"},
        {"peer": "pymysql", "label": "PyMySQL executemany"},
    ),
    # A cold connect is ~1.5 ms.
    pool_inner={"full": {"cold": 200, "warm": 2000}, "quick": {"cold": 60, "warm": 600}},
    overhead_calls={"full": 1500, "quick": 500},
    # The Sequence engine's seq_1_to_N table.
    series_sql=("SELECT seq AS i, seq * 0.5e0 AS x, CAST(CONCAT('row ', seq) AS CHAR(20)) AS s FROM seq_1_to_{rows}"),
    connectorx_uri="mysql://{auth}@{host}:{port}/{database}",
    # No arrow_anchors: MariaDB hosts no fetch cases, hence no Arrow case (nor has the ADBC project
    # a MySQL driver on PyPI).
    sqlalchemy_uri="mysql+pyodbc:///?odbc_connect={cs_quoted}",
    sqlalchemy_driver="mysql+pyodbc",
    to_sql_cases=True,
    partitioning_loads=True,
    # Threads of one process: its pid file names it.
    server_pid_sql="SELECT @@pid_file",
    version_sql="SELECT VERSION()",
    column_type_field="mariadb",
)

#: Every backend, in the order of the cases and the reports' tables.
BACKENDS: tuple[Backend, ...] = (SQLITE, POSTGRESQL, MARIADB)
BY_NAME: dict[str, Backend] = {b.name: b for b in BACKENDS}
NAMES: tuple[str, ...] = tuple(BY_NAME)


#: The backends of the fetch cases (issue 3), in the reports' order.
FETCH: tuple[str, ...] = tuple(b.name for b in BACKENDS if b.fetch_cases)
#: The backends that are servers: where the pool's and the partitioned reads' targets are judged.
SERVERS: tuple[str, ...] = tuple(b.name for b in BACKENDS if b.server)


def of(case: dict[str, Any]) -> Backend:
    """The backend of a case (or a worker's spec)."""
    return BY_NAME[case["backend"]]


def selected(names: list[str] | tuple[str, ...]) -> list[Backend]:
    """The backends among ``names``, in BACKENDS order."""
    return [b for b in BACKENDS if b.name in names]


def named(names: list[str] | tuple[str, ...]) -> list[Backend]:
    """The backends of ``names``, in that order (the order of --backend)."""
    return [BY_NAME[n] for n in names]
