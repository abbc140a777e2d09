"""A load's rows read back (by the oracle and by fetch_arrow_table) compared with its input,
value by value, each side in one canonical form: what the two clients legitimately differ in
(a Decimal or a float for an integer, a REAL read as its shortest text, CHAR padding, SQLite's
NaN stored as NULL) is made equal, nothing else."""

from __future__ import annotations

import datetime
import decimal
import math
import struct
from typing import Any

import pyarrow as pa

from . import compare
from .ingest import Case
from .ingest_values import Spec


def decimal_key(d: decimal.Decimal) -> decimal.Decimal:
    """``d`` without trailing zeros (1.50 and 1.5 alike), built exactly (no context)."""
    sign, digits, exp = d.as_tuple()
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exp += 1
    if digits == [0]:
        return decimal.Decimal(0)
    return decimal.Decimal((sign, tuple(digits), exp))


def canon(profile, spec: Spec, x: Any) -> Any:
    """An input or read-back value of ``spec``'s column in the form both sides share."""
    if x is None:
        return None
    t = spec.arrow
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_integer(t):
        # A NUMERIC column reads as Decimal, a floating-point one (or SQLite's) as float, and
        # one whose Arrow type is its text (past decimal128's 38 digits, or psqlODBC's
        # NUMERIC(28, s): Profile.numeric_text_precision) as str.
        if isinstance(x, str) and spec.col.kind == "numeric(p,s)":
            x = decimal.Decimal(x)
        if isinstance(x, (float, decimal.Decimal)) and x == int(x):
            return int(x)
        return x
    if pa.types.is_floating(t):
        x = float(x)
        if math.isnan(x):
            return None if profile.nan_stored_as == "null" else x
        if x == 0 and not profile.keeps_negative_zero:
            return 0.0
        # A single read back as its shortest text (psycopg) is the single nearest to it.
        return struct.unpack("f", struct.pack("f", x))[0] if t.bit_width == 32 else x
    if pa.types.is_decimal(t):
        if profile.numeric_is_float:
            return float(x) + 0.0  # integral values come back from SQLite as int
        return decimal_key(decimal.Decimal(x))
    if spec.col.kind == "bool":
        # PyMySQL reads a BIT(1) as its byte (create makes BOOL, TINYINT(1), on MariaDB now).
        return bool(int.from_bytes(x, "big")) if isinstance(x, bytes) else bool(x)
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    if isinstance(x, datetime.timedelta) and datetime.timedelta(0) <= x < datetime.timedelta(days=1):
        # A TIME that is a duration (MariaDB's: Arrow duration[us]): the time of day it is.
        return (datetime.datetime.min + x).time()
    if spec.col.kind == "uuid":
        return str(x).lower()
    if spec.col.kind == "char(n)":
        return x.rstrip(" ")  # padded or not, as the database does
    return x


def want_rows(profile, case: Case) -> list[tuple[Any, ...]]:
    return [(r[0], *(canon(profile, s, x) for s, x in zip(case.specs, r[1:], strict=True)))
            for r in case.table.rows()]


def got_rows(profile, case: Case, rows) -> list[tuple[Any, ...]]:
    return [(r[0], *(canon(profile, s, x) for s, x in zip(case.specs, r[1:], strict=True)))
            for r in rows]


def family(t: pa.DataType) -> str:
    """The kind of values an Arrow type holds, layouts alike."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    for name, test in (("int", pa.types.is_integer), ("decimal", pa.types.is_decimal),
                       ("text", lambda u: pa.types.is_string(u) or pa.types.is_large_string(u)
                        or pa.types.is_string_view(u)),
                       ("binary", lambda u: pa.types.is_binary(u) or pa.types.is_large_binary(u)
                        or pa.types.is_binary_view(u)),
                       ("date", pa.types.is_date), ("time", pa.types.is_time),
                       ("timestamp", pa.types.is_timestamp), ("bool", pa.types.is_boolean)):
        if test(t):
            return name
    return str(t)


def compare_arrow(profile, case: Case, fetched: pa.Table, given: pa.Table, want) -> None:
    """fetch_arrow_table's values equal ``want``; and where the fetched type holds the same
    kind of values (not floats: read as text by some drivers), the input cast to it (safely)
    equals the fetched column."""
    cols = [None, *case.table.columns]
    rows = list(zip(*(c.to_pylist() for c in fetched.columns), strict=True))
    compare.compare_rows(got_rows(profile, case, rows), want, cols, f"fetch_arrow_table after ingest ({case.mode})")
    for j, spec in enumerate(case.specs, start=1):
        got = fetched.column(j)
        if family(spec.arrow) != family(got.type) or spec.col.kind == "char(n)" or pa.types.is_floating(got.type):
            continue
        want = given.column(j).cast(got.type)
        if not want.equals(got):
            diff = next(i for i, (a, b) in enumerate(zip(want.to_pylist(), got.to_pylist(), strict=True))
                        if a != b)
            raise AssertionError(
                f"column {spec.col.name} ({given.column(j).type} -> {got.type}): input cast "
                f"{compare.short(want[diff].as_py())}, fetched {compare.short(got[diff].as_py())} at row {diff}"
            )


def nan_option(profile) -> str:
    """ingest's ``nan``: NULL asked for where the database would store NULL (fastodbc refuses
    NaN there unasked); NaN kept, or refused by the server, elsewhere."""
    return "null" if profile.nan_stored_as == "null" else "keep"


def load_and_compare(db, profile, oracle, name: str, case: Case) -> None:
    """Loads the case into table ``name`` and compares what the oracle and the Arrow read
    return with the input."""
    from .ingest import arrow_input

    oracle.drop(name)
    if case.mode == "append":
        oracle.create(name, case.table)
    data, given = arrow_input(case)
    cnxn = db.connect(profile.connstr)
    try:
        cur = cnxn.cursor()
        n = cur.ingest(
            name, data, mode=case.mode, batch_rows=case.batch_rows, batch_bytes=case.batch_bytes, commit=True,
            nan=nan_option(profile),
        )
        assert n == case.table.n_rows, f"ingest returned {n}, the input has {case.table.n_rows} rows"
        assert cnxn.autocommit is False, "ingest left autocommit changed"
        cols = [None, *case.table.columns]
        compare.compare_rows(got_rows(profile, case, oracle.select(name, cols)), want_rows(profile, case),
                             cols, f"the oracle's read after ingest ({case.mode})")
        names = ", ".join(["id", *(c.name for c in case.table.columns)])
        fetched = cur.execute(f"SELECT {names} FROM {name} ORDER BY id").fetch_arrow_table()
        # Doubles as the driver reads them, where it reads their text (Profile.fetched_float_sql);
        # the oracle's read above compared them with the input.
        want = want_rows(profile, case)
        if profile.fetched_float_sql:
            want = got_rows(profile, case, oracle.select(name, cols, fetched=True))
        compare_arrow(profile, case, fetched, given, want)
    finally:
        cnxn.close()
