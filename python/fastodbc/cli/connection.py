"""The connection a command uses: its string from an argument, ``--dsn`` or the environment."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..errors import Error
from .exits import EXIT_CONNECTION, Failure, usage

#: Environment variable holding the connection string when none is given on the command line
#: (keeps passwords out of shell history and process lists).
CONNECTION_ENV = "FASTODBC_CONNECTION"


def split_arguments(command: str, args: list[str], names: str) -> tuple[str | None, list[str]]:
    """``[CONNECTION] A B``: the connection string when given, and the other arguments."""
    wanted = len(names.split())
    if len(args) not in (wanted, wanted + 1):
        raise usage(command, f"expected [CONNECTION] {names}")
    return (args[0] if len(args) > wanted else None), args[-wanted:]


def connection_string(command: str, args: argparse.Namespace, given: str | None) -> str:
    """The argument, else ``DSN=`` of ``--dsn``, else ``FASTODBC_CONNECTION``. Both the
    argument and ``--dsn``: a usage error (which one was meant cannot be told)."""
    if given is not None and args.dsn:
        # The string is not shown: it may hold a password.
        raise usage(command, f"both a CONNECTION argument and --dsn {args.dsn!r} were given: give one")
    if given is not None:
        return given
    if args.dsn:
        return f"DSN={args.dsn}"
    value = os.environ.get(CONNECTION_ENV)
    if not value:
        raise usage(command, f"no connection: give CONNECTION, --dsn, or set {CONNECTION_ENV}")
    return value


def open_connection(connstr: str) -> Any:
    """A connection (autocommit off: an import is one transaction), or exit code 3.

    Where the driver gives zoned timestamps as the session zone's wall time (psqlODBC), the
    session runs in UTC (``DriverTraits.instants_session_sql``): every instant is then exact,
    the hour a change back from daylight saving time repeats included, whatever ``PGTZ`` or
    the server's default say; a query that wants another zone's wall time says so
    (``AT TIME ZONE``), and text without an offset loaded into a zoned column is UTC."""
    from .. import connect

    try:
        cnxn = connect(connstr)
    except Error as e:
        raise Failure(EXIT_CONNECTION, f"cannot connect: {e}") from e
    sql = cnxn._driver_traits.instants_session_sql
    if sql is not None:
        try:
            cnxn.cursor().execute(sql).close()
        except Error as e:
            cnxn.close()
            raise Failure(EXIT_CONNECTION, f"cannot set the session's time zone: {e}") from e
    return cnxn
