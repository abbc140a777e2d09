"""The Profile dataclass: what the tests need to know of a database + ODBC driver pair.

Every field has a default: what standard SQL and a well-behaved driver do, or (for a
behaviour only some databases have) its absence. A profile (tests/profiles/<database>.py)
states only where its database or driver differs.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import os
import re
import shlex
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from fastodbc.connstr import attributes as connstr_attributes

ROOT = Path(__file__).resolve().parents[2]

# Every test connection bounds its lock waits (10 s): a test that leaks a transaction or a
# lock then makes the next one fail fast instead of hanging the suite.
LOCK_TIMEOUT_S = 10

# Column kinds of the differential test's schemas ("numeric(p,s)", "varchar(n)" and "char(n)"
# are templates the schema fills in; "uuid" only where supports_uuid).
DIFFERENTIAL_KINDS = (
    "smallint", "int", "bigint", "real", "float", "numeric(p,s)", "varchar(n)", "char(n)",
    "text", "bytes", "date", "time", "timestamp", "bool", "uuid",
)

# DDL of the abstract column kinds, in standard SQL ("bytes", "timestamp" and "uuid" have
# no standard spelling: a profile names them).
STANDARD_DDL = {
    "int": "INTEGER",
    "bigint": "BIGINT",
    "smallint": "SMALLINT",
    "float": "DOUBLE PRECISION",
    "real": "REAL",
    "numeric(18,4)": "NUMERIC(18,4)",
    "numeric(38,10)": "NUMERIC(38,10)",
    "numeric(38,0)": "NUMERIC(38,0)",
    "numeric(50,10)": "NUMERIC(50,10)",  # past decimal128's 38 digits (Arrow: its text)
    "varchar(10)": "VARCHAR(10)",
    "varchar(50)": "VARCHAR(50)",
    "varchar(255)": "VARCHAR(255)",
    "char(5)": "CHAR(5)",
    "text": "TEXT",
    "date": "DATE",
    "time": "TIME",
    "time(0)": "TIME(0)",
    "timestamp(0)": "TIMESTAMP(0)",  # keeps no fractional seconds
    "bool": "BOOLEAN",
    "numeric(p,s)": "NUMERIC({p},{s})",
    "varchar(n)": "VARCHAR({n})",
    "char(n)": "CHAR({n})",
}

# description[i][1:6] (type_code, display_size, internal_size, precision, scale) of each
# column kind as the ODBC column-size rules give them (ODBC appendix D: a signed BIGINT is
# 19 digits, a DOUBLE 15). A long binary column's size is the driver's own: a profile states it.
STANDARD_DESCRIPTIONS = {
    "int": (int, None, 10, 10, 0),
    "varchar(50)": (str, None, 50, 50, 0),
    "numeric(18,4)": (decimal.Decimal, None, 18, 18, 4),
    "bool": (bool, None, 1, 1, 0),
    "timestamp": (datetime.datetime, None, 26, 26, 6),
    "date": (datetime.date, None, 10, 10, 0),
    "bigint": (int, None, 19, 19, 0),
    "float": (float, None, 15, 15, 0),
}

# The Arrow type of a column of each kind as fetch_arrow_table gives it (pyarrow's type names;
# "decimal128(p, s)" as written; tests/arrowcheck.py reads them): integers by their SQL width,
# REAL float32 where the column really is 4 bytes, NUMERIC(p<=38, s) decimal128(p, s) and wider
# NUMERIC its text, GUIDs their text. A profile lists the kinds its database has.
STANDARD_ARROW_TYPES = {
    "smallint": "int16",
    "int": "int32",
    "bigint": "int64",
    "real": "float32",
    "float": "float64",
    "numeric(18,4)": "decimal128(18, 4)",
    "numeric(38,10)": "decimal128(38, 10)",
    "numeric(38,0)": "decimal128(38, 0)",
    "numeric(50,10)": "string",
    "varchar(50)": "string",
    "char(5)": "string",
    "text": "string",
    "bytes": "binary",
    "date": "date32",
    "time": "time64[us]",
    "timestamp": "timestamp[us]",
    "bool": "bool",
    "uuid": "string",
}

# The columns() catalog's (data_type, type_name) per column kind: the SQL type codes, and
# the standard type names (drivers mostly name the database's own type).
STANDARD_CATALOG_TYPES = {
    "int": (4, "INTEGER"),
    "varchar(50)": (12, "VARCHAR"),
    "numeric(18,4)": (2, "NUMERIC"),
}


#: Rows a second SQLite's recursive counting query (``sleep_sql``) goes through, measured on the
#: fastest host this suite ran on (6M a second, 2026-11-28; 3M had made a "2 s" sleep last 1.0 s
#: there, under the progress display's 1 s threshold). A slower host only sleeps longer, which
#: the tests that use a sleep as a lower bound need and the others (they cancel it) don't mind.
SLEEP_ROWS_PER_SECOND = 6_000_000


@dataclasses.dataclass(frozen=True)
class Profile:
    """A database + ODBC driver pair, with its documented quirks.

    The defaults are what standard SQL and a well-behaved driver do; a profile states only
    where its database or driver differs. A field whose default is None or False names a
    behaviour: the tests of that behaviour run only on profiles that have it."""

    # -- identity and connection
    name: str = ""  # the test id: test_x[<name>]
    driver: str = ""  # its ODBC driver's section in build/odbc/odbcinst.ini (scripts/odbcinst.sh)
    # A database in a file: the connection string, "{dir}" standing for a directory of the
    # test's own (the database file is made there). A server: "" (see connstr_env).
    connstr: str = ""
    # A server: the environment variable holding the connection string of the test server.
    connstr_env: str | None = None
    # A server: the script that runs its test server, relative to the repository. Commands:
    # start, stop, env (prints the `export` lines to source, connstr_env's among them), and for
    # tests/test_faults.py halt and resume (same data, same port). scripts/test.sh starts the
    # script of every profile in PROFILES.
    server_script: str | None = None
    # Attributes every test connection string ends with (bounding lock waits: LOCK_TIMEOUT_S).
    connect_attributes: str = ""
    # A server: the connection-string attributes naming its host and its port (at()).
    address_attributes: tuple[str, str] = ("Server", "Port")
    # A server: attributes pointing its connection string where no server listens.
    unreachable_attributes: tuple[tuple[str, str], ...] = (("Port", "1"),)
    ddl_map: dict[str, str] = dataclasses.field(default_factory=lambda: dict(STANDARD_DDL))
    # -- what the driver reports
    getinfo: dict[str, Any] = dataclasses.field(default_factory=dict)  # SQLGetInfo values it answers
    # Per column kind: description[i][1:6] (type_code, display_size, internal_size,
    # precision, scale) and the columns() catalog's (data_type, type_name).
    descriptions: dict[str, tuple[Any, ...]] = dataclasses.field(
        default_factory=lambda: dict(STANDARD_DESCRIPTIONS)
    )
    catalog_types: dict[str, tuple[int, str]] = dataclasses.field(
        default_factory=lambda: dict(STANDARD_CATALOG_TYPES)
    )
    reports_not_null: bool = True  # description's null_ok is False for a NOT NULL column
    # Per column kind: the Arrow type fetch_arrow_table gives it (STANDARD_ARROW_TYPES).
    arrow_types: dict[str, str] = dataclasses.field(default_factory=lambda: dict(STANDARD_ARROW_TYPES))
    # -- types
    supports_uuid: bool = True
    uuid_fetched_as_str: bool = False  # the uuid type is described as text: fetched as str
    # The uuid type refuses a version nibble of 8-F with a clock_seq_hi byte of 0x01-0x80 (the
    # NCS variant, and 0x80 itself), measured on MariaDB 10.11: 1292 "Incorrect uuid value".
    uuid_refuses_ncs_high_versions: bool = False
    # The driver refuses (sqliteodbc: 07009) or garbles (Connector/ODBC 3.1: the struct's raw
    # bytes, stored byte-swapped) a SQL_C_GUID parameter: fastodbc sends a UUID as its text,
    # pyodbc binds SQL_C_GUID.
    guid_params_broken: bool = False
    bool_fetched_as_int: bool = False  # BOOLEAN is an integer type: fetched as int
    min_date: datetime.date = datetime.date(1, 1, 1)
    max_date: datetime.date = datetime.date(9999, 12, 31)
    # Significant digits a double keeps through the driver; fewer than 17: fastodbc warns
    # (PrecisionWarning) once per result with floating-point columns.
    float_digits: int = 17
    # -0.0 comes back with its sign; False: the database drops it (its own client reads 0.0).
    keeps_negative_zero: bool = True
    supports_nan: bool = True  # NaN / inf stored and returned as such
    # What the database makes of a NaN / an infinite double: "kept", "null" (stored as NULL:
    # fastodbc refuses NaN there, DataError, unless ingest(nan="null")) or "refused" (DataError).
    nan_stored_as: str = "kept"
    infinity_stored_as: str = "kept"
    timestamp_precision: int = 6  # fractional-second digits a TIMESTAMP keeps
    time_precision: int = 6  # fractional-second digits a TIME is documented to keep (at least)
    # What a TIME(0) column keeps of a fraction: "round", "truncate" or "keep" (SQLite keeps
    # the text it was given).
    time_scale0: str = "round"
    time_param_is_text: bool = False  # `SELECT ?` returns a datetime.time as its text
    # `SELECT ?` returns a datetime.time with a fraction as its text (a whole-second one as a time)
    time_fraction_param_is_text: bool = False
    # SQL for the one-character text U+0000 (None: the database's text cannot hold NUL).
    nul_char_sql: str | None = None
    # The driver returns text holding NUL cut at the NUL, and nothing tells it was cut
    # (sqliteodbc keeps its rows as C strings): text with NUL is not read through it.
    fetch_cuts_at_nul: bool = False
    # SQL for a text value whose bytes are not UTF-8 (None: the database keeps only valid text).
    invalid_utf8_text_sql: str | None = None
    numeric_is_float: bool = False  # NUMERIC(p,s) is described as SQL_DOUBLE -> float
    # A column keeps values of any type whatever its declared type (SQLite's type affinity:
    # an INTEGER column may hold 3.7 or 'abc'), and fastodbc returns what it holds.
    columns_hold_any_type: bool = False
    # A currency type the driver describes as a double, reading it from its text ('$1,234.56')
    # (psqlODBC: money); None: no such type.
    money_type: str | None = None
    # Sets the session's time zone (an IANA name), where a zoned timestamp type exists
    # (ddl_map's "timestamptz").
    set_time_zone_sql: str | None = None
    char_pads: bool = True  # CHAR(n) values come back blank-padded
    int_column_is_64bit: bool = False  # an INTEGER column accepts values beyond 32 bits
    enforces_varchar_length: bool = True  # a value longer than VARCHAR(n) is refused, never kept
    text_equality_is_exact: bool = True  # 'Ä' = 'ä' is false (not a case-insensitive collation)
    astral_in_sql_text: bool = True  # the SQL text itself may hold characters beyond U+FFFF
    # Identifiers (column names) may hold characters beyond U+FFFF (MariaDB's are utf8mb3:
    # 1300 "Invalid utf8mb4 character string"; SQLite's SQL text cannot hold them).
    astral_in_identifiers: bool = True
    # Catalog functions misread names holding U+xxD8-U+xxDB ('Ø'): fastodbc refuses them.
    catalog_misreads_names: bool = False
    # (kind, SQL literal): dates and timestamps the database keeps and returns that datetime
    # cannot hold (year 0 or past 9999, month or day 0).
    unrepresentable_datetimes: tuple[tuple[str, str], ...] = ()
    # -- statements / results
    multiple_statements: bool = False  # "select 1; select 2" in one execute
    # Writers on several connections at once: SQLite has one writer a database, and refuses
    # (SQLITE_BUSY, no wait) a transaction that read and then writes while another writes.
    concurrent_writers: bool = True
    bad_cast_raises: bool = True  # CAST('abc' AS INTEGER) raises DataError
    division_by_zero_raises: bool = True
    honours_query_timeout: bool = True
    # The driver refuses SQL_ATTR_CONNECTION_TIMEOUT (psqlODBC: HY000), which pyodbc sets
    # with cnxn.timeout (fastodbc sets the query timeout only).
    refuses_connection_timeout: bool = False
    has_notices: bool = False  # server messages (RAISE NOTICE) reach cursor.messages
    untyped_param_is_text: bool = False  # `SELECT ?` returns the parameter as str
    select_rowcount_known: bool = True  # SQLRowCount after SELECT is the row count
    # How fastodbc's executemany sends 64 or more rows of a single-row INSERT (README):
    # "parameter_arrays"; "column_arrays" (psqlODBC, which sends an array one row per round
    # trip: INSERT ... SELECT unnest(?::type[]), ...); "compiled_once" (sqliteodbc, which
    # compiles an INSERT again for each row: WITH fastodbc_compiled_once ... INSERT).
    bulk_insert: str = "parameter_arrays"
    # pyodbc's fast_executemany segfaults inside the driver's SQLExecute (sqliteodbc): the
    # tests using it do not run against pyodbc (FASTODBC_TEST_MODULE=pyodbc) there.
    pyodbc_fast_executemany_crashes: bool = False
    # Statements without parameter markers that insert one row of defaults into {t}, a table
    # whose columns all have defaults (the standard forms; executemany runs them once per row).
    default_row_inserts: tuple[str, ...] = (
        "INSERT INTO {t} DEFAULT VALUES",
        "INSERT INTO {t} (id) VALUES (DEFAULT)",
    )
    # The driver runs a statement without markers once whatever the parameter array's size
    # (MariaDB): pyodbc's fast_executemany then stores one row of many.
    paramset_ignored_without_markers: bool = False
    # pyodbc binds a datetime.time as SQL_TYPE_TIME, whose struct has no fraction, and the
    # driver keeps it so (psqlODBC): the fraction is lost.
    pyodbc_time_loses_fraction: bool = False
    # `SELECT ?` of a datetime.time through pyodbc (SQL_C_TYPE_TIME) comes back as text.
    pyodbc_time_param_is_text: bool = False
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
    # Executed directly, a statement with a syntax error silently rolls back the whole open
    # transaction (psqlODBC): fastodbc prepares statements once the transaction holds changes.
    syntax_error_rolls_back: bool = False
    # -- SQL snippets
    series_sql: str = (  # a query with one column `i` = 1..{n}
        "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {n}) "
        "SELECT i FROM s"
    )
    # A long result: {n} rows of an integer and a 32-character text the server computes per
    # row (tests/aio/test_release.py: results dropped unfinished, tasks cancelled mid-fetch).
    long_result_sql: str = (
        "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {n}) "
        "SELECT i, CAST(i * 100000007 AS VARCHAR(32)) AS t FROM s"
    )
    # A query that keeps the driver busy about {seconds} s ({rows}: SLEEP_ROWS_PER_SECOND
    # rows for a database with no sleep function), returning one row.
    sleep_sql: str = "SELECT SLEEP({seconds})"
    pipes_concatenate: bool = True  # `a || b` concatenates (MariaDB: logical OR)
    identifier_quote: str = '"'
    char_length_sql: str = "CHAR_LENGTH({})"
    octet_length_sql: str = "OCTET_LENGTH({})"  # the length of a text in bytes
    schema: str = "public"  # the schema unqualified names are created in
    # A schema is a database (MariaDB): unqualified names are created in the connection
    # string's Database (bind() sets schema).
    schema_is_database: bool = False
    # Connection attributes and a column type with which the driver describes a column as
    # narrower than the values it holds (None: it never does).
    short_description: tuple[str, str] | None = None
    # Connection attributes with which the driver describes every text column (VARCHAR and
    # TEXT alike) as 5 characters wide, whatever it holds (None: no such attributes).
    text_width_attributes: str | None = None
    # Connection attributes with which the driver reads a result through a server-side cursor,
    # {n} rows a fetch: the server computes rows as they are fetched (None: the driver reads
    # whole results at execute).
    server_cursor_attributes: str | None = None
    # Connection attributes with which the driver describes a NUMERIC of no declared scale by
    # the values of the first rows it fetches, and a query (one column `amount`) whose later
    # values have more decimals than that (read whole, they are described by all its values);
    # Arrow: decimal128 of the described scale, and DataError for the value that does not fit.
    # None: no such column.
    numeric_outgrows_description: tuple[str, str] | None = None
    # N connections can read one snapshot (PostgreSQL: pg_export_snapshot and SET TRANSACTION
    # SNAPSHOT): a partitioned read with snapshot=True sees the moment it was planned.
    shares_snapshot: bool = False
    # A NUMERIC of no declared precision (PostgreSQL's `numeric`: any digits, NaN, Infinity),
    # which the driver describes with a precision of its making: Arrow holds its exact text.
    # None: no such type.
    unconstrained_numeric_ddl: str | None = None
    # The precision the driver describes such a NUMERIC with, which a declared one of that
    # precision shares: Arrow holds both as text (psqlODBC: 28). None: no such precision.
    numeric_text_precision: int | None = None
    # An interval type the driver describes as short text (psqlODBC: VARCHAR(32)): rows and
    # Arrow give its text, and a load appends any text the database parses. None: no such type.
    interval_ddl: str | None = None
    # A TIMESTAMP NOT NULL column the database fills with the current time when sent NULL,
    # though the driver reports it nullable (MariaDB): a load refuses the NULL by name;
    # executemany sends it and the database stores the time. None: no such column type.
    null_stamping_timestamp_ddl: str | None = None
    # A fixed-length binary column of n bytes ("{n}"), and whether shorter values come back
    # padded with zero bytes (the database's rule: MariaDB's BINARY(n)). None: no such type.
    fixed_binary_ddl: str | None = None
    fixed_binary_pads: bool = False
    # TIME is a duration with this range (MariaDB: -838:59:59.999999 to 838:59:59.999999):
    # rows give datetime.timedelta outside a day, Arrow duration[us]. None: a time of day.
    time_duration_range: tuple[str, str] | None = None
    # Freeing a statement the driver prepared on the server is a round trip (psqlODBC closes it
    # there): on a dead link the free waits (tests/faults/test_frozen_threads.py).
    statement_free_round_trip: bool = False
    # The driver crashes (SIGSEGV) fetching through server_cursor_attributes once the link
    # was reset in the middle of the result (psqlODBC 13 in SQLFetch, as pyodbc through it).
    server_cursor_crashes_on_lost_link: bool = False
    # Connection attributes and a WHERE condition with which each row the driver fetches
    # takes the server ~2 ms to produce (None: the driver reads whole results at execute).
    slow_fetch: tuple[str, str] | None = None
    # -- connecting (defaults: what the database lacks)
    # A connection string the driver loads but cannot connect with (no server, no file): set
    # by bind() (a server's with unreachable_attributes; a file's in a missing directory).
    unreachable_connstr: str | None = None
    # SQL that creates / drops a login that must give its password ({user}, {password},
    # {database}: the connection string's); the test server must check that login's password
    # (scripts/pg-lib.sh: pg_hba.conf). None where the database has no logins.
    create_login_sql: str | None = None
    drop_login_sql: str | None = None
    # SQL that creates / drops a database {name} (an identifier, quoted), and a query naming
    # the connection's database: for the tests of Database= keyword values with special
    # characters (psqlODBC 13.02 takes the value raw, braces included). None: not tested.
    create_database_sql: str | None = None
    drop_database_sql: str | None = None
    current_database_sql: str | None = None
    # SQL that makes the server send {text} as an informational message (cursor.messages).
    notice_sql: str | None = None
    # Connection-string attribute -> the key a data source in odbc.ini gives it, where the
    # driver reads another name there (psqlODBC: Servername for Server); tests/cli's --dsn.
    dsn_keys: dict[str, str] = dataclasses.field(default_factory=dict)
    # -- driver answers the pyodbc API tests meet
    drop_rowcount: int = 0  # rowcount after DROP TABLE (-1: the driver's SQLRowCount is silent)
    alter_rowcount: int = 0  # rowcount after ALTER TABLE (-1: as drop_rowcount)
    create_rowcount: int = 0  # rowcount after CREATE TABLE / CREATE INDEX
    # SQL that creates / drops a stored procedure or function {name} with one integer
    # parameter `a`; None where the database has none (SQLite).
    create_procedure_sql: str | None = None
    drop_procedure_sql: str | None = None
    # -- the differential test (tests/differential): an independent client on the same tables,
    # and what the database or its driver cannot keep (README, "What the test databases cannot
    # keep"); the random schemas and values follow these, never the profile's name.
    oracle: str = ""  # client module: "sqlite3", "psycopg" or "pymysql" ("": not tested)
    # -- a real client (tests/test_sqlalchemy.py, tests/test_sqlalchemy_suite.py): the
    # SQLAlchemy dialect name whose "+fastodbc" driver drives this database (None: fastodbc has
    # no dialect for it), and the driver of the pyodbc oracle its compliance suite is compared
    # with ("pyodbc": SQLAlchemy's own pyodbc dialect).
    sqlalchemy_dialect: str | None = None
    # An expression whose markers sit inside brackets the database reads as an array (not a
    # bracketed name), its integer parameters (the last one an index) and its value; None
    # where the database has no such syntax (tests/test_errors.py).
    bracket_marker_expr: tuple[str, tuple[int, ...], int] | None = None
    sqlalchemy_pyodbc_driver: str = "pyodbc"
    # DELETE ... RETURNING gives its rows (sqliteodbc runs it and reports no result set).
    dml_returning_rows: bool = True
    column_kinds: tuple[str, ...] = DIFFERENTIAL_KINDS  # ddl_map kinds the schemas draw from
    int_bits: dict[str, int] = dataclasses.field(  # bits of each integer kind
        default_factory=lambda: {"smallint": 16, "int": 32, "bigint": 64}
    )
    # Bits of each unsigned integer kind of ddl_map (the ingest matrix writes uint8-uint64
    # into them); {}: the database has no unsigned integer types.
    unsigned_int_bits: dict[str, int] = dataclasses.field(default_factory=dict)
    real_is_double: bool = False  # REAL keeps a double (else a 32-bit float)
    max_varchar: int = 8001  # largest n of VARCHAR(n) drawn
    max_char: int = 255  # largest n of CHAR(n) drawn
    # Bytes the declared VARCHAR / CHAR columns of a row may take in all, 4 a character
    # (0: no limit).
    row_text_bytes: int = 0
    max_numeric_precision: int = 38
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
    # -- the cross-database fidelity matrix (tests/crossdb): a table of the database's own
    # types moved to every database by each path. Kinds are tests/crossdb/kinds.py's names.
    # DDL of each kind as this database's natural column type: the source table's columns
    # (kinds in fidelity_kinds) and the columns of a pre-made table loaded in append mode
    # (every kind: where the database has no such type, the one a user would pick for it).
    fidelity_ddl: dict[str, str] = dataclasses.field(default_factory=dict)
    fidelity_kinds: tuple[str, ...] = ()  # the kinds of the source table (the database's own types)
    # How the independent client selects a kind exactly ({} the column), where the plain
    # column would come back changed by the client (a FLOAT's 6 digits, an interval's months).
    fidelity_read_sql: dict[str, str] = dataclasses.field(default_factory=dict)
    # SQL run before the tables are made (types the DDL names: an enum), idempotent.
    fidelity_setup_sql: tuple[str, ...] = ()
    # -- a load inside the caller's transaction (tests/test_ingest_transactions.py)
    # Cursor.ingest rolls back a failed load alone, to a savepoint (False: the database has
    # none; the error then says the rows stay in the open transaction).
    ingest_savepoint: bool = True
    # DDL commits the open transaction (SQL_TXN_CAPABLE: SQL_TC_DDL_COMMIT).
    ddl_commits: bool = False
    # Connection-string attributes with which a connection waits at most ~1 s for a lock.
    short_lock_wait: str = ""
    # -- tables ingest's create makes (tests/test_ingest_create_types.py)
    # The source columns of the create round trip: kind -> (DDL, the SQL literal of its value).
    # A kind names the type's family (docs/driver-types.md, "Tables create makes").
    create_sources: dict[str, tuple[str, str]] = dataclasses.field(default_factory=dict)
    # What the driver's description carries of a source kind, where not the kind itself: the
    # kind of column create then makes from it (MariaDB describes JSON as LONGTEXT: "text";
    # SQLite's declared lengths and digits are no limits, so none is carried).
    carried_as: dict[str, str] = dataclasses.field(default_factory=dict)
    # As a target: the column type create makes for each carried kind, as this database's
    # catalog names it (column_type_sql's type, lower-case).
    created_types: dict[str, str] = dataclasses.field(default_factory=dict)
    # SQL giving (name, type, not null) of each column of table {table}, run by the oracle.
    column_type_sql: str = ""
    # SQL giving column {} as text, run by the oracle.
    text_cast_sql: str = "CAST({} AS TEXT)"
    # The longest column name create makes, and its unit ("bytes" or "characters"): longer
    # ones are refused by name (PostgreSQL would cut them at 63 bytes with only a NOTICE).
    max_column_name: tuple[int, str] = (255, "characters")
    # -- faults (tests/test_faults.py); None where the database has no such thing
    session_id_sql: str | None = None  # this session's id on the server
    kill_session_sql: str | None = None  # ends session {id}, from another session
    session_count_sql: str | None = None  # 1 while session {id} exists, 0 once it is gone
    # The number of statements other sessions are running now whose text holds {marker} (a
    # plain word): the server-side half of a cancel (tests/cli); None: no such view.
    running_statements_sql: str | None = None
    lost_connection_states: tuple[str, ...] = ("08",)  # SQLSTATE prefixes of a lost connection
    # Makes COMMIT of rows inserted into table {t} wait {s} seconds a row, in the server; and
    # what drops it again beside the table.
    slow_commit_ddl: tuple[str, ...] = ()
    slow_commit_cleanup: tuple[str, ...] = ()
    # A column type whose UNIQUE is checked at COMMIT, so that a COMMIT fails (23xxx);
    # None: the database checks every constraint at once.
    deferred_unique_type: str | None = None
    # -- the connection pool (tests/pool, tests/aio)
    # The driver's SQL_ATTR_CONNECTION_DEAD finds a session the server ended (Connector/ODBC
    # pings the server); False: it reports only a loss the driver already saw (psqlODBC), so a
    # pool needs a `check` round trip to find an idle connection whose session was killed.
    reports_killed_session_dead: bool = False
    # A value that changes whenever session {id} gets a command from its client (a statement,
    # a ping): where the server can tell whether a pool checked a connection. None: it can't.
    session_activity_sql: str | None = None
    # Run on a connection of a login: the number of the other sessions that login has open now
    # (None: the database has no logins or sessions).
    own_sessions_sql: str | None = None

    # -- connection
    @property
    def is_server(self) -> bool:
        """The database is a server the tests reach over the network (else a file)."""
        return self.connstr_env is not None

    @property
    def database(self) -> str:
        """The connection string's Database (or DB) attribute ("" where it has none)."""
        return _attribute(self.connstr, "Database") or _attribute(self.connstr, "DB") or ""

    def bind(self, tmp: Path) -> Profile | None:
        """This profile for one test: its connection string (a server's from connstr_env, None
        when that is not set; a file database's in `tmp`) with connect_attributes, and what
        derives from it."""
        if self.is_server:
            given = os.environ.get(self.connstr_env or "")
            if not given:
                return None
            unreachable = with_attributes(given, **dict(self.unreachable_attributes))
        else:
            given = self.connstr.replace("{dir}", str(tmp))
            unreachable = self.connstr.replace("{dir}", str(tmp / "missing"))
        bound = dataclasses.replace(
            self, connstr=given.rstrip(";") + self.connect_attributes, unreachable_connstr=unreachable
        )
        return dataclasses.replace(bound, schema=bound.database) if self.schema_is_database else bound

    def address(self) -> tuple[str, int]:
        """A server's (host, port), from its connection string."""
        host, port = (_attribute(self.connstr, a) for a in self.address_attributes)
        assert host and port, f"{self.name}: no {self.address_attributes} in the connection string"
        return host, int(port)

    def at(self, host: str, port: int) -> str:
        """This server's connection string pointed at ``host``:``port`` (a fault proxy)."""
        server, port_key = self.address_attributes
        return with_attributes(self.connstr, **{server: host, port_key: str(port)})

    def server_control(self) -> ServerControl | None:
        """Stops and starts this profile's server, when server_script runs the server the
        tests' connection string points at (its `env` exports that connection string)."""
        if self.server_script is None or self.connstr_env is None:
            return None
        control = ServerControl(str(ROOT / self.server_script))
        given = os.environ.get(self.connstr_env)
        if not given or control.exports().get(self.connstr_env) != given:
            return None
        return control

    # -- SQL and values
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

    def long_result(self, n: int) -> str:
        return self.long_result_sql.format(n=int(n))

    def sleep(self, seconds: float) -> str:
        return self.sleep_sql.format(seconds=seconds, rows=int(seconds * SLEEP_ROWS_PER_SECOND))

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

    def running_statements(self, admin, marker: str) -> int:
        """How many statements other sessions run now whose text holds ``marker``; ``admin``
        in autocommit (PostgreSQL keeps one snapshot of its activity view per transaction)."""
        sql = (self.running_statements_sql or "").format(marker=marker)
        return int(admin.cursor().execute(sql).fetchval())

    def kill_session(self, admin, session_id: int, wait: float = 10.0) -> None:
        """Ends session `session_id` from connection `admin` (autocommit) and waits until the
        server has let it go."""
        admin.cursor().execute(self.kill_session_sql.format(id=int(session_id)))
        deadline = time.monotonic() + wait
        count = self.session_count_sql.format(id=int(session_id))
        while admin.cursor().execute(count).fetchval():
            assert time.monotonic() < deadline, f"session {session_id} still there after {wait} s"
            time.sleep(0.01)


class ServerControl:
    """Runs a test server's script (scripts/pg.sh, scripts/mariadb.sh): halts and resumes the
    server (same data, same port), and reads what the script exports."""

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

    def exports(self) -> dict[str, str]:
        """The variables the script's `env` command exports ({} when it runs no server)."""
        done = subprocess.run(["bash", self.script, "env"], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            return {}
        out = {}
        for line in done.stdout.splitlines():
            words = shlex.split(line, comments=True)
            if len(words) == 2 and words[0] == "export" and "=" in words[1]:
                name, value = words[1].split("=", 1)
                out[name] = value
        return out

    def halt(self) -> None:
        self._run("halt")

    def resume(self) -> None:
        self._run("resume")


def with_attributes(connstr: str, **attrs: str) -> str:
    """``connstr`` with the attributes named in ``attrs`` (any case) replaced by these values.
    Values are written as given: escape them first where needed."""
    names = {k.lower() for k in attrs}
    kept = [f"{k}={v}" for k, v in connstr_attributes(connstr) if k.lower() not in names]
    return ";".join([*kept, *(f"{k}={v}" for k, v in attrs.items())]) + ";"


def with_credentials(connstr: str, user: str, password: str) -> str:
    """``connstr`` logging in as ``user`` with ``password`` (braced: it may hold ``;``)."""
    credentials = {"uid", "user", "pwd", "password"}
    kept = [f"{k}={v}" for k, v in connstr_attributes(connstr) if k.lower() not in credentials]
    return ";".join([*kept, f"UID={user}", "PWD={" + password.replace("}", "}}") + "}"]) + ";"


def _truncate_us(us: int, digits: int) -> int:
    step = 10 ** (6 - digits)
    return us - us % step


def _attribute(connstr: str, key: str) -> str | None:
    """A plain (unbraced) attribute's value in a connection string."""
    m = re.search(rf"(?:^|;)\s*{key}\s*=\s*([^;{{]*)", connstr, re.IGNORECASE)
    return m.group(1).strip() if m else None
