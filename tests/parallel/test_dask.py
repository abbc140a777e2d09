"""fastodbc.dask on a real cluster of worker processes (distributed.LocalCluster): a
partitioned read equals the single-connection read (NULL keys included) even when a worker is
killed mid-read, a column selection reaches each partition's SQL, and to_sql publishes every
partition or none."""

from __future__ import annotations

import os
import signal
import time

import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import pandas as pd  # noqa: E402
import pyarrow as pa  # noqa: E402

import fastodbc  # noqa: E402
import fastodbc.dask as fdask  # noqa: E402
from fastodbc.dask.load import _stage  # noqa: E402
from profiles import backends_where  # noqa: E402

from .conftest import generated_keys, rows, whole  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture
def auto(connect):
    """An autocommit connection for the oracle's reads: it holds no read transaction that
    would keep the workers' loads from committing (SQLite locks the file)."""
    return connect(autocommit=True)


def frame_rows(df: pd.DataFrame) -> list[tuple]:
    table = pa.Table.from_pandas(df, preserve_index=False)
    return rows(table)


def stage_tables(cnxn) -> list[str]:
    return [t.table_name for t in cnxn.cursor().tables() if t.table_name.lower().startswith("fastodbc_stage_")]


@pytest.mark.timeout(300)
def test_read_sql_equals_the_single_connection_read(backend, keyed, cnxn, auto, client):
    name = keyed("timestamp", generated_keys("timestamp", 3000, seed=11))
    query = f"SELECT id, k, v FROM {name}"
    ddf = fdask.read_sql(backend.connstr, query, on="k", npartitions=4)
    assert ddf.npartitions == 5  # four ranges and the NULL keys
    expected = whole(auto, query)
    assert list(ddf.dtypes) == [pd.ArrowDtype(f.type) for f in expected.schema]
    got = ddf.compute()
    assert frame_rows(got) == rows(expected)
    # Computed again: the same rows (the plan is data; each task opens its own connection).
    assert frame_rows(ddf.compute()) == rows(expected)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("backend", backends_where(lambda p: p.shares_snapshot), indirect=True)
def test_a_plan_with_a_snapshot_reads_one_moment_on_the_workers(backend, keyed, cnxn, auto, connect, client):
    name = keyed("int", generated_keys("int", 2000, seed=14))
    query = f"SELECT id, k, v FROM {name}"
    before = rows(whole(auto, query))
    with fastodbc.partition(backend.connstr, query, on="k", partitions=4, snapshot=True) as plan:
        writer = connect(autocommit=True).cursor()
        writer.execute(f"DELETE FROM {name} WHERE id <= 1000")
        writer.execute(f"UPDATE {name} SET v = 'changed'")
        got = fdask.from_plan(plan).compute()
    assert frame_rows(got) == before


@pytest.mark.timeout(300)
def test_a_column_selection_reaches_the_sql(backend, keyed, cnxn, auto, client):
    name = keyed("int", generated_keys("int", 200, seed=12))
    ddf = fdask.read_sql(backend.connstr, f"SELECT id, k, v FROM {name}", on="k", npartitions=3)
    picked = ddf[["v", "id"]]
    optimized = picked.optimize(fuse=False)
    # The read itself takes the columns (no read of k then a selection).
    reads = [e for e in optimized.expr.walk() if type(e).__name__.startswith("FromMap")]
    assert reads and all(sorted(e.columns) == ["id", "v"] for e in reads)
    got = picked.compute()
    assert list(got.columns) == ["v", "id"]
    expected = whole(auto, f"SELECT id, v FROM {name}")
    wanted = zip(expected.column("id").to_pylist(), expected.column("v").to_pylist(), strict=True)
    assert sorted(zip(got["id"], got["v"], strict=True)) == sorted(wanted)


@pytest.mark.timeout(300)
def test_a_worker_killed_mid_read_is_retried_and_the_result_is_exact(backend, keyed, cnxn, auto, client):
    keys = generated_keys("int", 60_000, seed=13, spread=5000)
    name = keyed("int", keys)
    query = f"SELECT id, k, v FROM {name}"
    expected = rows(whole(auto, query))
    ddf = fdask.read_sql(backend.connstr, query, on="k", npartitions=12, batch_rows=64)
    pids_before = client.run(os.getpid)
    future = client.compute(ddf)
    deadline = time.monotonic() + 60
    victim = None
    while victim is None and time.monotonic() < deadline and not future.done():
        busy = [w for w, tasks in client.processing().items() if tasks]
        if busy:
            victim = busy[0]
        else:
            time.sleep(0.005)
    assert victim is not None, "no task was running to kill"
    os.kill(pids_before[victim], signal.SIGKILL)
    got = future.result(timeout=240)
    assert frame_rows(got) == expected
    # The nanny started a new worker process in the killed one's place.
    assert pids_before[victim] not in client.run(os.getpid).values()


@pytest.mark.timeout(300)
def test_to_sql_loads_every_partition_once(backend, table, cnxn, auto, client):
    source = pd.DataFrame({"id": range(1, 2001), "v": [f"r{i}" for i in range(1, 2001)]})
    ddf = dd.from_pandas(source, npartitions=4)
    target = table("id INTEGER NOT NULL, v VARCHAR(20)")
    assert fdask.to_sql(ddf, target, backend.connstr) == 2000
    got = whole(auto, f"SELECT id, v FROM {target}")
    assert rows(got) == sorted(zip(source["id"], source["v"], strict=True))
    assert stage_tables(auto) == []
    # replace: the rows swapped in one transaction, the table kept.
    assert fdask.to_sql(ddf.head(10, npartitions=-1, compute=False), target, backend.connstr, mode="replace") == 10
    assert whole(auto, f"SELECT COUNT(*) AS n FROM {target}").column("n").to_pylist() == [10]


@pytest.mark.timeout(300)
def test_to_sql_creates_the_table(backend, table, cnxn, auto, client):
    source = pd.DataFrame({"id": pd.array(range(300), dtype="int64"), "x": [i / 4 for i in range(300)]})
    target = table()
    assert fdask.to_sql(dd.from_pandas(source, npartitions=3), target, backend.connstr, mode="create") == 300
    got = whole(auto, f"SELECT id, x FROM {target}")
    assert rows(got) == sorted(zip(source["id"], source["x"], strict=True))


def _fail_on_partition_two(df: pd.DataFrame) -> pd.DataFrame:
    if len(df) and df["id"].iloc[0] == 1001:
        raise RuntimeError("a worker's partition failed")
    return df


@pytest.mark.timeout(300)
@pytest.mark.parametrize("mode", ["append", "replace", "create"])
def test_a_failed_partition_leaves_the_target_as_it_was(backend, table, cnxn, auto, client, mode):
    source = pd.DataFrame({"id": range(1, 2001), "v": ["x"] * 2000})
    ddf = dd.from_pandas(source, npartitions=4).map_partitions(_fail_on_partition_two, meta=source.iloc[:0])
    if mode == "create":
        target = table()
    else:
        target = table("id INTEGER NOT NULL, v VARCHAR(20)")
        cnxn.cursor().execute(f"INSERT INTO {target} (id, v) VALUES (-1, 'kept')")
        cnxn.commit()
    with pytest.raises(RuntimeError, match="partition failed"):
        fdask.to_sql(ddf, target, backend.connstr, mode=mode)
    if mode == "create":
        assert not [t for t in auto.cursor().tables() if t.table_name.lower() == target.lower()]
    else:
        assert rows(whole(auto, f"SELECT id, v FROM {target}")) == [(-1, "kept")]
    assert stage_tables(auto) == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("backend", backends_where(lambda p: p.enforces_varchar_length), indirect=True)
def test_a_failed_publish_leaves_the_target_as_it_was(backend, table, cnxn, auto, client):
    # The staged rows do not fit the target (a value too long for v): the copy fails, the
    # DELETE of replace is rolled back with it.
    target = table("id INTEGER NOT NULL, v VARCHAR(3)")
    cnxn.cursor().execute(f"INSERT INTO {target} (id, v) VALUES (-1, 'old')")
    cnxn.commit()
    source = pd.DataFrame({"id": range(1, 101), "v": ["ok"] * 99 + ["far too long"]})
    with pytest.raises(fastodbc.Error):
        fdask.to_sql(dd.from_pandas(source, npartitions=2), target, backend.connstr, mode="replace")
    assert rows(whole(auto, f"SELECT id, v FROM {target}")) == [(-1, "old")]
    assert stage_tables(auto) == []


def test_a_stage_loaded_again_holds_its_rows_once(backend, table, auto):
    # What a retried task does: the same staging table, replaced whole.
    name = table()
    part = pd.DataFrame({"id": [1, 2, 3]})
    assert _stage(part, backend.connstr, name, None, None) == 3
    assert _stage(part, backend.connstr, name, None, None) == 3
    assert whole(auto, f"SELECT COUNT(*) AS n FROM {name}").column("n").to_pylist() == [3]
