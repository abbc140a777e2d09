"""``mysql+fastodbc://`` and ``mariadb+fastodbc://``: SQLAlchemy's MySQL/MariaDB pyodbc dialect
over fastodbc, with MariaDB Connector/ODBC (``driver=MariaDB Unicode``) or MySQL's."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy.dialects.mysql.pyodbc import MySQLDialect_pyodbc

from .connector import FastodbcConnector


class MySQLDialect_fastodbc(FastodbcConnector, MySQLDialect_pyodbc):  # noqa: N801 - SQLAlchemy's naming
    """SQLAlchemy's ``mysql+pyodbc`` with fastodbc as its DB-API module."""

    supports_statement_cache = True
    port_keyword = True
    pyodbc_driver_name = "MariaDB Unicode"
    # Connector/ODBC counts each parameter set of an array: executemany's rowcount is their
    # sum (SQLAlchemy's suite: test_multi_update_rowcount, test_multi_delete_rowcount).
    supports_sane_multi_rowcount = True


    def create_connect_args(self, url: Any) -> Any:
        # Rows matched, not rows changed, as SQLAlchemy's other MySQL dialects count them
        # (their client flag FOUND_ROWS; Connector/ODBC's OPTION bit 2): an UPDATE that sets
        # a value a row already holds still counts it. An OPTION of the caller's stays.
        (connstr,), kwargs = super().create_connect_args(url)
        if not re.search(r"(^|;)\s*option\s*=", connstr, re.IGNORECASE):
            connstr = f"{connstr.rstrip(';')};OPTION=2"
        return (connstr,), kwargs


class MariaDBDialect_fastodbc(MySQLDialect_fastodbc):  # noqa: N801 - SQLAlchemy's naming
    """``mariadb+fastodbc://``: the MySQL dialect in its MariaDB mode."""

    supports_statement_cache = True
    is_mariadb = True
    name = "mariadb"


dialect = MySQLDialect_fastodbc
