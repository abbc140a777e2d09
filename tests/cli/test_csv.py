"""CSV as ``fastodbc export`` writes it and ``import`` reads it (fastodbc/csvfile.py), on every
backend, read back with the database's own client (tests/differential/oracles.py): only an
empty unquoted field is NULL (``NA``, ``null``, ``nan`` are values unless ``--null-value``
says), doubles keep NaN and the infinities, binary travels as ``\\x`` and hex digits, and a new
table's inferred types keep what the text says (decimals as decimals, quoted values and
``007`` as text)."""

from __future__ import annotations

import decimal
import io
import math

import pyarrow as pa
import pytest

from differential.oracles import oracle_for
from fastodbc import csvfile

from .invocation import run


@pytest.fixture
def oracle(backend):
    client = oracle_for(backend)
    yield client
    client.close()


def plain(rows: list[tuple]) -> list[tuple]:
    """Rows with NaN as a marker (NaN != NaN), bytes as bytes (memoryview, bytearray)."""

    def value(v):
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, (bytearray, memoryview)):
            return bytes(v)
        return v

    return [tuple(value(v) for v in row) for row in rows]


def test_the_file_format_both_ways():
    # No database: what the writer writes, and that the reader reads it back unchanged.
    t = pa.table({
        "s": ["NA", "null", "", None, "nan"],
        "d": [float("nan"), float("inf"), -float("inf"), None, 1.5],
        "b": [b"\x00\xff", b"", None, bytes([0xAB]), b"z"],
    })
    sink = io.BytesIO()
    writer = csvfile.Writer(sink, t.schema)
    for batch in t.to_batches():
        writer.write_batch(batch)
    writer.close()
    text = sink.getvalue().decode()
    assert text.splitlines() == [
        '"s","d","b"', '"NA",nan,"\\x00ff"', '"null",inf,"\\x"', '"",-inf,', ',,"\\xab"', '"nan",1.5,"\\x7a"',
    ]
    schema, batches = csvfile.open_csv(
        csvfile.Replayable(io.BytesIO(sink.getvalue())), lambda names: {"b": pa.binary()}
    )
    back = pa.Table.from_batches(list(batches), schema)
    assert plain([tuple(r.values()) for r in back.to_pylist()]) == plain([tuple(r.values()) for r in t.to_pylist()])


TOKENS = b'id,s\n1,NA\n2,null\n3,N/A\n4,nan\n5,NaN\n6,\n7,""\n8,"NA"\n'


@pytest.mark.parametrize("mode", ["append", "create"])
def test_null_tokens_are_values_unless_named(backend, table, oracle, tmp_path, mode):
    source = tmp_path / "tokens.csv"
    source.write_bytes(TOKENS)
    ddl = "id INTEGER, s VARCHAR(10)"
    target = table(ddl if mode == "append" else None, suffix="_target")
    done = run("import", backend.connstr, target, str(source), "--mode", mode)
    assert done.returncode == 0, done.stderr.decode()
    assert oracle.query(f"SELECT id, s FROM {target} ORDER BY id") == [
        (1, "NA"), (2, "null"), (3, "N/A"), (4, "nan"), (5, "NaN"), (6, None), (7, ""), (8, "NA"),
    ]
    # Named: those tokens, unquoted, are NULL too; "NA" quoted stays a value.
    named = table(ddl, suffix="_named")
    done = run("import", backend.connstr, named, str(source), "--null-value", "NA", "--null-value", "null")
    assert done.returncode == 0, done.stderr.decode()
    assert oracle.query(f"SELECT id, s FROM {named} ORDER BY id") == [
        (1, None), (2, None), (3, "N/A"), (4, "nan"), (5, "NaN"), (6, None), (7, ""), (8, "NA"),
    ]


@pytest.mark.parametrize("mode", ["append", "create"])
def test_text_and_doubles_round_trip(backend, connect, table, oracle, tmp_path, mode):
    # Text that looks like a NULL token, a number or nothing; doubles with NaN and the
    # infinities where the database keeps them.
    specials = [float("nan"), float("inf"), -float("inf")] if backend.nan_stored_as == "kept" else []
    doubles = [*specials, 1.5, -0.25, None, 1e300, 0.1]
    texts = ["NA", "null", "nan", "N/A", "", None, "007", "1.50"]
    codes = ["007", "0100", "nan", "1e5", "", None, "42", "-0"]  # all text, quoted in the file
    rows = [(i, texts[i % len(texts)], codes[i % len(codes)], doubles[i % len(doubles)]) for i in range(40)]
    ddl = f"id INTEGER, s VARCHAR(10), c VARCHAR(10), d {backend.ddl('float')}"
    source_table = table(ddl)
    cnxn = connect()
    cnxn.cursor().executemany(f"INSERT INTO {source_table} VALUES (?, ?, ?, ?)", rows)
    cnxn.commit()
    path = tmp_path / "rows.csv"
    done = run("export", backend.connstr, f"SELECT id, s, c, d FROM {source_table}", str(path), "--quiet")
    assert done.returncode == 0, done.stderr.decode()
    target = table(ddl if mode == "append" else None, suffix="_target")
    done = run("import", backend.connstr, target, str(path), "--mode", mode)
    assert done.returncode == 0, done.stderr.decode()
    got = oracle.query(f"SELECT id, s, c, d FROM {target} ORDER BY id")
    assert plain(got) == plain(oracle.query(f"SELECT id, s, c, d FROM {source_table} ORDER BY id"))
    assert plain(got) == plain(rows)


def test_decimal_text_into_a_new_table_keeps_its_digits(backend, table, oracle, tmp_path):
    source = tmp_path / "money.csv"
    source.write_bytes(
        b"id,amount,price,ratio,code\n"
        b"1,12345678901234567890.123456789,1.50,1e5,007\n"
        b"2,-0.000000001,2.25,1.5E-3,0100\n"
        b"3,,0,,\n"
    )
    target = table(suffix="_target")
    done = run("import", backend.connstr, target, str(source), "--mode", "create", "--dry-run")
    assert done.returncode == 0, done.stderr.decode()
    plan = done.stdout.decode()
    assert "decimal128(29, 9)" in plan and "decimal128(3, 2)" in plan, plan
    done = run("import", backend.connstr, target, str(source), "--mode", "create")
    if backend.numeric_is_float:
        # NUMERIC keeps a double (SQLite): the 29 digits are refused by name, not rounded.
        assert done.returncode == 5, done.stderr.decode()
        assert "amount" in done.stderr.decode() and "input row 1" in done.stderr.decode()
        return
    assert done.returncode == 0, done.stderr.decode()
    got = oracle.query(f"SELECT id, amount, price, ratio, code FROM {target} ORDER BY id")
    D = decimal.Decimal
    want = [
        (1, D("12345678901234567890.123456789"), D("1.50"), 1e5, "007"),
        (2, D("-0.000000001"), D("2.25"), 1.5e-3, "0100"),
        (3, None, D("0"), None, None),
    ]
    # Decimals compare by value (a database may give back more or fewer trailing zeros).
    by_value = [tuple(D(str(v)) if i in (1, 2) and v is not None else v for i, v in enumerate(row)) for row in got]
    assert by_value == want


def test_binary_round_trips_as_hex(backend, connect, table, oracle, tmp_path):
    values = [b"\x00\xff", b"", None, bytes(range(256)), "é".encode(), b"\\x41"]
    ddl = f"id INTEGER, b {backend.ddl('bytes')}"
    source_table = table(ddl)
    cnxn = connect()
    cnxn.cursor().executemany(f"INSERT INTO {source_table} VALUES (?, ?)", list(enumerate(values)))
    cnxn.commit()
    path = tmp_path / "bytes.csv"
    done = run("export", backend.connstr, f"SELECT id, b FROM {source_table} ORDER BY id", str(path), "--quiet")
    assert done.returncode == 0, done.stderr.decode()
    lines = path.read_text().splitlines()
    assert lines[:4] == ['"id","b"', '0,"\\x00ff"', '1,"\\x"', "2,"], lines
    target = table(ddl, suffix="_target")
    done = run("import", backend.connstr, target, str(path))
    assert done.returncode == 0, done.stderr.decode()
    assert plain(oracle.query(f"SELECT id, b FROM {target} ORDER BY id")) == list(enumerate(values))


def test_malformed_hex_into_a_binary_column_is_refused_by_name(backend, table, oracle, tmp_path):
    target = table(f"id INTEGER, b {backend.ddl('bytes')}", suffix="_target")
    source = tmp_path / "bad.csv"
    source.write_bytes(b"id,b\n1,\\x00\n2,\\x0\n3,\\x01\n")
    done = run("import", backend.connstr, target, str(source))
    assert done.returncode == 5, done.stderr.decode()
    message = done.stderr.decode()
    assert "'b'" in message and "input row 2" in message and "\\\\x0" in message, message
    assert b"Traceback" not in done.stderr
    assert oracle.query(f"SELECT COUNT(*) FROM {target}") == [(0,)]


def test_small_decimals_travel_as_decimals(backend, connect, table, oracle, tmp_path):
    # pyarrow writes a decimal under 1e-6 as 1E-9 (an uppercase E): still a decimal of the
    # digits it says on the way back, never a double.
    D = decimal.Decimal
    values = [D("0.000000001"), D("0"), D("-0.0000001"), D("123.5"), None, D("0.000123456")]
    ddl = f"id INTEGER, n {backend.ddl('numeric(p,s)').format(p=18, s=9)}"
    source_table = table(ddl)
    cnxn = connect()
    cnxn.cursor().executemany(f"INSERT INTO {source_table} VALUES (?, ?)", list(enumerate(values)))
    cnxn.commit()
    path = tmp_path / "small.csv"
    done = run("export", backend.connstr, f"SELECT id, n FROM {source_table} ORDER BY id", str(path), "--quiet")
    assert done.returncode == 0, done.stderr.decode()
    target = table(suffix="_target")
    done = run("import", backend.connstr, target, str(path), "--mode", "create")
    assert done.returncode == 0, done.stderr.decode()
    got = oracle.query(f"SELECT id, n FROM {target} ORDER BY id")
    assert [(i, None if v is None else D(str(v))) for i, v in got] == list(enumerate(values))
    if not backend.numeric_is_float:
        assert all(isinstance(v, D) for _, v in got if v is not None), got


@pytest.mark.parametrize("mode", ["append", "create"])
def test_binary_into_a_new_table_or_an_old_one_is_binary(backend, connect, table, oracle, tmp_path, mode):
    # A column of nothing but \x hex text (quoted, as export writes it) is binary in a new table.
    values = [b"\x00\xff", b"", None, b"abc"]
    ddl = f"id INTEGER, b {backend.ddl('bytes')}"
    path = tmp_path / "bytes.csv"
    path.write_bytes(b'"id","b"\n0,"\\x00ff"\n1,"\\x"\n2,\n3,"\\x616263"\n')
    target = table(ddl if mode == "append" else None, suffix="_target")
    done = run("import", backend.connstr, target, str(path), "--mode", mode)
    assert done.returncode == 0, done.stderr.decode()
    assert plain(oracle.query(f"SELECT id, b FROM {target} ORDER BY id")) == list(enumerate(values))


@pytest.mark.parametrize("bad", [False, True], ids=["exact", "too_many_digits"])
def test_text_into_a_double_column_keeps_its_digits_or_is_refused(backend, table, oracle, tmp_path, bad):
    # A double's own text (17 digits) reads back as that double; text a double would round
    # is refused naming the column, input row and value, and nothing is kept.
    target = table(f"id INTEGER, d {backend.ddl('float')}", suffix="_target")
    rows = b"1,0.30000000000000004\n2,-1.5\n3,1e300\n4,\n"
    if bad:
        rows += b"5,12345678901234567890.5\n"
    path = tmp_path / "doubles.csv"
    path.write_bytes(b"id,d\n" + rows)
    done = run("import", backend.connstr, target, str(path))
    if bad:
        assert done.returncode == 5, done.stderr.decode()
        message = done.stderr.decode()
        assert "'d'" in message and "input row 5" in message and "12345678901234567890.5" in message, message
        assert oracle.query(f"SELECT COUNT(*) FROM {target}") == [(0,)]
        return
    assert done.returncode == 0, done.stderr.decode()
    got = oracle.query(f"SELECT id, d FROM {target} ORDER BY id")
    assert [(i, None if v is None else float(v)) for i, v in got] == [
        (1, 0.30000000000000004), (2, -1.5), (3, 1e300), (4, None),
    ]


def test_zoned_text_into_a_timestamp_column_arrives_as_utc(backend, table, oracle, tmp_path):
    # Instants with their UTC offset into a column without a zone: their UTC time, as an
    # Arrow zoned timestamp would be stored; never a refusal for the offset, never local time.
    import datetime

    target = table(f"id INTEGER, t {backend.ddl('timestamp')}", suffix="_target")
    path = tmp_path / "instants.csv"
    path.write_bytes(b"id,t\n1,2024-11-03 05:30:00.000000Z\n2,2000-01-01 00:00:00.500000+05:30\n3,\n")
    done = run("import", backend.connstr, target, str(path))
    assert done.returncode == 0, done.stderr.decode()
    got = oracle.query(f"SELECT id, t FROM {target} ORDER BY id")
    as_time = [(i, datetime.datetime.fromisoformat(v) if isinstance(v, str) else v) for i, v in got]
    assert as_time == [
        (1, datetime.datetime(2024, 11, 3, 5, 30)),
        (2, datetime.datetime(1999, 12, 31, 18, 30, 0, 500000)),
        (3, None),
    ]


def test_clock_text_into_a_new_table_keeps_its_type_and_microseconds():
    # pyarrow infers nanoseconds (years 1677-2262 only) or text; fastodbc reads microseconds.
    sample = (
        b"ts,zoned,t\n"
        b"0001-01-01 00:00:00.000001,2024-11-03 05:30:00.000000Z,12:34:56.500000\n"
        b"9999-12-31 23:59:59.999999,9999-12-31 20:00:00+05:30,00:00:00\n"
    )
    schema, batches = csvfile.open_csv(csvfile.Replayable(io.BytesIO(sample)))
    assert [f.type for f in schema] == [pa.timestamp("us"), pa.timestamp("us", "UTC"), pa.time64("us")]
    rows = pa.Table.from_batches(list(batches), schema).to_pylist()
    assert rows[0]["ts"].microsecond == 1 and rows[1]["ts"].year == 9999
