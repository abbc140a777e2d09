"""MariaDB 10.11 through MariaDB Connector/ODBC 3.1: the server of scripts/mariadb.sh."""

from __future__ import annotations

from .profile import (
    DIFFERENTIAL_KINDS,
    LOCK_TIMEOUT_S,
    STANDARD_ARROW_TYPES,
    STANDARD_DDL,
    STANDARD_DESCRIPTIONS,
    Profile,
)

MARIADB = Profile(
    name="mariadb",
    driver="MariaDB Unicode",
    connstr_env="FASTODBC_TEST_MARIADB",
    server_script="scripts/mariadb.sh",
    # InitStmt: SQL Connector/ODBC runs after connecting. lock_wait_timeout bounds metadata
    # locks (DROP TABLE waits a year by default), innodb_lock_wait_timeout row locks.
    connect_attributes=(
        f";InitStmt={{SET lock_wait_timeout = {LOCK_TIMEOUT_S}, "
        f"innodb_lock_wait_timeout = {LOCK_TIMEOUT_S}}}"
    ),
    ddl_map={
        **STANDARD_DDL,
        "float": "DOUBLE",
        "real": "FLOAT",  # MariaDB's REAL is a DOUBLE
        "text": "LONGTEXT",  # TEXT holds 64 KiB
        "time": "TIME(6)",  # TIME keeps no fraction
        "time(0)": "TIME",
        "bytes": "LONGBLOB",
        "timestamp": "DATETIME(6)",
        "timestamp(0)": "DATETIME",  # TIMESTAMP is 1970-2038, in the session's time zone
        "uuid": "UUID",
        "tinyint": "TINYINT",
        # Unsigned integers (Arrow: uint8-uint64).
        "tinyint unsigned": "TINYINT UNSIGNED",
        "smallint unsigned": "SMALLINT UNSIGNED",
        "int unsigned": "INT UNSIGNED",
        "bigint unsigned": "BIGINT UNSIGNED",
    },
    getinfo={
        "SQL_DRIVER_NAME": "libmaodbc.so",
        "SQL_DBMS_NAME": "MariaDB",
        "SQL_IDENTIFIER_QUOTE_CHAR": "`",
        "SQL_MAX_TABLE_NAME_LEN": 256,
        "SQL_DATABASE_NAME": "fastodbc_test",
    },
    descriptions={
        **STANDARD_DESCRIPTIONS,
        "bytes": (bytearray, None, 2**32 - 1, 2**32 - 1, 0),  # LONGBLOB
        "bool": (int, None, 3, 3, 0),  # TINYINT(1)
        "bigint": (int, None, 20, 20, 0),
    },
    arrow_types={
        **STANDARD_ARROW_TYPES,
        "bool": "int8",  # BOOLEAN is TINYINT(1)
        "tinyint": "int8",
        "tinyint unsigned": "uint8",
        "smallint unsigned": "uint16",
        "int unsigned": "uint32",
        "bigint unsigned": "uint64",
    },
    catalog_types={
        "int": (4, "INT"),
        "varchar(50)": (-9, "VARCHAR"),
        "numeric(18,4)": (3, "DECIMAL"),
    },
    uuid_fetched_as_str=True,  # UUID is described as CHAR(36)
    catalog_misreads_names=True,  # Connector/ODBC 3.1 reads UTF-16 past such units
    uuid_refuses_ncs_high_versions=True,
    guid_params_broken=True,  # Connector/ODBC 3.1.15 sends the struct's bytes as they lie
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
    # Kept by the default sql_mode (no NO_ZERO_IN_DATE); the zero date 0000-00-00 arrives as
    # NULL (the driver's choice).
    unrepresentable_datetimes=tuple(
        (kind, literal)
        for kind in ("date", "timestamp")
        for literal in ("'0000-01-01'", "'2024-00-10'", "'2024-02-00'")
    ),
    schema_is_database=True,
    # GRANT ... IDENTIFIED BY creates the login (scripts/mariadb.sh's user connects from
    # 127.0.0.1, as the tests do).
    create_login_sql=(
        "GRANT ALL PRIVILEGES ON {database}.* TO '{user}'@'127.0.0.1' IDENTIFIED BY '{password}'"
    ),
    drop_login_sql="DROP USER IF EXISTS '{user}'@'127.0.0.1'",
    # create_database_sql: None. Connector/ODBC's reading of Database= keyword values is not
    # tested (the test user could create databases).
    create_procedure_sql="CREATE PROCEDURE {name}(IN a INT) SELECT a",
    drop_procedure_sql="DROP PROCEDURE IF EXISTS {name}",
    session_id_sql="SELECT CONNECTION_ID()",
    kill_session_sql="KILL {id}",
    session_count_sql="SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = {id}",
    # A login without the PROCESS privilege sees its own sessions only.
    own_sessions_sql=(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
        "WHERE USER = SUBSTRING_INDEX(USER(), '@', 1) AND ID <> CONNECTION_ID()"
    ),
    reports_killed_session_dead=True,  # Connector/ODBC's SQL_ATTR_CONNECTION_DEAD pings
    # COMMAND: 'Query' for a statement sent as text, 'Execute' for a prepared one.
    running_statements_sql=(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() "
        "AND COMMAND <> 'Sleep' AND INFO LIKE '%{marker}%'"
    ),
    oracle="pymysql",
    column_kinds=(*DIFFERENTIAL_KINDS, "tinyint"),
    int_bits={"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64},
    unsigned_int_bits={
        "tinyint unsigned": 8, "smallint unsigned": 16, "int unsigned": 32, "bigint unsigned": 64,
    },
    max_varchar=16_383,  # utf8mb4: 65,535 bytes
    row_text_bytes=65_535,
)
