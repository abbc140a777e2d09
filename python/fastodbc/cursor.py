"""``Cursor``: the Python surface over the native cursor (catalog helpers, context manager)."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

from . import _native
from .errors import ProgrammingError

if TYPE_CHECKING:
    import pandas
    import polars
    import pyarrow

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

    def foreignKeys(  # noqa: N802 - pyodbc's name
        self,
        table: str | None = None,
        catalog: str | None = None,
        schema: str | None = None,
        foreignTable: str | None = None,  # noqa: N803 - pyodbc's name
        foreignCatalog: str | None = None,  # noqa: N803
        foreignSchema: str | None = None,  # noqa: N803
    ) -> Cursor:
        """Runs ``SQLForeignKeys``: the foreign keys that refer to the primary key of ``table``,
        or those of ``foreignTable``. Rows: pktable_cat, pktable_schem, pktable_name,
        pkcolumn_name, fktable_cat, fktable_schem, fktable_name, fkcolumn_name, key_seq,
        update_rule, delete_rule, fk_name, pk_name, deferrability."""
        return self._catalog(
            "foreignKeys", catalog, schema, table, foreignCatalog, foreignSchema, foreignTable
        )

    def statistics(
        self,
        table: str,
        catalog: str | None = None,
        schema: str | None = None,
        unique: bool = False,
        quick: bool = True,
    ) -> Cursor:
        """Runs ``SQLStatistics``: the indexes of ``table`` (only unique ones if ``unique``)
        and its statistics (cardinality and pages only where readily available if
        ``quick``). Rows: table_cat, table_schem, table_name, non_unique, index_qualifier,
        index_name, type, ordinal_position, column_name, asc_or_desc, cardinality, pages,
        filter_condition."""
        return self._catalog(
            "statistics", catalog, schema, table, options=[bool(unique), bool(quick)]
        )

    def rowIdColumns(  # noqa: N802 - pyodbc's name
        self,
        table: str,
        catalog: str | None = None,
        schema: str | None = None,
        nullable: bool = True,
    ) -> Cursor:
        """Runs ``SQLSpecialColumns(SQL_BEST_ROWID)``: the columns that identify a row of
        ``table``. Rows: scope, column_name, data_type, type_name, column_size, buffer_length,
        decimal_digits, pseudo_column."""
        return self._catalog(
            "rowIdColumns", catalog, schema, table, options=[bool(nullable)]
        )

    def rowVerColumns(  # noqa: N802 - pyodbc's name
        self,
        table: str,
        catalog: str | None = None,
        schema: str | None = None,
        nullable: bool = True,
    ) -> Cursor:
        """Runs ``SQLSpecialColumns(SQL_ROWVER)``: the columns of ``table`` that change whenever
        a row is updated. Rows as ``rowIdColumns``."""
        return self._catalog(
            "rowVerColumns", catalog, schema, table, options=[bool(nullable)]
        )

    def procedures(
        self,
        procedure: str | None = None,
        catalog: str | None = None,
        schema: str | None = None,
    ) -> Cursor:
        """Runs ``SQLProcedures``. Rows: procedure_cat, procedure_schem, procedure_name,
        num_input_params, num_output_params, num_result_sets, remarks, procedure_type."""
        return self._catalog("procedures", catalog, schema, procedure)

    def procedureColumns(  # noqa: N802 - pyodbc's name
        self,
        procedure: str | None = None,
        catalog: str | None = None,
        schema: str | None = None,
    ) -> Cursor:
        """Runs ``SQLProcedureColumns``: the parameters and result columns of procedures."""
        return self._catalog("procedureColumns", catalog, schema, procedure)

    def getTypeInfo(self, sqlType: int | None = None) -> Cursor:  # noqa: N802, N803 - pyodbc's names
        """Runs ``SQLGetTypeInfo`` for ``sqlType`` (a ``SQL_*`` type constant; None: all
        types). Rows: type_name, data_type, column_size, literal_prefix, literal_suffix,
        create_params, nullable, case_sensitive, searchable, unsigned_attribute,
        fixed_prec_scale, auto_unique_value, local_type_name, minimum_scale, maximum_scale,
        sql_data_type, sql_datetime_sub, num_prec_radix, interval_precision."""
        return self._catalog("getTypeInfo", options=[0 if sqlType is None else int(sqlType)])

    def fetch_arrow_table(self, batch_rows: int | None = None, batch_bytes: int | None = None) -> pyarrow.Table:
        """The rest of the current result as a ``pyarrow.Table`` (needs pyarrow: the ``arrow``
        extra), built in Rust from the fetched blocks with the GIL released; one chunk per batch
        of ``fetch_record_batch``."""
        return self.fetch_record_batch(batch_rows, batch_bytes).read_all()

    def fetch_df(self, **to_pandas: Any) -> pandas.DataFrame:
        """The rest of the current result as a pandas ``DataFrame`` (the ``pandas`` extra):
        ``fetch_arrow_table().to_pandas(**to_pandas)``."""
        return self.fetch_arrow_table().to_pandas(**to_pandas)

    def fetch_polars(self) -> polars.DataFrame:
        """The rest of the current result as a polars ``DataFrame`` (the ``polars`` extra; no
        pyarrow needed: polars reads the Arrow C stream)."""
        try:
            import polars
        except ImportError as e:
            raise ImportError("fetch_polars needs polars: pip install fastodbc[polars]") from e
        return polars.DataFrame(self.fetch_record_batch())

    def commit(self) -> None:
        """Commits the connection's transaction (the work of all its cursors), as pyodbc's."""
        self._open_connection().commit()

    def rollback(self) -> None:
        """Rolls back the connection's transaction (the work of all its cursors), as pyodbc's."""
        self._open_connection().rollback()

    def _open_connection(self) -> _native.Connection:
        if self.closed:
            raise ProgrammingError("HY000", "Attempt to use a closed cursor.")
        return self.connection

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
