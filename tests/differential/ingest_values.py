"""The ingest matrix's input columns: for each column kind, the Arrow types written into it and
values that type holds and the column keeps (none the load may refuse)."""

from __future__ import annotations

import dataclasses
import datetime
import decimal

import pyarrow as pa
from hypothesis import strategies as st

from . import schema
from . import values as v

SIGNED = {8: pa.int8(), 16: pa.int16(), 32: pa.int32(), 64: pa.int64()}
UNSIGNED = {8: pa.uint8(), 16: pa.uint16(), 32: pa.uint32(), 64: pa.uint64()}
TEXT_TYPES = (pa.string(), pa.large_string(), pa.string_view(), pa.dictionary(pa.int32(), pa.string()))
BINARY_TYPES = (pa.binary(), pa.large_binary(), pa.binary_view())
TIME_TYPES = (pa.time64("us"), pa.time64("ns"), pa.time32("ms"), pa.time32("s"))
TIMESTAMP_TYPES = tuple(pa.timestamp(u) for u in ("us", "ms", "s", "ns"))
# timestamp[ns] holds 1677-09-21 .. 2262-04-11.
NS_DATES = (datetime.date(1678, 1, 1), datetime.date(2262, 1, 1))


@dataclasses.dataclass(frozen=True)
class Spec:
    """One input column: the target column (its kind and DDL for append) and the Arrow type
    of the input; ``lo``..``hi`` bound an integer input's values."""

    col: schema.Column
    arrow: pa.DataType
    lo: int = 0
    hi: int = 0



def int_bounds(t: pa.DataType) -> tuple[int, int]:
    bits = t.bit_width
    if pa.types.is_signed_integer(t):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def column_bounds(profile, col: schema.Column) -> tuple[int, int] | None:
    """The integers a column holds (None: not an integer column)."""
    if col.kind in profile.unsigned_int_bits:
        return 0, (1 << profile.unsigned_int_bits[col.kind]) - 1
    if col.kind in profile.int_bits:
        bits = profile.int_bits[col.kind]
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if col.kind == "numeric(p,s)" and not profile.numeric_is_float:
        top = 10 ** min(col.size - col.scale, 19) - 1  # NUMERIC(p,p): 0 only
        return -top, top
    if col.kind == "real":  # 24 bits of a single, if REAL is one
        return -(1 << 24), 1 << 24
    if col.kind == "float":
        return -(1 << 53), 1 << 53
    return None


def int_spec(profile, col: schema.Column, t: pa.DataType, mode: str) -> Spec | None:
    lo, hi = int_bounds(t)
    if mode == "append":
        bounds = column_bounds(profile, col)
        if bounds is None:
            return None
        lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    elif t == pa.uint64() and profile.numeric_is_float:
        # Created as NUMERIC(20,0) where no unsigned BIGINT exists, which this database
        # describes and keeps as a double: exact to 53 bits.
        hi = 1 << 53
    return Spec(col, t, lo, hi) if lo <= hi else None


def input_types(profile, col: schema.Column) -> list[pa.DataType]:
    """The Arrow types written into a column of this kind."""
    k = col.kind
    ints = [*SIGNED.values(), *UNSIGNED.values()]
    if k in profile.int_bits or k in profile.unsigned_int_bits:
        return ints
    if k == "real":
        return [pa.float32(), pa.int8(), pa.int16(), *([pa.float64()] if profile.real_is_double else [])]
    if k == "float":
        return [pa.float64(), pa.float32(), pa.int32(), pa.uint16()]
    if k == "numeric(p,s)":
        return ["decimal", "decimal", *([] if profile.numeric_is_float else [pa.int32(), pa.int64()])]
    if k in ("varchar(n)", "char(n)", "text", "uuid"):
        return list(TEXT_TYPES)
    if k == "bytes":
        return list(BINARY_TYPES)
    if k == "date":
        return [pa.date32(), pa.date64()]
    if k == "time":
        return list(TIME_TYPES)
    if k == "timestamp":
        return list(TIMESTAMP_TYPES)
    if k == "bool":
        return [pa.bool_()]
    raise KeyError(f"no Arrow input type for column kind {k!r}")


@st.composite
def specs(draw, profile, mode: str, cols: list[schema.Column] | None = None) -> list[Spec]:
    """Input columns for ``cols`` (default: random columns of the profile's kinds), unsigned
    kinds among the integer ones where the database has them."""
    cols = draw(schema.columns(profile)) if cols is None else cols
    out = []
    for c in cols:
        if c.kind in profile.int_bits and profile.unsigned_int_bits and draw(st.booleans()):
            kind = draw(st.sampled_from(sorted(profile.unsigned_int_bits)))
            c = schema.Column(c.name, kind, profile.ddl(kind))
        t = draw(st.sampled_from(input_types(profile, c)))
        if t == "decimal":
            out.append(Spec(c, draw(decimal_type(profile, c))))
        elif pa.types.is_integer(t):
            spec = int_spec(profile, c, t, mode)
            out.append(spec or Spec(c, pa.int8(), *int_bounds(pa.int8())))
        else:
            out.append(Spec(c, t))
    return out


@st.composite
def decimal_type(draw, profile, col: schema.Column) -> pa.DataType:
    """decimal128(p, s) whose values the column keeps: no more fraction digits than it, its
    integer digits fewer, as many or more (the values' are not)."""
    scale = draw(st.integers(0, col.scale))
    ints = draw(st.integers(0, min(38 - scale, col.size - col.scale + 2)))
    return pa.decimal128(max(1, ints + scale), scale)


def decimal_values(profile, spec: Spec):
    t, col = spec.arrow, spec.col
    digits = min(t.precision - t.scale, col.size - col.scale) + t.scale
    if profile.numeric_is_float:
        digits = min(digits, 15)  # kept as a double: 15 significant digits exactly
    if digits <= 0:  # NUMERIC(p,p) from decimal128(q,0): 0 only
        return st.just(decimal.Decimal(0))
    return v.decimals(digits, t.scale)


def value_strategy(profile, spec: Spec, rules: v.Rules, max_size: int):
    """Values of one input column: its Arrow type holds them, the column keeps them."""
    t, col = spec.arrow, spec.col
    if pa.types.is_integer(t):
        edges = [x for x in (spec.lo, spec.hi, 0, 1, -1) if spec.lo <= x <= spec.hi]
        return st.one_of(st.sampled_from(edges), st.integers(spec.lo, spec.hi))
    if pa.types.is_floating(t):
        return v.floats(t.bit_width, profile.nan_stored_as != "refused",
                        profile.infinity_stored_as != "refused")
    if pa.types.is_decimal(t):
        return decimal_values(profile, spec)
    if col.kind == "uuid":
        return v.uuids(profile).map(str)
    if col.kind in ("varchar(n)", "char(n)"):
        limit = col.size if profile.enforces_varchar_length else max(col.size * 2, 300)
        return v.text_values(min(limit, max_size), rules)
    if col.kind == "text":
        return v.text_values(max_size, rules)
    if col.kind == "bytes":
        return v.byte_values(max_size)
    if col.kind == "date":
        return v.dates(profile.min_date, profile.max_date)
    if col.kind == "time":
        unit = t.unit
        return v.times().map(lambda x: truncate(x, unit))
    if col.kind == "timestamp":
        lo, hi = profile.min_date, profile.max_date
        if t.unit == "ns":
            lo, hi = max(lo, NS_DATES[0]), min(hi, NS_DATES[1])
        return v.timestamps(lo, hi).map(lambda x: truncate(x, t.unit))
    if col.kind == "bool":
        return st.booleans()
    raise KeyError(f"no values for {col.kind} from {t}")


def truncate(x, unit: str):
    """A time or datetime cut to what an Arrow unit holds."""
    if unit == "s":
        return x.replace(microsecond=0)
    if unit == "ms":
        return x.replace(microsecond=x.microsecond // 1000 * 1000)
    return x
