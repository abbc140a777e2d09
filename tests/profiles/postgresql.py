"""PostgreSQL through psqlODBC 13 (the Unicode driver): the server of scripts/pg.sh."""

from __future__ import annotations

from .profile import LOCK_TIMEOUT_S, STANDARD_DDL, STANDARD_DESCRIPTIONS, Profile

# A server-side cursor (inside the transaction) that fetches {n} rows at a time.
SERVER_CURSOR = "UseDeclareFetch=1;Fetch={n}"

POSTGRESQL = Profile(
    name="postgresql",
    driver="PostgreSQL Unicode",
    connstr_env="FASTODBC_TEST_PG",
    server_script="scripts/pg.sh",
    # ConnSettings: SQL psqlODBC runs after connecting.
    connect_attributes=f";ConnSettings={{SET lock_timeout = '{LOCK_TIMEOUT_S}s'}}",
    ddl_map={
        **STANDARD_DDL,
        "bytes": "BYTEA",
        "timestamp": "TIMESTAMP(6)",
        "uuid": "UUID",
        "timestamptz": "TIMESTAMPTZ",  # an instant, read and written in the session's zone
    },
    shares_snapshot=True,
    getinfo={
        "SQL_DRIVER_NAME": "psqlodbcw.so",
        "SQL_DBMS_NAME": "PostgreSQL",
        "SQL_IDENTIFIER_QUOTE_CHAR": '"',
        "SQL_MAX_TABLE_NAME_LEN": 63,
        "SQL_DATABASE_NAME": "fastodbc_test",
    },
    descriptions={
        **STANDARD_DESCRIPTIONS,
        "bytes": (bytearray, None, 0, 0, 0),  # bytea: SQL_LONGVARBINARY of size 0
        "float": (float, None, 17, 17, 0),
    },
    catalog_types={
        "int": (4, "int4"),
        "varchar(50)": (-9, "varchar"),
        "numeric(18,4)": (2, "numeric"),
    },
    money_type="money",
    set_time_zone_sql="SET TIME ZONE '{zone}'",
    multiple_statements=True,
    has_notices=True,
    untyped_param_is_text=True,
    select_rowcount_known=True,  # UseDeclareFetch=0: the driver holds the whole result
    refuses_connection_timeout=True,
    bulk_insert="column_arrays",
    pyodbc_time_loses_fraction=True,
    pyodbc_time_param_is_text=True,  # psqlODBC answers pyodbc's SQL_C_TYPE_TIME with text
    syntax_error_rolls_back=True,
    cancelled=("OperationalError", ("57014", "HY008")),  # the server's query_canceled
    series_sql="SELECT i FROM generate_series(1, {n}) AS s(i)",
    long_result_sql="SELECT i, md5(i::text) FROM generate_series(1, {n}) AS s(i)",
    sleep_sql="SELECT pg_sleep({seconds})",
    session_id_sql="SELECT pg_backend_pid()",
    kill_session_sql="SELECT pg_terminate_backend({id})",
    session_count_sql="SELECT COUNT(*) FROM pg_stat_activity WHERE pid = {id}",
    # When the session last went active or idle: each statement moves it (track_activities).
    session_activity_sql="SELECT state_change FROM pg_stat_activity WHERE pid = {id}",
    own_sessions_sql=(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()"
    ),
    dsn_keys={"server": "Servername", "uid": "Username", "pwd": "Password"},
    running_statements_sql=(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() "
        "AND query LIKE '%{marker}%'"
    ),
    # 57P01: "terminating connection due to administrator command", the server's goodbye.
    lost_connection_states=("08", "57P01"),
    deferred_unique_type="INTEGER UNIQUE DEFERRABLE INITIALLY DEFERRED",
    slow_commit_ddl=(
        "CREATE OR REPLACE FUNCTION {t}_slow() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN PERFORM pg_sleep({s}); RETURN NULL; END $$",
        "CREATE CONSTRAINT TRIGGER {t}_slow AFTER INSERT ON {t} DEFERRABLE INITIALLY DEFERRED "
        "FOR EACH ROW EXECUTE FUNCTION {t}_slow()",
    ),
    slow_commit_cleanup=("DROP FUNCTION IF EXISTS {t}_slow() CASCADE",),
    server_time_limit=("SET statement_timeout = 500", "SELECT pg_sleep(5)", ("57014",)),
    short_description=(";MaxVarcharSize=5;MaxLongVarcharSize=5", "VARCHAR"),
    text_width_attributes=";MaxVarcharSize=5;MaxLongVarcharSize=5",
    server_cursor_attributes=SERVER_CURSOR,
    statement_free_round_trip=True,  # SQLFreeHandle sends Close and waits for the answer
    server_cursor_crashes_on_lost_link=True,  # tests/faults: 3 runs of 4, in SQLFetch
    unconstrained_numeric_ddl="NUMERIC",
    numeric_text_precision=28,  # NUMERIC(28,s) is described as an unconstrained numeric is
    interval_ddl="INTERVAL",
    # An unconstrained numeric is described with precision 28 (NUMERIC(28,6), or the largest
    # scale of the values read): Arrow holds its text, so no value outgrows a description.
    # A server-side cursor computes rows as they are fetched.
    slow_fetch=(";" + SERVER_CURSOR.format(n=50), "pg_sleep(0.002)::text = ''"),
    # psqlODBC sends -infinity as year -9999 and BC years as negative ones.
    unrepresentable_datetimes=(("timestamp", "'-infinity'"), ("timestamp", "'0001-01-01 BC'")),
    create_login_sql="CREATE ROLE {user} LOGIN PASSWORD '{password}'",
    drop_login_sql="DROP ROLE IF EXISTS {user}",
    create_database_sql="CREATE DATABASE {name}",
    drop_database_sql="DROP DATABASE IF EXISTS {name} WITH (FORCE)",
    current_database_sql="SELECT current_database()",
    notice_sql="DO $$ BEGIN RAISE NOTICE '{text}'; END $$",
    # psqlODBC says nothing for DROP TABLE / ALTER TABLE run directly (pyodbc runs every
    # statement so), and nothing for any DDL run prepared: fastodbc reports the former.
    drop_rowcount=-1,
    alter_rowcount=-1,
    create_procedure_sql="CREATE FUNCTION {name}(a integer) RETURNS integer AS 'SELECT a' LANGUAGE SQL",
    drop_procedure_sql="DROP FUNCTION IF EXISTS {name}(integer)",
    short_lock_wait=";ConnSettings={SET lock_timeout = '1s'}",
    oracle="psycopg",
    max_varchar=100_000,
    max_char=10_000,
    read_options=("", SERVER_CURSOR),
    fidelity_ddl={
        "serial": "SERIAL PRIMARY KEY", "bigint": "BIGINT", "numeric(18,4)": "NUMERIC(18,4)",
        "numeric(38,9)": "NUMERIC(38,9)", "numeric": "NUMERIC", "real": "REAL", "double": "DOUBLE PRECISION",
        "bool": "BOOLEAN", "text": "TEXT", "varchar(20)": "VARCHAR(20)", "char(5)": "CHAR(5)",
        "bytes": "BYTEA", "binary(4)": "BYTEA", "date": "DATE", "time": "TIME(6)", "duration": "INTERVAL",
        "timetz": "TIMETZ", "timestamp": "TIMESTAMP(6)", "timestamptz": "TIMESTAMPTZ", "interval": "INTERVAL",
        "uuid": "UUID", "json": "JSON", "jsonb": "JSONB", "inet": "INET", "inet6": "INET",
        "int[]": "INTEGER[]", "enum": "crossdb_mood", "non-ascii name": "TEXT",
    },
    fidelity_kinds=(
        "serial", "bigint", "numeric(18,4)", "numeric(38,9)", "numeric", "real", "double", "bool", "text",
        "varchar(20)", "char(5)", "bytes", "date", "time", "timetz", "timestamp", "timestamptz", "interval",
        "uuid", "json", "jsonb", "inet", "int[]", "enum", "non-ascii name",
    ),
    # psycopg reads an interval as a timedelta (a month as 30 days) and JSON null as None.
    fidelity_read_sql={"interval": "{}::text", "json": "{}::text", "jsonb": "{}::text"},
    fidelity_setup_sql=(
        "DO $$ BEGIN CREATE TYPE crossdb_mood AS ENUM ('sad', 'ok', 'happy'); "
        "EXCEPTION WHEN duplicate_object THEN NULL; END $$",
    ),
    create_sources={
        "uuid": ("UUID", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"),
        "json": ("JSON", "'{\"b\": 1, \"a\": [1, 2]}'"),
        "jsonb": ("JSONB", "'{\"b\": 1, \"a\": [1, 2]}'"),
        "inet": ("INET", "'192.168.0.1/24'"),
        "interval": ("INTERVAL", "'1 day 02:03:04'"),
        "timetz": ("TIMETZ", "'12:34:56+02'"),
        "int_array": ("INTEGER[]", "'{1,2,3}'"),
        "varchar(20)": ("VARCHAR(20) NOT NULL", "'abc'"),
        "varchar": ("VARCHAR", "'no length'"),
        "char(5)": ("CHAR(5)", "'ab'"),
        "bool": ("BOOLEAN", "TRUE"),
        "text": ("TEXT", "'t'"),
        "numeric(12,3)": ("NUMERIC(12,3)", "1234.567"),
        "timestamp(0)": ("TIMESTAMP(0)", "'2024-01-02 03:04:05'"),
    },
    # psqlODBC describes varchar of no length as varchar(255) (its MaxVarcharSize).
    carried_as={"varchar": "text"},
    created_types={
        "uuid": "uuid",
        "json": "json",
        "jsonb": "jsonb",
        "inet": "inet",
        "inet6": "inet",
        "interval": "interval",
        "timetz": "time with time zone",
        "int_array": "integer[]",
        "varchar(20)": "character varying(20)",
        "char(5)": "character(5)",
        "bool": "boolean",
        "tinyint": "smallint",
        "text": "text",
        "numeric(12,3)": "numeric(12,3)",
        "timestamp(0)": "timestamp(0) without time zone",
        "timestamp": "timestamp(6) without time zone",
    },
    column_type_sql=(
        "SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute "
        "WHERE attrelid = '{table}'::regclass AND attnum > 0 AND NOT attisdropped"
    ),
    max_column_name=(63, "bytes"),
    bracket_marker_expr=("(ARRAY[?, ?, ?]::integer[])[?]", (10, 20, 30, 2), 20),
    sqlalchemy_dialect="postgresql",
    # SQLAlchemy has no pyodbc dialect for PostgreSQL: fastodbc's, over pyodbc (tests/sqla_suite).
    sqlalchemy_pyodbc_driver="pyodbc_oracle",
)
