"""The planner's partitions cover every row of the query exactly once, whatever the key, the
method and the data: each plan's parallel read equals the same query read over one connection
(NULL keys included), on every backend."""

from __future__ import annotations

import datetime
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastodbc
from fastodbc.errors import NotSupportedError, ProgrammingError
from profiles import backends_where

from .conftest import KEY_KINDS, fill, generated_keys, rows, whole

ARITHMETIC = {"int", "bigint", "numeric(18,4)", "float", "date", "timestamp"}


@pytest.mark.parametrize("kind", KEY_KINDS)
def test_every_method_reads_what_one_connection_reads(backend, keyed, cnxn, kind):
    name = keyed(kind, generated_keys(kind, 300, seed=len(kind)))
    query = f"SELECT id, k, v FROM {name}"
    expected = rows(whole(cnxn, query))
    methods = ["auto", "quantiles", "scan"] + (["range"] if kind in ARITHMETIC else [])
    for method in methods:
        for n in (1, 3, 8):
            with fastodbc.partition(backend.connstr, query, on="k", partitions=n, method=method) as plan:
                assert plan.method in ("range", "quantiles", "scan")
                got = plan.read()
            assert got.column_names == ["id", "k", "v"]
            assert rows(got) == expected, (method, n, plan.explain())
            # The NULL keys are a partition of their own, and the others split the rest.
            assert 1 <= len(plan.partitions) <= n + 1


def test_a_key_without_arithmetic_cannot_take_equal_ranges(backend, keyed):
    name = keyed("varchar(50)", ["a", "b"])
    with pytest.raises(ProgrammingError, match="method='quantiles'"):
        fastodbc.partition(backend.connstr, f"SELECT * FROM {name}", on="k", method="range")


def test_quantiles_balance_a_skewed_key_that_ranges_cannot(backend, keyed):
    # 90% of the keys in the lowest 1% of the range: equal ranges put them in one partition.
    keys = [i % 10 for i in range(900)] + [1000 + i * 10 for i in range(100)]
    name = keyed("int", keys)
    query = f"SELECT id, k FROM {name}"
    sizes = {}
    for method in ("range", "quantiles", "scan"):
        with fastodbc.partition(backend.connstr, query, on="k", partitions=4, method=method) as plan:
            parts = range(len(plan.partitions))
            sizes[method] = [fastodbc.parallel.read_one(plan, i).num_rows for i in parts]
        assert sum(sizes[method]) == 1000
    assert max(sizes["range"]) >= 900
    # Ten distinct values hold 90% of the rows: a tile's edge falls within a value's run,
    # so a partition holds at most a tile and a run (250 + 90).
    for method in ("quantiles", "scan"):
        assert max(sizes[method]) <= 340, sizes


@pytest.mark.parametrize(
    ("keys", "parts"),
    [
        ([], 1),  # empty: one partition (key IS NOT NULL), and the NULL one without a snapshot
        ([None, None], None),  # only NULL keys
        ([5] * 20, None),  # one value
        ([5] * 20 + [None] * 3, None),
        ([1, 2, 1, 2, 3], None),  # fewer distinct values than partitions
    ],
    ids=["empty", "all-null", "one-value", "one-value-and-nulls", "few-distinct"],
)
def test_degenerate_keys(backend, keyed, cnxn, keys, parts):
    name = keyed("int", keys)
    query = f"SELECT id, k FROM {name}"
    for method in ("range", "quantiles", "scan"):
        with fastodbc.partition(backend.connstr, query, on="k", partitions=8, method=method) as plan:
            got = plan.read()
            assert rows(got) == rows(whole(cnxn, query)), plan.explain()
            # Never more key partitions than distinct keys (plus the NULL one).
            distinct = len({k for k in keys if k is not None})
            assert len(plan.partitions) <= max(distinct, 1) + 1
            assert got.schema.names == ["id", "k"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    keys=st.lists(st.one_of(st.none(), st.integers(-3, 4)), max_size=30),
    n=st.integers(1, 7),
    method=st.sampled_from(["auto", "range", "quantiles", "scan"]),
    snapshot=st.sampled_from([None, False]),
)
def test_any_keys_are_read_exactly_once(backend, table, cnxn, keys, n, method, snapshot):
    # One table for every example (the fixtures are the test's, not the example's).
    name = table.names[0] if table.names else table("id INTEGER NOT NULL, k INTEGER, v VARCHAR(20)")
    cnxn.cursor().execute(f"DELETE FROM {name}")
    fill(cnxn, name, keys)
    query = f"SELECT id, k, v FROM {name}"
    with fastodbc.partition(backend.connstr, query, on="k", partitions=n, method=method, snapshot=snapshot) as plan:
        got = plan.read(workers=2)
    assert rows(got) == rows(whole(cnxn, query)), plan.explain()
    counted = [p.rows for p in plan.partitions if p.rows is not None]
    assert sum(counted) <= len(keys)


def test_the_query_is_a_derived_table(backend, keyed, cnxn):
    # Aggregates, joins: the key is a name of the result.
    name = keyed("int", [i // 3 for i in range(40)] + [None] * 4)
    query = f"SELECT a.k AS kk, COUNT(*) AS n FROM {name} a JOIN {name} b ON a.id = b.id GROUP BY a.k"
    with fastodbc.partition(backend.connstr, query, on="kk", partitions=3) as plan:
        got = plan.read()
    assert rows(got) == rows(whole(cnxn, query))


@pytest.mark.parametrize("descending", [False, True])
def test_order_by_the_key_is_kept(backend, keyed, cnxn, descending):
    keys = generated_keys("int", 200, seed=3)
    name = keyed("int", keys)
    query = f"SELECT id, k FROM {name} ORDER BY k{' DESC' if descending else ''}, id"
    with fastodbc.partition(backend.connstr, query, on="k", partitions=4) as plan:
        assert plan.order_by
        got = plan.read()
    expected = whole(cnxn, query)
    # The database's own order, NULLs where it puts them, the partitions in key order.
    assert got.column("k").to_pylist() == expected.column("k").to_pylist()
    assert got.column("id").to_pylist() == expected.column("id").to_pylist()


def test_order_by_another_column_is_refused_or_dropped(backend, keyed, cnxn):
    name = keyed("int", generated_keys("int", 50, seed=4))
    query = f"SELECT id, k, v FROM {name} ORDER BY v"
    with pytest.raises(NotSupportedError, match="ORDER BY v"):
        fastodbc.partition(backend.connstr, query, on="k")
    with fastodbc.partition(backend.connstr, query, on="k", keep_order=False) as plan:
        assert not plan.order_by
        assert rows(plan.read()) == rows(whole(cnxn, query))


def test_explicit_bounds(backend, keyed, cnxn):
    name = keyed("int", generated_keys("int", 120, seed=5))
    query = f"SELECT id, k FROM {name}"
    with fastodbc.partition(backend.connstr, query, on="k", bounds=[-30, 0, 30]) as plan:
        assert plan.method == "bounds"
        assert [p.params for p in plan.partitions[:4]] == [(-30,), (-30, 0), (0, 30), (30,)]
        assert rows(plan.read()) == rows(whole(cnxn, query))
    for bad, message in (([3, 1], "strictly increase"), ([1, None], "None"), ([1, "a"], "one type")):
        with pytest.raises(ProgrammingError, match=message):
            fastodbc.partition(backend.connstr, query, on="k", bounds=bad)


def test_explicit_date_bounds(backend, keyed, cnxn):
    name = keyed("date", generated_keys("date", 80, seed=6))
    query = f"SELECT id, k FROM {name}"
    bounds = [datetime.date(2000, 1, 1), datetime.date(2000, 3, 1)]
    with fastodbc.partition(backend.connstr, query, on="k", bounds=bounds) as plan:
        assert rows(plan.read()) == rows(whole(cnxn, query))


def test_explicit_predicates(backend, keyed, cnxn):
    name = keyed("int", list(range(30)))
    query = f"SELECT id, k FROM {name}"
    preds = ["k < 10", "k >= 10 AND k < 25", "k >= 25 OR k IS NULL"]
    with fastodbc.partition(backend.connstr, query, predicates=preds) as plan:
        assert plan.method == "predicates"
        assert [p.predicate for p in plan.partitions] == preds
        assert rows(plan.read()) == rows(whole(cnxn, query))


def test_arguments_are_checked(backend):
    for kwargs, message in (
        ({"partitions": 0}, "positive"),
        ({"partitions": True}, "positive"),
        ({"method": "hash"}, "method must be"),
        ({"on": None}, "needs a key"),
    ):
        options = {"on": "k", **kwargs}
        with pytest.raises(ProgrammingError, match=message):
            fastodbc.partition(backend.connstr, "SELECT 1 AS k", **options)


@pytest.mark.parametrize(
    "backend", backends_where(lambda p: p.supports_nan and p.nan_stored_as == "kept"), indirect=True
)
def test_float_keys_with_nan_and_infinity(backend, keyed, cnxn):
    keys = [float(i) for i in range(-20, 20)] + [math.inf, -math.inf, math.nan, math.nan, None]
    name = keyed("float", keys)
    query = f"SELECT id, k FROM {name}"
    for method in ("auto", "range"):
        with fastodbc.partition(backend.connstr, query, on="k", partitions=4, method=method) as plan:
            # No equal ranges between infinities: the row counts split the keys instead.
            assert plan.method == "quantiles"
            assert len(plan.partitions) > 2
            got = plan.read()
        assert _same_floats(rows(got), rows(whole(cnxn, query)))


def _same_floats(a, b):
    # NaN equals NaN here: the rows are the same values.
    return len(a) == len(b) and all(
        x[0] == y[0] and (x[1] == y[1] or (x[1] != x[1] and y[1] != y[1])) for x, y in zip(a, b, strict=True)
    )


def test_one_partition_plans_no_quantiles(backend, keyed, cnxn):
    # One range needs no bounds: no sort of the key is asked of the database.
    name = keyed("int", generated_keys("int", 50, seed=15))
    query = f"SELECT id, k FROM {name}"
    with fastodbc.partition(backend.connstr, query, on="k", partitions=1) as plan:
        assert plan.method == "range"
        assert [p.predicate for p in plan.partitions] == ["k IS NOT NULL", "k IS NULL"][: len(plan.partitions)]
        assert rows(plan.read()) == rows(whole(cnxn, query))
