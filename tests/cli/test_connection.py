"""Where ``fastodbc export`` and ``import`` take their connection from: the argument (the other
tests), ``--dsn`` (a data source of odbc.ini), ``FASTODBC_CONNECTION``; none is a usage error."""

from __future__ import annotations

import re

from .conftest import COLUMNS, fetch, orders_ddl
from .invocation import run


def dsn_file(backend, path, name: str) -> None:
    """An odbc.ini at ``path`` with data source ``name`` holding the attributes of the
    backend's connection string (named as its driver reads them there)."""
    pairs = re.findall(r"\s*([^=;]+)=(\{(?:[^}]|\}\})*\}|[^;]*);?", backend.connstr)
    lines = [f"[{name}]"]
    for key, value in pairs:
        if value.startswith("{"):
            value = value[1:-1].replace("}}", "}")
        key = key.strip()
        lines.append(f"{backend.dsn_keys.get(key.lower(), key)}={value}")
    path.write_text("\n".join(lines) + "\n")


def test_connection_from_a_dsn_or_the_environment(backend, connect, table, orders, tmp_path):
    ini = tmp_path / "odbc.ini"
    dsn_file(backend, ini, "fastodbc_cli_test")
    env = {"ODBCINI": str(ini)}
    source = tmp_path / "orders.arrow"
    done = run("export", "--dsn", "fastodbc_cli_test", f"SELECT {COLUMNS} FROM {orders}", str(source), env=env)
    assert done.returncode == 0, done.stderr.decode()
    target = table(orders_ddl(backend), suffix="_target")
    done = run("import", "--dsn", "fastodbc_cli_test", target, str(source), env=env)
    assert done.returncode == 0, done.stderr.decode()
    done = run("import", target, str(source), env={"FASTODBC_CONNECTION": backend.connstr})
    assert done.returncode == 0, done.stderr.decode()
    got = fetch(connect, f"SELECT {COLUMNS} FROM {target} ORDER BY id")
    want = fetch(connect, f"SELECT {COLUMNS} FROM {orders} ORDER BY id")
    assert got.to_pylist() == [row for row in want.to_pylist() for _ in range(2)]
    # Neither: a usage error naming the ways.
    done = run("import", target, str(source), env={"FASTODBC_CONNECTION": ""})
    assert done.returncode == 2 and b"FASTODBC_CONNECTION" in done.stderr


def test_conflicting_options_are_a_usage_error(backend, table, tmp_path):
    # Both a connection string and --dsn: which was meant cannot be told; exit 2 naming both,
    # before connecting (--dsn names no data source at all). So are options the input or
    # output format has no use for.
    source = tmp_path / "t.parquet"
    target = table(suffix="_target")
    cases = [
        ["export", backend.connstr, "SELECT 1 AS x", str(tmp_path / "x.csv"), "--dsn", "nope"],
        ["import", "--dsn", "nope", backend.connstr, target, str(source)],
        ["export", backend.connstr, "SELECT 1 AS x", str(tmp_path / "x.csv"), "--compression", "zstd"],
        ["import", backend.connstr, target, str(tmp_path / "x.csv"), "--null-value", "NA", "--format", "parquet"],
    ]
    source.write_bytes(b"")
    (tmp_path / "x.csv").write_bytes(b"x\n1\n")
    wanted = [("CONNECTION", "--dsn"), ("CONNECTION", "--dsn"), ("--compression", "CSV"), ("--null-value", "parquet")]
    for command, names in zip(cases, wanted, strict=True):
        done = run(*command)
        message = done.stderr.decode()
        assert done.returncode == 2, (command, message)
        assert all(name in message for name in names), (command, message)
        assert backend.connstr not in message  # it may hold a password
