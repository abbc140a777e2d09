"""Building ODBC connection strings from a base string and keyword attributes (the grammar's
reading and escaping are the Rust core's: ``_native.connstr_attributes`` / ``connstr_escape``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import _native
from .errors import InterfaceError

__all__ = ["attributes", "build", "check_encodable", "escape_value"]

# pyodbc maps these Python-friendly keywords to the ODBC attribute names.
_ALIASES = {
    "user": "UID",
    "password": "PWD",
    "host": "SERVER",
    "database": "DATABASE",
}


def escape_value(value: str) -> str:
    """Returns ``value`` as a connection-string attribute value.

    A value that contains ``;``, starts with ``{`` or has surrounding spaces is wrapped in
    braces with every ``}`` doubled (the ODBC rule), so it can neither end its attribute early
    nor inject another one. Other values, including ones with ``}`` or ``=`` inside, are left
    as they are: unixODBC's drivers (psqlODBC, SQLite) take them literally but do not undo the
    doubling inside braces. The grammar has one home, the Rust core's reader of connection
    strings (``fastodbc_core::connstr``).
    """
    return _native.connstr_escape(value)


def attributes(connstring: str) -> list[tuple[str, str]]:
    """Returns ``connstring``'s attributes as ``(name, value)`` pairs in their order, read as the
    driver manager reads them: a braced value keeps its braces (and its doubled ``}``), so
    ``";".join(f"{k}={v}" for k, v in pairs)`` gives back an equivalent string."""
    return _native.connstr_attributes(connstring)


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def build(connstring: str | None, attrs: Mapping[str, Any]) -> str:
    """Appends ``attrs`` to ``connstring`` as ``KEY=value;`` pairs, escaping each value."""
    parts = []
    base = (connstring or "").strip()
    if base:
        parts.append(base if base.endswith(";") else base + ";")
    for key, value in attrs.items():
        if value is None:
            continue
        name = _ALIASES.get(key.lower(), key)
        parts.append(f"{name}={escape_value(_format(value))};")
    return "".join(parts)


def check_encodable(text: str) -> None:
    """Raises ``InterfaceError`` if ``text`` holds a lone surrogate, which no driver manager can
    take. The error names the position only: the ``UnicodeEncodeError`` it replaces would
    carry the whole connection string, passwords included, in its ``object`` and ``repr``."""
    if text.isascii():
        return
    position = next((i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff"), None)
    if position is not None:
        raise InterfaceError(
            "IM000", f"The connection string holds a lone surrogate at position {position}"
        )
