"""Ctrl-C (SIGINT) stops ``fastodbc export`` and ``import`` within seconds on every backend:
the statement is cancelled (and stops on the server), no partial output file is left, an
import rolls back, the exit code is 130."""

from __future__ import annotations

import subprocess
import threading
import time
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from profiles import backends_where

from .files import parts, read
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
        wait_until(lambda out=out: being_written(out), 30, "the output is being written")
        code, seconds, err = interrupt(proc, timeout=30)
        assert code == 130, err.decode()
        assert seconds < PROMPT_S
        assert list(tmp_path.iterdir()) == []  # neither the output nor its temporary file


def being_written(out) -> bool:
    """The export writes ``out`` (under its temporary name, beside it)."""
    return any(p.stat().st_size > 0 for p in out.parent.glob(f".{out.stem}*.partial"))


@pytest.mark.parametrize("backend", backends_where(lambda p: p.slow_fetch), indirect=True)
@pytest.mark.parametrize("fmt", ["parquet", "csv", "arrow"])
@pytest.mark.parametrize("split", [False, True])
def test_an_export_killed_while_writing_leaves_no_unreadable_output(backend, tmp_path, fmt, split):
    # SIGKILL: nothing of the process runs after it. What stands under OUTPUT's name (or its
    # parts' names) is whole, never a file cut mid-write: the file being written has a
    # temporary name until it is complete.
    attributes, slow = backend.slow_fetch
    sql = f"SELECT i FROM ({backend.series(100_000)}) q WHERE {slow}"
    out = tmp_path / f"slow.{fmt}"
    extra = ["--rows-per-file", "100"] if split else []
    proc = start("export", backend.connstr + attributes, sql, str(out), "--batch-rows", "50", *extra)
    wait_until(lambda: (parts(out) if split else True) and being_written(out), 30, "the output is being written")
    proc.kill()
    proc.wait(30)
    for stream in (proc.stdout, proc.stderr):
        stream.close()
    assert not out.exists()
    for part in parts(out):
        assert read(part, pa.schema([("i", pa.int32())])).num_rows == 100, part


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


@pytest.mark.parametrize("mode", ["create", "create_append"])
def test_ctrl_c_during_an_import_that_created_its_table_leaves_no_table(backend, connect, table, mode):
    # The load created the table, sent rows, and waits for more input (stdin stays open) when
    # Ctrl-C comes: the process ends with the worker stuck; no table is left, also where the
    # CREATE committed by itself.
    target = table(suffix="_created")
    command = ["import", backend.connstr, target, "-", "--format", "csv", "--batch-rows", "100", "--mode", mode]
    proc = start(*command, stdin=subprocess.PIPE)
    # More than the CSV reader's first block (it waits for a whole one): the load begins.
    rows = b"id,city\n" + b"".join(b"%d,new\n" % i for i in range(400_000))
    threading.Thread(target=lambda: (proc.stdin.write(rows), proc.stdin.flush()), daemon=True).start()
    admin = connect(autocommit=True)

    def listed() -> bool:
        return bool([r for r in admin.cursor().tables(table=target).fetchall() if r[2] == target])

    if backend.ddl_commits:
        wait_until(lambda: proc.poll() is not None or listed(), 30, f"{target} created")
        time.sleep(1)
    else:
        time.sleep(6)  # the CREATE is in the load's transaction: no other session sees it
    assert proc.poll() is None, proc.communicate()
    code, seconds, err = interrupt(proc, timeout=30)
    assert code == 130, err.decode()
    assert seconds < PROMPT_S, err.decode()
    wait_until(lambda: not listed(), 15, f"{target} dropped")
