"""Reading a plan: batches as they arrive, an error raised with its partition named and the
other readers stopped, nothing left running after an early close."""

from __future__ import annotations

import threading

import pyarrow as pa
import pytest

import fastodbc

from .conftest import generated_keys, rows, whole


def _readers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "fastodbc-partition"]


@pytest.mark.parametrize("workers", [1, 2, None])
def test_batches_as_they_arrive(backend, keyed, cnxn, workers):
    name = keyed("float", generated_keys("float", 500, seed=10))
    query = f"SELECT id, k, v FROM {name}"
    with fastodbc.partition(backend.connstr, query, on="k", partitions=5) as plan:
        batches = list(plan.read_batches(workers=workers, batch_rows=16))
    assert all(b.num_rows <= 16 for b in batches)
    assert rows(pa.Table.from_batches(batches)) == rows(whole(cnxn, query))
    assert not _readers()


def test_an_error_names_its_partition_and_stops_the_others(backend, keyed, cnxn):
    name = keyed("int", list(range(2000)))
    query = f"SELECT id, k FROM {name}"
    preds = ["k < 1000", "no_such_column = 1", "k >= 1000"]
    with fastodbc.partition(backend.connstr, query, predicates=preds) as plan:
        with pytest.raises(fastodbc.Error, match=r"partition 1 of 3 \(no_such_column = 1\)") as caught:
            plan.read(batch_rows=8)
    # The class the database's diagnostic maps to, its SQLSTATE kept.
    assert isinstance(caught.value, getattr(fastodbc, backend.missing_table[1]))
    assert caught.value.sqlstate.startswith(backend.missing_table[0])
    assert not _readers()
    # Every reader's connection was closed: the plan reads again.
    with fastodbc.partition(backend.connstr, query, predicates=[preds[0], preds[2]]) as plan:
        assert rows(plan.read()) == rows(whole(cnxn, query))


def test_closing_the_stream_early_stops_the_readers(backend, keyed):
    name = keyed("int", list(range(3000)))
    with fastodbc.partition(backend.connstr, f"SELECT id, k FROM {name}", on="k", partitions=4) as plan:
        stream = plan.read_batches(batch_rows=10)
        first = next(stream)
        assert first.num_rows == 10
        stream.close()
    assert not _readers()


def test_read_one_reads_one_partition(backend, keyed, cnxn):
    name = keyed("int", list(range(100)) + [None] * 5)
    query = f"SELECT id, k FROM {name}"
    with fastodbc.partition(backend.connstr, query, on="k", partitions=3) as plan:
        parts = [fastodbc.parallel.read_one(plan, i) for i in range(len(plan.partitions))]
    nulls = [t for t in parts if t.column("k").null_count]
    assert len(nulls) == 1 and nulls[0].num_rows == 5
    assert rows(pa.concat_tables(parts)) == rows(whole(cnxn, query))
