"""One bad value planted in a valid load at a random input row: a text longer than its
VARCHAR(n), an integer out of SMALLINT's range, a NULL into a NOT NULL column, a NUL the
driver would cut at, a decimal with too many integer digits, nanoseconds a TIMESTAMP(6)
would cut. The load must raise the right DB-API class naming the column and the input row
(from 1), leave the table as it was (one transaction) and the connection usable."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
from typing import Any

import pyarrow as pa
from hypothesis import strategies as st

from . import compare, schema
from . import values as v
from .ingest import Case, arrow_input, rows_table
from .ingest_check import nan_option
from .ingest_values import TEXT_TYPES, Spec, int_spec, specs

# Plants a mode="create" load meets too (its columns are made from the input's types; a NULL
# in a non-nullable input field is invalid Arrow, refused as the input is read).
CREATE_PLANTS = ("fraction", "nul")


def plants(profile) -> list[str]:
    """The bad values this database's load must refuse (each where the profile says the
    column's declared limit is one)."""
    out = []
    if profile.enforces_varchar_length:
        out.append("too_long")
    if profile.int_bits.get("smallint") == 16:
        out.append("out_of_range")
    if profile.reports_not_null:  # else the driver can't say and the database refuses it
        out.append("null")
    if profile.param_nul_refused:
        out.append("nul")
    if not profile.numeric_is_float:
        out.append("digits")
    if profile.timestamp_precision < 9:
        out.append("fraction")
    return out


@dataclasses.dataclass
class BadCase:
    case: Case
    plant: str
    row: int  # 0-based input row of the bad value
    column: int  # index into case.specs
    value: Any
    error: str  # the DB-API class
    says: str  # text the message holds besides the column and the row
    prefill: int  # rows the oracle wrote first (append)

    def __repr__(self) -> str:
        return (f"BadCase({self.plant}: {compare.short(self.value)} at row {self.row} of column "
                f"{self.column}, {self.case!r}, {self.prefill} rows before)")


@st.composite
def bad_column(draw, profile, plant: str, name: str, mode: str):
    """(spec, bad value, class, text of the message) of the planted column."""
    rules = v.Rules()
    if plant == "too_long":
        n = draw(st.sampled_from([1, 5, 10, 255]))
        col = schema.Column(name, "varchar(n)", profile.ddl("varchar(n)").format(n=n), n)
        bad = draw(st.text(v.chars(rules), min_size=n + 1, max_size=n + 3))
        return Spec(col, draw(st.sampled_from(TEXT_TYPES))), bad, "DataError", f"value of {len(bad)} characters"
    if plant == "out_of_range":
        col = schema.Column(name, "smallint", profile.ddl("smallint"))
        t = draw(st.sampled_from([pa.int32(), pa.int64(), pa.uint16(), pa.uint32(), pa.uint64()]))
        spec = int_spec(profile, col, t, "append")
        lo, hi = (-(1 << (t.bit_width - 1)), (1 << (t.bit_width - 1)) - 1) if pa.types.is_signed_integer(t) \
            else (0, (1 << t.bit_width) - 1)
        bad = draw(st.one_of(st.sampled_from([x for x in (32768, -32769, lo, hi) if lo <= x <= hi and
                                              not -32768 <= x <= 32767]),
                             st.integers(32768, hi)))
        return spec, bad, "DataError", str(bad)
    if plant == "null":
        (col,) = draw(schema.columns(profile, 1))
        (spec,) = draw(specs(profile, "append", [dataclasses.replace(col, name=name)]))
        spec = dataclasses.replace(spec, col=dataclasses.replace(spec.col, ddl=spec.col.ddl + " NOT NULL"))
        return spec, None, "IntegrityError", "NULL"
    if plant == "nul":
        col = schema.Column(name, "text", profile.ddl("text"))
        bad = draw(st.text(v.chars(rules))) + "\x00" + draw(st.text(v.chars(rules)))
        return Spec(col, draw(st.sampled_from(TEXT_TYPES))), bad, "DataError", "NUL"
    if plant == "digits":
        p = draw(st.integers(1, 36))
        s = draw(st.integers(0, p - 1))
        col = schema.Column(name, "numeric(p,s)", profile.ddl("numeric(p,s)").format(p=p, s=s), p, s)
        unscaled = 10 ** p * draw(st.integers(1, 9)) + draw(st.integers(0, 10**s - 1))
        bad = decimal.Decimal(f"{draw(st.sampled_from(['', '-']))}{unscaled}E-{s}")
        return Spec(col, pa.decimal128(p + 2, s)), bad, "DataError", "more digits left of the point"
    assert plant == "fraction"
    col = schema.Column(name, "timestamp", profile.ddl("timestamp"))
    moment = draw(st.datetimes(datetime.datetime(1900, 1, 1), datetime.datetime(2200, 1, 1)))
    bad = (moment - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1) * 1000
    bad += draw(st.integers(1, 999))
    return Spec(col, pa.timestamp("ns")), bad, "DataError", "fractional second digits"


@st.composite
def bad_cases(draw, profile, budget: int) -> BadCase:
    plant = draw(st.sampled_from(plants(profile)))
    mode = draw(st.sampled_from(["append", "create"])) if plant in CREATE_PLANTS else "append"
    valid = draw(specs(profile, mode, draw(schema.columns(profile, draw(st.integers(0, 3))))))
    n_rows = draw(st.one_of(st.integers(1, 40), st.sampled_from([999, 1000, 1001, 2500])))
    batch_rows = draw(st.sampled_from([None, 1, 2, 7, 100, 1000]))
    spec, value, error, says = draw(bad_column(profile, plant, f"c{len(valid)}", mode))
    column = len(valid)
    all_specs = [*valid, spec]
    edges = [e + d for e in (batch_rows or 0, 1000) for d in (-1, 0, 1)]
    row = draw(st.one_of(st.integers(0, n_rows - 1), st.sampled_from([e for e in edges if 0 <= e < n_rows] or [0])))
    # The planted column holds no other NULL: a NOT NULL column's.
    densities = [draw(st.sampled_from([0, 10, 50])) for _ in valid] + [0]
    table = draw(rows_table(profile, all_specs, n_rows, [row], budget, densities))
    cuts = [sorted(draw(st.lists(st.integers(0, n_rows), max_size=3)))] * (len(all_specs) + 1)
    case = Case(mode, all_specs, table, draw(st.sampled_from(["table", "batches", "reader"])), cuts,
                batch_rows, None)
    prefill = min(draw(st.integers(0, 3)), n_rows) if mode == "append" else 0
    return BadCase(case, plant, row, column, value, error, says, prefill)


def exists(cnxn, name: str) -> bool:
    return any(r[2] == name for r in cnxn.cursor().tables(table=name).fetchall())


def load_refused(db, profile, oracle, name: str, bad: BadCase) -> None:
    """The load with the bad value fails as it must, and changes nothing; the same load
    without it then succeeds on the same connection."""
    case = bad.case
    cols = [None, *case.table.columns]
    oracle.drop(name)
    cnxn = db.connect(profile.connstr)
    try:
        cur = cnxn.cursor()
        if case.mode == "append":
            oracle.create(name, case.table)
            # Rows there before, loaded by a load of their own (the oracle's client refuses
            # some values its database keeps: MariaDB's largest FLOAT as PyMySQL's text).
            _, given = arrow_input(case)
            cur.ingest(name, given.slice(0, bad.prefill), commit=True, nan=nan_option(profile))
        before = oracle.select(name, cols) if case.mode == "append" else None
        data, _ = arrow_input(case, (bad.row, bad.column, bad.value))
        try:
            cur.ingest(name, data, mode=case.mode, batch_rows=case.batch_rows, nan=nan_option(profile))
        except db.Error as e:
            err = e
        else:
            raise AssertionError(f"{bad.plant}: the load of {compare.short(bad.value)} succeeded")
        message = str(err)
        column = case.specs[bad.column].col.name
        assert type(err).__name__ == bad.error, f"{type(err).__name__}, want {bad.error}: {message}"
        for text in (f'column "{column}"', f"input row {bad.row + 1}:", bad.says):
            assert text in message, f"{text!r} is not in the message: {message}"
        assert cnxn.autocommit is False, "ingest left autocommit changed"
        assert cur.execute("SELECT 1").fetchval() == 1
        cnxn.rollback()
        if case.mode == "append":
            compare.compare_rows(oracle.select(name, cols), before, cols, "the table after a refused load")
        else:
            assert not exists(cnxn, name), "the table a refused create made is still there"
        # The connection loads the valid rows after the refused ones.
        data, _ = arrow_input(case)
        options = dict(mode=case.mode, batch_rows=case.batch_rows, commit=True, nan=nan_option(profile))
        loaded = cur.ingest(name, data, **options)
        assert loaded == case.table.n_rows
        assert len(oracle.select(name, [None])) == bad.prefill + case.table.n_rows
    finally:
        cnxn.close()
