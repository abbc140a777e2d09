"""``fastodbc import [CONNECTION] TABLE INPUT``: a Parquet, CSV or Arrow IPC file (or stdin)
into a table through ``Cursor.ingest``, in one transaction unless ``--commit-every`` says.

The input is read batch by batch (Parquet: a row group at a time, ``ingest.parquet_row_groups``; CSV: ``open_csv``;
IPC: ``open_file`` / ``open_stream``) and handed to ``ingest`` as a RecordBatchReader whose
batches are counted as ingest pulls them: the progress display's rows and bytes, and the point
where Ctrl-C stops the load (cli/cancel.py) when it is not inside a statement.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..constants import SQL_IDENTIFIER_QUOTE_CHAR, SQL_TXN_CAPABLE
from ..errors import Error, PrecisionWarning
from .cancel import Cancellable, Interrupted
from .connection import CONNECTION_ENV, connection_string, open_connection, split_arguments
from .exits import EXIT_INTERRUPTED, EXIT_OK, Failure, code_of, positive, usage
from .formats import FORMAT_NAMES, Input, format_of, open_input
from .leftover import drop_after_exit
from .progress import Progress

MODES = ("create", "append", "replace", "create_append")

#: SQL_TXN_CAPABLE's SQL_TC_DDL_COMMIT: DDL commits the open transaction (MariaDB).
SQL_TC_DDL_COMMIT = 3


def add_parser(sub: Any) -> None:
    """The ``import`` subcommand's arguments."""
    i = sub.add_parser(
        "import",
        help="load a Parquet, CSV or Arrow IPC file into a table",
        description=(
            "fastodbc import [CONNECTION] TABLE INPUT. Without CONNECTION, the connection string "
            f"comes from --dsn or the {CONNECTION_ENV} environment variable. INPUT '-' is stdin: "
            "an Arrow IPC stream, or CSV with --format csv. One transaction: on any error or "
            "Ctrl-C nothing of the load stays (unless --commit-every)."
        ),
    )
    i.add_argument("args", nargs="+", metavar="[CONNECTION] TABLE INPUT")
    i.add_argument("--dsn", help="connect to this ODBC data source name")
    i.add_argument("--format", choices=FORMAT_NAMES, help="default: from INPUT's extension")
    i.add_argument(
        "--mode", choices=MODES, default="append",
        help="create: a new table; append (default): an existing one; replace: drop it and "
        "create it anew; create_append: create it unless it exists, then append",
    )
    i.add_argument("--schema", help="the database schema of TABLE")
    i.add_argument(
        "--column", action="append", default=[], metavar="INPUT=COLUMN",
        help="load the input's column INPUT into the table's COLUMN (default: the same name); "
        "INPUT= leaves it out",
    )
    i.add_argument(
        "--null-value", action="append", default=[], metavar="TOKEN",
        help="CSV: read this unquoted token as NULL too (repeatable); by default only an empty "
        "unquoted field is NULL ('NA', 'null', 'nan' are values, \"\" an empty string). Into a "
        "binary column CSV text is \\x and hex digits, as export writes it",
    )
    i.add_argument(
        "--column-type", action="append", default=[], metavar="INPUT=SQLTYPE",
        help="create the column of the input's column INPUT as SQLTYPE (the SQL after the column's "
        "name, as written: 'VARCHAR(40) NOT NULL'); with --mode create, replace or create_append",
    )
    i.add_argument("--batch-rows", type=positive, help="rows per batch sent")
    i.add_argument("--batch-bytes", type=positive, help="bytes per batch sent (about)")
    i.add_argument("--commit-every", type=positive, metavar="ROWS", help="commit after about every ROWS rows")
    i.add_argument(
        "--nan", choices=("keep", "null"), default="keep",
        help="what a NaN double becomes: keep (NaN; refused where the database would store NULL) "
        "or null (NULL on every database)",
    )
    i.add_argument(
        "--dry-run", action="store_true",
        help="print the column mapping and the CREATE TABLE it would run; write nothing",
    )
    i.add_argument("--quiet", "-q", action="store_true", help="no progress display, no summary")
    i.set_defaults(run=run)


def _mapping(pairs: list[str]) -> dict[str, str | None] | None:
    mapping: dict[str, str | None] = {}
    for pair in pairs:
        name, sep, column = pair.partition("=")
        if not sep or not name:
            raise usage("import", f"--column wants INPUT=COLUMN (or INPUT= to leave it out), not {pair!r}")
        mapping[name] = column or None
    return mapping or None


def _column_types(pairs: list[str]) -> dict[str, str] | None:
    types: dict[str, str] = {}
    for pair in pairs:
        name, sep, sql_type = pair.partition("=")
        if not sep or not name or not sql_type.strip():
            raise usage("import", f"--column-type wants INPUT=SQLTYPE, not {pair!r}")
        types[name] = sql_type.strip()
    return types or None


def run(args: argparse.Namespace) -> int:
    """Runs ``import``; its exit code."""
    given, (table, source) = split_arguments("import", args.args, "TABLE INPUT")
    fmt = format_of(source, args.format) or ("arrow" if source == "-" else None)
    if fmt is None:
        raise usage("import", f"cannot tell the format of {source!r}: use --format")
    if source != "-" and not Path(source).is_file():
        raise usage("import", f"no such file: {source}")
    if args.null_value and fmt != "csv":
        raise usage("import", f"--null-value is for CSV input, not {fmt}")
    columns = _mapping(args.column)
    column_types = _column_types(args.column_type)
    if column_types and args.mode == "append":
        raise usage("import", "--column-type gives the types of the columns a load creates: --mode append creates none")
    connstr = connection_string("import", args, given)
    target = {"mode": args.mode, "columns": columns, "column_types": column_types, "schema": args.schema}
    progress = Progress("import", quiet=args.quiet)
    cancellable = Cancellable()
    #: The table the load creates where its CREATE commits by itself (cli/leftover.py).
    committed_create: list[str] = []

    def work() -> int | None:
        import pyarrow as pa

        cnxn = open_connection(connstr)
        try:
            cursor = cnxn.cursor()
            cancellable.attach(cursor)
            csv_types = _csv_types(cursor, table, args.schema, columns) if fmt == "csv" else None
            data = open_input(source, fmt, args.batch_rows, csv_types, args.null_value)
            if args.dry_run:
                count = "" if data.total_rows is None else f", {data.total_rows:,} rows"
                print(f"{'stdin' if source == '-' else source} ({fmt}{count}) into")
                print(cursor.ingest_plan(table, data.schema, **target))
                return None
            progress.total_rows, progress.total_bytes = data.total_rows, data.total_bytes
            if args.mode in ("create", "create_append") and cnxn.getinfo(SQL_TXN_CAPABLE) == SQL_TC_DDL_COMMIT:
                planned = cursor.ingest_plan(table, data.schema, **target)
                cnxn.rollback()  # the plan's reads: the load begins the transaction
                if planned.create_sql:
                    committed_create.append(planned.table)
            failed: list[Exception] = []
            batches = _counted(data, progress, cancellable, failed)
            try:
                return cursor.ingest(
                    table, pa.RecordBatchReader.from_batches(data.schema, batches), **target,
                    batch_rows=args.batch_rows, batch_bytes=args.batch_bytes, commit=True,
                    commit_every=args.commit_every, nan=args.nan,
                )
            except Exception:
                # The input's own error (a CSV value pyarrow cannot convert, Ctrl-C), not the
                # stream error it became on its way through ingest.
                if failed:
                    raise failed[0] from None
                raise
        finally:
            cnxn.close()

    try:
        rows = cancellable.run(work, tick=progress.show)
    except Interrupted as stop:
        progress.close()
        # The load did not complete: a table whose CREATE committed by itself must not stay.
        # A worker that stopped dropped it itself (DROP TABLE IF EXISTS again is harmless); one
        # stuck where no cancel reaches holds the table's locks until the process ends.
        for created in committed_create:
            drop_after_exit(connstr, created)
        if not stop.finished:
            raise
        return EXIT_INTERRUPTED
    except Failure:
        progress.close()
        raise
    except Exception as e:
        progress.close()
        raise Failure(code_of(e), str(e)) from e
    progress.close(finished=True)
    if rows is not None and not args.quiet:
        print(f"fastodbc: {rows:,} rows loaded into {table}", file=sys.stderr)
    return EXIT_OK


def _counted(data: Input, progress: Progress, cancellable: Cancellable, failed: list[Exception]) -> Iterator[Any]:
    """The input's batches, counted as ingest pulls them; Ctrl-C ends them (an error ingest
    rolls back on). An error reading the input is kept in ``failed``."""
    try:
        for batch in data.batches:
            cancellable.check()
            progress.rows += batch.num_rows
            progress.bytes = data.source.bytes
            yield batch
        cancellable.check()  # the input's end came with Ctrl-C: no commit
    except Exception as e:
        failed.append(e)
        raise


def _csv_types(
    cursor: Any, table: str, schema: str | None, columns: dict[str, str | None] | None
) -> Callable[[list[str]], dict[str, Any]]:
    """Given a CSV's column names, the Arrow types of the existing table's columns they go
    into, matched as ingest matches them (``columns``, the same name, else the only one in
    another case); {} when there is no such table. CSV text is then read as what the table
    holds (a NUMERIC(18,4) as decimal128(18, 4), not a float inferred from the first lines)."""
    from ..ingest import match_columns

    types = _table_types(cursor, table, schema)

    def of(names: list[str]) -> dict[str, Any]:
        pairs, _ = match_columns(names, list(types), columns)
        return {names[i]: _csv_readable(types[target]) for i, target in pairs}

    return of


def _csv_readable(arrow_type: Any) -> Any:
    """The type a CSV column is read as to go into a column of ``arrow_type``: pyarrow's CSV
    reader parses no durations (MariaDB's TIME, `838:59:59`), so those are read as text,
    which the database parses."""
    import pyarrow as pa

    return pa.string() if pa.types.is_duration(arrow_type) else arrow_type


def _table_types(cursor: Any, table: str, schema: str | None) -> dict[str, Any]:
    """The Arrow types of an existing table's columns by name ({} when there is no such
    table). Names quoted as ingest quotes them."""
    q = (cursor.connection.getinfo(SQL_IDENTIFIER_QUOTE_CHAR) or "").strip()

    def quote(name: str) -> str:
        return f"{q}{name.replace(q, q + q)}{q}" if q else name

    name = f"{quote(schema)}.{quote(table)}" if schema else quote(table)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrecisionWarning)  # no value is read
            found = cursor.execute(f"SELECT * FROM {name} WHERE 1 = 0").fetch_record_batch().schema
    except Error:
        return {}
    finally:
        # A failed SELECT would leave PostgreSQL's transaction aborted; none is kept open.
        cursor.connection.rollback()
    return {field.name: field.type for field in found}
