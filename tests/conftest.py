"""Shared fixtures for the fastodbc test suite.

One test, many databases: every test that takes ``backend`` (or ``cnxn`` / ``cursor`` /
``table``) runs once per profile in BACKENDS. A profile carries the driver's quirks as data
(see :class:`Profile`), so tests state *what* they expect and the profile says how a given
database/driver pair behaves.

Environment:
  FASTODBC_TEST_MODULE  module under test (default ``fastodbc``; ``pyodbc`` runs the suite
                        against the oracle, skipping ``fastodbc_only`` tests)
  FASTODBC_TEST_PG      PostgreSQL connection string; unset -> PostgreSQL tests skip,
                        or fail when CI is set.
  FASTODBC_TEST_MARIADB MariaDB connection string (MariaDB Connector/ODBC); the same.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import importlib
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Use the project's own driver registry when it exists (the Makefile sets these too), so a
# bare `pytest` never goes through /etc/odbcinst.ini (whose psqlODBC entry has CommLog=1).
_ODBC_DIR = ROOT / "build" / "odbc"
if "ODBCSYSINI" not in os.environ and (_ODBC_DIR / "odbcinst.ini").is_file():
    os.environ["ODBCSYSINI"] = str(_ODBC_DIR)
    os.environ.setdefault("ODBCINI", str(_ODBC_DIR / "odbc.ini"))

MODULE_NAME = os.environ.get("FASTODBC_TEST_MODULE", "fastodbc")
IS_PYODBC = MODULE_NAME == "pyodbc"


# --------------------------------------------------------------------------- profiles


@dataclasses.dataclass(frozen=True)
class Profile:
    """A database + ODBC driver pair, with its documented quirks.

    The defaults are what standard SQL and a well-behaved driver do; a profile states only
    where its database or driver differs."""

    name: str
    connstr: str  # includes the attributes that bound lock waits (see *_profile below)
    ddl_map: dict[str, str]
    # -- types
    supports_uuid: bool = True
    min_date: datetime.date = datetime.date(1, 1, 1)
    max_date: datetime.date = datetime.date(9999, 12, 31)
    float_digits: int = 17  # significant digits a double keeps through the driver
    keeps_negative_zero: bool = True  # -0.0 comes back with its sign
    supports_nan: bool = True  # NaN / inf stored and returned as such
    timestamp_precision: int = 6  # fractional-second digits a TIMESTAMP keeps
    time_precision: int = 6  # fractional-second digits a TIME is documented to keep (at least)
    numeric_is_float: bool = False  # NUMERIC(p,s) is described as SQL_DOUBLE -> float
    char_pads: bool = True  # CHAR(n) values come back blank-padded
    int_column_is_64bit: bool = False  # an INTEGER column accepts values beyond 32 bits
    # -- statements / results
    multiple_statements: bool = False  # "select 1; select 2" in one execute
    bad_cast_raises: bool = True  # CAST('abc' AS INTEGER) raises DataError
    division_by_zero_raises: bool = True
    honours_query_timeout: bool = True
    has_notices: bool = False  # server messages (RAISE NOTICE) reach cursor.messages
    untyped_param_is_text: bool = False  # `SELECT ?` returns the parameter as str
    select_rowcount_known: bool = True  # SQLRowCount after SELECT is the row count
    # -- errors: (SQLSTATE prefix, exception class name) the driver reports
    syntax_error: tuple[str, str] = ("42", "ProgrammingError")
    unique_violation: tuple[str, str] = ("23", "IntegrityError")
    missing_table: tuple[str, str] = ("42", "ProgrammingError")
    statement_level_rollback: bool = True  # a failed statement leaves the transaction open
    # -- SQL snippets
    series_sql: str = (  # a query with one column `i` = 1..{n}
        "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {n}) "
        "SELECT i FROM s"
    )
    # -- faults (tests/test_faults.py); None where the database has no such thing
    busy_sql: str = (  # runs for a minute or more unless interrupted
        "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1000000000) "
        "SELECT COUNT(*) FROM s"
    )
    # SQLSTATE -> exception class of an execution cancel() interrupted; HY008 is fastodbc's
    # own, for a cancel that came just after the driver finished or while a result was read.
    cancelled: dict[str, str] = dataclasses.field(default_factory=lambda: {"HY008": "OperationalError"})
    timed_out: tuple[str, ...] = ("HYT00", "HYT01")  # SQLSTATEs of a query timeout (OperationalError)
    session_id_sql: str | None = None  # this session's id on the server
    kill_session_sql: str | None = None  # ends session {id}, from another session
    session_count_sql: str | None = None  # 1 while session {id} exists, 0 once it is gone
    lost_connection_states: tuple[str, ...] = ("08",)  # SQLSTATE prefixes of a lost connection
    streaming_attrs: str | None = None  # connection attributes with which results stream
    # Makes COMMIT of rows inserted into table {t} wait {s} seconds a row, in the server; and
    # what drops it again beside the table.
    slow_commit_ddl: tuple[str, ...] = ()
    slow_commit_cleanup: tuple[str, ...] = ()
    # Environment variables naming the script that halts and resumes the test server
    # (scripts/pg.sh, scripts/mariadb.sh) and that server's port.
    server_ctl_env: tuple[str, str] | None = None

    def ddl(self, kind: str) -> str:
        """DDL for an abstract column type ('int', 'bigint', 'text', 'bytes', ...)."""
        try:
            return self.ddl_map[kind]
        except KeyError:
            raise KeyError(f"profile {self.name!r} has no DDL for {kind!r}") from None

    def series(self, n: int) -> str:
        return self.series_sql.format(n=int(n))

    def select_rowcounts(self, n: int) -> tuple[int, ...]:
        """rowcount values allowed after a SELECT returning n rows (DB-API: -1 if unknown)."""
        # sqliteodbc's SQLRowCount after a SELECT is 0.
        return (-1, n) if self.select_rowcount_known else (-1, 0, n)

    def float_roundtrip(self, value: float) -> float:
        """The value a double comes back as, given float_digits significant digits."""
        if self.float_digits >= 17:
            return value
        return float(f"{value:.{self.float_digits}g}")

    def timestamp_roundtrip(self, value: datetime.datetime) -> datetime.datetime:
        return value.replace(microsecond=_truncate_us(value.microsecond, self.timestamp_precision))

    def time_roundtrip(self, value: datetime.time) -> datetime.time:
        return value.replace(microsecond=_truncate_us(value.microsecond, self.time_precision))

    def session_id(self, cnxn) -> int:
        """The server's id of the session behind connection `cnxn`."""
        return int(cnxn.cursor().execute(self.session_id_sql).fetchval())

    def kill_session(self, admin, session_id: int, wait: float = 10.0) -> None:
        """Ends session `session_id` from connection `admin` (autocommit) and waits until the
        server has let it go."""
        admin.cursor().execute(self.kill_session_sql.format(id=int(session_id)))
        deadline = time.monotonic() + wait
        count = self.session_count_sql.format(id=int(session_id))
        while admin.cursor().execute(count).fetchval():
            assert time.monotonic() < deadline, f"session {session_id} still there after {wait} s"
            time.sleep(0.01)

    def server_control(self) -> ServerControl | None:
        """Stops and starts this profile's server, when the environment names the script that
        does it for the server the connection string points at (build/*.env of scripts/)."""
        if self.server_ctl_env is None:
            return None
        script, port = (os.environ.get(name) for name in self.server_ctl_env)
        if not script or not port or not re.search(rf"(?i)(^|;)\s*port={port}\s*(;|$)", self.connstr):
            return None
        return ServerControl(script)


class ServerControl:
    """Halts and resumes a test server through its script (scripts/pg.sh, scripts/mariadb.sh):
    same data, same port."""

    def __init__(self, script: str):
        self.script = script

    def _run(self, command: str) -> None:
        # Output to a file, not a pipe: the server started by `resume` may hold on to the
        # script's stdout (a descriptor bash leaves open), and reading a pipe to its end would
        # wait for the server to exit.
        with tempfile.TemporaryFile("w+") as out:
            done = subprocess.run(["bash", self.script, command], stdout=out, stderr=out, timeout=120)
            out.seek(0)
            assert done.returncode == 0, f"{self.script} {command}: {out.read()}"

    def halt(self) -> None:
        self._run("halt")

    def resume(self) -> None:
        self._run("resume")


def _truncate_us(us: int, digits: int) -> int:
    step = 10 ** (6 - digits)
    return us - us % step


_COMMON_DDL = {
    "int": "INTEGER",
    "bigint": "BIGINT",
    "smallint": "SMALLINT",
    "float": "DOUBLE PRECISION",
    "real": "REAL",
    "numeric(18,4)": "NUMERIC(18,4)",
    "numeric(38,10)": "NUMERIC(38,10)",
    "numeric(38,0)": "NUMERIC(38,0)",
    "varchar(10)": "VARCHAR(10)",
    "varchar(50)": "VARCHAR(50)",
    "varchar(255)": "VARCHAR(255)",
    "char(5)": "CHAR(5)",
    "text": "TEXT",
    "date": "DATE",
    "time": "TIME",
    "bool": "BOOLEAN",
}

SQLITE_DDL = {
    **_COMMON_DDL,
    "float": "DOUBLE",
    "bytes": "BLOB",
    "timestamp": "TIMESTAMP",
    "uuid": "VARCHAR(36)",
}

POSTGRESQL_DDL = {
    **_COMMON_DDL,
    "bytes": "BYTEA",
    "timestamp": "TIMESTAMP(6)",
    "uuid": "UUID",
}

MARIADB_DDL = {
    **_COMMON_DDL,
    "float": "DOUBLE",
    "real": "FLOAT",  # MariaDB's REAL is a DOUBLE
    "text": "LONGTEXT",  # TEXT holds 64 KiB
    "time": "TIME(6)",  # TIME keeps no fraction
    "bytes": "LONGBLOB",
    "timestamp": "DATETIME(6)",  # TIMESTAMP is 1970-2038, in the session's time zone
    "uuid": "UUID",
}


# Every test connection bounds its lock waits (10 s): a test that leaks a transaction or a
# lock then makes the next one fail fast instead of hanging the suite.
LOCK_TIMEOUT_S = 10


def sqlite_profile(path: Path) -> Profile:
    return Profile(
        name="sqlite",
        # Timeout: sqliteodbc's busy timeout (ms); its default is 100 s.
        connstr=f"Driver={{SQLite3}};Database={path};Timeout={LOCK_TIMEOUT_S * 1000};",
        ddl_map=SQLITE_DDL,
        supports_uuid=False,
        float_digits=15,
        keeps_negative_zero=False,
        supports_nan=False,  # NaN is stored as NULL
        timestamp_precision=6,  # bound as text: the struct path keeps ms
        time_precision=6,  # times are bound and fetched as text
        numeric_is_float=True,
        char_pads=False,
        int_column_is_64bit=True,
        bad_cast_raises=False,  # CAST('abc' AS INTEGER) is 0
        division_by_zero_raises=False,  # 1/0 is NULL
        honours_query_timeout=False,
        select_rowcount_known=False,
        syntax_error=("HY000", "Error"),  # sqliteodbc reports every error as HY000
        unique_violation=("HY000", "Error"),
        missing_table=("HY000", "Error"),
        cancelled={"HY000": "DatabaseError", "HY008": "OperationalError"},  # "interrupted"
    )


def postgresql_profile(connstr: str) -> Profile:
    return Profile(
        name="postgresql",
        # ConnSettings: SQL psqlODBC runs after connecting.
        connstr=f"{connstr.rstrip(';')};ConnSettings={{SET lock_timeout = '{LOCK_TIMEOUT_S}s'}}",
        ddl_map=POSTGRESQL_DDL,
        multiple_statements=True,
        has_notices=True,
        untyped_param_is_text=True,
        select_rowcount_known=True,  # UseDeclareFetch=0: the driver holds the whole result
        series_sql="SELECT i FROM generate_series(1, {n}) AS s(i)",
        busy_sql="SELECT pg_sleep(60)",
        cancelled={"57014": "OperationalError", "HY008": "OperationalError"},
        timed_out=("57014", "HYT00", "HYT01"),
        session_id_sql="SELECT pg_backend_pid()",
        kill_session_sql="SELECT pg_terminate_backend({id})",
        session_count_sql="SELECT COUNT(*) FROM pg_stat_activity WHERE pid = {id}",
        # 57P01: "terminating connection due to administrator command", the server's goodbye.
        lost_connection_states=("08", "57P01"),
        streaming_attrs="UseDeclareFetch=1;Fetch=100",  # a server-side cursor
        slow_commit_ddl=(
            "CREATE OR REPLACE FUNCTION {t}_slow() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN PERFORM pg_sleep({s}); RETURN NULL; END $$",
            "CREATE CONSTRAINT TRIGGER {t}_slow AFTER INSERT ON {t} DEFERRABLE INITIALLY DEFERRED "
            "FOR EACH ROW EXECUTE FUNCTION {t}_slow()",
        ),
        slow_commit_cleanup=("DROP FUNCTION IF EXISTS {t}_slow() CASCADE",),
        server_ctl_env=("FASTODBC_PG_CTL", "FASTODBC_PG_PORT"),
    )


def mariadb_profile(connstr: str) -> Profile:
    return Profile(
        name="mariadb",
        # InitStmt: SQL Connector/ODBC runs after connecting. lock_wait_timeout bounds metadata
        # locks (DROP TABLE waits a year by default), innodb_lock_wait_timeout row locks.
        connstr=(
            f"{connstr.rstrip(';')};InitStmt={{SET lock_wait_timeout = {LOCK_TIMEOUT_S}, "
            f"innodb_lock_wait_timeout = {LOCK_TIMEOUT_S}}}"
        ),
        ddl_map=MARIADB_DDL,
        series_sql="SELECT seq AS i FROM seq_1_to_{n}",
        honours_query_timeout=False,  # Connector/ODBC 3.1.15 accepts SQL_ATTR_QUERY_TIMEOUT, ignores it
        busy_sql="SELECT SLEEP(60)",
        # The driver's KILL QUERY (error 1317, "Query execution was interrupted") as HY018.
        cancelled={"HY018": "DatabaseError", "HY008": "OperationalError"},
        session_id_sql="SELECT CONNECTION_ID()",
        kill_session_sql="KILL {id}",
        session_count_sql="SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = {id}",
        server_ctl_env=("FASTODBC_MARIADB_CTL", "FASTODBC_MARIADB_PORT"),
    )


# Server backends: the environment variable holding the connection string, and the profile.
SERVER_BACKENDS = {
    "postgresql": ("FASTODBC_TEST_PG", postgresql_profile),
    "mariadb": ("FASTODBC_TEST_MARIADB", mariadb_profile),
}
BACKENDS = ["sqlite", *SERVER_BACKENDS]


# --------------------------------------------------------------------------- pytest hooks


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fastodbc_only(reason=..., backends=None): fastodbc-specific behaviour; skipped when "
        "the module under test is pyodbc (only on the listed backends, if given)",
    )


def _param_backend(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    return callspec.params.get("backend")


@pytest.fixture(autouse=True)
def _fastodbc_only(request: pytest.FixtureRequest) -> None:
    if not IS_PYODBC:
        return
    for marker in request.node.iter_markers("fastodbc_only"):
        backends = marker.kwargs.get("backends")
        reason = marker.kwargs.get("reason", "fastodbc-specific behaviour")
        if backends is None or _param_backend(request.node) in backends:
            pytest.skip(f"fastodbc_only: {reason}")


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def db():
    """The module under test (fastodbc, or pyodbc as the oracle)."""
    return importlib.import_module(MODULE_NAME)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Profile:
    if request.param == "sqlite":
        return sqlite_profile(tmp_path / "test.sqlite")
    env, profile = SERVER_BACKENDS[request.param]
    connstr = os.environ.get(env)
    if not connstr:
        if os.environ.get("CI"):
            pytest.fail(f"{env} is not set: CI must run the {request.param} tests")
        pytest.skip(f"{env} is not set")
    return profile(connstr)


class Connector:
    """connect(connstr=None, **kwargs) -> a new connection, closed after the test."""

    def __init__(self, db, backend: Profile):
        self._db = db
        self._backend = backend
        self.opened: list[Any] = []

    def __call__(self, connstr: str | None = None, **kwargs: Any):
        c = self._db.connect(connstr or self._backend.connstr, **kwargs)
        self.opened.append(c)
        return c

    def track(self, c):
        """Register a connection opened elsewhere, so teardown closes it too."""
        self.opened.append(c)
        return c

    def release(self) -> None:
        """Roll back every connection still open (frees locks before DROP TABLE)."""
        for c in self.opened:
            try:
                c.rollback()
            except Exception:
                pass

    def close_all(self) -> None:
        for c in reversed(self.opened):
            try:
                c.close()
            except Exception:
                pass


@pytest.fixture
def connect(db, backend: Profile):
    connector = Connector(db, backend)
    yield connector
    connector.close_all()


@pytest.fixture
def cnxn(connect):
    """A connection with autocommit off (the DB-API default)."""
    return connect()


@pytest.fixture
def cursor(cnxn):
    return cnxn.cursor()


def table_name_for(request: pytest.FixtureRequest, suffix: str = "") -> str:
    name = request.node.name
    base = re.sub(r"\[.*\]$", "", name)
    base = re.sub(r"^test_", "", base)
    base = re.sub(r"[^0-9a-zA-Z_]", "_", base).lower()
    digest = hashlib.sha1(name.encode()).hexdigest()[:6]
    return f"t_{base[:40]}_{digest}{suffix}"


def _admin_connect(db, backend: Profile):
    """An autocommit connection for DDL (its lock waits bounded, as every test connection's)."""
    return db.connect(backend.connstr, autocommit=True)


def _drop_table(db, backend: Profile, name: str) -> None:
    c = _admin_connect(db, backend)
    try:
        c.cursor().execute(f"DROP TABLE IF EXISTS {name}")
    finally:
        c.close()


class TableFactory:
    """table() -> a fresh table name for this test, dropped before and after."""

    def __init__(self, request, db, backend, connector: Connector):
        self._request = request
        self._db = db
        self._backend = backend
        self._connector = connector
        self.names: list[str] = []

    def __call__(self, columns: str | None = None, suffix: str = "") -> str:
        if not suffix and self.names:
            suffix = f"_{len(self.names)}"
        name = table_name_for(self._request, suffix)
        _drop_table(self._db, self._backend, name)
        self.names.append(name)
        if columns is not None:
            c = _admin_connect(self._db, self._backend)
            try:
                c.cursor().execute(f"CREATE TABLE {name} ({columns})")
            finally:
                c.close()
        return name

    def cleanup(self) -> None:
        if not self.names:
            return
        # Release whatever the test's connections still hold before dropping.
        self._connector.release()
        for name in self.names:
            _drop_table(self._db, self._backend, name)


@pytest.fixture
def table(request, db, backend, connect):
    """Factory: table("id INTEGER, v TEXT") creates t_<testname> (committed) and returns
    its name; table() only reserves (and drops) the name."""
    factory = TableFactory(request, db, backend, connect)
    yield factory
    factory.cleanup()
