"""PostgreSQL arrays read through psqlODBC, which has no array type in ODBC and returns each
array as its text form (``{1,2}``, ``{"a b",NULL}``, ``{{1,2},{3,4}}``): parsed here into
lists, their elements read as the array's item type, so ``ARRAY(Integer)`` gives ints as
with psycopg. The reflection queries of SQLAlchemy's PostgreSQL dialect read ``conkey``,
``indkey`` and name arrays this way."""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql.pg_catalog import INT2VECTOR, OIDVECTOR, _SpaceVector


def parse(text: str) -> list[Any]:
    """The elements of an array's text form, nested lists for its dimensions; ``NULL``
    unquoted is None, every other element a ``str``."""
    if text.startswith("[") and "=" in text:
        # Arrays with non-default bounds are written "[0:1]={a,b}"; the bounds are dropped.
        text = text[text.index("=") + 1 :]
    value, end = _parse_at(text, 0)
    if end != len(text):
        raise ValueError(f"not a PostgreSQL array: {text!r}")
    return value


def _parse_at(text: str, pos: int) -> tuple[list[Any], int]:
    if text[pos : pos + 1] != "{":
        raise ValueError(f"not a PostgreSQL array: {text!r}")
    items: list[Any] = []
    pos += 1
    if text[pos : pos + 1] == "}":
        return items, pos + 1
    while pos < len(text):
        char = text[pos]
        if char == "{":
            inner, pos = _parse_at(text, pos)
            items.append(inner)
        elif char == '"':
            pos += 1
            chars = []
            while pos < len(text) and text[pos] != '"':
                if text[pos] == "\\":
                    pos += 1
                chars.append(text[pos : pos + 1])
                pos += 1
            items.append("".join(chars))
            pos += 1
        else:
            end = pos
            while end < len(text) and text[end] not in ",}":
                end += 1
            word = text[pos:end]
            items.append(None if word == "NULL" else word)
            pos = end
        if text[pos : pos + 1] == ",":
            pos += 1
        elif text[pos : pos + 1] == "}":
            return items, pos + 1
        else:
            break
    raise ValueError(f"not a PostgreSQL array: {text!r}")


def _bool(word: str) -> bool:
    return word == "t" or word == "true"


# How an element's text becomes the item type's Python value; other types stay text.
_READERS: dict[type, Callable[[str], Any]] = {
    int: int,
    float: float,
    decimal.Decimal: decimal.Decimal,
    bool: _bool,
    datetime.date: datetime.date.fromisoformat,
    datetime.datetime: datetime.datetime.fromisoformat,
    datetime.time: datetime.time.fromisoformat,
    uuid.UUID: uuid.UUID,
}


def _reader(item_type: Any) -> Callable[[str], Any] | None:
    try:
        python_type = item_type.python_type
    except NotImplementedError:
        return None
    return _READERS.get(python_type)


def _read(items: list[Any], reader: Callable[[str], Any]) -> list[Any]:
    return [
        _read(item, reader) if isinstance(item, list) else (None if item is None else reader(item)) for item in items
    ]


class TextArray(ARRAY):
    """``ARRAY`` read from its text form."""

    def result_processor(self, dialect: Any, coltype: object) -> Any:
        items = super().result_processor(dialect, coltype)
        reader = _reader(self.item_type)

        def process(value: Any) -> Any:
            if isinstance(value, str):
                value = parse(value)
                if reader is not None:
                    value = _read(value, reader)
            return items(value) if items is not None else value

        return process


class TextINT2VECTOR(_SpaceVector, INT2VECTOR):
    """``int2vector`` (an index's columns), written as numbers between spaces."""


class TextOIDVECTOR(_SpaceVector, OIDVECTOR):
    """``oidvector``, written as numbers between spaces."""
