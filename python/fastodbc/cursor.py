"""``Cursor``: the Python surface over the native cursor (catalog helpers, context manager)."""

from __future__ import annotations

from types import TracebackType

from . import _native

__all__ = ["Cursor"]


class Cursor(_native.Cursor):
    """A cursor: ``execute`` returns it, rows come from blocks fetched many rows at a time.

    As in pyodbc, a cursor used as a context manager commits on success when autocommit is
    off; the cursor stays open.
    """

    def tables(
        self,
        table: str | None = None,
        catalog: str | None = None,
        schema: str | None = None,
        tableType: str | None = None,  # noqa: N803 - pyodbc's name
    ) -> Cursor:
        """Runs ``SQLTables``; rows are (table_cat, table_schem, table_name, table_type, remarks)."""
        return self._catalog("tables", catalog, schema, table, tableType)

    def columns(
        self,
        table: str | None = None,
        catalog: str | None = None,
        schema: str | None = None,
        column: str | None = None,
    ) -> Cursor:
        """Runs ``SQLColumns``; one row per column, as ODBC defines them."""
        return self._catalog("columns", catalog, schema, table, column)

    def primaryKeys(  # noqa: N802 - pyodbc's name
        self, table: str, catalog: str | None = None, schema: str | None = None
    ) -> Cursor:
        """Runs ``SQLPrimaryKeys`` for ``table``."""
        return self._catalog("primaryKeys", catalog, schema, table)

    def __enter__(self) -> Cursor:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        conn = self.connection
        if exc_type is None and not conn.closed and not conn.autocommit:
            conn.commit()
