"""SQLite through sqliteodbc 0.9998: a database in a file of the test's own."""

from __future__ import annotations

import datetime

from .profile import LOCK_TIMEOUT_S, STANDARD_ARROW_TYPES, STANDARD_DDL, STANDARD_DESCRIPTIONS, Profile

SQLITE = Profile(
    name="sqlite",
    driver="SQLite3",
    connstr="Driver={SQLite3};Database={dir}/test.sqlite;",
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
    unrepresentable_datetimes=tuple(
        (kind, literal) for kind in ("date", "timestamp") for literal in ("'0000-01-01'", "'10000-01-01'")
    ),
    bad_cast_raises=False,  # CAST('abc' AS INTEGER) is 0
    division_by_zero_raises=False,  # 1/0 is NULL
    honours_query_timeout=False,
    select_rowcount_known=False,
    bulk_insert="compiled_once",
    pyodbc_fast_executemany_crashes=True,
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
)
