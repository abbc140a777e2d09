"""Values moved through fastodbc arrive unchanged, or fastodbc says why not (issue 30): doubles
read at the driver's digits (a PrecisionWarning once per result), NaN never a silent NULL,
decimals that are large integers kept exactly, -0.0 as the database keeps it, and non-ASCII
column names whole. Each is compared with the backend's independent client (the oracle)."""

from __future__ import annotations

import decimal
import math
import random
import struct
import warnings

import pytest

from differential.oracles import oracle_for

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc's own warnings, ingest and profiles")


@pytest.fixture
def oracle(backend):
    o = oracle_for(backend)
    yield o
    o.close()


def _doubles(n: int) -> list[float]:
    """Finite doubles of every magnitude, with the full 17 digits (1/3 among them)."""
    rng = random.Random(30)
    out = [1.0 / 3, 1.4142135623730951, 0.1, -2.5e-300, 1.7976931348623157e308]
    while len(out) < n:
        v = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(v) and 1e-300 < abs(v) < 1e300:
            out.append(v)
    return out


def _precision_warnings(caught) -> list[warnings.WarningMessage]:
    import fastodbc

    return [w for w in caught if issubclass(w.category, fastodbc.PrecisionWarning)]


# --------------------------------------------------------------------------- doubles


def test_doubles_read_back_as_the_oracle_stores_them_or_warn(backend, cursor, table, oracle):
    values = _doubles(200)
    t = table(f"id {backend.ddl('int')}, f {backend.ddl('float')}")
    cursor.executemany(f"INSERT INTO {t} (id, f) VALUES (?, ?)", list(enumerate(values)))
    cursor.connection.commit()
    stored = dict(oracle.query(f"SELECT id, f FROM {t}"))
    assert [stored[i] for i in range(len(values))] == values, "the insert is exact"
    for path in ("rows", "arrow"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cursor.execute(f"SELECT id, f FROM {t} ORDER BY id")
            got = [r[1] for r in cursor.fetchall()] if path == "rows" else (
                cursor.fetch_arrow_table().column("f").to_pylist()
            )
        told = _precision_warnings(caught)
        assert got == [backend.float_roundtrip(v) for v in values], path
        if backend.float_digits >= 17:
            assert got == values and not told, path
        else:
            # Once per result, naming the column and the digits.
            assert len(told) == 1, path
            message = str(told[0].message)
            assert '"f"' in message and f"{backend.float_digits} significant digits" in message


def test_a_result_without_doubles_does_not_warn(backend, cursor):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cursor.execute("SELECT 1 AS i, 'x' AS s").fetchall()
    assert not _precision_warnings(caught)


def test_negative_zero_is_what_the_database_keeps(backend, cursor, table, oracle):
    # The sign of zero is the database's to keep: its own client reads what fastodbc reads.
    t = table(f"id {backend.ddl('int')}, f {backend.ddl('float')}")
    cursor.execute(f"INSERT INTO {t} (id, f) VALUES (1, ?)", -0.0)
    cursor.connection.commit()
    mark = oracle.placeholder
    oracle.executemany(f"INSERT INTO {t} (id, f) VALUES ({mark}, {mark})", [(2, -0.0)])
    want = -1.0 if backend.keeps_negative_zero else 1.0
    for i, f in oracle.query(f"SELECT id, f FROM {t}"):
        assert math.copysign(1.0, f) == want, i
    got = cursor.execute(f"SELECT f FROM {t} ORDER BY id").fetchall()
    assert [math.copysign(1.0, r[0]) for r in got] == [want, want]


# --------------------------------------------------------------------------- NaN


@pytest.mark.parametrize("many", [False, True], ids=["execute", "executemany"])
def test_nan_parameters_are_never_a_silent_null(db, backend, cursor, table, many):
    t = table(f"id {backend.ddl('int')}, f {backend.ddl('float')}")
    sql = f"INSERT INTO {t} (id, f) VALUES (?, ?)"

    def insert():
        if many:
            cursor.executemany(sql, [(i, math.nan if i == 70 else 1.5) for i in range(100)])
        else:
            cursor.execute(sql, 70, math.nan)

    if backend.nan_stored_as == "kept":
        insert()
        got = cursor.execute(f"SELECT f FROM {t} WHERE id = 70").fetchval()
        assert math.isnan(got)
        return
    # Where the database would store NULL, fastodbc refuses; where it refuses, its error.
    cursor.connection.rollback()
    with pytest.raises(db.DataError) as e:
        insert()
    if backend.nan_stored_as == "null":
        assert "NaN" in str(e.value) and "parameter 1" in str(e.value)


def _nan_table(pa):
    return pa.table({"id": pa.array([1, 2, 3], pa.int64()), "f": pa.array([1.5, math.nan, None], pa.float64())})


def test_ingest_nan_is_kept_or_refused_by_name(db, backend, cursor, table, oracle):
    pa = pytest.importorskip("pyarrow")
    t = table(f"id {backend.ddl('bigint')}, f {backend.ddl('float')}")
    if backend.nan_stored_as == "kept":
        cursor.ingest(t, _nan_table(pa), commit=True)
        got = dict(oracle.query(f"SELECT id, f FROM {t}"))
        assert got[1] == 1.5 and math.isnan(got[2]) and got[3] is None
        return
    with pytest.raises(db.DataError) as e:
        cursor.ingest(t, _nan_table(pa))
    assert oracle.query(f"SELECT id FROM {t}") == []
    if backend.nan_stored_as == "null":
        # fastodbc's refusal: the column, the input row and the value.
        message = str(e.value)
        assert '"f"' in message and "input row 2" in message and "NaN" in message
        assert 'nan="null"' in message


def test_ingest_nan_null_stores_null_on_every_database(db, backend, cursor, table, oracle):
    pa = pytest.importorskip("pyarrow")
    t = table(f"id {backend.ddl('bigint')}, f {backend.ddl('float')}")
    assert cursor.ingest(t, _nan_table(pa), nan="null", commit=True) == 3
    assert dict(oracle.query(f"SELECT id, f FROM {t}")) == {1: 1.5, 2: None, 3: None}
    with pytest.raises(db.ProgrammingError, match="nan must be one of"):
        cursor.ingest(t, _nan_table(pa), nan="zero")
    # NOT NULL: the NaN made NULL is refused by name, as a NULL would be.
    t2 = table(f"id {backend.ddl('bigint')}, f {backend.ddl('float')} NOT NULL", suffix="_nn")
    with pytest.raises(db.IntegrityError, match="input row 2"):
        cursor.ingest(t2, _nan_table(pa).slice(0, 2), nan="null")


# --------------------------------------------------------------------------- decimals


BIG = decimal.Decimal("123456789012345000")  # its nearest double is 123456789012344992


def _exact(v) -> decimal.Decimal:
    assert not isinstance(v, float), f"{v!r} came back a double"
    return decimal.Decimal(str(v))


def _value(v) -> decimal.Decimal:
    """A number's exact value (a double's too: SQLite's NUMERIC reads as one where it holds)."""
    return decimal.Decimal(v) if isinstance(v, float) else decimal.Decimal(str(v))


def test_ingest_integral_decimals_are_kept_exactly(backend, cursor, table, oracle):
    pa = pytest.importorskip("pyarrow")
    t = table(f"id {backend.ddl('bigint')}, n {backend.ddl('numeric(p,s)').format(p=18, s=0)}")
    # None of the large ones is a double (spaced 128 apart there).
    values = [BIG, decimal.Decimal("-900719925474099000"), decimal.Decimal("5000")]
    data = pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "n": pa.array(values, pa.decimal128(15, -3)),
    })
    cursor.ingest(t, data, commit=True)
    got = dict(oracle.query(f"SELECT id, n FROM {t}"))
    assert [_exact(got[i]) for i in (1, 2, 3)] == values
    # fastodbc reads them exactly too: rows as Decimal or int (SQLite's NUMERIC is described as
    # a double, and holds integers); Arrow as decimal128, or refused where the type is float64.
    rows = cursor.execute(f"SELECT n FROM {t} ORDER BY id").fetchall()
    assert [_value(r[0]) for r in rows] == values
    try:
        arrow = cursor.execute(f"SELECT n FROM {t} ORDER BY id").fetch_arrow_table().column("n")
    except cursor.connection.DataError as e:
        assert "can't hold it exactly" in e.args[1] and "row 1" in e.args[1]
    else:
        assert [_value(x) for x in arrow.to_pylist()] == values
    # 19 digits into NUMERIC(18, 0): kept exactly (SQLite's declared precision is no limit) or
    # refused by fastodbc, naming the input row, before the server sees it.
    wide = decimal.Decimal("-9007199254740993000")
    data = pa.table({"id": pa.array([4], pa.int64()), "n": pa.array([wide], pa.decimal128(16, -3))})
    try:
        cursor.ingest(t, data, commit=True)
    except cursor.connection.DataError as e:
        assert "input row 1" in str(e) and "9007199254740993000" in str(e)
    else:
        assert _exact(dict(oracle.query(f"SELECT id, n FROM {t}"))[4]) == wide


def test_decimal_parameters_of_large_integers_are_kept_exactly(backend, cursor, table, oracle):
    t = table(f"id {backend.ddl('bigint')}, n {backend.ddl('numeric(p,s)').format(p=18, s=0)}")
    values = [BIG, decimal.Decimal("123456789012345678")]
    cursor.execute(f"INSERT INTO {t} (id, n) VALUES (?, ?)", 1, values[0])
    cursor.executemany(f"INSERT INTO {t} (id, n) VALUES (?, ?)", [(2, values[1])] * 70)
    cursor.connection.commit()
    got = dict(oracle.query(f"SELECT id, n FROM {t}"))
    assert [_exact(got[1]), _exact(got[2])] == values


# --------------------------------------------------------------------------- column names


def _names(backend) -> list[str]:
    names = ["é", "naïve", "日本", "Ωmega_ß"]
    return names + ["x😀"] if backend.astral_in_identifiers else names


def test_non_ascii_column_names_come_back_whole(backend, cursor, table):
    names = _names(backend)
    t = table(", ".join(f"{backend.quote(n)} {backend.ddl('int')}" for n in names))
    cursor.execute(f"SELECT * FROM {t}")
    assert [d[0] for d in cursor.description] == names
    pa = pytest.importorskip("pyarrow")
    assert cursor.execute(f"SELECT * FROM {t}").fetch_arrow_table().schema.names == names
    got = [r.column_name for r in cursor.columns(table=t)]
    assert got == names
    # ingest appends by those names (it matches them against the description).
    data = pa.table({n: pa.array([i], pa.int64()) for i, n in enumerate(names)})
    assert cursor.ingest(t, data, commit=True) == 1
    assert cursor.execute(f"SELECT * FROM {t}").fetchall()[0] == tuple(range(len(names)))
