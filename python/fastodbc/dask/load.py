"""``to_sql``: a Dask frame's partitions loaded into one table, all or nothing.

Where the database takes writers in parallel, each partition's task loads it into a staging
table of its own on its worker, and one transaction copies them into the table. Where it has
one writer (SQLite), the partitions are computed in parallel and loaded as they arrive, over
one connection, in one transaction: parallel writers there only wait for each other.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .. import connect
from ..constants import SQL_DBMS_NAME, SQL_IDENTIFIER_QUOTE_CHAR
from ..errors import Error, ProgrammingError
from ..parallel.databases import consistency_of
from ..parallel.sqltext import quote_name

MODES = ("append", "create", "replace")


def to_sql(
    ddf: Any,
    table: str,
    connstr: str,
    *,
    mode: str = "append",
    schema: str | None = None,
    column_types: dict[str, str] | None = None,
    compute_options: dict[str, Any] | None = None,
) -> int:
    """Loads every row of the Dask frame ``ddf`` into ``table`` all-or-nothing, and returns
    the number of rows loaded (its index is not loaded: ``reset_index()`` first to keep it).

    Each partition is loaded by its task (``Cursor.ingest``, on its worker) into a staging
    table of its own, replaced whole if the task runs again (a retried task never loads its
    rows twice); then one connection copies every staging table into ``table`` in one
    transaction and commits, and the staging tables are dropped. A failed task or a failed
    copy leaves ``table`` as it was. Where the database has one writer (SQLite) the
    partitions are computed in parallel and loaded as they arrive over one connection, in
    one transaction.

    ``mode``: ``"append"`` to an existing table; ``"create"`` a new one (its columns as
    ``ingest`` creates them, ``column_types`` overriding; dropped again if the load fails);
    ``"replace"``: the table's rows are deleted and the new ones inserted in the same
    transaction (the table and its definition stay, so readers see the old rows or the new
    ones, never none; unlike ``ingest``'s ``replace``, nothing is dropped).
    ``compute_options``: passed to ``dask.compute`` (a scheduler, ...); without them the
    frame's tasks run on the current ``distributed`` client if there is one, else on threads.
    """
    import pyarrow as pa

    if mode not in MODES:
        raise ProgrammingError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    target = _Target(connstr, table, schema, mode, column_types, pa.Table.from_pandas(ddf._meta, preserve_index=False))
    parts = ddf.to_delayed()
    if target.one_writer:
        return target.load(_as_completed(parts, compute_options))
    import dask

    names = [f"fastodbc_stage_{uuid.uuid4().hex[:12]}_{i}" for i in range(len(parts))]
    stage = dask.delayed(_stage, pure=False)
    tasks = [stage(part, connstr, name, schema, column_types) for part, name in zip(parts, names, strict=True)]
    try:
        counts = _settled(tasks, compute_options)
        return target.publish(list(zip(names, counts, strict=True)))
    finally:
        _drop(connstr, schema, names)


class _Target:
    """The table loaded, and the one transaction that fills it."""

    def __init__(self, connstr: str, table: str, schema: str | None, mode: str, types: Any, empty: Any):
        self.connstr, self.table, self.schema, self.mode = connstr, table, schema, mode
        self.column_types, self.empty = types, empty
        conn = connect(connstr, autocommit=True)
        try:
            self.quote = str(conn.getinfo(SQL_IDENTIFIER_QUOTE_CHAR) or "").strip() or '"'
            self.one_writer = consistency_of(str(conn.getinfo(SQL_DBMS_NAME) or "")).one_writer
        finally:
            conn.close()
        self.name = _qualified(self.quote, schema, table)
        self.columns = ", ".join(quote_name(c, self.quote) for c in empty.column_names)

    def publish(self, staged: list[tuple[str, int]]) -> int:
        """Copies the staging tables into the table in one transaction."""

        def fill(cur: Any) -> int:
            total = 0
            for name, count in staged:
                source = _qualified(self.quote, self.schema, name)
                cur.execute(f"INSERT INTO {self.name} ({self.columns}) SELECT {self.columns} FROM {source}")
                if cur.rowcount not in (-1, count):
                    raise Error(f"copying {name} into {self.table} moved {cur.rowcount} rows, not the {count} staged")
                total += count
            return total

        return self._transaction(fill)

    def load(self, frames: Iterator[Any]) -> int:
        """Loads the frames as they come, in one transaction."""

        import pyarrow as pa

        def fill(cur: Any) -> int:
            total = 0
            for frame in frames:
                data = pa.Table.from_pandas(frame, preserve_index=False)
                total += cur.ingest(self.table, data, mode="append", schema=self.schema)
            return total

        return self._transaction(fill)

    def _transaction(self, fill: Any) -> int:
        conn = connect(self.connstr, autocommit=False)
        created = False
        try:
            cur = conn.cursor()
            if self.mode == "create":
                cur.ingest(self.table, self.empty, mode="create", schema=self.schema, column_types=self.column_types)
                created = True
            elif self.mode == "replace":
                cur.execute(f"DELETE FROM {self.name}")
            total = fill(cur)
            conn.commit()
            return total
        except BaseException:
            try:
                conn.rollback()
            except Error:
                pass  # the link is gone: the server rolls back
            if created:
                # Where DDL commits by itself the CREATE outlived the rollback.
                _drop(self.connstr, self.schema, [self.table])
            raise
        finally:
            conn.close()


def _stage(part: Any, connstr: str, name: str, schema: str | None, column_types: dict[str, str] | None) -> int:
    """One partition's task: its rows into its own staging table, replaced whole."""
    import pyarrow as pa

    data = pa.Table.from_pandas(part, preserve_index=False)
    # Typed as the target would be created: the copy into it then converts nothing.
    used = {k: v for k, v in (column_types or {}).items() if k in data.column_names} or None
    conn = connect(connstr, autocommit=True)
    try:
        return conn.cursor().ingest(name, data, mode="replace", schema=schema, column_types=used)
    finally:
        conn.close()


def _client(compute_options: dict[str, Any] | None) -> Any:
    """The current distributed client, when the caller chose no scheduler; else None."""
    if compute_options:
        return None
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:
        return None  # no cluster


def _settled(tasks: list[Any], compute_options: dict[str, Any] | None) -> list[Any]:
    """The tasks' results once every one of them has ended: when one fails, the others may be
    loading still, and their staging tables must exist before they are dropped."""
    import dask

    client = _client(compute_options)
    if client is not None:
        from distributed import wait

        futures = client.compute(tasks)
        wait(futures)
        for future in futures:
            if future.status == "error":
                future.result()  # raises the task's error
        return [future.result() for future in futures]
    # The threaded scheduler on a pool of our own, whose shutdown waits for what runs.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        options = {"scheduler": "threads", "pool": pool, **(compute_options or {})}
        return list(dask.compute(*tasks, **options))


def _as_completed(parts: list[Any], compute_options: dict[str, Any] | None) -> Iterator[Any]:
    """The partitions' frames as their tasks end (on a cluster), or one after the other."""
    import dask

    client = _client(compute_options)
    if client is None:
        for part in parts:
            (frame,) = dask.compute(part, **(compute_options or {}))
            yield frame
        return
    from distributed import as_completed

    futures = client.compute(parts)
    try:
        for future in as_completed(futures):
            yield future.result()
            future.release()
    finally:
        client.cancel(futures)


def _qualified(quote: str, schema: str | None, name: str) -> str:
    return name if schema is None else f"{quote_name(schema, quote)}.{name}"


def _drop(connstr: str, schema: str | None, names: list[str]) -> None:
    try:
        conn = connect(connstr, autocommit=True)
    except Error:
        return  # the database is gone: nothing can be dropped now (the names say whose they were)
    try:
        quote = str(conn.getinfo(SQL_IDENTIFIER_QUOTE_CHAR) or "").strip() or '"'
        cur = conn.cursor()
        for name in names:
            try:
                cur.execute(f"DROP TABLE IF EXISTS {_qualified(quote, schema, name)}")
            except Error:
                pass  # never created (its task failed first)
    finally:
        conn.close()
