"""What fastodbc must return for a value an oracle read, and the strict comparison of rows."""

from __future__ import annotations

import decimal
import math
from typing import Any

from .schema import Column


def is_double(profile, col: Column) -> bool:
    """The column is fetched as a float."""
    return col.kind in ("real", "float") or (
        col.kind == "numeric(p,s)" and profile.numeric_is_float
    )


def expected_fetch(profile, col: Column | None, value: Any) -> Any:
    """What fastodbc must return for a value the oracle read (``select(fetched=True)``)."""
    if value is None or col is None or not is_double(profile, col):
        return value
    # sqlite3 returns an integer stored in a NUMERIC column as int (and its text is exact).
    value = float(value)
    if value == 0 and not profile.keeps_negative_zero:
        return 0.0
    return value


def same(got: Any, want: Any) -> bool:
    """Equal values of the same type; floats by bits (NaN equals NaN, -0.0 differs from 0.0),
    decimals by digits and exponent."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float):
        if math.isnan(want):
            return math.isnan(got)
        return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
    if isinstance(want, decimal.Decimal):
        return got.as_tuple() == want.as_tuple()
    return got == want


def short(value: Any, limit: int = 120) -> str:
    r = repr(value)
    if len(r) <= limit:
        return r
    size = len(value) if isinstance(value, (str, bytes)) else None
    return f"{r[: limit // 2]} ... {r[-limit // 2 :]} (len {size})"


def compare_rows(got_rows, want_rows, cols: list[Column | None], where: str) -> None:
    """Raises AssertionError naming the first differing row and column."""
    got_rows = list(got_rows)
    for i, (g, w) in enumerate(zip(got_rows, want_rows, strict=False)):
        g = tuple(g)
        if len(g) != len(w):
            raise AssertionError(f"{where}: row {i} has {len(g)} values, want {len(w)}")
        for j, (gv, wv) in enumerate(zip(g, w, strict=False)):
            if not same(gv, wv):
                col = cols[j]
                name = "id" if col is None else f"{col.name} {col.ddl}"
                raise AssertionError(
                    f"{where}: row {i} (id {w[cols.index(None)] if None in cols else '?'}), "
                    f"column {name}: got {short(gv)} ({type(gv).__name__}), "
                    f"want {short(wv)} ({type(wv).__name__})"
                )
    if len(got_rows) != len(want_rows):
        raise AssertionError(f"{where}: got {len(got_rows)} rows, want {len(want_rows)}")
