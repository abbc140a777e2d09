"""The pool and asyncio measurements of issue 20 and the fairness case of issue 33 (cases:
bench/pooling.py), run by bench/worker.py in a fresh process per measurement like every other
operation.

``measure(spec)`` does the untimed part (imports, connects, a pool filled and warmed up), times
the operation with ``time.perf_counter`` and returns ``seconds`` (per operation for ``pool`` and
``aio_overhead``, the whole work for ``aio_concurrency`` and ``aio_lag``, the ``SELECT 1``'s p99
latency for ``fairness``), ``rows`` (``fairness``: the ``SELECT 1`` calls) and ``metrics``
(figures beside the time: the lag ticker's delays, the sync calls' times, the pools' statistics,
the process's CPU time per operation, the latencies with and without the hog). Peers (``peer`` /
``how``):

- ``pool``: fastodbc / cold (``connect``, cursor, ``SELECT 1``, ``fetchone``, ``close``), pool
  (``with pool.connection() as c:`` the same query; a ``ConnectionPool`` of 4, psycopg_pool's
  default size too; with ``autocommit``: its connections in autocommit), open (a new cursor and
  the query on one connection kept open), open_commit (the same, then ``commit``: the pool's
  floor with autocommit off); psycopg / cold and pool (``psycopg_pool.ConnectionPool``).
- ``aio_concurrency``: fastodbc / async (tasks on an ``AsyncConnectionPool``), threads (threads
  on a ``ConnectionPool``), sequential (one thread through that pool), connection (one thread,
  one connection, no pool); psycopg / async and threads (psycopg_pool's two pools).
- ``aio_lag``: fastodbc / fetchall, iterate (``async for``), to_thread (a sync cursor's
  ``fetchall`` in ``asyncio.to_thread``), sync (``fetchall`` with no event loop: the time only);
  psycopg / fetchall (``AsyncCursor``).
- ``aio_overhead``: fastodbc (``AsyncConnection`` and its ``sync_connection``), psycopg
  (``AsyncConnection`` and a ``Connection``).
- ``fairness``: fastodbc, pyodbc (the same code through each module).

Every connection has autocommit off (the DB-API default), so a ``SELECT 1`` opens a transaction:
the pools end it when the connection comes back (psycopg_pool and fastodbc's ``connection()``
commit at the end of the block, fastodbc's return rolls back whatever is left).
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from pooling import FAIRNESS_BAR, LAG_BAR, OPS

__all__ = ["FAIRNESS_BAR", "LAG_BAR", "OPS", "measure"]

#: The pools of the ``pool`` case: psycopg_pool's default ``min_size`` (fastodbc's too).
POOL_MIN = 4
#: Seconds the lag ticker runs before the fetch: the loop's own delay on this host, the
#: baseline the fetch's delays are read against.
IDLE_S = 0.3
#: Calls per block of the interleaved overhead measurement.
BLOCK = 50
#: The largest delays kept, with when they happened (for the profile of where the loop waits).
WORST = 8
#: ``SELECT 1`` calls on each of the fairness case's connections before anything is timed.
FAIRNESS_WARM = 20


# ---------------------------------------------------------------------------------------------
# pool: checkout + SELECT 1 + return against connect + SELECT 1 + close


def pool_op(spec: dict[str, Any]) -> tuple[Callable[[], None], Callable[[], dict[str, Any]], Callable[[], None]]:
    """(one operation, its metrics afterwards, cleanup)."""
    peer, how, sql = spec["peer"], spec["how"], spec["sql"]
    nothing: Callable[[], dict[str, Any]] = dict
    if peer == "fastodbc":
        import fastodbc

        cs = spec["cs"]
        if how == "cold":

            def one() -> None:
                conn = fastodbc.connect(cs)
                conn.cursor().execute(sql).fetchone()
                conn.close()

            return one, nothing, lambda: None
        if how == "open":
            conn = fastodbc.connect(cs)

            def one() -> None:
                conn.cursor().execute(sql).fetchone()

            return one, nothing, conn.close
        if how == "open_commit":
            conn = fastodbc.connect(cs)

            def one() -> None:
                conn.cursor().execute(sql).fetchone()
                conn.commit()

            return one, nothing, conn.close
        from fastodbc.pool import ConnectionPool

        pool = ConnectionPool(cs, min_size=POOL_MIN, kwargs={"autocommit": True} if spec.get("autocommit") else None)
        pool.wait()

        def one() -> None:
            with pool.connection() as c:
                c.cursor().execute(sql).fetchone()

        return one, pool.get_stats, pool.close
    import psycopg

    dsn = spec["pg_dsn"]
    if how == "cold":

        def one() -> None:
            conn = psycopg.connect(dsn)
            conn.execute(sql).fetchone()
            conn.close()

        return one, nothing, lambda: None
    from psycopg_pool import ConnectionPool as PsycopgPool

    pool = PsycopgPool(dsn, min_size=POOL_MIN, open=True)
    pool.wait()

    def one() -> None:
        with pool.connection() as c:
            c.execute(sql).fetchone()

    return one, pool.get_stats, pool.close


def measure_pool(spec: dict[str, Any]) -> dict[str, Any]:
    one, stats, cleanup = pool_op(spec)
    inner = spec["inner"]
    for _ in range(max(2, inner // 20)):  # the driver loaded, the pool's connections used once
        one()
    waited = run_delay_reader()
    c0, q0, t0 = time.process_time(), waited(), time.perf_counter()
    for _ in range(inner):
        one()
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    metrics = {"cpu_s": cpu / inner, "cpu_wait_s": (waited() - q0) / inner}
    metrics.update({k: v for k, v in stats().items() if k in POOL_STATS})
    cleanup()
    return {"seconds": seconds / inner, "rows": inner, "metrics": metrics}


#: The pool statistics kept with a measurement: a pool that replaced connections or queued
#: requests did other work than the case means.
POOL_STATS = ("connections_num", "connections_lost", "returns_bad", "requests_queued", "requests_wait_ms")


# ---------------------------------------------------------------------------------------------
# aio_concurrency: tasks on the async pool against threads on the sync pool


async def _fastodbc_tasks(spec: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    from fastodbc.aio import AsyncConnectionPool

    size, sql = spec["pool_size"], spec["sql"]
    pool = AsyncConnectionPool(spec["cs"], min_size=size, max_size=size)
    await pool.open(wait=True)

    async def task(n: int) -> None:
        for _ in range(n):
            async with pool.connection() as c:
                cur = c.cursor()
                await cur.execute(sql)
                await cur.fetchone()

    return await _timed_tasks(spec, task, pool.get_stats, pool.close)


async def _psycopg_tasks(spec: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    from psycopg_pool import AsyncConnectionPool

    size, sql = spec["pool_size"], spec["sql"]
    pool = AsyncConnectionPool(spec["pg_dsn"], min_size=size, max_size=size, open=False)
    await pool.open(wait=True)

    async def task(n: int) -> None:
        for _ in range(n):
            async with pool.connection() as c:
                cur = await c.execute(sql)
                await cur.fetchone()

    return await _timed_tasks(spec, task, pool.get_stats, pool.close)


async def _timed_tasks(
    spec: dict[str, Any], task: Callable[[int], Any], stats: Callable[[], dict], close: Callable[[], Any]
) -> tuple[float, dict[str, Any]]:
    tasks = spec["tasks"]
    await asyncio.gather(*(task(1) for _ in range(tasks)))  # warm-up: every connection used
    before = dict(stats())
    waited = run_delay_reader()
    q0, t0 = waited(), time.perf_counter()
    await asyncio.gather(*(task(spec["per_task"]) for _ in range(tasks)))
    seconds = time.perf_counter() - t0
    q = waited() - q0
    after = stats()
    await close()
    metrics = _stats_delta(before, after)
    metrics["cpu_wait_s"] = q / (tasks * spec["per_task"])  # the loop thread's, per query
    return seconds, metrics


def _stats_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The timed part's share of the pool's counters (psycopg_pool's keys, fastodbc's too)."""
    out = {}
    for k in POOL_STATS:
        if k in after:
            out[k] = after[k] - before.get(k, 0) if k != "connections_num" else after[k]
    return out


def _threads(spec: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    size, sql, peer, how = spec["pool_size"], spec["sql"], spec["peer"], spec["how"]
    if peer == "fastodbc":
        import fastodbc
        from fastodbc.pool import ConnectionPool

        if how == "connection":
            conn = fastodbc.connect(spec["cs"])

            def one() -> None:
                conn.cursor().execute(sql).fetchone()

            stats: Callable[[], dict] = dict
            close = conn.close
        else:
            pool = ConnectionPool(spec["cs"], min_size=size, max_size=size)
            pool.wait()

            def one() -> None:
                with pool.connection() as c:
                    c.cursor().execute(sql).fetchone()

            stats, close = pool.get_stats, pool.close
    else:
        from psycopg_pool import ConnectionPool as PsycopgPool

        ppool = PsycopgPool(spec["pg_dsn"], min_size=size, max_size=size, open=True)
        ppool.wait()

        def one() -> None:
            with ppool.connection() as c:
                c.execute(sql).fetchone()

        stats, close = ppool.get_stats, ppool.close
    tasks, per_task = spec["tasks"], spec["per_task"]
    threaded = how == "threads"

    def run(n: int) -> float:
        if not threaded:
            t0 = time.perf_counter()
            for _ in range(tasks * n):
                one()
            return time.perf_counter() - t0
        # Every thread started before the clock; the barrier lets them go at once.
        gate = threading.Barrier(tasks + 1)

        def work() -> None:
            gate.wait()
            for _ in range(n):
                one()

        threads = [threading.Thread(target=work) for _ in range(tasks)]
        for t in threads:
            t.start()
        t0 = time.perf_counter()
        gate.wait()
        for t in threads:
            t.join()
        return time.perf_counter() - t0

    run(1)  # warm-up: every connection used
    before = dict(stats())
    waited = run_delay_reader()
    q0 = waited()
    seconds = run(per_task)
    metrics = _stats_delta(before, stats())
    if not threaded:  # the thread doing the work: its wait for a CPU, per query
        metrics["cpu_wait_s"] = (waited() - q0) / (tasks * per_task)
    close()
    return seconds, metrics


def measure_concurrency(spec: dict[str, Any]) -> dict[str, Any]:
    c0 = time.process_time()
    if spec["how"] == "async":
        coro = _fastodbc_tasks(spec) if spec["peer"] == "fastodbc" else _psycopg_tasks(spec)
        seconds, metrics = asyncio.run(coro)
    else:
        seconds, metrics = _threads(spec)
    queries = spec["tasks"] * spec["per_task"]
    # The CPU time includes the warm-up round (a 1/per_task share) and the pool's setup.
    metrics["cpu_per_query_s"] = (time.process_time() - c0) / (queries + spec["tasks"])
    return {"seconds": seconds, "rows": queries, "metrics": metrics}


# ---------------------------------------------------------------------------------------------
# aio_lag: the event loop's delay while a long result is fetched


class Ticker:
    """A task sleeping ``period`` seconds in a loop; each wake-up's delay past its due time is
    a sample (the loop's lag: how long a ready callback waited), with the part of it the loop
    thread spent runnable without a CPU (its ``run_delay`` in /proc/<tid>/schedstat): on a
    shared 2-core host that part is the machine's, the rest (blocked on the GIL, or running
    the loop thread's own work such as a garbage collection) the process's."""

    def __init__(self, period: float) -> None:
        self.period = period
        self.samples: list[tuple[float, float, float]] = []  # (when the sleep began, delay, CPU wait)
        self.stopped = False

    async def run(self) -> None:
        clock, sleep, period, keep = time.perf_counter, asyncio.sleep, self.period, self.samples.append
        waited = run_delay_reader()
        while not self.stopped:
            t, q = clock(), waited()
            await sleep(period)
            keep((t, clock() - t - period, waited() - q))

    def between(self, start: float, end: float) -> list[tuple[float, float]]:
        """(delay, CPU wait) of the sleeps that began in [start, end)."""
        return [(d, q) for t, d, q in self.samples if start <= t < end]

    def worst(self, start: float, end: float, n: int = WORST) -> list[list[float]]:
        """The ``n`` largest delays in [start, end): [ms after start, delay ms, CPU wait ms]."""
        found = sorted(((d, t, q) for t, d, q in self.samples if start <= t < end), reverse=True)[:n]
        return [[round((t - start) * 1e3, 1), round(d * 1e3, 2), round(q * 1e3, 2)] for d, t, q in found]


def run_delay_reader() -> Callable[[], float]:
    """Seconds the calling thread has waited on a run queue so far (Linux schedstat; 0.0
    where it cannot be read)."""
    try:
        fd = os.open(f"/proc/self/task/{threading.get_native_id()}/schedstat", os.O_RDONLY)
    except OSError:
        return lambda: 0.0

    def read() -> float:
        return int(os.pread(fd, 128, 0).split()[1]) / 1e9

    return read


class GcTimes:
    """The cyclic collector's runs (gc.callbacks): when, how long, which generation, on which
    thread. A collection holds the GIL, so the event loop waits for all of it wherever it runs."""

    def __init__(self) -> None:
        self.runs: list[tuple[float, float, int, bool]] = []  # (start, seconds, generation, on the loop's thread)
        self._start: dict[int, float] = {}
        self._loop_thread = threading.get_ident()
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        now, me = time.perf_counter(), threading.get_ident()
        if phase == "start":
            self._start[me] = now
        elif me in self._start:
            t = self._start.pop(me)
            self.runs.append((t, now - t, info["generation"], me == self._loop_thread))

    def stop(self) -> None:
        gc.callbacks.remove(self._callback)

    def figures(self, start: float, end: float) -> dict[str, Any]:
        runs = [r for r in self.runs if start <= r[0] < end]
        if not runs:
            return {"gc_runs": 0, "gc_max_s": 0.0}
        longest = max(runs, key=lambda r: r[1])
        return {
            "gc_runs": len(runs),
            "gc_max_s": longest[1],
            "gc_max_generation": longest[2],
            "gc_max_on_loop_thread": int(longest[3]),
            "gc_total_s": sum(r[1] for r in runs),
        }


def lag_figures(samples: list[tuple[float, float]], prefix: str = "") -> dict[str, Any]:
    """Max, p99 and median of the delays, and the same of each delay less its CPU wait (the
    ``own_`` figures: what the process itself held the loop for)."""
    if not samples:
        return {f"{prefix}ticks": 0}
    out: dict[str, Any] = {f"{prefix}ticks": len(samples)}
    for name, values in (("", [d for d, _ in samples]), ("own_", [max(0.0, d - q) for d, q in samples])):
        ordered = sorted(values)
        out[f"{prefix}{name}lag_max_s"] = ordered[-1]
        out[f"{prefix}{name}lag_p99_s"] = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
        out[f"{prefix}{name}lag_p50_s"] = statistics.median(ordered)
        out[f"{prefix}{name}over_bar"] = sum(v >= LAG_BAR for v in ordered)
    return out


#: What the lag case fetched, kept until its clock stops (as fetchall's rows are elsewhere).
KEPT: list[Any] = []


async def _lagged(spec: dict[str, Any]) -> tuple[float, int, dict[str, Any]]:
    peer, how, sql = spec["peer"], spec["how"], spec["sql"]
    if peer == "psycopg":
        import psycopg

        conn = await psycopg.AsyncConnection.connect(spec["pg_dsn"])
        cur = conn.cursor()

        async def fetch() -> list[Any]:
            await cur.execute(sql)
            return await cur.fetchall()

        async def close() -> None:
            await cur.close()
            await conn.close()

    elif how == "to_thread":
        import fastodbc

        sconn = fastodbc.connect(spec["cs"])
        scur = sconn.cursor()

        async def fetch() -> list[Any]:
            return await asyncio.to_thread(lambda: scur.execute(sql).fetchall())

        async def close() -> None:
            scur.close()
            sconn.close()

    else:
        from fastodbc import aio

        aconn = await aio.connect(spec["cs"])
        acur = aconn.cursor()
        if how == "fetchall":

            async def fetch() -> list[Any]:
                await acur.execute(sql)
                return await acur.fetchall()

        else:

            async def fetch() -> list[Any]:
                await acur.execute(sql)
                kept = []
                keep = kept.append
                async for row in acur:
                    keep(row)
                return kept

        async def close() -> None:
            await acur.close()
            await aconn.close()

    ticker = Ticker(spec.get("tick", 0.001))
    collections = GcTimes()
    ticking = asyncio.create_task(ticker.run())
    t_idle = time.perf_counter()
    await asyncio.sleep(IDLE_S)
    t0 = time.perf_counter()
    rows = await fetch()
    t1 = time.perf_counter()
    ticker.stopped = True
    await ticking
    t_end = time.perf_counter()
    collections.stop()
    n = len(rows)
    KEPT.append(rows)
    metrics = lag_figures(ticker.between(t0, t1))
    metrics.update(lag_figures(ticker.between(t_idle, t0), "idle_"))
    metrics["worst"] = ticker.worst(t0, t1)
    metrics.update(collections.figures(t0, t_end))
    t2 = time.perf_counter()
    await close()
    metrics["close_s"] = time.perf_counter() - t2
    return t1 - t0, n, metrics


def measure_lag(spec: dict[str, Any]) -> dict[str, Any]:
    c0 = time.process_time()
    if spec["how"] == "sync":
        import fastodbc

        conn = fastodbc.connect(spec["cs"])
        cur = conn.cursor()
        t0 = time.perf_counter()
        rows = cur.execute(spec["sql"]).fetchall()
        seconds = time.perf_counter() - t0
        n = len(rows)
        KEPT.append(rows)
        cur.close()
        conn.close()
        metrics: dict[str, Any] = {}
    else:
        seconds, n, metrics = asyncio.run(_lagged(spec))
    metrics["cpu_s"] = time.process_time() - c0
    KEPT.clear()
    return {"seconds": seconds, "rows": n, "metrics": metrics}


# ---------------------------------------------------------------------------------------------
# aio_overhead: await cur.execute("SELECT 1") against the sync call


def measure_overhead(spec: dict[str, Any]) -> dict[str, Any]:
    return asyncio.run(_overhead(spec))


async def _overhead(spec: dict[str, Any]) -> dict[str, Any]:
    sql, calls = spec["sql"], spec["calls"]
    if spec["peer"] == "fastodbc":
        from fastodbc import aio

        aconn = await aio.connect(spec["cs"])
        acur = aconn.cursor()
        # The same connection's sync cursor, called while no async call is running.
        scur = aconn.sync_connection.cursor()

        async def close() -> None:
            scur.close()
            await acur.close()
            await aconn.close()

    else:
        import psycopg

        aconn = await psycopg.AsyncConnection.connect(spec["pg_dsn"])
        sconn = psycopg.connect(spec["pg_dsn"])
        acur, scur = aconn.cursor(), sconn.cursor()

        async def close() -> None:
            await aconn.close()
            sconn.close()

    async def async_exec(n: int) -> None:
        for _ in range(n):
            await acur.execute(sql)

    async def async_both(n: int) -> None:
        for _ in range(n):
            await acur.execute(sql)
            await acur.fetchone()

    async def sync_exec(n: int) -> None:
        for _ in range(n):
            scur.execute(sql)

    async def sync_both(n: int) -> None:
        for _ in range(n):
            scur.execute(sql)
            scur.fetchone()

    kinds = {"async_both": async_both, "sync_both": sync_both, "async_exec": async_exec, "sync_exec": sync_exec}
    spent = dict.fromkeys(kinds, 0.0)
    for fn in kinds.values():  # warm-up: buffers bound, the worker thread running
        await fn(BLOCK)
    names = list(kinds)
    waited = run_delay_reader()
    q0 = waited()
    for i in range(max(1, calls // BLOCK)):
        for name in names[i % 4 :] + names[: i % 4]:
            t0 = time.perf_counter()
            await kinds[name](BLOCK)
            spent[name] += time.perf_counter() - t0
    done = max(1, calls // BLOCK) * BLOCK
    q = waited() - q0
    per = {k: v / done for k, v in spent.items()}
    await close()
    metrics = {f"{k}_s": v for k, v in per.items()}
    # The loop thread's wait for a CPU per call (of the 6 x ``done`` calls, both kinds): the
    # host's share of the times above.
    metrics["cpu_wait_s"] = q / (6 * done)
    return {"seconds": per["async_both"], "rows": done, "metrics": metrics}


# ---------------------------------------------------------------------------------------------
# fairness: another thread's SELECT 1 while one thread iterates a long result


class Hog:
    """A thread iterating a long result row by row (``for row in cur``), as an application reading
    a big result does. Its rows are converted with the GIL held; a thread coming back from a driver
    call asks for it and may wait ``sys.getswitchinterval()`` (5 ms) each time: a ``SELECT 1`` takes
    it back after each of its driver calls (execute, fetchone, ...), so the waits add up (the GIL
    convoy)."""

    def __init__(self, conn: Any, sql: str) -> None:
        self.conn, self.sql = conn, sql
        self.iterating = threading.Event()  # execute returned: the rows are being converted
        self.done = threading.Event()
        self.rows = 0
        self.start = self.end = 0.0  # of the iteration (perf_counter)
        self.error: Exception | None = None
        # A daemon: a measurement that failed on the main thread does not wait for the last rows.
        self.thread = threading.Thread(target=self._run, name="hog", daemon=True)

    def _run(self) -> None:
        try:
            cur = self.conn.cursor()
            cur.execute(self.sql)
            self.start = time.perf_counter()
            self.iterating.set()
            n = 0
            # enumerate counts in C: the loop is ``for row in cur: pass``, nothing more held.
            for n, _row in enumerate(cur, 1):  # noqa: B007 - n is the rows read, after the loop
                pass
            self.end = time.perf_counter()
            self.rows = n
            cur.close()
        except Exception as e:  # noqa: BLE001 - raised again on the measuring thread (finish)
            self.error = e
        finally:
            self.iterating.set()
            self.done.set()

    def begin(self) -> None:
        """Starts the thread; returns once it iterates (the execute, the driver's work with the GIL
        released, is no part of the case)."""
        self.thread.start()
        self.iterating.wait()

    def finish(self, expected: int | None) -> float:
        """Joins the thread; the iteration's rows/s."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        if expected is not None and self.rows != expected:
            raise AssertionError(f"the hog read {self.rows} rows, expected {expected}")
        return self.rows / (self.end - self.start)


def probe(conn: Any, sql: str, stop: Callable[[], bool]) -> list[tuple[float, float, float]]:
    """``SELECT 1`` + ``fetchone`` until ``stop()``: (when the call began, its latency, the calling
    thread's wait for a CPU in it) per call. A new cursor a call, as a request handler on a
    connection kept open (or a pool's) makes one."""
    clock, waited = time.perf_counter, run_delay_reader()
    samples: list[tuple[float, float, float]] = []
    keep = samples.append
    while not stop():
        t, q = clock(), waited()
        conn.cursor().execute(sql).fetchone()
        keep((t, clock() - t, waited() - q))
    return samples


def latency_figures(samples: list[tuple[float, float]], prefix: str = "") -> dict[str, Any]:
    """p50, p99 and max of the latencies, the p99 of each less its CPU wait (``own_``: what the
    process itself made the call wait, the GIL among it) and the calls at or over the bar."""
    out: dict[str, Any] = {f"{prefix}samples": len(samples)}
    if not samples:
        return out
    ordered = sorted(d for d, _ in samples)
    own = sorted(max(0.0, d - q) for d, q in samples)
    p99 = min(len(ordered) - 1, int(0.99 * len(ordered)))
    out[f"{prefix}latency_p50_s"] = statistics.median(ordered)
    out[f"{prefix}latency_p99_s"] = ordered[p99]
    out[f"{prefix}latency_max_s"] = ordered[-1]
    out[f"{prefix}own_latency_p99_s"] = own[p99]
    out[f"{prefix}over_bar"] = sum(d >= FAIRNESS_BAR for d in ordered)
    return out


def measure_fairness(spec: dict[str, Any]) -> dict[str, Any]:
    """The hog alone (its rows/s, and the long query run once before it counts), the ``SELECT 1``
    loop alone for ``reference_s``, then the loop on the main thread while the hog iterates on
    its own, until it ends. Two connections, autocommit off as by default."""
    module = __import__(spec["peer"])  # fastodbc or pyodbc: the same DB-API calls
    sql, probe_sql, skip, expected = spec["sql"], spec["probe_sql"], spec["skip"], spec.get("expected_rows")
    hog_conn, conn = module.connect(spec["cs"]), module.connect(spec["cs"])
    for c in (hog_conn, conn):
        for _ in range(FAIRNESS_WARM):
            c.cursor().execute(probe_sql).fetchone()
    alone = Hog(hog_conn, sql)
    alone.begin()
    alone_rows_per_s = alone.finish(expected)
    deadline = time.perf_counter() + spec["reference_s"]
    idle = probe(conn, probe_sql, lambda: time.perf_counter() >= deadline)[skip:]
    hog = Hog(hog_conn, sql)
    hog.begin()
    hogged = probe(conn, probe_sql, hog.done.is_set)
    rows_per_s = hog.finish(expected)
    conn.close()
    hog_conn.close()
    # The calls that began while the hog iterated (the last may end after it).
    during = [(d, q) for t, d, q in hogged if t < hog.end][skip:]
    if not during:
        raise RuntimeError(f"the hog ended before a SELECT 1 past the first {skip} ({len(hogged)} calls)")
    metrics = latency_figures(during)
    metrics.update(latency_figures([(d, q) for _, d, q in idle], "idle_"))
    metrics.update(
        hog_rows=hog.rows,
        hog_s=hog.end - hog.start,
        hog_rows_per_s=rows_per_s,
        hog_alone_rows_per_s=alone_rows_per_s,
    )
    return {"seconds": metrics["latency_p99_s"], "rows": len(during), "metrics": metrics}


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    gc.collect()
    op = spec["op"]
    if op == "pool":
        return measure_pool(spec)
    if op == "aio_concurrency":
        return measure_concurrency(spec)
    if op == "aio_lag":
        return measure_lag(spec)
    if op == "aio_overhead":
        return measure_overhead(spec)
    if op == "fairness":
        return measure_fairness(spec)
    raise ValueError(f"no pool operation {op}")
