"""Building ODBC connection strings from a base string and keyword attributes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["build", "escape_value"]

# pyodbc maps these Python-friendly keywords to the ODBC attribute names.
_ALIASES = {
    "user": "UID",
    "password": "PWD",
    "host": "SERVER",
    "database": "DATABASE",
}


def escape_value(value: str) -> str:
    """Returns ``value`` as a connection-string attribute value.

    Values that contain ``;``, start with ``{`` or have surrounding spaces are wrapped in
    braces, with every ``}`` doubled (the ODBC rule), so no value can end the attribute early
    or inject another one.
    """
    if value == "":
        return value
    needs_braces = (
        ";" in value
        or value.startswith("{")
        or "}" in value
        or value != value.strip()
        or "=" in value
    )
    if not needs_braces:
        return value
    return "{" + value.replace("}", "}}") + "}"


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
