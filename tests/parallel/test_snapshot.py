"""One snapshot: where the database can share one, every partition reads the moment the plan
was made while other sessions insert, update and delete; where it cannot, asking for one is
refused and the plan says what its partitions see."""

from __future__ import annotations

import threading

import pytest

import fastodbc
from fastodbc.errors import NotSupportedError
from profiles import backends_where

from .conftest import rows, whole

SHARING = backends_where(lambda p: p.shares_snapshot)
NOT_SHARING = backends_where(lambda p: not p.shares_snapshot)


@pytest.mark.parametrize("backend", SHARING, indirect=True)
def test_partitions_read_the_planned_moment_under_concurrent_writers(backend, keyed, cnxn, connect):
    name = keyed("int", [i % 50 if i % 9 else None for i in range(600)])
    query = f"SELECT id, k, v FROM {name}"
    before = rows(whole(cnxn, query))
    stop = threading.Event()
    written = []

    def write() -> None:
        w = connect(autocommit=True)
        cur = w.cursor()
        i = 10_000
        while not stop.is_set():
            i += 1
            cur.execute(f"INSERT INTO {name} (id, k, v) VALUES (?, ?, 'new')", i, i % 70)
            cur.execute(f"UPDATE {name} SET v = 'changed', k = k + 1 WHERE id = ?", i % 600 + 1)
            cur.execute(f"DELETE FROM {name} WHERE id = ?", (i * 7) % 600 + 1)
            written.append(i)

    with fastodbc.partition(backend.connstr, query, on="k", partitions=4, snapshot=True) as plan:
        assert plan.snapshot
        assert "one snapshot" in plan.consistency
        writer = threading.Thread(target=write)
        writer.start()
        try:
            while len(written) < 20:
                stop.wait(0.01)
            got = rows(plan.read())
            again = rows(plan.read(workers=1))
        finally:
            stop.set()
            writer.join()
    assert got == before
    assert again == before
    assert rows(whole(cnxn, query)) != before  # the writers did change the table


@pytest.mark.parametrize("backend", SHARING, indirect=True)
def test_a_closed_plan_no_longer_holds_its_snapshot(backend, keyed):
    name = keyed("int", list(range(10)))
    plan = fastodbc.partition(backend.connstr, f"SELECT id, k FROM {name}", on="k", snapshot=True)
    plan.close()
    with pytest.raises(fastodbc.Error, match=r"partition \d of \d"):
        plan.read()


@pytest.mark.parametrize("backend", NOT_SHARING, indirect=True)
def test_a_shared_snapshot_is_refused_where_there_is_none(backend, keyed, cnxn):
    name = keyed("int", list(range(10)))
    query = f"SELECT id, k FROM {name}"
    with pytest.raises(NotSupportedError, match="cannot share a snapshot"):
        fastodbc.partition(backend.connstr, query, on="k", snapshot=True)
    with fastodbc.partition(backend.connstr, query, on="k") as plan:
        assert plan.snapshot is None
        assert "each partition reads" in plan.consistency
        assert rows(plan.read()) == rows(whole(cnxn, query))
