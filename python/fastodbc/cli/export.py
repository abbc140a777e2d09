"""``fastodbc export [CONNECTION] QUERY OUTPUT``: a query's result to Parquet, CSV or Arrow
IPC, streamed in Arrow batches from ``Cursor.fetch_record_batch`` into pyarrow's writers."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path
from typing import Any

from ..errors import PrecisionWarning
from .cancel import Cancellable, Interrupted
from .connection import CONNECTION_ENV, connection_string, open_connection, split_arguments
from .exits import EXIT_INTERRUPTED, EXIT_OK, Failure, code_of, positive, usage
from .formats import FORMAT_NAMES, export_batch_limits, format_of, preload_writer
from .parts import OutputParts, WriteBehind
from .progress import Progress


def add_parser(sub: Any) -> None:
    """The ``export`` subcommand's arguments."""
    e = sub.add_parser(
        "export",
        help="write a query's result to Parquet, CSV or Arrow IPC",
        description=(
            "fastodbc export [CONNECTION] QUERY OUTPUT. Without CONNECTION, the connection "
            f"string comes from --dsn or the {CONNECTION_ENV} environment variable. OUTPUT '-' "
            "is stdout. CSV: NULL is an empty unquoted field, an empty string \"\", text always "
            "quoted, doubles nan / inf / -inf, binary \\x and lowercase hex digits (PostgreSQL's "
            "bytea text form), all read back so by import."
        ),
    )
    e.add_argument("args", nargs="+", metavar="[CONNECTION] QUERY OUTPUT")
    e.add_argument("--dsn", help="connect to this ODBC data source name")
    e.add_argument("--format", choices=FORMAT_NAMES, help="default: from OUTPUT's extension")
    e.add_argument("--param", action="append", default=[], help="a query parameter (text), in order")
    e.add_argument(
        "--batch-rows", type=positive, help="rows per Arrow batch, a Parquet row group (Parquet: 131,072; else 65,536)"
    )
    e.add_argument("--batch-bytes", type=positive, help="bytes per Arrow batch, about (Parquet: 32 MiB; else 64 MiB)")
    e.add_argument(
        "--compression", default=None, help="Parquet / IPC compression (Parquet default: zstd); not for CSV"
    )
    e.add_argument(
        "--rows-per-file", type=positive, metavar="N",
        help="split the output into numbered files (OUTPUT's stem-00000.ext, ...) of N rows each; "
        "the parts of an earlier export to OUTPUT are removed",
    )
    e.add_argument(
        "--max-file-bytes", type=positive, metavar="N",
        help="split the output into numbered files, a new one once a file reaches N bytes",
    )
    e.add_argument("--quiet", "-q", action="store_true", help="no progress display, no summary")
    e.set_defaults(run=run)


def _check_writable(output: Path) -> None:
    """A usage error (exit 2, as an input that does not exist) when OUTPUT cannot be written
    where it is: its directory missing or not writable, or OUTPUT a directory. Checked before
    connecting, so that no query runs for an output that cannot be kept."""
    where = output.parent
    if not where.is_dir():
        raise usage("export", f"cannot write {output}: no such directory: {where}")
    if output.is_dir():
        raise usage("export", f"cannot write {output}: it is a directory")
    if not os.access(where, os.W_OK | os.X_OK):
        raise usage("export", f"cannot write {output}: permission denied in {where}")


def run(args: argparse.Namespace) -> int:
    """Runs ``export``; its exit code."""
    given, (query, output) = split_arguments("export", args.args, "QUERY OUTPUT")
    fmt = format_of(output, args.format)
    if fmt is None:
        raise usage("export", f"cannot tell the format of {output!r}: use --format")
    if fmt == "csv" and args.compression:
        raise usage("export", "--compression is for Parquet and Arrow IPC output, not CSV")
    if output == "-" and (args.rows_per_file or args.max_file_bytes):
        raise usage("export", "--rows-per-file / --max-file-bytes need an OUTPUT file, not stdout")
    if output != "-":
        _check_writable(Path(output))
    connstr = connection_string("export", args, given)
    parts = OutputParts(output, fmt, args.compression, args.rows_per_file, args.max_file_bytes)
    progress = Progress("export", quiet=args.quiet)
    cancellable = Cancellable()
    # What the driver does not keep of the values (PrecisionWarning): told even with --quiet.
    lossy: list[str] = []

    def work() -> int:
        cnxn = open_connection(connstr)
        try:
            cursor = cnxn.cursor()
            cancellable.attach(cursor)
            # Said in the summary instead of as a Python warning (see `lossy`).
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", PrecisionWarning)
                cursor.execute(query, *args.param)
            lossy.extend(str(w.message) for w in caught if issubclass(w.category, PrecisionWarning))
            batch_rows, batch_bytes = export_batch_limits(fmt, args.batch_rows, args.batch_bytes, cnxn.memory_budget)
            reader = cursor.fetch_record_batch(batch_rows, batch_bytes)
            progress.rows_read = lambda: reader.rows_read
            with WriteBehind(parts) as writer:
                for batch in reader:
                    cancellable.check()
                    writer.write(batch)
                    progress.rows += batch.num_rows
                    progress.bytes = parts.bytes
                schema = reader.schema
                # Every row is read: the driver frees its copy of the result (psqlODBC and
                # sqliteodbc keep all of it, millions of small blocks: 50-100 ms) while the
                # last batch is still being written, not after.
                cnxn.close()
                writer.close(schema)
            progress.bytes = parts.bytes
            return progress.rows
        finally:
            cnxn.close()

    def say_earlier_removed() -> None:
        if parts.earlier and not args.quiet:
            first, last = parts.earlier[0], parts.earlier[-1]
            names = first.name if first == last else f"{first.name} to {last.name}"
            count = len(parts.earlier)
            print(f"fastodbc: removed {count} part{'s' * (count > 1)} of an earlier export ({names})", file=sys.stderr)

    try:
        rows = cancellable.run(work, tick=progress.show, meanwhile=lambda: preload_writer(fmt))
    except Interrupted as stop:
        progress.close()
        say_earlier_removed()
        if not stop.finished:
            # The worker may still write: the files are removed under it, the process ends.
            parts.remove()
            raise
        parts.abandon()
        return EXIT_INTERRUPTED
    except BaseException as e:
        progress.close()
        parts.abandon()
        say_earlier_removed()
        if isinstance(e, Failure) or not isinstance(e, Exception):
            raise
        raise Failure(code_of(e), str(e)) from e
    progress.close()
    say_earlier_removed()
    for message in lossy:
        print(f"fastodbc: warning: {message}", file=sys.stderr)
    if not args.quiet:
        where = output if not parts.split else f"{len(parts.paths)} files, {parts.paths[0]} to {parts.paths[-1].name}"
        print(f"fastodbc: {rows:,} rows written to {where} ({fmt})", file=sys.stderr)
    return EXIT_OK
