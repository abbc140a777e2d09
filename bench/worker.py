"""One measurement in a fresh process: ``python bench/worker.py '<json spec>'``.

The orchestrator (bench/run.py) starts one worker per (peer, operation, repetition), so that
``ru_maxrss`` (the RSS high-water mark) belongs to that operation alone and no peer inherits
another's heap. The worker imports only its own peer, connects, prepares its input, then times
the operation with ``time.perf_counter`` and prints one JSON line:

    {"seconds": s, "rows": n, "rss_before": bytes, "maxrss": bytes, "error": null}

``seconds`` is per operation: operations that are too short to time once (SELECT 1, connect,
describe, the small-set fetches) run ``inner`` times and report the mean. Python's cyclic GC
stays enabled, as in an application. The Arrow case adds ``"arrow_types"`` (``name: type`` of
each column of the table returned, read after the clock). The bulk loads of issue 19 are bench/worker_bulk.py's; their
check after the clock adds ``"wrong"`` (the first difference from the input, or null). The pool
and asyncio cases of issue 20 are bench/worker_pool.py's; they add ``"metrics"`` (figures beside
the time: the event loop's lag, the sync calls' times, the pools' statistics); so do the
partitioned reads (bench/worker_parallel.py: the client's and the server's CPU time).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import backend_profiles as profiles  # noqa: E402 - bench/ is not a package
import bulk_check  # noqa: E402
import datasets  # noqa: E402
import native_clients  # noqa: E402
import worker_bulk  # noqa: E402
import worker_parallel  # noqa: E402
import worker_pool  # noqa: E402

FETCHMANY_SIZE = 10_000
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_now() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def maxrss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


# ---------------------------------------------------------------------------------------------
# Peers: each returns an object with connect() and the DB-API calls the operations use.


class DbapiPeer:
    """fastodbc, pyodbc, stdlib sqlite3 and psycopg all speak DB-API: one implementation."""

    def __init__(self, spec: dict[str, Any]):
        self.spec = spec
        self.name = spec["peer"]
        self.backend = spec["backend"]
        if self.name in ("fastodbc", "pyodbc", "pyodbc-fem"):
            self.module = __import__("fastodbc" if self.name == "fastodbc" else "pyodbc")
            autocommit = bool(spec.get("autocommit"))
            self.connect = lambda: self.module.connect(spec["cs"], autocommit=autocommit)
        elif self.name == "sqlite3":
            import sqlite3
            from decimal import Decimal

            sqlite3.register_adapter(Decimal, str)
            self.connect = lambda: sqlite3.connect(spec["sqlite_path"])
        elif self.name in ("psycopg", "psycopg-copy"):
            import psycopg

            self.connect = lambda: psycopg.connect(spec["pg_dsn"])
        else:
            raise ValueError(f"unknown DB-API peer {self.name}")

    def marks(self, n: int) -> str:
        return ", ".join(["%s" if self.name.startswith("psycopg") else "?"] * n)


#: What fetchall-like operations return, kept alive until the clock has stopped: freeing the
#: rows is not part of fetching them (the ODBC floor frees no values either). Closing the
#: cursor is: it is where a driver releases its copy of the result (pyodbc closes inside
#: fetchall, at the end of the rows), and the floor times it too.
KEPT: list[Any] = []


def op_fetchall(peer: DbapiPeer, conn: Any, sql: str, inner: int) -> int:
    cur = conn.cursor()
    n = 0
    for _ in range(inner):
        cur.execute(sql)
        rows = cur.fetchall()
        KEPT.append(rows)
        n = len(rows)
    cur.close()
    return n


# Iteration and the fetchone loop are compared with fetchall (issue 3: within 1.1x / 1.3x), so
# they do the same work inside the clock: every row is kept until the clock stops (appending
# costs a few ns a row; freeing 1,000,000 strings is ~50 ms that fetchall is not charged) and
# the cursor is closed, where the driver frees its copy of the result.


def op_iter(peer: DbapiPeer, conn: Any, sql: str, inner: int) -> int:
    cur = conn.cursor()
    n = 0
    for _ in range(inner):
        cur.execute(sql)
        kept = []
        keep = kept.append
        for row in cur:
            keep(row)
        KEPT.append(kept)
        n = len(kept)
    cur.close()
    return n


def op_fetchmany(peer: DbapiPeer, conn: Any, sql: str, inner: int) -> int:
    cur = conn.cursor()
    for _ in range(inner):
        n = 0
        cur.execute(sql)
        while True:
            rows = cur.fetchmany(FETCHMANY_SIZE)
            if not rows:
                break
            n += len(rows)
    return n


def op_fetchone(peer: DbapiPeer, conn: Any, sql: str, inner: int) -> int:
    cur = conn.cursor()
    n = 0
    for _ in range(inner):
        cur.execute(sql)
        kept = []
        keep = kept.append
        fetchone = cur.fetchone
        while (row := fetchone()) is not None:
            keep(row)
        KEPT.append(kept)
        n = len(kept)
    cur.close()
    return n


# Arrow (issue 18). The table or DataFrame is kept until the clock stops, as fetchall's rows;
# pyarrow and pandas are imported before it starts (prepare), as a client has them loaded.


def op_arrow(peer: DbapiPeer, conn: Any, sql: str, inner: int) -> int:
    cur = conn.cursor()
    n = 0
    for _ in range(inner):
        cur.execute(sql)
        table = cur.fetch_arrow_table()
        KEPT.append(table)
        n = table.num_rows
    cur.close()
    return n


def op_record_batch(peer: DbapiPeer, conn: Any, sql: str, inner: int) -> int:
    """fetch_record_batch iterated, every batch dropped once counted: the streaming case, whose
    peak memory must not grow with the result (batch_rows: the case's, else the default)."""
    cur = conn.cursor()
    batch_rows = peer.spec.get("batch_rows")
    n = 0
    for _ in range(inner):
        n = 0
        cur.execute(sql)
        for batch in cur.fetch_record_batch(batch_rows=batch_rows):
            n += batch.num_rows
    cur.close()
    return n


def op_df(peer: DbapiPeer, conn: Any, sql: str, inner: int) -> int:
    """fastodbc's fetch_df; pyodbc's counterpart is pandas.read_sql over its connection, as a
    user without an ADBC driver or SQLAlchemy calls it (defaults: coerce_float=True)."""
    n = 0
    for _ in range(inner):
        if peer.name == "fastodbc":
            cur = conn.cursor()
            cur.execute(sql)
            df = cur.fetch_df()
            cur.close()
        else:
            df = read_sql(sql, conn)
        KEPT.append(df)
        n = len(df)
    return n


def read_sql(sql: str, conn: Any) -> Any:
    import warnings

    import pandas

    with warnings.catch_warnings():
        # "pandas only supports SQLAlchemy connectable ...": the DB-API path is the one measured.
        warnings.simplefilter("ignore", UserWarning)
        return pandas.read_sql(sql, conn)


def check_df(spec: dict[str, Any]) -> dict[str, Any]:
    """fetch_df's DataFrame against read_sql's over pyodbc, untimed (bench/df_equal.py):
    {"equal": bool, "detail": the first difference or None, "rows": n}."""
    import pyodbc

    import df_equal
    import fastodbc

    sql = spec["sql"]
    fast = fastodbc.connect(spec["cs"])
    cur = fast.cursor()
    cur.execute(sql)
    ours = cur.fetch_df()
    fast.close()
    conn = pyodbc.connect(spec["cs"])
    theirs = read_sql(sql, conn)
    conn.close()
    detail = df_equal.first_difference(ours, theirs)
    return {"equal": detail is None, "detail": detail, "rows": len(ours)}


def op_select1(peer: DbapiPeer, conn: Any, sql: str, inner: int) -> int:
    cur = conn.cursor()
    for _ in range(inner):
        cur.execute("SELECT 1")
        cur.fetchone()
    return 1


def op_describe(peer: DbapiPeer, conn: Any, sql: str, inner: int) -> int:
    cur = conn.cursor()
    n = 0
    for _ in range(inner):
        cur.execute(sql)
        n = len(cur.description)
    if n != 10:
        raise AssertionError(f"description has {n} columns, not 10")
    return 0


# ---------------------------------------------------------------------------------------------
# Inserts: the target table is emptied (untimed) through the native reference client; the timed
# part is executemany of all rows plus the commit; the row count is checked afterwards.


def reset_insert_table(spec: dict[str, Any]) -> None:
    native_clients.empty_table(spec, datasets.INSERT_TABLE)


def count_insert_table(spec: dict[str, Any]) -> int:
    return native_clients.query(spec, f"SELECT count(*) FROM {datasets.INSERT_TABLE}")[0][0]


def insert_dbapi(spec: dict[str, Any]) -> Callable[[], int]:
    peer = DbapiPeer(spec)
    rows = datasets.insert_rows(spec["rows"])
    sql = f"INSERT INTO {datasets.INSERT_TABLE} VALUES ({peer.marks(len(rows[0]))})"
    conn = peer.connect()
    cur = conn.cursor()
    if peer.name == "pyodbc-fem":
        cur.fast_executemany = True
    elif peer.name == "pyodbc":
        cur.fast_executemany = False

    def run() -> int:
        if peer.name == "psycopg-copy":
            with cur.copy(f"COPY {datasets.INSERT_TABLE} FROM STDIN") as cp:
                for r in rows:
                    cp.write_row(r)
        else:
            cur.executemany(sql, rows)
        conn.commit()
        return len(rows)

    return run


# ---------------------------------------------------------------------------------------------
# The Python object floor: what CPython alone needs to build the rows a fetchall returns (the
# same list of tuples of the same values), with no database and no ODBC. run.py has a worker
# dump the rows fastodbc fetched (untimed, its own process) with encode_rows; the timed
# "objects" measurement, in a fresh process like every peer, rebuilds them with
# fastodbc_bench.object_rows (bench/pyext): one constructor a value (PyLong_FromLongLong,
# PyUnicode_New of the str's own storage kind + one copy, PyBytes_FromStringAndSize, the
# datetime C API, one decimal.Decimal call on the text), one untracked tuple a row, one
# pre-sized list, and the new heap's page faults - the work every client returning these rows must do, and nothing else.
# (stdlib struct.iter_unpack is no bound: a format dispatch per value and GC passes over its
# tracked tuples; nor is pickle.loads, which rebuilds Decimals and datetimes through its
# generic reduce path, slower than fastodbc's whole fetch.)

OBJECT_MAGIC = b"object rows 1\n"


def encode_rows(rows: list[tuple]) -> bytes:
    """The dump fastodbc_bench.object_rows reads (little-endian): the magic, u64 rows, u32 columns,
    then for each value a tag byte and its payload. 0 None; 1 int (i64); 2 float (f64); 3 bool
    (u8); 4 str (u8 kind: 0 ASCII, 1 Latin-1, 2 UCS-2, 4 UCS-4 = its PEP 393 storage; u32
    chars; the code points at that width); 5 bytes (u32 length + data); 6 date (i32 year, u8
    month, day); 7 naive datetime (i32 year, u8 month, day, hour, minute, second, u32
    microsecond); 8 naive time (u8 hour, minute, second, u32 microsecond); 9 Decimal (u32
    length + str(d)). Any other value raises ValueError."""
    import datetime as dt
    import struct
    from decimal import Decimal

    out = bytearray(OBJECT_MAGIC)
    ncols = len(rows[0]) if rows else 0
    if rows and not ncols:
        raise ValueError("object rows: rows without columns")
    out += struct.pack("<QI", len(rows), ncols)
    int_ = struct.Struct("<Bq").pack
    float_ = struct.Struct("<Bd").pack
    sized = struct.Struct("<BI").pack
    str_ = struct.Struct("<BBI").pack
    date = struct.Struct("<BiBB").pack
    datetime = struct.Struct("<BiBBBBBI").pack
    time_ = struct.Struct("<BBBBI").pack

    def enc_none(v: None) -> bytes:
        return b"\0"

    def enc_int(v: int) -> bytes:
        if not -(2**63) <= v < 2**63:
            raise ValueError(f"object rows: int {v} does not fit 64 bits")
        return int_(1, v)

    def enc_float(v: float) -> bytes:
        return float_(2, v)

    def enc_bool(v: bool) -> bytes:
        return b"\3\1" if v else b"\3\0"

    def enc_str(v: str) -> bytes:
        if v.isascii():
            return str_(4, 0, len(v)) + v.encode("ascii")
        try:
            return str_(4, 1, len(v)) + v.encode("latin-1")
        except UnicodeEncodeError:
            pass
        units = v.encode("utf-16-le", "surrogatepass")
        if len(units) == 2 * len(v):  # no surrogate pairs: every code point < 65536
            return str_(4, 2, len(v)) + units
        return str_(4, 4, len(v)) + v.encode("utf-32-le", "surrogatepass")

    def enc_bytes(v: bytes) -> bytes:
        return sized(5, len(v)) + v

    def enc_date(v: dt.date) -> bytes:
        return date(6, v.year, v.month, v.day)

    def enc_datetime(v: dt.datetime) -> bytes:
        if v.tzinfo is not None or v.fold:
            raise ValueError(f"object rows: {v!r} is not a naive datetime")
        return datetime(7, v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond)

    def enc_time(v: dt.time) -> bytes:
        if v.tzinfo is not None or v.fold:
            raise ValueError(f"object rows: {v!r} is not a naive time")
        return time_(8, v.hour, v.minute, v.second, v.microsecond)

    def enc_decimal(v: Decimal) -> bytes:
        text = str(v).encode("ascii")
        return sized(9, len(text)) + text

    encoders: dict[type, Callable[[Any], bytes]] = {
        type(None): enc_none,
        int: enc_int,
        float: enc_float,
        bool: enc_bool,
        str: enc_str,
        bytes: enc_bytes,
        dt.date: enc_date,
        dt.datetime: enc_datetime,
        dt.time: enc_time,
        Decimal: enc_decimal,
    }
    for r in rows:
        if len(r) != ncols:
            raise ValueError(f"object rows: a row of {len(r)} values among rows of {ncols}")
        for v in r:
            enc = encoders.get(type(v))
            if enc is None:
                raise ValueError(f"object rows: no encoding for a value of type {type(v).__qualname__}")
            out += enc(v)
    return bytes(out)


def dump_objects(spec: dict[str, Any]) -> int:
    """Writes the rows fastodbc returns for spec["sql"] (encode_rows); returns their count."""
    import fastodbc

    conn = fastodbc.connect(spec["cs"])
    rows = conn.cursor().execute(spec["sql"]).fetchall()
    conn.close()
    data = encode_rows(rows)
    with open(spec["objects_path"], "wb") as f:
        f.write(data)
    return len(rows)


def load_objects(spec: dict[str, Any]) -> Callable[[], int]:
    # The value types' modules are imported untimed, as a client has them before it fetches.
    import datetime  # noqa: F401
    import decimal  # noqa: F401

    import fastodbc_bench

    with open(spec["objects_path"], "rb") as f:
        body = f.read()

    def run() -> int:
        rows = fastodbc_bench.object_rows(body)
        KEPT.append(rows)
        return len(rows)

    return run


# ---------------------------------------------------------------------------------------------


def prepare(spec: dict[str, Any]) -> Callable[[], int]:
    """Everything untimed (imports, connect, input data); returns the timed callable."""
    op, peer_name = spec["op"], spec["peer"]
    inner = spec.get("inner", 1)
    sql = spec.get("sql", "")
    if peer_name == "objects":
        return load_objects(spec)
    if op == "insert":
        reset_insert_table(spec)
        if peer_name in OWN_VENV_PEERS:
            return prepare_own_venv_peer(spec)
        if peer_name == "arrow-odbc":
            import arrow_odbc

            table = datasets.mixed_arrow_table(datasets.insert_rows(spec["rows"]))
            conn = arrow_odbc.connect(spec["cs"], autocommit=False)

            def run() -> int:
                conn.from_table_to_db(table, datasets.INSERT_TABLE, chunk_size=1000)
                conn.commit()
                return table.num_rows

            return run
        return insert_dbapi(spec)
    if peer_name == "arrow-odbc":
        import arrow_odbc
        import pyarrow as pa

        conn = arrow_odbc.connect(spec["cs"], autocommit=bool(spec.get("autocommit")))
        if op in ("fetchall", "arrow"):
            # The Arrow counterpart of fetchall: every batch, then one Table (defaults as a user
            # would call it: arrow-odbc sizes its own transit buffers).
            def run() -> int:
                reader = conn.read_arrow_batches(sql)
                table = pa.Table.from_batches(list(reader), schema=reader.schema)
                KEPT.append(table)
                return table.num_rows

            return run
        if op in ("fetchmany", "record_batch"):
            size = spec.get("batch_rows") or FETCHMANY_SIZE

            def run() -> int:
                n = 0
                for batch in conn.read_arrow_batches(sql, batch_size=size):
                    n += batch.num_rows
                return n

            return run
        raise ValueError(f"arrow-odbc has no {op}")
    if peer_name in OWN_VENV_PEERS:
        return prepare_own_venv_peer(spec)
    if peer_name in profiles.ARROW_ANCHORS:
        return prepare_arrow_anchor(spec)
    peer = DbapiPeer(spec)
    if op in ("arrow", "record_batch"):
        import pyarrow  # noqa: F401
    elif op == "df":
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    if op == "connect":

        def run() -> int:
            for _ in range(inner):
                peer.connect().close()
            return 0

        return run
    fn = {
        "fetchall": op_fetchall,
        "iter": op_iter,
        "fetchmany": op_fetchmany,
        "fetchone": op_fetchone,
        "select1": op_select1,
        "describe": op_describe,
        "arrow": op_arrow,
        "record_batch": op_record_batch,
        "df": op_df,
    }[op]
    conn = peer.connect()
    return lambda: fn(peer, conn, sql, inner)


# The native Arrow clients of the Arrow case (issue 33: the backend's arrow_anchors), no ODBC
# between them and the database: what a driver change could win, beside what fastodbc can.
# Their values are not compared with fastodbc's, no more than arrow-odbc's are: the case checks
# row counts, and each peer's Arrow types are recorded (arrow_types, after the clock; the report
# names those unlike fastodbc's). Some differ by design: on SQLite, ADBC returns each column as
# SQLite stores it (DATE and TIMESTAMP as the text stored, BOOLEAN as int64: no date parsing
# in its time) where fastodbc, like ConnectorX, has date32, timestamp[us] and bool from the
# declared types, and ConnectorX returns a BLOB as large_binary; a double comes through
# sqliteodbc with 15 significant digits (SQLite's text of it), through the native clients with
# all 17. On PostgreSQL a numeric(18,4) is fastodbc's decimal128(18, 4), ConnectorX's
# decimal128(38, 10) and ADBC's opaque extension type over the server's text (not parsed).


def prepare_arrow_anchor(spec: dict[str, Any]) -> Callable[[], int]:
    """ "connectorx": ``read_sql(uri, sql, return_type="arrow")``, which connects on every call, so
    its connect is timed (a few ms on PostgreSQL, nothing on SQLite's file); "adbc": the backend's
    ADBC driver through its DB-API, connected untimed as the ODBC peers are, then ``execute`` +
    ``fetch_arrow_table`` with the cursor closed inside the clock."""
    import pyarrow  # noqa: F401 - loaded before the clock, as for every Arrow peer

    backend, sql = profiles.of(spec), spec["sql"]
    if spec["op"] != "arrow" or spec["peer"] not in backend.arrow_anchors:
        raise ValueError(f"{spec['peer']} has no {spec['op']} on {backend.name}")
    parts = profiles.connection_parts(spec)
    if spec["peer"] == "connectorx":
        import connectorx as cx

        uri = backend.connectorx_uri.format(**parts)

        def read() -> int:
            table = cx.read_sql(uri, sql, return_type="arrow")
            KEPT.append(table)
            return table.num_rows

        return read
    import importlib

    conn = importlib.import_module(f"{backend.adbc_driver}.dbapi").connect(backend.adbc_uri.format(**parts))

    def run() -> int:
        cur = conn.cursor()
        cur.execute(sql)
        table = cur.fetch_arrow_table()
        KEPT.append(table)
        cur.close()
        return table.num_rows

    return run


def arrow_types(kept: list[Any]) -> list[str] | None:
    """``name: type`` of each column of the table an Arrow fetch kept (None: it kept none)."""
    schema = getattr(kept[-1], "schema", None) if kept else None
    return None if schema is None else [f"{f.name}: {f.type}" for f in schema]


def connect_own_venv_peer(spec: dict[str, Any]) -> Any:
    """A connection of turbodbc or zodbc, each run by its own venv's python (bench/turbodbc.sh,
    bench/zodbc.sh), with its default options; autocommit off, as for every peer."""
    if spec["peer"].startswith("turbodbc"):
        import turbodbc

        return turbodbc.connect(connection_string=spec["cs"])
    import zodbc

    return zodbc.connect(spec["cs"], autocommit=False)


#: The peers run by a venv of their own (bench/run.py PEER_VENVS).
OWN_VENV_PEERS = ("turbodbc", "turbodbc-arrow", "zodbc", "zodbc-arrow")
#: The method that fetches a whole result as a ``pyarrow.Table``, per peer of its own venv.
ARROW_FETCH = {"turbodbc-arrow": "fetchallarrow", "zodbc-arrow": "arrow"}


def prepare_own_venv_peer(spec: dict[str, Any]) -> Callable[[], int]:
    """turbodbc and zodbc: rows from ``fetchall`` ("turbodbc", "zodbc"), a ``pyarrow.Table``
    ("turbodbc-arrow": ``fetchallarrow``, "zodbc-arrow": ``arrow``), ``executemany`` of the
    insert rows (commit timed). The cursor is closed inside the clock, as the others'."""
    op, sql = spec["op"], spec.get("sql", "")
    conn = connect_own_venv_peer(spec)
    if op == "insert":
        rows = datasets.insert_rows(spec["rows"])
        insert = f"INSERT INTO {datasets.INSERT_TABLE} VALUES ({', '.join('?' * len(rows[0]))})"
        cur = conn.cursor()

        def run() -> int:
            cur.executemany(insert, rows)
            conn.commit()
            return len(rows)

        return run
    arrow = ARROW_FETCH.get(spec["peer"])
    if op != "fetchall" and not (op == "arrow" and arrow):
        raise ValueError(f"{spec['peer']} peer has no {op}")

    def run() -> int:
        cur = conn.cursor()
        cur.execute(sql)
        result = getattr(cur, arrow)() if arrow else cur.fetchall()
        KEPT.append(result)
        cur.close()
        return result.num_rows if arrow else len(result)

    return run


def main() -> None:
    spec = json.loads(sys.argv[1])
    if spec["op"] == "dump-objects":
        print(json.dumps({"rows": dump_objects(spec)}))
        return
    if spec["op"] == "export-check":
        try:
            print(
                json.dumps(
                    bulk_check.export_differs(spec["path"], spec["reference_path"], spec.get("double_tolerance"))
                )
            )
        except Exception as e:  # noqa: BLE001 - the check's failure is its result
            print(json.dumps({"error": f"{type(e).__name__}: {e}"[:300]}))
        return
    if spec["op"] == "df-check":
        try:
            print(json.dumps(check_df(spec)))
        except Exception as e:  # noqa: BLE001 - the check's failure is its result
            print(json.dumps({"error": f"{type(e).__name__}: {e}"[:300]}))
        return
    out: dict[str, Any] = {"seconds": None, "rows": None, "rss_before": None, "maxrss": None, "error": None}
    try:
        check = None
        if spec["op"] in worker_pool.OPS or spec["op"] in worker_parallel.OPS:
            # The pool and asyncio cases time themselves (an event loop, threads, a ticker), as do
            # the partitioned reads (the plan before the clock, CPU time from /proc beside it).
            rss0 = rss_now()
            measure = worker_pool.measure if spec["op"] in worker_pool.OPS else worker_parallel.measure
            out.update(measure(spec))
            out["rss_before"] = rss0
            out["maxrss"] = maxrss()
            print(json.dumps(out))
            return
        if spec["op"] in worker_bulk.OPS:
            run, check = worker_bulk.prepare(spec)
        else:
            run = prepare(spec)
        rss0 = rss_now()
        t0 = time.perf_counter()
        rows = run()
        seconds = time.perf_counter() - t0
        if spec["op"] == "arrow":
            out["arrow_types"] = arrow_types(KEPT)
        KEPT.clear()
        out["maxrss"] = maxrss()
        out["rss_before"] = rss0
        if spec["op"] == "insert":
            stored = count_insert_table(spec)
            if stored != rows:
                raise AssertionError(f"inserted {rows} rows but the table holds {stored}")
        if check is not None:
            out["wrong"] = check(rows)
        out["seconds"] = seconds / spec.get("inner", 1)
        out["rows"] = rows
    except Exception as e:  # noqa: BLE001 - every failure is a result to report
        msg = f"{type(e).__name__}: {e}".replace("\n", " ")
        out["error"] = msg[:300]
        if os.environ.get("BENCH_DEBUG"):
            traceback.print_exc()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
