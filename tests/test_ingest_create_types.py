"""The tables ``create`` makes (``Cursor.ingest(mode="create")``, ``fastodbc import --mode
create``): from a result of another database (the Python API's Arrow reader, or the Parquet
file ``fastodbc export`` wrote), each column is made like its source column where the target
has a type of that kind (uuid, json, inet, arrays...), with its length and NOT NULL; the rest
by the Arrow type. Checked over every (source, target) pair of profiles, the target's catalog
and both tables' values read by independent clients (psycopg, PyMySQL, sqlite3). Then the
per-column type override, the column-name limit, negative-scale decimals."""

from __future__ import annotations

import datetime
import decimal
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from differential.oracles import oracle_for
from profiles import BACKENDS, BY_NAME

pytestmark = pytest.mark.fastodbc_only(reason="ingest is fastodbc's")

UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def column_of(kind: str) -> str:
    return "c_" + re.sub(r"[^0-9a-z]+", "_", kind).strip("_")


def _bound(name: str, tmp: Path):
    tmp.mkdir(parents=True, exist_ok=True)
    bound = BY_NAME[name].bind(tmp)
    if bound is None:
        pytest.skip(f"{BY_NAME[name].connstr_env} is not set")
    return bound


@pytest.fixture(params=[(s, t) for s in BACKENDS for t in BACKENDS], ids=lambda p: f"{p[0]}-to-{p[1]}")
def pair(request, tmp_path):
    source, target = request.param
    return _bound(source, tmp_path / "source"), _bound(target, tmp_path / "target")


def normalised(kind: str, text):
    """A value's text as each database writes it, made comparable: JSON by its value, UUIDs
    in lower case, booleans by truth, CHAR without its padding, numbers and timestamps by
    value."""
    if text is None:
        return None
    t = str(text)
    if kind in ("json", "jsonb"):
        return json.loads(t)
    if UUID_RE.match(t):
        return t.lower()
    if kind == "bool":
        return t.lower() in ("1", "t", "true")
    if kind.startswith("char"):
        return t.rstrip(" ")
    if kind.startswith("numeric"):
        return decimal.Decimal(t)
    if kind.startswith("timestamp"):
        return datetime.datetime.fromisoformat(t)
    if kind.startswith("inet"):
        # PostgreSQL's text of an inet names the mask of a single address too.
        return re.sub(r"/(32|128)$", "", t)
    return t


def _catalog(oracle, profile, table: str) -> dict[str, tuple[str, bool]]:
    rows = oracle.query(profile.column_type_sql.format(table=table))
    return {name: (str(kind).lower(), bool(not_null)) for name, kind, not_null in rows}


def _texts(oracle, profile, table: str, kinds: list[str]) -> list[list]:
    cols = ", ".join(profile.text_cast_sql.format(column_of(k)) for k in kinds)
    rows = oracle.query(f"SELECT {cols} FROM {table} ORDER BY id")
    return [[normalised(k, v) for k, v in zip(kinds, r, strict=True)] for r in rows]


def _fastodbc():
    import fastodbc

    return fastodbc


@pytest.mark.parametrize("path", ["api", "parquet"])
def test_create_makes_columns_like_the_source_columns(pair, path, tmp_path, request):
    source, target = pair
    tag = hashlib.sha1(request.node.name.encode()).hexdigest()[:6]
    src, dst = f"t_create_src_{tag}", f"t_create_dst_{tag}"
    kinds = list(source.create_sources)
    s_oracle, t_oracle = oracle_for(source), oracle_for(target)
    fastodbc = _fastodbc()
    try:
        s_oracle.drop(src)
        t_oracle.drop(dst)
        defs = ", ".join(f"{column_of(k)} {ddl}" for k, (ddl, _) in source.create_sources.items())
        s_oracle.execute(f"CREATE TABLE {src} (id INTEGER NOT NULL, {defs})")
        values = ", ".join(lit for _, lit in source.create_sources.values())
        # A second row of NULLs where the column takes one.
        nulls = ", ".join(
            lit if "NOT NULL" in ddl else "NULL" for ddl, lit in source.create_sources.values()
        )
        s_oracle.execute(f"INSERT INTO {src} VALUES (1, {values})")
        s_oracle.execute(f"INSERT INTO {src} VALUES (2, {nulls})")
        query = f"SELECT id, {', '.join(column_of(k) for k in kinds)} FROM {src} ORDER BY id"
        if path == "api":
            with fastodbc.connect(source.connstr) as sc, fastodbc.connect(target.connstr) as tc:
                reader = sc.cursor().execute(query).fetch_record_batch()
                assert tc.cursor().ingest(dst, reader, mode="create", commit=True) == 2
        else:
            parquet = tmp_path / "source.parquet"
            for args in (
                ("export", source.connstr, query, str(parquet)),
                ("import", target.connstr, dst, str(parquet), "--mode", "create"),
            ):
                done = subprocess.run(
                    [sys.executable, "-m", "fastodbc", *args, "--quiet"], capture_output=True, timeout=120
                )
                assert done.returncode == 0, done.stderr.decode()
        catalog = _catalog(t_oracle, target, dst)
        for kind in kinds:
            carried = source.carried_as.get(kind, kind)
            ddl = source.create_sources[kind][0]
            want = (target.created_types[carried], source.reports_not_null and "NOT NULL" in ddl)
            assert catalog[column_of(kind)] == want, kind
        assert _texts(t_oracle, target, dst, kinds) == _texts(s_oracle, source, src, kinds)
    finally:
        s_oracle.drop(src)
        t_oracle.drop(dst)
        s_oracle.close()
        t_oracle.close()


def test_a_column_type_is_given_by_name(backend, cursor, table):
    name = table()
    t = pa.table({"a": pa.array(["x", None]), "b": pa.array([1, 2], pa.int64())})
    plan = cursor.ingest_plan(name, t, mode="create", column_types={"a": "VARCHAR(7)"})
    assert re.search(r"\bVARCHAR\(7\)", plan.create_sql or "")
    assert cursor.ingest(name, t, mode="create", column_types={"a": "VARCHAR(7)"}, commit=True) == 2
    oracle = oracle_for(backend)
    try:
        assert "(7)" in _catalog(oracle, backend, name)["a"][0]
    finally:
        oracle.close()


def test_a_column_type_for_a_column_the_input_lacks_is_refused(backend, db, cursor, table):
    t = pa.table({"a": pa.array([1])})
    with pytest.raises(db.ProgrammingError, match="nope"):
        cursor.ingest(table(), t, mode="create", column_types={"nope": "TEXT"})


def test_column_types_need_a_table_made(backend, db, cursor, table):
    name = table("a INTEGER")
    with pytest.raises(db.ProgrammingError, match="column_types"):
        cursor.ingest(name, pa.table({"a": pa.array([1])}), mode="append", column_types={"a": "TEXT"})


def _long_name(length: int, unit: str, stem: str) -> str:
    # A limit in bytes: two-byte characters, which a limit in characters would let through.
    if unit == "bytes":
        return stem + "é" * ((length - len(stem)) // 2) + "x" * ((length - len(stem)) % 2)
    return stem + "x" * (length - len(stem))


def test_a_column_name_past_the_limit_is_refused_by_name(backend, db, cursor, table):
    most, unit = backend.max_column_name
    name = table()
    longest = _long_name(most, unit, "a")
    too_long = _long_name(most + 1, unit, "b")
    t = pa.table({longest: pa.array([1]), too_long: pa.array([2])})
    with pytest.raises(db.ProgrammingError) as e:
        cursor.ingest(name, t, mode="create")
    assert too_long in str(e.value) and str(most) in str(e.value) and unit in str(e.value)
    assert longest not in str(e.value)
    # The longest name the database keeps is made and kept as given.
    cursor.connection.rollback()
    assert cursor.ingest(name, t.select([longest]), mode="create", commit=True) == 1
    cursor.execute(f"SELECT * FROM {name}")
    assert [d[0] for d in cursor.description] == [longest]


def test_negative_scale_decimals_get_room_for_their_zeros(backend, cursor, table):
    name = table()
    value = decimal.Decimal("123456789012345000")
    t = pa.table({"d": pa.array([value, decimal.Decimal("-5000")], pa.decimal128(15, -3))})
    plan = cursor.ingest_plan(name, t, mode="create")
    assert "(18,0)" in (plan.create_sql or "").replace(" ", "")
    assert cursor.ingest(name, t, mode="create", commit=True) == 2
    got = sorted(r[0] for r in cursor.execute(f"SELECT d FROM {name}").fetchall())
    if backend.numeric_is_float:
        # SQLite's NUMERIC keeps integers exactly (an int past a double's 2^53 reads back
        # as int): compared exactly, never as the nearest double.
        assert got == [-5000, int(value)]
    else:
        assert got == [decimal.Decimal(-5000), value]


def test_fetched_fields_say_what_their_source_columns_were(backend, cursor, table):
    name = table(f"v {backend.ddl('varchar(50)')} NOT NULL, n {backend.ddl('numeric(18,4)')}")
    schema = cursor.execute(f"SELECT v, n FROM {name}").fetch_record_batch().schema
    v = schema.field("v").metadata or {}
    assert v[b"fastodbc.sql_type"].decode().lower().startswith("varchar")
    # A length only where the database holds to it.
    assert v.get(b"fastodbc.length") == (b"50" if backend.enforces_varchar_length else None)
    assert v.get(b"fastodbc.not_null") == (b"true" if backend.reports_not_null else None)
    # The field stays nullable whatever the driver says: Arrow would refuse a NULL there.
    assert schema.field("v").nullable
    assert (schema.field("n").metadata or {}).get(b"fastodbc.sql_type")
