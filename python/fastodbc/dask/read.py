"""``read_sql`` and ``from_plan``: a plan's partitions as the partitions of a Dask frame, read by
``dd.from_map`` tasks that open their own connections where they run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..parallel import Plan, partition, read_one
from ..parallel.read import schema_of


def _dask() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as e:
        raise ImportError("fastodbc.dask needs dask: pip install fastodbc[dask]") from e
    return dd


def read_sql(
    connstr: str,
    query: str,
    *,
    on: str | None = None,
    npartitions: int = 4,
    method: str = "auto",
    bounds: Sequence[Any] | None = None,
    predicates: Sequence[str] | None = None,
    keep_order: bool = False,
    batch_rows: int | None = None,
    batch_bytes: int | None = None,
) -> Any:
    """``query``'s result as a ``dask.dataframe.DataFrame`` of ``npartitions`` partitions
    split on the result column ``on`` (see ``fastodbc.partition`` for ``method``, ``bounds``,
    ``predicates`` and ``keep_order``; rows whose key is NULL are one more partition).

    Each partition reads when its task runs (no transaction is held between them: a frame may
    live long). For every partition to read one moment (PostgreSQL), plan with a snapshot
    and compute while the plan holds it::

        with fastodbc.partition(connstr, query, on="id", snapshot=True) as plan:
            df = fastodbc.dask.from_plan(plan).compute()
    """
    plan = partition(
        connstr,
        query,
        on=on,
        partitions=npartitions,
        method=method,
        bounds=bounds,
        predicates=predicates,
        snapshot=False,
        keep_order=keep_order,
    )
    return from_plan(plan, batch_rows=batch_rows, batch_bytes=batch_bytes)


def from_plan(plan: Plan, *, batch_rows: int | None = None, batch_bytes: int | None = None) -> Any:
    """A ``dask.dataframe.DataFrame`` with one partition per partition of ``plan``.

    Each task reads its partition with ``fastodbc.parallel.read_one`` over a connection of its
    own where it runs (the plan's connection string travels with the graph: give one that works
    there). Columns are pandas ``ArrowDtype``s from the result's Arrow schema (a read of no
    rows), and a column selection (``ddf[["a", "b"]]``) is pushed into each partition's SQL.
    A plan holding a snapshot: compute before it is closed (after, its tasks fail).
    """
    dd = _dask()
    schema = schema_of(plan)
    return dd.from_map(
        _Partition(plan, schema, batch_rows, batch_bytes),
        range(len(plan.partitions)),
        meta=_pandas(schema.empty_table()),
        label="fastodbc-read-sql",
        enforce_metadata=False,
    )


def _pandas(table: Any) -> Any:
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


class _Partition:
    """Reads one partition of a plan as pandas (a ``from_map`` function: picklable, and
    taking ``columns``, which tells Dask it can push a projection into the read)."""

    def __init__(
        self, plan: Plan, schema: Any, batch_rows: int | None, batch_bytes: int | None, columns: Any = None
    ):
        self.plan, self.schema = plan, schema
        self.batch_rows, self.batch_bytes = batch_rows, batch_bytes
        self.columns = None if columns is None else list(columns)

    def project_columns(self, columns: Sequence[str]) -> _Partition:
        return _Partition(self.plan, self.schema, self.batch_rows, self.batch_bytes, columns)

    def __call__(self, index: int, columns: Any = None) -> Any:
        import pyarrow as pa

        wanted = columns if columns is not None else self.columns
        plan = self.plan if wanted is None else self.plan.project(list(wanted))
        table = read_one(plan, index, batch_rows=self.batch_rows, batch_bytes=self.batch_bytes)
        expected = pa.schema([self.schema.field(name) for name in table.column_names])
        if not table.schema.equals(expected):
            # A driver that describes a column by the rows it holds (SQLite's declared types,
            # a NUMERIC's scale) may type a partition unlike the frame's meta: Arrow's safe
            # cast makes it the meta's type, or raises where a value would change.
            table = table.cast(expected)
        return _pandas(table)
