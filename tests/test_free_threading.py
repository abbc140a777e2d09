"""Threads at once on shared objects (issue 34's free-threading stress): a pool shared by 8
threads, a cursor per thread, Arrow reads and ingests at once, a connection closed under a
reader, a row written while others read it, a bytearray parameter resized while it is bound.

They run in every build; `make test-ft` runs them (and the rest of the suite) on a
free-threaded CPython with the GIL off, where the interleavings are real. Each checks every
value it reads: no crash is not enough.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from fastodbc.pool import ConnectionPool
from interpreter import FREE_THREADED_BUILD


def run_threads(n: int, work: Callable[[int], Any], timeout: float = 300) -> list[Any]:
    """work(0..n-1) on n threads started together; their results in order, or the first error
    raised in the test's thread."""
    start = threading.Barrier(n)
    results: list[Any] = [None] * n
    errors: list[BaseException] = []

    def target(k: int) -> None:
        try:
            start.wait()
            results[k] = work(k)
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            errors.append(e)

    threads = [threading.Thread(target=target, args=(k,), daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a thread is still running: hung"
    if errors:
        raise errors[0]
    return results


def test_importing_fastodbc_leaves_the_gil_off() -> None:
    if not FREE_THREADED_BUILD:
        pytest.skip("a GIL build: there is no GIL to leave off")
    # A fresh interpreter without PYTHON_GIL: a module that does not declare itself free-threading
    # safe would turn the GIL back on at import (with a RuntimeWarning).
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    code = (
        "import sys, warnings; warnings.simplefilter('error');"
        "import fastodbc, fastodbc.pool, fastodbc.aio, fastodbc._native;"
        "import fastodbc.ingest, fastodbc.parallel, fastodbc.cursor;"
        "print(sys._is_gil_enabled())"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_eight_threads_share_a_pool(backend) -> None:
    n_threads, rounds, n = 8, 25, 300
    series = backend.series(n)
    with ConnectionPool(backend.connstr, min_size=2, max_size=4, timeout=120) as pool:

        def work(k: int) -> int:
            for r in range(rounds):
                m = k * 1000 + r
                with pool.connection() as cnxn:
                    rows = cnxn.cursor().execute(f"SELECT i, i * {m} FROM ({series}) q ORDER BY i").fetchall()
                assert [tuple(row) for row in rows] == [(i, i * m) for i in range(1, n + 1)]
            return rounds

        assert run_threads(n_threads, work) == [rounds] * n_threads


def test_a_cursor_per_thread_reads_its_own_rows(backend, connect) -> None:
    n = 20_000
    series = backend.series(n)
    label = backend.concat("'v'", "CAST(i AS VARCHAR(12))")
    reads = ["fetchall", "iterate", "fetchmany", "fetchone"]

    def work(k: int) -> int:
        cur = connect().cursor()
        cur.execute(f"SELECT i, i + {k}, {label} FROM ({series}) q ORDER BY i")
        read = reads[k % len(reads)]
        if read == "fetchall":
            rows = cur.fetchall()
        elif read == "iterate":
            rows = list(cur)
        elif read == "fetchmany":
            rows = [r for batch in iter(lambda: cur.fetchmany(333), []) for r in batch]
        else:
            rows = list(iter(cur.fetchone, None))
        assert [tuple(r) for r in rows] == [(i, i + k, f"v{i}") for i in range(1, n + 1)]
        # Attribute access by name reads the shared column map, built once under the race.
        assert [r.i for r in rows[:50]] == list(range(1, 51))
        return len(rows)

    assert run_threads(8, work) == [n] * 8


def test_arrow_reads_and_ingests_at_once(backend, connect, table) -> None:
    n = 5_000
    tables = [table(f"a INTEGER, b {backend.ddl('text')}", suffix=f"_{k}") for k in range(4)]
    series = backend.series(n)
    label = backend.concat("'x'", "CAST(i AS VARCHAR(12))")
    # One writer at a time where the database has one (the reads still run beside them).
    writing = threading.Lock() if not backend.concurrent_writers else contextlib.nullcontext()

    def work(k: int) -> bool:
        cur = connect(autocommit=True).cursor()
        if k % 2 == 0:
            got = cur.execute(f"SELECT i, {label} FROM ({series}) q ORDER BY i").fetch_arrow_table()
            assert got.column(0).to_pylist() == list(range(1, n + 1))
            assert got.column(1).to_pylist() == [f"x{i}" for i in range(1, n + 1)]
            batches = cur.execute(f"SELECT i FROM ({series}) q ORDER BY i").fetch_record_batch(batch_rows=700)
            assert [v for b in batches for v in b.column(0).to_pylist()] == list(range(1, n + 1))
        else:
            name = tables[k]
            data = pa.table({"a": list(range(n)), "b": [f"t{k}-{i}" for i in range(n)]})
            with writing:
                assert cur.ingest(name, data) == n
            back = cur.execute(f"SELECT a, b FROM {name} ORDER BY a").fetch_arrow_table()
            assert back.column(0).to_pylist() == list(range(n))
            assert back.column(1).to_pylist() == [f"t{k}-{i}" for i in range(n)]
        return True

    assert run_threads(4, work) == [True] * 4


def test_a_connection_closed_while_another_thread_reads_it(db, backend, connect) -> None:
    n = 200_000
    for attempt in range(3):
        cnxn = connect(autocommit=True)
        cnxn.fetch_buffer_bytes = 32 * 1024
        cur = cnxn.cursor().execute(backend.series(n))
        started = threading.Event()

        def work(k: int, cur=cur, cnxn=cnxn, started=started) -> Any:
            if k == 0:
                seen = []
                try:
                    for row in cur:
                        seen.append(row[0])
                        if len(seen) == 1_000:
                            started.set()
                except db.Error as e:
                    # What was read before the close is the result's first rows, in order.
                    assert seen == list(range(1, len(seen) + 1))
                    return e
                finally:
                    started.set()
                assert seen == list(range(1, n + 1))
                return len(seen)
            started.wait(60)
            cnxn.close()
            return None

        outcome = run_threads(2, work)[0]
        assert isinstance(outcome, db.Error | int), f"attempt {attempt}: {outcome!r}"
    # The module is still usable: a new connection reads.
    assert connect().cursor().execute("SELECT 7").fetchval() == 7


def test_a_row_written_while_others_read_it(connect) -> None:
    row = connect().cursor().execute("SELECT 1 AS a, 2 AS b, 3 AS c").fetchone()
    rounds = 20_000
    written = threading.Event()

    def work(k: int) -> int:
        if k == 0:
            # Each value is a new object: a replaced one freed at once would be read freed.
            for i in range(rounds):
                row[i % 3] = [i]
                row[(i + 1) % 3] = f"s{i}"
            written.set()
            return rounds
        reads = 0
        while not written.is_set() or reads < 1000:
            for value in (row[0], row.b, row[-1], *row, *row[0:2], tuple(row)[2]):
                assert value in (1, 2, 3) or isinstance(value, list | str), value
            hash(repr(row))
            reads += 1
        return reads

    results = run_threads(4, work)
    assert results[0] == rounds
    assert row[(rounds - 1) % 3] == [rounds - 1]
    assert row[rounds % 3] == f"s{rounds - 1}"


def test_a_bytearray_parameter_resized_while_it_is_bound(connect) -> None:
    value = bytearray(b"ab" * 512)
    stop = threading.Event()

    def work(k: int) -> int:
        if k == 0:
            for i in range(5_000):
                try:
                    if i % 2:
                        value.extend(b"cd" * 64)
                    else:
                        del value[: 64 * 2]
                except BufferError:
                    pass  # fastodbc was copying it: a resize waits its turn
            stop.set()
            return 0
        cur = connect().cursor()
        runs = 0
        while not stop.is_set() or runs < 20:
            try:
                cur.execute("SELECT ?", value)
            except BufferError:
                continue
            got = cur.fetchval()
            if isinstance(got, str):  # an untyped marker read back as text: hex (\x...) or as sent
                got = bytes.fromhex(got[2:]) if got.startswith("\\x") else got.encode("latin-1")
            # One consistent snapshot: whole "ab" / "cd" pairs, never torn or freed bytes.
            assert {bytes(got[j : j + 2]) for j in range(0, len(got), 2)} <= {b"ab", b"cd"}, got[:40]
            runs += 1
        return runs

    assert all(r >= 0 for r in run_threads(3, work))
