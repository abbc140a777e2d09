"""The ``fastodbc`` command line (also ``python -m fastodbc``): ``drivers``, ``sources``,
``export`` (a query's result to Parquet, CSV or Arrow IPC) and ``import`` (a Parquet, CSV or
Arrow IPC file into a table), streamed in Arrow batches.

Libraries: the standard library's ``argparse`` for arguments, pyarrow's readers and writers for
the file formats, tqdm for the progress display (the ``cli`` extra). Exit codes: 0 done, 1 other
(the disk filled up), 2 usage (an unwritable output too), 3 connection, 4 SQL, 5 data, 130
interrupted (cli/exits.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .. import _native
from . import export, load
from .cancel import Interrupted
from .connection import CONNECTION_ENV
from .exits import EXIT_CONNECTION, EXIT_DATA, EXIT_INTERRUPTED, EXIT_SQL, Failure

__all__ = ["CONNECTION_ENV", "EXIT_CONNECTION", "EXIT_DATA", "EXIT_INTERRUPTED", "EXIT_SQL", "main", "run"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fastodbc", description="fastodbc's command line")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("drivers", help="list the installed ODBC drivers").set_defaults(run=_drivers)
    sub.add_parser("sources", help="list the ODBC data sources (name and driver)").set_defaults(run=_sources)
    export.add_parser(sub)
    load.add_parser(sub)
    return p


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The command line's arguments, a command's options and arguments in any order
    (``export QUERY --param 1 OUTPUT``, ``import --dsn x TABLE INPUT``): argparse's
    ``parse_args`` refuses an argument after an option, and its ``parse_intermixed_args``
    takes no subcommands, so the command's own parser reads what follows its name."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    # The command comes first: the top parser has no option but --help.
    if argv and argv[0] in commands.choices:
        args = commands.choices[argv[0]].parse_intermixed_args(argv[1:])
        args.command = argv[0]
        return args
    return parser.parse_args(argv)


def _drivers(args: argparse.Namespace) -> int:
    for name in _native.drivers():
        print(name)
    return 0


def _sources(args: argparse.Namespace) -> int:
    for name, driver in _native.data_sources():
        print(f"{name}\t{driver}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit code. After Ctrl-C it ends the process itself
    (exit code 130), for the reason _end_now gives."""
    # pyarrow imports numpy, whose OpenBLAS starts a thread per core that spins for a while
    # (~60 ms of a 2-core host's CPU, beside the export's own threads): the command does no
    # linear algebra. A value the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    _merge_freed_blocks_at_once()
    try:
        args = _parse(_parser(), sys.argv[1:] if argv is None else list(argv))
        code = args.run(args)
    except Failure as e:
        print(f"fastodbc {e}" if e.code == 2 else f"fastodbc: {e}", file=sys.stderr)
        return e.code
    except (Interrupted, KeyboardInterrupt):
        # Interrupted: the worker is stuck where no cancel reaches it, on the connection; the
        # process ends without closing it under the worker (the server rolls back its open
        # transaction). KeyboardInterrupt: Ctrl-C before the work began.
        _end_now()
    if code == EXIT_INTERRUPTED:
        _end_now()
    return code


#: glibc's mallopt parameter: the largest block kept in a fastbin (0: none).
_M_MXFAST = 1


def _merge_freed_blocks_at_once() -> None:
    """glibc: freed small blocks are merged with their free neighbours at once, not parked in
    fastbins. psqlODBC and sqliteodbc hold a whole result as millions of small blocks; freed at
    the cursor's close they filled the fastbins, and the next large allocation merged them all in
    one go (malloc_consolidate: 0.11-0.15 s for 400,000 rows of the benchmark's ``mixed`` set,
    at the end of the export, where nothing else runs). Merged as they are freed, the same close
    takes half as long. The command's other allocations hardly notice: Python's small objects
    and pyarrow's buffers have allocators of their own, and glibc's per-thread cache still
    serves small blocks first. A process setting; the library never makes it."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return
    mallopt(_M_MXFAST, 0)


def run() -> NoReturn:
    """The ``fastodbc`` command and ``python -m fastodbc``: ``main()``, then the process ends
    at once with its exit code. By then the command's work is closed (output files, the
    connection); the interpreter's own shutdown (every module's teardown, pyarrow's) added
    50-90 ms to a one-second export for nothing the command needs."""
    _without_numpy()
    code = main()
    if not _flushed() and code == 0:
        code = EXIT_UNFLUSHED
    os._exit(code)


def _without_numpy() -> None:
    """Keeps numpy out of the command's process. pyarrow imports it when it can (35 ms of CPU,
    a third of importing pyarrow) and works without it; the command never needs it. That
    import runs while the worker executes the query, when the driver's thread and the server
    already take both cores of a small machine. The library itself never does this: a program
    that imports fastodbc keeps its numpy."""
    if "numpy" not in sys.modules:
        sys.modules["numpy"] = None  # type: ignore[assignment]  # import numpy: ModuleNotFoundError


#: Python's own exit code when the standard streams can't be flushed at exit.
EXIT_UNFLUSHED = 120


def _flushed() -> bool:
    ok = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            ok = False
    return ok


def _end_now() -> None:
    """Exits with 130 at once. After Ctrl-C, threads not Python's own may still be blocked
    (pyarrow's CSV read-ahead waiting on stdin, holding its lock): the interpreter's shutdown
    would wait for that lock, or unwind such a thread through C++ frames, and abort."""
    _flushed()
    os._exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    sys.exit(main())
