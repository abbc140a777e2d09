"""The DB-API 2.0 exception hierarchy.

Errors raised for an ODBC diagnostic carry pyodbc's ``args``: ``(sqlstate, message)``, where the
message holds the text of every diagnostic record and the ODBC function that failed. The
``sqlstate`` attribute gives the SQLSTATE directly.
"""

from __future__ import annotations

__all__ = [
    "DataError",
    "DatabaseError",
    "Error",
    "IntegrityError",
    "InterfaceError",
    "InternalError",
    "NotSupportedError",
    "OperationalError",
    "ParameterTypeError",
    "PrecisionWarning",
    "ProgrammingError",
    "Warning",
    "WithErrorClasses",
]


class Warning(Exception):  # noqa: A001 - the DB-API name
    """Important warnings, such as data truncation on insert."""


class PrecisionWarning(Warning, UserWarning):
    """A result's values arrive with fewer digits than the database holds, issued with
    ``warnings.warn`` once per result that has such columns: SQLite's driver returns doubles
    with 15 significant digits (docs/databases.md). Silence it with
    ``warnings.filterwarnings("ignore", category=fastodbc.PrecisionWarning)``."""


class Error(Exception):
    """Base class of every fastodbc error."""

    @property
    def sqlstate(self) -> str | None:
        """The five-character SQLSTATE of the first diagnostic record, if there is one."""
        if len(self.args) >= 2 and isinstance(self.args[0], str) and len(self.args[0]) == 5:
            return self.args[0]
        return None

    def __str__(self) -> str:
        if len(self.args) >= 2 and self.sqlstate is not None:
            return f"({self.args[0]!r}, {self.args[1]!r})"
        return super().__str__()


class InterfaceError(Error):
    """Errors of the driver manager or of fastodbc itself rather than of the database."""


class DatabaseError(Error):
    """Errors reported by the database or its ODBC driver."""


class DataError(DatabaseError):
    """Problems with the data: division by zero, value out of range, truncation, bad text."""


class OperationalError(DatabaseError):
    """Errors of the database's operation: lost connection, timeout, out of memory."""


class IntegrityError(DatabaseError):
    """A constraint was violated (SQLSTATE class 23)."""


class InternalError(DatabaseError):
    """The database hit an internal error."""


class ProgrammingError(DatabaseError):
    """SQL errors, wrong number of parameters, use of a closed cursor or connection."""


class NotSupportedError(DatabaseError):
    """A method or database API the driver does not support."""


class ParameterTypeError(ProgrammingError, TypeError):
    """``executemany`` was given rows that are not in a sequence, an iterator or a generator (a
    set, a dict, a string), or a row that is not a sequence of parameters. A
    ``ProgrammingError`` as in pyodbc, and a ``TypeError`` as Python's own argument checks."""


class WithErrorClasses:
    """DB-API 2.0's optional extension: the exception classes as attributes of a connection
    (``except cnxn.OperationalError``); a base of ``Connection`` and ``AsyncConnection``."""

    Warning = Warning
    Error = Error
    InterfaceError = InterfaceError
    DatabaseError = DatabaseError
    DataError = DataError
    OperationalError = OperationalError
    IntegrityError = IntegrityError
    InternalError = InternalError
    ProgrammingError = ProgrammingError
    NotSupportedError = NotSupportedError
