"""The partitioned read cases: bench/report_parallel.py's verdicts and tables on runs made up case by
case, the cases and their selection (bench/partitioning.py), the CPU time read from /proc and the
peers' URIs (bench/worker_parallel.py), and every read and load peer run once, tiny, on SQLite."""

from __future__ import annotations

import importlib.util
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from bench_modules import load

run = load("run")
report = load("report")
partitioning = run.partitioning
par_report = report.report_parallel
worker_parallel = load("worker_parallel")

ONE, FX_DASK = partitioning.ONE, partitioning.FASTODBC_DASK


def peer(seconds: float | None, rows: int = 1000, **metrics: float) -> dict:
    if seconds is None:
        return {"reps": [{"error": "boom"}], "n_ok": 0, "error": "boom"}
    return {"median_s": seconds, "min_s": seconds, "rows": rows, "error": None, "n_ok": 1, "metrics": metrics}


def read_case(backend: str, one: float, plans: dict[int, tuple[float, float, float]], **others: float) -> dict:
    """``plans``: N -> (time, client CPU, server CPU); one connection: (one, 1.0, 0.5) CPU."""
    results = {ONE: peer(one, client_cpu_s=1.0, server_cpu_s=0.5)}
    for n, (t, c, s) in plans.items():
        results[partitioning.plan_label(n)] = peer(t, client_cpu_s=c, server_cpu_s=s, total_s=t + 0.1, partitions=n)
    results.update({label: peer(t) for label, t in others.items()})
    return {
        "backend": backend,
        "dataset": "int10",
        "op": "parallel_read",
        "variant": "",
        "peers": list(results),
        "results": results,
    }


def target(results: dict, start: str) -> tuple[str, str]:
    (row,) = [(t[1], t[2]) for t in par_report.targets(results) if t[0].startswith(start)]
    return row


def test_cpu_target_judges_client_and_server_on_the_servers_only() -> None:
    good = {n: (0.5, 1.05, 0.5) for n in (1, 2, 4, 8)}
    sqlite_bad = read_case("sqlite", 1.0, {n: (0.5, 2.0, 0.0) for n in (1, 2, 4, 8)})
    runs = {"cases": [read_case("postgresql", 1.0, good), sqlite_bad]}
    figure, verdict = target(runs, "CPU per row")
    # SQLite first (bench/partitioning.py's order), shown: its engine is in the client.
    assert figure == (
        "sq int10 client 2.00/2.00/2.00, server 0.00/0.00/0.00 (shown);"
        " po int10 client 1.05/1.05/1.05, server 1.00/1.00/1.00"
    )
    assert verdict == "met"
    over = {**good, 8: (0.5, 1.0, 0.6)}  # the server's 8-partition read: 1.2x
    assert target({"cases": [read_case("mariadb", 1.0, over)]}, "CPU per row")[1] == "not met"


def test_wall_speedup_and_the_dask_peer() -> None:
    dask = "Dask read_sql_table (mysql+pyodbc), 4 partitions"
    c = read_case("mariadb", 1.5, {4: (1.0, 1.0, 0.5)}, **{FX_DASK: 1.2, dask: 4.8})
    figure, verdict = target({"cases": [c]}, "Wall time")
    assert figure.startswith("ma int10 1.50x (1.36x with the plan; CPU client 1000.00 + server 500.00 µs/row)")
    assert verdict == "met"
    figure, verdict = target({"cases": [c]}, "`fastodbc.dask.read_sql` ≥ 3x")
    assert figure == "ma int10 4.00x (plan.read 4.36x)"
    assert verdict == "met"
    # The native dialects are shown, not judged.
    pg = read_case(
        "postgresql", 1.0, {4: (0.9, 1.0, 0.5)}, **{FX_DASK: 1.0, "Dask read_sql_table (x), 4 partitions": 2}
    )
    assert target({"cases": [pg]}, "Wall time")[1] == "not met"
    assert target({"cases": [pg]}, "`fastodbc.dask.read_sql`") == (
        "po int10 2.00x (plan.read 2.00x), native driver: shown",
        "not measured",
    )


def test_tables_and_section() -> None:
    c = read_case("postgresql", 1.0, {1: (1.0, 1.0, 0.5), 4: (0.5, 1.1, 0.55)})
    c["results"][partitioning.plan_label(8)] = peer(None)
    load_case = {
        "backend": "mariadb",
        "dataset": "mixed_1000",
        "op": "parallel_to_sql",
        "peers": [partitioning.TO_SQL, partitioning.INGEST],
        "results": {partitioning.TO_SQL: peer(2.0), partitioning.INGEST: peer(1.0)},
    }
    text = "\n".join(par_report.section({"cases": [c, load_case]}))
    assert "| postgresql int10 | fastodbc plan.read, 4 partitions | 4 | 500.0 ms | 2.00x | 1.67x | 1100.00 |" in text
    assert "| postgresql int10 | fastodbc plan.read, 8 partitions | error: `boom` |" in text
    assert "| mariadb | fastodbc.dask.to_sql, 4 partitions | 2.00 s | 2.00x |" in text
    assert par_report.targets({"cases": [load_case]})[0][1] == "ma 2.00x of ingest's time"
    assert par_report.section({"cases": []}) == []


def test_cases_and_selection() -> None:
    os.environ.setdefault("FASTODBC_BENCH_PG", "Driver=x")
    os.environ.setdefault("FASTODBC_BENCH_PG_DSN", "host=h port=1 dbname=d user=u")
    os.environ.setdefault("FASTODBC_BENCH_MARIADB", "Server=h;Port=1;Database=d;User=u;Password=p")
    cases = partitioning.build_cases("quick", ["sqlite", "postgresql", "mariadb"])
    assert [(c["backend"], c["op"]) for c in cases].count(("mariadb", "parallel_read")) == 2
    assert {c["op"] for c in cases if c["backend"] == "sqlite"} == {"parallel_read"}
    # --only parallel selects the family and nothing else of run.py's cases.
    everything = run.build_cases("quick", ["sqlite"], floor=False)
    picked = [c for c in everything if "parallel" in f"{c['backend']} {c['dataset']} {c['op']}"]
    assert picked and all(c["op"] in partitioning.OPS for c in picked)
    assert run.case_reps(cases[0], 3) == partitioning.REPS["parallel_read"]
    labels = [p["label"] for p in cases[0]["peers"]]
    assert labels[:5] == [ONE] + [partitioning.plan_label(n) for n in (1, 2, 4, 8)]


def test_server_cpu_of_a_process_and_of_its_children() -> None:
    me = worker_parallel.ServerCpu({"server_pid": os.getpid()})
    a = me.sample()
    sum(range(3_000_000))
    b = me.sample()
    assert a is not None and b is not None and worker_parallel.delta(a, b) >= 0
    # A tree: the children's time, then (once reaped) the parent's cutime: nothing is lost.
    tree = worker_parallel.ServerCpu({"server_pid": os.getpid(), "server_tree": True})
    before = tree.sample()
    child = subprocess.Popen([sys.executable, "-c", "sum(range(20_000_000))"])
    child.wait()
    tree.settle(before)
    after = tree.sample()
    assert worker_parallel.delta(before, after) > 0.05
    assert worker_parallel.ServerCpu({}).sample() is None


def test_peer_uris_quote_the_password() -> None:
    maria = {"backend": "mariadb", "cs": "Driver={MariaDB};Server=h;Port=3;Database=d;User=u;Password=a/b@c"}
    assert worker_parallel.connectorx_uri(maria) == "mysql://u:a%2Fb%40c@h:3/d"
    assert worker_parallel.sqlalchemy_uri(maria).startswith("mysql+pyodbc:///?odbc_connect=Driver%3D%7BMariaDB")
    pg = {"backend": "postgresql", "pg_dsn": "host=h port=5 dbname=d user=postgres"}
    assert worker_parallel.sqlalchemy_uri(pg) == "postgresql+psycopg://postgres@h:5/d"
    lite = {"backend": "sqlite", "sqlite_path": "/x/y.sqlite"}
    assert worker_parallel.connectorx_uri(lite) == "sqlite:///x/y.sqlite"
    assert worker_parallel.sqlalchemy_uri(lite) == "sqlite:////x/y.sqlite"


@pytest.fixture
def sqlite_case(tmp_path: Path) -> dict:
    path = tmp_path / "par.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (c0 INTEGER, c1 INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(i * 7 % 1000, i) for i in range(1000)])
    con.execute("CREATE INDEX t_c0 ON t (c0)")
    con.commit()
    con.close()
    cs = f"Driver={{SQLite3}};Database={path};"
    c = {"backend": "sqlite", "cs": cs, "sqlite_path": str(path), "op": "parallel_read", "table": "t", "key": "c0"}
    return dict(c, sql="SELECT * FROM t", expected_rows=1000, server_pid=None, peers=partitioning.read_peers("sqlite"))


def test_every_read_peer_runs_on_sqlite(sqlite_case: dict) -> None:
    """Each peer once, tiny (the worker's own code, in this process)."""
    for p in sqlite_case["peers"]:
        if p["peer"] == "connectorx" and importlib.util.find_spec("connectorx") is None:
            continue  # a bench requirement (bench/setup.sh), not a test one
        spec = {k: v for k, v in sqlite_case.items() if k != "peers"}
        spec.update(p)
        r = worker_parallel.measure(spec)
        assert r["rows"] == 1000 and r["seconds"] > 0, p
        assert "server_cpu_s" not in r["metrics"] and r["metrics"]["client_cpu_s"] >= 0
        if p.get("how") == "plan":
            # MariaDB and SQLite share no snapshot: the NULL partition is read too.
            assert r["metrics"]["partitions"] == p["partitions"] + 1


def test_a_wrong_row_count_is_an_error(sqlite_case: dict) -> None:
    spec = dict(sqlite_case, **partitioning.read_peers("sqlite")[0], expected_rows=999)
    spec.pop("peers")
    with pytest.raises(AssertionError, match="1000 rows, expected 999"):
        worker_parallel.measure(spec)
