"""The partition plan: a query split into partitions by a key, as plain data.

Each partition reads ``SELECT * FROM (<query>) AS fastodbc_partition WHERE <predicate>``: the
query as a derived table keeps its row set whatever it holds (LIMIT, DISTINCT, GROUP BY, an
ORDER BY under a LIMIT). The predicates cover every row exactly once: the first partition
holds ``key < b1``, the last ``key >= bN``, the ones between ``b(i) <= key < b(i+1)``, and the
rows whose key is NULL a partition of their own.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Sequence
from typing import Any

from . import keys
from .databases import ReadConsistency, consistency_of
from .sqltext import OrderBy, bare_name, quote_name

#: The derived table's alias in each partition's SQL.
ALIAS = "fastodbc_partition"


@dataclasses.dataclass(frozen=True)
class Partition:
    """One partition: its predicate over the query's result (``?`` markers) and their values."""

    index: int
    predicate: str
    params: tuple[Any, ...] = ()
    #: What the planner knows of its size: rows counted at planning, or None.
    rows: int | None = None

    def describe(self) -> str:
        """The predicate with its parameters shown in place (for people, not for running)."""
        text, values = self.predicate, list(self.params)
        out = []
        for part in text.split("?"):
            out.append(part)
            if values:
                out.append(keys.sql_literal(values.pop(0)))
        return "".join(out)


@dataclasses.dataclass(frozen=True)
class Plan:
    """A partitioned read of ``query``: plain data (picklable, ``to_json``), so it can be sent
    to other processes and machines; each reader opens its own connection with ``connstr``.

    Made by ``fastodbc.partition``; read by ``read()``, ``read_batches()`` or
    ``fastodbc.partition.read_one`` (one partition, as a worker would)."""

    connstr: str
    query: str
    on: str | None
    partitions: tuple[Partition, ...]
    #: How the bounds were found: "range", "quantiles", "scan", "bounds" or "predicates".
    method: str
    #: The SQL_DBMS_NAME of the database planned on.
    dbms: str = ""
    #: The exported snapshot every partition reads, or None.
    snapshot: str | None = None
    #: What the partitions see together, in words (explain() shows it).
    consistency: str = ""
    #: Appended to each partition's SQL to keep the query's order ("" for none), and whether
    #: the partitions are read out in reverse (ORDER BY key DESC).
    order_by: str = ""
    reverse: bool = False
    #: Output columns (projected by name) or None for all.
    columns: tuple[str, ...] | None = None
    #: The database's identifier quote (for projected names).
    quote: str = '"'
    #: Keeps the exporting transaction open while readers adopt its snapshot (not data: it
    #: stays in the planning process, and ``close()`` ends it).
    _holder: Any = dataclasses.field(default=None, compare=False, repr=False)

    # ------------------------------------------------------------------ the SQL each reads
    def sql(self, index: int) -> tuple[str, tuple[Any, ...]]:
        """Partition ``index``'s statement and parameters."""
        part = self.partitions[index]
        sql = self.select_where(part.predicate)
        if self.order_by:
            sql += f" ORDER BY {self.order_by}"
        return sql, part.params

    def select_where(self, predicate: str) -> str:
        """The query's rows (its projected columns) where ``predicate`` holds."""
        select = "*" if self.columns is None else ", ".join(quote_name(c, self.quote) for c in self.columns)
        return f"SELECT {select} FROM ({self.query}) AS {ALIAS} WHERE {predicate}"

    def adopt_statements(self) -> list[str]:
        """What a reader runs (autocommit off) before its partition, to read the snapshot."""
        if self.snapshot is None:
            return []
        return consistency_of(self.dbms).adopt_statements(self.snapshot)

    def project(self, columns: Sequence[str]) -> Plan:
        """The same plan reading only ``columns`` (names of the query's result)."""
        return dataclasses.replace(self, columns=tuple(columns))

    def explain(self) -> str:
        """Each partition's SQL with its parameters shown, and the plan's consistency."""
        lines = [
            f"{len(self.partitions)} partitions of {self.query!r}"
            + (f" on {self.on} ({self.method})" if self.on else f" ({self.method})"),
            f"consistency: {self.consistency}",
        ]
        if self.order_by:
            lines.append(f"order: ORDER BY {self.order_by} in each partition, partitions in key order")
        for i, part in enumerate(self.partitions):
            sql, _ = self.sql(i)
            shown = sql.replace(part.predicate, part.describe())
            size = "" if part.rows is None else f" ({part.rows:,} rows at planning)"
            lines.append(f"  [{i}]{size} {shown}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ plain data
    def to_json(self) -> str:
        """The plan as JSON (its connection string too: keep it as secret as that)."""
        body = {
            "connstr": self.connstr,
            "query": self.query,
            "on": self.on,
            "method": self.method,
            "dbms": self.dbms,
            "snapshot": self.snapshot,
            "consistency": self.consistency,
            "order_by": self.order_by,
            "reverse": self.reverse,
            "columns": None if self.columns is None else list(self.columns),
            "quote": self.quote,
            "partitions": [
                {"predicate": p.predicate, "params": [keys.to_json(v) for v in p.params], "rows": p.rows}
                for p in self.partitions
            ],
        }
        return json.dumps(body)

    @classmethod
    def from_json(cls, text: str) -> Plan:
        """The plan ``to_json`` wrote."""
        body = json.loads(text)
        parts = tuple(
            Partition(i, p["predicate"], tuple(keys.from_json(v) for v in p["params"]), p.get("rows"))
            for i, p in enumerate(body.pop("partitions"))
        )
        columns = body.pop("columns")
        return cls(partitions=parts, columns=None if columns is None else tuple(columns), **body)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_holder"] = None  # a live connection never crosses to another process
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        # Not the connection string: it may hold a password.
        return (
            f"Plan({self.query!r}, on={self.on!r}, "
            f"partitions={len(self.partitions)}, method={self.method!r}, snapshot={self.snapshot!r})"
        )

    # ------------------------------------------------------------------ the snapshot's life
    def close(self) -> None:
        """Ends the planning connection's transaction that holds the snapshot (readers that
        have not adopted it by then fail). A plan without one: nothing to do."""
        holder = self._holder
        if holder is not None:
            object.__setattr__(self, "_holder", None)
            try:
                holder.rollback()
            finally:
                holder.close()

    def __enter__(self) -> Plan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def read(self, **options: Any) -> Any:
        """All partitions, read in parallel, as one ``pyarrow.Table`` (see ``read.read``)."""
        from .read import read

        return read(self, **options)

    def read_batches(self, **options: Any) -> Any:
        """The partitions' record batches as they arrive (see ``read.read_batches``)."""
        from .read import read_batches

        return read_batches(self, **options)


def predicates_for(on: str, bounds: Sequence[Any], *, nulls: bool) -> list[tuple[str, tuple[Any, ...]]]:
    """The predicates of ranges split at ``bounds`` (strictly increasing), and the NULL one."""
    out: list[tuple[str, tuple[Any, ...]]] = []
    if not bounds:
        out.append((f"{on} IS NOT NULL", ()))
    else:
        out.append((f"{on} < ?", (bounds[0],)))
        for lo, hi in itertools.pairwise(bounds):
            out.append((f"{on} >= ? AND {on} < ?", (lo, hi)))
        out.append((f"{on} >= ?", (bounds[-1],)))
    if nulls:
        out.append((f"{on} IS NULL", ()))
    return out


def order_for(order: OrderBy | None, on: str, db: ReadConsistency, keep_order: bool) -> tuple[str, bool, bool]:
    """(ORDER BY text for each partition, partitions reversed, NULL partition first) for a
    query ending in ``order``; raises NotSupportedError for an order a partitioned read
    cannot keep, unless ``keep_order`` is False."""
    from ..errors import NotSupportedError

    if order is None or not keep_order:
        return "", False, False
    first = order.items[0]
    key = bare_name(on)
    names = [bare_name(item.expression) for item in order.items]
    if key is None or names[0] != key or any(n is None for n in names):
        raise NotSupportedError(
            f"a partitioned read keeps an ORDER BY only when it leads with the partition key "
            f"{on} and names result columns: this query ends with ORDER BY {order.text}; "
            "sort the result, or pass keep_order=False"
        )
    nulls = first.nulls
    if nulls is None:
        if db.nulls_first is None:
            raise NotSupportedError(
                f"where this database sorts NULLs is not known: add NULLS FIRST or NULLS LAST to "
                f"ORDER BY {order.text}, or pass keep_order=False"
            )
        nulls_low = db.nulls_first
        nulls = "first" if nulls_low != first.descending else "last"
    return order.text, first.descending, nulls == "first"
