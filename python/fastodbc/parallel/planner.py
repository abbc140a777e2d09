"""``fastodbc.partition``: plans a partitioned read by asking the database for the key's
extent (and, for skewed keys, its quantiles) over one connection, in the snapshot the
partitions will read where the database can share one."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from ..constants import SQL_DBMS_NAME, SQL_DRIVER_NAME, SQL_IDENTIFIER_QUOTE_CHAR
from ..errors import NotSupportedError, ProgrammingError
from . import keys
from .databases import ReadConsistency, consistency_of, snapshot_attributes
from .plan import ALIAS, Partition, Plan, order_for, predicates_for
from .sqltext import top_level_order_by

METHODS = ("auto", "range", "quantiles", "scan")


def partition(
    connstr: str,
    query: str,
    *,
    on: str | None = None,
    partitions: int = 4,
    method: str = "auto",
    bounds: Sequence[Any] | None = None,
    predicates: Sequence[str] | None = None,
    snapshot: bool | None = None,
    keep_order: bool = True,
) -> Plan:
    """Plans reading ``query``'s result in ``partitions`` parts split on the column ``on`` (a
    name of the result, as SQL: quote it as the database would need).

    ``method``: "range" (equal ranges between the key's least and greatest value: integer,
    decimal, float, date and timestamp keys), "quantiles" (ranges holding equal row counts,
    from the database's NTILE: for skewed keys, and any key type), "scan" (the same from the
    sorted keys read here, for databases without window functions), or "auto" (range where
    the key has arithmetic, quantiles otherwise). ``bounds``: the split values yourself (one
    fewer than the ranges); ``predicates``: each partition's WHERE yourself (covering every
    row once is then up to you). Rows whose key is NULL are one partition of their own.

    ``snapshot``: every partition reads the moment the plan was made (PostgreSQL: an exported
    snapshot, held until ``plan.close()``); None: wherever the database can; True where it
    cannot raises NotSupportedError. ``keep_order``: a query ending in ORDER BY the key keeps
    its order (partitions sorted, read out in key order); any other ORDER BY is refused
    unless this is False (the rows then come in partition order).
    """
    from .. import connect

    if not isinstance(partitions, int) or isinstance(partitions, bool) or partitions < 1:
        raise ProgrammingError(f"partitions must be a positive integer, not {partitions!r}")
    if method not in METHODS:
        raise ProgrammingError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if predicates is None and not on:
        raise ProgrammingError("a partitioned read needs a key (on=...) or predicates=[...]")
    conn = connect(connstr, autocommit=False)
    try:
        dbms = str(conn.getinfo(SQL_DBMS_NAME) or "")
        quote = str(conn.getinfo(SQL_IDENTIFIER_QUOTE_CHAR) or "").strip() or '"'
        db = consistency_of(dbms)
        extra = snapshot_attributes(str(conn.getinfo(SQL_DRIVER_NAME) or ""))
        if extra and snapshot is not False and db.export is not None:
            # The plan's connections (this one and every reader's) with what the driver needs.
            connstr = f"{connstr.rstrip().rstrip(';')};{extra}"
            conn.close()
            conn = connect(connstr, autocommit=False)
        snap = _export(conn, db, dbms, snapshot)
        order_by, reverse, nulls_first = order_for(top_level_order_by(query), on or "", db, keep_order)
        if predicates is not None:
            if order_by:
                raise NotSupportedError("predicates= cannot keep the query's ORDER BY: pass keep_order=False")
            parts = [Partition(i, p) for i, p in enumerate(predicates)]
            used = "predicates"
        else:
            assert on is not None
            parts, used = _key_partitions(conn, db, query, on, partitions, method, bounds, snap is not None)
            # Key order (ASC as planned, or reversed for DESC), the NULL keys where the
            # query's ORDER BY puts them.
            nulls = [p for p in parts if p.predicate.endswith("IS NULL")]
            keyed = [p for p in parts if not p.predicate.endswith("IS NULL")]
            if reverse:
                keyed = keyed[::-1]
            parts = nulls + keyed if nulls_first else keyed + nulls
            parts = [Partition(i, p.predicate, p.params, p.rows) for i, p in enumerate(parts)]
        if snap is not None:
            consistency = (
                f"one snapshot ({snap}), exported by the planning connection and held until "
                "plan.close(): every partition reads the moment the plan was made"
            )
        else:
            consistency = db.without_snapshot
        plan = Plan(
            connstr=connstr,
            query=query,
            on=on,
            partitions=tuple(parts),
            method=used,
            dbms=dbms,
            snapshot=snap,
            consistency=consistency,
            order_by=order_by,
            reverse=reverse,
            quote=quote,
            _holder=conn if snap is not None else None,
        )
    except BaseException:
        conn.close()
        raise
    if snap is None:
        conn.rollback()
        conn.close()
    return plan


def _export(conn: Any, db: ReadConsistency, dbms: str, wanted: bool | None) -> str | None:
    if wanted is False:
        return None
    if db.export is None or db.export_query is None:
        if wanted:
            raise NotSupportedError(
                f"{dbms or 'this database'} cannot share a snapshot between connections "
                f"({db.without_snapshot}): pass snapshot=None or False"
            )
        return None
    cur = conn.cursor()
    for statement in db.export:
        cur.execute(statement)
    return str(cur.execute(db.export_query).fetchval())


def _key_partitions(
    conn: Any,
    db: ReadConsistency,
    query: str,
    on: str,
    n: int,
    method: str,
    bounds: Sequence[Any] | None,
    snapshot: bool,
) -> tuple[list[Partition], str]:
    cur = conn.cursor()
    described = cur.execute(f"SELECT {on} FROM ({query}) AS {ALIAS} WHERE 1 = 0").description[0][1]
    cur.close()
    cur = conn.cursor()
    total, keyed, lo, hi = cur.execute(
        f"SELECT COUNT(*), COUNT({on}), MIN({on}), MAX({on}) FROM ({query}) AS {ALIAS}"
    ).fetchone()
    # An aggregate may come back untyped (sqlite3odbc describes MIN of a DATE as text): the
    # extent takes the key column's own type where it converts exactly.
    lo, hi = keys.as_type(lo, described), keys.as_type(hi, described)
    nulls = total - keyed
    if bounds is not None:
        found, used = _checked_bounds(bounds), "bounds"
    elif keyed == 0:
        found, used = [], method if method != "auto" else "range"
    else:
        used = method
        if method == "auto":
            used = "range" if keys.has_range(lo) else "quantiles"
        if used == "range":
            if not keys.has_range(lo):
                raise ProgrammingError(
                    f"the key {on} is of type {type(lo).__name__}, which has no equal ranges: "
                    "use method='quantiles'"
                )
            found = keys.range_bounds(lo, hi, n)
            if not found and n > 1 and lo != hi:  # infinities or NaN at the ends: count rows instead
                used = "quantiles"
        if used == "quantiles" and not db.ntile:
            used = "scan"
        if used == "quantiles":
            found = _quantile_bounds(cur, query, on, n, lo)
        elif used == "scan":
            found = _scanned_bounds(cur, query, on, n, keyed, lo)
    # With a shared snapshot the NULL count is exact; without, rows with a NULL key may
    # arrive after planning, and their partition is read anyway.
    with_nulls = nulls > 0 or not snapshot
    parts = [Partition(i, p, params) for i, (p, params) in enumerate(predicates_for(on, found, nulls=with_nulls))]
    if with_nulls:
        parts[-1] = Partition(parts[-1].index, parts[-1].predicate, (), nulls)
    if not found and keyed:
        parts[0] = Partition(0, parts[0].predicate, (), keyed)
    return parts, used


def _checked_bounds(bounds: Sequence[Any]) -> list[Any]:
    values = list(bounds)
    for a, b in itertools.pairwise(values):
        try:
            ordered = a < b
        except TypeError:
            raise ProgrammingError(f"bounds= must be values of one type: {a!r} and {b!r}") from None
        if not ordered:
            raise ProgrammingError(f"bounds= must strictly increase: {a!r} is not below {b!r}")
    if any(v is None for v in values):
        raise ProgrammingError("bounds= cannot hold None: NULL keys are a partition of their own")
    return values


def _quantile_bounds(cur: Any, query: str, on: str, n: int, lo: Any) -> list[Any]:
    # The least key of each of n tiles of equal row counts, in the database's own order
    # (its collation for text): tile 1's is the least key, the others are the bounds.
    rows = cur.execute(
        f"SELECT MIN(fastodbc_key) FROM (SELECT {on} AS fastodbc_key, NTILE({n}) OVER (ORDER BY {on}) "
        f"AS fastodbc_tile FROM ({query}) AS {ALIAS} WHERE {on} IS NOT NULL) AS fastodbc_tiles "
        "GROUP BY fastodbc_tile ORDER BY fastodbc_tile"
    ).fetchall()
    return keys.distinct_in_order([r[0] for r in rows[1:] if r[0] != lo])


def _scanned_bounds(cur: Any, query: str, on: str, n: int, keyed: int, lo: Any) -> list[Any]:
    # The keys at positions keyed * i / n of the sorted keys, skipped to (never held here).
    cur.execute(f"SELECT {on} FROM ({query}) AS {ALIAS} WHERE {on} IS NOT NULL ORDER BY {on}")
    found, at = [], 0
    for i in range(1, n):
        target = keyed * i // n
        if target > at:
            cur.skip(target - at)
            at = target
        row = cur.fetchone()
        if row is None:
            break
        at += 1
        found.append(row[0])
    cur.close()
    return keys.distinct_in_order([b for b in found if b != lo])
