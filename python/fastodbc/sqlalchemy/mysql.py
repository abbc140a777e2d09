"""``mysql+fastodbc://`` and ``mariadb+fastodbc://``: SQLAlchemy's MySQL/MariaDB pyodbc dialect
over fastodbc, with MariaDB Connector/ODBC (``driver=MariaDB Unicode``) or MySQL's."""

from __future__ import annotations

from sqlalchemy.dialects.mysql.pyodbc import MySQLDialect_pyodbc

from .connector import FastodbcConnector


class MySQLDialect_fastodbc(FastodbcConnector, MySQLDialect_pyodbc):  # noqa: N801 - SQLAlchemy's naming
    """SQLAlchemy's ``mysql+pyodbc`` with fastodbc as its DB-API module."""

    supports_statement_cache = True
    port_keyword = True
    pyodbc_driver_name = "MariaDB Unicode"


class MariaDBDialect_fastodbc(MySQLDialect_fastodbc):  # noqa: N801 - SQLAlchemy's naming
    """``mariadb+fastodbc://``: the MySQL dialect in its MariaDB mode."""

    supports_statement_cache = True
    is_mariadb = True
    name = "mariadb"


dialect = MySQLDialect_fastodbc
