"""``postgresql+fastodbc://``: SQLAlchemy's PostgreSQL dialect over fastodbc and psqlODBC
(``driver=PostgreSQL Unicode``). SQLAlchemy has no pyodbc dialect for PostgreSQL; this one
takes the pyodbc connector's URL rules and the PostgreSQL dialect's SQL, reflection and types.

psqlODBC sends a text parameter typed as ``varchar``, which PostgreSQL will not put into a
JSON, JSONB, UUID or INTERVAL column, so those parameters are written with a cast
(``?::JSONB``), as SQLAlchemy's psycopg and asyncpg dialects write theirs."""

from __future__ import annotations

from typing import Any

from sqlalchemy import util
from sqlalchemy.dialects.postgresql import INTERVAL, JSON, JSONB, UUID
from sqlalchemy.dialects.postgresql.base import PGDialect
from sqlalchemy.engine.interfaces import BindTyping
from sqlalchemy.sql import sqltypes

from .connector import FastodbcConnector


class _CastJSON(JSON):
    render_bind_cast = True


class _CastJSONB(JSONB):
    render_bind_cast = True


class _CastUUID(UUID):
    render_bind_cast = True


class _CastInterval(INTERVAL):
    render_bind_cast = True


class PGDialect_fastodbc(FastodbcConnector, PGDialect):  # noqa: N801 - SQLAlchemy's naming
    """PostgreSQL through psqlODBC, with fastodbc as the DB-API module."""

    supports_statement_cache = True
    pyodbc_driver_name = "PostgreSQL Unicode"
    bind_typing = BindTyping.RENDER_CASTS
    supports_server_side_cursors = False

    colspecs = util.update_copy(
        PGDialect.colspecs,
        {
            sqltypes.JSON: _CastJSON,
            JSON: _CastJSON,
            JSONB: _CastJSONB,
            sqltypes.Uuid: _CastUUID,
            sqltypes.Interval: _CastInterval,
            INTERVAL: _CastInterval,
        },
    )

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
