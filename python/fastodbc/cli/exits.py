"""The command line's exit codes, the one each error maps to, and how a command fails."""

from __future__ import annotations

import argparse
import sys

from ..errors import DataError, Error, IntegrityError, InterfaceError, OperationalError

EXIT_OK = 0
#: An error of none of the kinds below (e.g. the disk filled up while writing the output).
EXIT_FAILURE = 1
#: A bad command line (argparse's own code), an input that does not exist, an output that
#: cannot be written where it is (no such directory, not writable, a directory).
EXIT_USAGE = 2
EXIT_CONNECTION = 3
EXIT_SQL = 4
#: Values the database or the file format refuses: a string into an INTEGER column, a NULL
#: into a NOT NULL one, a malformed CSV line.
EXIT_DATA = 5
#: Ctrl-C: 128 + SIGINT, as shells report a process the signal ended.
EXIT_INTERRUPTED = 130


class Failure(Exception):
    """A command ends with this message on stderr and this exit code."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def positive(text: str) -> int:
    """An argparse type: a whole number above 0 (a usage error, exit 2, otherwise)."""
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0: {text}")
    return value


def usage(command: str, message: str) -> Failure:
    """A usage error of ``fastodbc <command>`` (exit code 2)."""
    return Failure(EXIT_USAGE, f"{command}: {message}")


def code_of(error: BaseException) -> int:
    """The exit code of an error a command's work raised."""
    if isinstance(error, (DataError, IntegrityError)):
        return EXIT_DATA
    if isinstance(error, (OperationalError, InterfaceError)):
        return EXIT_CONNECTION
    if isinstance(error, Error):
        return EXIT_SQL
    pyarrow = sys.modules.get("pyarrow")
    # The input file's values or shape: a malformed CSV line, a column pyarrow cannot convert.
    if pyarrow is not None and isinstance(error, (pyarrow.ArrowInvalid, pyarrow.ArrowTypeError)):
        return EXIT_DATA
    return EXIT_FAILURE
