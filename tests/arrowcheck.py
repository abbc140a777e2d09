"""Checks shared by the Arrow tests (tests/test_arrow_*.py) and the differential matrix's Arrow
path: a profile's Arrow type names as pyarrow types, and Arrow values compared one by one with
the values the rows path (fetchall) gives for the same query."""

from __future__ import annotations

import datetime
import decimal
import re
import struct
import uuid
from decimal import Decimal
from typing import Any

import pyarrow as pa

from differential.compare import same, short

_NAMED = {
    "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
    "uint8": pa.uint8(), "uint16": pa.uint16(), "uint32": pa.uint32(), "uint64": pa.uint64(),
    "float32": pa.float32(), "float64": pa.float64(), "bool": pa.bool_(),
    "string": pa.string(), "binary": pa.binary(), "date32": pa.date32(),
    "time64[us]": pa.time64("us"), "duration[us]": pa.duration("us"), "timestamp[us]": pa.timestamp("us"),
}


def arrow_type(name: str) -> pa.DataType:
    """The pyarrow type a profile names (Profile.arrow_types)."""
    m = re.fullmatch(r"decimal128\((\d+), ?(\d+)\)", name)
    if m:
        return pa.decimal128(int(m[1]), int(m[2]))
    return _NAMED[name]


U = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")


def edge_values(backend, kind: str) -> list:
    """Values of a column kind at the edges of its Arrow type (and of the rows path's)."""
    dt = datetime.datetime
    ints = {
        "tinyint": [0, 1, -1, 127, -128],
        "tinyint unsigned": [0, 1, 255],
        "smallint": [0, -1, 32767, -32768],
        "smallint unsigned": [0, 65535],
        "int": [0, -1, 2**31 - 1, -(2**31)],
        "int unsigned": [0, 2**32 - 1],
        "bigint": [0, -1, 2**53 + 1, 2**63 - 1, -(2**63)],
        "bigint unsigned": [0, 2**63, 2**64 - 1],
    }
    if kind in ints:
        return ints[kind]
    return {
        "real": [0.0, 0.5, -1024.0, 0.1, 3.0e38],
        "float": [0.0, 0.1, -2.5, 1e300, -2.2250738585072014e-308, 2.0**53 + 2],
        "numeric(18,4)": [Decimal(x) for x in ("0", "0.0001", "-0.0001", "12345.6789", "-99999999999999.9999")],
        "numeric(38,10)": [Decimal(x) for x in ("0", "1234567890123456789012345678.9012345678",
                                                   "-9999999999999999999999999999.9999999999", "1E-10")],
        "numeric(38,0)": [Decimal(x) for x in ("0", "9" * 38, "-" + "9" * 38, "12345")],
        "numeric(50,10)": [Decimal(x) for x in ("0", "1234567890123456789012345678901234567890.0123456789",
                                                   "-1.5")],
        "varchar(50)": ["", "hello", "Grüße 😀 こんにちは", "x" * 50],
        "char(5)": ["ab", "", "abcde"],
        "text": ["", "some text", "😀" * 1000],
        "bytes": [b"", b"\x00", bytes(range(256))],
        "date": [backend.min_date, backend.max_date, datetime.date(1970, 1, 1),
                 datetime.date(1969, 12, 31), datetime.date(2024, 2, 29)],
        "time": [datetime.time(0, 0), datetime.time(12, 34, 56),
                 backend.time_roundtrip(datetime.time(23, 59, 59, 999999)),
                 backend.time_roundtrip(datetime.time(0, 0, 0, 1))],
        "timestamp": [backend.timestamp_roundtrip(x) for x in (
            dt(1970, 1, 1), dt(1970, 1, 1, 0, 0, 0, 1), dt(1969, 12, 31, 23, 59, 59, 999999),
            dt(2024, 2, 29, 12, 0, 0, 123456), dt(1, 1, 1), dt(9999, 12, 31, 23, 59, 59, 999999))],
        "bool": [True, False],
        "uuid": [U, uuid.UUID(int=0)],
    }[kind]



def batches_of(reader) -> list[pa.RecordBatch]:
    """Every batch of a fastodbc reader, by Python iteration, each checked whole."""
    out = []
    for batch in reader:
        check_batch(batch)
        out.append(batch)
    return out


def check_batch(batch: pa.RecordBatch, batch_rows: int | None = None) -> None:
    """Every column as long as the batch (and at most batch_rows), the buffers valid."""
    assert isinstance(batch, pa.RecordBatch), type(batch)
    lengths = [len(c) for c in batch.columns]
    assert all(n == batch.num_rows for n in lengths), (batch.num_rows, lengths)
    if batch_rows is not None:
        assert batch.num_rows <= batch_rows, (batch.num_rows, batch_rows)
    batch.validate(full=True)


def table_rows(table: pa.Table | pa.RecordBatch) -> list[tuple[Any, ...]]:
    """The table's values as rows of Python values (to_pylist per column: names may repeat)."""
    columns = [c.to_pylist() for c in table.columns]
    return list(zip(*columns, strict=True)) if columns else []


def expected(row_value: Any, type_: pa.DataType) -> Any:
    """What an Arrow column of type_ holds for a value the rows path returned: the same value,
    as that type keeps it (a GUID or a wide NUMERIC as its text, a REAL as a float32)."""
    if row_value is None:
        return None
    if pa.types.is_float32(type_) and isinstance(row_value, (int, float)):
        return struct.unpack("f", struct.pack("f", row_value))[0]
    if pa.types.is_float64(type_) and type(row_value) is int:
        return float(row_value)  # SQLite: an integer held by a REAL column
    if pa.types.is_decimal(type_) and isinstance(row_value, Decimal):
        # decimal128 has the column's scale: the same number with that exponent (where it is
        # the same number: a value that would round stays as it is, and fails the comparison).
        with decimal.localcontext() as ctx:
            ctx.prec = 100
            fixed = row_value.quantize(Decimal(1).scaleb(-type_.scale))
        return fixed if fixed == row_value else row_value
    if pa.types.is_duration(type_) and isinstance(row_value, datetime.time):
        # A TIME that is a duration (MariaDB's): the rows path's time of day since midnight.
        t = row_value
        return datetime.timedelta(hours=t.hour, minutes=t.minute, seconds=t.second, microseconds=t.microsecond)
    if pa.types.is_string(type_) and isinstance(row_value, uuid.UUID):
        return str(row_value)  # the lower-case canonical text (README: Results as Arrow)
    return row_value


def _comparable(arrow_value: Any, want: Any) -> Any:
    # A wide NUMERIC is its decimal text in Arrow: compared by digits and exponent.
    if isinstance(want, decimal.Decimal) and isinstance(arrow_value, str):
        try:
            return decimal.Decimal(arrow_value)
        except decimal.InvalidOperation:
            return arrow_value
    return arrow_value


def assert_matches_rows(table: pa.Table | pa.RecordBatch, rows, where: str = "") -> None:
    """Arrow values equal the rows path's, value by value, with the exact Python type."""
    got = table_rows(table)
    rows = [tuple(r) for r in rows]
    assert len(got) == len(rows), f"{where}: Arrow has {len(got)} rows, the rows path {len(rows)}"
    types = [f.type for f in table.schema]
    for i, (g, r) in enumerate(zip(got, rows, strict=True)):
        assert len(g) == len(r), f"{where}: row {i} has {len(g)} values in Arrow, {len(r)} as a row"
        for j, (gv, rv) in enumerate(zip(g, r, strict=True)):
            want = expected(rv, types[j])
            if not same(_comparable(gv, want), want):
                raise AssertionError(
                    f"{where}: row {i}, column {table.schema[j].name} ({types[j]}): "
                    f"Arrow {short(gv)} ({type(gv).__name__}), rows path {short(rv)} ({type(rv).__name__})"
                )


def assert_schema_names(table: pa.Table | pa.RecordBatch | pa.Schema, description) -> None:
    """The fields are the result's columns, named as cursor.description names them."""
    schema = table if isinstance(table, pa.Schema) else table.schema
    assert [f.name for f in schema] == [d[0] for d in description]
