"""Deterministic benchmark datasets, loaded into SQLite (stdlib sqlite3) and PostgreSQL (psycopg COPY):
the backends with fetch cases (bench/backend_profiles.py).

Every table is named ``<dataset>_<rows>`` (``int10_1000000``) so full and quick runs keep their
own tables side by side. A ``bench_meta`` table in each database records the row count and the
generator version of every loaded table: a table is reloaded only when either differs, so the
data is generated once and reused by later runs. The data lives under bench/data/ (git-ignored).

Run directly to (re)load: ``python bench/datasets.py --scale quick [--backend sqlite|postgresql]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import backend_profiles as profiles

#: Bump when any generator changes: cached tables of another version are reloaded.
GENERATOR_VERSION = 1

BENCH_DIR = Path(__file__).resolve().parent
DATA_DIR = BENCH_DIR / "data"
SQLITE_PATH = DATA_DIR / "bench.sqlite"
#: Inserts go to their own file so that the fetch datasets are never written to.
SQLITE_INSERT_PATH = DATA_DIR / "insert.sqlite"
INSERT_TABLE = "ins_mixed"

# Row counts per scale. "rows" of the mixed family: the big set (fetchall/iter/fetchmany), a
# mid set (fetchmany memory must not grow with the row count) and the small set (fetchone).
SCALES: dict[str, dict[str, int]] = {
    "full": {
        "int10": 1_000_000,
        "varchar5": 200_000,
        "unicode3": 200_000,
        "mixed": 400_000,
        "mixed_mid": 31_000,
        "mixed_small": 1_000,
        "blob1": 1_000,
        "insert": 100_000,
    },
    "quick": {
        "int10": 100_000,
        "varchar5": 50_000,
        "unicode3": 50_000,
        "mixed": 50_000,
        "mixed_mid": 10_000,
        "mixed_small": 1_000,
        "blob1": 200,
        "insert": 10_000,
    },
}


@dataclass(frozen=True)
class Column:
    name: str
    pg: str
    sqlite: str
    #: MariaDB's type, where a dataset is created there (the bulk load cases' table of ``mixed``).
    mariadb: str = ""


@dataclass(frozen=True)
class Dataset:
    name: str  # generator family: int10, varchar5, unicode3, mixed, blob1
    columns: tuple[Column, ...]
    rows_fn: Callable[[int, int], Iterator[tuple]]
    seed: int

    def rows(self, n: int) -> Iterator[tuple]:
        return self.rows_fn(n, self.seed)


# ---------------------------------------------------------------------------------------------
# Text pools: values are windows of long deterministic strings (fast to generate, varied).

_ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789     "
_LATIN1 = "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿßÀÉÖÜ" + "abcdefghij  "
_CYRILLIC = "".join(chr(c) for c in range(0x410, 0x450)) + "   "
_CJK = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 400))
_EMOJI = "".join(chr(c) for c in range(0x1F600, 0x1F650)) + "".join(chr(c) for c in range(0x1F300, 0x1F340))


def _pool(alphabet: str, seed: int, size: int = 1 << 16) -> str:
    rnd = random.Random(seed)
    return "".join(rnd.choices(alphabet, k=size))


_POOLS: dict[str, str] = {}


def pool(script: str) -> str:
    if script not in _POOLS:
        alphabet = {"ascii": _ASCII, "latin1": _LATIN1, "cyrillic": _CYRILLIC, "cjk": _CJK, "emoji": _EMOJI}[script]
        _POOLS[script] = _pool(alphabet, hash_seed(script))
    return _POOLS[script]


def hash_seed(text: str) -> int:
    """A stable seed from a name (``hash()`` of str is randomised per process)."""
    h = 2166136261
    for b in text.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def window(rnd: random.Random, script: str, n: int) -> str:
    p = pool(script)
    o = rnd.randrange(len(p) - n)
    return p[o : o + n]


def fit_bytes(s: str, limit: int) -> str:
    """Trims ``s`` so that its UTF-8 form fits ``limit`` bytes.

    sqliteodbc reports VARCHAR(n) as n and arrow-odbc sizes its buffers from that, so values must
    fit the declared size in bytes as well as in characters: no driver meets truncation here.
    """
    while len(s.encode()) > limit:
        s = s[: max(0, len(s) - max(1, (len(s.encode()) - limit) // 4))]
    return s


# ---------------------------------------------------------------------------------------------
# Generators. Each yields plain Python values (int, str, Decimal, float, date, datetime, bool,
# bytes, None); the loaders adapt them per backend.


def int10_rows(n: int, seed: int) -> Iterator[tuple]:
    rnd = random.Random(seed)
    bits = rnd.getrandbits
    off = 1 << 31
    for _ in range(n):
        yield (
            bits(32) - off,
            bits(32) - off,
            bits(32) - off,
            bits(32) - off,
            bits(32) - off,
            bits(32) - off,
            bits(32) - off,
            bits(32) - off,
            bits(32) - off,
            bits(32) - off,
        )


def varchar5_rows(n: int, seed: int) -> Iterator[tuple]:
    rnd = random.Random(seed)
    for _ in range(n):
        yield tuple(window(rnd, "ascii", rnd.randint(10, 100)) for _ in range(5))


_SCRIPTS = ("ascii", "latin1", "cyrillic", "cjk", "emoji")


def unicode3_rows(n: int, seed: int) -> Iterator[tuple]:
    """Column a: one script per value; b: ASCII with one trailing non-ASCII character;
    c: segments of several scripts in one value."""
    rnd = random.Random(seed)
    for _ in range(n):
        a = fit_bytes(window(rnd, rnd.choice(_SCRIPTS), rnd.randint(5, 80)), 200)
        b = window(rnd, "ascii", rnd.randint(20, 120)) + rnd.choice("éЖ中😀")
        c = fit_bytes("".join(window(rnd, rnd.choice(_SCRIPTS), rnd.randint(3, 20)) for _ in range(4)), 200)
        yield (a, b, c)


_EPOCH_DATE = dt.date(2000, 1, 1)
_EPOCH_TS = dt.datetime(2000, 1, 1)


def mixed_rows(n: int, seed: int) -> Iterator[tuple]:
    """int, bigint, numeric(18,4), double, varchar(50), varchar(200) (20% non-ASCII), date,
    timestamp (milliseconds: what sqliteodbc keeps), boolean; ~10% NULLs except in ``id``."""
    rnd = random.Random(seed)
    rand = rnd.random

    def maybe(v: object) -> object:
        return None if rand() < 0.1 else v

    for i in range(n):
        if rand() < 0.2:
            s200 = fit_bytes(
                window(rnd, "ascii", rnd.randint(5, 60)) + window(rnd, rnd.choice(_SCRIPTS[1:]), rnd.randint(2, 30)),
                200,
            )
        else:
            s200 = window(rnd, "ascii", rnd.randint(10, 200))
        yield (
            i,
            maybe(rnd.getrandbits(63) - (1 << 62)),
            maybe(Decimal(rnd.randint(-(10**13), 10**13)).scaleb(-4)),
            maybe(rnd.uniform(-1e6, 1e6)),
            maybe(window(rnd, "ascii", rnd.randint(5, 50))),
            maybe(s200),
            maybe(_EPOCH_DATE + dt.timedelta(days=rnd.randint(0, 9000))),
            maybe(_EPOCH_TS + dt.timedelta(seconds=rnd.randint(0, 9000 * 86400), milliseconds=rnd.randint(0, 999))),
            maybe(rand() < 0.5),
        )


def blob1_rows(n: int, seed: int) -> Iterator[tuple]:
    rnd = random.Random(seed)
    for _ in range(n):
        yield (rnd.randbytes(64 * 1024),)


DATASETS: dict[str, Dataset] = {
    "int10": Dataset("int10", tuple(Column(f"c{i}", "integer", "INTEGER") for i in range(10)), int10_rows, 10),
    "varchar5": Dataset(
        "varchar5", tuple(Column(f"s{i}", "varchar(100)", "VARCHAR(100)") for i in range(5)), varchar5_rows, 5
    ),
    "unicode3": Dataset("unicode3", tuple(Column(c, "varchar(200)", "VARCHAR(200)") for c in "abc"), unicode3_rows, 3),
    "mixed": Dataset(
        "mixed",
        (
            Column("id", "integer", "INTEGER", "INT"),
            Column("big", "bigint", "BIGINT", "BIGINT"),
            Column("num", "numeric(18,4)", "NUMERIC(18,4)", "DECIMAL(18,4)"),
            Column("dbl", "double precision", "DOUBLE", "DOUBLE"),
            Column("s50", "varchar(50)", "VARCHAR(50)", "VARCHAR(50)"),
            Column("s200", "varchar(200)", "VARCHAR(200)", "VARCHAR(200)"),
            Column("d", "date", "DATE", "DATE"),
            # DATETIME(3): the milliseconds the rows carry (DATETIME keeps none).
            Column("ts", "timestamp", "TIMESTAMP", "DATETIME(3)"),
            Column("flag", "boolean", "BOOLEAN", "BOOLEAN"),
        ),
        mixed_rows,
        9,
    ),
    "blob1": Dataset("blob1", (Column("data", "bytea", "BLOB"),), blob1_rows, 1),
}

#: Seed of the rows the INSERT benchmark sends (not the rows of any fetch table).
INSERT_SEED = 4242

# Which generator each scale key uses.
FAMILY = {"mixed_mid": "mixed", "mixed_small": "mixed"}


def sqlite_cs(path: Path) -> str:
    return profiles.SQLITE.connection(path)["cs"]


def table_name(key: str, scale: str) -> str:
    return f"{FAMILY.get(key, key)}_{SCALES[scale][key]}"


def tables_for(scale: str) -> dict[str, tuple[Dataset, int]]:
    """``{table name: (dataset, rows)}`` of every fetch table of a scale."""
    out = {}
    for key, rows in SCALES[scale].items():
        if key == "insert":
            continue
        out[table_name(key, scale)] = (DATASETS[FAMILY.get(key, key)], rows)
    return out


def insert_rows(n: int) -> list[tuple]:
    return list(mixed_rows(n, INSERT_SEED))


def mixed_arrow_table(rows: list[tuple]) -> Any:
    """Rows of ``mixed`` as a ``pyarrow.Table`` of the types a client would give them (timestamps
    in milliseconds, what the rows carry): the input of the Arrow inserts and bulk loads."""
    import pyarrow as pa

    schema = pa.schema(
        [
            ("id", pa.int32()),
            ("big", pa.int64()),
            ("num", pa.decimal128(18, 4)),
            ("dbl", pa.float64()),
            ("s50", pa.string()),
            ("s200", pa.string()),
            ("d", pa.date32()),
            ("ts", pa.timestamp("ms")),
            ("flag", pa.bool_()),
        ]
    )
    cols = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
    return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, schema, strict=True)], schema=schema)


# ---------------------------------------------------------------------------------------------
# SQLite


def sqlite_value(v: object) -> object:
    if isinstance(v, Decimal):
        return str(v)  # NUMERIC affinity stores it as a number
    if isinstance(v, dt.datetime):
        return v.isoformat(sep=" ", timespec="milliseconds")
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, bool):
        return int(v)
    return v


def _sqlite_create(con: sqlite3.Connection, table: str, ds: Dataset) -> None:
    con.execute(f"DROP TABLE IF EXISTS {table}")
    cols = ", ".join(f"{c.name} {c.sqlite}" for c in ds.columns)
    con.execute(f"CREATE TABLE {table} ({cols})")


def load_sqlite(scale: str, log: Callable[[str], None] = print) -> None:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(SQLITE_PATH, isolation_level=None)
    con.execute("CREATE TABLE IF NOT EXISTS bench_meta (tbl TEXT PRIMARY KEY, rows INTEGER, version INTEGER)")
    meta = {t: (r, v) for t, r, v in con.execute("SELECT tbl, rows, version FROM bench_meta")}
    for table, (ds, rows) in tables_for(scale).items():
        if meta.get(table) == (rows, GENERATOR_VERSION):
            continue
        t0 = time.perf_counter()
        con.execute("BEGIN")
        _sqlite_create(con, table, ds)
        marks = ", ".join("?" * len(ds.columns))
        con.executemany(f"INSERT INTO {table} VALUES ({marks})", (tuple(map(sqlite_value, r)) for r in ds.rows(rows)))
        con.execute("INSERT OR REPLACE INTO bench_meta VALUES (?, ?, ?)", (table, rows, GENERATOR_VERSION))
        con.execute("COMMIT")
        log(f"datasets: sqlite {table}: {rows} rows loaded in {time.perf_counter() - t0:.1f} s")
    con.close()
    ins = sqlite3.connect(SQLITE_INSERT_PATH, isolation_level=None)
    _sqlite_create(ins, INSERT_TABLE, DATASETS["mixed"])
    ins.close()


# ---------------------------------------------------------------------------------------------
# PostgreSQL


def pg_dsn() -> str:
    dsn = os.environ.get("FASTODBC_BENCH_PG_DSN")
    if not dsn:
        raise SystemExit("datasets: FASTODBC_BENCH_PG_DSN is not set (source bench/data/pg.env)")
    return dsn


def load_postgresql(scale: str, log: Callable[[str], None] = print) -> None:
    import psycopg

    with psycopg.connect(pg_dsn(), autocommit=True) as con:
        con.execute("CREATE TABLE IF NOT EXISTS bench_meta (tbl text PRIMARY KEY, rows integer, version integer)")
        meta = {t: (r, v) for t, r, v in con.execute("SELECT tbl, rows, version FROM bench_meta")}
        loaded = []
        for table, (ds, rows) in tables_for(scale).items():
            # Also check the table itself: the cluster may have been re-created.
            exists = con.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()[0]
            if exists and meta.get(table) == (rows, GENERATOR_VERSION):
                continue
            t0 = time.perf_counter()
            with con.transaction():
                con.execute(f"DROP TABLE IF EXISTS {table}")
                cols = ", ".join(f"{c.name} {c.pg}" for c in ds.columns)
                con.execute(f"CREATE TABLE {table} ({cols})")
                with con.cursor().copy(f"COPY {table} FROM STDIN") as cp:
                    for r in ds.rows(rows):
                        cp.write_row(r)
                con.execute(
                    "INSERT INTO bench_meta VALUES (%s, %s, %s) ON CONFLICT (tbl) DO UPDATE"
                    " SET rows = excluded.rows, version = excluded.version",
                    (table, rows, GENERATOR_VERSION),
                )
            loaded.append(table)
            log(f"datasets: postgresql {table}: {rows} rows loaded in {time.perf_counter() - t0:.1f} s")
        for table in loaded:
            # Set hint bits and statistics now, not during the first timed scan.
            con.execute(f"VACUUM (FREEZE, ANALYZE) {table}")
        cols = ", ".join(f"{c.name} {c.pg}" for c in DATASETS["mixed"].columns)
        con.execute(f"CREATE TABLE IF NOT EXISTS {INSERT_TABLE} ({cols})")


#: The loader of each native client (the backends with fetch cases name theirs).
LOADERS: dict[str, Callable[..., None]] = {"sqlite3": load_sqlite, "psycopg": load_postgresql}


def load(profile: profiles.Backend, scale: str, log: Callable[[str], None] = print) -> None:
    """The fetch datasets of ``scale`` into ``profile``'s database (those not loaded yet)."""
    LOADERS[profile.native](scale, log=log)


def main() -> None:
    fetch = [p.name for p in profiles.BACKENDS if p.fetch_cases]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", choices=sorted(SCALES), default="quick")
    ap.add_argument("--backend", choices=[*fetch, "all"], default="all")
    args = ap.parse_args()
    for profile in profiles.selected(fetch if args.backend == "all" else [args.backend]):
        load(profile, args.scale)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
