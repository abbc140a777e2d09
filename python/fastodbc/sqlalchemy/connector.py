"""What every fastodbc dialect shares: SQLAlchemy's pyodbc connector (URL to connection
string, AUTOCOMMIT as an isolation level, ``setinputsizes``) with fastodbc as the DB-API
module, its own version, and a lost connection recognised by its SQLSTATE."""

from __future__ import annotations

from typing import Any

from sqlalchemy.connectors.pyodbc import PyODBCConnector

import fastodbc
from fastodbc.pool.errors import is_lost


class FastodbcConnector(PyODBCConnector):
    """The pyodbc connector with fastodbc's own capabilities, where pyodbc's dialects infer
    them from a pyodbc version number: fastodbc's ``0.x`` would read as a pyodbc older
    than any of their workarounds assume."""

    driver = "fastodbc"
    # fastodbc reports the rows each parameter set of an executemany changed, summed
    # (tests/test_executemany_counts.py).
    supports_sane_multi_rowcount = True
    # An INSERT executemany without RETURNING goes to ``cursor.executemany``: fastodbc binds
    # the rows as parameter arrays, one round trip a batch, faster than SQLAlchemy's
    # multi-row VALUES text ("insertmanyvalues"), which stays for INSERT ... RETURNING.
    use_insertmanyvalues_wo_returning = False

    @classmethod
    def import_dbapi(cls) -> Any:
        return fastodbc

    def _dbapi_version(self) -> tuple[Any, ...]:
        return self._parse_dbapi_version(fastodbc.version)

    def is_disconnect(self, e: Exception, connection: Any, cursor: Any) -> bool:
        # Class 08 (and PostgreSQL's 57P0x): the session is gone, whichever driver said so.
        # The pyodbc connector only reads its own closed-connection messages, so a killed
        # session or a restarted server reached SQLAlchemy's pool as a usable connection.
        if is_lost(e):
            return True
        return bool(super().is_disconnect(e, connection, cursor))
