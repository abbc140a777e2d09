"""The partitioned read measurements (cases: bench/partitioning.py), run by bench/worker.py in a fresh
process per measurement like every other operation.

``measure(spec)`` does the untimed part (imports, the plan, the input frame), then times the
operation with ``time.perf_counter`` and returns ``seconds``, ``rows`` and ``metrics``:

- ``client_cpu_s``: this process's user + system time over the operation (every thread's);
- ``server_cpu_s``: the server's, from /proc: MariaDB's one process (utime + stime, which keep
  the time of its threads that ended); PostgreSQL's postmaster, every child of it (the
  backends: utime + stime) and its cutime + cstime (the backends it reaped meanwhile), after
  the backends of the operation have ended. Null where the server is not on this host;
- ``plan_s``, ``plan_client_cpu_s``, ``plan_server_cpu_s``, ``total_s`` (plan + read) and
  ``partitions`` (the plan's, with the NULL partition) for ``plan.read()``, whose plan is made
  before the clock: the efficiency is the read's, the peers are compared with plan + read.

Peers (``peer`` / ``how``): fastodbc / one (connect, ``execute``, ``fetch_arrow_table``,
close: one connection), plan (``fastodbc.partition`` untimed, then ``plan.read()``);
connectorx; dask-sqlalchemy (``dd.read_sql_table(...).compute()``); fastodbc-dask
(``fastodbc.dask.read_sql(...).compute()``); for ``parallel_to_sql``: fastodbc-dask / to_sql and
fastodbc / ingest (connect, ``cursor.ingest``, commit, close). Dask computes on its threaded
scheduler with one thread per partition (its default is one per core: 2 here).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import backend_profiles as profiles
from partitioning import OPS

__all__ = ["OPS", "measure"]

TICK = os.sysconf("SC_CLK_TCK")
#: How long the PostgreSQL backends of an operation may take to end after it (they are reaped
#: by the postmaster, which adds their time to its cutime / cstime).
SETTLE_S = 5.0


# ---------------------------------------------------------------------------------------------
# CPU time from /proc


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()  # fields from 3 (state) on: ppid is [1], utime [11]


def client_cpu() -> float:
    t = os.times()
    return t.user + t.system


class ServerCpu:
    """The server's CPU seconds so far, and its PostgreSQL backends (to wait for their end)."""

    def __init__(self, spec: dict[str, Any]):
        self.pid = spec.get("server_pid")
        self.tree = bool(spec.get("server_tree"))

    def children(self) -> dict[int, list[str]]:
        out = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                f = _stat(int(entry.name))
                if f is not None and int(f[1]) == self.pid:
                    out[int(entry.name)] = f
        return out

    def sample(self) -> tuple[float, set[int]] | None:
        if self.pid is None:
            return None
        kids = self.children() if self.tree else {}
        own = _stat(self.pid)
        if own is None:
            return None
        ticks = int(own[11]) + int(own[12])
        if self.tree:
            ticks += int(own[13]) + int(own[14]) + sum(int(f[11]) + int(f[12]) for f in kids.values())
        return ticks / TICK, set(kids)

    def settle(self, before: tuple[float, set[int]] | None) -> None:
        """Until the backends started since ``before`` have ended and been reaped."""
        if before is None or not self.tree:
            return
        deadline = time.monotonic() + SETTLE_S
        while set(self.children()) - before[1] and time.monotonic() < deadline:
            time.sleep(0.01)


def delta(a: tuple[float, set[int]] | None, b: tuple[float, set[int]] | None) -> float | None:
    return None if a is None or b is None else b[0] - a[0]


# ---------------------------------------------------------------------------------------------
# The peers' URIs, from the case's connection fields (never stored in the results)


def connectorx_uri(spec: dict[str, Any]) -> str:
    return profiles.of(spec).connectorx_uri.format(**profiles.connection_parts(spec))


def sqlalchemy_uri(spec: dict[str, Any]) -> str:
    return profiles.of(spec).sqlalchemy_uri.format(**profiles.connection_parts(spec))


# ---------------------------------------------------------------------------------------------
# The operations: (the timed call returning its row count, metrics of the untimed part)


def prepare_read(spec: dict[str, Any]) -> tuple[Callable[[], int], dict[str, Any], Callable[[], None]]:
    peer, sql, key, n = spec["peer"], spec["sql"], spec["key"], spec.get("partitions", 1)
    if peer == "connectorx":
        import connectorx as cx
        import pyarrow  # noqa: F401 - loaded before the clock, as every peer's modules

        uri = connectorx_uri(spec)
        return lambda: cx.read_sql(uri, sql, partition_on=key, partition_num=n, return_type="arrow").num_rows, {}, _nop
    if peer == "dask-sqlalchemy":
        import dask.dataframe as dd
        import pandas.io.sql  # noqa: F401
        import sqlalchemy

        warm_dask()

        uri = sqlalchemy_uri(spec)
        engine = sqlalchemy.create_engine(uri)
        engine.connect().close()  # its DBAPI module and ODBC driver loaded before the clock
        engine.dispose()

        def run() -> int:
            # pandas's default types fail a partition where an integer column has a NULL that
            # the 5 rows Dask reads for its meta had not (IntCastingNaNError): Arrow's types
            # (nullable, and fastodbc.dask's own) are what reads these tables at all.
            ddf = dd.read_sql_table(spec["table"], uri, index_col=key, npartitions=n, dtype_backend="pyarrow")
            return len(ddf.compute(scheduler="threads", num_workers=n))

        return run, {}, _nop
    import fastodbc

    warm_up(spec)
    if peer == "fastodbc-dask":
        import fastodbc.dask

        warm_dask()

        def run() -> int:
            ddf = fastodbc.dask.read_sql(spec["cs"], sql, on=key, npartitions=n)
            return len(ddf.compute(scheduler="threads", num_workers=n))

        return run, {}, _nop
    import pyarrow  # noqa: F401

    if spec["how"] == "one":

        def run() -> int:
            conn = fastodbc.connect(spec["cs"])
            rows = conn.cursor().execute(sql).fetch_arrow_table().num_rows
            conn.close()
            return rows

        return run, {}, _nop
    # plan.read(): the plan (its extent query, a snapshot on PostgreSQL) made and measured here.
    server = ServerCpu(spec)
    s0, c0, t0 = server.sample(), client_cpu(), time.perf_counter()
    plan = fastodbc.partition(spec["cs"], sql, on=key, partitions=n)
    plan_s, plan_cpu, s1 = time.perf_counter() - t0, client_cpu() - c0, server.sample()
    extra = {"plan_s": plan_s, "plan_client_cpu_s": plan_cpu, "partitions": len(plan.partitions)}
    if delta(s0, s1) is not None:
        extra["plan_server_cpu_s"] = delta(s0, s1)
    return lambda: plan.read().num_rows, extra, plan.close


def _nop() -> None:
    return None


def warm_dask() -> None:
    """What a first ``compute`` in a process loads, loaded before the clock (a process that
    computes again has it): dask.dataframe, and ``distributed`` where it is installed (Dask's
    scheduler choice imports it, ~0.3 s of its config's YAML), pandas' Arrow types."""
    import importlib.util

    import dask.dataframe  # noqa: F401
    import pandas as pd
    import pyarrow as pa

    if importlib.util.find_spec("distributed") is not None:
        import distributed  # noqa: F401
    pd.concat([pa.table({"a": [1]}).to_pandas(types_mapper=pd.ArrowDtype)] * 2)


def warm_up(spec: dict[str, Any]) -> None:
    """A connection opened and closed before the clock: the ODBC driver loaded (a plan's
    reads find it loaded by the planning)."""
    import fastodbc

    fastodbc.connect(spec["cs"]).close()


def prepare_to_sql(spec: dict[str, Any]) -> tuple[Callable[[], int], dict[str, Any], Callable[[], None]]:
    import pandas as pd
    import pyarrow.parquet as pq

    import bulk
    import fastodbc

    table = pq.read_table(spec["parquet_path"])
    target = spec["table"]
    # The target, empty, with mixed's types (the native client, untimed).
    bulk.create_ingest_table(spec, target)
    warm_up(spec)
    if spec["how"] == "ingest":

        def run() -> int:
            conn = fastodbc.connect(spec["cs"])
            conn.cursor().ingest(target, table)
            conn.commit()
            conn.close()
            return table.num_rows

        return run, {}, _nop
    import dask.dataframe as dd

    import fastodbc.dask

    warm_dask()
    n = spec["partitions"]
    ddf = dd.from_pandas(table.to_pandas(types_mapper=pd.ArrowDtype), npartitions=n)
    options = {"scheduler": "threads", "num_workers": n}
    return lambda: fastodbc.dask.to_sql(ddf, target, spec["cs"], mode="append", compute_options=options), {}, _nop


def count_rows(spec: dict[str, Any]) -> int:
    import fastodbc

    conn = fastodbc.connect(spec["cs"])
    try:
        return conn.cursor().execute(f"SELECT COUNT(*) FROM {spec['table']}").fetchone()[0]
    finally:
        conn.close()


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    to_sql = spec["op"] == "parallel_to_sql"
    run, metrics, cleanup = (prepare_to_sql if to_sql else prepare_read)(spec)
    server = ServerCpu(spec)
    s0, c0, t0 = server.sample(), client_cpu(), time.perf_counter()
    rows = run()
    seconds = time.perf_counter() - t0
    metrics["client_cpu_s"] = client_cpu() - c0
    cleanup()  # the plan's snapshot: its transaction ended before the server's time is read
    server.settle(s0)
    spent = delta(s0, server.sample())
    if spent is not None:
        metrics["server_cpu_s"] = spent
    if "plan_s" in metrics:
        metrics["total_s"] = metrics["plan_s"] + seconds
    if to_sql and count_rows(spec) != rows:
        raise AssertionError(f"loaded {rows} rows but {spec['table']} holds {count_rows(spec)}")
    if spec.get("expected_rows") is not None and rows != spec["expected_rows"]:
        raise AssertionError(f"{rows} rows, expected {spec['expected_rows']}")
    return {"seconds": seconds, "rows": rows, "metrics": metrics}
