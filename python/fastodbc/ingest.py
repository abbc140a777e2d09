"""Bulk load: ``Cursor.ingest`` and its file forms. The values go to the driver in Rust
(``_native.Cursor._ingest``); this module decides the statements (ADBC's modes, the
``CREATE TABLE`` from the driver's own type names) and the transaction around them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from . import _native
from .constants import (
    SQL_BIGINT,
    SQL_BIT,
    SQL_DOUBLE,
    SQL_IDENTIFIER_QUOTE_CHAR,
    SQL_INTEGER,
    SQL_LONGVARBINARY,
    SQL_LONGVARCHAR,
    SQL_NUMERIC,
    SQL_REAL,
    SQL_SMALLINT,
    SQL_TINYINT,
    SQL_TXN_CAPABLE,
    SQL_TYPE_DATE,
    SQL_TYPE_TIME,
    SQL_TYPE_TIMESTAMP,
)
from .errors import DataError, Error, ProgrammingError

if TYPE_CHECKING:
    from .cursor import Cursor

__all__ = ["ColumnMapping", "IngestMode", "IngestPlan", "ingest", "ingest_csv", "ingest_parquet", "plan"]

IngestMode = Literal["create", "append", "replace", "create_append"]
MODES: tuple[str, ...] = ("create", "append", "replace", "create_append")

# SQL_TXN_CAPABLE's SQL_TC_ALL: DDL runs inside the transaction, so a rollback undoes a CREATE.
_SQL_TC_ALL = 2

# Standard names for a type the driver lists no row for in SQLGetTypeInfo.
_STANDARD_NAMES = {
    SQL_BIT: "BOOLEAN",
    SQL_SMALLINT: "SMALLINT",
    SQL_INTEGER: "INTEGER",
    SQL_BIGINT: "BIGINT",
    SQL_REAL: "REAL",
    SQL_DOUBLE: "DOUBLE PRECISION",
    SQL_NUMERIC: "NUMERIC",
    SQL_LONGVARCHAR: "TEXT",
    SQL_LONGVARBINARY: "BLOB",
    SQL_TYPE_DATE: "DATE",
    SQL_TYPE_TIME: "TIME",
    SQL_TYPE_TIMESTAMP: "TIMESTAMP",
}
# An unsigned integer where the database has no unsigned type of its width: the next wider.
_WIDER = {SQL_TINYINT: SQL_SMALLINT, SQL_SMALLINT: SQL_INTEGER, SQL_INTEGER: SQL_BIGINT}
# Long types: the driver's longest (MariaDB lists TEXT before LONGTEXT).
_LONGEST = (SQL_LONGVARCHAR, SQL_LONGVARBINARY)


@dataclass(frozen=True)
class ColumnMapping:
    """One input column and the table column it is written to."""

    source: str
    target: str
    arrow_type: str
    sql_type: str


@dataclass(frozen=True)
class IngestPlan:
    """The statements a load runs, decided before anything is written."""

    table: str
    mode: str
    drop_sql: str | None
    create_sql: str | None
    select_sql: str
    insert_sql: str
    columns: list[ColumnMapping]
    source_indices: list[int]
    #: Per target column: the catalog says NOT NULL (where a query's description may not).
    not_null: list[bool]

    def __str__(self) -> str:
        width = max((len(c.source) for c in self.columns), default=0)
        lines = [f"{self.mode} {self.table}:"]
        lines += [f"  {c.source:<{width}}  {c.arrow_type}  ->  {c.target}  {c.sql_type}" for c in self.columns]
        for sql in (self.drop_sql, self.create_sql, self.insert_sql):
            if sql:
                lines.append(sql + ";")
        return "\n".join(lines)


def _quoter(cursor: Cursor) -> Any:
    q = cursor.connection.getinfo(SQL_IDENTIFIER_QUOTE_CHAR) or ""
    q = q.strip()

    def quote(name: str) -> str:
        return f"{q}{name.replace(q, q + q)}{q}" if q else name

    return quote


def _table_exists(cursor: Cursor, table: str, schema: str | None) -> bool:
    # The catalog, not a probing SELECT: a failed statement would abort PostgreSQL's
    # transaction. Names are patterns there ('_' matches any character): compared exactly.
    c = cursor.connection.cursor()
    try:
        rows = c.tables(table=table, schema=schema).fetchall()
    finally:
        c.close()
    return any(r[2] == table and (schema is None or r[1] == schema) for r in rows)


def _not_null_columns(cursor: Cursor, table: str, schema: str | None) -> set[str]:
    c = cursor.connection.cursor()
    try:
        rows = c.columns(table=table, schema=schema).fetchall()
    except Error:
        return set()
    finally:
        c.close()
    # SQLColumns: TABLE_NAME 3rd, COLUMN_NAME 4th, NULLABLE 11th (SQL_NO_NULLS = 0).
    return {r[3] for r in rows if r[2] == table and r[10] == 0}


def _target_columns(cursor: Cursor, qualified: str) -> list[str]:
    c = cursor.connection.cursor()
    try:
        c.execute(f"SELECT * FROM {qualified} WHERE 1 = 0")
        return [d[0] for d in c.description or ()]
    finally:
        c.close()


class _TypeNames:
    """The database's type names, from the driver's ``SQLGetTypeInfo``."""

    def __init__(self, cursor: Cursor) -> None:
        self._cursor = cursor.connection.cursor()
        self._rows: dict[int, list[Any]] = {}

    def _info(self, sql_type: int) -> list[Any]:
        if sql_type not in self._rows:
            try:
                self._rows[sql_type] = self._cursor.getTypeInfo(sql_type).fetchall()
            except Error:
                # MariaDB's driver refuses some types (SQL_REAL) instead of listing none.
                self._rows[sql_type] = []
        return self._rows[sql_type]

    def name(self, sql_type: int, unsigned: bool, precision: int, scale: int) -> str:
        rows = self._info(sql_type)
        if unsigned:
            found = [r for r in rows if r.unsigned_attribute == 1]
            if found:
                return found[0].type_name
            if sql_type == SQL_BIGINT:
                return self.name(SQL_NUMERIC, False, 20, 0)
            return self.name(_WIDER.get(sql_type, sql_type), False, precision, scale)
        rows = [r for r in rows if r.unsigned_attribute != 1]
        if sql_type == SQL_TYPE_TIMESTAMP:
            # A zoned timestamp would shift naive values by the session's zone.
            rows = [r for r in rows if not any(z in r.type_name.lower() for z in ("tz", "zone", "offset"))]
        if sql_type in _LONGEST and rows:
            rows = [max(rows, key=lambda r: r.column_size or 0)]
        name = rows[0].type_name if rows else _STANDARD_NAMES.get(sql_type, "TEXT")
        if sql_type == SQL_NUMERIC:
            return f"{name}({precision},{scale})"
        if sql_type in (SQL_TYPE_TIME, SQL_TYPE_TIMESTAMP) and scale > 0:
            return f"{name}({scale})"
        return name

    def close(self) -> None:
        self._cursor.close()


def match_columns(
    names: list[str], targets: list[str], columns: Mapping[str, str | None] | None
) -> tuple[list[tuple[int, str]], list[str]]:
    """(input index, target column) for each input column written: renamed by ``columns``
    (None: skipped), else the target of the same name, else the one of the same name in
    another case when only one is; and the target names wanted that the table lacks."""
    columns = columns or {}
    by_folded: dict[str, list[str]] = {}
    for t in targets:
        by_folded.setdefault(t.casefold(), []).append(t)
    pairs: list[tuple[int, str]] = []
    missing: list[str] = []
    for i, name in enumerate(names):
        want = columns.get(name, name)
        if want is None:
            continue
        if want in targets:
            pairs.append((i, want))
        elif len(by_folded.get(want.casefold(), [])) == 1:
            pairs.append((i, by_folded[want.casefold()][0]))
        else:
            missing.append(want)
    return pairs, missing


def _match(names: list[str], targets: list[str], columns: Mapping[str, str | None] | None) -> list[tuple[int, str]]:
    """``match_columns``, refusing a mapping of input columns the input lacks, an input
    column the table has no column for, and no column at all."""
    unknown = set(columns or {}) - set(names)
    if unknown:
        raise ProgrammingError("HY000", f"columns names input columns the input lacks: {sorted(unknown)}")
    pairs, missing = match_columns(names, targets, columns)
    if missing:
        raise ProgrammingError(
            "42S22",
            f"the table has no column for input columns {missing} (its columns: {targets}); "
            "map them with columns={'input name': 'table column'} or None to skip one",
        )
    if not pairs:
        raise ProgrammingError("HY000", "no input column to write")
    return pairs


def plan(
    cursor: Cursor,
    table: str,
    source: _native.IngestSource,
    *,
    mode: str = "append",
    columns: Mapping[str, str | None] | None = None,
    schema: str | None = None,
) -> IngestPlan:
    """The statements ``ingest`` would run for ``source`` (see ``Cursor.ingest_plan``)."""
    if mode not in MODES:
        raise ProgrammingError("HY000", f"mode must be one of {MODES}, not {mode!r}")
    quote = _quoter(cursor)
    qualified = f"{quote(schema)}.{quote(table)}" if schema else quote(table)
    fields = source.fields
    names = [f[0] for f in fields]
    exists = _table_exists(cursor, table, schema)
    if mode == "append" and not exists:
        raise ProgrammingError("42S02", f"table {qualified} does not exist (mode='append'); use mode='create'")
    if mode == "create" and exists:
        raise ProgrammingError("42S01", f"table {qualified} exists already (mode='create')")
    create = mode in ("create", "replace") or (mode == "create_append" and not exists)
    drop_sql = f"DROP TABLE {qualified}" if mode == "replace" and exists else None
    create_sql = None
    not_null: set[str] = set()
    if create:
        pairs = _match(names, [columns.get(n, n) or n for n in names] if columns else names, columns)
        typenames = _TypeNames(cursor)
        try:
            defs = []
            sql_types = []
            for i, target in pairs:
                name, arrow_type, nullable, wanted = fields[i]
                if isinstance(wanted, str):
                    raise DataError("22000", f"input column {name!r} ({arrow_type}) cannot be created: {wanted}")
                sql_type = typenames.name(*wanted)
                sql_types.append(sql_type)
                defs.append(f"{quote(target)} {sql_type}{'' if nullable else ' NOT NULL'}")
        finally:
            typenames.close()
        create_sql = f"CREATE TABLE {qualified} ({', '.join(defs)})"
        not_null = {target for i, target in pairs if not fields[i][2]}
    else:
        pairs = _match(names, _target_columns(cursor, qualified), columns)
        sql_types = ["" for _ in pairs]
        not_null = _not_null_columns(cursor, table, schema)
    targets = ", ".join(quote(t) for _, t in pairs)
    markers = ", ".join("?" for _ in pairs)
    return IngestPlan(
        table=qualified,
        mode=mode,
        drop_sql=drop_sql,
        create_sql=create_sql,
        select_sql=f"SELECT {targets} FROM {qualified} WHERE 1 = 0",
        insert_sql=f"INSERT INTO {qualified} ({targets}) VALUES ({markers})",
        columns=[ColumnMapping(fields[i][0], t, fields[i][1], s) for (i, t), s in zip(pairs, sql_types, strict=True)],
        source_indices=[i for i, _ in pairs],
        not_null=[t in not_null for _, t in pairs],
    )


def source_of(data: Any) -> _native.IngestSource:
    """``data`` as a load's input; a bare schema (``__arrow_c_schema__`` only) as an input of
    no rows, for ``ingest_plan``."""
    if isinstance(data, _native.IngestSource):
        return data
    if not (hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__")) and hasattr(
        data, "__arrow_c_schema__"
    ):
        import pyarrow as pa

        return _native.IngestSource(pa.RecordBatchReader.from_batches(pa.schema(data), []))
    return _native.IngestSource(data)


def ingest(
    cursor: Cursor,
    table: str,
    data: Any,
    *,
    mode: str = "append",
    columns: Mapping[str, str | None] | None = None,
    schema: str | None = None,
    batch_rows: int | None = None,
    batch_bytes: int | None = None,
    commit: bool = True,
    commit_every: int | None = None,
) -> int:
    """See ``Cursor.ingest``."""
    if commit_every is not None and (not commit or commit_every < 1):
        raise ProgrammingError("HY000", "commit_every needs commit=True and a row count of at least 1")
    source = source_of(data)
    conn = cursor.connection
    p = plan(cursor, table, source, mode=mode, columns=columns, schema=schema)
    if p.drop_sql and commit and conn.getinfo(SQL_TXN_CAPABLE) != _SQL_TC_ALL:
        return _replace_by_rename(cursor, table, source, p, columns, schema, batch_rows, batch_bytes, commit_every)
    autocommit = conn.autocommit
    created = False
    if commit and autocommit:
        conn.autocommit = False
    try:
        if p.drop_sql:
            cursor.execute(p.drop_sql)
        if p.create_sql:
            cursor.execute(p.create_sql)
            created = True
        rows = cursor._ingest(
            source, p.select_sql, p.insert_sql, p.source_indices, p.not_null, batch_rows, batch_bytes, commit_every
        )
        if commit:
            conn.commit()
        return rows
    except BaseException:
        if commit:
            _undo(cursor, p, created, committed=commit_every is not None)
        raise
    finally:
        if commit and autocommit and not conn.closed:
            conn.autocommit = True


def _replace_by_rename(
    cursor: Cursor,
    table: str,
    source: _native.IngestSource,
    p: IngestPlan,
    columns: Mapping[str, str | None] | None,
    schema: str | None,
    batch_rows: int | None,
    batch_bytes: int | None,
    commit_every: int | None,
) -> int:
    """``replace`` where DDL commits by itself (MariaDB): the rows go into a new table first,
    and the old one is dropped and the new one renamed only once the load succeeded, so a
    failed load leaves the old table as it was."""
    staging = f"{table}__fastodbc_load"
    quote = _quoter(cursor)
    if _table_exists(cursor, staging, schema):
        cursor.execute(f"DROP TABLE {quote(schema) + '.' if schema else ''}{quote(staging)}")
    rows = ingest(
        cursor,
        staging,
        source,
        mode="create",
        columns=columns,
        schema=schema,
        batch_rows=batch_rows,
        batch_bytes=batch_bytes,
        commit=True,
        commit_every=commit_every,
    )
    staged = f"{quote(schema) + '.' if schema else ''}{quote(staging)}"
    cursor.execute(p.drop_sql)
    # ALTER TABLE ... RENAME TO: the same words on MariaDB, PostgreSQL and SQLite.
    cursor.execute(f"ALTER TABLE {staged} RENAME TO {quote(table)}")
    if not cursor.connection.autocommit:
        cursor.connection.commit()
    return rows


def _undo(cursor: Cursor, p: IngestPlan, created: bool, committed: bool) -> None:
    """Rolls back a failed load; drops the table it created where the database commits DDL by
    itself (MariaDB), unless rows of it were committed (``commit_every``)."""
    conn = cursor.connection
    if conn.closed:
        return
    try:
        conn.rollback()
        if created and not committed and conn.getinfo(SQL_TXN_CAPABLE) != _SQL_TC_ALL:
            conn.cursor().execute(f"DROP TABLE {p.table}")
            conn.commit()
    except Error:
        pass  # the load's own error says what went wrong; the connection may be lost


#: Rows per batch read from a Parquet file when the caller does not say (pyarrow's default).
PARQUET_BATCH_ROWS = 65_536

#: The read buffer of each column chunk of a Parquet file (``ParquetFile``'s ``buffer_size``).
PARQUET_READ_BUFFER = 1 << 20


def open_parquet(source: Any) -> Any:
    """``source`` (a path or a binary file) as a ``pyarrow.parquet.ParquetFile`` read a page at a
    time: a buffered stream per column chunk, not the whole chunk (``pre_buffer``, pyarrow's
    default, holds a row group's chunks, read ahead on pyarrow's I/O threads)."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(source, pre_buffer=False, buffer_size=PARQUET_READ_BUFFER)


def parquet_batches(path: Any, batch_rows: int | None) -> tuple[Any, Iterator[Any]]:
    """The schema and record batches of a Parquet file, read a batch at a time."""
    f = open_parquet(path)
    return f.schema_arrow, parquet_row_groups(f, batch_rows)


def parquet_row_groups(f: Any, batch_rows: int | None) -> Iterator[Any]:
    """The batches of an open ``pyarrow.parquet.ParquetFile``, read one row group at a time:
    ``iter_batches`` over the whole file holds about twice the memory (pre-buffered reads across
    row groups), so memory would follow the file, not its row groups.

    Memory is flat in the file's size only if what a batch freed goes back to the OS before
    the next is read: pyarrow's default pool (mimalloc 3) keeps freed pages for a second
    (``purge_delay``), several batches' worth. So batches are decoded on this thread (a
    release collects only the calling thread's pages, not pyarrow's workers') and the pool's
    unused memory is released once the consumer has dropped each batch. Measured (issue 19's
    note): ΔRSS 100K -> 1M rows 91 -> 139 MB before, 83 -> 85 after; the cost, pages faulted
    in again, ~7 ms per 100,000 rows, within the loads' noise."""
    import pyarrow as pa

    pool = pa.default_memory_pool()
    for group in range(f.num_row_groups):
        for batch in f.iter_batches(
            batch_size=batch_rows or PARQUET_BATCH_ROWS, row_groups=[group], use_threads=False
        ):
            yield batch
            del batch
            pool.release_unused()


def ingest_parquet(cursor: Cursor, table: str, path: Any, **options: Any) -> int:
    """See ``Cursor.ingest_parquet``."""
    import pyarrow as pa

    schema, batches = parquet_batches(path, options.get("batch_rows"))
    return ingest(cursor, table, pa.RecordBatchReader.from_batches(schema, batches), **options)


def ingest_csv(
    cursor: Cursor,
    table: str,
    path: Any,
    *,
    read_options: Any = None,
    parse_options: Any = None,
    convert_options: Any = None,
    **options: Any,
) -> int:
    """See ``Cursor.ingest_csv``."""
    import pyarrow.csv as pacsv

    if read_options is None and options.get("batch_bytes"):
        read_options = pacsv.ReadOptions(block_size=int(options["batch_bytes"]))
    reader = pacsv.open_csv(
        path, read_options=read_options, parse_options=parse_options, convert_options=convert_options
    )
    return ingest(cursor, table, reader, **options)
