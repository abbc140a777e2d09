"""Instructions per row of fetching a result into a ``pyarrow.Table``, per column kind (issue 33).

Clients: fastodbc (``fetch_arrow_table``), arrow-odbc (``read_arrow_batches`` +
``pa.Table.from_batches``, as bench/worker.py) and the ODBC floor (target/release/odbc-floor
--typed: the driver's own cost with fastodbc's plans for typed columns, the Arrow reader's;
``floor-wide``: its UTF-16 text). Each runs under ``valgrind --tool=callgrind`` at two row counts of
the same table shape; Ir/row = (Ir(large) - Ir(small)) / (rows difference), imports and connects
cancelling. Counts do not depend on machine load. ``--keep DIR`` keeps the callgrind files (a
complete one is reused on the next run); ``--functions KIND`` prints the per-row self cost by object
and function, from the two files' ``callgrind_annotate`` difference.

    export ODBCSYSINI=build/odbc ODBCINI=build/odbc/odbc.ini FASTODBC_TEST_PG='Driver={PostgreSQL Unicode};...'
    python bench/arrow_kinds.py --backend sqlite postgresql --kinds int bool int10 --rows 20000 100000
    python bench/arrow_kinds.py --backend postgresql --functions int10 --keep /tmp/ak

Prints a markdown table. Tables ``ak_<kind>_<rows>`` go to /tmp/kinds.sqlite or the server.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import backend_profiles as profiles  # noqa: E402
import datasets  # noqa: E402
from instructions import parse_total  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FLOOR = ROOT / "target" / "release" / "odbc-floor"
SQLITE_PATH = Path("/tmp/kinds.sqlite")
EPOCH_TS = dt.datetime(2000, 1, 1)


def _one(fn: Callable[[random.Random, int], object]) -> Callable[[int, int], Iterator[tuple]]:
    def rows(n: int, seed: int) -> Iterator[tuple]:
        rnd = random.Random(seed)
        for i in range(n):
            yield (fn(rnd, i),)

    return rows


#: kind: ((column, PostgreSQL type, SQLite type), ...), rows(n, seed). SQLite has no boolean:
#: ``bool`` is declared BOOLEAN there and stores 0/1 integers.
KINDS: dict[str, tuple[tuple[tuple[str, str, str], ...], Callable[[int, int], Iterator[tuple]]]] = {
    "int": ((("v", "integer", "INTEGER"),), _one(lambda r, i: r.getrandbits(32) - (1 << 31))),
    "bigint": ((("v", "bigint", "BIGINT"),), _one(lambda r, i: r.getrandbits(63) - (1 << 62))),
    "decimal": (
        (("v", "numeric(12,2)", "NUMERIC(12,2)"),),
        _one(lambda r, i: Decimal(r.randint(-(10**10), 10**10)).scaleb(-2)),
    ),
    "double": ((("v", "double precision", "DOUBLE"),), _one(lambda r, i: r.uniform(-1e6, 1e6))),
    "date": ((("v", "date", "DATE"),), _one(lambda r, i: dt.date(2000, 1, 1) + dt.timedelta(days=r.randint(0, 9000)))),
    "timestamp": (
        (("v", "timestamp", "TIMESTAMP"),),
        _one(lambda r, i: EPOCH_TS + dt.timedelta(seconds=r.randint(0, 9000 * 86400), milliseconds=r.randint(0, 999))),
    ),
    "bool": ((("v", "boolean", "BOOLEAN"),), _one(lambda r, i: r.random() < 0.5)),
    "varchar5": (
        (("v", "varchar(5)", "VARCHAR(5)"),),
        _one(lambda r, i: datasets.window(r, "ascii", r.randint(1, 5))),
    ),
    "int_null50": (
        (("v", "integer", "INTEGER"),),
        _one(lambda r, i: None if i % 2 else r.getrandbits(32) - (1 << 31)),
    ),
    "int10": (tuple((c.name, c.pg, c.sqlite) for c in datasets.DATASETS["int10"].columns), datasets.int10_rows),
    "mixed": (tuple((c.name, c.pg, c.sqlite) for c in datasets.DATASETS["mixed"].columns), datasets.mixed_rows),
}
CLIENTS = ("floor", "floor-wide", "fastodbc", "arrow-odbc")

CHILD = {
    "fastodbc": "import fastodbc\ncon = fastodbc.connect(CS)\ncur = con.cursor()\ncur.execute(SQL)\n"
    "t = cur.fetch_arrow_table()\n",
    "arrow-odbc": "import arrow_odbc\nimport pyarrow as pa\nconn = arrow_odbc.connect(CS, autocommit=False)\n"
    "reader = conn.read_arrow_batches(SQL)\nt = pa.Table.from_batches(list(reader), schema=reader.schema)\n",
}


def table(kind: str, rows: int) -> str:
    return f"ak_{kind}_{rows}"


def pg_dsn(cs: str) -> str:
    a = profiles.odbc_attributes(cs)
    return f"host={a['host']} port={a['port']} dbname={a['database']} user={a['user']} password={a['password']}"


def load(backend: str, cs: str, kind: str, rows: int) -> None:
    """Creates ``ak_<kind>_<rows>`` with the kind's deterministic rows, unless it has them."""
    cols, gen = KINDS[kind]
    name, seed = table(kind, rows), datasets.hash_seed(kind)
    if backend == "sqlite":
        con = sqlite3.connect(SQLITE_PATH, isolation_level=None)
        have = con.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
        if not have or con.execute(f"SELECT count(*) FROM {name}").fetchone()[0] != rows:
            con.execute("BEGIN")
            con.execute(f"DROP TABLE IF EXISTS {name}")
            con.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {s}' for c, _, s in cols)})")
            marks = ", ".join("?" * len(cols))
            con.executemany(
                f"INSERT INTO {name} VALUES ({marks})", (tuple(map(datasets.sqlite_value, r)) for r in gen(rows, seed))
            )
            con.execute("COMMIT")
        con.close()
        return
    import psycopg

    with psycopg.connect(pg_dsn(cs), autocommit=True) as con:
        if con.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0]:
            if con.execute(f"SELECT count(*) FROM {name}").fetchone()[0] == rows:
                return
        con.execute(f"DROP TABLE IF EXISTS {name}")
        con.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {p}' for c, p, _ in cols)})")
        with con.cursor().copy(f"COPY {name} FROM STDIN") as cp:
            for r in gen(rows, seed):
                cp.write_row(r)
        con.execute(f"VACUUM (FREEZE, ANALYZE) {name}")


def command(client: str, cs: str, sql: str) -> list[str]:
    if client.startswith("floor"):
        # Planned for typed columns, as the Arrow reader plans.
        text = ["--text", "wide" if client == "floor-wide" else "narrow"]
        return [str(FLOOR), "--connect", cs, "--sql", sql, "--typed", *text]
    code = f"CS = {cs!r}\nSQL = {sql!r}\n" + CHILD[client]
    return [sys.executable, "-c", code]


def per_row(small: tuple[int, int], large: tuple[int, int]) -> float:
    """Ir per row from two ``(rows, total Ir)`` runs of the same table shape."""
    (r0, ir0), (r1, ir1) = small, large
    if r1 == r0:
        raise ValueError("two different row counts are needed")
    return (ir1 - ir0) / (r1 - r0)


def kept_total(text: str) -> int | None:
    """The total Ir a finished callgrind file records (its ``summary:`` line), else None."""
    m = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    return int(m.group(1)) if m else None


def callgrind(client: str, cs: str, sql: str, out: str = "/dev/null") -> int:
    """The run's total Ir; a kept file of an earlier complete run is reused (resuming)."""
    if out != "/dev/null" and Path(out).exists() and (total := kept_total(Path(out).read_text())):
        return total
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + command(client, cs, sql)
    # numpy's OpenBLAS threads (pyarrow imports numpy) spin for a varying while: +-150 Ir/row of noise.
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    if proc.returncode != 0:
        raise RuntimeError(f"{client} {sql} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return parse_total(proc.stderr)


def parse_annotate(text: str) -> dict[str, int]:
    """``{"function [object]": self Ir}`` from ``callgrind_annotate --inclusive=no`` output: a
    function's lines of several source files (inlining) and recursion levels (``'2``) merged."""
    costs: dict[str, int] = {}
    objects: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([\s\d.%]+\)\s+)?([^\s:=][^:]*):(.+)$", line)
        if not m or m.group(2) == "PROGRAM TOTALS":
            continue
        rest = m.group(3).strip()
        obj = re.search(r" \[([^\]]+)\]$", rest)
        fn = re.sub(r"'\d+$", "", rest[: obj.start()] if obj else rest)
        if obj:
            objects[fn] = obj.group(1)
        costs[fn] = costs.get(fn, 0) + int(m.group(1).replace(",", ""))
    return {f"{fn} [{objects.get(fn, '?')}]": ir for fn, ir in costs.items()}


def function_costs(small: str, large: str, rows: int) -> list[tuple[str, float]]:
    """Per-row self cost of each function: the difference of the two files' counts / ``rows``."""

    def costs(path: str) -> dict[str, int]:
        args = ["callgrind_annotate", "--inclusive=no", "--auto=no", "--threshold=100", "--show-percs=no", path]
        return parse_annotate(subprocess.run(args, capture_output=True, text=True, check=True).stdout)

    a, b = costs(small), costs(large)
    diff = {k: (b.get(k, 0) - a.get(k, 0)) / rows for k in set(a) | set(b)}
    return sorted(diff.items(), key=lambda kv: -kv[1])


def by_object(costs: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """The per-row costs summed by object (the file name in the brackets)."""
    out: dict[str, float] = {}
    for name, ir in costs:
        obj = name.rsplit("[", 1)[-1].rstrip("]").rsplit("/", 1)[-1]
        out[obj] = out.get(obj, 0.0) + ir
    return sorted(out.items(), key=lambda kv: -kv[1])


def connstr(backend: str) -> str:
    if backend == "sqlite":
        return f"Driver={{SQLite3}};Database={SQLITE_PATH};"
    return os.environ["FASTODBC_TEST_PG"]


def measure(backends: list[str], kinds: list[str], rows: tuple[int, int], clients: list[str], keep: str | None) -> dict:
    """``{(backend, kind, client): Ir/row}``."""
    jobs = []
    for b in backends:
        cs = connstr(b)
        for k in kinds:
            for n in rows:
                load(b, cs, k, n)
                for c in clients:
                    out = f"{keep}/{b}-{k}-{c}-{n}.cg" if keep else "/dev/null"
                    jobs.append((b, k, c, n, cs, f"SELECT * FROM {table(k, n)}", out))
    with ThreadPoolExecutor(max_workers=2) as pool:
        totals = list(pool.map(lambda j: callgrind(j[2], j[4], j[5], j[6]), jobs))
    got = {j[:4]: t for j, t in zip(jobs, totals, strict=True)}
    return {
        (b, k, c): per_row((rows[0], got[(b, k, c, rows[0])]), (rows[1], got[(b, k, c, rows[1])]))
        for b in backends
        for k in kinds
        for c in clients
    }


def markdown(result: dict, backends: list[str], kinds: list[str], clients: list[str]) -> str:
    """Ir/row per client, each client's share (client - floor), fastodbc's share over arrow-odbc's
    (only where arrow-odbc's is positive: its driver path is not the floor's) and the totals' ratio."""
    full = {"floor", "fastodbc", "arrow-odbc"} <= set(clients)
    extra = ["fastodbc - floor", "arrow-odbc - floor", "share ratio", "total ratio"] if full else []
    head = ["backend", "kind", *clients, *extra]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for b in backends:
        for k in kinds:
            v = {c: result[(b, k, c)] for c in clients}
            floor, fo, ao = v.get("floor", 0.0), v.get("fastodbc", 0.0), v.get("arrow-odbc", 0.0)
            share = f"{(fo - floor) / (ao - floor):.2f}" if ao > floor else "-"
            total = f"{fo / ao:.2f}" if ao else "-"
            cells = [f"{x:,.0f}" for x in v.values()]
            cells += [f"{fo - floor:,.0f}", f"{ao - floor:,.0f}", share, total] if full else []
            lines.append(f"| {b} | {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"])
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    ap.add_argument("--rows", nargs=2, type=int, default=[20_000, 100_000])
    ap.add_argument("--clients", nargs="+", default=["floor", "fastodbc", "arrow-odbc"], choices=CLIENTS)
    ap.add_argument("--keep", help="keep the callgrind files in this directory")
    ap.add_argument("--functions", metavar="KIND", help="per-row self cost of the top functions (needs --keep)")
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    rows = (min(args.rows), max(args.rows))
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
    if args.functions:
        if not args.keep:
            ap.error("--functions needs --keep DIR")
        for b in args.backend:
            for c in args.clients:
                small, large = (f"{args.keep}/{b}-{args.functions}-{c}-{n}.cg" for n in rows)
                if not Path(large).exists():
                    measure([b], [args.functions], rows, [c], args.keep)
                costs = function_costs(small, large, rows[1] - rows[0])
                print(f"\n### {b} {args.functions} {c}: self Ir/row by object, then by function\n")
                print("\n".join(f"| {ir:,.1f} | {obj} |" for obj, ir in by_object(costs) if abs(ir) >= 1))
                print()
                print("\n".join(f"| {ir:,.1f} | `{name}` |" for name, ir in costs[: args.top]))
        return 0
    result = measure(args.backend, args.kinds, rows, args.clients, args.keep)
    print(markdown(result, args.backend, args.kinds, args.clients))
    return 0


if __name__ == "__main__":
    sys.exit(main())
