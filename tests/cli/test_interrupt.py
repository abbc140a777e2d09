"""Ctrl-C (SIGINT) stops ``fastodbc export`` and ``import`` within seconds on every backend:
the statement is cancelled (and stops on the server), no partial output file is left, an
import rolls back, the exit code is 130."""

from __future__ import annotations

import subprocess
import time
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from profiles import backends_where

from .invocation import interrupt, start, wait_until

#: Seconds from SIGINT to the process's end, at most: SQLCancel and the worker's end, well
#: under the statement's own 30 s.
PROMPT_S = 6


def wait_running(backend, connect, marker: str, proc: subprocess.Popen) -> None:
    """Waits until the server runs the command's statement (held by ``marker``); where the
    database has no view of running statements, long enough for it to begin."""
    if backend.running_statements_sql is None:
        time.sleep(3)
        return
    admin = connect(autocommit=True)
    wait_until(lambda: proc.poll() is not None or backend.running_statements(admin, marker), 30, "statement runs")
    assert proc.poll() is None, proc.communicate()


def test_ctrl_c_cancels_a_long_query_and_leaves_no_file(backend, connect, tmp_path):
    marker = f"cli_interrupt_{uuid.uuid4().hex[:10]}"
    sql = f"SELECT * FROM ({backend.sleep(30)}) AS {marker}"
    out = tmp_path / "sleep.parquet"
    proc = start("export", backend.connstr, sql, str(out))
    wait_running(backend, connect, marker, proc)
    code, seconds, err = interrupt(proc, timeout=30)
    assert code == 130, err.decode()
    assert seconds < PROMPT_S, err.decode()
    assert b"Traceback" not in err
    assert not out.exists()
    if backend.running_statements_sql is not None:
        # The server stopped the statement (it would have slept on, its client gone).
        admin = connect(autocommit=True)
        wait_until(lambda: backend.running_statements(admin, marker) == 0, 3, "server-side statement ended")


@pytest.mark.parametrize("backend", backends_where(lambda p: p.slow_fetch), indirect=True)
def test_ctrl_c_while_writing_removes_the_partial_file(backend, tmp_path):
    # Rows come slowly (a server-side cursor computing each as it is fetched): the file is
    # being written when Ctrl-C comes.
    attributes, slow = backend.slow_fetch
    sql = f"SELECT i FROM ({backend.series(100_000)}) q WHERE {slow}"
    for fmt in ("parquet", "csv"):
        out = tmp_path / f"slow.{fmt}"
        proc = start("export", backend.connstr + attributes, sql, str(out), "--batch-rows", "50")
        wait_until(lambda out=out: out.exists() and out.stat().st_size > 0, 30, "the output is being written")
        code, seconds, err = interrupt(proc, timeout=30)
        assert code == 130, err.decode()
        assert seconds < PROMPT_S
        assert not out.exists()


def test_ctrl_c_during_an_import_blocked_in_the_database_rolls_it_back(backend, connect, table, tmp_path):
    # Another transaction holds the row id 500 (uncommitted): the import's INSERT of its own
    # id 500 waits for it, in the database, when Ctrl-C comes.
    target = table("id INTEGER PRIMARY KEY, city VARCHAR(20)", suffix="_target")
    setup = connect(autocommit=True)
    setup.cursor().execute(f"INSERT INTO {target} VALUES (-1, 'kept')")
    holder = connect()
    holder.cursor().execute(f"INSERT INTO {target} VALUES (500, 'held')")
    source = tmp_path / "ids.parquet"
    pq.write_table(pa.table({"id": pa.array(range(1_000), pa.int32()), "city": ["new"] * 1_000}), source)
    proc = start("import", backend.connstr, target, str(source), "--batch-rows", "100")
    wait_running(backend, connect, target, proc)
    code, seconds, err = interrupt(proc, timeout=30)
    assert code == 130, err.decode()
    assert seconds < PROMPT_S, err.decode()
    holder.rollback()
    rows = connect(autocommit=True).cursor().execute(f"SELECT id, city FROM {target}").fetchall()
    assert [tuple(r) for r in rows] == [(-1, "kept")]


def test_ctrl_c_during_an_import_waiting_for_its_input_rolls_it_back(backend, connect, table):
    # The input (stdin) stays open: the load waits in the CSV reader, where no cancel
    # reaches; the process ends anyway, and the database rolls back what it was sent.
    target = table("id INTEGER, city VARCHAR(20)", suffix="_target")
    connect(autocommit=True).cursor().execute(f"INSERT INTO {target} VALUES (-1, 'kept')")
    command = ["import", backend.connstr, target, "-", "--format", "csv", "--batch-rows", "100"]
    proc = start(*command, stdin=subprocess.PIPE)
    proc.stdin.write(b"id,city\n" + b"".join(b"%d,new\n" % i for i in range(5_000)))
    proc.stdin.flush()
    time.sleep(3)
    assert proc.poll() is None, proc.communicate()
    code, seconds, err = interrupt(proc, timeout=30)
    assert code == 130, err.decode()
    assert seconds < PROMPT_S, err.decode()
    rows = connect(autocommit=True).cursor().execute(f"SELECT id, city FROM {target}").fetchall()
    assert [tuple(r) for r in rows] == [(-1, "kept")]
