"""Value equality of two pandas DataFrames: the pandas case's check that ``cursor.fetch_df()``
returns the values ``pandas.read_sql(sql, pyodbc_conn)`` does (bench/worker.py, untimed).

The two paths give the same values different dtypes, so the frames are compared value by value
after normalising what is only representation:
- missing values: None, NaN, NaT and pd.NA are one "missing";
- pandas and numpy scalars become Python's (Timestamp -> datetime, numpy int/float/bool -> int,
  float, bool);
- read_sql's default ``coerce_float=True`` turns Decimal columns into float64, while the Arrow
  path keeps ``decimal128`` (Decimal objects): a Decimal and a float are equal when the Decimal,
  rounded to the nearest double, is that float; an int and a float when the int rounds to it
  (integer columns with NULLs become float64 in both paths anyway).
Column names and row count must match exactly; rows are compared in order.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Any

MISSING = object()


def normalise(v: Any) -> Any:
    """A cell as a plain Python value (MISSING for every kind of null)."""
    if v is None:
        return MISSING
    if isinstance(v, float) and math.isnan(v):
        return MISSING
    module = type(v).__module__
    if module.startswith("pandas"):
        import pandas as pd

        if v is pd.NA or v is pd.NaT:
            return MISSING
        if isinstance(v, pd.Timestamp):
            return v.to_pydatetime()
        if isinstance(v, pd.Timedelta):
            return v.to_pytimedelta()
    if module == "numpy":
        import numpy as np

        if isinstance(v, np.datetime64):
            import pandas as pd

            return MISSING if np.isnat(v) else pd.Timestamp(v).to_pydatetime()
        v = v.item()
        if isinstance(v, float) and math.isnan(v):
            return MISSING
    return v


def same(a: Any, b: Any) -> bool:
    """Two normalised cells hold the same value (see the module's docstring for float)."""
    if a is MISSING or b is MISSING:
        return a is b
    if isinstance(a, float) and isinstance(b, Decimal | int) and not isinstance(b, bool):
        a, b = b, a
    if isinstance(b, float) and isinstance(a, Decimal | int) and not isinstance(a, bool):
        return float(a) == b
    if type(a) is not type(b) and {type(a), type(b)} <= {dt.date, dt.datetime}:
        return False  # a date is not a midnight datetime
    return a == b and (isinstance(a, bool) == isinstance(b, bool))


def first_difference(left: Any, right: Any) -> str | None:
    """None when the frames hold equal values, else where they first differ (for the report)."""
    if list(left.columns) != list(right.columns):
        return f"columns {list(left.columns)} vs {list(right.columns)}"
    if len(left) != len(right):
        return f"{len(left)} rows vs {len(right)}"
    for name in left.columns:
        a, b = left[name], right[name]
        if a.dtype == b.dtype and a.dtype.kind in "iub" and a.equals(b):
            continue  # the common case, without a Python object per value
        for i, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
            nx, ny = normalise(x), normalise(y)
            if not same(nx, ny):
                return f"column {name} row {i}: {x!r} ({a.dtype}) vs {y!r} ({b.dtype})"
    return None
