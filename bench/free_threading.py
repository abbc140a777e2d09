"""What a free-threaded CPython buys (issue 34): 1 and 2 threads, each with its own connection,
reading the whole ``mixed`` table (the benchmark's dataset, on SQLite or on the benchmark's
PostgreSQL: ``bench/pg.sh start``, then source bench/data/pg.env) into rows or into Arrow, on
each interpreter given, against pyodbc.

    python bench/free_threading.py --python "3.13t=build/ft-venv/bin/python" \\
        --python "3.13t GIL on=build/ft-venv/bin/python:PYTHON_GIL=1" \\
        --python "3.13=build/ft-bench/cp313/bin/python" [--reps 5] [--scale full|quick]
        [--backend sqlite|postgresql]

Every measurement is a fresh process (this file run as ``--child``) timing the threads from a
barrier to the last one's end, connections made before; the configurations run interleaved,
repetition by repetition, and the table gives medians. ``scaling`` is the 2-thread throughput
over the 1-thread one (2.0: both cores used). Each child checks its row count and the sum of
``id``: a wrong read is an error, not a figure. Prints a markdown table (BENCHMARKS.md's
free-threading section is this output).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIBRARIES = ("fastodbc", "pyodbc")
READS = ("rows", "arrow")


def child(library: str, read: str, threads: int, connstr: str, table: str, rows: int) -> None:
    module = __import__(library)
    connections = [module.connect(connstr) for _ in range(threads)]
    start = threading.Barrier(threads + 1)
    results: list[tuple[int, int]] = [(0, 0)] * threads
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            cur = connections[k].cursor()
            start.wait()
            cur.execute(f"SELECT * FROM {table}")
            if read == "arrow":
                t = cur.fetch_arrow_table()
                ids = t.column(0).to_pylist()
            else:
                ids = [r[0] for r in cur.fetchall()]
            results[k] = (len(ids), sum(ids))
        except BaseException as e:  # noqa: BLE001 - reported by the parent
            errors.append(e)

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    start.wait()
    t0 = time.perf_counter()
    for w in workers:
        w.join()
    seconds = time.perf_counter() - t0
    if errors:
        raise errors[0]
    want = (rows, rows * (rows - 1) // 2)
    if any(r != want for r in results):
        raise SystemExit(f"wrong read: {results} != {want}")
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    print(json.dumps({"seconds": seconds, "gil": gil}))


def measure(python: str, env: dict[str, str], library: str, read: str, threads: int, args: argparse.Namespace) -> dict:
    cmd = [python, str(Path(__file__).resolve()), "--child", library, read, str(threads)]
    cmd += [args.connstr, args.table, str(args.rows)]
    out = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:5])}: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def parse_python(spec: str) -> tuple[str, str, dict[str, str]]:
    label, _, rest = spec.partition("=")
    path, *assignments = rest.split(":")
    return label, path, dict(a.split("=", 1) for a in assignments)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--child", nargs=6, metavar=("LIB", "READ", "THREADS", "CONNSTR", "TABLE", "ROWS"))
    p.add_argument("--python", action="append", default=[], help="label=path[:VAR=value...]")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--scale", default="full", choices=("full", "quick"))
    p.add_argument("--backend", default="sqlite", choices=("sqlite", "postgresql"))
    args = p.parse_args()
    if args.child:
        lib, read, threads, connstr, table, rows = args.child
        child(lib, read, int(threads), connstr, table, int(rows))
        return

    sys.path.insert(0, str(HERE))
    import datasets  # the benchmark's own generator and loader

    args.rows = datasets.SCALES[args.scale]["mixed"]
    args.table = datasets.table_name("mixed", args.scale)
    if args.backend == "postgresql":
        datasets.load_postgresql(args.scale)  # reuses loaded tables
        args.connstr = os.environ["FASTODBC_BENCH_PG"]
    else:
        if not datasets.SQLITE_PATH.exists():
            datasets.load_sqlite(args.scale)
        args.connstr = datasets.sqlite_cs(datasets.SQLITE_PATH)

    configs = []
    for spec in args.python:
        label, path, env = parse_python(spec)
        for library in LIBRARIES:
            has = subprocess.run([path, "-c", f"import {library}"], env={**os.environ, **env}, capture_output=True)
            if has.returncode != 0:
                continue
            for read in READS if library == "fastodbc" else ("rows",):
                configs.append((label, path, env, library, read))
    samples: dict[tuple, list[dict]] = {}
    for rep in range(args.reps):
        turn = rep % len(configs)  # the order rotates: no configuration always first
        for label, path, env, library, read in configs[turn:] + configs[:turn]:
            for threads in (1, 2):
                m = measure(path, env, library, read, threads, args)
                samples.setdefault((label, library, read, threads), []).append(m)
        print(f"rep {rep + 1}/{args.reps} done", file=sys.stderr)

    print(f"{args.backend} `{args.table}` ({args.rows:,} rows, 9 columns), each thread reading all of it;", end=" ")
    print(f"medians of {args.reps}.\n")
    print("| interpreter | client | read | GIL | 1 thread (s) | 2 threads (s) | scaling | rows/s, 2 threads |")
    print("|---|---|---|---|---|---|---|---|")
    for label, _, _, library, read in configs:
        one = samples[(label, library, read, 1)]
        two = samples[(label, library, read, 2)]
        t1 = statistics.median(m["seconds"] for m in one)
        t2 = statistics.median(m["seconds"] for m in two)
        gil = "on" if any(m["gil"] for m in two) else "off"
        print(
            f"| {label} | {library} | {read} | {gil} | {t1:.3f} | {t2:.3f} | {2 * t1 / t2:.2f}x |"
            f" {2 * args.rows / t2:,.0f} |"
        )


if __name__ == "__main__":
    main()
