"""Reading a plan: each partition over its own connection, N at once on threads (the drivers
run without the GIL: fetch_record_batch releases it around every ODBC call), the batches
handed over through a queue of N places, so memory holds at most about 2N batches beyond
what the caller keeps. The first error cancels the other readers and is raised with its
partition named."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

from ..errors import Error
from .plan import Plan

_DONE = object()


def read_one(plan: Plan, index: int, *, batch_rows: int | None = None, batch_bytes: int | None = None) -> Any:
    """Partition ``index`` of ``plan`` as a ``pyarrow.Table``, over a connection of its own
    (what a worker process runs)."""
    import pyarrow as pa

    batches: list[Any] = []
    schema = _Readers(plan, [index], batch_rows, batch_bytes, workers=1).read_into(lambda i, b: batches.append(b))
    return pa.Table.from_batches(batches, schema=schema[index])


def schema_of(plan: Plan) -> Any:
    """The Arrow schema of ``plan``'s result (its projection), from a read of no rows."""
    from .. import connect

    conn = connect(plan.connstr, autocommit=True)
    try:
        return conn.cursor().execute(plan.select_where("1 = 0")).fetch_arrow_table().schema
    finally:
        conn.close()


def read(
    plan: Plan, *, workers: int | None = None, batch_rows: int | None = None, batch_bytes: int | None = None
) -> Any:
    """Every partition of ``plan``, ``workers`` at once (default: all), as one
    ``pyarrow.Table`` in the plan's partition order (key order where the query's ORDER BY
    asked for it)."""
    import pyarrow as pa

    indexes = list(range(len(plan.partitions)))
    per_part: dict[int, list[Any]] = {i: [] for i in indexes}
    readers = _Readers(plan, indexes, batch_rows, batch_bytes, workers)
    schemas = readers.read_into(lambda i, b: per_part[i].append(b))
    tables = [pa.Table.from_batches(per_part[i], schema=schemas[i]) for i in indexes]
    return _concat(tables)


def read_batches(
    plan: Plan, *, workers: int | None = None, batch_rows: int | None = None, batch_bytes: int | None = None
) -> Iterator[Any]:
    """The record batches of every partition as they arrive (partitions interleaved). Closing
    the iterator early cancels the readers still running."""
    indexes = list(range(len(plan.partitions)))
    return _Readers(plan, indexes, batch_rows, batch_bytes, workers).batches()


def _concat(tables: list[Any]) -> Any:
    import pyarrow as pa

    if not tables:
        raise Error("a plan without partitions has no result")
    tables = unify_null_columns(tables)
    try:
        return pa.concat_tables(tables)
    except pa.ArrowInvalid:
        # Partitions described differently by the driver (a width, a nullability): Arrow's
        # promotion unifies them, or says which column cannot be.
        return pa.concat_tables(tables, promote_options="permissive")


def unify_null_columns(tables: list[Any]) -> list[Any]:
    """The partitions with a column that holds no value typed as the partitions holding values
    agree it is: a driver that describes an expression by the values it holds (sqlite3odbc)
    types the NULL partition's key as text, and a NULL of any type is a NULL."""
    import pyarrow as pa

    if len(tables) < 2:
        return tables
    out = list(tables)
    for i in range(tables[0].num_columns):
        valued = {t.schema.field(i).type for t in tables if t.column(i).null_count < t.num_rows}
        if len(valued) != 1:
            continue
        (wanted,) = valued
        for j, t in enumerate(out):
            column = t.column(i)
            if column.type != wanted and column.null_count == t.num_rows:
                field = t.schema.field(i).with_type(wanted)
                out[j] = t.set_column(i, field, pa.nulls(t.num_rows, wanted))
    return out


class _Readers:
    """The threads reading some partitions of a plan, and what they hand back."""

    def __init__(
        self, plan: Plan, indexes: list[int], batch_rows: int | None, batch_bytes: int | None, workers: int | None
    ):
        self.plan = plan
        self.todo = list(indexes)
        self.batch_rows, self.batch_bytes = batch_rows, batch_bytes
        self.workers = max(1, min(workers or len(indexes), len(indexes) or 1))
        self.out: queue.Queue[tuple[int, Any]] = queue.Queue(maxsize=self.workers)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.cursors: dict[int, Any] = {}
        self.schemas: dict[int, Any] = {}
        self.threads: list[threading.Thread] = []

    # ---------------------------------------------------------------- the reading threads
    def _next(self) -> int | None:
        with self.lock:
            return self.todo.pop(0) if self.todo and not self.stop.is_set() else None

    def _run(self) -> None:
        while (index := self._next()) is not None:
            try:
                self._read(index)
            except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised there
                self._put(index, exc)
                return

    def _read(self, index: int) -> None:
        from .. import connect

        plan = self.plan
        conn = connect(plan.connstr, autocommit=plan.snapshot is None)
        try:
            cur = conn.cursor()
            with self.lock:
                self.cursors[index] = cur
            if self.stop.is_set():
                return
            for statement in plan.adopt_statements():
                cur.execute(statement)
            sql, params = plan.sql(index)
            cur.execute(sql, *params)
            reader = cur.fetch_record_batch(self.batch_rows, self.batch_bytes)
            self.schemas[index] = reader.schema
            for batch in reader:
                if not self._put(index, batch):
                    return
            self._put(index, _DONE)
        finally:
            with self.lock:
                self.cursors.pop(index, None)
            try:
                if plan.snapshot is not None:
                    conn.rollback()
            finally:
                conn.close()

    def _put(self, index: int, item: Any) -> bool:
        while not self.stop.is_set():
            try:
                self.out.put((index, item), timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    # ---------------------------------------------------------------- the consumer
    def _start(self) -> None:
        for _ in range(self.workers):
            t = threading.Thread(target=self._run, name="fastodbc-partition", daemon=True)
            t.start()
            self.threads.append(t)

    def _halt(self) -> None:
        self.stop.set()
        with self.lock:
            running = list(self.cursors.values())
        for cur in running:
            try:
                cur.cancel()
            except Error:
                pass  # it ended meanwhile
        for t in self.threads:
            t.join()

    def batches(self) -> Iterator[Any]:
        for _index, batch in self._items():
            yield batch

    def read_into(self, take: Any) -> dict[int, Any]:
        for index, batch in self._items():
            take(index, batch)
        return self.schemas

    def _items(self) -> Iterator[tuple[int, Any]]:
        remaining = len(self.todo)
        self._start()
        try:
            while remaining:
                index, item = self.out.get()
                if item is _DONE:
                    remaining -= 1
                elif isinstance(item, BaseException):
                    named = _named(self.plan, index, item)
                    if named is item:
                        raise item
                    raise named from item
                else:
                    yield index, item
        finally:
            self._halt()


def _named(plan: Plan, index: int, exc: BaseException) -> BaseException:
    """``exc`` again, its message saying which partition raised it."""
    if not isinstance(exc, Error):
        return exc
    where = f"partition {index} of {len(plan.partitions)} ({plan.partitions[index].describe()})"
    args = exc.args
    if len(args) >= 2 and exc.sqlstate is not None:
        return type(exc)(args[0], f"{where}: {args[1]}", *args[2:])
    return type(exc)(f"{where}: {exc}")
