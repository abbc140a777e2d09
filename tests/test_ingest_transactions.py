"""Bulk load and the caller's transaction (issue 29): ``ingest`` follows the connection's
transaction, as ADBC's ``adbc_ingest`` does. Autocommit off, the load is part of the open
transaction and commits nothing (the caller's earlier work included); an error rolls back the
load alone; a DDL that would commit the caller's work is refused. Autocommit on, the load is
a transaction of its own. A refused load keeps no lock; an exception of the caller's input is
raised unchanged; a table created by a load whose connection was lost does not stay."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from profiles import backends_where

pytestmark = pytest.mark.fastodbc_only(reason="ingest is fastodbc's")

ROWS = pa.table({"id": pa.array(range(1, 2001), pa.int32())})


def inputs(t: pa.Table) -> dict:
    """The input kinds of a load: a Table, a RecordBatchReader, an iterable of batches."""
    return {
        "table": lambda: t,
        "reader": lambda: pa.RecordBatchReader.from_batches(t.schema, t.to_batches(max_chunksize=500)),
        "batches": lambda: iter(t.to_batches(max_chunksize=500)),
    }


KINDS = ["table", "reader", "batches"]


def count(connect, name: str) -> int:
    """Rows committed in ``name`` (a connection of its own, autocommit: a fresh snapshot)."""
    return connect(autocommit=True).cursor().execute(f"SELECT COUNT(*) FROM {name}").fetchval()


def with_null_at(n: int, at: int) -> pa.Table:
    ids = list(range(1, n + 1))
    ids[at] = None
    return pa.table({"id": pa.array(ids, pa.int32())})


@pytest.mark.parametrize("kind", KINDS)
def test_a_load_commits_none_of_the_callers_work(connect, table, kind):
    cnxn = connect()
    cursor = cnxn.cursor()
    target, other = table("id INTEGER NOT NULL"), table("id INTEGER")
    cursor.execute(f"INSERT INTO {other} VALUES (1)")
    assert cursor.ingest(target, inputs(ROWS)[kind]()) == ROWS.num_rows
    assert cursor.execute(f"SELECT COUNT(*) FROM {target}").fetchval() == ROWS.num_rows
    assert count(connect, other) == 0 and count(connect, target) == 0
    cnxn.rollback()
    assert cursor.execute(f"SELECT COUNT(*) FROM {target}").fetchval() == 0
    assert cursor.execute(f"SELECT COUNT(*) FROM {other}").fetchval() == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_load_that_begins_the_transaction_is_undone_by_rollback(connect, table, kind):
    cnxn = connect()
    target = table("id INTEGER NOT NULL")
    assert cnxn.cursor().ingest(target, inputs(ROWS)[kind]()) == ROWS.num_rows
    assert count(connect, target) == 0
    cnxn.rollback()
    assert cnxn.cursor().execute(f"SELECT COUNT(*) FROM {target}").fetchval() == 0
    assert cnxn.cursor().ingest(target, inputs(ROWS)[kind]()) == ROWS.num_rows
    cnxn.commit()
    assert count(connect, target) == ROWS.num_rows


@pytest.mark.parametrize("kind", KINDS)
def test_an_error_rolls_back_the_load_alone(db, backend, connect, table, kind):
    cnxn = connect()
    cursor = cnxn.cursor()
    target, other = table("id INTEGER NOT NULL"), table("id INTEGER")
    cursor.execute(f"INSERT INTO {other} VALUES (1)")
    with pytest.raises(db.IntegrityError) as err:
        cursor.ingest(target, inputs(with_null_at(2000, 1500))[kind](), batch_rows=100)
    notes = " ".join(getattr(err.value, "__notes__", []))
    if backend.ingest_savepoint:
        assert "rolled back" in notes, notes
        assert cursor.execute(f"SELECT COUNT(*) FROM {target}").fetchval() == 0
    else:
        # No savepoint: the error says the rows sent stay in the open transaction.
        assert "still in the connection's open transaction" in notes, notes
    # The caller's work is kept, uncommitted, in the transaction that stays open.
    assert cursor.execute(f"SELECT COUNT(*) FROM {other}").fetchval() == 1
    assert count(connect, other) == 0
    if backend.ingest_savepoint:
        # The transaction goes on, whole (a driver's own savepoints, psqlODBC's, would have
        # rolled it back at its next statement had the load's broken them).
        cursor.execute(f"INSERT INTO {other} VALUES (2)")
        cursor.executemany(f"INSERT INTO {other} VALUES (?)", [(3,), (4,)])
        assert cursor.ingest(target, inputs(ROWS)[kind]()) == ROWS.num_rows
        cursor.execute(f"INSERT INTO {other} VALUES (5)")
        cnxn.commit()
        assert count(connect, other) == 5 and count(connect, target) == ROWS.num_rows
    else:
        cnxn.rollback()
        assert count(connect, other) == 0 and count(connect, target) == 0


@pytest.mark.parametrize("kind", KINDS)
def test_with_autocommit_a_load_is_a_transaction_of_its_own(db, connect, table, kind):
    cnxn = connect(autocommit=True)
    target = table("id INTEGER NOT NULL")
    with pytest.raises(db.IntegrityError):
        cnxn.cursor().ingest(target, inputs(with_null_at(2000, 1500))[kind](), batch_rows=100)
    assert cnxn.autocommit and count(connect, target) == 0
    assert cnxn.cursor().ingest(target, inputs(ROWS)[kind]()) == ROWS.num_rows
    assert cnxn.autocommit and count(connect, target) == ROWS.num_rows


@pytest.mark.parametrize("backend", backends_where(lambda p: p.ingest_savepoint and not p.ddl_commits), indirect=True)
@pytest.mark.parametrize("mode", ["create", "replace"])
def test_a_failed_create_or_replace_in_the_callers_transaction_is_undone_alone(db, backend, connect, table, mode):
    cnxn = connect()
    cursor = cnxn.cursor()
    target, other = table("id INTEGER") if mode == "replace" else table(), table("id INTEGER")
    if mode == "replace":
        cursor.execute(f"INSERT INTO {target} VALUES (-1)")
    cursor.execute(f"INSERT INTO {other} VALUES (1)")
    bad = pa.table(with_null_at(2000, 1500).columns, schema=pa.schema([pa.field("id", pa.int32(), False)]))
    with pytest.raises(db.IntegrityError):
        cursor.ingest(target, bad, mode=mode, batch_rows=100)
    cursor.execute(f"INSERT INTO {other} VALUES (2)")
    cnxn.commit()
    assert count(connect, other) == 2
    if mode == "replace":
        assert [tuple(r) for r in cursor.execute(f"SELECT id FROM {target}").fetchall()] == [(-1,)]
    else:
        assert [r for r in cursor.tables(table=target).fetchall() if r[2] == target] == []


def test_commit_true_commits_the_callers_work_with_the_load(connect, table):
    cnxn = connect()
    cursor = cnxn.cursor()
    target, other = table("id INTEGER NOT NULL"), table("id INTEGER")
    cursor.execute(f"INSERT INTO {other} VALUES (1)")
    assert cursor.ingest(target, ROWS, commit=True) == ROWS.num_rows
    assert count(connect, target) == ROWS.num_rows and count(connect, other) == 1


def test_commit_every_with_autocommit_off_needs_commit_true(db, connect, table):
    cnxn = connect()
    target = table("id INTEGER NOT NULL")
    with pytest.raises(db.ProgrammingError, match="commit=True"):
        cnxn.cursor().ingest(target, ROWS, commit_every=100)
    assert count(connect, target) == 0


@pytest.mark.parametrize("backend", backends_where(lambda p: p.ddl_commits), indirect=True)
@pytest.mark.parametrize("mode", ["create", "replace"])
def test_ddl_that_would_commit_the_callers_work_is_refused(db, backend, connect, table, mode):
    cnxn = connect()
    cursor = cnxn.cursor()
    target = table("id INTEGER") if mode == "replace" else table()
    other = table("id INTEGER")
    cursor.execute(f"INSERT INTO {other} VALUES (1)")
    with pytest.raises(db.ProgrammingError, match="commits by itself"):
        cursor.ingest(target, ROWS, mode=mode)
    assert count(connect, other) == 0  # nothing committed behind the caller's back
    assert cursor.execute(f"SELECT COUNT(*) FROM {other}").fetchval() == 1
    cnxn.rollback()
    assert count(connect, other) == 0
    # Asked to commit, it does: the caller's work first, then the load.
    cursor.execute(f"INSERT INTO {other} VALUES (2)")
    assert cursor.ingest(target, ROWS, mode=mode, commit=True) == ROWS.num_rows
    assert count(connect, other) == 1 and count(connect, target) == ROWS.num_rows


@pytest.mark.parametrize("autocommit", [False, True])
def test_a_load_refused_for_a_missing_column_keeps_no_lock(db, backend, connect, table, autocommit):
    cnxn = connect(autocommit=autocommit)
    target = table("id INTEGER")
    with pytest.raises(db.ProgrammingError, match="no column for input columns"):
        cnxn.cursor().ingest(target, pa.table({"nope": pa.array([1], pa.int32())}))
    # Another session drops the table at once: nothing of the refused load holds a lock.
    other = connect(backend.connstr + backend.short_lock_wait, autocommit=True)
    started = time.monotonic()
    other.cursor().execute(f"DROP TABLE {target}")
    assert time.monotonic() - started < 5


class InputFailed(Exception):
    pass


@pytest.mark.parametrize("raised", [InputFailed, KeyboardInterrupt])
@pytest.mark.parametrize("autocommit", [False, True])
def test_an_exception_of_the_input_is_raised_unchanged(connect, table, raised, autocommit):
    cnxn = connect(autocommit=autocommit)
    target = table("id INTEGER NOT NULL")
    error = raised("the caller's input failed")

    def batches():
        yield from ROWS.to_batches(max_chunksize=500)[:2]
        raise error

    with pytest.raises(raised) as caught:
        cnxn.cursor().ingest(target, batches(), batch_rows=100)
    assert caught.value is error
    if not autocommit:
        cnxn.commit()
    assert count(connect, target) == 0
    assert cnxn.cursor().execute("SELECT 1").fetchval() == 1


@pytest.mark.parametrize("backend", backends_where(lambda p: p.kill_session_sql), indirect=True)
@pytest.mark.parametrize("autocommit", [False, True])
def test_a_table_created_by_a_load_whose_link_was_lost_does_not_stay(db, backend, connect, table, autocommit):
    cnxn = connect(autocommit=autocommit)
    target = table()
    session = backend.session_id(cnxn)
    cnxn.rollback()
    admin = connect(autocommit=True)

    def batches():
        first, *rest = ROWS.to_batches(max_chunksize=200)
        yield first
        backend.kill_session(admin, session)
        yield from rest

    with pytest.raises(db.Error):
        cnxn.cursor().ingest(target, batches(), mode="create", batch_rows=100)
    tables = admin.cursor().tables(table=target).fetchall()
    assert [r for r in tables if r[2] == target] == []
