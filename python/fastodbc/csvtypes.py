"""The types CSV columns are read as where nothing gives them (a new table): pyarrow's
inference, except where it would lose what the text says (the rules: fastodbc/csvfile.py,
docs/csv.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .csvfile import HEX_BYTES, convert_options

#: The bytes of the sample searched for quoted columns (a loop over fields in Python).
QUOTE_SAMPLE_BYTES = 64 * 1024

# Sample text pyarrow read as int64 / double, and what it says.
_LEADING_ZERO = r"^[+-]?0[0-9]"
# Digits and a point, or Arrow's text of a small decimal (``1E-9``, ``-1.00E-7``, ``0E-9``: an
# uppercase E; doubles are written with a lowercase one, ``1e-09``).
_DECIMAL = r"^[+-]?([0-9]*(\.[0-9]*)?|[0-9](\.[0-9]+)?E[+-][0-9]+)$"
_DIGITS = r"^[+-]?0*(?P<whole>[0-9]*)(?:\.(?P<fraction>[0-9]*))?(?:E\+?(?P<exponent>-?[0-9]+))?$"
# The significant digits of a number's text (sign, exponent, and the point's place dropped).
_MANTISSA = r"^[+-]?(?P<whole>[0-9]*)\.?(?P<fraction>[0-9]*)(?:[eE][+-]?[0-9]+)?$"
# Text of a timestamp with a UTC offset, one without, a time of day (at most microseconds).
_WHEN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?"
_CLOCKS = (
    (_WHEN + r"(Z|[+-][0-9]{2}(:?[0-9]{2})?)$", "zoned"),
    (_WHEN + "$", "timestamp"),
    (r"^[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?$", "time"),
)
#: The most digits a decimal128 keeps.
DECIMAL128_DIGITS = 38
#: Significant digits any double keeps exactly (DBL_DIG): text with more is checked one by one.
DOUBLE_DIGITS = 15

# One field of the default dialect and what ends it (a field with a stray quote: no match).
_FIELD = re.compile(rb'(?:"(?:[^"]|"")*"|[^,"\r\n]*)(,|\r\n|\n|\r|$)')


def infer(
    sample: bytes,
    seen: Any,
    given: dict[str, Any],
    null_values: Sequence[str] = (),
    options: dict[str, Any] | None = None,
    quotes: bool = True,
) -> dict[str, Any]:
    """The Arrow types of the columns not in ``given``, from ``sample`` (whole rows; ``seen``:
    it read with pyarrow's inference, None if it could not be): the module's rules.
    ``quotes``: the sample is in the default dialect (searched for quoted columns)."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pacsv

    if seen is None:
        return {}
    names = seen.column_names
    untyped = [name for name in names if name not in given]
    if not untyped:
        return {}
    text = pacsv.read_csv(
        io.BytesIO(sample), **(options or {}),
        convert_options=convert_options({name: pa.string() for name in untyped}, null_values),
    )
    quoted = quoted_columns(sample[:QUOTE_SAMPLE_BYTES], len(names)) if quotes else set()
    return {
        name: _type_of(seen.column(name).type, text.column(name).combine_chunks(), names.index(name) in quoted)
        for name in untyped
    }


def csv_header(line: bytes) -> list[str]:
    """The column names of a CSV header line, as pyarrow's reader (its defaults) reads them."""
    import csv

    text = line.decode("utf-8-sig").rstrip("\r")
    return next(csv.reader([text]), [])


def _type_of(inferred: Any, text: Any, quoted: bool) -> Any:
    """A column's type: pyarrow's ``inferred`` one, unless it would lose what ``text`` says."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.types as pat

    if pat.is_null(inferred):
        return pa.string()
    values = text.drop_null()
    hex_only = len(values) > 0 and pc.all(pc.match_substring_regex(values, HEX_BYTES)).as_py()
    if hex_only and (quoted or pat.is_string(inferred)):
        return pa.binary()  # as export writes binary (``\\x`` and hex digits)
    if quoted:
        return pa.string()
    clock = _clock_type(inferred, values)
    if clock is not None:
        return clock
    if not (pat.is_integer(inferred) or pat.is_floating(inferred)):
        return inferred
    if pc.any(pc.match_substring_regex(values, _LEADING_ZERO)).as_py():
        return pa.string()  # '007': the zeros are part of the value
    if pat.is_integer(inferred) or not pc.all(pc.match_substring_regex(values, _DECIMAL)).as_py():
        return inferred  # int64; or a double the text says (an exponent, nan, inf)
    # A decimal of the digits seen: d.ddE-n needs n more after the point, E+n n more before it.
    parts = pc.extract_regex(values, _DIGITS)
    exponent = pc.cast(pc.replace_substring_regex(parts.field("exponent"), "^$", "0"), pa.int64())
    fraction = pc.utf8_length(parts.field("fraction")).cast(pa.int64())
    whole = pc.utf8_length(parts.field("whole")).cast(pa.int64())
    scale = pc.max(pc.max_element_wise(pc.subtract(fraction, exponent), 0)).as_py() or 0
    int_digits = pc.max(pc.max_element_wise(pc.add(whole, exponent), 0)).as_py() or 0
    precision = max(int_digits + scale, 1)
    return pa.decimal128(precision, scale) if precision <= DECIMAL128_DIGITS else pa.string()


def _clock_type(inferred: Any, values: Any) -> Any:
    """Timestamps and times to the microsecond, which pyarrow infers as nanoseconds or, out of
    their range (years 1-1677, 2262-9999) or for a time with a fraction, as text; None when
    ``values`` are not all such text."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.types as pat

    if not (pat.is_string(inferred) or pat.is_timestamp(inferred) or pat.is_time(inferred)) or not len(values):
        return None
    for pattern, kind in _CLOCKS:
        if pc.all(pc.match_substring_regex(values, pattern)).as_py():
            return pa.time64("us") if kind == "time" else pa.timestamp("us", "UTC" if kind == "zoned" else None)
    return None


def exact_doubles(array: Any, column: str, first_row: int) -> Any:
    """CSV text read into a double column: the doubles, unless a value has more digits than
    its double gives back (``12345678901234567890.5``), which raises DataError naming
    ``column``, the input row (``first_row``: that of ``array[0]``) and the value. A double's
    own text (``0.30000000000000004``, ``nan``, ``-inf``) reads back the same."""
    import decimal

    import pyarrow as pa
    import pyarrow.compute as pc

    from .errors import DataError

    text = array.cast(pa.large_string())
    try:
        doubles = pc.cast(text, pa.float64())
    except pa.ArrowInvalid:
        raise DataError(_not_a_number(text, column, first_row)) from None
    parts = pc.extract_regex(text, _MANTISSA)
    nothing = pa.scalar("", pa.large_string())
    joined = pc.binary_join_element_wise(parts.field("whole"), parts.field("fraction"), nothing)
    digits = pc.utf8_trim(joined, "0")
    # Text of at most DBL_DIG digits is always exact; longer text (a double's own has 16-17)
    # is compared with its double's shortest text, one by one.
    for i in pc.indices_nonzero(pc.fill_null(pc.greater(pc.utf8_length(digits), DOUBLE_DIGITS), False)).to_pylist():
        value = text[i].as_py()
        if decimal.Decimal(value) == decimal.Decimal(repr(doubles[i].as_py())):
            continue
        raise DataError(
            f"CSV column {column!r}, input row {first_row + i:,}: {value} has more digits than a double keeps; "
            "load it into a DECIMAL or text column"
        )
    return doubles


def _not_a_number(text: Any, column: str, first_row: int) -> str:
    import pyarrow as pa
    import pyarrow.compute as pc

    for i, value in enumerate(text.to_pylist()):
        try:
            pc.cast(pa.array([value], pa.large_string()), pa.float64())
        except pa.ArrowInvalid:
            return f"CSV column {column!r}, input row {first_row + i:,}: {value!r} is not a number"
    return f"CSV column {column!r}: a value is not a number"


def quoted_columns(sample: bytes, count: int) -> set[int]:
    """The columns (by position) whose every non-empty field after the header in ``sample``
    is quoted: text, whatever it looks like. Empty when the sample is not plain CSV of the
    default dialect (a stray quote)."""
    quoted = [True] * count
    filled = [False] * count
    pos, column, row, end = 0, 0, 0, len(sample)
    while pos < end:
        match = _FIELD.match(sample, pos)
        if match is None:
            return set()
        field_end = match.start(1)
        if row > 0 and column < count and field_end > pos:
            filled[column] = True
            quoted[column] = quoted[column] and sample[pos:pos + 1] == b'"'
        separator, pos = match.group(1), match.end()
        if separator == b",":
            column += 1
        else:
            row, column = row + 1, 0
            if not separator:
                break
    return {i for i in range(count) if quoted[i] and filled[i]}
