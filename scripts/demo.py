"""`make demo`: the main job on the embedded default (SQLite through the SQLite3 ODBC driver).

Creates a sample database of orders, queries it through fastodbc and prints a few rows and the
fetch rate, as Python rows and as an Arrow table (with pyarrow installed: the `arrow` extra,
which `make` installs), then a small aggregate over the Arrow table; then exports the orders to Parquet with the
`fastodbc` command line and loads the file back into a new table with `Cursor.ingest_parquet`;
then serves look-ups by key from 50 asyncio tasks sharing an `AsyncConnectionPool` of 4, with
the event loop's longest stall while they run. With pyodbc installed it
also times pyodbc on the same query, in the same process.
"""

from __future__ import annotations

import asyncio
import datetime
import decimal
import os
import sqlite3
import sys
import tempfile
import time

import fastodbc

ROWS = 200_000


def make_database(path: str) -> None:
    # The sample data is written with Python's own sqlite3 module: fast and independent of
    # the driver under demonstration.
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer VARCHAR(40), city VARCHAR(40),"
        " amount NUMERIC(12,2), placed TIMESTAMP, note VARCHAR(100))"
    )
    cities = ["Zürich", "Kraków", "Москва", "東京", "São Paulo", "Oslo"]
    start = datetime.datetime(2024, 1, 1)
    con.executemany(
        "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)",
        (
            (
                i,
                f"customer {i % 5000:05d}",
                cities[i % len(cities)],
                str(decimal.Decimal(i % 100_000) / 100),
                (start + datetime.timedelta(minutes=i)).isoformat(sep=" "),
                "express ✈" if i % 7 == 0 else "standard",
            )
            for i in range(ROWS)
        ),
    )
    con.commit()
    con.close()


QUERY = "SELECT id, customer, city, amount, placed, note FROM orders"


def arrow_path(connstring: str, rows: int, rows_elapsed: float) -> None:
    """The same query as an Arrow table, beside the rows path; then an aggregate over it."""
    try:
        import pyarrow  # noqa: F401 - the Arrow path needs it installed
    except ImportError:
        print("\n(pyarrow is not installed: pip install fastodbc[arrow] for the Arrow path)")
        return
    with fastodbc.connect(connstring) as cnxn:
        cursor = cnxn.cursor()
        started = time.perf_counter()
        table = cursor.execute(QUERY).fetch_arrow_table()
        elapsed = time.perf_counter() - started
    print(f"fastodbc arrow:    {table.num_rows:,} rows x {table.num_columns} columns in {elapsed:.3f} s "
          f"= {table.num_rows / elapsed:,.0f} rows/s  ({rows_elapsed / elapsed:.1f}x the rows path)")
    assert table.num_rows == rows
    print("  schema: " + ", ".join(f"{f.name} {f.type}" for f in table.schema))
    totals = table.group_by("city").aggregate([("amount", "sum"), ("id", "count")])
    totals = totals.sort_by([("amount_sum", "descending")])
    print("  orders by city (pyarrow group_by over the fetched table):")
    for row in totals.to_pylist():
        print(f"    {row['city']:<10} {row['id_count']:>7,} orders  {row['amount_sum']:>14,.2f}")


def export_and_reload(connstring: str, tmp: str) -> None:
    """`fastodbc export` of the orders to Parquet (the command line, as a user runs it), then
    the file loaded back into a new table with `Cursor.ingest_parquet`, checked equal."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return
    import subprocess

    out = os.path.join(tmp, "orders.parquet")
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "fastodbc", "export", "--quiet", connstring, QUERY, out], check=True
    )
    exported = time.perf_counter() - start
    size = os.path.getsize(out)
    print(f"\nfastodbc export:   {pq.ParquetFile(out).metadata.num_rows:,} rows to Parquet "
          f"({size / 1e6:.1f} MB, zstd) in {exported:.2f} s")
    with fastodbc.connect(connstring) as cnxn:
        cursor = cnxn.cursor()
        start = time.perf_counter()
        n = cursor.ingest_parquet("orders_copy", out, mode="replace")
        loaded = time.perf_counter() - start
        print(f"fastodbc ingest:   {n:,} rows from Parquet into a new table in {loaded:.2f} s "
              f"= {n / loaded:,.0f} rows/s")
        check = "SELECT COUNT(*), SUM(amount), COUNT(DISTINCT city), MAX(placed) FROM {}"
        original = tuple(cursor.execute(check.format("orders")).fetchone())
        copy = tuple(cursor.execute(check.format("orders_copy")).fetchone())
        print(f"  reloaded table equals the original (count, sum, cities, latest): {copy == original}")
        if copy != original:
            raise SystemExit(f"reload differs: {copy} != {original}")


def partitioned_read(connstring: str, rows: int) -> None:
    """The orders planned as 4 partitions of their date (plus the NULL ones), read over 4
    connections at once, checked equal to the one-connection read."""
    try:
        import pyarrow  # noqa: F401 - the parallel read returns a pyarrow.Table
    except ImportError:
        return
    started = time.perf_counter()
    with fastodbc.partition(connstring, QUERY, on="placed", partitions=4) as plan:
        table = plan.read()
    elapsed = time.perf_counter() - started
    print(f"\nfastodbc partition: {table.num_rows:,} rows over {len(plan.partitions)} connections "
          f"in {elapsed:.3f} s ({plan.method} bounds on placed; {plan.consistency})")
    for line in plan.explain().splitlines()[2:]:
        print("  " + line.strip())
    with fastodbc.connect(connstring) as cnxn:
        whole = cnxn.cursor().execute(QUERY).fetch_arrow_table()
    same = table.sort_by("id").equals(whole.sort_by("id"))
    print(f"  equals the one-connection read: {same}")
    if not same or table.num_rows != rows:
        raise SystemExit("the partitioned read differs from the one-connection read")


def pooled_lookups(connstring: str) -> None:
    """50 tasks x 40 look-ups by key on a pool of 4: each task borrows a connection per look-up
    (`fastodbc.aio`: the driver's work on each connection's own thread), while a 1 ms ticker
    measures how long the event loop ever waited."""
    from fastodbc import aio

    async def run() -> None:
        async with aio.AsyncConnectionPool(connstring, min_size=4, max_size=4) as pool:
            await pool.wait()
            stalls = [0.0]
            done = asyncio.Event()

            async def ticker() -> None:
                while not done.is_set():
                    t = time.perf_counter()
                    await asyncio.sleep(0.001)
                    stalls[0] = max(stalls[0], time.perf_counter() - t - 0.001)

            async def customer(task: int) -> float:
                total = 0.0
                for i in range(40):
                    async with pool.connection() as cnxn:
                        cur = await cnxn.execute("SELECT amount FROM orders WHERE id = ?", task * 40 + i + 1)
                        total += float(await cur.fetchval())
                return total

            tick = asyncio.create_task(ticker())
            started = time.perf_counter()
            totals = await asyncio.gather(*(customer(t) for t in range(50)))
            elapsed = time.perf_counter() - started
            done.set()
            await tick
            async with pool.connection() as cnxn:
                expected = await (await cnxn.execute("SELECT SUM(amount) FROM orders WHERE id <= 2000")).fetchval()
            if round(sum(totals), 2) != round(float(expected), 2):
                raise SystemExit(f"pooled look-ups sum {sum(totals)} != {expected}")
            print(f"\nfastodbc.aio pool: {50 * 40:,} look-ups from 50 tasks on 4 connections in {elapsed:.2f} s "
                  f"= {50 * 40 / elapsed:,.0f}/s; sum {sum(totals):,.2f}; longest event-loop stall "
                  f"{stalls[0] * 1000:.1f} ms")

    asyncio.run(run())


def timed_fetch(module, connstring: str) -> tuple[float, list]:
    cnxn = module.connect(connstring)
    cursor = cnxn.cursor()
    started = time.perf_counter()
    rows = cursor.execute(QUERY).fetchall()
    elapsed = time.perf_counter() - started
    cnxn.close()
    return elapsed, rows


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "demo.sqlite")
        make_database(path)
        connstring = f"Driver={{SQLite3}};Database={path}"
        with fastodbc.connect(connstring) as cnxn:
            cursor = cnxn.cursor()
            print("A few orders placed in Tokyo:")
            for row in cursor.execute(
                "SELECT id, customer, city, amount, placed FROM orders WHERE city = ? "
                "ORDER BY id LIMIT 5",
                "東京",
            ):
                print(f"  #{row.id:<6} {row.customer:<16} {row.city:<6} {row.amount:>9} {row.placed}")
        elapsed, rows = timed_fetch(fastodbc, connstring)
        print(f"\nfastodbc fetchall: {len(rows):,} rows x 6 columns in {elapsed:.3f} s "
              f"= {len(rows) / elapsed:,.0f} rows/s")
        arrow_path(connstring, len(rows), elapsed)
        export_and_reload(connstring, tmp)
        partitioned_read(connstring, len(rows))
        pooled_lookups(connstring)
        try:
            import pyodbc
        except ImportError:
            return 0
        base, prows = timed_fetch(pyodbc, connstring)
        assert [tuple(r) for r in prows[:100]] == [tuple(r) for r in rows[:100]]
        print(f"pyodbc   fetchall: {len(prows):,} rows in {base:.3f} s "
              f"= {len(prows) / base:,.0f} rows/s  (fastodbc {base / elapsed:.1f}x faster; one run,"
              " see BENCHMARKS.md for medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
