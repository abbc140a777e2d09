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
        "time": "duration[us]",  # TIME is a duration (-838:59:59.999999 to 838:59:59.999999)
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
    astral_in_identifiers=False,  # identifiers are utf8mb3 (1300)
    supports_nan=False,  # the server refuses them (22003)
    nan_stored_as="refused",
    infinity_stored_as="refused",
    char_pads=False,
    null_stamping_timestamp_ddl="TIMESTAMP NOT NULL",  # NULL is stored as the current time
    fixed_binary_ddl="BINARY({n})",
    fixed_binary_pads=True,  # BINARY(n) is fixed-length: shorter values get zero bytes
    time_duration_range=("-838:59:59.999999", "838:59:59.999999"),
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
    long_result_sql="SELECT seq, md5(seq) FROM seq_1_to_{n}",
    time_scale0="truncate",  # without TIME_ROUND_FRACTIONAL in sql_mode
    # Bound as VARCHAR: the driver refuses (or drops) a TIME parameter's fraction.
    time_fraction_param_is_text=True,
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
    # The session's last query id: a new one for each statement and each ping (COM_PING).
    session_activity_sql="SELECT QUERY_ID FROM information_schema.PROCESSLIST WHERE ID = {id}",
    # COMMAND: 'Query' for a statement sent as text, 'Execute' for a prepared one.
    running_statements_sql=(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() "
        "AND COMMAND <> 'Sleep' AND INFO LIKE '%{marker}%'"
    ),
    ddl_commits=True,  # CREATE / DROP commit the open transaction
    short_lock_wait=";InitStmt={SET lock_wait_timeout = 1, innodb_lock_wait_timeout = 1}",
    oracle="pymysql",
    sqlalchemy_dialect="mysql",
    column_kinds=(*DIFFERENTIAL_KINDS, "tinyint"),
    int_bits={"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64},
    unsigned_int_bits={
        "tinyint unsigned": 8, "smallint unsigned": 16, "int unsigned": 32, "bigint unsigned": 64,
    },
    max_varchar=16_383,  # utf8mb4: 65,535 bytes
    row_text_bytes=65_535,
    # No DEFAULT VALUES; an empty column list and VALUES () insert a row of defaults.
    default_row_inserts=(
        "INSERT INTO {t} (id) VALUES (DEFAULT)",
        "INSERT INTO {t} () VALUES ()",
        "INSERT INTO {t} VALUES ()",
    ),
    paramset_ignored_without_markers=True,  # Connector/ODBC 3.1.15: one row of an array
    fidelity_ddl={
        "serial": "INT AUTO_INCREMENT PRIMARY KEY", "bigint": "BIGINT", "numeric(18,4)": "DECIMAL(18,4)",
        "numeric(38,9)": "DECIMAL(38,9)", "numeric": "DECIMAL(65,30)", "real": "FLOAT", "double": "DOUBLE",
        "bool": "BOOLEAN", "text": "LONGTEXT", "varchar(20)": "VARCHAR(20)", "char(5)": "CHAR(5)",
        "bytes": "LONGBLOB", "binary(4)": "BINARY(4)", "date": "DATE", "time": "TIME(6)",
        "duration": "TIME(6)",  # MariaDB's TIME is a duration (-838:59:59 to 838:59:59)
        "timetz": "VARCHAR(32)", "timestamp": "DATETIME(6)", "timestamptz": "DATETIME(6)",
        "interval": "VARCHAR(64)", "uuid": "UUID", "json": "JSON", "jsonb": "JSON", "inet": "VARCHAR(43)",
        "inet6": "INET6", "int[]": "LONGTEXT", "enum": "ENUM('sad', 'ok', 'happy')", "non-ascii name": "LONGTEXT",
    },
    fidelity_kinds=(
        "serial", "bigint", "numeric(18,4)", "numeric(38,9)", "real", "double", "bool", "text", "varchar(20)",
        "char(5)", "bytes", "binary(4)", "date", "time", "duration", "timestamp", "uuid", "json", "inet6",
        "enum", "non-ascii name",
    ),
    # The text protocol sends a FLOAT with 6 significant digits: its double is exact.
    fidelity_read_sql={"real": "CAST({} AS DOUBLE)"},
    create_sources={
        "uuid": ("UUID", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"),
        "json": ("JSON", "'{\"b\": 1, \"a\": [1, 2]}'"),
        "inet6": ("INET6", "'2001:db8::1'"),
        "enum": ("ENUM('sad', 'ok')", "'ok'"),
        "varchar(20)": ("VARCHAR(20) NOT NULL", "'abc'"),
        "char(5)": ("CHAR(5)", "'ab'"),
        "bool": ("BOOLEAN", "1"),
        "text": ("LONGTEXT", "'t'"),
        "numeric(12,3)": ("DECIMAL(12,3)", "1234.567"),
        "timestamp(0)": ("DATETIME", "'2024-01-02 03:04:05'"),
    },
    # Connector/ODBC describes JSON as LONGTEXT, an ENUM by its longest value, BOOLEAN as TINYINT.
    carried_as={"json": "text", "enum": "text", "bool": "tinyint"},
    created_types={
        "uuid": "uuid",
        "json": "longtext",  # JSON: LONGTEXT checked by JSON_VALID
        "jsonb": "longtext",
        "inet": "longtext",
        "inet6": "inet6",
        "interval": "longtext",
        "timetz": "longtext",
        "int_array": "longtext",
        "varchar(20)": "varchar(20)",
        "char(5)": "char(5)",
        "bool": "tinyint(1)",  # BOOLEAN
        "tinyint": "smallint(6)",
        "text": "longtext",
        "numeric(12,3)": "decimal(12,3)",
        "timestamp(0)": "datetime",
        "timestamp": "datetime(6)",
    },
    column_type_sql=(
        "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE = 'NO' FROM information_schema.COLUMNS "
        "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '{table}'"
    ),
    text_cast_sql="CAST({} AS CHAR)",
    # Connector/ODBC 3.1 reports 255 (SQL_MAX_COLUMN_NAME_LEN); the server refuses over 64.
    max_column_name=(64, "characters"),
)
