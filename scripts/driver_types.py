"""Survey what the ODBC drivers report for common column types; writes docs/driver-types.md.

Needs the project ODBC registry and running test servers (MariaDB is surveyed when set):
    scripts/odbcinst.sh && scripts/pg.sh start && . build/pg.env
    scripts/mariadb.sh start && . build/mariadb.env
    ODBCSYSINI=$PWD/build/odbc ODBCINI=$PWD/build/odbc/odbc.ini \
        .venv/bin/python scripts/driver_types.py > docs/driver-types.md

For each column it shows three views: SQLColumns (pyodbc cursor.columns), SQLDescribeColW on
`SELECT *` (called directly through ctypes, since pyodbc's description only has Python
types), and pyodbc's cursor.description plus the Python type of a fetched value.
"""

import ctypes
import ctypes.util
import os
import sys

import pyodbc

SQL_TYPES = {
    -11: "SQL_GUID",
    -10: "SQL_WLONGVARCHAR",
    -9: "SQL_WVARCHAR",
    -8: "SQL_WCHAR",
    -7: "SQL_BIT",
    -6: "SQL_TINYINT",
    -5: "SQL_BIGINT",
    -4: "SQL_LONGVARBINARY",
    -3: "SQL_VARBINARY",
    -2: "SQL_BINARY",
    -1: "SQL_LONGVARCHAR",
    0: "SQL_UNKNOWN_TYPE",
    1: "SQL_CHAR",
    2: "SQL_NUMERIC",
    3: "SQL_DECIMAL",
    4: "SQL_INTEGER",
    5: "SQL_SMALLINT",
    6: "SQL_FLOAT",
    7: "SQL_REAL",
    8: "SQL_DOUBLE",
    9: "SQL_DATETIME",
    10: "SQL_TIME(2.x)",
    11: "SQL_TIMESTAMP(2.x)",
    12: "SQL_VARCHAR",
    91: "SQL_TYPE_DATE",
    92: "SQL_TYPE_TIME",
    93: "SQL_TYPE_TIMESTAMP",
    16: "SQL_BOOLEAN(?)",
}

PG_COLS = [
    ("c_integer", "integer", "1"),
    ("c_bigint", "bigint", "9000000000"),
    ("c_smallint", "smallint", "7"),
    ("c_numeric_18_4", "numeric(18,4)", "12345.6789"),
    ("c_numeric", "numeric", "1.5"),
    ("c_double", "double precision", "1.25"),
    ("c_real", "real", "0.5"),
    ("c_varchar_100", "varchar(100)", "'abc'"),
    ("c_varchar", "varchar", "'abc'"),
    ("c_text", "text", "'abc'"),
    ("c_char_5", "char(5)", "'ab'"),
    ("c_date", "date", "'2024-02-29'"),
    ("c_time", "time", "'12:34:56.789'"),
    ("c_timestamp", "timestamp", "'2024-02-29 12:34:56.789'"),
    ("c_timestamptz", "timestamptz", "'2024-02-29 12:34:56.789+00'"),
    ("c_boolean", "boolean", "true"),
    ("c_bytea", "bytea", "'\\x0102'::bytea"),
    ("c_uuid", "uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"),
]
SQLITE_COLS = [
    ("c_integer", "INTEGER", "1"),
    ("c_bigint", "BIGINT", "9000000000"),
    ("c_numeric_18_4", "NUMERIC(18,4)", "12345.6789"),
    ("c_double", "DOUBLE", "1.25"),
    ("c_real", "REAL", "0.5"),
    ("c_varchar_100", "VARCHAR(100)", "'abc'"),
    ("c_text", "TEXT", "'abc'"),
    ("c_date", "DATE", "'2024-02-29'"),
    ("c_time", "TIME", "'12:34:56'"),
    ("c_timestamp", "TIMESTAMP", "'2024-02-29 12:34:56.789'"),
    ("c_boolean", "BOOLEAN", "1"),
    ("c_blob", "BLOB", "x'0102'"),
]
MARIADB_COLS = [
    ("c_integer", "INTEGER", "1"),
    ("c_bigint", "BIGINT", "9000000000"),
    ("c_smallint", "SMALLINT", "7"),
    ("c_numeric_18_4", "NUMERIC(18,4)", "12345.6789"),
    ("c_double", "DOUBLE", "1.25"),
    ("c_float", "FLOAT", "0.5"),
    ("c_varchar_100", "VARCHAR(100)", "'abc'"),
    ("c_text", "TEXT", "'abc'"),
    ("c_longtext", "LONGTEXT", "'abc'"),
    ("c_char_5", "CHAR(5)", "'ab'"),
    ("c_date", "DATE", "'2024-02-29'"),
    ("c_time_6", "TIME(6)", "'12:34:56.789'"),
    ("c_datetime_6", "DATETIME(6)", "'2024-02-29 12:34:56.789'"),
    ("c_timestamp", "TIMESTAMP NULL", "'2024-02-29 12:34:56'"),
    ("c_boolean", "BOOLEAN", "true"),
    ("c_longblob", "LONGBLOB", "x'0102'"),
    ("c_uuid", "UUID", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"),
]


class Odbc:
    """Just enough raw ODBC (W functions, as a Rust driver would call) for SQLDescribeColW."""

    def __init__(self):
        self.lib = ctypes.CDLL(ctypes.util.find_library("odbc") or "libodbc.so.2")
        self.env = self._alloc(1, None)  # SQL_HANDLE_ENV
        self._ok(self.lib.SQLSetEnvAttr(self.env, 200, ctypes.c_void_p(3), 0))  # ODBC 3

    @staticmethod
    def _ok(rc):
        if rc not in (0, 1):
            raise RuntimeError(f"ODBC call failed: rc={rc}")

    def _alloc(self, kind, parent):
        h = ctypes.c_void_p()
        self._ok(self.lib.SQLAllocHandle(kind, parent, ctypes.byref(h)))
        return h

    @staticmethod
    def _w(s):  # unixODBC's SQLWCHAR is UTF-16
        b = s.encode("utf-16-le") + b"\0\0"
        return ctypes.create_string_buffer(b, len(b)), len(s)

    def describe(self, conn_str, sql):
        dbc = self._alloc(2, self.env)
        cs, n = self._w(conn_str)
        self._ok(
            self.lib.SQLDriverConnectW(dbc, None, cs, n, None, 0, None, 0)
        )  # SQL_DRIVER_NOPROMPT
        stmt = self._alloc(3, dbc)
        q, n = self._w(sql)
        self._ok(self.lib.SQLExecDirectW(stmt, q, n))
        ncols = ctypes.c_short()
        self._ok(self.lib.SQLNumResultCols(stmt, ctypes.byref(ncols)))
        out = []
        for i in range(1, ncols.value + 1):
            name = ctypes.create_string_buffer(512)
            nlen, typ, dec, nul = (
                ctypes.c_short(),
                ctypes.c_short(),
                ctypes.c_short(),
                ctypes.c_short(),
            )
            size = ctypes.c_ulong()
            self._ok(
                self.lib.SQLDescribeColW(
                    stmt,
                    ctypes.c_ushort(i),
                    name,
                    ctypes.c_short(256),
                    ctypes.byref(nlen),
                    ctypes.byref(typ),
                    ctypes.byref(size),
                    ctypes.byref(dec),
                    ctypes.byref(nul),
                )
            )
            out.append(
                (
                    name.raw[: nlen.value * 2].decode("utf-16-le"),
                    typ.value,
                    size.value,
                    dec.value,
                    nul.value,
                )
            )
        self.lib.SQLFreeHandle(3, stmt)
        self.lib.SQLDisconnect(dbc)
        self.lib.SQLFreeHandle(2, dbc)
        return out


def code(t):
    return f"{t} {SQL_TYPES.get(t, '?')}"


def survey(title, conn_str, table, cols, odbc, drop_sql):
    cn = pyodbc.connect(conn_str, autocommit=True)
    cur = cn.cursor()
    cur.execute(drop_sql)
    cur.execute(
        f"CREATE TABLE {table} (" + ", ".join(f"{c} {t}" for c, t, _ in cols) + ")"
    )
    cur.execute(
        f"INSERT INTO {table} VALUES (" + ", ".join(v for _, _, v in cols) + ")"
    )
    meta = {r.column_name: r for r in cur.columns(table=table)}
    cur.execute(f"SELECT * FROM {table}")
    desc = cur.description
    row = cur.fetchone()
    described = odbc.describe(conn_str, f"SELECT * FROM {table}")
    cur.execute(drop_sql)
    cn.close()

    print(f"## {title}\n")
    print(
        "| declared | SQLColumns DATA_TYPE | TYPE_NAME | COLUMN_SIZE | BUFFER_LENGTH | DECIMAL_DIGITS | NUM_PREC_RADIX "
        "| SQLDescribeColW type | size | digits | pyodbc description (type, internal_size, precision, scale) "
        "| fetched value |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (col, decl, _), d, (_, dt, dsize, ddec, _), val in zip(
        cols, desc, described, row
    ):
        m = meta[col]
        print(
            f"| `{decl}` | {code(m.data_type)} | {m.type_name} | {m.column_size} | {m.buffer_length} | {m.decimal_digits} | {m.num_prec_radix} "
            f"| {code(dt)} | {dsize} | {ddec} "
            f"| {d[1].__name__}, {d[3]}, {d[4]}, {d[5]} | `{type(val).__name__}` {val!r} |"
        )
    print()


def main():
    pg = os.environ.get("FASTODBC_TEST_PG")
    if not pg:
        sys.exit("FASTODBC_TEST_PG not set: run scripts/pg.sh start && . build/pg.env")
    odbc = Odbc()
    print("# What the ODBC drivers report for common column types\n")
    print(
        "Generated by `scripts/driver_types.py` (see its docstring to regenerate) on Debian 12 with "
        "unixODBC, psqlODBC (`odbc-postgresql`), SQLite3 ODBC (`libsqliteodbc`) and MariaDB "
        "Connector/ODBC (`odbc-mariadb`), using the project "
        "registry `build/odbc/odbcinst.ini`.\n"
    )
    print(
        "- *SQLColumns*: `cursor.columns(table=...)` rows (DATA_TYPE, TYPE_NAME, COLUMN_SIZE, BUFFER_LENGTH, DECIMAL_DIGITS, NUM_PREC_RADIX)."
    )
    print(
        "- *SQLDescribeColW*: the driver's answer for `SELECT * FROM t`, called through ctypes "
        "(type code, column size, decimal digits)."
    )
    print(
        "- *pyodbc description*: `cursor.description` items 1, 3, 4, 5; *fetched value*: Python type of "
        "one fetched value.\n"
    )
    for name, conn in (
        ("PostgreSQL Unicode", pg),
        ("PostgreSQL ANSI", pg.replace("PostgreSQL Unicode", "PostgreSQL ANSI")),
    ):
        info = pyodbc.connect(conn)
        ver = info.getinfo(pyodbc.SQL_DRIVER_VER)
        info.close()
        try:
            survey(
                f"{name} (psqlODBC {ver}, `BoolsAsChar=0`)",
                conn,
                "fastodbc_types",
                PG_COLS,
                odbc,
                "DROP TABLE IF EXISTS fastodbc_types",
            )
        except pyodbc.Error as e:  # seen: the ANSI driver fails SQLColumns under pyodbc
            print(f"## {name} (psqlODBC {ver})\n\nSurvey failed: `{e}`\n")
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        conn = f"Driver={{SQLite3}};Database={d}/types.db"
        info = pyodbc.connect(conn)
        ver = info.getinfo(pyodbc.SQL_DRIVER_VER)
        info.close()
        survey(
            f"SQLite3 (sqlite3odbc {ver})",
            conn,
            "fastodbc_types",
            SQLITE_COLS,
            odbc,
            "DROP TABLE IF EXISTS fastodbc_types",
        )
    maria = os.environ.get("FASTODBC_TEST_MARIADB")
    if maria:
        info = pyodbc.connect(maria)
        ver = info.getinfo(pyodbc.SQL_DRIVER_VER)
        info.close()
        survey(
            f"MariaDB Unicode (Connector/ODBC {ver})",
            maria,
            "fastodbc_types",
            MARIADB_COLS,
            odbc,
            "DROP TABLE IF EXISTS fastodbc_types",
        )
    print(NOTES)
    print(TIMES)


NOTES = """## Notes for the driver

Read off the tables above (psqlODBC 13.02, sqlite3odbc 0.9998, Debian 12):

- **psqlODBC Unicode reports the W character types**: `varchar` -> `SQL_WVARCHAR` (-9), `text` ->
  `SQL_WLONGVARCHAR` (-10), `char(n)` -> `SQL_WCHAR` (-8). `uuid` is `SQL_GUID` (-11), but pyodbc
  fetches it as an upper-case `str`.
- **Sizes are not limits**: unconstrained `varchar` says 255 (psqlODBC `MaxVarcharSize`), `text`
  says 8190 (`MaxLongVarcharSize`), `bytea` says 0 in SQLDescribeCol; values can be longer. Fetch
  these with SQLGetData in chunks (or size buffers generously and fall back), never trust the size.
  (Checked: pyodbc returns a 1000-char `varchar` and a 20000-char `text` value whole.)
- **Unconstrained `numeric` claims precision 28, scale 6**, but PostgreSQL values may carry more
  digits either side: fetching as `SQL_C_NUMERIC` with that scale would round; fetch as text.
  (pyodbc does, and returns `123456789012345678901234567890.123456789` exactly.)
- **`timestamptz` is plain `SQL_TYPE_TIMESTAMP`** (93): the value arrives converted to the session
  time zone, with no offset.
- **`double precision` is `SQL_FLOAT`** (6) in psqlODBC, not `SQL_DOUBLE` (8): treat 6 and 8 alike.
- **`boolean` with `BoolsAsChar=0` is `SQL_BIT`** (-7).
- **psqlODBC ANSI** fails pyodbc's `cursor.columns()` (SQLGetData error 07006); use the Unicode driver.
- **SQLite3 ODBC follows declared-type names, not SQLite's storage**: `NUMERIC(18,4)` and `REAL`
  become `SQL_DOUBLE` (values are floats), `TEXT` is `SQL_LONGVARCHAR` (-1, not a W type: the
  driver is ANSI-typed even through the W API), `BLOB` is `SQL_BINARY` (-2), `BOOLEAN` is `SQL_BIT`.
- **SQLite3 ODBC's SQLColumns sizes are unreliable**: COLUMN_SIZE is 9 for `INTEGER`, 4 for
  `NUMERIC(18,4)`, 0 for `TEXT`/`DATE`; BUFFER_LENGTH carries what SQLDescribeCol calls the column
  size (10, 18, 100, 65536, ...); DECIMAL_DIGITS is always 10 and NUM_PREC_RADIX 0. Use
  SQLDescribeCol, which never reports decimal digits for SQLite (`TEXT` 65536, `BLOB` 255 there).
- **MariaDB Connector/ODBC 3.1 reports the W character types** too, `BOOLEAN` as `SQL_TINYINT`
  (it is `TINYINT(1)`: values are `int`), `UUID` as a 36-character text type in SQLDescribeCol but
  `SQL_LONGVARBINARY` in SQLColumns, `LONGTEXT` as 2^30 - 1 characters and `LONGBLOB` as
  2^32 - 1 bytes (sizes no buffer can have: long values are read with SQLGetData), `DOUBLE` with
  precision 15 (values keep 17 significant digits), `CHAR(n)` values without their padding.
"""


# Hand-written: what fastodbc does with times and zones (not measured by this script).
TIMES = """## Times and time zones: what fastodbc does with them

| value | SQLite | PostgreSQL | MariaDB |
|---|---|---|---|
| `datetime.time` parameter, whole seconds | text (`SELECT ?` gives `str`: no time type) | text described as `SQL_TYPE_TIME` (`SELECT ?` gives `time`) | native `SQL_C_TYPE_TIME` (`SELECT ?` gives `time`, as pyodbc) |
| `datetime.time` parameter with microseconds | text, kept | text described as `SQL_TYPE_TIME`, kept | text described as `SQL_VARCHAR`, kept in `TIME(6)`; `SELECT ?` gives the `str` `'12:57:18.123456'` |
| `timestamptz` in rows (`fetchall`) | (no such type) | naive `datetime`, the session zone's wall time (as pyodbc) | (no such type) |
| `timestamptz` in Arrow / Parquet | | `timestamp[us, tz=UTC]`, the instant | |
| MariaDB `TIMESTAMP`, any `DATETIME` / `TIMESTAMP` without zone | naive | naive | naive (rows and Arrow) |
| tz-aware Arrow into a zoned column (`ingest`) | | the instant (`...+00:00` text) | |
| tz-aware Arrow into a plain column | the UTC wall time | the UTC wall time | the UTC wall time |
| `ingest(mode="create")` of a tz-aware column | plain `TIMESTAMP`, UTC wall time | `timestamptz` | `DATETIME`, UTC wall time |

- **MariaDB time parameters with a fraction go as text** (`Quirks::refuses_time_fraction`):
  Connector/ODBC 3.1 has no way to send a typed TIME with a fraction (`MADB_Time2Sql` and the
  interval conversion set the fraction to 0; a timestamp or text described as `SQL_TYPE_TIME`
  with a fraction is refused, 22008). A whole-second time is sent as a native TIME (it loses
  nothing), one with microseconds as text the server reads as the literal: stored exactly, and
  compared as a time in `WHERE t = ?`, but `SELECT ?` of it is a string. Inside `executemany`'s
  parameter arrays every time goes as text (`temporal_arrays_as_text`).
- **Zoned timestamps into Arrow** (`Quirks::zoned_timestamp_as_wall_time`,
  `Strategy::session_zone_sql`): psqlODBC drops the UTC offset of every `timestamptz` value in
  every C type (its text too), leaving the session zone's wall time. fastodbc marks such
  columns when it describes a result (`SQL_DESC_TYPE_NAME` `timestamptz`), and when an Arrow
  reader starts on one it reads the session's zone (`SHOW TimeZone`, one round trip) and turns
  each wall time back into its instant with the zone's rules (chrono-tz's IANA database), as
  `timestamp[us, tz=UTC]`: UTC because the instant is what the column holds, and one zone for
  every session keeps exports comparable. A wall time the zone shows twice (the hour repeated
  when daylight saving time ends, e.g. 01:30 on 2024-11-03 in America/New_York) names two
  instants: the read fails with `DataError` (22008) naming the value and the way out (`SET TIME
  ZONE 'UTC'` before the query; for a new connection, such as the CLI's, `PGTZ=UTC` in its
  environment or `ConnSettings={SET TIME ZONE 'UTC'}` in its connection string), never a
  guess. Data of a zone with daylight saving time usually holds such an hour: an Arrow
  export of it reads in a UTC session. A zone fastodbc cannot read (`localtime`, a
  POSIX rule with daylight saving time) fails the same way; IANA names and fixed offsets
  (`<+05>-05`, `UTC+3`) are read. The rules are chrono-tz 0.10.4's copy of IANA 2025b, the
  release of Debian 12's `tzdata` that PostgreSQL reads: a server on other tz data differs
  only for a zone whose rules changed between the two. The zone is the one in force when the reader starts: a zone changed
  (on another cursor) between `execute` and the Arrow fetch is the one used.
- **Rows keep pyodbc's naive wall time** for `timestamptz`: no setting asks for aware
  `datetime`s (the Arrow path is where instants are asked for; a rows option would cost a zone
  read per result and was left out).
- **MariaDB's `TIMESTAMP` stays naive**: the server stores it as UTC but sends the session
  zone's wall time with no offset, and the session zone is often `SYSTEM` (the server host's,
  unknown to the client); the driver cannot mark these columns apart from `DATETIME`, which
  holds no instant at all. Naive is what MariaDB itself, pyodbc and arrow-odbc give. SQLite has
  no zoned type.
- **tz-aware Arrow loaded with `ingest`**: Arrow's zoned timestamps hold UTC whatever their
  label (`tz='Europe/Paris'`, `'UTC'`, `'+02:00'`); into a zoned column each goes as text with
  `+00:00`, so the database stores the instant whatever the session's zone. A database without
  a zoned type gets the UTC wall time in its plain timestamp (MariaDB `DATETIME`, SQLite text);
  `mode="create"` makes a `timestamptz` column where `SQLGetTypeInfo` lists a zoned timestamp
  type (PostgreSQL), a plain one elsewhere. A MariaDB `TIMESTAMP` column is no zoned type to
  the driver (it takes and gives wall times, as `DATETIME`): tz-aware values go into it as
  their UTC wall time, which the server reads in the session's `time_zone`, so the instant is
  kept in a session whose zone is UTC (`SET time_zone = '+00:00'`); MariaDB 10.11 refuses a
  literal with an offset (1292), so the instant itself cannot be sent.
"""


if __name__ == "__main__":
    main()
