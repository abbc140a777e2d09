"""``mssql+fastodbc://``: SQLAlchemy's SQL Server pyodbc dialect over fastodbc, with Microsoft's
ODBC Driver 18 (the default ``driver=``) or FreeTDS."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects.mssql.pyodbc import MSDialect_pyodbc

from .connector import FastodbcConnector


class MSDialect_fastodbc(FastodbcConnector, MSDialect_pyodbc):  # noqa: N801 - SQLAlchemy's naming
    """SQLAlchemy's ``mssql+pyodbc`` with fastodbc as its DB-API module. fastodbc binds every
    parameter set of an executemany as arrays, so ``fast_executemany`` is on by default (it
    can be turned off), and decimals are bound with their own precision, so the pyodbc
    dialect's decimal-to-string workaround for old pyodbc versions stays off."""

    supports_statement_cache = True
    pyodbc_driver_name = "ODBC Driver 18 for SQL Server"

    def __init__(self, fast_executemany: bool = True, **params: Any) -> None:
        super().__init__(fast_executemany=fast_executemany, **params)
        self._need_decimal_fix = False


dialect = MSDialect_fastodbc
