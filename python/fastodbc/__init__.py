"""fastodbc: a fast, pyodbc-compatible DB-API 2.0 driver for ODBC with a Rust core.

``import fastodbc as pyodbc`` keeps pyodbc code working: ``connect``, ``Cursor``, ``Row``,
``fetchval``, ``executemany`` / ``fast_executemany``, ``nextset``, ``description`` and the
exception classes behave as pyodbc's do.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import _system

try:
    from . import _native
except ImportError as _error:
    _missing = _system.missing_driver_manager(_error)
    if _missing is None:
        raise
    raise _missing from _error
from . import connstr, errors
from .connection import Connection
from .constants import *  # noqa: F403 - pyodbc's module constants
from .constants import __all__ as _constant_names
from .cursor import Cursor
from .dbapi import (
    BINARY,
    DATETIME,
    NUMBER,
    ROWID,
    STRING,
    Binary,
    BinaryNull,
    Date,
    DateFromTicks,
    Time,
    TimeFromTicks,
    Timestamp,
    TimestampFromTicks,
)
from .errors import (
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ParameterTypeError,
    PrecisionWarning,
    ProgrammingError,
    Warning,
)

Row = _native.Row
#: What ``Cursor.fetch_record_batch`` returns: Arrow record batches of a result (Arrow C stream).
RecordBatchReader = _native.RecordBatchReader

__version__ = "0.1.0"
#: pyodbc exposes its version as ``pyodbc.version``.
version = __version__
apilevel = "2.0"
#: Threads may share the module, not connections (DB-API level 1).
threadsafety = 1
paramstyle = "qmark"
#: The ODBC behaviour fastodbc asks the driver manager for (``SQL_OV_ODBC3``), as pyodbc's.
odbcversion = "3.X"
#: Accepted for pyodbc compatibility; driver-manager pooling is left to unixODBC's settings.
pooling = True
#: As in pyodbc: column names in ``description`` and ``Row`` attributes are lower-cased. Read
#: when a result set is opened (each execute, ``nextset``), never per row.
lowercase = False
#: As in pyodbc: GUID columns are fetched as ``uuid.UUID``; set it False for upper-case ``str``
#: (``'6F9619FF-8B86-D011-B42D-00C04FC964FF'``). Read when a result set is opened.
native_uuid = True
#: Attribute names whose connection-string values are secrets (compared without case): no
#: message, exception or ``repr`` fastodbc produces shows them, from ``connect`` until the
#: connection is closed. Add your own: ``fastodbc.secret_attributes.add("AccessToken")``.
secret_attributes: set[str] = set(_native.SECRET_ATTRIBUTES)

# The seam is one-way: native code never imports this package; it is handed, once, what it
# uses of it (crates/fastodbc-py/src/linked.rs): the exception classes, BinaryNull, the
# PrecisionWarning category, and this module, whose `lowercase` / `native_uuid` above are the
# process settings it reads when a result set opens.
_native.link(
    errors=errors,
    binary_null=BinaryNull,
    precision_warning=PrecisionWarning,
    settings=sys.modules[__name__],
)


def connect(
    connstring: str | None = None,
    /,
    *,
    autocommit: bool = False,
    timeout: int = 0,
    readonly: bool = False,
    attrs_before: Mapping[int, Any] | None = None,
    encoding: str | None = None,
    ansi: bool = False,
    **kwargs: Any,
) -> Connection:
    """Opens a connection.

    Args:
        connstring: an ODBC connection string (``"Driver={SQLite3};Database=app.db"``) or a
            DSN reference (``"DSN=name"``).
        autocommit: commit after every statement instead of in explicit transactions.
        timeout: login timeout in seconds (0: the driver's default).
        readonly: ask the driver for a read-only connection (``SQL_ATTR_ACCESS_MODE``).
        attrs_before: connection attributes (``{SQL_ATTR_*: value}``) set before connecting.
        encoding: how ``str`` parameters are sent: ``"utf-16le"`` (default) or ``"utf-8"``.
        ansi: accepted for pyodbc compatibility; fastodbc always uses the wide ODBC API.
        **kwargs: further connection-string attributes (``user=...``, ``Port=...``), escaped.
    """
    del ansi
    text = connstr.build(connstring, kwargs)
    if not text:
        raise InterfaceError("IM002", "No connection string or keyword attributes given")
    connstr.check_encodable(text)
    conn = Connection(
        text,
        autocommit=autocommit,
        timeout=timeout,
        readonly=readonly,
        attrs_before=dict(attrs_before) if attrs_before else None,
        secret_attributes=sorted(secret_attributes),
    )
    if encoding is not None:
        conn.setencoding(encoding=encoding)
    # A second connection to the same database, for cleaning up after a load whose own
    # connection was lost (ingest drops the table it created there).
    conn._reopen = lambda: Connection(
        text,
        autocommit=True,
        timeout=timeout,
        attrs_before=dict(attrs_before) if attrs_before else None,
        secret_attributes=sorted(secret_attributes),
    )
    return conn


def drivers() -> list[str]:
    """Names of the ODBC drivers the driver manager knows."""
    return _native.drivers()


def dataSources() -> dict[str, str]:  # noqa: N802 - pyodbc's name
    """Data source names mapped to their driver descriptions."""
    return dict(_native.data_sources())


if TYPE_CHECKING:
    from .ingest import ColumnMapping, IngestPlan
    from .parallel import partition


def __getattr__(name: str) -> Any:
    # What a program may never use loads when first asked for: the load's types with
    # fastodbc.ingest (the command line's export never imports it), fastodbc.pool /
    # fastodbc.aio (plain `import fastodbc` stays free of asyncio and the pool's threads), and
    # the partitioned reads (fastodbc.partition, fastodbc.parallel, fastodbc.dask).
    if name in ("ColumnMapping", "IngestPlan"):
        from . import ingest

        return getattr(ingest, name)
    if name == "partition":
        from .parallel import partition

        return partition
    if name in ("aio", "dask", "parallel", "pool"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BINARY",
    "DATETIME",
    "NUMBER",
    "ROWID",
    "STRING",
    "Binary",
    "BinaryNull",
    "Connection",
    "Cursor",
    "DataError",
    "DatabaseError",
    "Date",
    "DateFromTicks",
    "Error",
    "ColumnMapping",
    "IngestPlan",
    "IntegrityError",
    "InterfaceError",
    "InternalError",
    "NotSupportedError",
    "OperationalError",
    "ParameterTypeError",
    "PrecisionWarning",
    "ProgrammingError",
    "Row",
    "RecordBatchReader",
    "Time",
    "TimeFromTicks",
    "Timestamp",
    "TimestampFromTicks",
    "Warning",
    "apilevel",
    "connect",
    "dataSources",
    "drivers",
    "lowercase",
    "native_uuid",
    "odbcversion",
    "paramstyle",
    "partition",
    "secret_attributes",
    "threadsafety",
    "version",
    *_constant_names,
]
