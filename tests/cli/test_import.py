"""``fastodbc import``, run as the installed command without a terminal, on every backend: a
table exported to Parquet, CSV or Arrow IPC and imported in each mode reads back as the
original; stdin; the column mapping; --dry-run writes nothing; bad input exits 5 and leaves
the target as it was (one transaction); the other exit codes."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from .conftest import COLUMNS, ORDERS, fetch, orders_ddl
from .files import SUFFIXES
from .invocation import run


def export(backend, orders: str, path) -> None:
    done = run("export", backend.connstr, f"SELECT {COLUMNS} FROM {orders}", str(path), "--quiet")
    assert done.returncode == 0, done.stderr.decode()


@pytest.mark.parametrize("fmt", SUFFIXES)
@pytest.mark.parametrize("mode", ["create", "append", "replace", "create_append"])
def test_import_round_trips_an_export(backend, connect, table, orders, tmp_path, fmt, mode):
    source = tmp_path / f"orders{SUFFIXES[fmt]}"
    export(backend, orders, source)
    if mode in ("append", "replace"):
        # replace: what the table held before is gone; append: the table's types are kept.
        target = table(orders_ddl(backend), suffix="_target")
        if mode == "replace":
            connect(autocommit=True).cursor().execute(f"INSERT INTO {target} VALUES (-1, 'gone', 0)")
    else:
        target = table(suffix="_target")
    times = 2 if mode == "create_append" else 1  # creates, then appends
    for _ in range(times):
        done = run("import", backend.connstr, target, str(source), "--mode", mode)
        assert done.returncode == 0, done.stderr.decode()
        assert f"{ORDERS:,} rows loaded into {target}".encode() in done.stderr
    want = fetch(connect, f"SELECT {COLUMNS} FROM {orders} ORDER BY id")
    got = fetch(connect, f"SELECT {COLUMNS} FROM {target} ORDER BY id")
    assert got.num_rows == ORDERS * times
    # create / replace make the columns from the file's Arrow types (CSV's inferred): values
    # compare equal (Decimal('1.5000') == 1.5); into the table of the same DDL, types too.
    assert got.to_pylist() == [row for row in want.to_pylist() for _ in range(times)]
    if mode == "append":
        assert got.schema == want.schema


@pytest.mark.parametrize("fmt", ["arrow", "csv"])
def test_import_from_stdin(backend, connect, table, orders, fmt):
    want = fetch(connect, f"SELECT {COLUMNS} FROM {orders} ORDER BY id")
    if fmt == "arrow":  # an Arrow IPC stream
        sink = pa.BufferOutputStream()
        with ipc.new_stream(sink, want.schema) as writer:
            writer.write_table(want, max_chunksize=700)
        data, options = sink.getvalue().to_pybytes(), []
    else:
        sql = f"SELECT {COLUMNS} FROM {orders} ORDER BY id"
        data, options = run("export", backend.connstr, sql, "-", "--format", "csv").stdout, ["--format", "csv"]
    target = table(orders_ddl(backend), suffix="_target")
    done = run("import", backend.connstr, target, "-", *options, "--batch-rows", "500", stdin=data)
    assert done.returncode == 0, done.stderr.decode()
    got = fetch(connect, f"SELECT {COLUMNS} FROM {target} ORDER BY id")
    assert got.to_pylist() == want.to_pylist()


def test_column_mapping_batches_and_commit_every(backend, connect, table, tmp_path):
    source = tmp_path / "people.parquet"
    rows = [{"ident": i, "full_name": f"name {i}", "ignored": 1.5} for i in range(3_000)]
    pq.write_table(pa.Table.from_pylist(rows), source)
    target = table("id BIGINT, name VARCHAR(30)", suffix="_target")
    done = run(
        "import", backend.connstr, target, str(source), "--column", "ident=id", "--column", "full_name=name",
        "--column", "ignored=",
        "--batch-rows", "250", "--batch-bytes", "100000", "--commit-every", "1000",
    )
    assert done.returncode == 0, done.stderr.decode()
    got = fetch(connect, f"SELECT id, name FROM {target} ORDER BY id")
    assert got.to_pylist() == [{"id": r["ident"], "name": r["full_name"]} for r in rows]


def test_column_type_gives_a_created_column_its_type(backend, connect, table, tmp_path):
    source = tmp_path / "people.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2]), "name": pa.array(["a", None])}), source)
    target = table(suffix="_target")
    done = run(
        "import", backend.connstr, target, str(source), "--mode", "create", "--column-type", "name=VARCHAR(11)",
        "--dry-run",
    )
    assert done.returncode == 0, done.stderr.decode()
    assert "VARCHAR(11)" in done.stdout.decode()
    done = run("import", backend.connstr, target, str(source), "--mode", "create", "--column-type", "name=VARCHAR(11)")
    assert done.returncode == 0, done.stderr.decode()
    cursor = connect(autocommit=True).cursor()
    cursor.execute(f"SELECT name FROM {target}")
    assert cursor.description[0][3] == 11
    # A name the input lacks: refused by name, nothing made; with --mode append: a usage error.
    other = table(suffix="_other")
    done = run("import", backend.connstr, other, str(source), "--mode", "create", "--column-type", "nope=TEXT")
    assert done.returncode == 4 and b"nope" in done.stderr, done.stderr.decode()
    done = run("import", backend.connstr, target, str(source), "--column-type", "name=TEXT")
    assert done.returncode == 2 and b"--column-type" in done.stderr, done.stderr.decode()


def test_dry_run_prints_the_plan_and_writes_nothing(backend, connect, table, orders, tmp_path):
    source = tmp_path / "orders.parquet"
    export(backend, orders, source)
    missing = table(suffix="_new")
    done = run("import", backend.connstr, missing, str(source), "--mode", "create", "--dry-run")
    assert done.returncode == 0, done.stderr.decode()
    plan = done.stdout.decode()
    assert "CREATE TABLE" in plan.upper() and missing in plan
    for column in ("id", "city", "amount"):
        assert column in plan
    # Nothing was created.
    check = run("export", backend.connstr, f"SELECT * FROM {missing}", str(tmp_path / "x.csv"), "--quiet")
    assert check.returncode == 4
    # Appending: the plan, and the table as it was.
    existing = table(orders_ddl(backend), suffix="_existing")
    done = run("import", backend.connstr, existing, str(source), "--dry-run")
    assert done.returncode == 0, done.stderr.decode()
    assert "amount" in done.stdout.decode()
    assert fetch(connect, f"SELECT COUNT(*) AS n FROM {existing}").column(0).to_pylist() == [0]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_string_into_an_integer_column_exits_5_and_changes_nothing(backend, connect, table, tmp_path, fmt):
    target = table("id INTEGER NOT NULL, city VARCHAR(20)", suffix="_target")
    connect(autocommit=True).cursor().execute(f"INSERT INTO {target} VALUES (1, 'kept')")
    bad = pa.table({"id": [f"{i}" for i in range(1_000)] + ["not a number"], "city": ["x"] * 1_001})
    source = tmp_path / f"bad{SUFFIXES[fmt]}"
    if fmt == "parquet":
        pq.write_table(bad, source)
    else:
        import pyarrow.csv as pacsv

        pacsv.write_csv(bad, source)
    done = run("import", backend.connstr, target, str(source), "--batch-rows", "100")
    assert done.returncode == 5, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    assert fetch(connect, f"SELECT id, city FROM {target}").to_pylist() == [{"id": 1, "city": "kept"}]


def test_an_error_late_in_the_load_rolls_all_of_it_back(backend, connect, table, tmp_path):
    # A NULL into a NOT NULL column at row 2,000 of 2,500: the 2,000 before it were sent.
    target = table("id INTEGER NOT NULL, city VARCHAR(20)", suffix="_target")
    ids = [i if i != 2_000 else None for i in range(2_500)]
    source = tmp_path / "late.parquet"
    pq.write_table(pa.table({"id": pa.array(ids, pa.int32()), "city": ["x"] * 2_500}), source)
    # ingest's IntegrityError, naming the column and the input row: exit 5.
    code = 5
    done = run("import", backend.connstr, target, str(source), "--batch-rows", "250")
    assert done.returncode == code, done.stderr.decode()
    assert fetch(connect, f"SELECT COUNT(*) AS n FROM {target}").column(0).to_pylist() == [0]
    # With --commit-every, what was committed before the error stays (and only that).
    done = run("import", backend.connstr, target, str(source), "--batch-rows", "250", "--commit-every", "500")
    assert done.returncode == code, done.stderr.decode()
    [kept] = fetch(connect, f"SELECT COUNT(*) AS n FROM {target}").column(0).to_pylist()
    assert 0 < kept <= 2_000


def test_import_exit_codes(backend, connect, table, orders, tmp_path):
    source = tmp_path / "orders.parquet"
    export(backend, orders, source)
    missing = table(suffix="_missing")
    cases = {
        2: [
            ["import", backend.connstr, missing, str(tmp_path / "no-such-file.parquet")],
            ["import", backend.connstr, missing, str(tmp_path / "orders.unknown")],
            ["import", backend.connstr, missing, str(source), "--column", "no-equals-sign"],
            ["import", backend.connstr, missing, str(source), "--mode", "upsert"],
            ["import", missing],
        ],
        3: [["import", backend.unreachable_connstr, missing, str(source)]],
        4: [["import", backend.connstr, missing, str(source), "--mode", "append"]],
    }
    for code, commands in cases.items():
        for command in commands:
            done = run(*command)
            assert done.returncode == code, (command, done.stderr.decode())
            assert b"Traceback" not in done.stderr
    # Not Parquet at all: the input's data.
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"not parquet" * 100)
    done = run("import", backend.connstr, missing, str(garbage), "--mode", "create")
    assert done.returncode == 5, done.stderr.decode()



@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_csv_columns_read_as_the_table_columns_of_another_case(backend, connect, table, tmp_path, stdin):
    # The header's names differ from the table's in case only: matched as ingest matches them,
    # each CSV column is read as its table column's type, so digits stay text ('007', not 7)
    # and amounts stay decimals.
    target = table(f"id INTEGER, code VARCHAR(10), amount {backend.ddl('numeric(18,4)')}", suffix="_target")
    data = b'ID,Code,AMOUNT\n1,007,1.2500\n2,0100,2\n3,,0.0001\n'
    source = tmp_path / "codes.csv"
    source.write_bytes(data)
    if stdin:
        done = run("import", backend.connstr, target, "-", "--format", "csv", stdin=data)
    else:
        done = run("import", backend.connstr, target, str(source))
    assert done.returncode == 0, done.stderr.decode()
    got = fetch(connect, f"SELECT id, code, amount FROM {target} ORDER BY id").to_pylist()
    assert [(r["id"], r["code"]) for r in got] == [(1, "007"), (2, "0100"), (3, None)]
    assert [float(r["amount"]) for r in got] == [1.25, 2.0, 0.0001]
