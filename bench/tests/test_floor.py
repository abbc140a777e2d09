"""`fastodbc_bench.object_rows`: the benchmark's Python object floor builds exactly the rows it is given.

The dumps are written by bench/worker.py's `encode_rows`, the encoder the benchmark uses.
"""

from __future__ import annotations

import datetime as dt
import gc
import math
import struct
import sys
from decimal import Decimal, InvalidOperation

import fastodbc_bench
import pytest
from bench_modules import load

encode_rows = load("worker").encode_rows

MAGIC = b"object rows 1\n"

STRS = [
    "",
    "a",
    "plain ASCII text",
    "\x7f",
    "\x80",
    "Łódź"[1:],  # "ódź": BMP (ź is U+017A)
    "àéîõü ÿ",  # Latin-1
    "\xff" * 3,
    "Привет",  # BMP
    "漢字\uffff",
    "\ud800 lone surrogate",  # BMP kind, surrogatepass
    "emoji 😀",  # astral
    "\U0010ffff",
    "😀\udc00",  # astral with a lone surrogate
]

VALUES = [
    None,
    0,
    1,
    -1,
    2**31,
    -(2**31) - 1,
    2**63 - 1,
    -(2**63),
    0.0,
    -0.0,
    1.5,
    -2.25e-300,
    5e-324,
    1.7976931348623157e308,
    math.inf,
    -math.inf,
    True,
    False,
    *STRS,
    b"",
    b"\x00\xff binary\x00",
    bytes(range(256)) * 10,
    dt.date(2024, 2, 29),
    dt.date(1, 1, 1),
    dt.date(9999, 12, 31),
    dt.datetime(2024, 1, 2, 3, 4, 5, 678901),
    dt.datetime(1970, 1, 1),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
    dt.time(0, 0),
    dt.time(23, 59, 59, 999999),
    dt.time(12, 30, 0, 1),
    Decimal("0"),
    Decimal("123.4500"),
    Decimal("-98765.4321"),
    Decimal("-0"),
    Decimal("1E+30"),
    Decimal("-1.5E-10"),
    Decimal("12345678901234567890123456789.123456789"),
    Decimal("Infinity"),
]


def rebuild(rows: list[tuple]) -> list[tuple]:
    return fastodbc_bench.object_rows(encode_rows(rows))


def test_every_value_round_trips_with_its_type():
    rows = [tuple(VALUES)] * 3
    built = rebuild(rows)
    assert built == rows
    assert type(built) is list and all(type(r) is tuple for r in built)
    for r in built:
        assert [type(v) for v in r] == [type(v) for v in VALUES]


def test_each_value_alone():
    for v in VALUES:
        (row,) = rebuild([(v,)])
        assert row == (v,) and type(row[0]) is type(v), v


def test_float_bits_survive():
    for v in (-0.0, 0.0, math.inf, -math.inf, 5e-324, 0.1):
        ((got,),) = rebuild([(v,)])
        assert struct.pack("<d", got) == struct.pack("<d", v)
    ((nan,),) = rebuild([(math.nan,)])
    assert type(nan) is float and math.isnan(nan)


def test_bools_are_the_singletons():
    built = rebuild([(True, False)])
    assert built[0][0] is True and built[0][1] is False


def test_strs_keep_their_pep393_kind():
    built = rebuild([tuple(STRS)])
    for original, got in zip(STRS, built[0], strict=True):
        assert got == original
        # Compared doubled: a concatenation takes its kind from its parts' kinds, and is a new
        # object, where `original` may be one of Python 3.12+'s one-character singletons, which
        # carry a cached UTF-8 form getsizeof counts.
        assert sys.getsizeof(got + got) == sys.getsizeof(original + original), repr(original)
        assert got.isascii() == original.isascii()


def test_ascii_and_latin1_strs_differ_in_kind_code():
    dump = encode_rows([("ab", "\xe9b", "\u0100", "\U0001f600")])
    body = dump[len(MAGIC) + 12 :]
    kinds = []
    i = 0
    while i < len(body):
        assert body[i] == 4
        kind, n = body[i + 1], struct.unpack_from("<I", body, i + 2)[0]
        kinds.append(kind)
        i += 6 + n * max(kind, 1)
    assert kinds == [0, 1, 2, 4]


def test_naive_datetimes_and_decimals_exactly():
    rows = [
        (dt.datetime(2001, 2, 3, 4, 5, 6, 7), Decimal("-0.000"), Decimal("-7.10E+5")),
    ]
    ((when, zero, big),) = rebuild(rows)
    assert when.microsecond == 7 and when.tzinfo is None
    assert str(zero) == "-0.000" and str(big) == "-7.10E+5"


def test_rows_stay_out_of_the_cyclic_gc_as_fetched_rows_do():
    built = rebuild([(1, "x", None), (2, "y", 3.0), (3, b"", dt.date(2020, 1, 1))])
    assert built and not any(gc.is_tracked(r) for r in built)


def test_many_rows():
    rows = [(i, f"s{i}", i / 7, None if i % 3 else Decimal(i)) for i in range(5000)]
    assert rebuild(rows) == rows


def test_fastodbc_row_objects_encode_as_tuples():
    class Row(tuple):
        pass

    assert rebuild([Row((1, "a")), Row((2, "b"))]) == [(1, "a"), (2, "b")]


def test_empty_result_is_an_empty_list():
    assert encode_rows([]) == MAGIC + struct.pack("<QI", 0, 0)
    assert fastodbc_bench.object_rows(encode_rows([])) == []


# ---------------------------------------------------------------------------------------------
# The encoder refuses what it cannot represent


@pytest.mark.parametrize(
    "value",
    [
        2**63,
        -(2**63) - 1,
        bytearray(b"x"),
        [1],
        1j,
        dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc),
        dt.time(1, 2, tzinfo=dt.timezone.utc),
        dt.timedelta(1),
    ],
)
def test_the_encoder_refuses_unrepresentable_values(value):
    with pytest.raises(ValueError):
        encode_rows([(value,)])


def test_the_encoder_refuses_ragged_rows():
    with pytest.raises(ValueError, match="row of 1"):
        encode_rows([(1, 2), (3,)])


# ---------------------------------------------------------------------------------------------
# Malformed dumps raise ValueError, never read past the end

SMALL = [
    (1, None, 2.5, True, "aé", "Ж", "😀", b"\x01\x02"),
    (-5, dt.date(2020, 5, 6), dt.datetime(2020, 5, 6, 7, 8, 9, 10), dt.time(1, 2, 3, 4), Decimal("-1.2"), "", b"", 0),
]


def test_a_dump_truncated_at_any_byte_is_refused():
    dump = encode_rows(SMALL)
    assert fastodbc_bench.object_rows(dump) == SMALL
    for cut in range(len(dump)):
        with pytest.raises(ValueError, match="object rows"):
            fastodbc_bench.object_rows(dump[:cut])


def test_trailing_bytes_are_refused():
    with pytest.raises(ValueError, match="after the last row"):
        fastodbc_bench.object_rows(encode_rows(SMALL) + b"\0")


def one_value(payload: bytes) -> bytes:
    return MAGIC + struct.pack("<QI", 1, 1) + payload


@pytest.mark.parametrize(
    ("dump", "match"),
    [
        (b"", "bad magic"),
        (b"int64 rows\n" + b"\0" * 40, "bad magic"),
        (b"object rows 2\n" + struct.pack("<QI", 0, 0), "bad magic"),
        (MAGIC + b"\0" * 11, "truncated header"),
        (one_value(b"\x0a"), "unknown tag 10"),
        (one_value(b"\xff"), "unknown tag 255"),
        (one_value(b"\x04\x03" + struct.pack("<I", 1) + b"abc"), "unknown str kind 3"),
        (one_value(b"\x04\x08" + struct.pack("<I", 0)), "unknown str kind 8"),
        (one_value(b"\x04\x04" + struct.pack("<I", 2) + b"\0" * 7), "truncated"),
        (one_value(b"\x04\x00" + struct.pack("<I", 2**32 - 1) + b"ab"), "truncated"),
        (one_value(b"\x05" + struct.pack("<I", 2**32 - 1) + b"ab"), "truncated"),
        (one_value(b"\x09" + struct.pack("<I", 2) + "é".encode()), "not ASCII"),
        (one_value(b"\x04\x00" + struct.pack("<I", 2) + b"a\xe9"), "does not fit its kind 0"),
        (one_value(b"\x04\x04" + struct.pack("<II", 1, 0x110000)), "does not fit its kind 4"),
        (MAGIC + struct.pack("<QI", 2**64 - 1, 1) + b"\0", "cannot fit"),
        (MAGIC + struct.pack("<QI", 2, 2**32 - 1) + b"\0" * 8, "cannot fit"),
        (MAGIC + struct.pack("<QI", 3, 0), "without columns"),
        (MAGIC + struct.pack("<QI", 2, 1) + b"\0\x01", "truncated"),
    ],
)
def test_malformed_dumps_are_refused(dump, match):
    with pytest.raises(ValueError, match=match):
        fastodbc_bench.object_rows(dump)


@pytest.mark.parametrize(
    "payload",
    [
        b"\x06" + struct.pack("<iBB", 2023, 2, 29),  # no such day
        b"\x06" + struct.pack("<iBB", 0, 1, 1),  # year 0
        b"\x07" + struct.pack("<iBBBBBI", 2020, 1, 1, 24, 0, 0, 0),
        b"\x07" + struct.pack("<iBBBBBI", 2020, 1, 1, 0, 0, 0, 1_000_000),
        b"\x08" + struct.pack("<BBBI", 0, 60, 0, 0),
    ],
)
def test_values_their_constructor_refuses_raise_its_error(payload):
    with pytest.raises(ValueError):
        fastodbc_bench.object_rows(one_value(payload))


def test_decimal_text_decimal_refuses_raises_its_error():
    with pytest.raises(InvalidOperation):
        fastodbc_bench.object_rows(one_value(b"\x09" + struct.pack("<I", 3) + b"1x2"))


def test_a_bad_value_after_good_rows_is_refused():
    dump = MAGIC + struct.pack("<QI", 2, 1) + b"\x01" + struct.pack("<q", 1) + b"\x0b"
    with pytest.raises(ValueError, match="unknown tag 11 at offset 35"):
        fastodbc_bench.object_rows(dump)
