"""The ``fastodbc`` command line (also ``python -m fastodbc``): ``drivers``, ``sources`` and
``export`` (a query's result to Parquet, CSV or Arrow IPC, streamed in Arrow batches).

Argument parsing is the standard library's ``argparse``; the file formats are pyarrow's
writers (``pyarrow.parquet``, ``pyarrow.csv``, ``pyarrow.ipc``), fed batch by batch from
``Cursor.fetch_record_batch``, so memory stays bounded by the batch budget.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import _native
from .errors import DatabaseError, DataError, Error, InterfaceError, OperationalError

#: Environment variable holding the connection string when none is given on the command line
#: (keeps passwords out of shell history and process lists).
CONNECTION_ENV = "FASTODBC_CONNECTION"

#: Exit codes: usage errors are argparse's 2.
EXIT_CONNECTION = 3
EXIT_SQL = 4
EXIT_DATA = 5
EXIT_INTERRUPTED = 130

FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".arrow": "arrow", ".feather": "arrow"}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fastodbc", description="fastodbc's command line")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("drivers", help="list the installed ODBC drivers")
    sub.add_parser("sources", help="list the ODBC data sources (name and driver)")
    e = sub.add_parser(
        "export",
        help="write a query's result to Parquet, CSV or Arrow IPC",
        description=(
            "fastodbc export [CONNECTION] QUERY OUTPUT. Without CONNECTION, the connection "
            f"string comes from --dsn or the {CONNECTION_ENV} environment variable."
        ),
    )
    e.add_argument("args", nargs="+", metavar="[CONNECTION] QUERY OUTPUT")
    e.add_argument("--dsn", help="connect to this ODBC data source name")
    e.add_argument("--format", choices=["parquet", "csv", "arrow"], help="default: from OUTPUT's extension")
    e.add_argument("--param", action="append", default=[], help="a query parameter (text), in order")
    e.add_argument("--batch-rows", type=int, help="rows per Arrow batch")
    e.add_argument("--batch-bytes", type=int, help="bytes per Arrow batch (about)")
    e.add_argument("--compression", default=None, help="Parquet / IPC compression (Parquet default: zstd)")
    e.add_argument("--quiet", "-q", action="store_true", help="no summary on stderr")
    return p


def _connection_string(args: argparse.Namespace, given: str | None) -> str:
    if given is not None:
        return given
    if args.dsn:
        return f"DSN={args.dsn}"
    value = os.environ.get(CONNECTION_ENV)
    if not value:
        raise SystemExit(
            f"fastodbc: no connection: give CONNECTION, --dsn, or set {CONNECTION_ENV}"
        )
    return value


def _writer(fmt: str, sink: Any, schema: Any, compression: str | None) -> Any:
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetWriter(sink, schema, compression=compression or "zstd")
    if fmt == "csv":
        import pyarrow.csv as pacsv

        return pacsv.CSVWriter(sink, schema)
    import pyarrow.ipc as ipc

    options = ipc.IpcWriteOptions(compression=compression) if compression else None
    return ipc.new_file(sink, schema, options=options)


def _export(args: argparse.Namespace) -> int:
    if len(args.args) not in (2, 3):
        raise SystemExit("fastodbc export: expected [CONNECTION] QUERY OUTPUT")
    given = args.args[0] if len(args.args) == 3 else None
    query, output = args.args[-2:]
    fmt = args.format or FORMATS.get(Path(output).suffix.lower())
    if fmt is None:
        raise SystemExit(f"fastodbc export: cannot tell the format of {output!r}: use --format")
    from . import connect

    try:
        cnxn = connect(_connection_string(args, given))
    except Error as e:
        print(f"fastodbc: cannot connect: {e}", file=sys.stderr)
        return EXIT_CONNECTION
    to_stdout = output == "-"
    path = None if to_stdout else Path(output)
    rows = 0
    try:
        cursor = cnxn.cursor()
        cursor.execute(query, *args.param)
        reader = cursor.fetch_record_batch(args.batch_rows, args.batch_bytes)
        sink: Any = sys.stdout.buffer if to_stdout else str(path)
        with _writer(fmt, sink, reader.schema, args.compression) as writer:
            for batch in reader:
                writer.write_batch(batch)
                rows += batch.num_rows
    except KeyboardInterrupt:
        _remove(path)
        return EXIT_INTERRUPTED
    except DataError as e:
        _remove(path)
        print(f"fastodbc: {e}", file=sys.stderr)
        return EXIT_DATA
    except (OperationalError, InterfaceError) as e:
        _remove(path)
        print(f"fastodbc: {e}", file=sys.stderr)
        return EXIT_CONNECTION
    except (DatabaseError, Error) as e:
        _remove(path)
        print(f"fastodbc: {e}", file=sys.stderr)
        return EXIT_SQL
    except BaseException:
        _remove(path)
        raise
    finally:
        cnxn.close()
    if not args.quiet:
        print(f"fastodbc: {rows:,} rows written to {output} ({fmt})", file=sys.stderr)
    return 0


def _remove(path: Path | None) -> None:
    """A partial output file is never left behind."""
    if path is not None:
        path.unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit code."""
    args = _parser().parse_args(argv)
    if args.command == "drivers":
        for name in _native.drivers():
            print(name)
        return 0
    if args.command == "sources":
        for name, driver in _native.data_sources():
            print(f"{name}\t{driver}")
        return 0
    return _export(args)


if __name__ == "__main__":
    sys.exit(main())
