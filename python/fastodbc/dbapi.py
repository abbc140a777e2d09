"""DB-API 2.0 type objects and constructors."""

from __future__ import annotations

import datetime
import decimal
import time
import uuid

__all__ = [
    "BINARY",
    "DATETIME",
    "NUMBER",
    "ROWID",
    "STRING",
    "Binary",
    "BinaryNull",
    "Date",
    "DateFromTicks",
    "Time",
    "TimeFromTicks",
    "Timestamp",
    "TimestampFromTicks",
]

class NullParam:
    """A NULL parameter of a given SQL type (pyodbc's ``NullParam``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "fastodbc.BinaryNull"


#: A NULL parameter bound as binary (SQL_BINARY), where ``None`` would be bound as text: for
#: drivers that refuse a text NULL in a binary column and cannot describe the parameter.
BinaryNull = NullParam()

Date = datetime.date
Time = datetime.time
Timestamp = datetime.datetime
Binary = bytes


def DateFromTicks(ticks: float) -> datetime.date:  # noqa: N802 - DB-API name
    """The local date of a Unix timestamp."""
    return Date(*time.localtime(ticks)[:3])


def TimeFromTicks(ticks: float) -> datetime.time:  # noqa: N802 - DB-API name
    """The local time of day of a Unix timestamp."""
    return Time(*time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks: float) -> datetime.datetime:  # noqa: N802 - DB-API name
    """The local date and time of a Unix timestamp."""
    return Timestamp(*time.localtime(ticks)[:6])


class _TypeObject(frozenset):
    """Compares equal to each Python type in the group, as ``description`` type codes are."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, frozenset):
            return frozenset.__eq__(self, other)
        return other in self

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return frozenset.__hash__(self)


STRING = _TypeObject({str})
BINARY = _TypeObject({bytes, bytearray})
NUMBER = _TypeObject({int, float, decimal.Decimal, bool})
DATETIME = _TypeObject({datetime.date, datetime.time, datetime.datetime})
ROWID = _TypeObject({int, uuid.UUID})
