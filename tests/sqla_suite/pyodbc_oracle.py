"""The PostgreSQL oracle: fastodbc's PostgreSQL dialect with pyodbc as its DB-API module, so the
suite's results over psqlODBC can be compared driver against driver, the dialect the same."""

from typing import Any

from fastodbc.sqlalchemy.postgresql import PGDialect_fastodbc


class PGDialect_pyodbc_oracle(PGDialect_fastodbc):  # noqa: N801 - SQLAlchemy's naming
    driver = "pyodbc_oracle"
    supports_statement_cache = True
    # What SQLAlchemy's pyodbc connector says of pyodbc, where fastodbc's says otherwise.
    supports_sane_multi_rowcount = False
    use_insertmanyvalues_wo_returning = True

    @classmethod
    def import_dbapi(cls) -> Any:
        import pyodbc

        return pyodbc

    def _dbapi_version(self) -> tuple[Any, ...]:
        return self._parse_dbapi_version(self.dbapi.version)
