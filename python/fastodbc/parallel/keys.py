"""Partition keys: the bounds of equal ranges between a key's least and greatest value, for
the key types that have arithmetic, and bound values to and from JSON (a plan is plain data).

A bound is a value the database itself returned (or one between two of them, in the key's own
Python type), bound as a parameter: the database compares it with the key by its own rules
(collation, numeric promotion), the same rules that ordered the key when it was planned.
"""

from __future__ import annotations

import datetime
import decimal
import math
import uuid
from collections.abc import Callable, Sequence
from typing import Any

#: Key types whose bounds are computed between the least and greatest value; the others
#: (text, binary, boolean, time, uuid) take their bounds from the database's quantiles.
RANGE_KINDS = (int, decimal.Decimal, float, datetime.datetime, datetime.date)


def has_range(value: object) -> bool:
    """Equal ranges can be computed between values of this one's type."""
    return isinstance(value, RANGE_KINDS) and not isinstance(value, bool)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def range_bounds(lo: Any, hi: Any, partitions: int) -> list[Any]:
    """The ``partitions - 1`` inner bounds of equal ranges over ``[lo, hi]``: partition i
    holds ``bound[i-1] <= key < bound[i]``. Fewer when the range holds fewer distinct values
    (bounds only ever strictly increase and lie in ``(lo, hi]``); empty for one value."""
    if partitions < 2 or not lo < hi:
        return []
    steps = range(1, partitions)
    raw: list[Any]
    if isinstance(lo, datetime.datetime):
        width = (hi - lo) // datetime.timedelta(microseconds=1) + 1
        raw = [lo + datetime.timedelta(microseconds=_ceil_div(width * i, partitions)) for i in steps]
    elif isinstance(lo, datetime.date):
        a, b = lo.toordinal(), hi.toordinal()
        raw = [datetime.date.fromordinal(a + _ceil_div((b - a + 1) * i, partitions)) for i in steps]
    elif isinstance(lo, int):
        raw = [lo + _ceil_div((hi - lo + 1) * i, partitions) for i in steps]
    elif isinstance(lo, decimal.Decimal):
        exponent = min(lo.as_tuple().exponent, hi.as_tuple().exponent)
        if not isinstance(exponent, int):  # NaN or infinity: no arithmetic
            return []
        unit = decimal.Decimal(1).scaleb(exponent)
        with decimal.localcontext() as ctx:
            ctx.prec = max(len(lo.as_tuple().digits), len(hi.as_tuple().digits)) - exponent + 10
            raw = [(lo + (hi - lo) * i / partitions).quantize(unit, decimal.ROUND_CEILING) for i in steps]
    elif isinstance(lo, float):
        if not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite(hi - lo)):
            return []
        raw = [lo + (hi - lo) * i / partitions for i in steps]
    else:
        return []
    return increasing(lo, hi, raw)


def increasing(lo: Any, hi: Any, raw: Sequence[Any]) -> list[Any]:
    """``raw`` without the values outside ``(lo, hi]`` or not above the one before."""
    out: list[Any] = []
    for b in raw:
        if lo < b <= hi and (not out or b > out[-1]):
            out.append(b)
    return out


_PARSERS: dict[type, Any] = {
    datetime.datetime: datetime.datetime.fromisoformat,
    datetime.date: datetime.date.fromisoformat,
    decimal.Decimal: decimal.Decimal,
    int: int,
}


def as_type(value: Any, described: Any) -> Any:
    """``value`` (an aggregate of the key) as the key column's described Python type, where
    it is the text of one; anything else unchanged."""
    parse = _PARSERS.get(described) if isinstance(described, type) else None
    if parse is None or not isinstance(value, str) or isinstance(value, described):
        return value
    try:
        parsed = parse(value.strip())
    except (ValueError, decimal.InvalidOperation):
        return value
    if described is datetime.date and isinstance(parsed, datetime.datetime):
        return value
    return parsed


def distinct_in_order(ordered: Sequence[Any]) -> list[Any]:
    """Keys the database returned in its own order, without repeats. Not compared here: a
    text key's order is its collation's (case-insensitive, accent-insensitive), which
    Python's does not know, and any subsequence of the database's order splits its rows
    exactly once (equal-collating neighbours only leave a partition empty)."""
    out: list[Any] = []
    for b in ordered:
        if b is not None and (not out or b != out[-1]):
            out.append(b)
    return out


def to_json(value: Any) -> dict[str, Any]:
    """A bound (or parameter) as JSON: a one-key object naming its type."""
    if value is None:
        return {"null": None}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": str(value)}  # beyond 2**53 a JSON number would lose digits elsewhere
    if isinstance(value, float):
        return {"float": value.hex()}
    if isinstance(value, decimal.Decimal):
        return {"decimal": str(value)}
    if isinstance(value, datetime.datetime):
        return {"timestamp": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"date": value.isoformat()}
    if isinstance(value, datetime.time):
        return {"time": value.isoformat()}
    if isinstance(value, str):
        return {"text": value}
    if isinstance(value, (bytes, bytearray)):
        return {"binary": bytes(value).hex()}
    if isinstance(value, uuid.UUID):
        return {"uuid": str(value)}
    raise TypeError(f"a partition bound of type {type(value).__name__} has no JSON form")


_FROM_JSON: dict[str, Callable[[Any], Any]] = {
    "null": lambda v: None,
    "bool": bool,
    "int": int,
    "float": float.fromhex,
    "decimal": decimal.Decimal,
    "timestamp": datetime.datetime.fromisoformat,
    "date": datetime.date.fromisoformat,
    "time": datetime.time.fromisoformat,
    "text": str,
    "binary": bytes.fromhex,
    "uuid": uuid.UUID,
}


def from_json(obj: dict[str, Any]) -> Any:
    """The value ``to_json`` wrote."""
    if not isinstance(obj, dict) or len(obj) != 1:
        raise ValueError(f"not a partition bound: {obj!r}")
    ((kind, text),) = obj.items()
    try:
        return _FROM_JSON[kind](text)
    except KeyError:
        raise ValueError(f"unknown partition bound type {kind!r}") from None


def sql_literal(value: Any) -> str:
    """How ``explain`` shows a parameter (not SQL that is run: bounds are always parameters)."""
    if value is None:
        return "NULL"
    if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, (bytes, bytearray)):
        return "x'" + bytes(value).hex() + "'"
    text = value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else str(value)
    return "'" + text.replace("'", "''") + "'"
