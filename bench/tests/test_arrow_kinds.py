"""bench/arrow_kinds.py: the Ir/row arithmetic, the parsing of callgrind's output, and the tables'
generators (the kinds and NULL ratios issue 33 asks for). No valgrind, no database server."""

from __future__ import annotations

import datetime as dt
import itertools
import sqlite3
from decimal import Decimal

import pytest
from bench_modules import load

ak = load("arrow_kinds")


def test_per_row_is_the_difference_of_totals_over_the_difference_of_rows() -> None:
    # 1,000,000 Ir of startup in both runs cancel: 250 Ir a row.
    assert ak.per_row((20_000, 1_000_000 + 20_000 * 250), (100_000, 1_000_000 + 100_000 * 250)) == 250
    # Either order of the two runs gives the same figure.
    assert ak.per_row((100_000, 3_000_000), (20_000, 1_000_000)) == 25
    with pytest.raises(ValueError):
        ak.per_row((10, 5), (10, 7))


def test_parse_total_reads_the_collected_line() -> None:
    stderr = "==123== Callgrind, a call-graph generating cache profiler\n==123== Collected : 1234567\n"
    assert ak.parse_total(stderr) == 1_234_567
    with pytest.raises(RuntimeError):
        ak.parse_total("==1== no totals here")


ANNOTATE = """--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
1,000,000  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir          file:function
--------------------------------------------------------------------------------
  300,000  /w/crates/fastodbc-arrow/src/values.rs:fastodbc_arrow::values::Column::append [/x/_native.so]
  100,000  ./malloc/malloc.c:_int_malloc [/usr/lib/libc.so.6]
   60,000  /w/Python/ceval.c:_PyEval_EvalFrameDefault'2 [/usr/lib/libpython3.11.so]
   40,000  /w/Python/ceval.c:_PyEval_EvalFrameDefault [/usr/lib/libpython3.11.so]
  100,000  /rustc/abc/library/core/src/option.rs:fastodbc_arrow::values::Column::append
  900,000  => /w/crates/fastodbc-core/src/link.rs:fastodbc_core::link::Link::call (29x)
"""


def test_a_kept_file_is_reused_only_when_complete(tmp_path, monkeypatch) -> None:
    done, cut = tmp_path / "done.cg", tmp_path / "cut.cg"
    done.write_text("version: 1\nevents: Ir\nfn=(1) main\n0 5\nsummary: 4242\ntotals: 4242\n")
    cut.write_text("version: 1\nevents: Ir\nfn=(1) main\n")
    assert ak.kept_total(done.read_text()) == 4242 and ak.kept_total(cut.read_text()) is None

    class Ran:
        returncode, stdout, stderr = 0, "", "==1== Collected : 99\n"

    monkeypatch.setattr(ak.subprocess, "run", lambda *a, **kw: Ran())
    assert ak.callgrind("floor", "CS", "SQL", str(done)) == 4242
    assert ak.callgrind("floor", "CS", "SQL", str(cut)) == 99


def test_parse_annotate_merges_inlined_files_and_recursion_levels() -> None:
    assert ak.parse_annotate(ANNOTATE) == {
        # The line without an object (an inlined file) belongs to the function's object.
        "fastodbc_arrow::values::Column::append [/x/_native.so]": 400_000,
        "_int_malloc [/usr/lib/libc.so.6]": 100_000,
        "_PyEval_EvalFrameDefault [/usr/lib/libpython3.11.so]": 100_000,
    }  # and a call line (=>, inclusive cost) is no function's self cost


def test_function_costs_per_row_and_by_object(monkeypatch) -> None:
    large = ANNOTATE.replace("300,000", "2,000,000").replace("100,000  ./malloc", "100,800  ./malloc")
    outputs = {"s.cg": ANNOTATE, "l.cg": large}

    class Done:
        def __init__(self, text: str) -> None:
            self.stdout = text

    monkeypatch.setattr(ak.subprocess, "run", lambda args, **kw: Done(outputs[args[-1]]))
    costs = ak.function_costs("s.cg", "l.cg", 80_000)
    assert costs[0] == ("fastodbc_arrow::values::Column::append [/x/_native.so]", 21.25)
    assert costs[1] == ("_int_malloc [/usr/lib/libc.so.6]", 0.01)
    assert ak.by_object(costs + [("f [/x/_native.so]", 0.75)])[0] == ("_native.so", 22.0)


def test_markdown_shares_and_ratio() -> None:
    result = {
        ("sqlite", "int", "floor"): 1000.0,
        ("sqlite", "int", "fastodbc"): 1300.0,
        ("sqlite", "int", "arrow-odbc"): 1200.0,
    }
    text = ak.markdown(result, ["sqlite"], ["int"], ["floor", "fastodbc", "arrow-odbc"])
    assert text.splitlines()[-1] == "| sqlite | int | 1,000 | 1,300 | 1,200 | 300 | 200 | 1.50 | 1.08 |"
    # arrow-odbc below the floor (its driver path is cheaper than the floor's plan): no share ratio.
    result[("sqlite", "int", "arrow-odbc")] = 900.0
    text = ak.markdown(result, ["sqlite"], ["int"], ["floor", "fastodbc", "arrow-odbc"])
    assert text.splitlines()[-1] == "| sqlite | int | 1,000 | 1,300 | 900 | 300 | -100 | - | 1.44 |"
    # Floors alone: no shares.
    assert (
        ak.markdown({("pg", "k", "floor-wide"): 5.0}, ["pg"], ["k"], ["floor-wide"]).splitlines()[-1]
        == "| pg | k | 5 |"
    )


def rows_of(kind: str, n: int = 2000) -> list[tuple]:
    _, gen = ak.KINDS[kind]
    return list(gen(n, 7))


def column_types(kind: str) -> set[type]:
    return {type(r[0]) for r in rows_of(kind)} - {type(None)}


def test_each_kind_gives_its_type_deterministically() -> None:
    expected = {
        "int": int,
        "bigint": int,
        "decimal": Decimal,
        "double": float,
        "date": dt.date,
        "timestamp": dt.datetime,
        "bool": bool,
        "varchar5": str,
        "int_null50": int,
    }
    for kind, t in expected.items():
        assert column_types(kind) == {t}, kind
        assert rows_of(kind, 50) == rows_of(kind, 50), kind
    assert all(-(2**31) <= r[0] < 2**31 for r in rows_of("int"))
    assert any(abs(r[0]) >= 2**31 for r in rows_of("bigint"))
    assert all(r[0].as_tuple().exponent == -2 and len(r[0].as_tuple().digits) <= 12 for r in rows_of("decimal"))
    assert all(1 <= len(r[0]) <= 5 and r[0].isascii() for r in rows_of("varchar5"))
    assert {r[0] for r in rows_of("bool")} == {True, False}
    assert all(r[0].microsecond % 1000 == 0 for r in rows_of("timestamp"))


def test_null_ratios() -> None:
    nulls = sum(r[0] is None for r in rows_of("int_null50"))
    assert nulls == 1000  # exactly every other row
    assert all(v is None for v in itertools.chain.from_iterable(rows_of("int_null50")[1::2]))
    for kind in ("int", "bigint", "decimal", "double", "date", "timestamp", "bool", "varchar5", "int10"):
        assert all(v is not None for r in rows_of(kind, 200) for v in r), kind
    mixed = rows_of("mixed")
    assert all(r[0] is not None for r in mixed)  # id
    share = sum(v is None for r in mixed for v in r[1:]) / (len(mixed) * 8)
    assert 0.08 < share < 0.12


def test_shapes_match_the_benchmark() -> None:
    assert [c[0] for c in ak.KINDS["int10"][0]] == [f"c{i}" for i in range(10)]
    assert len(ak.KINDS["mixed"][0]) == 9 and all(len(r) == 9 for r in rows_of("mixed", 20))
    assert all(len(r) == 10 for r in rows_of("int10", 20))


def test_sqlite_load_makes_the_table_once(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(ak, "SQLITE_PATH", tmp_path / "k.sqlite")
    ak.load("sqlite", "", "int_null50", 100)
    ak.load("sqlite", "", "bool", 10)
    con = sqlite3.connect(tmp_path / "k.sqlite")
    assert con.execute("SELECT count(*), count(v) FROM ak_int_null50_100").fetchone() == (100, 50)
    assert {v for (v,) in con.execute("SELECT v FROM ak_bool_10")} <= {0, 1}
    con.execute("INSERT INTO ak_int_null50_100 VALUES (1)")
    con.commit()
    ak.load("sqlite", "", "int_null50", 100)  # wrong count: reloaded
    assert con.execute("SELECT count(*) FROM ak_int_null50_100").fetchone() == (100,)


def test_commands() -> None:
    assert ak.command("floor-wide", "CS", "SELECT 1")[-2:] == ["--text", "wide"]
    assert ak.command("floor", "CS", "SELECT 1")[-3:] == ["--typed", "--text", "narrow"]
    code = ak.command("arrow-odbc", "CS", "SELECT 1")[-1]
    compile(code, "child", "exec")
    assert "read_arrow_batches" in code and "'SELECT 1'" in code
