"""The oracles: independent clients (no ODBC) that create, fill and read the same tables.

An oracle's values are normalised only where the two clients legitimately differ in Python
type: sqlite3 returns the text SQLite stores for DATE / TIME / TIMESTAMP and 0/1 for BOOLEAN,
where fastodbc (through the driver's SQL types) returns date, time, datetime and bool;
PyMySQL returns a TIME as a timedelta.
"""

from __future__ import annotations

import datetime
import decimal
import re
import sqlite3
import uuid
from typing import Any

from .compare import is_double
from .schema import Column, Table


def connstr_attrs(connstr: str) -> dict[str, str]:
    """Attributes of an ODBC connection string (braced values unwrapped), names lower-case."""
    out = {}
    for m in re.finditer(r"([^=;]+)=(\{(?:[^}]|\}\})*\}|[^;]*)", connstr):
        value = m.group(2)
        if value.startswith("{"):
            value = value[1:-1].replace("}}", "}")
        out[m.group(1).strip().lower()] = value
    return out


class Oracle:
    """One client connection, autocommit: every statement is committed when it returns."""

    module = ""
    placeholder = "?"

    def __init__(self, profile):
        self.profile = profile

    def create(self, name: str, table: Table) -> None:
        self.execute(table.ddl(name, self.profile.ddl("bigint")))

    def drop(self, name: str) -> None:
        self.execute(f"DROP TABLE IF EXISTS {name}")

    def insert(self, name: str, table: Table) -> None:
        cols = ["id"] + [c.name for c in table.columns]
        marks = ", ".join([self.placeholder] * len(cols))
        sql = f"INSERT INTO {name} ({', '.join(cols)}) VALUES ({marks})"
        kinds = [None] + table.columns
        rows = [tuple(self.adapt(c, x) for c, x in zip(kinds, r, strict=False)) for r in table.rows()]
        if rows:
            self.executemany(sql, rows)

    def select(self, name: str, cols: list[Column | None], fetched: bool = False):
        """Rows ordered by id, columns as listed (None: the id), normalised. ``fetched``:
        doubles as the text the ODBC driver reads of them, where it reads text
        (``Profile.fetched_float_sql``)."""
        exprs = []
        for c in cols:
            if c is None:
                exprs.append("id")
            elif fetched and self.profile.fetched_float_sql and is_double(self.profile, c):
                exprs.append(self.profile.fetched_float_sql.format(c.name))
            else:
                exprs.append(self.expression(c))
        raw = self.query(f"SELECT {', '.join(exprs)} FROM {name} ORDER BY id")
        return [tuple(self.normalise(c, x) for c, x in zip(cols, r, strict=False)) for r in raw]

    def expression(self, col: Column) -> str:
        """How the oracle selects a column to read the value stored exactly."""
        return col.name

    def adapt(self, col: Column | None, value: Any) -> Any:
        return value

    def normalise(self, col: Column | None, value: Any) -> Any:
        return value


class SqliteOracle(Oracle):
    module = "sqlite3"

    def __init__(self, profile):
        super().__init__(profile)
        self.path = connstr_attrs(profile.connstr)["database"]
        self.cnxn = sqlite3.connect(self.path, isolation_level=None, timeout=10)

    def script_connect(self) -> str:
        return f"oracle = sqlite3.connect({self.path!r}, isolation_level=None)"

    def execute(self, sql: str) -> None:
        self.cnxn.execute(sql)

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        self.cnxn.execute("BEGIN")
        self.cnxn.executemany(sql, rows)
        self.cnxn.execute("COMMIT")

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        return self.cnxn.execute(sql).fetchall()

    def adapt(self, col, value):
        # SQLite has no date, time or decimal storage: the text forms its driver reads.
        if isinstance(value, datetime.datetime):
            return value.isoformat(sep=" ")
        if isinstance(value, (datetime.date, datetime.time)):
            return value.isoformat()
        if isinstance(value, (decimal.Decimal, uuid.UUID)):
            return str(value)
        return value

    _PARSE = {
        "date": datetime.date.fromisoformat,
        "time": datetime.time.fromisoformat,
        "timestamp": datetime.datetime.fromisoformat,
    }

    def normalise(self, col, value):
        if value is None or col is None:
            return value
        if col.kind == "bool":
            return bool(value)
        if isinstance(value, str) and is_double(self.profile, col):
            return float(value)  # its text, as fetched (select(fetched=True))
        if isinstance(value, str) and col.kind in self._PARSE:
            return self._PARSE[col.kind](value)
        return value

    def close(self) -> None:
        self.cnxn.close()


class PsycopgOracle(Oracle):
    module = "psycopg"
    placeholder = "%s"

    def __init__(self, profile):
        import psycopg

        super().__init__(profile)
        a = connstr_attrs(profile.connstr)
        self.conninfo = (
            f"host={a.get('server', '127.0.0.1')} port={a.get('port', '5432')} "
            f"dbname={a['database']} user={a.get('uid', '')} password={a.get('pwd', '')}"
        )
        self.cnxn = psycopg.connect(self.conninfo, autocommit=True)
        # Never wait forever on a lock a fastodbc connection of a failed example still holds.
        self.cnxn.execute("SET lock_timeout = '10s'")

    def script_connect(self) -> str:
        return f"import psycopg\noracle = psycopg.connect({self.conninfo!r}, autocommit=True)"

    def execute(self, sql: str) -> None:
        self.cnxn.execute(sql)

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        with self.cnxn.transaction(), self.cnxn.cursor() as cur:
            cur.executemany(sql, rows)

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        return self.cnxn.execute(sql).fetchall()

    def close(self) -> None:
        self.cnxn.close()


class PyMySQLOracle(Oracle):
    module = "pymysql"
    placeholder = "%s"

    def __init__(self, profile):
        import pymysql

        super().__init__(profile)
        a = connstr_attrs(profile.connstr)
        self.params = dict(
            host=a.get("server", "127.0.0.1"),
            port=int(a.get("port", "3306")),
            user=a.get("user", a.get("uid", "")),
            password=a.get("password", a.get("pwd", "")),
            database=a["database"],
            charset="utf8mb4",
            autocommit=True,
        )
        self.cnxn = pymysql.connect(**self.params)
        # Never wait long on a lock a fastodbc connection of a failed example still holds.
        self.execute("SET lock_wait_timeout = 10, innodb_lock_wait_timeout = 10")

    def script_connect(self) -> str:
        return f"import pymysql\noracle = pymysql.connect(**{self.params!r})"

    def execute(self, sql: str) -> None:
        with self.cnxn.cursor() as cur:
            cur.execute(sql)

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        self.cnxn.begin()
        with self.cnxn.cursor() as cur:
            cur.executemany(sql, rows)
        self.cnxn.commit()

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        with self.cnxn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())

    def expression(self, col):
        # The text protocol sends a FLOAT with 6 significant digits: its double is exact.
        return f"CAST({col.name} AS DOUBLE)" if col.kind == "real" else col.name

    def adapt(self, col, value):
        return str(value) if isinstance(value, uuid.UUID) else value

    def normalise(self, col, value):
        if isinstance(value, datetime.timedelta) and col is not None and col.kind == "time":
            # PyMySQL returns a TIME as the duration since midnight.
            return (datetime.datetime.min + value).time()
        return value

    def close(self) -> None:
        self.cnxn.close()


ORACLES = {"sqlite3": SqliteOracle, "psycopg": PsycopgOracle, "pymysql": PyMySQLOracle}


def oracle_for(profile) -> Oracle:
    return ORACLES[profile.oracle](profile)
