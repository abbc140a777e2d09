"""``postgresql+fastodbc://``: SQLAlchemy's PostgreSQL dialect over fastodbc and psqlODBC
(``driver=PostgreSQL Unicode``). SQLAlchemy has no pyodbc dialect for PostgreSQL; this one
takes the pyodbc connector's URL rules and the PostgreSQL dialect's SQL, reflection and types.

psqlODBC binds parameters on the server: a string arrives typed as ``varchar`` (which
PostgreSQL will not put into a JSON, JSONB, UUID or INTERVAL column), an integer as
``bigint`` (no ``generate_subscripts(int2vector, bigint)``), and where a function takes "any"
(``json_build_object(?, ...)``) the server cannot type it at all. So parameters are written
with a cast to their SQLAlchemy type (``?::VARCHAR``, ``?::INTEGER``, ``?::JSONB``), for the
same types as SQLAlchemy's psycopg 3 dialect, which binds on the server too."""

from __future__ import annotations

from typing import Any

from sqlalchemy import util
from sqlalchemy.dialects.postgresql import INTERVAL, JSON, JSONB, REGCONFIG, UUID
from sqlalchemy.dialects.postgresql.base import PGDialect
from sqlalchemy.dialects.postgresql.pg_catalog import INT2VECTOR, OIDVECTOR
from sqlalchemy.engine.interfaces import BindTyping
from sqlalchemy.sql import sqltypes

from .connector import FastodbcConnector
from .pg_array import TextArray, TextINT2VECTOR, TextOIDVECTOR


def _cast(base: type, visit_name: str | None = None) -> type:
    """``base`` with its parameters written as ``?::<type>``."""
    namespace: dict[str, Any] = {"render_bind_cast": True, "__module__": __name__}
    if visit_name:
        namespace["__visit_name__"] = visit_name
    return type(f"_Cast{base.__name__}", (base,), namespace)


_CastJSON = _cast(JSON)
_CastInterval = _cast(INTERVAL)

_CASTS = {
    sqltypes.String: _cast(sqltypes.String),
    REGCONFIG: _cast(REGCONFIG),
    sqltypes.JSON: _CastJSON,
    JSON: _CastJSON,
    JSONB: _cast(JSONB),
    sqltypes.JSON.JSONIntIndexType: _cast(sqltypes.JSON.JSONIntIndexType, "json_int_index"),
    sqltypes.JSON.JSONStrIndexType: _cast(sqltypes.JSON.JSONStrIndexType, "json_str_index"),
    sqltypes.Uuid: _cast(UUID),
    sqltypes.Interval: _CastInterval,
    INTERVAL: _CastInterval,
    sqltypes.Date: _cast(sqltypes.Date),
    sqltypes.DateTime: _cast(sqltypes.DateTime),
    sqltypes.Time: _cast(sqltypes.Time),
    sqltypes.Integer: _cast(sqltypes.Integer),
    sqltypes.SmallInteger: _cast(sqltypes.SmallInteger),
    sqltypes.BigInteger: _cast(sqltypes.BigInteger),
    sqltypes.Boolean: _cast(sqltypes.Boolean),
    sqltypes.ARRAY: TextArray,
    INT2VECTOR: TextINT2VECTOR,
    OIDVECTOR: TextOIDVECTOR,
}


class PGDialect_fastodbc(FastodbcConnector, PGDialect):  # noqa: N801 - SQLAlchemy's naming
    """PostgreSQL through psqlODBC, with fastodbc as the DB-API module."""

    supports_statement_cache = True
    port_keyword = True
    pyodbc_driver_name = "PostgreSQL Unicode"
    bind_typing = BindTyping.RENDER_CASTS
    supports_server_side_cursors = False

    colspecs = util.update_copy(PGDialect.colspecs, _CASTS)

    def _get_server_version_info(self, connection: Any) -> tuple[int, ...]:
        # ``version()`` names the server's own release; psqlODBC's SQL_DBMS_VER pads it.
        return PGDialect._get_server_version_info(self, connection)

    def set_isolation_level(self, dbapi_connection: Any, level: Any) -> None:
        if level == "AUTOCOMMIT":
            dbapi_connection.autocommit = True
            return
        dbapi_connection.autocommit = False
        self._set_session(dbapi_connection, f"ISOLATION LEVEL {level}")

    def set_readonly(self, connection: Any, value: bool) -> None:
        self._set_session(connection, "READ ONLY" if value else "READ WRITE")

    def get_readonly(self, connection: Any) -> bool:
        return self._show(connection, "transaction_read_only") == "on"

    def set_deferrable(self, connection: Any, value: bool) -> None:
        self._set_session(connection, "DEFERRABLE" if value else "NOT DEFERRABLE")

    def get_deferrable(self, connection: Any) -> bool:
        return self._show(connection, "transaction_deferrable") == "on"

    @staticmethod
    def _set_session(dbapi_connection: Any, characteristic: str) -> None:
        # SQLAlchemy sets these between transactions; the commit ends the one psqlODBC began
        # for the SET itself (through the driver, which tracks it, not a COMMIT statement).
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"SET SESSION CHARACTERISTICS AS TRANSACTION {characteristic}")
        finally:
            cursor.close()
        if not dbapi_connection.autocommit:
            dbapi_connection.commit()

    @staticmethod
    def _show(dbapi_connection: Any, setting: str) -> str:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"SHOW {setting}")
            row = cursor.fetchone()
        finally:
            cursor.close()
        return str(row[0]) if row else ""


dialect = PGDialect_fastodbc
