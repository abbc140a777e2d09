"""Round trips of every parameter/column type, with edge values.

Each value is inserted with a bound parameter and fetched back from a typed column; the
result must equal what the profile documents for that database, with the exact Python type.
Where a database cannot keep a value (profile says so), the driver may return the documented
value or raise DataError, never something else.
"""

import datetime
import decimal
import math
import uuid
from decimal import Decimal

import pytest

from profiles import backends_where


@pytest.fixture
def roundtrip(backend, table, cnxn):
    """roundtrip(kind, value) -> the value fetched back from a column of that kind."""

    def _rt(kind, value):
        t = table(f"id {backend.ddl('int')} NOT NULL, v {backend.ddl(kind)}")
        cur = cnxn.cursor()
        cur.execute(f"INSERT INTO {t} (id, v) VALUES (?, ?)", 1, value)
        cnxn.commit()
        rows = cur.execute(f"SELECT v FROM {t} WHERE id = 1").fetchall()
        assert len(rows) == 1
        return rows[0][0]

    return _rt


def check(got, want):
    """Exact equality, exact type (bool is not int, Decimal is not float)."""
    assert got == want, (got, want)
    if want is not None:
        assert type(got) is type(want), (type(got), type(want))


def lossy(db, fn, want, exact):
    """A value the profile says may not survive: the documented (reduced) value, the exact
    value (a driver may do better than documented), or DataError; never anything else."""
    try:
        got = fn()
    except db.DataError:
        return
    if got != exact:
        check(got, want)
    else:
        check(got, exact)


# ------------------------------------------------------------------------ None


@pytest.mark.parametrize(
    "kind",
    [
        "int",
        "bigint",
        "float",
        "numeric(18,4)",
        "varchar(50)",
        "text",
        "bytes",
        "date",
        "time",
        "timestamp",
        "bool",
    ],
)
def test_null(roundtrip, kind):
    assert roundtrip(kind, None) is None


# ------------------------------------------------------------------------ strings

TEXTS = {
    "empty": "",
    "ascii": "hello, world",
    "space": " ",
    "quotes": 'it\'s "quoted" \\ back`tick`; --',
    "controls": "tab\there\nnewline\r\ncrlf\x01\x7f",
    "latin1": "Grüße, café, naïve, ÆØÅ ÿ",
    "emoji": "😀🎉👍🏽🧑‍💻",
    "mixed_scripts": "Grüße Добрый день こんにちは 你好 مرحبا שלום ελληνικά हिन्दी 한국어 😀 ok",
    "bmp_edges": "\u00a0\u07ff\u0800\ud7ff\ue000\ufffd",
    "combining": "e\u0301 a\u0308 \u200d\ufeff",
    "astral_low": "\U00010000\U0001f4a9\U00020000",
}


@pytest.mark.parametrize("kind", ["varchar(255)", "text"])
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_text(roundtrip, kind, name):
    check(roundtrip(kind, TEXTS[name]), TEXTS[name])


def test_empty_string_is_not_null(roundtrip):
    got = roundtrip("text", "")
    assert got == ""
    assert got is not None


@pytest.mark.fastodbc_only(
    where=lambda p: p.wide_fetch_max_codepoint < 0x10FFFF,
    reason="pyodbc's wide fetch from sqliteodbc turns U+10FFFF into U+FFFF",
)
def test_text_max_codepoint(roundtrip):
    check(roundtrip("text", "a\U0010ffffb"), "a\U0010ffffb")


def test_text_one_mib(roundtrip):
    unit = "abcdefghijklmnopqrstuvwxyzäöü€😀\n"
    value = (unit * (1024 * 1024 // len(unit) + 1))[: 1024 * 1024]
    got = roundtrip("text", value)
    assert type(got) is str
    assert len(got) == len(value)
    assert got == value


def test_text_long_ascii(roundtrip):
    value = "".join(chr(32 + i % 95) for i in range(300_000))
    check(roundtrip("text", value), value)


def test_char_padding(backend, roundtrip):
    want = "ab   " if backend.char_pads else "ab"
    check(roundtrip("char(5)", "ab"), want)


@pytest.mark.fastodbc_only(reason="pyodbc passes NUL through; sqliteodbc and psqlODBC cut there")
@pytest.mark.parametrize("value", ["a\0b", "\0", "abc\0"])
def test_text_with_nul_stored_whole_or_refused(db, backend, table, cnxn, value):
    # Refused (DataError, nothing stored) where the driver would cut it or the database can't
    # hold it; stored whole where both keep it (MariaDB). Never stored cut.
    t = table(f"v {backend.ddl('text')}")
    cur = cnxn.cursor()
    try:
        cur.execute(f"INSERT INTO {t} (v) VALUES (?)", value)
    except db.DataError:
        cnxn.rollback()
        assert cur.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 0
        return
    cnxn.commit()
    got = cur.execute(f"SELECT {backend.octet_length('v')} FROM {t}").fetchall()
    assert [tuple(r) for r in got] == [(len(value.encode()),)]


# Text with UTF-16 code units whose low byte is 0xD8-0xDB (U+00D8 'Ø' to U+00DB 'Û', U+4ED8
# '付'...), which MariaDB Connector/ODBC 3.1 takes for the start of a surrogate pair, reading
# one unit past the text per such unit (Quirks::overreads_wide_input).
OVERREAD_TEXTS = ["Ø", "ØØ", "ÙÚÛ", "付", "a付b", "Ø😀", "ÆØÅ ÿ", "x" * 7 + "Û"]


@pytest.mark.fastodbc_only(
    reason="pyodbc sends UTF-16 that MariaDB's driver reads past; its fast_executemany segfaults in sqliteodbc"
)
@pytest.mark.parametrize("fast", [False, True], ids=["rowwise", "fast"])
@pytest.mark.parametrize("how", ["execute", "executemany"])
def test_text_units_a_driver_reads_past(backend, table, cnxn, how, fast):
    # Stored as sent, in parameters (one row, and arrays whose next element lies right after
    # each value) and in the statement's own text; checked by the server, not by a fetch.
    t = table(f"id {backend.ddl('int')}, v {backend.ddl('varchar(50)')}")
    cur = cnxn.cursor()
    cur.fast_executemany = fast
    rows = [(k, v) for k, v in enumerate(OVERREAD_TEXTS)]
    rows += [(100 + k, "r" + v[::-1]) for k, v in enumerate(OVERREAD_TEXTS)]
    if how == "execute":
        for row in rows:
            cur.execute(f"INSERT INTO {t} VALUES (?, ?)", *row)
    else:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
    cnxn.commit()
    length = backend.char_length
    for k, v in rows:
        if backend.astral_in_sql_text or all(ord(c) <= 0xFFFF for c in v):
            literal = "'" + v.replace("'", "''") + "'"
            got = cur.execute(f"SELECT {length('v')}, id, {length(literal)} FROM {t} WHERE v = {literal}")
            assert [tuple(r) for r in got.fetchall()] == [(len(v), k, len(v))], v
        got = cur.execute(f"SELECT {length('v')}, id FROM {t} WHERE v = ?", v)
        assert [tuple(r) for r in got.fetchall()] == [(len(v), k)], v


def test_str_param_in_where(cursor, backend, table, cnxn):
    t = table(f"v {backend.ddl('varchar(50)')}")
    cur = cnxn.cursor()
    for v in ("Ä", "ä", "😀", ""):
        cur.execute(f"INSERT INTO {t} VALUES (?)", v)
    # A case-insensitive collation finds 'Ä' and 'ä' for either.
    same_letter = 1 if backend.text_equality_is_exact else 2
    for v, want in (("Ä", same_letter), ("ä", same_letter), ("😀", 1), ("", 1)):
        assert cur.execute(f"SELECT COUNT(*) FROM {t} WHERE v = ?", v).fetchone()[0] == want


# ------------------------------------------------------------------------ integers


@pytest.mark.parametrize(
    "kind,value",
    [
        ("int", 0),
        ("int", 1),
        ("int", -1),
        ("int", 2**31 - 1),
        ("int", -(2**31)),
        ("smallint", 32767),
        ("smallint", -32768),
        ("bigint", 2**31),
        ("bigint", 2**53 + 1),
        ("bigint", 2**63 - 1),
        ("bigint", -(2**63)),
        ("bigint", -(2**63) + 1),
    ],
)
def test_int(roundtrip, kind, value):
    check(roundtrip(kind, value), value)


@pytest.mark.fastodbc_only(
    where=lambda p: p.int_column_is_64bit,
    reason="pyodbc fetches SQLite's INTEGER (SQL_INTEGER) as 32-bit: 2**40 comes back 0",
)
@pytest.mark.parametrize("value", [2**40, -(2**40), 2**63 - 1])
def test_int_column_beyond_32_bits(db, backend, roundtrip, value):
    if backend.int_column_is_64bit:
        # SQLite's INTEGER holds 64 bits whatever the declared type says.
        check(roundtrip("int", value), value)
    else:
        with pytest.raises(db.DataError) as exc:
            roundtrip("int", value)
        assert exc.value.args[0].startswith("22"), exc.value.args


# What SQLite's INTEGER and REAL columns can hold besides their own type: REALs an INTEGER
# column's affinity could not make integers, and text that does not look like a number. The
# driver's own conversions (strtoll, strtod) turn these into 3, None, 12, 31, 1 (as pyodbc
# returns them).
SQLITE_NUMBER_COLUMN_VALUES = [
    "3.7",
    "-2.5e-7",
    "1e20",
    "'abc'",
    "'12abc'",
    "'0x1F'",
    "'007'",
    "'a text value much longer than any number could be written'",
    "9223372036854775807",
    "-9223372036854775808",
    "0",
    "NULL",
]


def sqlite_oracle_rows(backend, sql):
    """The rows Python's own sqlite3 reads with `sql` from the test database, its floats as
    they pass through the driver's text (15 significant digits, see the README)."""
    import sqlite3

    oracle = sqlite3.connect(backend.database)
    try:
        return [
            tuple(backend.float_roundtrip(v) if type(v) is float else v for v in r)
            for r in oracle.execute(sql).fetchall()
        ]
    finally:
        oracle.close()


@pytest.mark.fastodbc_only(reason="pyodbc returns what the driver's strtoll / strtod make of them")
@pytest.mark.parametrize("with_text_column", [False, True], ids=["numbers_only", "with_text"])
@pytest.mark.parametrize("backend", backends_where(lambda p: p.columns_hold_any_type), indirect=True)
def test_sqlite_number_columns_return_what_they_hold(backend, cnxn, table, with_text_column):
    t = table("k INTEGER, i INTEGER, b BIGINT, r REAL, f DOUBLE, s TEXT")
    cur = cnxn.cursor()
    for k, v in enumerate(SQLITE_NUMBER_COLUMN_VALUES):
        cur.execute(f"INSERT INTO {t} VALUES ({k}, {v}, {v}, {v}, {v}, 'x')")
    cnxn.commit()
    columns = "k, i, b, r, f" + (", s" if with_text_column else "")
    sql = f"SELECT {columns} FROM {t} ORDER BY k"
    want = sqlite_oracle_rows(backend, sql)
    got = [tuple(r) for r in cur.execute(sql).fetchall()]
    assert got == want
    assert [type(v) for r in got for v in r] == [type(v) for r in want for v in r]
    assert [tuple(r) for r in cur.execute(sql)] == want
    assert [d[1] for d in cur.description[1:5]] == [int, int, float, float]


@pytest.mark.fastodbc_only(reason="pyodbc returns what the driver's strtoll / strtod make of them")
@pytest.mark.parametrize("read_ahead", [True, False])
@pytest.mark.parametrize("backend", backends_where(lambda p: p.columns_hold_any_type), indirect=True)
def test_sqlite_number_columns_in_a_long_result(backend, cnxn, table, read_ahead):
    # In a long result the thread fetching ahead reads the numbers of the blocks it fetches
    # when it has time to spare (RowBlock::describe); every value must come back as the
    # consumer's own reading of it makes it, in blocks of a few rows and of hundreds.
    n = 30_000
    t = table("k INTEGER, i INTEGER, b BIGINT, r REAL, f DOUBLE")
    values = SQLITE_NUMBER_COLUMN_VALUES + ["k * 7919 - 100000", "k / 3.0", "-k"]
    whens = " ".join(f"WHEN {j} THEN {v}" for j, v in enumerate(values))
    case = f"CASE k % {len(values)} {whens} END"
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} (k) SELECT i FROM ({backend.series(n)}) q")
    cur.execute(f"UPDATE {t} SET i = {case}, b = {case}, r = {case}, f = {case}")
    cnxn.commit()
    sql = f"SELECT k, i, b, r, f FROM {t} ORDER BY k"
    want = sqlite_oracle_rows(backend, sql)
    cnxn.read_ahead = read_ahead
    for buffer_bytes in (2000, 200_000):
        cnxn.fetch_buffer_bytes = buffer_bytes
        got = [tuple(r) for r in cur.execute(sql).fetchall()]
        assert got == want
        assert [type(v) for r in got for v in r] == [type(v) for r in want for v in r]
        assert [tuple(r) for r in cur.execute(sql)] == want


@pytest.mark.parametrize("value", [2**63, 2**64 + 5, -(2**63) - 1, 10**30])
def test_int_beyond_64_bits(db, backend, roundtrip, value):
    """Binds as NUMERIC (exact) or raises a clear error; never a wrapped-around value."""
    try:
        got = roundtrip("numeric(38,0)", value)
    except (OverflowError, ValueError, db.Error) as e:
        assert str(e), "the error must say something"
        return
    if backend.numeric_is_float:
        check(got, backend.float_roundtrip(float(value)))
    else:
        assert got == value
        assert type(got) in (int, Decimal)


def test_bool_param_into_int_column(roundtrip):
    got = roundtrip("int", True)
    assert got == 1
    assert type(got) is int


# ------------------------------------------------------------------------ floats

FLOATS = [
    0.0,
    1.5,
    -2.25,
    0.1,
    3.141592653589793,
    2.0**53 + 2,
    123456789.123456789,
    1e300,
    -1e-300,
    5e-324,
    1e-10,
    # The longest text forms: 24 characters, past the 23 bytes a number's text is bound with
    # where numbers are fetched as text (they are read again whole).
    -1.2345678901234567e-100,
    -2.2250738585072014e-308,
]


@pytest.mark.parametrize("value", FLOATS, ids=repr)
def test_float(backend, roundtrip, value):
    check(roundtrip("float", value), backend.float_roundtrip(value))


def test_float_negative_zero(backend, roundtrip):
    got = roundtrip("float", -0.0)
    check(got, 0.0)
    assert math.copysign(1.0, got) == (-1.0 if backend.keeps_negative_zero else 1.0)


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_float_infinity(db, backend, roundtrip, value):
    if backend.infinity_stored_as == "refused":
        with pytest.raises(db.DataError):
            roundtrip("float", value)
        return
    check(roundtrip("float", value), value)


def test_float_nan(db, backend, roundtrip):
    # Where the database would store NULL, fastodbc refuses: never a silent NULL (pyodbc sends
    # it, and the NULL comes back).
    refused = backend.nan_stored_as == "refused" or (backend.nan_stored_as == "null" and db.__name__ == "fastodbc")
    if refused:
        with pytest.raises(db.DataError):
            roundtrip("float", math.nan)
        return
    got = roundtrip("float", math.nan)
    if backend.nan_stored_as == "null":
        assert got is None
        return
    assert type(got) is float
    assert math.isnan(got)


@pytest.mark.parametrize("backend", backends_where(lambda p: p.money_type), indirect=True)
@pytest.mark.parametrize(("literal", "want"), [("1234.56", 1234.56), ("-5", -5.0), ("0", 0.0)])
def test_pg_money_is_a_float(backend, cursor, literal, want):
    # psqlODBC describes money as SQL_FLOAT and reads its text ('$1,234.56') as a number:
    # fetched as a double, as pyodbc returns it, never as that text.
    check(cursor.execute(f"SELECT CAST({literal} AS {backend.money_type})").fetchval(), want)


@pytest.mark.parametrize("value", [0.5, 1.25, -1024.0, 0.0])
def test_real(roundtrip, value):
    check(roundtrip("real", value), value)


def test_int_param_into_float_column(roundtrip):
    check(roundtrip("float", 3), 3.0)


# ------------------------------------------------------------------------ decimals

DECIMALS_18_4 = [
    "-99999999999999.9999",
    "99999999999999.9999",
    "0.0001",
    "-0.0001",
    "0",
    "1E+3",
    "-1E+2",
    "1.5E-3",
    "12345.6789",
    "1.23",
    "-0.5",
]


@pytest.mark.parametrize("text", DECIMALS_18_4)
def test_numeric_18_4(backend, roundtrip, text):
    value = Decimal(text)
    got = roundtrip("numeric(18,4)", value)
    if backend.numeric_is_float:
        check(got, backend.float_roundtrip(float(value)))
    else:
        want = value.quantize(Decimal("0.0001"))
        check(got, want)
        assert str(got) == str(want)  # the column's scale, not just an equal value


@pytest.mark.parametrize(
    "text",
    [
        "1234567890123456789012345678.9012345678",
        "-9999999999999999999999999999.9999999999",
        "0.0000000001",
        "1E+27",
        "1.5E-7",
    ],
)
def test_numeric_38_digits(backend, roundtrip, text):
    value = Decimal(text)
    got = roundtrip("numeric(38,10)", value)
    if backend.numeric_is_float:
        check(got, backend.float_roundtrip(float(value)))
    else:
        with decimal.localcontext() as ctx:
            ctx.prec = 50
            want = value.quantize(Decimal("1E-10"))
        check(got, want)
        assert str(got) == str(want)


class _DecimalSubclass(Decimal):
    """A subclass whose str() is not a number: parameters must not be read from str()."""

    def __str__(self) -> str:
        return "not a number"


@pytest.mark.parametrize(
    "value",
    [
        _DecimalSubclass("-12.5"),
        Decimal("1.25E+3"),
        Decimal("-7E-4"),
    ],
    ids=["subclass", "exponent", "negative_exponent"],
)
def test_decimal_param_forms(backend, roundtrip, value):
    with decimal.localcontext() as ctx:
        ctx.capitals = 0  # str() writes 'e', not 'E'
        got = roundtrip("numeric(18,4)", value)
    if backend.numeric_is_float:
        check(got, backend.float_roundtrip(float(value)))
    else:
        check(got, Decimal(value.as_tuple()).quantize(Decimal("0.0001")))


@pytest.mark.fastodbc_only(reason="pyodbc sends NaN and Infinity to the driver")
@pytest.mark.parametrize("text", ["NaN", "-Infinity", "sNaN", "1E+9999999999"])
def test_decimal_param_not_numeric(db, cursor, table, backend, text):
    t = table(f"v {backend.ddl('numeric(18,4)')}")
    with pytest.raises(db.DataError, match="cannot be stored in a SQL numeric") as e:
        cursor.execute(f"INSERT INTO {t} VALUES (?)", Decimal(text))
    assert e.value.args[0] == "22003"
    cursor.execute(f"INSERT INTO {t} VALUES (?)", Decimal("1.5"))  # still usable


def test_decimal_param_keeps_precision_in_where(backend, cursor, table, cnxn):
    if backend.numeric_is_float:
        pytest.skip(f"{backend.name} stores NUMERIC as a double")
    t = table(f"v {backend.ddl('numeric(38,10)')}")
    a = Decimal("1234567890123456789012345678.0000000001")
    b = Decimal("1234567890123456789012345678.0000000002")
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?)", a)
    cur.execute(f"INSERT INTO {t} VALUES (?)", b)
    assert cur.execute(f"SELECT COUNT(*) FROM {t} WHERE v = ?", b).fetchone()[0] == 1


# ------------------------------------------------------------------------ binary

BLOBS = {
    "empty": b"",
    "nul": b"\x00",
    "all_bytes": bytes(range(256)),
    "64k": bytes((i * 7 + i // 256) % 256 for i in range(64 * 1024)),
    "utf16_odd": b"\xff\xfe\x00",
}


@pytest.mark.parametrize("name", sorted(BLOBS))
def test_bytes(roundtrip, name):
    check(roundtrip("bytes", BLOBS[name]), BLOBS[name])


def test_bytearray_param(roundtrip):
    check(roundtrip("bytes", bytearray(b"\x00\xffab")), b"\x00\xffab")


@pytest.mark.fastodbc_only(reason="pyodbc does not accept memoryview parameters")
@pytest.mark.parametrize("value", [b"", b"\x00\xfe", bytes(range(256)) * 256])
def test_memoryview_param(roundtrip, value):
    check(roundtrip("bytes", memoryview(value)), value)


def test_empty_bytes_is_not_null(roundtrip):
    got = roundtrip("bytes", b"")
    assert got == b""
    assert got is not None


# ------------------------------------------------------------------------ dates and times


@pytest.mark.parametrize(
    "value",
    [
        datetime.date(1, 1, 1),
        datetime.date(9999, 12, 31),
        datetime.date(2024, 2, 29),
        datetime.date(1970, 1, 1),
        datetime.date(1899, 12, 30),
    ],
    ids=str,
)
def test_date(backend, roundtrip, value):
    if not backend.min_date <= value <= backend.max_date:
        pytest.skip(f"{backend.name} can't store {value}")
    check(roundtrip("date", value), value)


@pytest.mark.parametrize(
    "value",
    [datetime.time(0, 0, 0), datetime.time(23, 59, 59), datetime.time(12, 34, 56)],
    ids=str,
)
def test_time_seconds(roundtrip, value):
    check(roundtrip("time", value), value)


@pytest.mark.fastodbc_only(
    where=lambda p: p.pyodbc_time_loses_fraction, reason="pyodbc binds datetime.time without fractional seconds"
)
@pytest.mark.parametrize(
    "value",
    [
        datetime.time(12, 34, 56, 789123),
        datetime.time(0, 0, 0, 1),
        datetime.time(23, 59, 59, 999999),
    ],
    ids=str,
)
def test_time_microseconds(db, backend, roundtrip, value):
    want = backend.time_roundtrip(value)
    if want == value:
        check(roundtrip("time", value), value)
    else:
        lossy(db, lambda: roundtrip("time", value), want, value)


@pytest.mark.parametrize(
    "value",
    [
        datetime.datetime(2020, 1, 2, 3, 4, 5),
        datetime.datetime(2020, 1, 2, 3, 4, 5, 123456),
        datetime.datetime(2000, 1, 1, 0, 0, 0, 999999),
        datetime.datetime(2024, 2, 29, 23, 59, 59, 1000),
        datetime.datetime(1, 1, 1, 0, 0, 0),
        datetime.datetime(9999, 12, 31, 23, 59, 59, 999999),
        datetime.datetime(1970, 1, 1, 0, 0, 0, 1),
    ],
    ids=str,
)
def test_timestamp(db, backend, roundtrip, value):
    want = backend.timestamp_roundtrip(value)
    if want == value:
        check(roundtrip("timestamp", value), value)
    else:
        lossy(db, lambda: roundtrip("timestamp", value), want, value)


VALID_DATETIMES = {
    "date": ("'2024-01-02'", datetime.date(2024, 1, 2)),
    "timestamp": ("'2024-01-02 03:04:05'", datetime.datetime(2024, 1, 2, 3, 4, 5)),
}


@pytest.mark.fastodbc_only(reason="pyodbc raises the ValueError of datetime's constructor")
@pytest.mark.parametrize("fetch", ["fetchall", "fetchone"])
def test_datetime_cannot_hold_raises_data_error_at_its_row(db, backend, table, cnxn, fetch):
    if not backend.unrepresentable_datetimes:
        pytest.skip(f"{backend.name} returns no date datetime cannot hold")
    cur = cnxn.cursor()
    for kind, literal in backend.unrepresentable_datetimes:
        t = table(f"id {backend.ddl('int')}, v {backend.ddl(kind)}")
        valid, want = VALID_DATETIMES[kind]
        cur.execute(f"INSERT INTO {t} VALUES (1, {valid}), (2, {literal}), (3, {valid})")
        cur.execute(f"SELECT id, v FROM {t} ORDER BY id")
        if fetch == "fetchall":
            with pytest.raises(db.DataError) as err:
                cur.fetchall()
        else:
            assert tuple(cur.fetchone()) == (1, want)
            with pytest.raises(db.DataError) as err:
                cur.fetchone()
            # The row is consumed, as a converter's error consumes its row.
            assert tuple(cur.fetchone()) == (3, want)
        assert err.value.args[0] == "22008", (kind, literal, err.value.args)
        cnxn.rollback()


def test_date_param_into_timestamp_column(roundtrip):
    check(roundtrip("timestamp", datetime.date(2024, 2, 29)), datetime.datetime(2024, 2, 29))


# ------------------------------------------------------------------------ bool


@pytest.mark.parametrize("value", [True, False])
def test_bool(backend, roundtrip, value):
    check(roundtrip("bool", value), backend.fetched_bool(value))


# ------------------------------------------------------------------------ uuid

U = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")


def test_uuid_param(backend, table, cnxn):
    if not backend.supports_uuid:
        pytest.skip(f"{backend.name} has no uuid type")
    t = table(f"u {backend.ddl('uuid')}")
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?)", U)
    assert cur.execute(f"SELECT CAST(u AS VARCHAR(36)) FROM {t}").fetchone()[0] == str(U)
    assert cur.execute(f"SELECT COUNT(*) FROM {t} WHERE u = ?", U).fetchone()[0] == 1


@pytest.mark.fastodbc_only(
    where=lambda p: p.guid_params_broken, reason="pyodbc binds SQL_C_GUID, which these drivers garble"
)
@pytest.mark.parametrize("column", ["uuid", "char(36)"])
def test_uuid_param_stored_as_its_text(backend, table, cnxn, column):
    # MariaDB Connector/ODBC 3.1.15 sent a SQL_C_GUID struct's bytes as they lie in memory: a
    # UUID column stored the first three fields byte-swapped, CHAR(36) refused it (22007), an
    # array of two crashed the driver; sqliteodbc refused SQL_C_GUID (07009). Found by the
    # differential matrix.
    if column == "uuid" and not backend.supports_uuid:
        pytest.skip(f"{backend.name} has no uuid type")
    ddl = backend.ddl("uuid") if column == "uuid" else backend.ddl("char(n)").format(n=36)
    t = table(f"id {backend.ddl('int')}, u {ddl}")
    cur = cnxn.cursor()
    sql = f"INSERT INTO {t} (id, u) VALUES (?, ?)"
    cur.execute(sql, 1, U)
    cur.executemany(sql, [(2, U), (3, uuid.UUID(int=5)), (4, None)])
    cnxn.commit()
    got = [r[0] for r in cur.execute(f"SELECT u FROM {t} ORDER BY id")]
    assert [None if g is None else str(g).lower() for g in got] == [
        str(U), str(U), str(uuid.UUID(int=5)), None
    ]


@pytest.mark.fastodbc_only(reason="pyodbc fetches uuid columns as str")
@pytest.mark.parametrize(
    "value", [U, uuid.UUID(int=0), uuid.UUID(int=2**128 - 1), uuid.UUID(int=5)], ids=str
)
def test_uuid_fetch_as_uuid(backend, roundtrip, value):
    if not backend.supports_uuid:
        pytest.skip(f"{backend.name} has no uuid type")
    check(roundtrip("uuid", value), backend.fetched_uuid(value))


@pytest.mark.fastodbc_only(reason="pyodbc fetches uuid columns as str")
def test_uuid_null_and_description(db, backend, table, cnxn):
    if not backend.supports_uuid:
        pytest.skip(f"{backend.name} has no uuid type")
    t = table(f"u {backend.ddl('uuid')}")
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?)", None)
    cur.execute(f"SELECT u FROM {t}")
    assert cur.description[0][1] is type(backend.fetched_uuid(U))
    assert cur.fetchone()[0] is None


# ------------------------------------------------------------------------ several at once


def test_all_types_in_one_row(db, backend, table, cnxn):
    ddl = backend.ddl
    t = table(
        f"i {ddl('bigint')}, s {ddl('varchar(50)')}, f {ddl('float')}, "
        f"n {ddl('numeric(18,4)')}, b {ddl('bytes')}, d {ddl('date')}, "
        f"ts {ddl('timestamp')}, flag {ddl('bool')}, x {ddl('text')}"
    )
    values = (
        -(2**63),
        "Grüße 😀",
        2.5,
        Decimal("-1.5"),
        b"\x00\x01",
        datetime.date(2024, 2, 29),
        datetime.datetime(2024, 2, 29, 1, 2, 3),
        True,
        None,
    )
    cur = cnxn.cursor()
    cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", *values)
    row = cur.execute(f"SELECT i, s, f, n, b, d, ts, flag, x FROM {t}").fetchone()
    want = list(values)
    want[7] = backend.fetched_bool(True)
    if backend.numeric_is_float:
        want[3] = -1.5
    else:
        want[3] = Decimal("-1.5000")
    for got, exp in zip(row, want, strict=True):
        check(got, exp)
