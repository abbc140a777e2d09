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
    syntax_error_rolls_back=True,
    cancelled=("OperationalError", ("57014", "HY008")),  # the server's query_canceled
    series_sql="SELECT i FROM generate_series(1, {n}) AS s(i)",
    sleep_sql="SELECT pg_sleep({seconds})",
    session_id_sql="SELECT pg_backend_pid()",
    kill_session_sql="SELECT pg_terminate_backend({id})",
    session_count_sql="SELECT COUNT(*) FROM pg_stat_activity WHERE pid = {id}",
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
    # An unconstrained numeric is described as (28, the largest scale of the values read).
    numeric_outgrows_description=(
        ";" + SERVER_CURSOR.format(n=2),
        "SELECT CAST(x AS NUMERIC) AS amount FROM (VALUES (1.5), (1.25), (2), (3), (1.123456789)) t(x)",
    ),
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
    drop_rowcount=-1,  # psqlODBC says nothing for DROP / ALTER
    create_procedure_sql="CREATE FUNCTION {name}(a integer) RETURNS integer AS 'SELECT a' LANGUAGE SQL",
    drop_procedure_sql="DROP FUNCTION IF EXISTS {name}(integer)",
    oracle="psycopg",
    max_varchar=100_000,
    max_char=10_000,
    read_options=("", SERVER_CURSOR),
)
