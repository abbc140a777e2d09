"""Backend profiles: one per database + ODBC driver pair the tests run against.

A profile carries what differs between databases as data (SQL dialect, driver quirks, error
classes, what a database cannot keep), so a test states *what* it expects and the profile
says how a given pair behaves. Adding a database means adding a profile here (and its server
to scripts/), not editing tests.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import os
import re
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

# Column kinds of the differential test's schemas ("numeric(p,s)", "varchar(n)" and "char(n)"
# are templates the schema fills in; "uuid" only where supports_uuid).
DIFFERENTIAL_KINDS = (
    "smallint", "int", "bigint", "real", "float", "numeric(p,s)", "varchar(n)", "char(n)",
    "text", "bytes", "date", "time", "timestamp", "bool", "uuid",
)


@dataclasses.dataclass(frozen=True)
class Profile:
    """A database + ODBC driver pair, with its documented quirks.

    The defaults are what standard SQL and a well-behaved driver do; a profile states only
    where its database or driver differs."""

    name: str
    connstr: str  # includes the attributes that bound lock waits (see *_profile below)
    ddl_map: dict[str, str]
    # -- what the driver reports
    getinfo: dict[str, Any]  # SQLGetInfo values of this driver and database
    # Per column kind: description[i][1:6] (type_code, display_size, internal_size,
    # precision, scale) and the columns() catalog's (data_type, type_name).
    descriptions: dict[str, tuple[Any, ...]]
    catalog_types: dict[str, tuple[int, str]]
    reports_not_null: bool = True  # description's null_ok is False for a NOT NULL column
    # -- types
    supports_uuid: bool = True
    uuid_fetched_as_str: bool = False  # the uuid type is described as text: fetched as str
    # The uuid type refuses a version nibble of 8-F with a clock_seq_hi byte of 0x01-0x80 (the
    # NCS variant, and 0x80 itself), measured on MariaDB 10.11: 1292 "Incorrect uuid value".
    uuid_refuses_ncs_high_versions: bool = False
    bool_fetched_as_int: bool = False  # BOOLEAN is an integer type: fetched as int
    min_date: datetime.date = datetime.date(1, 1, 1)
    max_date: datetime.date = datetime.date(9999, 12, 31)
    float_digits: int = 17  # significant digits a double keeps through the driver
    keeps_negative_zero: bool = True  # -0.0 comes back with its sign
    supports_nan: bool = True  # NaN / inf stored and returned as such
    # What a NaN / an infinite double becomes: "kept", "null" (stored as NULL) or "refused"
    # (DataError).
    nan_stored_as: str = "kept"
    infinity_stored_as: str = "kept"
    timestamp_precision: int = 6  # fractional-second digits a TIMESTAMP keeps
    time_precision: int = 6  # fractional-second digits a TIME is documented to keep (at least)
    # What a TIME(0) column keeps of a fraction: "round", "truncate" or "keep" (SQLite keeps
    # the text it was given).
    time_scale0: str = "round"
    time_param_is_text: bool = False  # `SELECT ?` returns a datetime.time as its text
    # SQL for the one-character text U+0000 (None: the database's text cannot hold NUL).
    nul_char_sql: str | None = None
    # The driver returns text holding NUL cut at the NUL, and nothing tells it was cut
    # (sqliteodbc keeps its rows as C strings): text with NUL is not read through it.
    fetch_cuts_at_nul: bool = False
    numeric_is_float: bool = False  # NUMERIC(p,s) is described as SQL_DOUBLE -> float
    char_pads: bool = True  # CHAR(n) values come back blank-padded
    int_column_is_64bit: bool = False  # an INTEGER column accepts values beyond 32 bits
    enforces_varchar_length: bool = True  # a value longer than VARCHAR(n) is refused
    text_equality_is_exact: bool = True  # 'Ä' = 'ä' is false (not a case-insensitive collation)
    astral_in_sql_text: bool = True  # the SQL text itself may hold characters beyond U+FFFF
    # Catalog functions misread names holding U+xxD8-U+xxDB ('Ø'): fastodbc refuses them.
    catalog_misreads_names: bool = False
    # (kind, SQL literal): dates and timestamps the database keeps and returns that datetime
    # cannot hold (year 0 or past 9999, month or day 0).
    unrepresentable_datetimes: tuple[tuple[str, str], ...] = ()
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
    # A statement stopped by cancel(): (exception class name, SQLSTATEs).
    cancelled: tuple[str, tuple[str, ...]] = ("OperationalError", ("HY008",))
    # A time limit the server puts on each statement: (SQL setting it to 0.5 s, a query that
    # runs longer and fails when it expires, SQLSTATEs of that failure); None: no such limit.
    server_time_limit: tuple[str, str, tuple[str, ...]] | None = None
    syntax_error_text: str = "syntax error"  # in the message of a syntax error
    unique_violation_text: str = "unique"  # in the message of a unique violation
    statement_level_rollback: bool = True  # a failed statement leaves the transaction open
    # -- SQL snippets
    series_sql: str = (  # a query with one column `i` = 1..{n}
        "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {n}) "
        "SELECT i FROM s"
    )
    # A query that keeps the driver busy about {seconds} s ({rows}: 3,000,000 rows a second
    # for a database with no sleep function), returning one row.
    sleep_sql: str = "SELECT SLEEP({seconds})"
    pipes_concatenate: bool = True  # `a || b` concatenates (MariaDB: logical OR)
    identifier_quote: str = '"'
    char_length_sql: str = "CHAR_LENGTH({})"
    octet_length_sql: str = "OCTET_LENGTH({})"  # the length of a text in bytes
    schema: str = "public"  # the schema unqualified names are created in
    # Connection attributes and a column type with which the driver describes a column as
    # narrower than the values it holds (None: it never does).
    short_description: tuple[str, str] | None = None
    # Connection attributes and a WHERE condition with which each row the driver fetches
    # takes the server ~2 ms to produce (None: the driver reads whole results at execute).
    slow_fetch: tuple[str, str] | None = None
    # -- connecting (defaults: what the database lacks)
    # A connection string the driver loads but cannot connect with (no server, no file).
    unreachable_connstr: str | None = None
    # SQL that creates / drops a login that must give its password ({user}, {password}); the
    # test server must check that login's password (scripts/pg-lib.sh: pg_hba.conf). None
    # where the database has no logins.
    create_login_sql: str | None = None
    drop_login_sql: str | None = None
    # SQL that makes the server send {text} as an informational message (cursor.messages).
    notice_sql: str | None = None
    # -- driver answers the pyodbc API tests meet
    drop_rowcount: int = 0  # rowcount after DROP TABLE (-1: the driver's SQLRowCount is silent)
    # SQL that creates / drops a stored procedure or function {name} with one integer
    # parameter `a`; None where the database has none (SQLite).
    create_procedure_sql: str | None = None
    drop_procedure_sql: str | None = None
    # -- the differential test (tests/differential): an independent client on the same tables,
    # and what the database or its driver cannot keep (README, "What the test databases cannot
    # keep"); the random schemas and values follow these, never the profile's name.
    oracle: str = ""  # client module: "sqlite3", "psycopg" or "pymysql" ("": not tested)
    column_kinds: tuple[str, ...] = DIFFERENTIAL_KINDS  # ddl_map kinds the schemas draw from
    int_bits: dict[str, int] = dataclasses.field(  # bits of each integer kind
        default_factory=lambda: {"smallint": 16, "int": 32, "bigint": 64}
    )
    real_is_double: bool = False  # REAL keeps a double (else a 32-bit float)
    max_varchar: int = 8001  # largest n of VARCHAR(n) drawn
    max_char: int = 255  # largest n of CHAR(n) drawn
    # Bytes the declared VARCHAR / CHAR columns of a row may take in all, 4 a character
    # (0: no limit).
    row_text_bytes: int = 0
    max_numeric_precision: int = 38
    varchar_enforced: bool = True  # a value longer than VARCHAR(n) is refused, never kept
    # fastodbc refuses a str parameter with NUL (DataError): the driver would cut it.
    param_nul_refused: bool = False
    # SQL giving the text a driver reads of a double (column {}), when it reads text: what
    # fastodbc must return is that text's value (SQLite: 15 significant digits, rounded by
    # SQLite's own conversion).
    fetched_float_sql: str = ""
    # The driver's UTF-16 text (SQL_C_WCHAR) is right only up to this code point.
    wide_fetch_max_codepoint: int = 0x10FFFF
    text_decodings: tuple[str, ...] = ("utf-8", "utf-16le")  # both C types: the driver offers both
    # Connection-string attributes a result can also be read through ({n}: rows per fetch).
    read_options: tuple[str, ...] = ("",)
    # -- faults (tests/test_faults.py); None where the database has no such thing
    session_id_sql: str | None = None  # this session's id on the server
    kill_session_sql: str | None = None  # ends session {id}, from another session
    session_count_sql: str | None = None  # 1 while session {id} exists, 0 once it is gone
    lost_connection_states: tuple[str, ...] = ("08",)  # SQLSTATE prefixes of a lost connection
    # Makes COMMIT of rows inserted into table {t} wait {s} seconds a row, in the server; and
    # what drops it again beside the table.
    slow_commit_ddl: tuple[str, ...] = ()
    slow_commit_cleanup: tuple[str, ...] = ()
    # Environment variables naming the script that halts and resumes the test server
    # (scripts/pg.sh, scripts/mariadb.sh) and that server's port.
    server_ctl_env: tuple[str, str] | None = None

    @property
    def text_keeps_nul(self) -> bool:
        """The database stores NUL inside text."""
        return self.nul_char_sql is not None

    def ddl(self, kind: str) -> str:
        """DDL for an abstract column type ('int', 'bigint', 'text', 'bytes', ...)."""
        try:
            return self.ddl_map[kind]
        except KeyError:
            raise KeyError(f"profile {self.name!r} has no DDL for {kind!r}") from None

    def series(self, n: int) -> str:
        return self.series_sql.format(n=int(n))

    def sleep(self, seconds: float) -> str:
        return self.sleep_sql.format(seconds=seconds, rows=int(seconds * 3_000_000))

    def concat(self, *exprs: str) -> str:
        """SQL concatenating the text of the given expressions."""
        if self.pipes_concatenate:
            return "(" + " || ".join(exprs) + ")"
        return f"CONCAT({', '.join(exprs)})"

    def quote(self, identifier: str) -> str:
        q = self.identifier_quote
        return q + identifier.replace(q, q + q) + q

    def char_length(self, expr: str) -> str:
        """SQL for the length of a text in characters."""
        return self.char_length_sql.format(expr)

    def octet_length(self, expr: str) -> str:
        """SQL for the length of a text in bytes (as stored: UTF-8 on every test database)."""
        return self.octet_length_sql.format(expr)

    def time_scale0_roundtrip(self, value: datetime.time) -> datetime.time:
        """The value a TIME(0) column holding value comes back as (see time_scale0)."""
        if self.time_scale0 == "keep":
            return value
        whole = value.replace(microsecond=0)
        if self.time_scale0 == "round" and value.microsecond >= 500_000:
            moment = datetime.datetime.combine(datetime.date(2000, 1, 1), whole)
            return (moment + datetime.timedelta(seconds=1)).time()
        return whole

    def fetched_bool(self, value: bool | None) -> bool | int | None:
        """What a BOOLEAN column holding value comes back as."""
        return int(value) if self.bool_fetched_as_int and value is not None else value

    def storable_uuid(self, value: uuid.UUID) -> uuid.UUID:
        """value, or (where the uuid type would refuse it) value with the RFC 4122 variant."""
        version_byte, clock_seq_hi = value.int >> 72 & 0xFF, value.int >> 56 & 0xFF
        if self.uuid_refuses_ncs_high_versions and version_byte >= 0x80 and 1 <= clock_seq_hi <= 0x80:
            rfc = max(0x81, 0x80 | clock_seq_hi & 0x3F)  # 0x80 itself is refused too
            return uuid.UUID(int=value.int & ~(0xFF << 56) | rfc << 56)
        return value

    def fetched_uuid(self, value: uuid.UUID | None) -> uuid.UUID | str | None:
        """What a uuid column holding value comes back as."""
        return str(value) if self.uuid_fetched_as_str and value is not None else value

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


def with_attributes(connstr: str, **attrs: str) -> str:
    """``connstr`` with the attributes named in ``attrs`` (any case) replaced by these values.
    Values are written as given: escape them first where needed."""
    names = {k.lower() for k in attrs}
    kept = [p for p in connstr.split(";") if p.strip() and p.split("=", 1)[0].strip().lower() not in names]
    return ";".join([*kept, *(f"{k}={v}" for k, v in attrs.items())]) + ";"


def with_credentials(connstr: str, user: str, password: str) -> str:
    """``connstr`` logging in as ``user`` with ``password`` (braced: it may hold ``;``)."""
    credentials = {"uid", "user", "pwd", "password"}
    kept = [p for p in connstr.split(";") if p.strip() and p.split("=", 1)[0].strip().lower() not in credentials]
    return ";".join([*kept, f"UID={user}", "PWD={" + password.replace("}", "}}") + "}"]) + ";"


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
    "time(0)": "TIME(0)",
    "bool": "BOOLEAN",
    "numeric(p,s)": "NUMERIC({p},{s})",
    "varchar(n)": "VARCHAR({n})",
    "char(n)": "CHAR({n})",
}

SQLITE_DDL = {
    **_COMMON_DDL,
    "time(0)": "TIME",  # holds the text it is given
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
    "time(0)": "TIME",
    "bytes": "LONGBLOB",
    "timestamp": "DATETIME(6)",  # TIMESTAMP is 1970-2038, in the session's time zone
    "uuid": "UUID",
    "tinyint": "TINYINT",
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
        getinfo={
            "SQL_DRIVER_NAME": "sqlite3odbc.so",
            "SQL_DBMS_NAME": "SQLite",
            "SQL_IDENTIFIER_QUOTE_CHAR": '"',
            "SQL_MAX_TABLE_NAME_LEN": 255,
        },
        # Sizes from the declared type name; BLOB is 255 whatever it holds.
        descriptions={
            "int": (int, None, 10, 10, 0),
            "varchar(50)": (str, None, 50, 50, 0),
            "numeric(18,4)": (float, None, 18, 18, 0),
            "bytes": (bytearray, None, 255, 255, 0),
            "bool": (bool, None, 1, 1, 0),
            "timestamp": (datetime.datetime, None, 32, 32, 0),
            "date": (datetime.date, None, 10, 10, 0),
            "bigint": (int, None, 20, 20, 0),
            "float": (float, None, 54, 54, 0),
        },
        catalog_types={
            "int": (4, "INTEGER"),
            "varchar(50)": (12, "VARCHAR(50)"),
            "numeric(18,4)": (8, "NUMERIC(18,4)"),
        },
        reports_not_null=False,
        supports_uuid=False,
        float_digits=15,
        keeps_negative_zero=False,
        supports_nan=False,  # NaN is stored as NULL
        nan_stored_as="null",
        timestamp_precision=6,  # bound as text: the struct path keeps ms
        time_precision=6,  # times are bound and fetched as text
        numeric_is_float=True,
        char_pads=False,
        int_column_is_64bit=True,
        enforces_varchar_length=False,
        astral_in_sql_text=False,  # its SQL scanner: 'unrecognized token' (as parameters: kept)
        unrepresentable_datetimes=tuple(
            (kind, literal) for kind in ("date", "timestamp") for literal in ("'0000-01-01'", "'10000-01-01'")
        ),
        bad_cast_raises=False,  # CAST('abc' AS INTEGER) is 0
        division_by_zero_raises=False,  # 1/0 is NULL
        honours_query_timeout=False,
        select_rowcount_known=False,
        syntax_error=("HY000", "Error"),  # sqliteodbc reports every error as HY000
        unique_violation=("HY000", "Error"),
        missing_table=("HY000", "Error"),
        cancelled=("DatabaseError", ("HY000",)),  # "interrupted", as every error: HY000
        sleep_sql=(
            "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {rows}) "
            "SELECT COUNT(*) FROM s"
        ),
        char_length_sql="length({})",
        octet_length_sql="length(CAST({} AS BLOB))",  # length() of text stops at a NUL
        time_scale0="keep",
        time_param_is_text=True,  # times are bound as text, and SQLite has no time type
        nul_char_sql="char(0)",
        fetch_cuts_at_nul=True,  # sqliteodbc reads text as C strings
        schema="main",
        short_description=("", "VARCHAR(10)"),  # VARCHAR(n) is not enforced
        unreachable_connstr=f"Driver={{SQLite3}};Database={path.parent / 'missing' / 'x.sqlite'};",
        oracle="sqlite3",
        # Every INTEGER column of SQLite keeps 64 bits, whatever its declared width.
        int_bits={"smallint": 64, "int": 64, "bigint": 64},
        real_is_double=True,
        fetched_float_sql="CAST({} AS TEXT)",
        varchar_enforced=False,
        max_varchar=100_000,
        param_nul_refused=True,
        # sqliteodbc's UTF-8 -> UTF-16 conversion loses plane 16: U+100000 ends the value,
        # U+10FFFF comes back as U+FFFF.
        wide_fetch_max_codepoint=0xFFFFF,
        # StepAPI=1: the driver steps the statement per fetch instead of holding the result.
        read_options=("", "StepAPI=1"),
    )


def postgresql_profile(connstr: str) -> Profile:
    return Profile(
        name="postgresql",
        # ConnSettings: SQL psqlODBC runs after connecting.
        connstr=f"{connstr.rstrip(';')};ConnSettings={{SET lock_timeout = '{LOCK_TIMEOUT_S}s'}}",
        ddl_map=POSTGRESQL_DDL,
        getinfo={
            "SQL_DRIVER_NAME": "psqlodbcw.so",
            "SQL_DBMS_NAME": "PostgreSQL",
            "SQL_IDENTIFIER_QUOTE_CHAR": '"',
            "SQL_MAX_TABLE_NAME_LEN": 63,
            "SQL_DATABASE_NAME": "fastodbc_test",
        },
        descriptions={
            "int": (int, None, 10, 10, 0),
            "varchar(50)": (str, None, 50, 50, 0),
            "numeric(18,4)": (decimal.Decimal, None, 18, 18, 4),
            "bytes": (bytearray, None, 0, 0, 0),  # bytea: SQL_LONGVARBINARY of size 0
            "bool": (bool, None, 1, 1, 0),
            "timestamp": (datetime.datetime, None, 26, 26, 6),
            "date": (datetime.date, None, 10, 10, 0),
            "bigint": (int, None, 19, 19, 0),
            "float": (float, None, 17, 17, 0),
        },
        catalog_types={
            "int": (4, "int4"),
            "varchar(50)": (-9, "varchar"),
            "numeric(18,4)": (2, "numeric"),
        },
        multiple_statements=True,
        has_notices=True,
        untyped_param_is_text=True,
        select_rowcount_known=True,  # UseDeclareFetch=0: the driver holds the whole result
        cancelled=("OperationalError", ("57014", "HY008")),  # the server's query_canceled
        series_sql="SELECT i FROM generate_series(1, {n}) AS s(i)",
        sleep_sql="SELECT pg_sleep({seconds})",
        session_id_sql="SELECT pg_backend_pid()",
        kill_session_sql="SELECT pg_terminate_backend({id})",
        session_count_sql="SELECT COUNT(*) FROM pg_stat_activity WHERE pid = {id}",
        # 57P01: "terminating connection due to administrator command", the server's goodbye.
        lost_connection_states=("08", "57P01"),
        slow_commit_ddl=(
            "CREATE OR REPLACE FUNCTION {t}_slow() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN PERFORM pg_sleep({s}); RETURN NULL; END $$",
            "CREATE CONSTRAINT TRIGGER {t}_slow AFTER INSERT ON {t} DEFERRABLE INITIALLY DEFERRED "
            "FOR EACH ROW EXECUTE FUNCTION {t}_slow()",
        ),
        slow_commit_cleanup=("DROP FUNCTION IF EXISTS {t}_slow() CASCADE",),
        server_ctl_env=("FASTODBC_PG_CTL", "FASTODBC_PG_PORT"),
        server_time_limit=("SET statement_timeout = 500", "SELECT pg_sleep(5)", ("57014",)),
        short_description=(";MaxVarcharSize=5;MaxLongVarcharSize=5", "VARCHAR"),
        # A server-side cursor computes rows as they are fetched.
        slow_fetch=(";UseDeclareFetch=1;Fetch=50", "pg_sleep(0.002)::text = ''"),
        # psqlODBC sends -infinity as year -9999 and BC years as negative ones.
        unrepresentable_datetimes=(("timestamp", "'-infinity'"), ("timestamp", "'0001-01-01 BC'")),
        unreachable_connstr=with_attributes(connstr, Port="1"),
        create_login_sql="CREATE ROLE {user} LOGIN PASSWORD '{password}'",
        drop_login_sql="DROP ROLE IF EXISTS {user}",
        notice_sql="DO $$ BEGIN RAISE NOTICE '{text}'; END $$",
        drop_rowcount=-1,  # psqlODBC says nothing for DROP / ALTER
        create_procedure_sql="CREATE FUNCTION {name}(a integer) RETURNS integer AS 'SELECT a' LANGUAGE SQL",
        drop_procedure_sql="DROP FUNCTION IF EXISTS {name}(integer)",
        oracle="psycopg",
        max_varchar=100_000,
        max_char=10_000,
        # A server-side cursor (inside the transaction) that fetches {n} rows at a time.
        read_options=("", "UseDeclareFetch=1;Fetch={n}"),
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
        getinfo={
            "SQL_DRIVER_NAME": "libmaodbc.so",
            "SQL_DBMS_NAME": "MariaDB",
            "SQL_IDENTIFIER_QUOTE_CHAR": "`",
            "SQL_MAX_TABLE_NAME_LEN": 256,
            "SQL_DATABASE_NAME": "fastodbc_test",
        },
        descriptions={
            "int": (int, None, 10, 10, 0),
            "varchar(50)": (str, None, 50, 50, 0),
            "numeric(18,4)": (decimal.Decimal, None, 18, 18, 4),
            "bytes": (bytearray, None, 2**32 - 1, 2**32 - 1, 0),  # LONGBLOB
            "bool": (int, None, 3, 3, 0),  # TINYINT(1)
            "timestamp": (datetime.datetime, None, 26, 26, 6),
            "date": (datetime.date, None, 10, 10, 0),
            "bigint": (int, None, 20, 20, 0),
            "float": (float, None, 15, 15, 0),
        },
        catalog_types={
            "int": (4, "INT"),
            "varchar(50)": (-9, "VARCHAR"),
            "numeric(18,4)": (3, "DECIMAL"),
        },
        uuid_fetched_as_str=True,  # UUID is described as CHAR(36)
        catalog_misreads_names=True,  # Connector/ODBC 3.1 reads UTF-16 past such units
        uuid_refuses_ncs_high_versions=True,
        bool_fetched_as_int=True,  # BOOLEAN is TINYINT(1)
        keeps_negative_zero=False,
        supports_nan=False,  # the server refuses them (22003)
        nan_stored_as="refused",
        infinity_stored_as="refused",
        char_pads=False,
        text_equality_is_exact=False,  # utf8mb4_general_ci: case- and accent-insensitive
        bad_cast_raises=False,  # CAST('abc' AS INTEGER) is 0, with a warning
        division_by_zero_raises=False,  # 1/0 is NULL, with a warning
        honours_query_timeout=False,  # Connector/ODBC 3.1 answers 01S02 "no timeout"
        # SLEEP() would return 1 when the limit stops it: a query that fails instead.
        server_time_limit=(
            "SET SESSION max_statement_time = 0.5",
            "SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b",
            ("HYT00",),
        ),
        syntax_error_text="error in your SQL syntax",
        unique_violation_text="duplicate entry",
        series_sql="SELECT seq AS i FROM seq_1_to_{n}",
        time_scale0="truncate",  # without TIME_ROUND_FRACTIONAL in sql_mode
        time_param_is_text=True,  # bound as VARCHAR: the driver refuses a TIME with a fraction
        nul_char_sql="CHAR(0 USING utf8mb4)",
        pipes_concatenate=False,
        identifier_quote="`",
        # Kept by the default sql_mode (no NO_ZERO_IN_DATE); the zero date 0000-00-00 arrives
        # as NULL (the driver's choice).
        unrepresentable_datetimes=tuple(
            (kind, literal)
            for kind in ("date", "timestamp")
            for literal in ("'0000-01-01'", "'2024-00-10'", "'2024-02-00'")
        ),
        schema=_attribute(connstr, "Database") or _attribute(connstr, "DB") or "",
        unreachable_connstr=with_attributes(connstr, Port="1"),
        # GRANT ... IDENTIFIED BY creates the login (scripts/mariadb.sh's user connects from
        # 127.0.0.1, as the tests do).
        create_login_sql=(
            f"GRANT ALL PRIVILEGES ON {_attribute(connstr, 'Database')}.* TO "
            "'{user}'@'127.0.0.1' IDENTIFIED BY '{password}'"
        ),
        drop_login_sql="DROP USER IF EXISTS '{user}'@'127.0.0.1'",
        create_procedure_sql="CREATE PROCEDURE {name}(IN a INT) SELECT a",
        drop_procedure_sql="DROP PROCEDURE IF EXISTS {name}",
        session_id_sql="SELECT CONNECTION_ID()",
        kill_session_sql="KILL {id}",
        session_count_sql="SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = {id}",
        server_ctl_env=("FASTODBC_MARIADB_CTL", "FASTODBC_MARIADB_PORT"),
        oracle="pymysql",
        column_kinds=(*DIFFERENTIAL_KINDS, "tinyint"),
        int_bits={"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64},
        max_varchar=16_383,  # utf8mb4: 65,535 bytes
        row_text_bytes=65_535,
    )


def _attribute(connstr: str, key: str) -> str | None:
    """A plain (unbraced) attribute's value in a connection string."""
    m = re.search(rf"(?:^|;)\s*{key}\s*=\s*([^;{{]*)", connstr, re.IGNORECASE)
    return m.group(1).strip() if m else None


# Server backends: the environment variable holding the connection string, and the profile.
SERVER_BACKENDS = {
    "postgresql": ("FASTODBC_TEST_PG", postgresql_profile),
    "mariadb": ("FASTODBC_TEST_MARIADB", mariadb_profile),
}
BACKENDS = ["sqlite", *SERVER_BACKENDS]
