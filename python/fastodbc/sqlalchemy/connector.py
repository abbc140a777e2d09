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
    # executemany's rowcount is the total where the driver reports each parameter set's
    # count (MariaDB: its dialect says so), and -1 where it does not (psqlODBC's UPDATE /
    # DELETE arrays): not a count SQLAlchemy may check a versioned UPDATE against.
    supports_sane_multi_rowcount = False
    # An INSERT executemany without RETURNING goes to ``cursor.executemany``: fastodbc binds
    # the rows as parameter arrays, one round trip a batch, faster than SQLAlchemy's
    # multi-row VALUES text ("insertmanyvalues"), which stays for INSERT ... RETURNING.
    use_insertmanyvalues_wo_returning = False

    # SQL Server's drivers read a port as ``Server=host,port``; psqlODBC and MariaDB
    # Connector/ODBC read ``Port=``, and would take "host,port" for a host name.
    port_keyword = False

    def create_connect_args(self, url: Any) -> Any:
        if self.port_keyword and url.port is not None and "port" not in url.query:
            url = url.set(port=None).update_query_dict({"port": str(url.port)})
        return super().create_connect_args(url)

    @classmethod
    def import_dbapi(cls) -> Any:
        return fastodbc

    @classmethod
    def load_provisioning(cls) -> None:
        # SQLAlchemy's test provisioning (temporary tables, schemas, sequences for its suite)
        # lives beside each database's own dialects; the default looks beside this module.
        for base in cls.__mro__[1:]:
            if base.__module__.startswith("sqlalchemy.dialects."):
                base.load_provisioning()
                return

    def _dbapi_version(self) -> tuple[Any, ...]:
        return self._parse_dbapi_version(fastodbc.version)

    def is_disconnect(self, e: Exception, connection: Any, cursor: Any) -> bool:
        # Class 08 (and PostgreSQL's 57P0x): the session is gone, whichever driver said so.
        # The pyodbc connector only reads its own closed-connection messages, so a killed
        # session or a restarted server reached SQLAlchemy's pool as a usable connection.
        if is_lost(e):
            return True
        return bool(super().is_disconnect(e, connection, cursor))
