"""SQLite through sqliteodbc 0.9998: a database in a file of the test's own."""

from __future__ import annotations

import datetime

from .profile import LOCK_TIMEOUT_S, STANDARD_ARROW_TYPES, STANDARD_DDL, STANDARD_DESCRIPTIONS, Profile

SQLITE = Profile(
    name="sqlite",
    driver="SQLite3",
    connstr="Driver={SQLite3};Database={dir}/test.sqlite;",
    concurrent_writers=False,
    # Timeout: sqliteodbc's busy timeout (ms); its default is 100 s.
    connect_attributes=f";Timeout={LOCK_TIMEOUT_S * 1000};",
    ddl_map={
        **STANDARD_DDL,
        "time(0)": "TIME",  # holds the text it is given
        "float": "DOUBLE",
        "bytes": "BLOB",
        "timestamp": "TIMESTAMP",
        "timestamp(0)": "TIMESTAMP",  # holds the text it is given
        "uuid": "VARCHAR(36)",
    },
    getinfo={
        "SQL_DRIVER_NAME": "sqlite3odbc.so",
        "SQL_DBMS_NAME": "SQLite",
        "SQL_IDENTIFIER_QUOTE_CHAR": '"',
        "SQL_MAX_TABLE_NAME_LEN": 255,
    },
    # Sizes from the declared type name; BLOB is 255 whatever it holds.
    descriptions={
        **STANDARD_DESCRIPTIONS,
        "numeric(18,4)": (float, None, 18, 18, 0),
        "bytes": (bytearray, None, 255, 255, 0),
        "timestamp": (datetime.datetime, None, 32, 32, 0),
        "bigint": (int, None, 20, 20, 0),
        "float": (float, None, 54, 54, 0),
    },
    catalog_types={
        "int": (4, "INTEGER"),
        "varchar(50)": (12, "VARCHAR(50)"),
        "numeric(18,4)": (8, "NUMERIC(18,4)"),
    },
    reports_not_null=False,
    arrow_types={
        **{k: t for k, t in STANDARD_ARROW_TYPES.items() if k != "uuid"},  # no uuid type
        # Declared sizes are no limits: every integer column holds 64 bits, REAL is a double,
        # NUMERIC is described as a double (numeric_is_float).
        **dict.fromkeys(("smallint", "int", "bigint"), "int64"),
        **dict.fromkeys(("real", "numeric(18,4)", "numeric(38,10)", "numeric(38,0)", "numeric(50,10)"), "float64"),
    },
    supports_uuid=False,
    guid_params_broken=True,  # sqliteodbc refuses SQL_C_GUID (07009)
    float_digits=15,
    keeps_negative_zero=False,
    supports_nan=False,  # NaN is stored as NULL
    nan_stored_as="null",
    timestamp_precision=6,  # bound as text: the struct path keeps ms
    time_precision=6,  # times are bound and fetched as text
    numeric_is_float=True,
    columns_hold_any_type=True,
    char_pads=False,
    int_column_is_64bit=True,
    enforces_varchar_length=False,
    astral_in_sql_text=False,  # its SQL scanner: 'unrecognized token' (as parameters: kept)
    astral_in_identifiers=False,
    unrepresentable_datetimes=tuple(
        (kind, literal) for kind in ("date", "timestamp") for literal in ("'0000-01-01'", "'10000-01-01'")
    ),
    bad_cast_raises=False,  # CAST('abc' AS INTEGER) is 0
    division_by_zero_raises=False,  # 1/0 is NULL
    honours_query_timeout=False,
    select_rowcount_known=False,
    bulk_insert="compiled_once",
    pyodbc_fast_executemany_crashes=True,
    default_row_inserts=("INSERT INTO {t} DEFAULT VALUES",),  # no DEFAULT in VALUES
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
    invalid_utf8_text_sql="CAST(x'61ff62' AS TEXT)",  # text keeps whatever bytes it is given
    schema="main",
    short_description=("", "VARCHAR(10)"),  # VARCHAR(n) is not enforced
    short_lock_wait=";Timeout=1000",  # the busy timeout, ms
    oracle="sqlite3",
    # Every INTEGER column of SQLite keeps 64 bits, whatever its declared width.
    int_bits={"smallint": 64, "int": 64, "bigint": 64},
    real_is_double=True,
    fetched_float_sql="CAST({} AS TEXT)",
    max_varchar=100_000,
    param_nul_refused=True,
    # sqliteodbc's UTF-8 -> UTF-16 conversion loses plane 16: U+100000 ends the value,
    # U+10FFFF comes back as U+FFFF.
    wide_fetch_max_codepoint=0xFFFFF,
    # StepAPI=1: the driver steps the statement per fetch instead of holding the result.
    read_options=("", "StepAPI=1"),
    # Declared types name an affinity only: a type name as a user of SQLite writes it.
    fidelity_ddl={
        "serial": "INTEGER PRIMARY KEY", "bigint": "INTEGER", "numeric(18,4)": "NUMERIC(18,4)",
        "numeric(38,9)": "NUMERIC(38,9)", "numeric": "NUMERIC", "real": "REAL", "double": "REAL",
        "bool": "BOOLEAN", "text": "TEXT", "varchar(20)": "VARCHAR(20)", "char(5)": "CHAR(5)",
        "bytes": "BLOB", "binary(4)": "BLOB", "date": "DATE", "time": "TIME", "duration": "TEXT",
        "timetz": "TEXT", "timestamp": "TIMESTAMP", "timestamptz": "TIMESTAMP", "interval": "TEXT",
        "uuid": "VARCHAR(36)", "json": "TEXT", "jsonb": "TEXT", "inet": "TEXT", "inet6": "TEXT",
        "int[]": "TEXT", "enum": "TEXT", "non-ascii name": "TEXT",
    },
    fidelity_kinds=(
        "serial", "bigint", "numeric(18,4)", "numeric(38,9)", "double", "bool", "text", "varchar(20)",
        "char(5)", "bytes", "date", "time", "timestamp", "non-ascii name",
    ),
    create_sources={
        "uuid": ("UUID", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"),
        "json": ("JSON", "'{\"b\": 1, \"a\": [1, 2]}'"),
        "varchar(20)": ("VARCHAR(20) NOT NULL", "'abc'"),
        "bool": ("BOOLEAN", "1"),
        "text": ("TEXT", "'t'"),
        "timestamp(0)": ("TIMESTAMP", "'2024-01-02 03:04:05'"),
    },
    # Declared lengths and digits are no limits in SQLite: not carried.
    carried_as={"varchar(20)": "text", "timestamp(0)": "timestamp"},
    # The driver's longest text type (SQLGetTypeInfo): text where no type of the kind exists.
    created_types={
        "uuid": "longvarchar",
        "json": "longvarchar",
        "jsonb": "longvarchar",
        "inet": "longvarchar",
        "inet6": "longvarchar",
        "interval": "longvarchar",
        "timetz": "longvarchar",
        "int_array": "longvarchar",
        "varchar(20)": "varchar(20)",
        "char(5)": "char(5)",
        "bool": "bit",
        "tinyint": "smallint",
        "text": "longvarchar",
        "numeric(12,3)": "numeric(12,3)",
        "timestamp(0)": "timestamp(0)",
        "timestamp": "timestamp(6)",
    },
    column_type_sql="SELECT name, lower(type), \"notnull\" FROM pragma_table_info('{table}')",
    dml_returning_rows=False,
)
