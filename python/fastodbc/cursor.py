"""``Cursor``: the Python surface over the native cursor (catalog helpers, context manager)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from . import _native
from .errors import ProgrammingError

if TYPE_CHECKING:
    import pandas
    import polars
    import pyarrow

    from .ingest import IngestMode, IngestNan, IngestPlan

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

    def ingest(
        self,
        table: str,
        data: Any,
        *,
        mode: IngestMode = "append",
        columns: Mapping[str, str | None] | None = None,
        column_types: Mapping[str, str] | None = None,
        schema: str | None = None,
        batch_rows: int | None = None,
        batch_bytes: int | None = None,
        commit: bool = False,
        commit_every: int | None = None,
        nan: IngestNan = "keep",
    ) -> int:
        """Writes ``data`` into ``table`` and returns the number of rows written.

        ``data``: anything with ``__arrow_c_stream__`` or ``__arrow_c_array__`` (a pyarrow
        Table, RecordBatch or RecordBatchReader, a polars or pandas DataFrame, a DuckDB
        relation, nanoarrow), or an iterable of record batches; read once, a batch at a time.

        ``mode`` (ADBC's): ``"append"`` to an existing table, ``"create"`` a new one (an error
        if it exists), ``"replace"`` (drop it if it exists, then create), ``"create_append"``
        (create it if missing). Created columns get the database's own types for the Arrow
        types (``ingest_plan`` shows them), made like the source column where ``data`` was
        fetched by fastodbc (its fields' ``fastodbc.*`` metadata: a length, NOT NULL, a type
        the target has of the same kind, such as uuid or json; docs/driver-types.md).
        ``column_types`` gives a created column's definition by input column name (``{"id":
        "BIGINT PRIMARY KEY"}``: the SQL after the column's name, used as written; an unknown
        name is refused; only where the load creates the table). ``table`` and ``schema``
        are quoted as given.

        Input columns go to the table's columns of the same name (or of the same name in
        another case, when only one is); ``columns`` maps input names to other column names,
        or to None to leave an input column out.

        Before anything is sent, every input column's Arrow type is checked against its
        column's type: a pair that would lose information (a float into an INTEGER, a scale
        the column would cut, text into a number) raises ``DataError`` naming both. Each
        value is then checked as it is converted: a value too long for its column, a number
        out of its range, fractional seconds it would cut raise ``DataError``, a NULL into a
        NOT NULL column ``IntegrityError``, naming the column, the input row (from 1) and the
        value or its length. Nothing is ever cut or dropped silently.

        The transaction follows the connection's, as ADBC's ``adbc_ingest`` does; the load
        never commits work it did not do unless asked (``commit=True``):

        - Autocommit on: the load, with its DROP / CREATE, is a transaction of its own,
          committed at its end; on any error nothing of it stays (autocommit is off meanwhile
          and restored after).
        - Autocommit off (the DB-API default): the load is part of the connection's open
          transaction and nothing is committed: ``commit()`` keeps it, ``rollback()`` undoes
          it. On an error only the load is rolled back: the whole transaction where the load
          was its first statement (so no lock is kept), else to a savepoint where the database
          has them (PostgreSQL, SQLite, MariaDB's InnoDB tables; the caller's earlier work
          stays, the transaction open; a note on the error says so, or, without savepoints,
          that the rows sent stay in the transaction). Where DDL commits by itself (MariaDB;
          ``SQL_TXN_CAPABLE``) a ``create`` / ``replace`` in a transaction holding earlier
          work is refused (``ProgrammingError``, nothing written), since its CREATE / DROP
          would commit that work; a table the load created stays after ``rollback()`` (empty),
          and ``replace`` is committed by its DROP and RENAME.
        - ``commit=True``: commits at the end, the connection's earlier work with the load
          (where DDL commits by itself, or with ``commit_every``, that work is committed
          before the load begins); an error still rolls back the load alone.
        - ``commit_every=N``: also commits after about every N rows; an error then says how
          many rows were committed and rolls back the rest. It commits, so with autocommit
          off it needs ``commit=True``.

        A table the load created is dropped again when the load fails where DDL commits by
        itself, over a new connection when the load's own was lost. An exception raised by
        an iterable of record batches (a generator's error, ``KeyboardInterrupt``) is raised
        unchanged, after the load is rolled back (an Arrow stream's error, such as a
        ``RecordBatchReader``'s, reaches fastodbc as text only: ``DataError``).

        ``batch_rows`` / ``batch_bytes``: the most rows and converted bytes sent per
        statement execution (default: what the driver's strategy sends best, and the
        connection's ``memory_budget.param_chunk_bytes``, 16 MiB by default).

        ``nan``: what a NaN double becomes. ``"keep"`` (the default) sends it as NaN where the
        database keeps it (PostgreSQL); where it would become NULL (SQLite) it is refused
        (``DataError`` naming the column, input row and value), and MariaDB's server refuses
        it. ``"null"`` stores every NaN as NULL, on every database.
        """
        from . import ingest as _ingest

        return _ingest.ingest(
            self,
            table,
            data,
            mode=mode,
            columns=columns,
            column_types=column_types,
            schema=schema,
            batch_rows=batch_rows,
            batch_bytes=batch_bytes,
            commit=commit,
            commit_every=commit_every,
            nan=nan,
        )

    def ingest_parquet(self, table: str, path: str | os.PathLike[str], **options: Any) -> int:
        """Loads a Parquet file into ``table`` as ``ingest`` does (same keywords), read a
        batch of ``batch_rows`` (default 65,536) at a time: memory is bounded by the batch,
        not the file. Needs pyarrow (the ``arrow`` extra)."""
        from . import ingest as _ingest

        return _ingest.ingest_parquet(self, table, path, **options)

    def ingest_csv(
        self,
        table: str,
        path: str | os.PathLike[str],
        *,
        read_options: Any = None,
        parse_options: Any = None,
        convert_options: Any = None,
        null_values: Sequence[str] | None = None,
        **options: Any,
    ) -> int:
        """Loads a CSV file (a path or a binary file object) into ``table`` as ``ingest`` does
        (same keywords), streamed by ``pyarrow.csv.open_csv`` with the given pyarrow CSV
        options. Without ``convert_options``, by fastodbc's CSV rules (fastodbc/csvfile.py,
        what ``fastodbc export`` writes): only an empty unquoted field is NULL, plus the
        unquoted tokens of ``null_values`` (``NA``, ``null``, ``nan`` are values otherwise);
        types inferred from the first MiB without losing what the text says (decimal text is
        a decimal, quoted values and ``007`` text). With ``convert_options``, pyarrow's rules
        as given. Needs pyarrow."""
        from . import ingest as _ingest

        return _ingest.ingest_csv(
            self,
            table,
            path,
            read_options=read_options,
            parse_options=parse_options,
            convert_options=convert_options,
            null_values=null_values,
            **options,
        )

    def ingest_plan(
        self,
        table: str,
        data: Any,
        *,
        mode: IngestMode = "append",
        columns: Mapping[str, str | None] | None = None,
        column_types: Mapping[str, str] | None = None,
        schema: str | None = None,
    ) -> IngestPlan:
        """What ``ingest`` would run for ``data`` (or only its schema: anything with
        ``__arrow_c_schema__`` is read for its schema alone), writing nothing: the column
        mapping and the DROP / CREATE / INSERT statements; ``str(plan)`` describes it."""
        from . import ingest as _ingest

        source = _ingest.source_of(data)
        return _ingest.plan(
            self, table, source, mode=mode, columns=columns, column_types=column_types, schema=schema
        )

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
