"""A plan is plain data: JSON and pickle round trips read the same rows, a pickled plan opens
its own connection in another process, explain() shows each partition's SQL, and neither
repr nor explain shows the connection string."""

from __future__ import annotations

import multiprocessing
import pickle

import fastodbc
from fastodbc.parallel import Plan, read_one

from .conftest import generated_keys, rows, whole


def _read_in_child(payload: bytes, index: int, out) -> None:
    plan = pickle.loads(payload)
    table = read_one(plan, index)
    out.put(pickle.dumps(table))


def test_json_and_pickle_round_trips(backend, keyed, cnxn):
    name = keyed("timestamp", generated_keys("timestamp", 90, seed=7))
    query = f"SELECT id, k, v FROM {name}"
    with fastodbc.partition(backend.connstr, query, on="k", partitions=3) as plan:
        again = Plan.from_json(plan.to_json())
        assert again == plan
        assert pickle.loads(pickle.dumps(plan)) == plan
        assert rows(again.read()) == rows(whole(cnxn, query))
        for i in range(len(plan.partitions)):
            assert again.sql(i) == plan.sql(i)


def test_a_pickled_plan_reads_in_another_process(backend, keyed, cnxn):
    name = keyed("numeric(18,4)", generated_keys("numeric(18,4)", 60, seed=8))
    query = f"SELECT id, k FROM {name}"
    plan = fastodbc.partition(backend.connstr, query, on="k", partitions=2, snapshot=False)
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    parts = []
    for i in range(len(plan.partitions)):
        child = ctx.Process(target=_read_in_child, args=(pickle.dumps(plan), i, out))
        child.start()
        parts.append(pickle.loads(out.get(timeout=60)))
        child.join(30)
        assert child.exitcode == 0
    got = [r for t in parts for r in rows(t)]
    assert sorted(got, key=lambda r: r[0]) == rows(whole(cnxn, query))


def test_explain_shows_every_partition(backend, keyed):
    name = keyed("int", list(range(10)) + [None])
    with fastodbc.partition(backend.connstr, f"SELECT id, k FROM {name}", on="k", partitions=2) as plan:
        text = plan.explain()
    assert "consistency:" in text
    assert text.count("SELECT id, k FROM") == 1 + len(plan.partitions)
    assert "k IS NULL" in text
    assert "?" not in text.split("consistency")[1]  # parameters shown in place


def test_the_connection_string_stays_out_of_repr_and_explain(backend, keyed):
    name = keyed("int", [1, 2, 3])
    with fastodbc.partition(backend.connstr, f"SELECT id, k FROM {name}", on="k") as plan:
        for text in (repr(plan), plan.explain()):
            assert backend.connstr not in text


def test_projection_reads_only_the_named_columns(backend, keyed, cnxn):
    name = keyed("int", generated_keys("int", 40, seed=9))
    query = f"SELECT id, k, v FROM {name}"
    with fastodbc.partition(backend.connstr, query, on="k", partitions=3) as plan:
        got = plan.project(["v", "id"]).read()
    assert got.column_names == ["v", "id"]
    expected = whole(cnxn, f"SELECT v, id FROM {name}")
    assert sorted(got.to_pylist(), key=lambda r: r["id"]) == sorted(expected.to_pylist(), key=lambda r: r["id"])
