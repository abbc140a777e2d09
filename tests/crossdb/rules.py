"""The named changes an expectation may say a path makes (``changed:<rule>``, several joined by
``+``): each a function from a source value's canonical form (kinds.py) to the canonical form
the target must then hold, and the sentence docs/type-fidelity.md says of it. check.observe
names today's changes with them too (build/crossdb/observed.txt)."""

from __future__ import annotations

import datetime
import decimal
import math
import sqlite3
from collections.abc import Callable
from typing import Any

UTC = datetime.timezone.utc


def _negative_zero(v: Any) -> Any:
    return 0.0 if isinstance(v, float) and v == 0 else v


def _nan_null(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else v


#: SQLite's own text form of a REAL (its printf "%!.15g", which is not Python's rounding: ties
#: and some 16-digit values come out differently), from the same libsqlite3 sqliteodbc loads.
_SQLITE_TEXT = sqlite3.connect(":memory:", check_same_thread=False)


def _sqlite_text(v: float) -> str:
    return str(_SQLITE_TEXT.execute("SELECT CAST(? AS TEXT)", (v,)).fetchone()[0])


def _digits15(v: Any) -> Any:
    if isinstance(v, float) and math.isfinite(v):
        return float(_sqlite_text(v))
    if isinstance(v, decimal.Decimal):  # a NUMERIC SQLite keeps as a double
        d = decimal.Decimal(_sqlite_text(float(v)))
        return decimal.Decimal(0) if d.is_zero() else d.normalize(decimal.Context(prec=200))
    return v


def _utc_naive(v: Any) -> Any:
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(UTC).replace(tzinfo=None)
    return v


def _as_double(v: Any) -> Any:
    if isinstance(v, decimal.Decimal):
        d = decimal.Decimal(repr(float(v)))
        return decimal.Decimal(0) if d.is_zero() else d.normalize(decimal.Context(prec=200))
    return v


def _offset_dropped(v: Any) -> Any:
    return (v[0], None) if isinstance(v, tuple) else v


#: name -> (function, what docs/type-fidelity.md says)
RULES: dict[str, tuple[Callable[[Any], Any], str]] = {
    "negative zero": (_negative_zero, "-0.0 arrives as 0.0 (the database keeps no sign of zero)"),
    "NaN as NULL": (_nan_null, "NaN arrives as NULL"),
    "15 digits": (
        _digits15,
        "doubles keep the 15 significant digits of SQLite's own text form of a REAL (sqliteodbc reads REAL as text)",
    ),
    "UTC naive": (_utc_naive, "an instant arrives as its UTC time, without a zone"),
    "as double": (_as_double, "a decimal arrives as the nearest double (SQLite's NUMERIC affinity)"),
    "offset dropped": (_offset_dropped, "the time of day arrives without its UTC offset"),
}


def apply(rules: str, value: Any) -> Any:
    """``value`` (canonical) after the rules ``a+b+...`` in order."""
    for name in rules.split("+") if rules else ():
        value = RULES[name][0](value)
    return value
